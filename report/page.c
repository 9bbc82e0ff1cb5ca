/* report/page.c — charts into the page and into figures (see report/page.h). */
#include "report/page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "report/agg.h"

enum chart_kind { BARS, LINES, HEATMAP };

/* the chart drawn into memory, then copied to the page and handed to the figures */
static void emit(struct rpt_page *p, enum chart_kind k, const void *chart, const char *name)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    SP_ASSERT(m != NULL);   /* open_memstream fails only without memory, like sp_xmalloc */
    if (k == BARS) rpt_svg_bars(m, chart);
    else if (k == LINES) rpt_svg_lines(m, chart);
    else rpt_svg_heatmap(m, chart);
    fclose(m);
    fwrite(buf, 1, len, p->f);
    if (p->fig) rpt_figures_add(p->fig, name, buf, len);
    free(buf);
}

static void multiples(struct rpt_page *p, enum chart_kind k, const struct rpt_chart *c, const char *name)
{
    if (c->n_series <= RPT_CHART_MAX_SERIES) { emit(p, k, c, name); return; }
    int parts = (c->n_series + RPT_CHART_MAX_SERIES - 1) / RPT_CHART_MAX_SERIES;
    for (int part = 0; part < parts; part++) {
        int s0 = part * RPT_CHART_MAX_SERIES, ns = c->n_series - s0;
        if (ns > RPT_CHART_MAX_SERIES) ns = RPT_CHART_MAX_SERIES;
        struct rpt_chart one = *c;
        struct sp_buf title = { 0 }, fname = { 0 };
        sp_buf_printf(&title, "%s (part %d of %d)", c->title, part + 1, parts);
        sp_buf_printf(&fname, "%s-part%d", name, part + 1);
        size_t off = (size_t)s0 * (size_t)c->n_groups;
        one.title = title.p;
        one.n_series = ns;
        one.series_labels = c->series_labels ? c->series_labels + s0 : NULL;
        one.value = c->value + off;
        one.lo = c->lo ? c->lo + off : NULL;
        one.hi = c->hi ? c->hi + off : NULL;
        one.dashed = c->dashed ? c->dashed + s0 : NULL;
        emit(p, k, &one, fname.p);
        sp_buf_free(&title);
        sp_buf_free(&fname);
    }
}

void rpt_page_bars(struct rpt_page *p, const struct rpt_chart *c, const char *name) { multiples(p, BARS, c, name); }
void rpt_page_lines(struct rpt_page *p, const struct rpt_chart *c, const char *name) { multiples(p, LINES, c, name); }
void rpt_page_heatmap(struct rpt_page *p, const struct rpt_heatmap *h, const char *name) { emit(p, HEATMAP, h, name); }

void rpt_page_cell(FILE *f, double v, const char *fmt)
{
    char b[64];
    fputs("<td>", f);
    fputs(rpt_fmt_num(b, sizeof b, fmt, v), f);
    fputs("</td>", f);
}
