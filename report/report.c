/* report/report.c — the report stage (see report/report.h): collect the rows, then one writer. */
#include <csv.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stages/names.h"
#include "stages/probe.h"
#include "stages/layers.h"
#include "report/report.h"
#include "report/agg.h"
#include "report/html.h"
#include "report/latex.h"
#include "report/md.h"
#include "report/rows.h"
#include "probes/stats.h"
#include "store/st_results.h"

/* what --out and --figures name (common/guard.h): the HTML page's folder holds report.html, the
 * figures folder its NN-NAME files (report/figures.h), any other format one file */
static const char *out_holds(const void *src)
{
    return ((const struct rpt_opts *)src)->format == RPT_HTML ? "report.html" : NULL;
}
static const char *figures_holds(const void *src) { (void)src; return RPT_FIG_PATTERNS; }

const struct sp_opt rpt_options[] = {
#define O(f) offsetof(struct rpt_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store (read only)", .flags = SP_OPTF_REQUIRED },
    { "run", SP_OPT_LIST, O(run), .metavar = "R[,R...]", .help = "results of any of these runs (probe results and tree evaluations)" },
    { "task", SP_OPT_LIST, O(task), .metavar = "T[,T...]", .help = "probe results of any of these tasks" },
    { "classifier", SP_OPT_STR, O(classifier), .metavar = "C", .help = "probe results of this classifier (logreg, mlp)" },
    { "method", SP_OPT_STR, O(method), .metavar = "M", .help = "tree evaluations of this method" },
    { "corpus", SP_OPT_STR, O(corpus), .metavar = "C", .help = "tree evaluations of this corpus" },
    { "compare", SP_OPT_LIST, O(compare), .metavar = "A,B[,C,D...]",
      .help = "compare A with B (and C with D, ...) per task: difference of test accuracy with a paired bootstrap "
              "interval and p-value over the same test items; a name may be a shell pattern ('ms-san-trained-s*' pools "
              "the runs it matches, e.g. several training seeds, into one side)" },
    { "format", SP_OPT_CHOICE, O(format), "text", .choices = "text|json|csv|html|latex|md", .help = "see above" },
    { "out", SP_OPT_PATH, O(out), .metavar = "FILE",
      .help = "write there instead of stdout (a temporary file renamed over FILE on success; a filter that matches "
              "nothing is an error and leaves FILE as it was); with --format html a folder, written as FOLDER/report.html", .flags = SP_OPTF_OUTPUT,
      .holds = out_holds },
    { "figures", SP_OPT_PATH, O(figures), .metavar = "DIR",
      .help = "also write every chart of the HTML report as a file of its own, DIR/NN-NAME.svg, .pdf and .png (PDF and PNG "
              "drawn from the SVG by librsvg), for a paper; DIR is made with its parents", .flags = SP_OPTF_OUTPUT,
      .holds = figures_holds },
    { "figure-formats", SP_OPT_STR, O(figure_formats), "auto", .metavar = "LIST",
      .help = "the formats --figures writes, a comma list of svg, pdf, png; auto: all three where synprobe was built with "
              "librsvg, else svg" },
#undef O
    { 0 },
};

/* ---- collecting rows ---- */

struct coll { json_t *probes, *trees, *aggs, *cmp; const struct sp_logger *log;
              json_t *unfit;   /* {"Tense": "why"}: tasks the protocol cannot run on (a job skipped them), or NULL */
              struct rpt_table rows;   /* the same results as typed rows (report/rows.h) */ };

static json_t *parse_result(const struct coll *c, const char *text, int64_t id)
{
    json_error_t e;
    json_t *j = text ? json_loads(text, 0, &e) : NULL;
    if (!j) {
        sp_log(c->log, SP_LOG_WARN, "result %lld: stored JSON does not parse, reported as null", (long long)id);
        return json_null();
    }
    return j;
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

static int on_probe(void *ctx, const struct st_probe_row *r)
{
    struct coll *c = ctx;
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer((json_int_t)r->id));
    json_object_set_new(o, "run", str_or_null(r->run));
    json_object_set_new(o, "task", json_string(r->task_name));
    json_object_set_new(o, "classifier", json_string(r->classifier));
    json_object_set_new(o, "seed", json_integer((json_int_t)r->seed));
    json_object_set_new(o, "dev_acc", r->has_dev ? json_real(r->dev_acc) : json_null());
    json_object_set_new(o, "test_acc", r->has_test ? json_real(r->test_acc) : json_null());
    json_object_set_new(o, "created", str_or_null(r->created));
    json_object_set_new(o, "result", parse_result(c, r->result, r->id));
    json_array_append_new(c->probes, o);
    return 0;
}

static int on_tree(void *ctx, const struct st_tree_row *r)
{
    struct coll *c = ctx;
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer((json_int_t)r->id));
    json_object_set_new(o, "run", str_or_null(r->run));
    json_object_set_new(o, "corpus", str_or_null(r->corpus));
    json_object_set_new(o, "method", json_string(r->method));
    json_object_set_new(o, "created", str_or_null(r->created));
    json_object_set_new(o, "result", parse_result(c, r->result, r->id));
    json_array_append_new(c->trees, o);
    return 0;
}

/* Whether name is l->v[i] for some i < upto: a name given twice selects its rows once. */
static int seen_before(const struct sp_strlist *l, int upto)
{
    for (int i = 0; i < upto; i++)
        if (!strcmp(l->v[i], l->v[upto])) return 1;
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "id"));
    json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "id"));
    return x < y ? -1 : x > y;
}

/* Rows of several queries back in id order (oldest first), as one query gives them. */
static void sort_by_id(json_t *arr)
{
    size_t n = json_array_size(arr);
    if (n < 2) return;
    json_t **v = sp_xmalloc(sizeof *v * n);
    for (size_t i = 0; i < n; i++) v[i] = json_incref(json_array_get(arr, i));
    qsort(v, n, sizeof *v, cmp_id);
    json_array_clear(arr);
    for (size_t i = 0; i < n; i++) json_array_append_new(arr, v[i]);
    free(v);
}

