/* report/findings.c — the report's first figure, layer-wise probing at a glance, and the
 * control tasks.
 *
 * The figure: for every encoder whose runs are layers (NAME-L<k>, stages/layers.h), a heatmap with
 * one row per measure and one column per layer, then one column per other encoder of the report
 * (GloVe, a random-init SAN: the reference points). The rows, each against its own baseline:
 *   - a probing task (SentEval, §2): mean test accuracy over seeds, against the majority class;
 *   - a token probe (UPOS, deprel): accuracy, against the control task's accuracy (Hewitt & Liang;
 *     the mean over the row's cells: the control is trained per layer, the table below has each);
 *   - the distance probe (Hewitt & Manning): UUAS and DSpr, against the linear baseline on the
 *     same test sentences;
 *   - dependency trees from attention: UAS, against the best of the chain/adjacent/random trees;
 *   - constituency trees from attention: sentence-level F1, against the best of the right-,
 *     left-branching and random trees.
 * The colour is the gain over the row's baseline in points (DSpr × 100), on one scale for the whole
 * figure; the value is printed in every cell; the row's best cell is outlined.
 *
 * The control tasks: per (encoder, task) across layers, accuracy, control accuracy and selectivity
 * (accuracy − control, points), as a table and a chart of selectivity by layer. */
#include "report/page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "stages/layers.h"
#include "report/agg.h"
#include "report/rows.h"

/* ---- the measures: rows of cells keyed by column ----
 * A row: its label, the format and scale of its values, its baseline, its cells by column ("NAME\tL<k>"
 * for layer k of the base NAME, else the encoder's name) and the bases it has cells of. */
struct cell { char *col; double v; int flag; };
struct grow {
    char *key, *label, *baseline_label;
    const char *fmt;
    double scale, baseline;       /* baseline NAN: none */
    struct cell *c;
    size_t nc;
    char **bases;
    size_t nb;
    double *ctl;                  /* token probes: the control accuracies of its cells */
    size_t nctl;
};
struct gbase { char *name; int max; };   /* a base and its highest layer */
struct grid {
    struct grow *r;
    size_t n;
    struct gbase *base;
    size_t nbase;
    char **others;                /* the other encoders, in first-appearance order */
    size_t nothers;
};

static struct grow *grid_find(struct grid *g, const char *key)
{
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->r[i].key, key)) return &g->r[i];
    return NULL;
}

/* the row of key, made with label, fmt and scale when there is none; its index */
static size_t grid_row(struct grid *g, const char *key, const char *label, const char *fmt, double scale)
{
    struct grow *r = grid_find(g, key);
    if (r) return (size_t)(r - g->r);
    g->r = sp_xrealloc(g->r, sizeof *g->r * (g->n + 1));
    g->r[g->n] = (struct grow){ .key = sp_xstrdup(key), .label = sp_xstrdup(label), .fmt = fmt, .scale = scale, .baseline = NAN };
    return g->n++;
}

static int has_str(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s)) return 1;
    return 0;
}

static void add_str(char ***v, size_t *n, const char *s)
{
    *v = sp_xrealloc(*v, sizeof **v * (*n + 1));
    (*v)[(*n)++] = sp_xstrdup(s);
}

/* the cell of row ri for run label enc (a layer of a base, or another encoder) */
static void grid_put(struct grid *g, size_t ri, const char *enc, double v, int flag)
{
    if (isnan(v)) return;
    struct grow *r = &g->r[ri];
    struct sp_buf base = { 0 }, col = { 0 };
    sp_buf_put(&base, enc, strlen(enc) + 1);
    int k = stg_layer_of_run(enc, base.p, base.len);
    if (k >= 0) {
        sp_buf_printf(&col, "%s\tL%d", base.p, k);
        size_t b = 0;
        while (b < g->nbase && strcmp(g->base[b].name, base.p)) b++;
        if (b == g->nbase) {
            g->base = sp_xrealloc(g->base, sizeof *g->base * (g->nbase + 1));
            g->base[g->nbase++] = (struct gbase){ sp_xstrdup(base.p), k };
        } else if (g->base[b].max < k) {
            g->base[b].max = k;
        }
        if (!has_str(r->bases, r->nb, base.p)) add_str(&r->bases, &r->nb, base.p);
    } else {
        sp_buf_printf(&col, "%s", enc);
        if (!has_str(g->others, g->nothers, enc)) add_str(&g->others, &g->nothers, enc);
    }
    size_t c = 0;
    while (c < r->nc && strcmp(r->c[c].col, col.p)) c++;
    if (c == r->nc) {
        r->c = sp_xrealloc(r->c, sizeof *r->c * (r->nc + 1));
        r->c[r->nc++] = (struct cell){ sp_xstrdup(col.p), v, flag };
    } else {
        r->c[c].v = v;
        r->c[c].flag |= flag;
    }
    sp_buf_free(&base);
    sp_buf_free(&col);
}

