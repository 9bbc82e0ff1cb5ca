/* stages/report_html.c — the HTML report (see stages/report_html.h). */
#include "stages/report_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "probes/stats.h"
#include "stages/layers.h"
#include "stages/report_agg.h"
#include "stages/report_svg.h"
#include "store/st_info.h"

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:2em auto;max-width:1100px;color:#222;"
    "padding:0 1em;line-height:1.4}h1{margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}"
    ".meta{color:#555}table{border-collapse:collapse;margin:1em 0;font-size:90%}th,td{border:1px solid #ddd;padding:.3em .6em;"
    "text-align:right;vertical-align:top}th{background:#f3f3f3}td.l,th.l{text-align:left}tr.base td{color:#555;"
    "background:#fafafa}small{color:#666}.warn{background:#fff4e0;border:1px solid #e6a23c;padding:.6em 1em;margin:1em 0}"
    ".flag{color:#b35c00;font-weight:bold}svg.chart{width:100%;max-width:720px;height:auto;display:block;margin:1em 0}"
    "svg .grid{stroke:#e5e5e5}svg .axis{stroke:#333}svg text{font-size:11px;fill:#222}svg .ct{font-size:13px;"
    "font-weight:bold;text-anchor:middle}svg .yt{text-anchor:end}svg .xt{text-anchor:middle}svg .at{text-anchor:middle;"
    "font-size:12px}svg .err{stroke:#222;stroke-width:1.2;fill:none}svg .mark{stroke:#c00;stroke-width:2;"
    "stroke-dasharray:4 2}svg .lg{font-size:11px}pre{background:#f7f7f7;padding:.6em;overflow:auto;font-size:80%}"
    "details{margin:.3em 0}nav a{margin-right:1em}";

#define at stg_jpath
#define num stg_jpath_num
#define str stg_jpath_str
static void cell_num(FILE *f, double v, const char *fmt)
{
    fputs("<td>", f);
    if (isnan(v)) fputs("–", f); else fprintf(f, fmt, v);
    fputs("</td>", f);
}

/* distinct string values of key over arr, first-appearance order (a new array) */
static json_t *distinct(json_t *arr, const char *key)
{
    json_t *out = json_array(), *seen = json_object(), *x;
    size_t i;
    json_array_foreach(arr, i, x) {
        const char *v = str(x, key);
        if (json_object_get(seen, v)) continue;
        json_object_set_new(seen, v, json_true());
        json_array_append_new(out, json_string(v));
    }
    json_decref(seen);
    return out;
}

static json_t *find_agg(json_t *aggs, const char *enc, const char *task, const char *clf)
{
    size_t i;
    json_t *a;
    json_array_foreach(aggs, i, a)
        if (!strcmp(str(a, "encoder"), enc) && !strcmp(str(a, "task"), task) && !strcmp(str(a, "classifier"), clf)) return a;
    return NULL;
}

/* ---- probing: the encoder x task table and its chart, per classifier ---- */