/* One query per (run, task) pair of the lists (a list left empty matches everything). */
static int collect(struct stg_ctx *ctx, struct st_db *db, const struct rpt_opts *o, struct coll *c)
{
    int want_probe = !(o->method || o->corpus) || o->task.n || o->classifier;
    int want_tree = !(o->task.n || o->classifier) || o->method || o->corpus;
    int nr = o->run.n ? o->run.n : 1, nt = o->task.n ? o->task.n : 1, rc = SP_OK;
    for (int i = 0; rc == SP_OK && i < nr; i++) {
        if (o->run.n && seen_before(&o->run, i)) continue;
        struct st_result_filter flt = { o->run.n ? o->run.v[i] : NULL, NULL, o->classifier, o->method, o->corpus };
        for (int k = 0; want_probe && rc == SP_OK && k < nt; k++) {
            if (o->task.n && seen_before(&o->task, k)) continue;
            flt.task = o->task.n ? o->task.v[k] : NULL;
            rc = st_probe_results_each(db, &flt, on_probe, c, ctx->err, sizeof ctx->err);
        }
        flt.task = NULL;
        if (want_tree && rc == SP_OK) rc = st_tree_evals_each(db, &flt, on_tree, c, ctx->err, sizeof ctx->err);
    }
    sort_by_id(c->probes);
    sort_by_id(c->trees);
    return rc;
}

/* ---- field access ---- */


/* ---- text ---- */

static void fmt_num(char *buf, size_t n, double v, const char *fmt)
{
    if (isnan(v)) snprintf(buf, n, "-");
    else rpt_fmt_num(buf, n, fmt, v);
}

static int is_result(const struct rpt_row *r) { return rpt_is_probe(r) && (r->flags & RPT_F_SEED); }

static char *text_escape(const char *s);
/* s as the text report writes it; *own: the escaped copy to free, or NULL */
static const char *tx(const char *s, char **own) { *own = text_escape(s); return *own ? *own : s; }

static void text_probes(FILE *f, const struct rpt_table *t, size_t np)
{
    int wt = 4, wc = 10, wv = 11;
    char *e[3];
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (!is_result(r)) continue;
        int a = (int)strlen(tx(r->task, &e[0])), b = (int)strlen(tx(r->method, &e[1])), v = (int)strlen(tx(r->vectors, &e[2]));
        for (int k = 0; k < 3; k++) free(e[k]);
        if (a > wt) wt = a;
        if (b > wc) wc = b;
        if (v > wv) wv = v > 40 ? 40 : v;
    }
    fprintf(f, "probe results (%zu)\n", np);
    fprintf(f, "%5s  %-*s  %-*s  %6s  %-*s  %6s  %6s  %8s  %7s  %6s  %8s\n", "id", wt, "task", wc, "classifier",
            "seed", wv, "run/vectors", "dev", "test", "majority", "control", "select", "macro-F1");
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (!is_result(r) || rpt_is_mdl(r->method)) continue;   /* MDL probes: text_mdl */
        const struct rpt_probe_detail *d = r->detail;
        char dev[32], test[32], maj[32], ctl[32], sel[32], mf[32];
        fmt_num(dev, sizeof dev, r->dev, "%.2f");
        fmt_num(test, sizeof test, r->value, "%.2f");
        fmt_num(maj, sizeof maj, isnan(r->base.majority) ? d->majority_dev : r->base.majority, "%.2f");
        fmt_num(ctl, sizeof ctl, isnan(r->base.control) ? d->control_dev : r->base.control, "%.2f");
        fmt_num(sel, sizeof sel, r->base.selectivity, "%.2f");
        fmt_num(mf, sizeof mf, d->macro_f1, "%.4f");
        const char *v = tx(r->vectors, &e[2]);
        size_t vl = strlen(v);
        if ((int)vl > wv) v += vl - (size_t)wv;      /* keep the informative end of a long path */
        fprintf(f, "%5lld  %-*s  %-*s  %6lld  %-*s  %6s  %6s  %8s  %7s  %6s  %8s\n", (long long)r->id, wt, tx(r->task, &e[0]),
                wc, tx(r->method, &e[1]), (long long)r->seed, wv, v, dev, test, maj, ctl, sel, mf);
        for (int k = 0; k < 3; k++) free(e[k]);
    }
}

/* the MDL probes (stages/mdl.h), n_mdl of them: codelengths in bits, compression = uniform / codelength */
static void text_mdl(FILE *f, const struct rpt_table *t, size_t n_mdl, int after)
{
    int wt = 4, wv = 11;
    char *e[2];
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (!is_result(r) || !rpt_is_mdl(r->method)) continue;
        int a = (int)strlen(tx(r->task, &e[0])), v = (int)strlen(tx(r->vectors, &e[1]));
        for (int k = 0; k < 2; k++) free(e[k]);
        if (a > wt) wt = a;
        if (v > wv) wv = v > 40 ? 40 : v;
    }
    fprintf(f, "%sMDL probes (%zu; online code, Voita & Titov 2020; bits)\n", after ? "\n" : "", n_mdl);
    fprintf(f, "%5s  %-*s  %6s  %-*s  %6s  %6s  %12s  %12s  %11s  %12s  %11s  %11s\n", "id", wt, "task", "seed", wv,
            "run/vectors", "labels", "ntrain", "codelength", "uniform", "compression", "control cl", "control cmp",
            "selectivity");
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (!is_result(r) || !rpt_is_mdl(r->method)) continue;
        const struct rpt_mdl *m = r->detail->mdl;
        const struct rpt_mdl_code *c = &m->code[0], *k = &m->code[1];
        char cl[32], un[32], cm[32], ccl[32], ccm[32], sel[32];
        fmt_num(cl, sizeof cl, c->codelength_bits, "%.1f");
        fmt_num(un, sizeof un, c->uniform_bits, "%.1f");
        fmt_num(cm, sizeof cm, r->value, "%.2f");
        fmt_num(ccl, sizeof ccl, m->has_control ? k->codelength_bits : NAN, "%.1f");
        fmt_num(ccm, sizeof ccm, r->base.control, "%.2f");
        fmt_num(sel, sizeof sel, r->base.selectivity, "%.1f");
        const char *v = tx(r->vectors, &e[1]);
        size_t vl = strlen(v);
        if ((int)vl > wv) v += vl - (size_t)wv;
        long long labels = isnan(c->labels) ? 0 : (long long)c->labels, ntrain = r->n < 0 ? 0 : r->n;
        fprintf(f, "%5lld  %-*s  %6lld  %-*s  %6lld  %6lld  %12s  %12s  %11s  %12s  %11s  %11s\n", (long long)r->id, wt,
                tx(r->task, &e[0]), (long long)r->seed, wv, v, labels, ntrain, cl, un, cm, ccl, ccm, sel);
        for (int q = 0; q < 2; q++) free(e[q]);
    }
    fprintf(f, "compression: uniform codelength (ntrain log2 labels) / codelength; control: the control task's labels; "
               "selectivity: control codelength minus codelength\n");
}