static const struct cell *grid_cell(const struct grow *r, const char *col)
{
    for (size_t c = 0; c < r->nc; c++)
        if (!strcmp(r->c[c].col, col)) return &r->c[c];
    return NULL;
}

static void set_baseline(struct grow *r, double v, const char *label)
{
    if (isnan(v)) return;
    if (!isnan(r->baseline) && r->baseline >= v) return;   /* the strongest baseline of the row */
    r->baseline = v;
    free(r->baseline_label);
    r->baseline_label = sp_xstrdup(label);
}

static void grid_free(struct grid *g)
{
    for (size_t i = 0; i < g->n; i++) {
        struct grow *r = &g->r[i];
        for (size_t c = 0; c < r->nc; c++) free(r->c[c].col);
        for (size_t b = 0; b < r->nb; b++) free(r->bases[b]);
        free(r->c); free(r->bases); free(r->ctl); free(r->key); free(r->label); free(r->baseline_label);
    }
    for (size_t b = 0; b < g->nbase; b++) free(g->base[b].name);
    for (size_t o = 0; o < g->nothers; o++) free(g->others[o]);
    free(g->r); free(g->base); free(g->others);
}

/* probing tasks and token probes, from the aggregates over seeds */
static void grid_probes(struct grid *g, const struct rpt_table *t)
{
    int one_clf = 1;
    const char *clf0 = NULL;
    for (size_t i = 0; i < t->n; i++) {
        if (!rpt_is_agg(&t->v[i])) continue;
        if (!clf0) clf0 = t->v[i].method;
        else if (strcmp(clf0, t->v[i].method)) one_clf = 0;
    }
    struct sp_buf key = { 0 }, label = { 0 };
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *a = &t->v[i];
        if (!rpt_is_agg(a)) continue;
        int tok = a->kind == RPT_K_TOKEN;
        key.len = label.len = 0;
        sp_buf_printf(&key, "%s\t%s\t%s", tok ? "token" : "task", a->task, a->method);
        const char *task = a->task;
        sp_buf_printf(&label, "%s%s%s%s%s", tok ? task + 6 : task, tok ? " (token probe)" : "", one_clf ? "" : " [",
                      one_clf ? "" : a->method, one_clf ? "" : "]");
        size_t ri = grid_row(g, key.p, label.p, "%.1f", 1);
        grid_put(g, ri, a->encoder, a->value, !!(a->flags & RPT_F_SMALL));
        struct grow *r = &g->r[ri];
        if (tok) {
            /* the control accuracies of the row's cells, averaged once all are in (grid_finish) */
            if (!isnan(a->base.control)) {
                r->ctl = sp_xrealloc(r->ctl, sizeof *r->ctl * (r->nctl + 1));
                r->ctl[r->nctl++] = a->base.control;
            }
        } else {
            set_baseline(r, a->base.majority, "majority class");
        }
    }
    sp_buf_free(&key);
    sp_buf_free(&label);
}

/* the run a tree evaluation scored (its method names it) as a label without the corpus suffix, into
 * b; NULL when the method scored no run (a baseline) */
static const char *tree_run(const struct rpt_row *row, const char *prefix, struct sp_buf *b)
{
    const char *m = row->method;
    size_t pl = strlen(prefix);
    if (strncmp(m, prefix, pl)) return NULL;
    const char *p = m + pl, *end = strstr(p, ":layer");
    size_t n = end ? (size_t)(end - p) : strlen(p);
    struct sp_buf run = { 0 };
    sp_buf_put(&run, p, n);
    sp_buf_put(&run, "", 1);
    b->len = 0;
    sp_buf_put(b, run.p, n + 1);
    rpt_run_label(run.p, row->corpus, b->p, n + 1);
    sp_buf_free(&run);
    return b->p;
}