static void probing_section(FILE *f, json_t *aggs)
{
    fprintf(f, "<section id=\"probing\"><h2>Probing tasks</h2>\n");
    if (!json_array_size(aggs)) { fprintf(f, "<p>No probe results.</p></section>\n"); return; }
    fprintf(f, "<p>Test accuracy (%%), mean ± sd over seeds; below it the 95%% percentile bootstrap interval over test "
               "items (B = %d, seed %d), n test items and the number of seeds. Baseline rows: the majority class; the "
               "same probe on sentence length alone; the probe trained on shuffled labels (its selectivity is the "
               "encoder's accuracy minus this). <span class=\"flag\">!</span> fewer than 97 test items (too few to tell "
               "a 10-point difference from chance); <span class=\"flag\">*</span> an interval wider than 10 points.</p>\n",
            PRB_BOOT_B, PRB_BOOT_SEED);
    json_t *clfs = distinct(aggs, "classifier"), *encs = distinct(aggs, "encoder"), *tasks = distinct(aggs, "task");
    size_t ci, ei, ti;
    json_t *cj, *ej, *tj;
    size_t nt = json_array_size(tasks), ne = json_array_size(encs);
    json_array_foreach(clfs, ci, cj) {
        const char *clf = json_string_value(cj);
        fprintf(f, "<h3>Classifier: ");
        stg_html_text(f, clf);
        fprintf(f, "</h3>\n<table class=\"grid\"><tr><th class=\"l\">encoder</th>");
        json_array_foreach(tasks, ti, tj) { fputs("<th>", f); stg_html_text(f, json_string_value(tj)); fputs("</th>", f); }
        fputs("</tr>\n", f);
        json_array_foreach(encs, ei, ej) {
            fputs("<tr><td class=\"l\">", f);
            stg_html_text(f, json_string_value(ej));
            fputs("</td>", f);
            json_array_foreach(tasks, ti, tj) {
                json_t *a = find_agg(aggs, json_string_value(ej), json_string_value(tj), clf);
                if (!a) { fputs("<td>–</td>", f); continue; }
                double m = num(a, "test_acc.mean"), sd = num(a, "test_acc.sd");
                json_t *iv = at(a, "test_acc.ci95");
                fprintf(f, "<td><b>%.2f</b>", m);
                if (!isnan(sd)) fprintf(f, " ± %.2f", sd);
                if (json_is_object(iv))
                    fprintf(f, "<br><small>[%.2f, %.2f]</small>%s", num(iv, "lo"), num(iv, "hi"),
                            json_is_true(json_object_get(iv, "wide_ci")) ? "<span class=\"flag\">*</span>" : "");
                fprintf(f, "<br><small>n %.0f%s, %lld seed%s</small></td>", num(a, "n_test"),
                        json_is_true(json_object_get(a, "small_test")) ? "<span class=\"flag\">!</span>" : "",
                        (long long)num(a, "n_seeds"), num(a, "n_seeds") == 1 ? "" : "s");
            }
            fputs("</tr>\n", f);
        }
        static const char *const bl_name[3] = { "majority class", "sentence length only", "selectivity vs shuffled labels (mean over encoders)" };
        static const char *const bl_path[3] = { "majority_acc.mean", "length_acc.mean", "control_selectivity.mean" };
        for (int b = 0; b < 3; b++) {
            fprintf(f, "<tr class=\"base\"><td class=\"l\">%s</td>", bl_name[b]);
            json_array_foreach(tasks, ti, tj) {
                /* the baselines of a task do not depend on the encoder except selectivity: its mean over encoders */
                double s = 0;
                int k = 0;
                json_array_foreach(encs, ei, ej) {
                    json_t *a = find_agg(aggs, json_string_value(ej), json_string_value(tj), clf);
                    double v = a ? num(a, bl_path[b]) : NAN;
                    if (!isnan(v)) { s += v; k++; }
                    if (b < 2 && k) break;
                }
                cell_num(f, k ? s / k : NAN, "%.2f");
            }
            fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
        /* chart: groups = tasks, series = encoders, error bars = intervals, mark = majority */
        double *v = malloc(sizeof *v * (ne * nt + 1)), *lo = malloc(sizeof *lo * (ne * nt + 1)),
               *hi = malloc(sizeof *hi * (ne * nt + 1)), *mark = malloc(sizeof *mark * (nt + 1));
        const char **gl = malloc(sizeof *gl * (nt + 1)), **sl = malloc(sizeof *sl * (ne + 1));
        json_array_foreach(tasks, ti, tj) { gl[ti] = json_string_value(tj); mark[ti] = NAN; }
        json_array_foreach(encs, ei, ej) {
            sl[ei] = json_string_value(ej);
            json_array_foreach(tasks, ti, tj) {
                json_t *a = find_agg(aggs, sl[ei], gl[ti], clf);
                v[ei * nt + ti] = a ? num(a, "test_acc.mean") : NAN;
                lo[ei * nt + ti] = a ? num(a, "test_acc.ci95.lo") : NAN;
                hi[ei * nt + ti] = a ? num(a, "test_acc.ci95.hi") : NAN;
                if (a && isnan(mark[ti])) mark[ti] = num(a, "majority_acc.mean");
            }
        }
        char title[160];
        snprintf(title, sizeof title, "Test accuracy by task (%s), 95%% intervals", clf);
        struct stg_chart ch = { title, "task", "accuracy (%)", (int)nt, gl, (int)ne, sl, v, lo, hi, mark, "majority class",
                                0, 100 };
        stg_svg_bars(f, &ch);
        free(v); free(lo); free(hi); free(mark); free(gl); free(sl);
    }
    fprintf(f, "</section>\n");
    json_decref(clfs); json_decref(encs); json_decref(tasks);
}

/* ---- comparisons ---- */

static void compare_section(FILE *f, json_t *cmp)
{
    if (!cmp || !json_array_size(cmp)) return;
    json_t *c0 = json_array_get(cmp, 0), *c;
    size_t i;
    fprintf(f, "<section id=\"compare\"><h2>");
    stg_html_text(f, str(c0, "a"));
    fputs(" vs ", f);
    stg_html_text(f, str(c0, "b"));
    fprintf(f, "</h2><p>Difference of test accuracy (points), its 95%% paired bootstrap interval over the same test items "
               "and the two-sided p-value (B = %d); mdd80 is the smallest difference this test set detects with 80%% "
               "power.</p>\n<table><tr><th class=\"l\">task</th><th class=\"l\">classifier</th><th>n</th><th>difference</th>"
               "<th>95%% interval</th><th>p</th><th>mdd80</th></tr>\n", PRB_BOOT_B);
    json_array_foreach(cmp, i, c) {
        fputs("<tr><td class=\"l\">", f);
        stg_html_text(f, str(c, "task"));
        fputs("</td><td class=\"l\">", f);
        stg_html_text(f, str(c, "classifier"));
        fputs("</td>", f);
        if (json_object_get(c, "error")) {
            fputs("<td colspan=\"5\" class=\"l\">", f);
            stg_html_text(f, str(c, "error"));
            fputs("</td></tr>\n", f);
            continue;
        }
        cell_num(f, num(c, "n_test"), "%.0f");
        cell_num(f, num(c, "delta"), "%+.2f");
        fprintf(f, "<td>[%.2f, %.2f]</td>", num(c, "lo"), num(c, "hi"));
        if (!isnan(num(c, "p_floor"))) fprintf(f, "<td>&lt; %.3g</td>", num(c, "p_floor"));
        else cell_num(f, num(c, "p"), "%.3f");
        cell_num(f, num(c, "mdd80"), "%.2f");
        fputs("</tr>\n", f);
    }
    fputs("</table></section>\n", f);
}

/* ---- accuracy by layer: encoders named BASE-L<k> ---- */

static void layers_section(FILE *f, json_t *aggs)
{
    json_t *series = json_object(), *order = json_array(), *a;   /* "base\ttask\tclf" -> {layer: agg} */
    size_t i;
    int max_layer = -1;
    struct sp_buf base = { 0 }, kb = { 0 };   /* whole names: series of long names cut alike would merge */
    json_array_foreach(aggs, i, a) {
        const char *enc = str(a, "encoder");
        base.len = 0;
        sp_buf_put(&base, enc, strlen(enc) + 1);  /* the base is never longer than the label */
        int k = stg_layer_of_run(enc, base.p, base.len);
        if (k < 0) continue;
        if (k > max_layer) max_layer = k;
        kb.len = 0;
        sp_buf_printf(&kb, "%s\t%s\t%s", base.p, str(a, "task"), str(a, "classifier"));
        json_t *s = json_object_get(series, kb.p);
        if (!s) { s = json_object(); json_object_set_new(series, kb.p, s); json_array_append_new(order, json_string(kb.p)); }
        char ks[16];
        snprintf(ks, sizeof ks, "%d", k);
        json_object_set(s, ks, a);
    }
    sp_buf_free(&base);
    sp_buf_free(&kb);
    fprintf(f, "<section id=\"layers\"><h2>Accuracy by layer</h2>\n");
    if (max_layer < 0) {
        fprintf(f, "<p>No layer-wise results: runs of an encoder's layers are named <code>NAME-L&lt;k&gt;</code> "
                   "(layer 0 = the embeddings).</p></section>\n");
        json_decref(series); json_decref(order);
        return;
    }
    int nl = max_layer + 1;
    size_t ns = json_array_size(order);
    double *v = malloc(sizeof *v * ns * (size_t)nl), *lo = malloc(sizeof *lo * ns * (size_t)nl), *hi = malloc(sizeof *hi * ns * (size_t)nl);
    const char **sl = malloc(sizeof *sl * ns), **gl = malloc(sizeof *gl * (size_t)nl);
    char (*lab)[16] = malloc(sizeof *lab * (size_t)nl);
    char **sname = malloc(sizeof *sname * ns);   /* the series' names, whole */
    for (int k = 0; k < nl; k++) { snprintf(lab[k], sizeof lab[k], "%d", k); gl[k] = lab[k]; }
    json_t *key;
    json_array_foreach(order, i, key) {
        sname[i] = sp_xstrdup(json_string_value(key));
        for (char *p = sname[i]; *p; p++) if (*p == '\t') *p = ' ';
        sl[i] = sname[i];
        json_t *s = json_object_get(series, json_string_value(key));
        for (int k = 0; k < nl; k++) {
            json_t *x = json_object_get(s, lab[k]);
            v[i * (size_t)nl + (size_t)k] = x ? num(x, "test_acc.mean") : NAN;
            lo[i * (size_t)nl + (size_t)k] = x ? num(x, "test_acc.ci95.lo") : NAN;
            hi[i * (size_t)nl + (size_t)k] = x ? num(x, "test_acc.ci95.hi") : NAN;
        }
    }
    struct stg_chart ch = { "Test accuracy by layer (encoder, task, classifier), 95% intervals", "layer (0 = embeddings)",
                            "accuracy (%)", nl, gl, (int)ns, sl, v, lo, hi, NULL, NULL, 0, 100 };
    stg_svg_lines(f, &ch);
    fprintf(f, "</section>\n");
    for (size_t k = 0; k < ns; k++) free(sname[k]);
    free(v); free(lo); free(hi); free(sl); free(gl); free(lab); free(sname);
    json_decref(series); json_decref(order);
}

/* ---- trees and structural probes ---- */

static int is_structprobe(json_t *row) { return !strncmp(str(row, "method"), "structprobe:", 12); }
static int is_dependency(json_t *row) { return !strncmp(str(row, "method"), "dependency:", 11); }

/* One table row per tree evaluation that `keep` selects: method, corpus, then the result's figures. */
struct result_col { const char *path, *fmt; };
static void result_rows(FILE *f, json_t *trees, int (*keep)(json_t *), const struct result_col *col, size_t n_col)
{
    size_t i;
    json_t *row;
    json_array_foreach(trees, i, row) {
        if (!keep(row)) continue;
        json_t *r = json_object_get(row, "result");
        fputs("<tr><td class=\"l\">", f);
        stg_html_text(f, str(row, "method"));
        fputs("</td><td class=\"l\">", f);
        stg_html_text(f, str(row, "corpus"));
        fputs("</td>", f);
        for (size_t c = 0; c < n_col; c++) cell_num(f, num(r, col[c].path), col[c].fmt);
        fputs("</tr>\n", f);
    }
}

typedef int (*layer_pick_fn)(json_t *row, const char *metric, char *run, size_t nr, char *variant, size_t nv, json_t *base);
static void by_layer_chart(FILE *f, json_t *trees, layer_pick_fn pick, const char *metric, const char *y_title,
                           const char *title, double y_max);
static int pick_dependency(json_t *row, const char *metric, char *run, size_t nr, char *variant, size_t nv, json_t *base);

static void dependency_section(FILE *f, json_t *trees)
{
    size_t i, n = 0;
    json_t *row;
    json_array_foreach(trees, i, row) n += is_dependency(row);
    if (!n) return;
    fprintf(f, "<section id=\"dependency\"><h2>Dependency trees from attention</h2>\n<p>Maximum spanning arborescence "
               "(Chu–Liu/Edmonds) over a layer's word-level attention, scored against the gold dependency trees without "
               "punctuation (SPEC-models M6): UAS; UUAS of the same arcs; UUAS of the undirected maximum spanning tree "
               "against the gold distances' tree. Baselines: right and left chains, adjacent words, random trees (mean of "
               "5 seeds).</p>\n<table><tr><th class=\"l\">method</th><th class=\"l\">corpus</th><th>sentences</th><th>UAS</th>"
               "<th>UUAS (arcs)</th><th>UUAS (MST)</th></tr>\n");
    static const struct result_col cols[] = { { "n_sentences", "%.0f" }, { "uas", "%.2f" }, { "uuas_dir", "%.2f" },
                                               { "uuas_mst", "%.2f" } };
    result_rows(f, trees, is_dependency, cols, sizeof cols / sizeof *cols);
    fputs("</table>\n", f);
    by_layer_chart(f, trees, pick_dependency, "uas", "UAS (%)", "Dependency trees from attention: UAS by layer", 100);
    fputs("</section>\n", f);
}

static void trees_section(FILE *f, json_t *trees)
{
    size_t i, n = 0;
    json_t *row;
    json_array_foreach(trees, i, row) n += !is_structprobe(row) && !is_dependency(row);
    fprintf(f, "<section id=\"trees\"><h2>Trees from attention</h2>\n");
    if (!n) { fprintf(f, "<p>No tree evaluations.</p></section>\n"); return; }
    fprintf(f, "<p>Constituency trees extracted from attention, scored like EVALB against the gold trees (F1, %%): "
               "Protocol A = corpus-level labelled-as-unlabelled EVALB; Protocol B = unlabelled sentence-level and "
               "corpus-level F1 over all sentences, those of at most 40 and of at most 10 words. Methods not named "
               "<code>attention:…</code> are the baselines (right/left-branching and random trees).</p>\n"
               "<table><tr><th class=\"l\">method</th><th class=\"l\">corpus</th><th>sentences</th><th>A F1 all</th>"
               "<th>A F1 ≤40</th><th>B sent. F1 all</th><th>B sent. F1 ≤40</th><th>B sent. F1 ≤10</th>"
               "<th>B corpus F1 all</th></tr>\n");
    double *v = malloc(sizeof *v * 3 * n);
    const char **gl = malloc(sizeof *gl * n);
    size_t g = 0;
    json_array_foreach(trees, i, row) {
        if (is_structprobe(row) || is_dependency(row)) continue;
        json_t *r = json_object_get(row, "result");
        fputs("<tr><td class=\"l\">", f);
        stg_html_text(f, str(row, "method"));
        fputs("</td><td class=\"l\">", f);
        stg_html_text(f, str(row, "corpus"));
        fputs("</td>", f);
        cell_num(f, num(r, "n_sentences"), "%.0f");
        cell_num(f, num(r, "protocol_a.all.fmeasure"), "%.2f");
        cell_num(f, num(r, "protocol_a.le40.fmeasure"), "%.2f");
        cell_num(f, num(r, "protocol_b.sentence_f1.all"), "%.2f");
        cell_num(f, num(r, "protocol_b.sentence_f1.le40"), "%.2f");
        cell_num(f, num(r, "protocol_b.sentence_f1.le10"), "%.2f");
        cell_num(f, num(r, "protocol_b.corpus_f1.all"), "%.2f");
        fputs("</tr>\n", f);
        gl[g] = str(row, "method");
        v[0 * n + g] = num(r, "protocol_b.sentence_f1.all");
        v[1 * n + g] = num(r, "protocol_b.sentence_f1.le40");
        v[2 * n + g] = num(r, "protocol_b.sentence_f1.le10");
        g++;
    }
    fputs("</table>\n", f);
    static const char *const sl[3] = { "all sentences", "≤ 40 words", "≤ 10 words" };
    struct stg_chart ch = { "Sentence-level F1 by method and sentence length", "method", "F1 (%)", (int)n, gl, 3, sl, v,
                            NULL, NULL, NULL, NULL, 0, 100 };
    stg_svg_bars(f, &ch);
    /* F1 by length bin: one line per method */
    json_t *bins0 = NULL;
    json_array_foreach(trees, i, row)
        if (!is_structprobe(row) && !is_dependency(row) && json_is_array(at(row, "result.protocol_b.sentence_f1_by_length"))) {
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
            if (is_structprobe(row) || is_dependency(row)) continue;
            json_t *bs = at(row, "result.protocol_b.sentence_f1_by_length");
            for (b = 0; b < nb; b++) bv[g * nb + b] = json_is_array(bs) ? num(json_array_get(bs, b), "f1") : NAN;
            g++;
        }
        struct stg_chart lc = { "Sentence-level F1 by sentence length (words without punctuation)", "sentence length",
                                "F1 (%)", (int)nb, bgl, (int)n, gl, bv, NULL, NULL, NULL, NULL, 0, 100 };
        stg_svg_lines(f, &lc);
        free(bv); free(bl); free(bgl);
    }
    free(v); free(gl);
    fprintf(f, "</section>\n");
}

