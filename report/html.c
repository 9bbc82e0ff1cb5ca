/* report/html.c — the HTML report (see report/html.h): the page, its header (the
 * experiment), the caveats said once, the probing table, comparisons, accuracy by layer and the
 * manifests. The first figure and the control tasks are report_findings.c's; the tree sections and
 * corpora report_html_trees.c's. */
#include "report/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "probes/stats.h"
#include "stages/layers.h"
#include "report/agg.h"
#include "report/rows.h"
#include "report/page.h"
#include "store/st_info.h"

/* The page is read at 1280 px and at 800 px: the content is as wide as the window up to 1240 px,
 * charts follow it (width 100%, their text scales with them), tables scroll sideways in their own
 * box rather than push the page wider. */
static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:.8em auto;max-width:1240px;color:#222;"
    "padding:0 1em;line-height:1.4}h1{margin:0 0 .2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}"
    ".meta{color:#555}.tw{overflow-x:auto}table{border-collapse:collapse;margin:.8em 0;font-size:90%}th,td{border:1px solid #ddd;"
    "padding:.25em .5em;text-align:right;vertical-align:top;white-space:nowrap}th{background:#f3f3f3}td.l,th.l{text-align:left}"
    "tr.base td{color:#555;background:#fafafa}small{color:#666}.warn{background:#fff4e0;border:1px solid #e6a23c;"
    "padding:.3em 1em;margin:.5em 0}.warn ul{margin:.2em 0;padding-left:1.2em}.flag{color:#b35c00;font-weight:bold}"
    "svg.chart{width:100%;height:auto;display:block;margin:.8em 0}dl.exp{display:grid;grid-template-columns:max-content 1fr;"
    "gap:.1em 1em;margin:.4em 0;font-size:92%}dl.exp dt{color:#555}dl.exp dd{margin:0}code{font-size:92%}"
    "pre{background:#f7f7f7;padding:.6em;overflow:auto;font-size:80%}details{margin:.3em 0}nav a{margin-right:1em}";

#define cell_num rpt_page_cell

/* strings once each, in first-appearance order */
struct set { char **v; size_t n; };

static void set_add(struct set *set, const char *s)
{
    if (!s || !*s) return;
    for (size_t i = 0; i < set->n; i++)
        if (!strcmp(set->v[i], s)) return;
    set->v = sp_xrealloc(set->v, sizeof *set->v * (set->n + 1));
    set->v[set->n++] = sp_xstrdup(s);
}

static void set_free(struct set *set)
{
    for (size_t i = 0; i < set->n; i++) free(set->v[i]);
    free(set->v);
}

static void list_set(FILE *f, const struct set *set, const char *sep)
{
    for (size_t i = 0; i < set->n; i++) {
        if (i) fputs(sep, f);
        rpt_html_text(f, set->v[i]);
    }
}

static int is_result(const struct rpt_row *r) { return rpt_is_probe(r) && (r->flags & RPT_F_SEED); }

static int is_sentence_agg(const struct rpt_row *a) { return rpt_is_agg(a) && a->kind == RPT_K_PROBE; }
static int sentence_agg(const struct rpt_row *a, const char *arg) { (void)arg; return is_sentence_agg(a); }
static const char *f_encoder(const struct rpt_row *r) { return r->encoder; }
static const char *f_task(const struct rpt_row *r) { return r->task; }
static const char *f_method(const struct rpt_row *r) { return r->method; }

/* ---- the header: what the experiment was ---- */

