/* report/html_trees.c — the HTML report's tree sections: constituency trees from attention
 * (EVALB protocols), dependency trees from attention, structural probes, and the corpora with their
 * length and depth histograms (see report/html.h). Methods are shown by what they are
 * (method_label), the stored method string in the cell's tooltip. */
#include "report/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "stages/layers.h"
#include "report/agg.h"
#include "report/page.h"
#include "report/rows.h"
#include "store/st_info.h"

#define cell_num rpt_page_cell

/* ---- trees and structural probes ---- */

static int is_structprobe(const struct rpt_row *r) { return r->kind == RPT_K_STRUCTPROBE; }
static int is_dependency(const struct rpt_row *r) { return !rpt_is_probe(r) && !strncmp(r->method, "dependency:", 11); }
static int is_constituency(const struct rpt_row *r) { return !rpt_is_probe(r) && !is_structprobe(r) && !is_dependency(r); }

static size_t count_rows(const struct rpt_table *t, int (*keep)(const struct rpt_row *))
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) n += keep(&t->v[i]);
    return n;
}

/* What a stored method string is, in words: "dependency:run:minilm-L3:layer2:dep_to_head" is
 * "minilm-L3: attention of layer 3 (dep_to_head)" (attention layer J, 0-based, is encoder layer
 * J + 1's: layer 0 is the embeddings), "dependency:baseline:right" is "right chain (baseline)". */
static void method_label(const char *m, struct sp_buf *b)
{
    b->len = 0;
    const char *pre[] = { "dependency:run:", "attention:run:" }, *lay;
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(pre[k]);
        if (strncmp(m, pre[k], n) || !(lay = strstr(m + n, ":layer"))) continue;
        int j = atoi(lay + 6);
        const char *rest = strchr(lay + 6, ':');
        sp_buf_printf(b, "%.*s: attention of layer %d%s%s%s", (int)(lay - m - n), m + n, j + 1, rest ? " (" : "",
                      rest ? rest + 1 : "", rest ? ")" : "");
        return;
    }
    if (!strncmp(m, "dependency:baseline:", 20)) { sp_buf_printf(b, "%s trees (baseline)", m + 20); return; }
    if (!strncmp(m, "structprobe:trained:run=", 24)) { sp_buf_printf(b, "distance probe on %s", m + 24); return; }
    if (!strcmp(m, "structprobe:linear")) { sp_buf_printf(b, "linear baseline (|i − j|, depth i)"); return; }
    if (!strncmp(m, "right", 5) || !strncmp(m, "left", 4) || !strncmp(m, "random", 6)) { sp_buf_printf(b, "%s (baseline)", m); return; }
    sp_buf_printf(b, "%s", m);
}

/* the method's label, the stored method in its tooltip, and the corpus: two cells */
static void method_cell(FILE *f, const struct rpt_row *r)
{
    struct sp_buf b = { 0 };
    method_label(r->method, &b);
    fputs("<tr><td class=\"l\" title=\"", f);
    rpt_html_text(f, r->method);
    fputs("\">", f);
    rpt_html_text(f, b.p);
    fputs("</td><td class=\"l\">", f);
    rpt_html_text(f, r->corpus);
    fputs("</td>", f);
    sp_buf_free(&b);
}

/* One table row per tree evaluation that `keep` selects: method, corpus, then its figures. */
struct result_col { int fig; const char *fmt; };   /* enum rpt_tfig */
static void result_rows(FILE *f, const struct rpt_table *t, int (*keep)(const struct rpt_row *), const struct result_col *col,
                        size_t n_col)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (!keep(r)) continue;
        method_cell(f, r);
        for (size_t c = 0; c < n_col; c++) cell_num(f, r->fig[col[c].fig], col[c].fmt);
        fputs("</tr>\n", f);
    }
}

/* Flat lines of a chart by layer (baselines), by name in first-appearance order. */
struct base_lines { char **name; double *v; size_t n; };
static void base_set(struct base_lines *b, const char *name, double v, int replace)
{
    size_t i = 0;
    while (i < b->n && strcmp(b->name[i], name)) i++;
    if (i < b->n) { if (replace) b->v[i] = v; return; }
    b->name = sp_xrealloc(b->name, sizeof *b->name * (b->n + 1));
    b->v = sp_xrealloc(b->v, sizeof *b->v * (b->n + 1));
    b->name[b->n] = sp_xstrdup(name);
    b->v[b->n++] = v;
}

typedef int (*layer_pick_fn)(const struct rpt_row *r, int fig, char *run, size_t nr, char *variant, size_t nv,
                             struct base_lines *base);