/* structural probes, dependency and constituency trees from attention */
static void grid_trees(struct grid *g, const struct rpt_table *t)
{
    struct sp_buf run = { 0 }, key = { 0 };
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *row = &t->v[i];
        if (rpt_is_probe(row)) continue;
        const char *m = row->method, *corpus = row->corpus;
        if (tree_run(row, "structprobe:trained:run=", &run)) {
            static const struct { const char *metric, *label, *fmt; double scale; int fig, lin; } sp[2] = {
                { "uuas", "distance probe UUAS", "%.1f", 1, RPT_T_UUAS, RPT_T_LIN_UUAS },
                { "dspr", "distance probe DSpr", "%.3f", 100, RPT_T_DSPR, RPT_T_LIN_DSPR } };
            for (int k = 0; k < 2; k++) {
                key.len = 0;
                sp_buf_printf(&key, "sp\t%s\t%s", sp[k].metric, corpus);
                size_t ri = grid_row(g, key.p, sp[k].label, sp[k].fmt, sp[k].scale);
                grid_put(g, ri, run.p, row->fig[sp[k].fig], 0);
                set_baseline(&g->r[ri], row->fig[sp[k].lin], "linear");
            }
        } else if (tree_run(row, "dependency:run:", &run)) {
            const char *dir = strrchr(m, ':');
            key.len = 0;
            sp_buf_printf(&key, "dep\t%s\t%s", corpus, dir ? dir + 1 : "");
            struct sp_buf label = { 0 };
            sp_buf_printf(&label, "attention → dep. tree UAS (%s)", dir ? dir + 1 : "");
            grid_put(g, grid_row(g, key.p, label.p, "%.1f", 1), run.p, row->fig[RPT_T_UAS], 0);
            sp_buf_free(&label);
        } else if (tree_run(row, "attention:run:", &run)) {
            key.len = 0;
            sp_buf_printf(&key, "const\t%s", corpus);
            grid_put(g, grid_row(g, key.p, "attention → const. tree F1", "%.1f", 1), run.p, row->fig[RPT_T_B_SENT], 0);
        }
    }
    /* baselines after the rows exist: the best baseline of the corpus */
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *row = &t->v[i];
        if (rpt_is_probe(row)) continue;
        const char *m = row->method, *corpus = row->corpus;
        struct grow *r;
        if (!strncmp(m, "dependency:baseline:", 20)) {
            key.len = 0;
            sp_buf_printf(&key, "dep\t%s\t", corpus);
            for (size_t k = 0; k < g->n; k++)
                if (!strncmp(g->r[k].key, key.p, key.len)) {
                    struct sp_buf lab = { 0 };
                    sp_buf_printf(&lab, "%s trees", m + 20);
                    set_baseline(&g->r[k], row->fig[RPT_T_UAS], lab.p);
                    sp_buf_free(&lab);
                }
        } else if (!strncmp(m, "right", 5) || !strncmp(m, "left", 4) || !strncmp(m, "random", 6)) {
            key.len = 0;
            sp_buf_printf(&key, "const\t%s", corpus);
            if ((r = grid_find(g, key.p))) set_baseline(r, row->fig[RPT_T_B_SENT], m);
        }
    }
    sp_buf_free(&run);
    sp_buf_free(&key);
}

/* token probes: the baseline is the mean control accuracy of the row's cells */
static void grid_finish(struct grid *g)
{
    for (size_t i = 0; i < g->n; i++) {
        struct grow *r = &g->r[i];
        if (!r->nctl) continue;
        double s = 0;
        for (size_t k = 0; k < r->nctl; k++) s += r->ctl[k];
        set_baseline(r, s / (double)r->nctl, "control task (mean)");
    }
}