/* "mean ± sd": sd "-" for one seed */
static void fmt_mean_sd(char *buf, size_t n, double m, double sd)
{
    char a[32], b[32];
    if (isnan(m)) snprintf(buf, n, "-");
    else if (isnan(sd)) snprintf(buf, n, "%s", rpt_fmt_num(a, sizeof a, "%.2f", m));
    else snprintf(buf, n, "%s ± %s", rpt_fmt_num(a, sizeof a, "%.2f", m), rpt_fmt_num(b, sizeof b, "%.2f", sd));
}

static void text_aggregates(FILE *f, const struct rpt_table *t)
{
    int we = 7, wt = 4, wc = 10, n_wide = 0, n_none = 0, n_small = 0;
    char *e[3];
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *a = &t->v[i];
        if (!rpt_is_agg(a)) continue;
        int x = (int)strlen(tx(a->encoder, &e[0])), y = (int)strlen(tx(a->task, &e[1])), z = (int)strlen(tx(a->method, &e[2]));
        for (int k = 0; k < 3; k++) free(e[k]);
        if (x > we) we = x > 40 ? 40 : x;
        if (y > wt) wt = y;
        if (z > wc) wc = z;
    }
    fprintf(f, "test accuracy over seeds: mean ± sd, 95%% interval (bootstrap over test items, B = %d, seed %d)\n",
            PRB_BOOT_B, PRB_BOOT_SEED);
    fprintf(f, "%-*s  %-*s  %-*s  %5s  %5s  %15s  %17s  %8s  %6s  %11s\n", we, "encoder", wt, "task", wc, "classifier", "n",
            "seeds", "test", "95% interval", "majority", "length", "selectivity");
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *a = &t->v[i];
        if (!rpt_is_agg(a)) continue;
        char test[48], ci[48], maj[48], sel[48], n[16], len[48];
        fmt_mean_sd(test, sizeof test, a->value, a->sd);
        if (!(a->flags & RPT_F_NOCI)) snprintf(ci, sizeof ci, "[%.2f, %.2f]%s", a->lo, a->hi, a->flags & RPT_F_WIDE ? " *" : "");
        else { snprintf(ci, sizeof ci, "-"); n_none++; }
        if (a->flags & RPT_F_WIDE) n_wide++;
        fmt_num(maj, sizeof maj, a->base.majority, "%.2f");
        fmt_num(len, sizeof len, a->base.length, "%.2f");
        fmt_mean_sd(sel, sizeof sel, a->base.selectivity, a->base.selectivity_sd);
        fmt_num(n, sizeof n, a->n < 0 ? NAN : (double)a->n, a->flags & RPT_F_SMALL ? "%.0f!" : "%.0f");
        if (a->flags & RPT_F_SMALL) n_small++;
        /* "±" is 2 bytes, 1 column: widen its field by one */
        fprintf(f, "%-*s  %-*s  %-*s  %5s  %5d  %*s  %17s  %8s  %6s  %*s\n", we, tx(a->encoder, &e[0]), wt, tx(a->task, &e[1]), wc,
                tx(a->method, &e[2]), n, a->n_seeds, strstr(test, "±") ? 16 : 15, test, ci, maj, len, strstr(sel, "±") ? 12 : 11,
                sel);
        for (int k = 0; k < 3; k++) free(e[k]);
    }
    fprintf(f, "majority: the most frequent training class; length: the same probe on sentence length alone; "
               "selectivity: test accuracy minus that of the probe trained on shuffled labels\n");
    if (n_small)
        fprintf(f, "! fewer than %d test items: too few to tell a 10-point difference from chance; these numbers are not "
                   "findings\n", RPT_SMALL_TEST);
    if (n_wide)
        fprintf(f, "* the interval is wider than 10 points: differences smaller than about half its width cannot be "
                   "resolved on this test set\n");
    if (n_none) fprintf(f, "- no interval: the results carry no per-item record (stored by an older synprobe) or the seeds "
                           "were scored on different items\n");
    fprintf(f, "\n");
}

/* "  A pools 3 encoders: x, y, z" where side A's name matched several */
static void text_pooled(FILE *f, const char *name, const char *const *enc, size_t n)
{
    if (n < 2) return;
    char *e;
    fprintf(f, "  %s pools %zu encoders:", tx(name, &e), n);
    free(e);
    for (size_t k = 0; k < n; k++) {
        fprintf(f, "%s %s", k ? "," : "", tx(enc[k], &e));
        free(e);
    }
    fprintf(f, "\n");
}

static void text_compare_pair(FILE *f, const struct rpt_table *t, size_t from, size_t to)
{
    const struct rpt_cmp *c0 = &t->cmp[from];
    char *e[3];
    const char *a = tx(c0->a, &e[0]), *b = tx(c0->b, &e[1]);
    fprintf(f, "%s vs %s: difference of test accuracy (%s − %s), 95%% paired bootstrap interval over the same test items, "
               "two-sided p (B = %d, seed %d)\n", a, b, a, b, PRB_BOOT_B, PRB_BOOT_SEED);
    free(e[0]);
    free(e[1]);
    text_pooled(f, c0->a, c0->enc_a, c0->n_enc_a);
    text_pooled(f, c0->b, c0->enc_b, c0->n_enc_b);
    fprintf(f, "%-12s  %-10s  %5s  %8s  %17s  %8s  %7s\n", "task", "classifier", "n", "diff", "95% interval", "p", "mdd80");
    for (size_t i = from; i < to; i++) {
        const struct rpt_cmp *c = &t->cmp[i];
        const char *task = tx(c->task, &e[0]), *clf = tx(c->classifier, &e[1]);
        if (c->error) {
            fprintf(f, "%-12s  %-10s  %s\n", task, clf, tx(c->error, &e[2]));
            for (int k = 0; k < 3; k++) free(e[k]);
            continue;
        }
        char ci[48], p[32], mdd[32];
        snprintf(ci, sizeof ci, "[%.2f, %.2f]", c->lo, c->hi);
        if (!isnan(c->p_floor)) snprintf(p, sizeof p, "< %.3g", c->p_floor);
        else snprintf(p, sizeof p, "%.3f", c->p);
        fmt_num(mdd, sizeof mdd, c->mdd80, "%.2f");
        fprintf(f, "%-12s  %-10s  %5.0f  %+8.2f  %17s  %8s  %7s\n", task, clf, (double)c->n_test, c->delta, ci, p, mdd);
        free(e[0]);
        free(e[1]);
    }
    fprintf(f, "mdd80: the smallest true difference this test set detects with 80%% power (informative only)\n\n");
}