static void by_layer_chart(struct rpt_page *p, const struct rpt_table *t, layer_pick_fn pick, int fig, const char *y_title,
                           const char *title, double y_max, const char *name);
static int pick_dependency(const struct rpt_row *r, int fig, char *run, size_t nr, char *variant, size_t nv,
                           struct base_lines *base);

void rpt_dependency(struct rpt_page *p, const struct rpt_table *t)
{
    FILE *f = p->f;
    if (!count_rows(t, is_dependency)) return;
    fprintf(f, "<section id=\"dependency\"><h2>Dependency trees from attention</h2>\n<p>Maximum spanning arborescence "
               "(Chu–Liu/Edmonds) over a layer's word-level attention, scored against the gold dependency trees without "
               "punctuation (docs/spec/models.md M6): UAS; UUAS of the same arcs; UUAS of the undirected maximum spanning tree "
               "against the gold distances' tree. Baselines: right and left chains, adjacent words, random trees (mean of "
               "5 seeds); – where a measure is not defined for a baseline.</p>\n<table><tr><th class=\"l\">method</th>"
               "<th class=\"l\">corpus</th><th>sentences</th><th>UAS</th><th>UUAS (arcs)</th><th>UUAS (MST)</th></tr>\n");
    static const struct result_col cols[] = { { RPT_T_NSENT, "%.0f" }, { RPT_T_UAS, "%.1f" }, { RPT_T_UUAS_DIR, "%.1f" },
                                               { RPT_T_UUAS_MST, "%.1f" } };
    result_rows(f, t, is_dependency, cols, sizeof cols / sizeof *cols);
    fputs("</table>\n", f);
    by_layer_chart(p, t, pick_dependency, RPT_T_UAS, "UAS (%)", "Dependency trees from attention: UAS by layer", 100,
                   "dependency-uas");
    fputs("</section>\n", f);
}

void rpt_constituency(struct rpt_page *p, const struct rpt_table *t)
{
    FILE *f = p->f;
    size_t n = count_rows(t, is_constituency);
    if (!n) return;
    fprintf(f, "<section id=\"trees\"><h2>Constituency trees from attention</h2>\n");
    fprintf(f, "<p>Constituency trees extracted from attention, scored like EVALB against the gold trees (F1, %%): "
               "Protocol A = corpus-level labelled-as-unlabelled EVALB; Protocol B = unlabelled sentence-level and "
               "corpus-level F1 over all sentences, those of at most 40 and of at most 10 words. Baselines: right- and "
               "left-branching and random trees.</p>\n"
               "<table><tr><th class=\"l\">method</th><th class=\"l\">corpus</th><th>sentences</th><th>A F1 all</th>"
               "<th>A F1 ≤40</th><th>B sent. F1 all</th><th>B sent. F1 ≤40</th><th>B sent. F1 ≤10</th>"
               "<th>B corpus F1 all</th></tr>\n");
    double *v = malloc(sizeof *v * 3 * n);
    const char **gl = malloc(sizeof *gl * n);
    struct sp_buf *lab = calloc(n, sizeof *lab);
    size_t g = 0;
    static const struct result_col cols[] = { { RPT_T_NSENT, "%.0f" }, { RPT_T_A_F, "%.1f" }, { RPT_T_A_F40, "%.1f" },
                                               { RPT_T_B_SENT, "%.1f" }, { RPT_T_B_SENT40, "%.1f" }, { RPT_T_B_SENT10, "%.1f" },
                                               { RPT_T_B_CORP, "%.1f" } };
    result_rows(f, t, is_constituency, cols, sizeof cols / sizeof *cols);
    const struct rpt_row *bins0 = NULL;   /* the first with F1 by length: its bins are the chart's groups */
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (!is_constituency(r)) continue;
        method_label(r->method, &lab[g]);
        gl[g] = lab[g].p;
        for (int k = 0; k < 3; k++) v[(size_t)k * n + g] = r->fig[RPT_T_B_SENT + k];
        g++;
        if (!bins0 && (r->flags & RPT_F_BINS)) bins0 = r;
    }
    fputs("</table>\n", f);
    static const char *const sl[3] = { "all sentences", "≤ 40 words", "≤ 10 words" };
    char note[96];
    snprintf(note, sizeof note, "%zu method%s; Protocol B; no error bars (one evaluation each)", n, n == 1 ? "" : "s");
    struct rpt_chart ch = { .title = "Sentence-level F1 by method and sentence length", .x_title = "method", .y_title = "F1 (%)",
                            .note = note, .n_groups = (int)n, .group_labels = gl, .n_series = 3, .series_labels = sl,
                            .value = v, .y_min = 0, .y_max = 100 };
    rpt_page_bars(p, &ch, "trees-f1");
    /* F1 by length bin: one line per method */
    if (bins0) {
        size_t nb = bins0->n_bins, b;
        double *bv = malloc(sizeof *bv * n * nb + 1);
        char (*bl)[16] = malloc(sizeof *bl * nb + 1);
        const char **bgl = malloc(sizeof *bgl * nb + 1);
        for (b = 0; b < nb; b++) {
            const struct rpt_len_bin *x = &bins0->bins[b];
            if (!isnan(x->hi)) snprintf(bl[b], sizeof bl[b], "%.0f-%.0f", x->lo, x->hi);
            else snprintf(bl[b], sizeof bl[b], "%.0f+", x->lo);
            bgl[b] = bl[b];
        }
        g = 0;
        for (size_t i = 0; i < t->n; i++) {
            const struct rpt_row *r = &t->v[i];
            if (!is_constituency(r)) continue;
            for (b = 0; b < nb; b++) bv[g * nb + b] = b < r->n_bins ? r->bins[b].f1 : NAN;
            g++;
        }
        struct rpt_chart lc = { .title = "Sentence-level F1 by sentence length (words without punctuation)",
                                .x_title = "sentence length (words)", .y_title = "F1 (%)", .note = note, .n_groups = (int)nb,
                                .group_labels = bgl, .n_series = (int)n, .series_labels = gl, .value = bv, .y_min = 0,
                                .y_max = 100 };
        rpt_page_lines(p, &lc, "trees-f1-by-length");
        free(bv); free(bl); free(bgl);
    }
    for (size_t k = 0; k < n; k++) sp_buf_free(&lab[k]);
    free(v); free(gl); free(lab);
    fprintf(f, "</section>\n");
}