static void experiment(FILE *f, struct st_db *db, const struct rpt_data *d)
{
    struct set jobs = { 0 }, commands = { 0 }, parts = { 0 }, seeds = { 0 }, encs = { 0 };
    struct layers { char *base; int *k; size_t n; } *layers = sp_xmalloc(sizeof *layers * (d->rows->n + 1));
    size_t n_layers = 0, n_probe = 0, n_tree = 0;
    const struct rpt_table *t = d->rows;
    struct sp_buf b = { 0 }, base = { 0 };
    for (int l = 0; l < 2; l++)   /* the probe results, then the tree evaluations */
        for (size_t i = 0; i < t->n; i++) {
            const struct rpt_row *row = &t->v[i];
            if (l ? rpt_is_probe(row) : !is_result(row)) continue;
            if (l) n_tree++; else n_probe++;
            if (row->job_file) {
                b.len = 0;
                sp_buf_printf(&b, "%s (sha256 %.16s…)", row->job_file, row->job_sha256);
                set_add(&jobs, b.p);
            } else {
                b.len = 0;
                for (size_t k = 0; k < row->n_command; k++)
                    sp_buf_printf(&b, "%s%s", k ? " " : "", row->command[k] ? row->command[k] : "");
                if (b.len && row->n_command > 1 && row->command[1] && !strcmp(row->command[1], "run")) set_add(&commands, b.p);
            }
            if (*row->partition) {
                b.len = 0;
                sp_buf_printf(&b, "%s: %s", l ? "structural probes" : row->kind == RPT_K_PROBE ? "probing tasks" : "token probes",
                              row->partition);
                set_add(&parts, b.p);
            }
            if (!l) {
                char s[32];
                snprintf(s, sizeof s, "%lld", (long long)row->seed);
                set_add(&seeds, s);
            }
        }
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *a = &t->v[i];
        if (!rpt_is_agg(a)) continue;
        const char *enc = a->encoder;
        base.len = 0;
        sp_buf_put(&base, enc, strlen(enc) + 1);
        int k = stg_layer_of_run(enc, base.p, base.len);
        if (k < 0) { set_add(&encs, enc); continue; }
        size_t x = 0;
        while (x < n_layers && strcmp(layers[x].base, base.p)) x++;
        if (x == n_layers) layers[n_layers++] = (struct layers){ sp_xstrdup(base.p), sp_xmalloc(sizeof(int) * (t->n + 1)), 0 };
        int seen = 0;
        for (size_t j = 0; j < layers[x].n; j++) seen |= layers[x].k[j] == k;
        if (!seen) layers[x].k[layers[x].n++] = k;
    }
    fputs("<dl class=\"exp\">", f);
    struct st_info in;
    char err[SP_ERRLEN];
    if (st_info_summary(db, NULL, 0, &in, err, sizeof err) == SP_OK) {
        fputs("<dt>corpora</dt><dd>", f);
        for (int c = 0; c < in.n_corpora; c++) {
            fputs(c ? "; " : "", f);
            rpt_html_text(f, in.corpora[c].name);
            fprintf(f, " (%lld sentences)", (long long)in.corpora[c].v[ST_INFO_SENTENCES]);
        }
        fputs(in.n_corpora ? "</dd>" : "none</dd>", f);
        st_info_free(&in);
    }
    if (parts.n) { fputs("<dt>partitions</dt><dd>", f); list_set(f, &parts, "<br>"); fputs("</dd>", f); }
    fputs("<dt>encoders</dt><dd>", f);
    int first = 1;
    for (size_t x = 0; x < n_layers; x++) {
        int lo = 1 << 30, hi = -1;
        for (size_t j = 0; j < layers[x].n; j++) {
            int k = layers[x].k[j];
            if (k < lo) lo = k;
            if (k > hi) hi = k;
        }
        fputs(first ? "" : "; ", f);
        rpt_html_text(f, layers[x].base);
        if ((int)layers[x].n == hi - lo + 1) fprintf(f, " layers %d–%d", lo, hi);
        else fprintf(f, " %zu layers", layers[x].n);
        first = 0;
        free(layers[x].base);
        free(layers[x].k);
    }
    free(layers);
    if (encs.n) { fputs(first ? "" : "; ", f); list_set(f, &encs, "; "); }
    fputs("</dd>", f);
    if (seeds.n) { fputs("<dt>probe seeds</dt><dd>", f); list_set(f, &seeds, ", "); fputs("</dd>", f); }
    if (jobs.n) { fputs("<dt>job</dt><dd>", f); list_set(f, &jobs, "; "); fputs("</dd>", f); }
    else if (commands.n) { fputs("<dt>made by</dt><dd><code>", f); list_set(f, &commands, "</code>; <code>"); fputs("</code></dd>", f); }
    fputs("<dt>store</dt><dd><code>", f);
    rpt_html_text(f, d->db);
    fprintf(f, "</code> · %zu probe results · %zu tree evaluations · synprobe %s</dd></dl>\n", n_probe, n_tree, SP_VERSION);
    sp_buf_free(&b); sp_buf_free(&base);
    set_free(&jobs); set_free(&commands); set_free(&parts); set_free(&seeds); set_free(&encs);
}