static void text_compare(FILE *f, const struct rpt_table *t)
{
    for (size_t i = 0, j; i < t->n_cmp; i = j) {
        j = rpt_pair_end(t, i);
        text_compare_pair(f, t, i, j);
    }
}

static int is_tree(const struct rpt_row *r) { return r->kind == RPT_K_DEP || r->kind == RPT_K_CONST; }

static void text_trees(FILE *f, const struct rpt_table *t, int n_tree, int after)
{
    int wm = 6, wc = 6, wr = 3;
    char *e[3];
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (rpt_is_probe(r)) continue;
        int a = (int)strlen(tx(r->method, &e[0])), b = (int)strlen(tx(r->corpus, &e[1])), w = (int)strlen(tx(r->run ? r->run : "", &e[2]));
        for (int k = 0; k < 3; k++) free(e[k]);
        if (a > wm) wm = a > 48 ? 48 : a;
        if (b > wc) wc = b;
        if (w > wr) wr = w;
    }
    fprintf(f, "%stree evaluations (%d; Protocol A = EVALB LABELED 0, B = unlabeled spans without punctuation)\n",
            after ? "\n" : "", n_tree);
    fprintf(f, "%5s  %-*s  %-*s  %-*s  %6s  %8s  %9s  %9s  %10s  %9s\n", "id", wm, "method", wc, "corpus", wr, "run",
            "sents", "A-F1 all", "A-F1 <=40", "B-sent all", "B-sent <=40", "B-corp all");
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (!is_tree(r)) continue;
        char a1[32], a2[32], b1[32], b2[32], b3[32];
        fmt_num(a1, sizeof a1, r->fig[RPT_T_A_F], "%.2f");
        fmt_num(a2, sizeof a2, r->fig[RPT_T_A_F40], "%.2f");
        fmt_num(b1, sizeof b1, r->fig[RPT_T_B_SENT], "%.2f");
        fmt_num(b2, sizeof b2, r->fig[RPT_T_B_SENT40], "%.2f");
        fmt_num(b3, sizeof b3, r->fig[RPT_T_B_CORP], "%.2f");
        const char *m = tx(r->method, &e[0]);
        size_t ml = strlen(m);
        if ((int)ml > wm) m += ml - (size_t)wm;
        fprintf(f, "%5lld  %-*s  %-*s  %-*s  %6lld  %8s  %9s  %9s  %10s  %9s\n", (long long)r->id, wm, m, wc,
                tx(r->corpus, &e[1]), wr, tx(r->run ? r->run : "", &e[2]), (long long)(r->n < 0 ? 0 : r->n), a1, a2, b1, b2, b3);
        for (int k = 0; k < 3; k++) free(e[k]);
    }
}

static void text_structprobes(FILE *f, const struct rpt_table *t, int n_sp, int after)
{
    fprintf(f, "%sstructural probes (%d)\n", after ? "\n" : "", n_sp);
    fprintf(f, "%5s  %-24s  %-12s  %6s  %7s  %7s  %8s  %7s\n", "id", "method", "corpus", "sents", "UUAS", "DSpr", "root acc", "NSpr");
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (r->kind != RPT_K_STRUCTPROBE) continue;
        char u[32], d[32], ra[32], n[32], *e[2];
        fmt_num(u, sizeof u, r->fig[RPT_T_UUAS], "%.2f");
        fmt_num(d, sizeof d, r->fig[RPT_T_DSPR], "%.4f");
        fmt_num(ra, sizeof ra, r->fig[RPT_T_ROOT], "%.2f");
        fmt_num(n, sizeof n, r->fig[RPT_T_NSPR], "%.4f");
        fprintf(f, "%5lld  %-24s  %-12s  %6lld  %7s  %7s  %8s  %7s\n", (long long)r->id, tx(r->method, &e[0]), tx(r->corpus, &e[1]),
                (long long)(r->n < 0 ? 0 : r->n), u, d, ra, n);
        for (int k = 0; k < 2; k++) free(e[k]);
    }
}


/* the stored tasks the probing protocol cannot run on: a job skipped their probes, saying why */
static void text_unfit(FILE *f, const json_t *unfit, int after)
{
    if (!json_object_size(unfit)) return;
    const char *name;
    json_t *why;
    fprintf(f, "%stasks without results (the probing protocol cannot run on them):\n", after ? "\n" : "");
    json_object_foreach((json_t *)unfit, name, why) {
        char *en = text_escape(name), *ew = text_escape(json_string_value(why) ? json_string_value(why) : "");
        fprintf(f, "  %s: skipped: %s\n", en ? en : name, ew ? ew : json_string_value(why));
        free(en);
        free(ew);
    }
}

/* s with what a terminal would act on written out, so that one name is one line of one width: a
 * control byte as \n, \t, \r or \xHH, a C1 control (U+0080..U+009F) as \uHHHH (a backslash stays
 * as it is: names with one are shown as stored, and the JSON report has them exactly); NULL when s
 * needs none. Caller frees. */
static char *text_escape(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    for (; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)) break;
    if (!*p) return NULL;
    struct sp_buf b = { 0 };
    sp_buf_put(&b, s, (size_t)((const char *)p - s));
    for (; *p; p++) {
        if (*p == '\n') sp_buf_puts(&b, "\\n");
        else if (*p == '\t') sp_buf_puts(&b, "\\t");
        else if (*p == '\r') sp_buf_puts(&b, "\\r");
        else if (*p < 0x20 || *p == 0x7f) sp_buf_printf(&b, "\\x%02x", *p);
        else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) sp_buf_printf(&b, "\\u%04x", *++p);
        else sp_buf_put(&b, p, 1);
    }
    return b.p;
}

char *rpt_text_escape(const char *s) { return text_escape(s); }

/* The text report: names are escaped as they are written (tx). */
static void text_out(FILE *f, const struct coll *c, const char *db_name, int filtered)
{
    char *d = text_escape(db_name);
    const char *db = d ? d : db_name;
    size_t np = json_array_size(c->probes), nt = json_array_size(c->trees);
    if (!np && !nt) {
        fprintf(f, "%s: no probe results or tree evaluations%s\n", db, filtered ? " match the filters" : " stored");
        text_unfit(f, c->unfit, 1);
        free(d);
        return;
    }
    size_t n_mdl = 0;   /* MDL probes: codelengths, apart from the accuracies */
    for (size_t i = 0; i < c->rows.n; i++) n_mdl += is_result(&c->rows.v[i]) && rpt_is_mdl(c->rows.v[i].method);
    if (np > n_mdl) text_aggregates(f, &c->rows);
    text_compare(f, &c->rows);
    if (np > n_mdl) text_probes(f, &c->rows, np - n_mdl);
    if (n_mdl) text_mdl(f, &c->rows, n_mdl, np > n_mdl);
    int n_tree = 0, n_sp = 0;
    for (size_t i = 0; i < c->rows.n; i++) {
        n_sp += c->rows.v[i].kind == RPT_K_STRUCTPROBE;
        n_tree += is_tree(&c->rows.v[i]);
    }
    if (n_tree) text_trees(f, &c->rows, n_tree, np > 0);
    if (n_sp) text_structprobes(f, &c->rows, n_sp, np || n_tree);
    text_unfit(f, c->unfit, 1);
    free(d);
}