/* ---- figures by layer of tree evaluations (runs NAME-L<k>, over a corpus NAME-L<k>-CORPUS) ----
 * One line per (NAME, corpus[, variant]) across layers, and flat lines for baselines. What a row
 * gives is the picker's: 1 with the run it scored in `run` (0: not a layer point), a variant for the
 * series name, and baselines (name -> value) into `base`. */
static void by_layer_chart(struct rpt_page *p, const struct rpt_table *t, layer_pick_fn pick, int fig, const char *y_title,
                           const char *title, double y_max, const char *fig_name)
{
    struct base_lines series = { 0 }, base_lines = { 0 };   /* series: names only */
    struct point { size_t s; int k; double v; } *pt = sp_xmalloc(sizeof *pt * (t->n + 1));
    size_t npt = 0;
    int max_layer = -1;
    /* whole names: series of long run names cut alike would merge. A picked run is part of the
     * row's method string, so buffers of its length hold it, its label and its base. */
    struct sp_buf run = { 0 }, label = { 0 }, base = { 0 }, key = { 0 };
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (rpt_is_probe(r)) continue;
        char variant[128] = "";
        size_t cap = strlen(r->method) + 1;
        struct sp_buf *grow[3] = { &run, &label, &base };
        for (int g = 0; g < 3; g++) { grow[g]->len = 0; sp_buf_put(grow[g], r->method, cap); }
        if (!pick(r, fig, run.p, cap, variant, sizeof variant, &base_lines)) continue;
        rpt_run_label(run.p, r->corpus, label.p, cap);
        int k = stg_layer_of_run(label.p, base.p, cap);
        if (k < 0) continue;
        if (k > max_layer) max_layer = k;
        key.len = 0;
        sp_buf_printf(&key, "%s (%s%s%s)", base.p, r->corpus, variant[0] ? ", " : "", variant);
        size_t s = 0;
        while (s < series.n && strcmp(series.name[s], key.p)) s++;
        if (s == series.n) base_set(&series, key.p, NAN, 0);
        if (!isnan(r->fig[fig])) pt[npt++] = (struct point){ s, k, r->fig[fig] };
    }
    sp_buf_free(&run); sp_buf_free(&label); sp_buf_free(&base); sp_buf_free(&key);
    if (max_layer >= 0) {
        int nl = max_layer + 1;
        size_t ns = series.n + base_lines.n;
        double *val = malloc(sizeof *val * ns * (size_t)nl);
        const char **sl = malloc(sizeof *sl * ns), **gl = malloc(sizeof *gl * (size_t)nl);
        int *dashed = calloc(ns, sizeof *dashed);
        char (*lab)[16] = malloc(sizeof *lab * (size_t)nl);
        for (int k = 0; k < nl; k++) { snprintf(lab[k], sizeof lab[k], "%d", k); gl[k] = lab[k]; }
        for (size_t x = 0; x < ns * (size_t)nl; x++) val[x] = NAN;
        for (size_t x = 0; x < npt; x++) val[pt[x].s * (size_t)nl + (size_t)pt[x].k] = pt[x].v;   /* the last one stored */
        for (size_t s = 0; s < series.n; s++) sl[s] = series.name[s];
        for (size_t b = 0; b < base_lines.n; b++) {
            size_t si = series.n + b;
            for (int k = 0; k < nl; k++) val[si * (size_t)nl + (size_t)k] = base_lines.v[b];
            dashed[si] = 1;
            sl[si] = base_lines.name[b];
        }
        struct rpt_chart ch = { .title = title, .x_title = "layer (0 = embeddings)", .y_title = y_title,
                                .note = "one evaluation per layer (no error bars); dashed: baselines, flat across layers",
                                .n_groups = nl, .group_labels = gl, .n_series = (int)ns, .series_labels = sl, .value = val,
                                .y_min = 0, .y_max = y_max, .dashed = dashed };
        rpt_page_lines(p, &ch, fig_name);
        free(val); free(sl); free(gl); free(lab); free(dashed);
    }
    struct base_lines *lists[2] = { &series, &base_lines };
    for (int l = 0; l < 2; l++) {
        for (size_t i = 0; i < lists[l]->n; i++) free(lists[l]->name[i]);
        free(lists[l]->name);
        free(lists[l]->v);
    }
    free(pt);
}