/* What the reader must know before reading a number, once, at the top. */
static void caveats(FILE *f, const struct rpt_data *d)
{
    size_t i, n_small = 0, n_noint = 0, n_resplit = 0, n_agg = 0;
    for (i = 0; i < d->rows->n; i++) {
        const struct rpt_row *a = &d->rows->v[i];
        n_resplit += is_result(a) && (a->flags & RPT_F_RESPLIT);
        if (!rpt_is_agg(a)) continue;
        n_agg++;
        n_small += !!(a->flags & RPT_F_SMALL);
        n_noint += !!(a->flags & RPT_F_NOCI);
    }
    size_t n_unfit = json_object_size(d->unfit);
    if (!n_small && !n_noint && !n_resplit && !n_unfit) return;
    fputs("<div class=\"warn\"><b>Read with care</b><ul>", f);
    if (n_small)
        fprintf(f, "<li>%zu of %zu results (marked <span class=\"flag\">!</span>) have fewer than %d test items: too few to "
                   "tell a 10-point difference from chance, so they are not findings.</li>", n_small, n_agg,
                RPT_SMALL_TEST);
    if (n_resplit)
        fprintf(f, "<li>%zu probe results were trained and scored on a seeded 80/10/10 re-split of the corpus, not on an "
                   "official partition (partitions, above).</li>", n_resplit);
    if (n_noint)
        fprintf(f, "<li>%zu of %zu results carry no interval (no per-item scores recorded).</li>", n_noint, n_agg);
    if (n_unfit)
        fprintf(f, "<li>%zu task%s ha%s no results: the probing protocol cannot run on %s, and a job skipped %s encodes "
                   "and probes (<a href=\"#skipped\">the tasks and why</a>).</li>", n_unfit, n_unfit == 1 ? "" : "s",
                n_unfit == 1 ? "s" : "ve", n_unfit == 1 ? "it" : "them", n_unfit == 1 ? "its" : "their");
    fputs("</ul></div>\n", f);
}

/* ---- probing: the encoder x task table and its chart, per classifier ---- */

static void probing_cell(FILE *f, const struct rpt_row *a)
{
    if (!a) { fputs("<td>–</td>", f); return; }
    char m[32], sd[32];
    fprintf(f, "<td><b>%s</b>", rpt_fmt_num(m, sizeof m, "%.1f", a->value));
    if (!isnan(a->sd)) fprintf(f, " ± %s", rpt_fmt_num(sd, sizeof sd, "%.1f", a->sd));
    if (a->flags & RPT_F_SMALL) fputs("<span class=\"flag\">!</span>", f);
    if (!(a->flags & RPT_F_NOCI))
        fprintf(f, "<br><small>[%.1f, %.1f]</small>%s", a->lo, a->hi, a->flags & RPT_F_WIDE ? "<span class=\"flag\">*</span>" : "");
    fputs("</td>", f);
}

/* the tasks the probing protocol cannot run on (a job skipped their encodes and probes), each with its reason */
static void unfit_list(FILE *f, json_t *unfit)
{
    if (!json_object_size(unfit)) return;
    const char *name;
    json_t *why;
    fputs("<h3 id=\"skipped\">Tasks without results</h3>\n<p>The probing protocol cannot run on these tasks: a job "
          "skipped their encodes and probes.</p>\n<ul class=\"skipped\">", f);
    json_object_foreach(unfit, name, why) {
        fputs("<li><b>", f);
        rpt_html_text(f, name);
        fputs("</b>: skipped: ", f);
        rpt_html_text(f, json_string_value(why) ? json_string_value(why) : "");
        fputs("</li>", f);
    }
    fputs("</ul>\n", f);
}