/* ---- figures by layer of tree evaluations (runs NAME-L<k>, over a corpus NAME-L<k>-CORPUS) ----
 * One line per (NAME, corpus[, variant]) across layers, and flat lines for baselines. What a row
 * gives is the picker's: 1 with the run it scored in `run` (0: not a layer point), a variant for the
 * series name, and baselines (name -> value) into `base`. */
static void by_layer_chart(FILE *f, json_t *trees, layer_pick_fn pick, const char *metric, const char *y_title,
                           const char *title, double y_max)
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
        stg_report_run_label(run.p, corpus, label.p, cap);
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
            sl[si++] = name;
        }
        struct stg_chart ch = { title, "layer (0 = embeddings)", y_title, nl, gl, (int)ns, sl, val, NULL, NULL, NULL, NULL,
                                0, y_max };
        stg_svg_lines(f, &ch);
        free(val); free(sl); free(gl); free(lab);
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

static void structprobe_section(FILE *f, json_t *trees)
{
    size_t i, n = 0;
    json_t *row;
    json_array_foreach(trees, i, row) n += is_structprobe(row);
    if (!n) return;
    fprintf(f, "<section id=\"structprobe\"><h2>Structural probes</h2>\n<table><tr><th class=\"l\">method</th>"
               "<th class=\"l\">corpus</th><th>sentences</th><th>UUAS</th><th>DSpr</th><th>root acc.</th><th>NSpr</th>"
               "<th>linear UUAS</th><th>linear DSpr</th></tr>\n");
    static const struct result_col cols[] = { { "n_sentences", "%.0f" }, { "uuas", "%.2f" }, { "dspr", "%.4f" },
                                               { "root_acc", "%.2f" }, { "nspr", "%.4f" }, { "linear_baseline.uuas", "%.2f" },
                                               { "linear_baseline.dspr", "%.4f" } };
    result_rows(f, trees, is_structprobe, cols, sizeof cols / sizeof *cols);
    fputs("</table>\n<p>Linear: the baseline (distance |i − j|, depth i) on the same test sentences as the trained "
          "probe.</p>\n", f);
    by_layer_chart(f, trees, pick_structprobe, "uuas", "UUAS (%)", "Distance probe: UUAS by layer", 100);
    by_layer_chart(f, trees, pick_structprobe, "dspr", "DSpr (Spearman)", "Distance probe: DSpr (5-50) by layer", 1);
    fputs("</section>\n", f);
}

