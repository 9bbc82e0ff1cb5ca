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

#define num rpt_jpath_num
#define str rpt_jpath_str

/* ---- the measures: rows of cells keyed by column ----
 * rows:  JSON array of {"label", "fmt", "scale", "baseline", "baseline_label", "cells": {col: value},
 *        "flags": {col: true}}; columns: "L<k>" for layer k of the base, else the encoder's name. */
struct grid {
    json_t *rows, *index;      /* index: row key -> row */
    json_t *bases;             /* base name -> max layer */
    json_t *others, *others_seen;
};

static json_t *grid_row(struct grid *g, const char *key, const char *label, const char *fmt, double scale)
{
    json_t *r = json_object_get(g->index, key);
    if (r) return r;
    r = json_pack("{s:s, s:s, s:f, s:o, s:o, s:o}", "label", label, "fmt", fmt, "scale", scale, "cells", json_object(),
                  "flags", json_object(), "bases", json_object());
    json_object_set_new(g->index, key, r);
    json_array_append(g->rows, r);
    return r;
}

/* the cell of row r for run label enc (a layer of a base, or another encoder) */
static void grid_put(struct grid *g, json_t *r, const char *enc, double v, int flag)
{
    if (isnan(v)) return;
    struct sp_buf base = { 0 }, col = { 0 };
    sp_buf_put(&base, enc, strlen(enc) + 1);
    int k = stg_layer_of_run(enc, base.p, base.len);
    if (k >= 0) {
        sp_buf_printf(&col, "%s\tL%d", base.p, k);
        json_t *m = json_object_get(g->bases, base.p);
        if (!m || json_integer_value(m) < k) json_object_set_new(g->bases, base.p, json_integer(k));
        json_object_set_new(json_object_get(r, "bases"), base.p, json_true());
    } else {
        sp_buf_printf(&col, "%s", enc);
        if (!json_object_get(g->others_seen, enc)) {
            json_object_set_new(g->others_seen, enc, json_true());
            json_array_append_new(g->others, json_string(enc));
        }
    }
    json_object_set_new(json_object_get(r, "cells"), col.p, json_real(v));
    if (flag) json_object_set_new(json_object_get(r, "flags"), col.p, json_true());
    sp_buf_free(&base);
    sp_buf_free(&col);
}

static void set_baseline(json_t *r, double v, const char *label)
{
    if (isnan(v)) return;
    double old = num(r, "baseline");
    if (!isnan(old) && old >= v) return;   /* the strongest baseline of the row */
    json_object_set_new(r, "baseline", json_real(v));
    json_object_set_new(r, "baseline_label", json_string(label));
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
        json_t *r = grid_row(g, key.p, label.p, "%.1f", 1);
        grid_put(g, r, a->encoder, a->value, !!(a->flags & RPT_F_SMALL));
        if (tok) {
            /* the control accuracies of the row's cells, averaged once all are in (grid_finish) */
            json_t *cs = json_object_get(r, "controls");
            if (!cs) { cs = json_array(); json_object_set_new(r, "controls", cs); }
            double c = a->base.control;
            if (!isnan(c)) json_array_append_new(cs, json_real(c));
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
                json_t *r = grid_row(g, key.p, sp[k].label, sp[k].fmt, sp[k].scale);
                grid_put(g, r, run.p, row->fig[sp[k].fig], 0);
                set_baseline(r, row->fig[sp[k].lin], "linear");
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
        json_t *r;
        const char *name;
        if (!strncmp(m, "dependency:baseline:", 20)) {
            key.len = 0;
            sp_buf_printf(&key, "dep\t%s\t", corpus);
            json_object_foreach(g->index, name, r)
                if (!strncmp(name, key.p, key.len)) {
                    struct sp_buf lab = { 0 };
                    sp_buf_printf(&lab, "%s trees", m + 20);
                    set_baseline(r, row->fig[RPT_T_UAS], lab.p);
                    sp_buf_free(&lab);
                }
        } else if (!strncmp(m, "right", 5) || !strncmp(m, "left", 4) || !strncmp(m, "random", 6)) {
            key.len = 0;
            sp_buf_printf(&key, "const\t%s", corpus);
            if ((r = json_object_get(g->index, key.p))) set_baseline(r, row->fig[RPT_T_B_SENT], m);
        }
    }
    sp_buf_free(&run);
    sp_buf_free(&key);
}

/* token probes: the baseline is the mean control accuracy of the row's cells */
static void grid_finish(struct grid *g)
{
    json_t *r;
    size_t i;
    json_array_foreach(g->rows, i, r) {
        json_t *cs = json_object_get(r, "controls"), *c;
        if (!cs || !json_array_size(cs)) continue;
        double s = 0;
        size_t k;
        json_array_foreach(cs, k, c) s += json_real_value(c);
        set_baseline(r, s / (double)json_array_size(cs), "control task (mean)");
    }
}