/* trained structural probes (the figure of Hewitt & Manning 2019), against the linear baseline of
 * the same test sentences, which every trained probe of a corpus shares (one partition); a
 * `structprobe --baseline linear` row scores the whole corpus, so it is not drawn here */
static int pick_structprobe(const struct rpt_row *r, int fig, char *run, size_t nr, char *variant, size_t nv,
                            struct base_lines *base)
{
    const char *m = r->method;
    if (!is_structprobe(r) || strncmp(m, "structprobe:trained:run=", 24)) return 0;
    struct sp_buf name = { 0 };       /* whole, as above */
    sp_buf_printf(&name, "linear baseline (%s, same test sentences)", r->corpus);
    double lb = r->fig[fig + RPT_T_LIN_NSENT - RPT_T_NSENT];   /* the linear baseline's same figure */
    if (!isnan(lb)) base_set(base, name.p, lb, 0);
    sp_buf_free(&name);
    snprintf(run, nr, "%s", m + 24);
    return 1;
}

/* dependency trees from a layer run's attention (method dependency:run:RUN:layerJ:DIRECTION), against
 * the chain, adjacent and random baselines of the same corpus (dependency:baseline:NAME) */
static int pick_dependency(const struct rpt_row *r, int fig, char *run, size_t nr, char *variant, size_t nv,
                           struct base_lines *base)
{
    const char *m = r->method;
    if (!strncmp(m, "dependency:baseline:", 20)) {
        struct sp_buf name = { 0 };   /* whole: two long corpus names cut alike would be one line */
        sp_buf_printf(&name, "%s baseline (%s)", m + 20, r->corpus);
        if (!isnan(r->fig[fig])) base_set(base, name.p, r->fig[fig], 1);
        sp_buf_free(&name);
        return 0;
    }
    const char *p = m + 15, *c = strncmp(m, "dependency:run:", 15) ? NULL : strstr(p, ":layer");
    if (!c) return 0;
    snprintf(run, nr, "%.*s", (int)(c - p), p);
    const char *dir = strchr(c + 1, ':');
    snprintf(variant, nv, "%s", dir ? dir + 1 : "");
    return 1;
}

void rpt_structprobes(struct rpt_page *p, const struct rpt_table *t)
{
    FILE *f = p->f;
    if (!count_rows(t, is_structprobe)) return;
    fprintf(f, "<section id=\"structprobe\"><h2>Structural probes</h2>\n<table><tr><th class=\"l\">method</th>"
               "<th class=\"l\">corpus</th><th>sentences</th><th>UUAS</th><th>DSpr</th><th>root acc.</th><th>NSpr</th>"
               "<th>linear UUAS</th><th>linear DSpr</th></tr>\n");
    static const struct result_col cols[] = { { RPT_T_NSENT, "%.0f" }, { RPT_T_UUAS, "%.1f" }, { RPT_T_DSPR, "%.3f" },
                                               { RPT_T_ROOT, "%.1f" }, { RPT_T_NSPR, "%.3f" }, { RPT_T_LIN_UUAS, "%.1f" },
                                               { RPT_T_LIN_DSPR, "%.3f" } };
    result_rows(f, t, is_structprobe, cols, sizeof cols / sizeof *cols);
    fputs("</table>\n<p>Linear: the baseline (distance |i − j|, depth i) on the same test sentences as the trained "
          "probe.</p>\n", f);
    by_layer_chart(p, t, pick_structprobe, RPT_T_UUAS, "UUAS (%)", "Distance probe: UUAS by layer", 100, "structprobe-uuas");
    by_layer_chart(p, t, pick_structprobe, RPT_T_DSPR, "DSpr (Spearman)", "Distance probe: DSpr (5-50) by layer", 1,
                   "structprobe-dspr");
    fputs("</section>\n", f);
}