/* ---- corpora ---- */

#define HIST_BINS 61
static int corpora_section(FILE *f, struct st_db *db, char *err, size_t errlen)
{
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
        stg_html_text(f, k->name);
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
                snprintf(lab[b], sizeof lab[b], first + b == HIST_BINS - 1 ? "%d+" : "%d", first + b);
                gl[b] = lab[b];
            }
            char title[256];
            snprintf(title, sizeof title, "%s: %s", in.corpora[c].name, what[h]);
            struct stg_chart ch = { title, h ? "depth" : "words", "sentences", nb, gl, 1, NULL, v, NULL, NULL, NULL, NULL, 0, 0 };
            stg_svg_bars(f, &ch);
        }
    }
    fprintf(f, "</section>\n");
    st_info_free(&in);
    return rc;
}

/* ---- manifests ---- */

static void manifest_one(FILE *f, json_t *row, const char *kind)
{
    json_t *m = at(row, "result.manifest");
    fprintf(f, "<details><summary>%s %lld: ", kind, (long long)num(row, "id"));
    if (!strcmp(kind, "probe")) {
        stg_html_text(f, str(row, "task"));
        fputs(" / ", f);
        stg_html_text(f, str(row, "classifier"));
        fprintf(f, " / seed %lld / ", (long long)num(row, "seed"));
        stg_html_text(f, str(row, "run"));
    } else {
        stg_html_text(f, str(row, "method"));
        fputs(" / ", f);
        stg_html_text(f, str(row, "corpus"));
    }
    fputs("</summary><pre>", f);
    char *s = m ? json_dumps(m, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) : NULL;
    stg_html_text(f, s ? s : "(no manifest)");
    free(s);
    fputs("</pre></details>\n", f);
}

