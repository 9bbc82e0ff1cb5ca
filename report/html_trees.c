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
#include "store/st_info.h"

#define at rpt_jpath
#define num rpt_jpath_num
#define str rpt_jpath_str
#define cell_num rpt_page_cell

/* ---- trees and structural probes ---- */

static int is_structprobe(json_t *row) { return !strncmp(str(row, "method"), "structprobe:", 12); }
static int is_dependency(json_t *row) { return !strncmp(str(row, "method"), "dependency:", 11); }

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
static void method_cell(FILE *f, json_t *row)
{
    struct sp_buf b = { 0 };
    method_label(str(row, "method"), &b);
    fputs("<tr><td class=\"l\" title=\"", f);
    rpt_html_text(f, str(row, "method"));
    fputs("\">", f);
    rpt_html_text(f, b.p);
    fputs("</td><td class=\"l\">", f);
    rpt_html_text(f, str(row, "corpus"));
    fputs("</td>", f);
    sp_buf_free(&b);
}

/* One table row per tree evaluation that `keep` selects: method, corpus, then the result's figures. */
struct result_col { const char *path, *fmt; };
static void result_rows(FILE *f, json_t *trees, int (*keep)(json_t *), const struct result_col *col, size_t n_col)
{
    size_t i;
    json_t *row;
    json_array_foreach(trees, i, row) {
        if (!keep(row)) continue;
        json_t *r = json_object_get(row, "result");
        method_cell(f, row);
        for (size_t c = 0; c < n_col; c++) cell_num(f, num(r, col[c].path), col[c].fmt);
        fputs("</tr>\n", f);
    }
}

typedef int (*layer_pick_fn)(json_t *row, const char *metric, char *run, size_t nr, char *variant, size_t nv, json_t *base);
static void by_layer_chart(struct rpt_page *p, json_t *trees, layer_pick_fn pick, const char *metric, const char *y_title,
                           const char *title, double y_max, const char *name);
static int pick_dependency(json_t *row, const char *metric, char *run, size_t nr, char *variant, size_t nv, json_t *base);

void rpt_dependency(struct rpt_page *p, json_t *trees)
{
    FILE *f = p->f;
    size_t i, n = 0;
    json_t *row;
    json_array_foreach(trees, i, row) n += is_dependency(row);
    if (!n) return;
    fprintf(f, "<section id=\"dependency\"><h2>Dependency trees from attention</h2>\n<p>Maximum spanning arborescence "
               "(Chu–Liu/Edmonds) over a layer's word-level attention, scored against the gold dependency trees without "
               "punctuation (docs/spec/models.md M6): UAS; UUAS of the same arcs; UUAS of the undirected maximum spanning tree "
               "against the gold distances' tree. Baselines: right and left chains, adjacent words, random trees (mean of "
               "5 seeds); – where a measure is not defined for a baseline.</p>\n<table><tr><th class=\"l\">method</th>"
               "<th class=\"l\">corpus</th><th>sentences</th><th>UAS</th><th>UUAS (arcs)</th><th>UUAS (MST)</th></tr>\n");
    static const struct result_col cols[] = { { "n_sentences", "%.0f" }, { "uas", "%.1f" }, { "uuas_dir", "%.1f" },
                                               { "uuas_mst", "%.1f" } };
    result_rows(f, trees, is_dependency, cols, sizeof cols / sizeof *cols);
    fputs("</table>\n", f);
    by_layer_chart(p, trees, pick_dependency, "uas", "UAS (%)", "Dependency trees from attention: UAS by layer", 100,
                   "dependency-uas");
    fputs("</section>\n", f);
}

static int is_constituency(json_t *row) { return !is_structprobe(row) && !is_dependency(row); }