/* one heatmap: the rows base has cells in, its layers, then the other encoders */
static void heatmap_of(struct rpt_page *p, struct grid *g, const char *base, int max_layer)
{
    size_t nr = 0, i;
    for (i = 0; i < g->n; i++) nr += has_str(g->r[i].bases, g->r[i].nb, base);
    if (!nr) return;
    int nl = max_layer + 1, no = (int)g->nothers, nc = nl + no;
    double *v = malloc(sizeof *v * nr * (size_t)nc), *bl = malloc(sizeof *bl * nr), *sc = malloc(sizeof *sc * nr);
    unsigned char *flag = calloc(nr * (size_t)nc, 1);
    const char **rl = malloc(sizeof *rl * nr), **fmt = malloc(sizeof *fmt * nr), **bll = malloc(sizeof *bll * nr);
    const char **cl = malloc(sizeof *cl * (size_t)nc);
    char (*lab)[16] = malloc(sizeof *lab * (size_t)(nl ? nl : 1));
    struct sp_buf col = { 0 };
    for (int k = 0; k < nl; k++) { snprintf(lab[k], sizeof lab[k], "%d", k); cl[k] = lab[k]; }
    for (int o = 0; o < no; o++) cl[nl + o] = g->others[o];
    size_t ri = 0;
    for (i = 0; i < g->n; i++) {
        const struct grow *r = &g->r[i];
        if (!has_str(r->bases, r->nb, base)) continue;
        rl[ri] = r->label;
        fmt[ri] = r->fmt;
        sc[ri] = r->scale;
        bl[ri] = r->baseline;
        bll[ri] = r->baseline_label ? r->baseline_label : "";
        for (int c = 0; c < nc; c++) {
            col.len = 0;
            if (c < nl) sp_buf_printf(&col, "%s\tL%d", base, c);
            else sp_buf_printf(&col, "%s", cl[c]);
            const struct cell *x = grid_cell(r, col.p);
            v[ri * (size_t)nc + (size_t)c] = x ? x->v : NAN;
            flag[ri * (size_t)nc + (size_t)c] = x && x->flag;
        }
        ri++;
    }
    struct sp_buf title = { 0 }, name = { 0 };
    sp_buf_printf(&title, "What each layer of %s encodes: every probe by layer%s", base, no ? ", and the other encoders" : "");
    sp_buf_printf(&name, "heatmap-%s", base);
    struct rpt_heatmap h = { title.p, "cell: the test score (accuracy, UUAS, UAS, F1 in %; DSpr as a correlation); "
                                      "colour: points above the row's baseline",
                             (int)nr, nc, rl, cl, "layer (0 = embeddings)", nl, v, fmt, sc, flag, bl, bll };
    rpt_page_heatmap(p, &h, name.p);
    sp_buf_free(&title); sp_buf_free(&name); sp_buf_free(&col);
    free(v); free(bl); free(sc); free(flag); free(rl); free(fmt); free(bll); free(cl); free(lab);
}

void rpt_findings_section(struct rpt_page *p, const struct rpt_table *t)
{
    struct grid g = { 0 };
    grid_probes(&g, t);
    grid_trees(&g, t);
    grid_finish(&g);
    /* no heading: the figure's title is one, and the figure belongs in the first screen */
    fprintf(p->f, "<section id=\"findings\">\n");
    if (!g.nbase) {
        fprintf(p->f, "<p>No layer-wise results: the runs of an encoder's layers are named <code>NAME-L&lt;k&gt;</code> "
                      "(layer 0 = the embeddings); a job's <code>\"layers\"</code> names them so.</p>\n");
    } else {
        for (size_t b = 0; b < g.nbase; b++) heatmap_of(p, &g, g.base[b].name, g.base[b].max);
    }
    fprintf(p->f, "</section>\n");
    grid_free(&g);
}

/* ---- control tasks ---- */

static int has_control(const struct rpt_row *a) { return rpt_is_agg(a) && !isnan(a->base.control); }