/* ---- corpora ---- */

#define HIST_BINS 61
int rpt_corpora(struct rpt_page *p, struct st_db *db, char *err, size_t errlen)
{
    FILE *f = p->f;
    struct st_info in;
    int rc = st_info_summary(db, NULL, 0, &in, err, errlen);
    if (rc != SP_OK) return rc;
    fprintf(f, "<section id=\"corpora\"><h2>Corpora</h2>\n");
    if (!in.n_corpora) fprintf(f, "<p>No corpus in the store.</p>\n");
    else fprintf(f, "<table><tr><th class=\"l\">corpus</th><th>files</th><th>sentences</th><th>words</th><th>dependency trees"
                    "</th><th>constituency trees</th><th>max. length</th><th>max. depth</th></tr>\n");
    for (int c = 0; c < in.n_corpora; c++) {
        struct st_info_corpus *k = &in.corpora[c];
        fputs("<tr><td class=\"l\">", f);
        rpt_html_text(f, k->name);
        fputs("</td>", f);
        static const enum st_info_col col[] = { ST_INFO_FILES, ST_INFO_SENTENCES, ST_INFO_WORDS, ST_INFO_DEP_TREES,
                                                ST_INFO_CONST_TREES, ST_INFO_MAX_LENGTH, ST_INFO_MAX_DEPTH };
        for (size_t j = 0; j < sizeof col / sizeof *col; j++) cell_num(f, k->null[col[j]] ? NAN : (double)k->v[col[j]], "%.0f");
        fputs("</tr>\n", f);
    }
    if (in.n_corpora) fputs("</table>\n", f);
    for (int c = 0; rc == SP_OK && c < in.n_corpora; c++) {
        static const char *const what[2] = { "Sentence length (words)", "Dependency depth (max. over the sentence)" };
        for (int h = 0; rc == SP_OK && h < 2; h++) {
            int64_t cnt[HIST_BINS];
            if ((rc = st_info_histogram(db, in.corpora[c].name, (enum st_hist)h, cnt, HIST_BINS, err, errlen))) break;
            int last = 0, first = HIST_BINS;
            for (int b = 0; b < HIST_BINS; b++) if (cnt[b]) { last = b; if (first == HIST_BINS) first = b; }
            if (first == HIST_BINS) continue;          /* e.g. no dependency trees */
            int nb = last - first + 1;
            double v[HIST_BINS];
            char lab[HIST_BINS][12];
            const char *gl[HIST_BINS];
            for (int b = 0; b < nb; b++) {
                v[b] = (double)cnt[first + b];
                /* the last bin holds everything from HIST_BINS - 1 up: its label says up to where */
                int64_t max = in.corpora[c].v[h ? ST_INFO_MAX_DEPTH : ST_INFO_MAX_LENGTH];
                if (first + b == HIST_BINS - 1) snprintf(lab[b], sizeof lab[b], "%d-%lld", first + b, (long long)max);
                else snprintf(lab[b], sizeof lab[b], "%d", first + b);
                gl[b] = lab[b];
            }
            struct sp_buf title = { 0 }, name = { 0 };
            int64_t total = 0;
            for (int b = 0; b < HIST_BINS; b++) total += cnt[b];
            sp_buf_printf(&title, "%s: %s", in.corpora[c].name, what[h]);
            sp_buf_printf(&name, "%s-%s", in.corpora[c].name, h ? "depth" : "length");
            char note[64];
            snprintf(note, sizeof note, "n = %lld sentences", (long long)total);
            struct rpt_chart ch = { .title = title.p, .x_title = h ? "depth" : "words", .y_title = "sentences", .note = note,
                                    .n_groups = nb, .group_labels = gl, .n_series = 1, .value = v };
            rpt_page_bars(p, &ch, name.p);
            sp_buf_free(&title);
            sp_buf_free(&name);
        }
    }
    fprintf(f, "</section>\n");
    st_info_free(&in);
    return rc;
}