/* ---- CSV ---- */

enum { C_KIND, C_ID, C_RUN, C_ENC, C_LAYER, C_VEC, C_TASK, C_CLF, C_SEED, C_METHOD, C_CORPUS, C_SPLIT, C_SUBSET, C_METRIC,
       C_CLASS, C_PRED, C_VALUE, C_N };
static const char *const csv_header[C_N] = { "kind", "id", "run", "encoder", "layer", "vectors", "task", "classifier", "seed", "method",
                                             "corpus", "split", "subset", "metric", "class", "pred_class", "value" };

static void csv_field(FILE *f, const char *s)
{
    /* quote only what needs it (libcsv doubles embedded quotes) */
    if (strpbrk(s, ",\"\r\n") || (*s && (s[0] == ' ' || s[strlen(s) - 1] == ' '))) csv_fwrite(f, s, strlen(s));
    else fputs(s, f);
}

static void csv_row(FILE *f, const char *const *v)
{
    for (int i = 0; i < C_N; i++) {
        if (i) fputc(',', f);
        csv_field(f, v[i] ? v[i] : "");
    }
    fputc('\n', f);
}

/* one observation: base row (identity columns) + split, subset, metric, class, pred, value */
struct obs { FILE *f; const char *v[C_N]; struct sp_buf enc; char layer[16]; };   /* enc: whole, owned */

/* the encoder and layer columns from an encoder label (NAME-L<k>: NAME and k; else the label, "") */
static void set_encoder(struct obs *o, const char *label)
{
    o->enc.len = 0;
    sp_buf_put(&o->enc, label, strlen(label) + 1);   /* the base name is never longer than the label */
    int k = stg_layer_of_run(label, o->enc.p, o->enc.len);
    if (k >= 0) snprintf(o->layer, sizeof o->layer, "%d", k);
    o->v[C_ENC] = o->enc.p;
    o->v[C_LAYER] = o->layer;
}

static void emit(struct obs *o, const char *split, const char *subset, const char *metric, const char *cls,
                 const char *pred, json_t *value)
{
    char buf[64] = "";
    if (json_is_integer(value)) snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(value));
    else if (json_is_real(value) && !isnan(json_real_value(value))) snprintf(buf, sizeof buf, "%.10g", json_real_value(value));
    o->v[C_SPLIT] = split; o->v[C_SUBSET] = subset; o->v[C_METRIC] = metric;
    o->v[C_CLASS] = cls; o->v[C_PRED] = pred; o->v[C_VALUE] = buf;
    csv_row(o->f, o->v);
}

static void emit_cls(struct obs *o, const char *split, const char *metric, const char *cls, const char *pred, double v)
{
    json_t *j = isnan(v) ? json_null() : json_real(v);
    emit(o, split, NULL, metric, cls, pred, j);
    json_decref(j);
}

static void emit_num(struct obs *o, const char *split, const char *subset, const char *metric, double v)
{
    json_t *j = isnan(v) ? json_null() : json_real(v);
    emit(o, split, subset, metric, NULL, NULL, j);
    json_decref(j);
}

/* an MDL probe's figures: the codes' totals, then each block's size and bits (subset "block K") */
static void csv_mdl(struct obs *o, const struct rpt_row *r)
{
    static const char *const code[2] = { "", "control" };
    const struct rpt_mdl *md = r->detail->mdl;
    for (int c = 0; c < 2; c++) {
        const struct rpt_mdl_code *x = &md->code[c];
        if (c && !md->has_control) continue;
        char m[64];
        static const char *const k[] = { "labels", "codelength_bits", "uniform_bits", "compression" };
        const double v[] = { x->labels, x->codelength_bits, x->uniform_bits, x->compression };
        for (int i = 0; i < 4; i++) {
            snprintf(m, sizeof m, "%s%s%s", code[c], c ? "_" : "", k[i]);
            emit_num(o, "train", NULL, m, v[i]);
        }
        for (size_t i = 0; i < x->n_blocks; i++) {
            char sub[32];
            snprintf(sub, sizeof sub, "block %zu", i + 1);
            snprintf(m, sizeof m, "%s%sblock_size", code[c], c ? "_" : "");
            emit_num(o, "train", sub, m, x->blocks[i].size);
            snprintf(m, sizeof m, "%s%sblock_bits", code[c], c ? "_" : "");
            emit_num(o, "train", sub, m, x->blocks[i].bits);
        }
    }
    emit_num(o, "train", NULL, "selectivity_bits", md->selectivity_bits);
}