int stg_report_html(FILE *f, struct st_db *db, const struct stg_report_data *d, char *err, size_t errlen)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>synprobe report: ");
    stg_html_text(f, d->db);
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>synprobe report</h1>\n<p class=\"meta\">store <code>", css);
    stg_html_text(f, d->db);
    fprintf(f, "</code> · %zu probe results · %zu tree evaluations · synprobe %s</p>\n", json_array_size(d->probes),
            json_array_size(d->trees), SP_VERSION);
    size_t i, n_small = 0;
    json_t *a;
    json_array_foreach(d->aggs, i, a) n_small += json_is_true(json_object_get(a, "small_test"));
    if (n_small)
        fprintf(f, "<div class=\"warn\"><b>%zu of %zu results have fewer than 97 test items</b>: too few to tell a 10-point "
                   "difference from chance, so they cannot be read as findings. Probe a real treebank for numbers that "
                   "mean something (e.g. the PTB-sample job in the README).</div>\n", n_small, json_array_size(d->aggs));
    fprintf(f, "<nav><a href=\"#probing\">Probing</a>%s<a href=\"#layers\">Layers</a><a href=\"#trees\">Trees</a>"
               "<a href=\"#corpora\">Corpora</a><a href=\"#manifest\">Manifest</a></nav>\n",
            d->cmp && json_array_size(d->cmp) ? "<a href=\"#compare\">Comparison</a>" : "");
    probing_section(f, d->aggs);
    compare_section(f, d->cmp);
    layers_section(f, d->aggs);
    trees_section(f, d->trees);
    dependency_section(f, d->trees);
    structprobe_section(f, d->trees);
    int rc = corpora_section(f, db, err, errlen);
    fprintf(f, "<section id=\"manifest\"><h2>Manifest</h2><p>Every number above comes from one of these stored results: the "
               "command or job that made it, versions, data hashes, seeds and every option.</p>\n");
    json_t *row;
    json_array_foreach(d->probes, i, row) manifest_one(f, row, "probe");
    json_array_foreach(d->trees, i, row) manifest_one(f, row, "tree");
    fprintf(f, "</section>\n</body></html>\n");
    return rc;
}