void rpt_constituency(struct rpt_page *p, json_t *trees)
{
    FILE *f = p->f;
    size_t i, n = 0;
    json_t *row;
    json_array_foreach(trees, i, row) n += is_constituency(row);
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
    static const struct result_col cols[] = { { "n_sentences", "%.0f" }, { "protocol_a.all.fmeasure", "%.1f" },
                                               { "protocol_a.le40.fmeasure", "%.1f" }, { "protocol_b.sentence_f1.all", "%.1f" },
                                               { "protocol_b.sentence_f1.le40", "%.1f" }, { "protocol_b.sentence_f1.le10", "%.1f" },
                                               { "protocol_b.corpus_f1.all", "%.1f" } };
    result_rows(f, trees, is_constituency, cols, sizeof cols / sizeof *cols);
    json_array_foreach(trees, i, row) {
        if (!is_constituency(row)) continue;
        json_t *r = json_object_get(row, "result");
        method_label(str(row, "method"), &lab[g]);
        gl[g] = lab[g].p;
        v[0 * n + g] = num(r, "protocol_b.sentence_f1.all");
        v[1 * n + g] = num(r, "protocol_b.sentence_f1.le40");
        v[2 * n + g] = num(r, "protocol_b.sentence_f1.le10");
        g++;
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
    json_t *bins0 = NULL;
    json_array_foreach(trees, i, row)
        if (is_constituency(row) && json_is_array(at(row, "result.protocol_b.sentence_f1_by_length"))) {
            bins0 = at(row, "result.protocol_b.sentence_f1_by_length");
            break;
        }
    if (bins0) {
        size_t nb = json_array_size(bins0), b;
        double *bv = malloc(sizeof *bv * n * nb + 1);
        char (*bl)[16] = malloc(sizeof *bl * nb + 1);
        const char **bgl = malloc(sizeof *bgl * nb + 1);
        json_t *bin;
        json_array_foreach(bins0, b, bin) {
            if (json_is_integer(json_object_get(bin, "hi"))) snprintf(bl[b], sizeof bl[b], "%.0f-%.0f", num(bin, "lo"), num(bin, "hi"));
            else snprintf(bl[b], sizeof bl[b], "%.0f+", num(bin, "lo"));
            bgl[b] = bl[b];
        }
        g = 0;
        json_array_foreach(trees, i, row) {
            if (!is_constituency(row)) continue;
            json_t *bs = at(row, "result.protocol_b.sentence_f1_by_length");
            for (b = 0; b < nb; b++) bv[g * nb + b] = json_is_array(bs) ? num(json_array_get(bs, b), "f1") : NAN;
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
static void by_layer_chart(struct rpt_page *p, json_t *trees, layer_pick_fn pick, const char *metric, const char *y_title,
                           const char *title, double y_max, const char *fig_name)
{
    json_t *series = json_object(), *order = json_array(), *base_lines = json_object(), *row;
    size_t i;
    int max_layer = -1;
    /* whole names: series of long run names cut alike would merge. A picked run is part of the
     * row's method string, so buffers of its length hold it, its label and its base. */
    struct sp_buf run = { 0 }, label = { 0 }, base = { 0 }, key = { 0 };
    json_array_foreach(trees, i, row) {
        char variant[128] = "";
        const char *corpus = str(row, "corpus"), *method = str(row, "method");
        size_t cap = strlen(method) + 1;
        struct sp_buf *grow[3] = { &run, &label, &base };
        for (int g = 0; g < 3; g++) { grow[g]->len = 0; sp_buf_put(grow[g], method, cap); }
        if (!pick(row, metric, run.p, cap, variant, sizeof variant, base_lines)) continue;
        rpt_run_label(run.p, corpus, label.p, cap);
        int k = stg_layer_of_run(label.p, base.p, cap);
        if (k < 0) continue;
        if (k > max_layer) max_layer = k;
        key.len = 0;
        sp_buf_printf(&key, "%s (%s%s%s)", base.p, corpus, variant[0] ? ", " : "", variant);
        json_t *sr = json_object_get(series, key.p);
        if (!sr) { sr = json_object(); json_object_set_new(series, key.p, sr); json_array_append_new(order, json_string(key.p)); }
        char ks[16];
        snprintf(ks, sizeof ks, "%d", k);
        double v = num(json_object_get(row, "result"), metric);
        if (!isnan(v)) json_object_set_new(sr, ks, json_real(v));
    }
    sp_buf_free(&run); sp_buf_free(&label); sp_buf_free(&base); sp_buf_free(&key);
    if (max_layer >= 0) {
        int nl = max_layer + 1;
        size_t ns = json_array_size(order) + json_object_size(base_lines);
        double *val = malloc(sizeof *val * ns * (size_t)nl);
        const char **sl = malloc(sizeof *sl * ns), **gl = malloc(sizeof *gl * (size_t)nl);
        int *dashed = calloc(ns, sizeof *dashed);
        char (*lab)[16] = malloc(sizeof *lab * (size_t)nl);
        for (int k = 0; k < nl; k++) { snprintf(lab[k], sizeof lab[k], "%d", k); gl[k] = lab[k]; }
        size_t si = 0;
        json_t *key, *lv;
        json_array_foreach(order, i, key) {
            json_t *sr = json_object_get(series, json_string_value(key));
            for (int k = 0; k < nl; k++) {
                json_t *x = json_object_get(sr, lab[k]);
                val[si * (size_t)nl + (size_t)k] = x ? json_real_value(x) : NAN;
            }
            sl[si++] = json_string_value(key);
        }
        const char *name;
        json_object_foreach(base_lines, name, lv) {
            for (int k = 0; k < nl; k++) val[si * (size_t)nl + (size_t)k] = json_real_value(lv);
            dashed[si] = 1;
            sl[si++] = name;
        }
        struct rpt_chart ch = { .title = title, .x_title = "layer (0 = embeddings)", .y_title = y_title,
                                .note = "one evaluation per layer (no error bars); dashed: baselines, flat across layers",
                                .n_groups = nl, .group_labels = gl, .n_series = (int)ns, .series_labels = sl, .value = val,
                                .y_min = 0, .y_max = y_max, .dashed = dashed };
        rpt_page_lines(p, &ch, fig_name);
        free(val); free(sl); free(gl); free(lab); free(dashed);
    }
    json_decref(series); json_decref(order); json_decref(base_lines);
}

/* trained structural probes (the figure of Hewitt & Manning 2019), against the linear baseline of
 * the same test sentences, which every trained probe of a corpus shares (one partition); a
 * `structprobe --baseline linear` row scores the whole corpus, so it is not drawn here */
static int pick_structprobe(json_t *row, const char *metric, char *run, size_t nr, char *variant, size_t nv, json_t *base)
{
    const char *m = str(row, "method");
    if (strncmp(m, "structprobe:trained:run=", 24)) return 0;
    char path[64];
    struct sp_buf name = { 0 };       /* whole, as above */
    snprintf(path, sizeof path, "linear_baseline.%s", metric);
    sp_buf_printf(&name, "linear baseline (%s, same test sentences)", str(row, "corpus"));
    double lb = num(json_object_get(row, "result"), path);
    if (!isnan(lb) && !json_object_get(base, name.p)) json_object_set_new(base, name.p, json_real(lb));
    sp_buf_free(&name);
    snprintf(run, nr, "%s", m + 24);
    return 1;
}

/* dependency trees from a layer run's attention (method dependency:run:RUN:layerJ:DIRECTION), against
 * the chain, adjacent and random baselines of the same corpus (dependency:baseline:NAME) */
static int pick_dependency(json_t *row, const char *metric, char *run, size_t nr, char *variant, size_t nv, json_t *base)
{
    const char *m = str(row, "method");
    if (!strncmp(m, "dependency:baseline:", 20)) {
        struct sp_buf name = { 0 };   /* whole: two long corpus names cut alike would be one line */
        sp_buf_printf(&name, "%s baseline (%s)", m + 20, str(row, "corpus"));
        double v = num(json_object_get(row, "result"), metric);
        if (!isnan(v)) json_object_set_new(base, name.p, json_real(v));
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

void rpt_structprobes(struct rpt_page *p, json_t *trees)
{
    FILE *f = p->f;
    size_t i, n = 0;
    json_t *row;
    json_array_foreach(trees, i, row) n += is_structprobe(row);
    if (!n) return;
    fprintf(f, "<section id=\"structprobe\"><h2>Structural probes</h2>\n<table><tr><th class=\"l\">method</th>"
               "<th class=\"l\">corpus</th><th>sentences</th><th>UUAS</th><th>DSpr</th><th>root acc.</th><th>NSpr</th>"
               "<th>linear UUAS</th><th>linear DSpr</th></tr>\n");
    static const struct result_col cols[] = { { "n_sentences", "%.0f" }, { "uuas", "%.1f" }, { "dspr", "%.3f" },
                                               { "root_acc", "%.1f" }, { "nspr", "%.3f" }, { "linear_baseline.uuas", "%.1f" },
                                               { "linear_baseline.dspr", "%.3f" } };
    result_rows(f, trees, is_structprobe, cols, sizeof cols / sizeof *cols);
    fputs("</table>\n<p>Linear: the baseline (distance |i − j|, depth i) on the same test sentences as the trained "
          "probe.</p>\n", f);
    by_layer_chart(p, trees, pick_structprobe, "uuas", "UUAS (%)", "Distance probe: UUAS by layer", 100, "structprobe-uuas");
    by_layer_chart(p, trees, pick_structprobe, "dspr", "DSpr (Spearman)", "Distance probe: DSpr (5-50) by layer", 1,
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