static void csv_probe(FILE *f, const struct rpt_row *r)
{
    const struct rpt_probe_detail *d = r->detail;
    char id[32], seed[32];
    snprintf(id, sizeof id, "%lld", (long long)r->id);
    snprintf(seed, sizeof seed, "%lld", (long long)r->seed);
    struct obs o = { .f = f };
    o.v[C_KIND] = "probe"; o.v[C_ID] = id; o.v[C_RUN] = r->run ? r->run : "";
    set_encoder(&o, r->encoder);
    o.v[C_VEC] = r->vectors; o.v[C_TASK] = r->task; o.v[C_CLF] = r->method;
    o.v[C_SEED] = seed;
    emit_num(&o, "train", NULL, "n", d->ntrain);
    emit_num(&o, "dev", NULL, "n", d->ndev);
    if (d->mdl) {   /* no accuracies: the codes */
        csv_mdl(&o, r);
        sp_buf_free(&o.enc);
        return;
    }
    emit_num(&o, "test", NULL, "n", r->n < 0 ? NAN : (double)r->n);
    emit_num(&o, "dev", NULL, "accuracy", r->dev);
    emit_num(&o, "test", NULL, "accuracy", r->value);
    emit_num(&o, "dev", NULL, "majority_accuracy", d->majority_dev);
    emit_num(&o, "test", NULL, "majority_accuracy", r->base.majority);
    if (d->has_length) {
        emit_num(&o, "dev", NULL, "length_accuracy", d->length_dev);
        emit_num(&o, "test", NULL, "length_accuracy", r->base.length);
    }
    const char *ms = d->split;
    if (d->has_control) {
        emit_num(&o, "dev", NULL, "control_accuracy", d->control_dev);
        emit_num(&o, "test", NULL, "control_accuracy", r->base.control);
        emit_num(&o, ms, NULL, "selectivity", r->base.selectivity);
    }
    emit_num(&o, ms, NULL, "macro_f1", d->macro_f1);
    for (size_t i = 0; i < d->n_cls; i++) {
        const struct rpt_class_score *c = &d->cls[i];
        emit_cls(&o, ms, "precision", c->name, NULL, c->precision);
        emit_cls(&o, ms, "recall", c->name, NULL, c->recall);
        emit_cls(&o, ms, "f1", c->name, NULL, c->f1);
        emit_cls(&o, ms, "support", c->name, NULL, c->support);
    }
    for (size_t i = 0; i < d->cm_rows; i++)
        for (size_t j = 0; j < d->cm_len[i]; j++)
            emit_cls(&o, ms, "confusion", i < d->n_classes ? d->classes[i] : NULL, j < d->n_classes ? d->classes[j] : NULL,
                     d->cm[d->cm_at[i] + j]);
    emit_num(&o, NULL, NULL, "chosen_nhid", d->chosen_nhid);
    emit_num(&o, NULL, NULL, "chosen_dropout", d->chosen_dropout);
    emit_num(&o, NULL, NULL, "chosen_l2reg", d->chosen_l2reg);
    for (size_t i = 0; i < d->n_grid; i++) {
        const struct rpt_grid_point *g = &d->grid[i];
        char cell[128];
        snprintf(cell, sizeof cell, "nhid=%lld dropout=%g l2reg=%g", g->nhid, g->dropout, g->l2reg);
        emit_num(&o, "dev", cell, "grid_devacc", g->devacc);
    }
    sp_buf_free(&o.enc);
}

static void emit_int(struct obs *o, const char *split, const char *subset, const char *metric, long v);

static void csv_tree(FILE *f, const struct rpt_row *r)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)r->id);
    struct obs o = { .f = f };
    o.v[C_KIND] = "tree"; o.v[C_ID] = id; o.v[C_RUN] = r->run ? r->run : "";
    if (r->run) set_encoder(&o, r->encoder);
    o.v[C_METHOD] = r->method; o.v[C_CORPUS] = r->corpus;
    if (r->kind == RPT_K_STRUCTPROBE) {
        static const char *const k[] = { "uuas", "dspr", "root_acc", "nspr" };
        for (int i = 0; i < 4; i++) emit_num(&o, NULL, NULL, k[i], r->fig[RPT_T_UUAS + i]);
    } else {
        static const char *const asub[] = { "all", "le40" }, *const bsub[] = { "all", "le40", "le10" };
        static const char *const am[] = { "recall", "precision", "fmeasure" };
        char metric[32];
        for (int s = 0; s < 2; s++)
            for (int m = 0; m < 3; m++) {
                snprintf(metric, sizeof metric, "A_%s", am[m]);
                emit_num(&o, NULL, asub[s], metric, r->fig[RPT_T_A_R + 3 * s + m]);
            }
        for (int s = 0; s < 3; s++) {
            emit_num(&o, NULL, bsub[s], "B_sentence_f1", r->fig[RPT_T_B_SENT + s]);
            emit_num(&o, NULL, bsub[s], "B_corpus_f1", r->fig[RPT_T_B_CORP + s]);
        }
    }
    for (size_t k = 0; k < r->n_bins; k++) {
        const struct rpt_len_bin *bin = &r->bins[k];
        char sub[32];
        if (!isnan(bin->hi)) snprintf(sub, sizeof sub, "len%.0f-%.0f", bin->lo, bin->hi);
        else snprintf(sub, sizeof sub, "len%.0f+", bin->lo);
        emit_num(&o, NULL, sub, "B_sentence_f1", bin->f1);
        o.v[C_SUBSET] = sub;
        emit_int(&o, NULL, sub, "n_sentences", bin->n);
    }
    emit_int(&o, NULL, NULL, "n_sentences", r->n);
    sp_buf_free(&o.enc);
}

static void emit_int(struct obs *o, const char *split, const char *subset, const char *metric, long v)
{
    json_t *j = v < 0 ? json_null() : json_integer(v);
    emit(o, split, subset, metric, NULL, NULL, j);
    json_decref(j);
}

/* one row per aggregate and statistic: kind "aggregate", run = the encoder label, no seed */
static void csv_aggregate(FILE *f, const struct rpt_row *a)
{
    struct obs o = { .f = f };
    o.v[C_KIND] = "aggregate"; o.v[C_RUN] = a->encoder;
    set_encoder(&o, a->encoder);
    o.v[C_TASK] = a->task; o.v[C_CLF] = a->method;
    emit_int(&o, "test", NULL, "n", a->n);
    emit_int(&o, NULL, NULL, "n_seeds", a->n_seeds);
    emit_int(&o, "test", NULL, "small_test", !!(a->flags & RPT_F_SMALL));
    emit_num(&o, "test", NULL, "accuracy_mean", a->value);
    emit_num(&o, "test", NULL, "accuracy_sd", a->sd);
    emit_num(&o, "test", NULL, "accuracy_ci_lo", a->lo);
    emit_num(&o, "test", NULL, "accuracy_ci_hi", a->hi);
    if (!(a->flags & RPT_F_NOCI)) emit_int(&o, "test", NULL, "wide_ci", !!(a->flags & RPT_F_WIDE));
    emit_num(&o, "dev", NULL, "accuracy_mean", a->dev);
    emit_num(&o, "test", NULL, "majority_accuracy_mean", a->base.majority);
    emit_num(&o, "test", NULL, "length_accuracy_mean", a->base.length);
    emit_num(&o, "test", NULL, "control_accuracy_mean", a->base.control);
    emit_num(&o, "test", NULL, "selectivity_mean", a->base.selectivity);
    sp_buf_free(&o.enc);
}

