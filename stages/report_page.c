/* stages/report_page.c — charts into the page and into figures (see stages/report_page.h). */
#include "stages/report_page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "stages/report_agg.h"

enum chart_kind { BARS, LINES, HEATMAP };

/* the chart drawn into memory, then copied to the page and handed to the figures */
static void emit(struct stg_page *p, enum chart_kind k, const void *chart, const char *name)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    SP_ASSERT(m != NULL);   /* open_memstream fails only without memory, like sp_xmalloc */
    if (k == BARS) stg_svg_bars(m, chart);
    else if (k == LINES) stg_svg_lines(m, chart);
    else stg_svg_heatmap(m, chart);
    fclose(m);
    fwrite(buf, 1, len, p->f);
    if (p->fig) stg_figures_add(p->fig, name, buf, len);
    free(buf);
}

static void multiples(struct stg_page *p, enum chart_kind k, const struct stg_chart *c, const char *name)
{
    if (c->n_series <= STG_CHART_MAX_SERIES) { emit(p, k, c, name); return; }
    int parts = (c->n_series + STG_CHART_MAX_SERIES - 1) / STG_CHART_MAX_SERIES;
    for (int part = 0; part < parts; part++) {
        int s0 = part * STG_CHART_MAX_SERIES, ns = c->n_series - s0;
        if (ns > STG_CHART_MAX_SERIES) ns = STG_CHART_MAX_SERIES;
        struct stg_chart one = *c;
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

void stg_page_bars(struct stg_page *p, const struct stg_chart *c, const char *name) { multiples(p, BARS, c, name); }
void stg_page_lines(struct stg_page *p, const struct stg_chart *c, const char *name) { multiples(p, LINES, c, name); }
void stg_page_heatmap(struct stg_page *p, const struct stg_heatmap *h, const char *name) { emit(p, HEATMAP, h, name); }

void stg_page_cell(FILE *f, double v, const char *fmt)
{
    char b[64];
    fputs("<td>", f);
    fputs(stg_fmt_num(b, sizeof b, fmt, v), f);
    fputs("</td>", f);
}