static void probing_section(struct rpt_page *p, const struct rpt_table *t, json_t *unfit)
{
    FILE *f = p->f;
    size_t n_agg = 0;
    for (size_t i = 0; i < t->n; i++) n_agg += is_sentence_agg(&t->v[i]);
    fprintf(f, "<section id=\"probing\"><h2>Probing tasks</h2>\n");
    if (!n_agg) {
        fprintf(f, "<p>No probing-task results.</p>\n");
        unfit_list(f, unfit);
        fprintf(f, "</section>\n");
        return;
    }
    fprintf(f, "<p>Test accuracy (%%), mean ± sd over seeds; under it the 95%% percentile bootstrap interval over test "
               "items (B = %d, seed %d). n: test items. Baselines: the majority class; the same probe on sentence length "
               "alone; the same probe trained on shuffled labels (control accuracy; selectivity by layer under Control "
               "tasks). <span class=\"flag\">!</span> fewer than %d test items; <span class=\"flag\">*</span> an interval "
               "wider than 10 points.</p>\n", PRB_BOOT_B, PRB_BOOT_SEED, RPT_SMALL_TEST);
    struct rpt_names clfs = rpt_rows_distinct(t, f_method, sentence_agg, NULL), encs = rpt_rows_distinct(t, f_encoder, sentence_agg, NULL),
                     tasks = rpt_rows_distinct(t, f_task, sentence_agg, NULL);
    size_t ei, ti, nt = tasks.n, ne = encs.n;
    for (size_t ci = 0; ci < clfs.n; ci++) {
        const char *clf = clfs.v[ci];
        fprintf(f, "<h3>Classifier: ");
        rpt_html_text(f, clf);
        fprintf(f, "</h3>\n<div class=\"tw\"><table class=\"grid\"><tr><th class=\"l\">encoder</th>");
        for (ti = 0; ti < nt; ti++) {
            /* n in the header: every encoder's probe of a task is scored on the same test items */
            double n = NAN;
            for (ei = 0; ei < ne; ei++) {
                const struct rpt_row *a = rpt_find_agg(t, encs.v[ei], tasks.v[ti], clf);
                if (a && a->n >= 0) { n = (double)a->n; break; }
            }
            fputs("<th>", f);
            rpt_html_text(f, tasks.v[ti]);
            if (!isnan(n)) fprintf(f, "<br><small>n %.0f</small>", n);
            fputs("</th>", f);
        }
        fputs("</tr>\n", f);
        for (ei = 0; ei < ne; ei++) {
            fputs("<tr><td class=\"l\">", f);
            rpt_html_text(f, encs.v[ei]);
            fputs("</td>", f);
            for (ti = 0; ti < nt; ti++) probing_cell(f, rpt_find_agg(t, encs.v[ei], tasks.v[ti], clf));
            fputs("</tr>\n", f);
        }
        /* the baselines that do not depend on the encoder: the first encoder's; the control's accuracy does: its mean */
        static const char *const bl_name[3] = { "majority class", "sentence length only", "shuffled-label control (mean over encoders)" };
        for (int b = 0; b < 3; b++) {
            fprintf(f, "<tr class=\"base\"><td class=\"l\">%s</td>", bl_name[b]);
            for (ti = 0; ti < nt; ti++) {
                double s = 0;
                int k = 0;
                for (ei = 0; ei < ne; ei++) {
                    const struct rpt_row *a = rpt_find_agg(t, encs.v[ei], tasks.v[ti], clf);
                    double v = !a ? NAN : b == 0 ? a->base.majority : b == 1 ? a->base.length : a->base.control;
                    if (!isnan(v)) { s += v; k++; }
                    if (b < 2 && k) break;
                }
                cell_num(f, k ? s / k : NAN, "%.1f");
            }
            fputs("</tr>\n", f);
        }
        fputs("</table></div>\n", f);
        /* chart: groups = tasks, series = encoders, error bars = intervals, mark = majority */
        double *v = malloc(sizeof *v * (ne * nt + 1)), *lo = malloc(sizeof *lo * (ne * nt + 1)),
               *hi = malloc(sizeof *hi * (ne * nt + 1)), *mark = malloc(sizeof *mark * (nt + 1));
        const char **gl = malloc(sizeof *gl * (nt + 1)), **sl = malloc(sizeof *sl * (ne + 1));
        for (ti = 0; ti < nt; ti++) { gl[ti] = tasks.v[ti]; mark[ti] = NAN; }
        for (ei = 0; ei < ne; ei++) {
            sl[ei] = encs.v[ei];
            for (ti = 0; ti < nt; ti++) {
                const struct rpt_row *a = rpt_find_agg(t, sl[ei], gl[ti], clf);
                v[ei * nt + ti] = a ? a->value : NAN;
                lo[ei * nt + ti] = a ? a->lo : NAN;
                hi[ei * nt + ti] = a ? a->hi : NAN;
                if (a && isnan(mark[ti])) mark[ti] = a->base.majority;
            }
        }
        struct sp_buf title = { 0 }, name = { 0 };
        sp_buf_printf(&title, "Test accuracy by task and encoder (%s)", clf);
        sp_buf_printf(&name, "probing-%s", clf);
        struct rpt_chart ch = { .title = title.p, .x_title = "task", .y_title = "accuracy (%)",
                                .note = "mean over seeds; error bars: 95% bootstrap interval over test items; n per task in the "
                                        "table",
                                .n_groups = (int)nt, .group_labels = gl, .n_series = (int)ne, .series_labels = sl, .value = v,
                                .lo = lo, .hi = hi, .mark = mark, .mark_label = "majority class", .y_min = 0, .y_max = 100 };
        rpt_page_bars(p, &ch, name.p);
        sp_buf_free(&title); sp_buf_free(&name);
        free(v); free(lo); free(hi); free(mark); free(gl); free(sl);
    }
    unfit_list(f, unfit);
    fprintf(f, "</section>\n");
    free(clfs.v); free(encs.v); free(tasks.v);
}