/* kind "comparison": run = "A vs B", metrics diff, lo, hi, p, mdd80 */
static void csv_comparison(FILE *f, const struct rpt_cmp *c)
{
    struct sp_buf who = { 0 };
    sp_buf_printf(&who, "%s vs %s", c->a, c->b);
    struct obs o = { .f = f };
    o.v[C_KIND] = "comparison"; o.v[C_RUN] = who.p; o.v[C_TASK] = c->task; o.v[C_CLF] = c->classifier;
    const double v[] = { c->delta, c->lo, c->hi, c->p, c->p_floor, c->se, c->mdd80 };
    static const char *const name[] = { "accuracy_diff", "accuracy_diff_ci_lo", "accuracy_diff_ci_hi", "p", "p_floor",
                                        "accuracy_diff_se", "mdd80" };
    emit_int(&o, "test", NULL, "n", c->n_test);
    for (int i = 0; i < 7; i++) emit_num(&o, "test", NULL, name[i], v[i]);
    sp_buf_free(&who);
    sp_buf_free(&o.enc);
}

/* kind "skipped_task": a task without results (the probing protocol cannot run on it, a job skipped
 * its encodes and probes): task = its name, metric "reason", value = why */
static void csv_skipped(FILE *f, const char *name, json_t *why)
{
    const char *v[C_N] = { 0 };
    v[C_KIND] = "skipped_task"; v[C_TASK] = name; v[C_METRIC] = "reason";
    v[C_VALUE] = json_string_value(why) ? json_string_value(why) : "";
    csv_row(f, v);
}

static void csv_out(FILE *f, const struct coll *c)
{
    csv_row(f, csv_header);
    size_t i;
    json_t *row;
    for (i = 0; i < c->rows.n; i++)
        if (rpt_is_agg(&c->rows.v[i])) csv_aggregate(f, &c->rows.v[i]);
    for (i = 0; i < c->rows.n_cmp; i++) csv_comparison(f, &c->rows.cmp[i]);
    for (i = 0; i < c->rows.n; i++)
        if (is_result(&c->rows.v[i])) csv_probe(f, &c->rows.v[i]);
    for (i = 0; i < c->rows.n; i++)
        if (!rpt_is_probe(&c->rows.v[i])) csv_tree(f, &c->rows.v[i]);
    const char *name;
    json_object_foreach(c->unfit, name, row) csv_skipped(f, name, row);
}


/* ---- the stage ---- */

static void json_out(FILE *f, const struct coll *c)
{
    json_t *o = json_object();
    json_object_set(o, "aggregates", c->aggs);
    if (c->cmp) json_object_set(o, "comparisons", c->cmp);
    json_object_set(o, "probe_results", c->probes);
    json_object_set(o, "tree_evals", c->trees);
    if (json_object_size(c->unfit)) json_object_set(o, "skipped_tasks", c->unfit);   /* {"Tense": "why"} */
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (s) { fputs(s, f); fputc('\n', f); free(s); }
    json_decref(o);
}

/* " --run a,b --task T ...": the filters as given, for messages. */
static void filters_text(char *out, size_t n, const struct rpt_opts *o)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < o->run.n && len < n; i++) len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "," : " --run ", o->run.v[i]);
    for (int i = 0; i < o->task.n && len < n; i++) len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "," : " --task ", o->task.v[i]);
    const char *names[3] = { "classifier", "method", "corpus" }, *vals[3] = { o->classifier, o->method, o->corpus };
    for (int i = 0; i < 3 && len < n; i++)
        if (vals[i]) len += (size_t)snprintf(out + len, n - len, " --%s %s", names[i], vals[i]);
}

/* Every --run must name a run of the store: the first that does not, with the nearest names, in
 * ctx->err (SP_EPARSE); the rows of the other filters are reported all the same. */
static int check_runs(struct stg_ctx *ctx, struct st_db *db, const struct rpt_opts *o)
{
    int rc = SP_OK;
    for (int i = 0; rc == SP_OK && i < o->run.n; i++) rc = stg_known_name(ctx, db, o->db, STG_NAME_RUN, o->run.v[i]);
    return rc;
}

/* --figure-formats, "auto" resolved */
static int figure_formats(struct stg_ctx *ctx, const struct rpt_opts *o, int *formats)
{
    const char *list = o->figure_formats && strcmp(o->figure_formats, "auto") ? o->figure_formats
                     : rpt_figures_can_render() ? "svg,pdf,png" : "svg";
    return rpt_figures_parse(list, formats, ctx->err, sizeof ctx->err);
}

static int write_report(struct stg_ctx *ctx, struct st_db *db, FILE *f, const struct rpt_opts *o,
                        const struct coll *c, int filtered)
{
    struct rpt_figures fig = { .dir = o->figures };
    struct rpt_data d = { o->db, &c->rows, o->figures ? &fig : NULL, c->unfit };
    int rc = SP_OK;
    if (o->figures && (rc = figure_formats(ctx, o, &fig.formats))) return rc;
    if (o->format == RPT_HTML) {
        rc = rpt_html(f, db, &d, ctx->err, sizeof ctx->err);
    } else if (o->figures) {
        /* the figures are the page's charts: the page is drawn for them, and dropped */
        FILE *null = fopen("/dev/null", "w");
        if (!null) return stg_fail(ctx, SP_EIO, "/dev/null: cannot open");
        rc = rpt_html(null, db, &d, ctx->err, sizeof ctx->err);
        fclose(null);
    }
    if (rc == SP_OK && fig.rc) return stg_fail(ctx, fig.rc, "--figures: %s", fig.err);
    if (rc == SP_OK && o->figures)
        sp_log(ctx->log, SP_LOG_INFO, "report: %d figure%s in %s", fig.n, fig.n == 1 ? "" : "s", o->figures);
    if (rc != SP_OK || o->format == RPT_HTML) return rc;
    if (o->format == RPT_LATEX) rpt_latex(f, o->db, &c->rows, c->unfit);
    else if (o->format == RPT_MD) rpt_md(f, o->db, &c->rows, c->unfit);
    else if (o->format == RPT_JSON) json_out(f, c);
    else if (o->format == RPT_CSV) csv_out(f, c);
    else text_out(f, c, o->db, filtered);
    return SP_OK;
}