/* one heatmap: the rows base has cells in, its layers, then the other encoders */
static void heatmap_of(struct rpt_page *p, struct grid *g, const char *base, int max_layer)
{
    size_t nr = 0, i;
    json_t *r;
    json_array_foreach(g->rows, i, r) nr += json_object_get(json_object_get(r, "bases"), base) != NULL;
    if (!nr) return;
    int nl = max_layer + 1, no = (int)json_array_size(g->others), nc = nl + no;
    double *v = malloc(sizeof *v * nr * (size_t)nc), *bl = malloc(sizeof *bl * nr), *sc = malloc(sizeof *sc * nr);
    unsigned char *flag = calloc(nr * (size_t)nc, 1);
    const char **rl = malloc(sizeof *rl * nr), **fmt = malloc(sizeof *fmt * nr), **bll = malloc(sizeof *bll * nr);
    const char **cl = malloc(sizeof *cl * (size_t)nc);
    char (*lab)[16] = malloc(sizeof *lab * (size_t)(nl ? nl : 1));
    struct sp_buf col = { 0 };
    for (int k = 0; k < nl; k++) { snprintf(lab[k], sizeof lab[k], "%d", k); cl[k] = lab[k]; }
    for (int o = 0; o < no; o++) cl[nl + o] = json_string_value(json_array_get(g->others, (size_t)o));
    size_t ri = 0;
    json_array_foreach(g->rows, i, r) {
        if (!json_object_get(json_object_get(r, "bases"), base)) continue;
        rl[ri] = str(r, "label");
        fmt[ri] = str(r, "fmt");
        sc[ri] = num(r, "scale");
        bl[ri] = num(r, "baseline");
        bll[ri] = str(r, "baseline_label");
        json_t *cells = json_object_get(r, "cells"), *flags = json_object_get(r, "flags");
        for (int c = 0; c < nc; c++) {
            col.len = 0;
            if (c < nl) sp_buf_printf(&col, "%s\tL%d", base, c);
            else sp_buf_printf(&col, "%s", cl[c]);
            json_t *x = json_object_get(cells, col.p);
            v[ri * (size_t)nc + (size_t)c] = x ? json_real_value(x) : NAN;
            flag[ri * (size_t)nc + (size_t)c] = json_is_true(json_object_get(flags, col.p));
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
    struct grid g = { json_array(), json_object(), json_object(), json_array(), json_object() };
    grid_probes(&g, t);
    grid_trees(&g, t);
    grid_finish(&g);
    /* no heading: the figure's title is one, and the figure belongs in the first screen */
    fprintf(p->f, "<section id=\"findings\">\n");
    if (!json_object_size(g.bases)) {
        fprintf(p->f, "<p>No layer-wise results: the runs of an encoder's layers are named <code>NAME-L&lt;k&gt;</code> "
                      "(layer 0 = the embeddings); a job's <code>\"layers\"</code> names them so.</p>\n");
    } else {
        const char *base;
        json_t *m;
        json_object_foreach(g.bases, base, m) heatmap_of(p, &g, base, (int)json_integer_value(m));
    }
    fprintf(p->f, "</section>\n");
    json_decref(g.rows); json_decref(g.index); json_decref(g.bases); json_decref(g.others); json_decref(g.others_seen);
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
               "Liang 2019, SPEC-models M5). Probing tasks: the same probe trained on labels shuffled within each "
               "partition. Mean over seeds.</p>\n<table><tr><th class=\"l\">task</th><th class=\"l\">control</th>"
               "<th class=\"l\">encoder</th><th>layer</th><th>n test</th><th>accuracy</th><th>control accuracy</th>"
               "<th>selectivity</th></tr>\n");
    /* series for the chart: one per (base, task, classifier) with layers */
    json_t *series = json_object(), *order = json_array();
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
        json_t *s = json_object_get(series, key.p);
        if (!s) { s = json_object(); json_object_set_new(series, key.p, s); json_array_append_new(order, json_string(key.p)); }
        char ks[16];
        snprintf(ks, sizeof ks, "%d", k);
        json_object_set_new(s, ks, json_real(a->base.selectivity));
    }
    fputs("</table>\n", f);
    if (max_layer >= 0) {
        int nl = max_layer + 1;
        size_t ns = json_array_size(order);
        double *v = malloc(sizeof *v * ns * (size_t)nl);
        const char **sl = malloc(sizeof *sl * ns), **gl = malloc(sizeof *gl * (size_t)nl);
        char (*lab)[16] = malloc(sizeof *lab * (size_t)nl);
        for (int k = 0; k < nl; k++) { snprintf(lab[k], sizeof lab[k], "%d", k); gl[k] = lab[k]; }
        json_t *kj;
        json_array_foreach(order, i, kj) {
            sl[i] = json_string_value(kj);
            json_t *s = json_object_get(series, sl[i]);
            for (int k = 0; k < nl; k++) {
                json_t *x = json_object_get(s, lab[k]);
                v[i * (size_t)nl + (size_t)k] = x ? json_real_value(x) : NAN;
            }
        }
        struct rpt_chart ch = { "Selectivity by layer (accuracy − control accuracy)", "layer (0 = embeddings)", "points",
                                "mean over seeds; the table above has each accuracy and n", nl, gl, (int)ns, sl, v, NULL, NULL,
                                NULL, NULL, 0, 0, NULL };
        rpt_page_lines(p, &ch, "selectivity");
        free(v); free(sl); free(gl); free(lab);
    }
    fputs("</section>\n", f);
    sp_buf_free(&base); sp_buf_free(&key);
    json_decref(series); json_decref(order);
}