/* ---- comparisons ---- */

/* "A pools 3 encoders: x, y, z." where a side's name matched several */
static void pooled_note(FILE *f, const char *name, const char *const *enc, size_t n)
{
    if (n < 2) return;
    fputs(" <b>", f);
    rpt_html_text(f, name);
    fprintf(f, "</b> pools %zu encoders (each a member, as the seeds of one encoder are): ", n);
    for (size_t k = 0; k < n; k++) {
        if (k) fputs(", ", f);
        rpt_html_text(f, enc[k]);
    }
    fputs(".", f);
}

static void compare_pair(FILE *f, const struct rpt_table *t, size_t from, size_t to)
{
    const struct rpt_cmp *c0 = &t->cmp[from];
    fprintf(f, "<h3>");
    rpt_html_text(f, c0->a);
    fputs(" vs ", f);
    rpt_html_text(f, c0->b);
    fputs("</h3>", f);
    if (c0->n_enc_a > 1 || c0->n_enc_b > 1) {
        fputs("<p>", f);
        pooled_note(f, c0->a, c0->enc_a, c0->n_enc_a);
        pooled_note(f, c0->b, c0->enc_b, c0->n_enc_b);
        fputs("</p>", f);
    }
    fprintf(f, "\n<table><tr><th class=\"l\">task</th><th class=\"l\">classifier</th><th>n</th><th>difference</th>"
               "<th>95%% interval</th><th>p</th><th>mdd80</th></tr>\n");
    for (size_t i = from; i < to; i++) {
        const struct rpt_cmp *c = &t->cmp[i];
        fputs("<tr><td class=\"l\">", f);
        rpt_html_text(f, c->task);
        fputs("</td><td class=\"l\">", f);
        rpt_html_text(f, c->classifier);
        fputs("</td>", f);
        if (c->error) {
            fputs("<td colspan=\"5\" class=\"l\">", f);
            rpt_html_text(f, c->error);
            fputs("</td></tr>\n", f);
            continue;
        }
        cell_num(f, (double)c->n_test, "%.0f");
        cell_num(f, c->delta, "%+.2f");
        fprintf(f, "<td>[%.2f, %.2f]</td>", c->lo, c->hi);
        if (!isnan(c->p_floor)) fprintf(f, "<td>&lt; %.3g</td>", c->p_floor);
        else cell_num(f, c->p, "%.3f");
        cell_num(f, c->mdd80, "%.2f");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void compare_section(FILE *f, const struct rpt_table *t)
{
    if (!t->n_cmp) return;
    fprintf(f, "<section id=\"compare\"><h2>Comparisons</h2><p>Difference of test accuracy (points, A − B), its 95%% "
               "paired bootstrap interval over the same test items and the two-sided p-value (B = %d); mdd80 is the "
               "smallest difference this test set detects with 80%% power.</p>\n", PRB_BOOT_B);
    for (size_t i = 0, j; i < t->n_cmp; i = j) {
        j = rpt_pair_end(t, i);
        compare_pair(f, t, i, j);
    }
    fputs("</section>\n", f);
}

/* ---- accuracy by layer: encoders named BASE-L<k>, one chart per BASE, a line per task ---- */

static void layers_section(struct rpt_page *p, const struct rpt_table *t)
{
    /* per aggregate of a layer run: its base, its series (task label) and layer */
    struct pt { char *base, *series; int k; const struct rpt_row *a; } *pt = sp_xmalloc(sizeof *pt * (t->n + 1));
    size_t npt = 0, i;
    int one_clf = 1;
    const char *clf0 = NULL;
    struct sp_buf base = { 0 }, kb = { 0 };   /* whole names: series of long names cut alike would merge */
    for (i = 0; i < t->n; i++) {
        if (!rpt_is_agg(&t->v[i])) continue;
        if (!clf0) clf0 = t->v[i].method;
        one_clf &= !strcmp(t->v[i].method, clf0);
    }
    for (i = 0; i < t->n; i++) {
        const struct rpt_row *a = &t->v[i];
        if (!rpt_is_agg(a)) continue;
        const char *enc = a->encoder;
        base.len = 0;
        sp_buf_put(&base, enc, strlen(enc) + 1);  /* the base is never longer than the label */
        int k = stg_layer_of_run(enc, base.p, base.len);
        if (k < 0) continue;
        kb.len = 0;
        const char *task = a->task;
        int tok = a->kind == RPT_K_TOKEN;
        sp_buf_printf(&kb, "%s%s%s%s%s", tok ? task + 6 : task, tok ? " (token)" : "", one_clf ? "" : " (",
                      one_clf ? "" : a->method, one_clf ? "" : ")");
        pt[npt++] = (struct pt){ sp_xstrdup(base.p), sp_xstrdup(kb.p), k, a };
    }
    sp_buf_free(&base);
    sp_buf_free(&kb);
    fprintf(p->f, "<section id=\"layers\"><h2>Accuracy by layer</h2>\n");
    if (!npt)
        fprintf(p->f, "<p>No layer-wise results: runs of an encoder's layers are named <code>NAME-L&lt;k&gt;</code> "
                      "(layer 0 = the embeddings).</p>\n");
    for (size_t b0 = 0; b0 < npt; b0++) {   /* each base once, in first-appearance order */
        const char *bname = pt[b0].base;
        int seen = 0, max = 0;
        for (size_t j = 0; j < b0 && !seen; j++) seen = !strcmp(pt[j].base, bname);
        if (seen) continue;
        const char **sl = malloc(sizeof *sl * (npt + 1));
        size_t ns = 0;
        for (size_t j = b0; j < npt; j++) {
            if (strcmp(pt[j].base, bname)) continue;
            if (pt[j].k > max) max = pt[j].k;
            size_t x = 0;
            while (x < ns && strcmp(sl[x], pt[j].series)) x++;
            if (x == ns) sl[ns++] = pt[j].series;
        }
        int nl = max + 1;
        double *v = malloc(sizeof *v * ns * (size_t)nl), *lo = malloc(sizeof *lo * ns * (size_t)nl),
               *hi = malloc(sizeof *hi * ns * (size_t)nl);
        const char **gl = malloc(sizeof *gl * (size_t)nl);
        char (*lab)[16] = malloc(sizeof *lab * (size_t)nl);
        for (int k = 0; k < nl; k++) { snprintf(lab[k], sizeof lab[k], "%d", k); gl[k] = lab[k]; }
        for (size_t x = 0; x < ns * (size_t)nl; x++) v[x] = lo[x] = hi[x] = NAN;
        for (size_t j = b0; j < npt; j++) {   /* the last aggregate of a (series, layer) */
            if (strcmp(pt[j].base, bname)) continue;
            size_t x = 0;
            while (strcmp(sl[x], pt[j].series)) x++;
            size_t at = x * (size_t)nl + (size_t)pt[j].k;
            v[at] = pt[j].a->value;
            lo[at] = pt[j].a->lo;
            hi[at] = pt[j].a->hi;
        }
        struct sp_buf title = { 0 }, name = { 0 };
        sp_buf_printf(&title, "%s: test accuracy by layer", bname);
        sp_buf_printf(&name, "layers-%s", bname);
        struct rpt_chart ch = { .title = title.p, .x_title = "layer (0 = embeddings)", .y_title = "accuracy (%)",
                                .note = "mean over seeds; error bars: 95% bootstrap interval over test items (none recorded "
                                        "for token probes)",
                                .n_groups = nl, .group_labels = gl, .n_series = (int)ns, .series_labels = sl, .value = v, .lo = lo,
                                .hi = hi, .y_min = 0, .y_max = 100 };
        rpt_page_lines(p, &ch, name.p);
        sp_buf_free(&title); sp_buf_free(&name);
        free(v); free(lo); free(hi); free(sl); free(gl); free(lab);
    }
    fprintf(p->f, "</section>\n");
    for (i = 0; i < npt; i++) { free(pt[i].base); free(pt[i].series); }
    free(pt);
}

/* ---- manifests ---- */

static void manifest_one(FILE *f, const struct rpt_row *row)
{
    fprintf(f, "<details><summary>%s %lld: ", rpt_is_probe(row) ? "probe" : "tree", (long long)row->id);
    if (rpt_is_probe(row)) {
        rpt_html_text(f, row->task);
        fputs(" / ", f);
        rpt_html_text(f, row->method);
        fprintf(f, " / seed %lld / ", (long long)row->seed);
        rpt_html_text(f, row->run ? row->run : "");
    } else {
        rpt_html_text(f, row->method);
        fputs(" / ", f);
        rpt_html_text(f, row->corpus);
    }
    fputs("</summary><pre>", f);
    rpt_html_text(f, row->manifest ? row->manifest : "(no manifest)");
    fputs("</pre></details>\n", f);
}

/* whether a tree evaluation's method starts with prefix (want 1); want 0: one that does not and is
 * neither a structural probe nor a dependency tree */
static int has_method(const struct rpt_table *t, const char *prefix, int want)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *row = &t->v[i];
        if (rpt_is_probe(row)) continue;
        int m = !strncmp(row->method, prefix, strlen(prefix));
        if (want ? m : !m && strncmp(row->method, "structprobe:", 12) && strncmp(row->method, "dependency:", 11)) return 1;
    }
    return 0;
}