static int report_rows(struct stg_ctx *ctx, struct st_db *db, const struct rpt_opts *o, struct coll *c)
{
    int rc = collect(ctx, db, o, c);
    if (rc != SP_OK) return rc;
    rpt_table_from(&c->rows, c->probes, c->trees, NULL, &c->aggs);
    struct stg_ctx uc = *ctx;   /* a store without the task tables (an old one) reports no skipped tasks */
    if (stg_probe_unfit_tasks(&uc, db, &c->unfit) == SP_OK && o->task.n) {
        const char *name;
        json_t *why;
        void *tmp;
        json_object_foreach_safe(c->unfit, tmp, name, why) {
            int keep = 0;
            for (int k = 0; k < o->task.n && !keep; k++) keep = !strcmp(o->task.v[k], name);
            if (!keep) json_object_del(c->unfit, name);
        }
    }
    for (int k = 0; k + 1 < o->compare.n; k += 2) {   /* pairs, in the order given: one table each */
        if (!rpt_compare(&c->rows, o->compare.v[k], o->compare.v[k + 1]))
            return stg_fail(ctx, SP_EPARSE, "--compare %s,%s: no task and classifier has results of both (encoders are run "
                            "names less their -TASK suffix, or shell patterns matching them)", o->compare.v[k],
                            o->compare.v[k + 1]);
    }
    if (o->compare.n) c->cmp = rpt_cmp_json(&c->rows);   /* for --format json */
    char bad_run[SP_ERRLEN] = "";
    if (check_runs(ctx, db, o) != SP_OK) snprintf(bad_run, sizeof bad_run, "%s", ctx->err);
    size_t total = json_array_size(c->probes) + json_array_size(c->trees);
    int filtered = o->run.n || o->task.n || o->classifier || o->method || o->corpus;
    if (!total && filtered && o->out) {    /* most likely a misspelt name: the caller keeps its file */
        char flt[1024];
        filters_text(flt, sizeof flt, o);
        return stg_fail(ctx, SP_EPARSE, "%s: no probe results or tree evaluations match%s (nothing written)%s%s", o->db,
                        flt, bad_run[0] ? "; " : "", bad_run);
    }
    if (bad_run[0] && o->out) return stg_fail(ctx, SP_EPARSE, "%s (nothing written)", bad_run);
    if ((rc = write_report(ctx, db, o->f, o, c, filtered)) != SP_OK) return rc;
    if (fflush(o->f) != 0 || ferror(o->f)) return stg_fail(ctx, SP_EIO, "%s: write error", o->out ? o->out : "stdout");
    if (!total && o->format != RPT_TEXT)
        sp_log(ctx->log, SP_LOG_WARN, "%s: no probe results or tree evaluations match", o->db);
    if (bad_run[0]) return stg_fail(ctx, SP_EPARSE, "%s", bad_run);   /* an empty report of a typo is still an error */
    return SP_OK;
}

int rpt_check(struct stg_ctx *ctx, const struct rpt_opts *o)
{
    if (!o->db) return stg_fail(ctx, SP_EUSAGE, "--db is required");
    if (o->compare.n % 2)
        return stg_fail(ctx, SP_EUSAGE, "--compare: expected pairs of encoders or runs (A,B[,C,D...]), got %d name%s",
                        o->compare.n, o->compare.n == 1 ? "" : "s");
    int formats;
    if (o->figure_formats && strcmp(o->figure_formats, "auto") && figure_formats(ctx, o, &formats)) return SP_EUSAGE;
    if (o->figure_formats && strcmp(o->figure_formats, "auto") && !o->figures)
        return stg_fail(ctx, SP_EUSAGE, "--figure-formats needs --figures DIR");
    return SP_OK;
}

int rpt_report(struct stg_ctx *ctx, const struct rpt_opts *o, struct rpt_result *r)
{
    memset(r, 0, sizeof *r);
    int rc0 = rpt_check(ctx, o);
    if (rc0) return rc0;
    if (!o->f) return stg_fail(ctx, SP_EUSAGE, "no output stream");
    double t0 = sp_now();
    struct st_db *db = NULL;
    int rc = st_open(o->db, ST_OPEN_READONLY, &db, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) return rc == SP_EUSAGE ? SP_ESTORE : rc;
    struct coll c = { .probes = json_array(), .trees = json_array(), .log = ctx->log };
    rc = report_rows(ctx, db, o, &c);
    r->n_probe = json_array_size(c.probes);
    r->n_tree = json_array_size(c.trees);
    json_decref(c.probes);
    json_decref(c.trees);
    json_decref(c.aggs);
    json_decref(c.cmp);
    json_decref(c.unfit);
    rpt_table_free(&c.rows);
    st_close(db);
    /* the time only under --verbose: two runs of one report say the same (t0063 compares them) */
    if (rc == SP_OK && sp_log_enabled(ctx->log, SP_LOG_DEBUG))
        sp_log(ctx->log, SP_LOG_DEBUG, "report: %zu probe results, %zu tree evaluations in %.2fs", r->n_probe,
               r->n_tree, sp_now() - t0);
    else if (rc == SP_OK)
        sp_log(ctx->log, SP_LOG_INFO, "report: %zu probe results, %zu tree evaluations", r->n_probe, r->n_tree);
    return rc;
}

int rpt_rows(struct stg_ctx *ctx, const char *db_path, json_t **probes, json_t **trees)
{
    *probes = *trees = NULL;
    struct st_db *db = NULL;
    int rc = st_open(db_path, ST_OPEN_READONLY, &db, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) return rc == SP_EUSAGE ? SP_ESTORE : rc;
    struct rpt_opts o = { .db = db_path };
    struct coll c = { .probes = json_array(), .trees = json_array(), .log = ctx->log };
    rc = collect(ctx, db, &o, &c);
    st_close(db);
    if (rc != SP_OK) { json_decref(c.probes); json_decref(c.trees); return rc; }
    *probes = c.probes;
    *trees = c.trees;
    return SP_OK;
}

int rpt_write(struct stg_ctx *ctx, struct rpt_opts *o, struct rpt_result *r, char *written,
                     size_t written_len)
{
    struct sp_out out = { 0 };
    char dest[4096];
    int crc = rpt_check(ctx, o);   /* before the folder is made: a refused report leaves nothing */
    if (crc) return crc;
    o->f = stdout;
    snprintf(written, written_len, "stdout");
    int made_dir = 0;   /* the page's folder made here: removed again when the report fails (when empty) */
    if (o->out) {
        if (o->format == RPT_HTML) {
            struct stat dst;
            made_dir = stat(o->out, &dst) != 0;
            if (sp_mkdirs(o->out, ctx->err, sizeof ctx->err)) return SP_EIO;
            snprintf(dest, sizeof dest, "%s/report.html", o->out);
        } else {
            snprintf(dest, sizeof dest, "%s", o->out);
        }
        int orc = sp_out_open(&out, dest, ctx->err, sizeof ctx->err);
        if (orc) { if (made_dir) rmdir(o->out); return orc; }
        o->f = out.f;
        snprintf(written, written_len, "%s", dest);
    }
    int rc = rpt_report(ctx, o, r);
    if (o->out && rc == SP_OK) rc = sp_out_commit(&out, ctx->err, sizeof ctx->err) ? SP_EIO : SP_OK;
    else if (o->out) sp_out_abort(&out);
    if (rc != SP_OK && made_dir) rmdir(o->out);
    return rc;
}