void rpt_control_section(struct rpt_page *p, const struct rpt_table *t)
{
    FILE *f = p->f;
    size_t i, n = 0;
    for (i = 0; i < t->n; i++) n += has_control(&t->v[i]);
    if (!n) return;
    fprintf(f, "<section id=\"control\"><h2>Control tasks</h2>\n<p>Selectivity = accuracy − control accuracy "
               "(points): how much of a probe's accuracy the representation gives rather than the probe's own capacity. "
               "Token probes: the control task gives every word type a random label of the same distribution (Hewitt &amp; "
               "Liang 2019, docs/spec/models.md M5). Probing tasks: the same probe trained on labels shuffled within each "
               "partition. Mean over seeds.</p>\n<table><tr><th class=\"l\">task</th><th class=\"l\">control</th>"
               "<th class=\"l\">encoder</th><th>layer</th><th>n test</th><th>accuracy</th><th>control accuracy</th>"
               "<th>selectivity</th></tr>\n");
    /* series for the chart: one per (base, task, classifier) with layers */
    char **series = NULL;   /* names, first-appearance order */
    size_t ns = 0, npt = 0;
    struct point { size_t s; int k; double v; } *pt = sp_xmalloc(sizeof *pt * (t->n + 1));
    int max_layer = -1;
    struct sp_buf base = { 0 }, key = { 0 };
    for (size_t ai = 0; ai < t->n; ai++) {
        const struct rpt_row *a = &t->v[ai];
        if (!has_control(a)) continue;
        int tok = a->kind == RPT_K_TOKEN;
        const char *enc = a->encoder;
        base.len = 0;
        sp_buf_put(&base, enc, strlen(enc) + 1);
        int k = stg_layer_of_run(enc, base.p, base.len);
        const char *task = tok ? a->task + 6 : a->task;
        fputs("<tr><td class=\"l\">", f);
        rpt_html_text(f, task);
        fputs("</td><td class=\"l\">", f);
        rpt_html_text(f, tok ? "random label per word type" : "shuffled labels");
        fputs("</td><td class=\"l\">", f);
        rpt_html_text(f, k >= 0 ? base.p : enc);
        fputs("</td>", f);
        if (k >= 0) fprintf(f, "<td>%d</td>", k); else fputs("<td>–</td>", f);
        rpt_page_cell(f, a->n < 0 ? NAN : (double)a->n, "%.0f");
        rpt_page_cell(f, a->value, "%.1f");
        rpt_page_cell(f, a->base.control, "%.1f");
        rpt_page_cell(f, a->base.selectivity, "%+.1f");
        fputs("</tr>\n", f);
        if (k < 0) continue;
        if (k > max_layer) max_layer = k;
        key.len = 0;
        sp_buf_printf(&key, "%s: %s%s", base.p, task, tok ? " (token)" : "");
        size_t si = 0;
        while (si < ns && strcmp(series[si], key.p)) si++;
        if (si == ns) add_str(&series, &ns, key.p);
        if (!isnan(a->base.selectivity)) pt[npt++] = (struct point){ si, k, a->base.selectivity };
    }
    fputs("</table>\n", f);
    if (max_layer >= 0) {
        int nl = max_layer + 1;
        double *v = malloc(sizeof *v * ns * (size_t)nl);
        const char **sl = malloc(sizeof *sl * ns), **gl = malloc(sizeof *gl * (size_t)nl);
        char (*lab)[16] = malloc(sizeof *lab * (size_t)nl);
        for (int k = 0; k < nl; k++) { snprintf(lab[k], sizeof lab[k], "%d", k); gl[k] = lab[k]; }
        for (i = 0; i < ns * (size_t)nl; i++) v[i] = NAN;
        for (i = 0; i < npt; i++) v[pt[i].s * (size_t)nl + (size_t)pt[i].k] = pt[i].v;   /* the last one stored */
        for (i = 0; i < ns; i++) sl[i] = series[i];
        struct rpt_chart ch = { "Selectivity by layer (accuracy − control accuracy)", "layer (0 = embeddings)", "points",
                                "mean over seeds; the table above has each accuracy and n", nl, gl, (int)ns, sl, v, NULL, NULL,
                                NULL, NULL, 0, 0, NULL };
        rpt_page_lines(p, &ch, "selectivity");
        free(v); free(sl); free(gl); free(lab);
    }
    fputs("</section>\n", f);
    sp_buf_free(&base); sp_buf_free(&key);
    for (i = 0; i < ns; i++) free(series[i]);
    free(series);
    free(pt);
}