static void nav(FILE *f, const struct rpt_data *d)
{
    size_t n_sent = 0, n_ctl = 0;
    for (size_t i = 0; i < d->rows->n; i++) {
        const struct rpt_row *a = &d->rows->v[i];
        n_sent += is_sentence_agg(a);
        n_ctl += rpt_is_agg(a) && !isnan(a->base.control);
    }
    struct { const char *id, *name; int on; } s[] = {
        { "findings", "Layer by layer", 1 }, { "probing", "Probing tasks", n_sent > 0 || json_object_size(d->unfit) },
        { "compare", "Comparison", d->rows->n_cmp > 0 }, { "control", "Control tasks", n_ctl > 0 },
        { "layers", "Accuracy by layer", 1 }, { "trees", "Constituency trees", has_method(d->rows, "", 0) },
        { "dependency", "Dependency trees", has_method(d->rows, "dependency:", 1) },
        { "structprobe", "Structural probes", has_method(d->rows, "structprobe:", 1) }, { "corpora", "Corpora", 1 },
        { "manifest", "Manifest", 1 } };
    fputs("<nav>", f);
    for (size_t k = 0; k < sizeof s / sizeof *s; k++)
        if (s[k].on) fprintf(f, "<a href=\"#%s\">%s</a>", s[k].id, s[k].name);
    fputs("</nav>\n", f);
}

int rpt_html(FILE *f, struct st_db *db, const struct rpt_data *d, char *err, size_t errlen)
{
    struct rpt_page page = { f, d->fig };
    struct rpt_page *p = &page;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>synprobe report: ");
    rpt_html_text(f, d->db);
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>synprobe report</h1>\n", css);
    experiment(f, db, d);
    caveats(f, d);
    nav(f, d);
    rpt_findings_section(p, d->rows);
    probing_section(p, d->rows, d->unfit);
    compare_section(f, d->rows);
    rpt_control_section(p, d->rows);
    layers_section(p, d->rows);
    rpt_constituency(p, d->rows);
    rpt_dependency(p, d->rows);
    rpt_structprobes(p, d->rows);
    int rc = rpt_corpora(p, db, err, errlen);
    fprintf(f, "<section id=\"manifest\"><h2>Manifest</h2><p>Every number above comes from one of these stored results: the "
               "command or job that made it, versions, data hashes, seeds and every option.</p>\n");
    for (size_t i = 0; i < d->rows->n; i++)
        if (is_result(&d->rows->v[i])) manifest_one(f, &d->rows->v[i]);
    for (size_t i = 0; i < d->rows->n; i++)
        if (!rpt_is_probe(&d->rows->v[i])) manifest_one(f, &d->rows->v[i]);
    fprintf(f, "</section>\n</body></html>\n");
    return rc;
}
