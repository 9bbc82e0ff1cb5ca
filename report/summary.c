/* report/summary.c — the run's closing table (see report/summary.h). */
#include "report/summary.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/agg.h"
#include "stages/probe.h"

#define num rpt_jpath_num
#define str rpt_jpath_str

struct line {
    char kind[16], task[160], best[200], metric[16], base[400];
    double score;
    long n;                        /* -1: unknown */
    int small;
};

struct lines { struct line *v; int n, cap; };

static struct line *add(struct lines *l)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = sp_xrealloc(l->v, sizeof *l->v * (size_t)l->cap);
    }
    struct line *x = &l->v[l->n++];
    memset(x, 0, sizeof *x);
    x->n = -1;
    x->score = NAN;
    return x;
}

static void baseline_add(struct line *x, const char *name, double v, const char *fmt)
{
    if (isnan(v)) return;
    size_t k = strlen(x->base);
    char val[64];
    snprintf(val, sizeof val, fmt, v);
    snprintf(x->base + k, sizeof x->base - k, "%s%s %s", k ? ", " : "", name, val);
}

static int is_token(json_t *a) { return !strncmp(str(a, "task"), "token:", 6); }

/* the mean of result.baselines.control.acc over the probe rows of (label, task, classifier) */
static double control_acc(json_t *probes, const char *label, const char *task, const char *clf)
{
    double s = 0;
    int n = 0;
    size_t i;
    json_t *row;
    struct sp_buf b = { 0 };
    json_array_foreach(probes, i, row) {
        if (strcmp(str(row, "task"), task) || strcmp(str(row, "classifier"), clf)) continue;
        if (strcmp(rpt_encoder_label(row, &b), label)) continue;
        double v = num(json_object_get(row, "result"), "baselines.control.acc");
        if (!isnan(v)) { s += v; n++; }
    }
    sp_buf_free(&b);
    return n ? s / n : NAN;
}

/* SentEval-style tasks (token = 0) or token probes (token = 1): per task (and classifier where the
 * store has several), the aggregate of the highest mean test accuracy */
static void probe_lines(json_t *probes, json_t *aggs, int token, struct lines *out)
{
    size_t i, j;
    json_t *a, *b;
    const char *clf0 = NULL;
    int several = 0;
    json_array_foreach(aggs, i, a) {
        if (is_token(a) != token) continue;
        if (!clf0) clf0 = str(a, "classifier");
        else if (strcmp(clf0, str(a, "classifier"))) several = 1;
    }
    json_t *seen = json_object();
    json_array_foreach(aggs, i, a) {
        if (is_token(a) != token) continue;
        const char *task = str(a, "task"), *clf = str(a, "classifier");
        char key[400];
        snprintf(key, sizeof key, "%s\t%s", task, several ? clf : "");
        if (json_object_get(seen, key)) continue;
        json_object_set_new(seen, key, json_true());
        json_t *best = NULL;
        json_array_foreach(aggs, j, b) {
            if (strcmp(str(b, "task"), task) || (several && strcmp(str(b, "classifier"), clf))) continue;
            double v = num(b, "test_acc.mean");
            if (!isnan(v) && (!best || v > num(best, "test_acc.mean"))) best = b;
        }
        if (!best) continue;
        struct line *x = add(out);
        snprintf(x->kind, sizeof x->kind, "%s", token ? "token" : "task");
        snprintf(x->task, sizeof x->task, "%s%s%s", token ? task + 6 : task, several ? "/" : "", several ? str(best, "classifier") : "");
        snprintf(x->best, sizeof x->best, "%s", str(best, "encoder"));
        snprintf(x->metric, sizeof x->metric, "acc");
        x->score = num(best, "test_acc.mean");
        double n = num(best, "n_test");
        x->n = isnan(n) ? -1 : (long)n;
        x->small = json_is_true(json_object_get(best, "small_test"));
        if (!token) {
            baseline_add(x, "majority", num(best, "majority_acc.mean"), "%.2f");
            baseline_add(x, "length", num(best, "length_acc.mean"), "%.2f");
        }
        baseline_add(x, "control", control_acc(probes, str(best, "encoder"), task, str(best, "classifier")), "%.2f");
        baseline_add(x, "selectivity", num(best, "control_selectivity.mean"), "%+.2f");
    }
    json_decref(seen);
}

static int is_sp(json_t *row) { return !strncmp(str(row, "method"), "structprobe:", 12); }
static int is_dep(json_t *row) { return json_object_get(json_object_get(row, "result"), "uas") != NULL; }

/* a tree baseline's name ("right", "dependency:baseline:left": "left"), or NULL for trees of an
 * encoder (attention of a run or of a file) */
static const char *baseline_name(json_t *row)
{
    static const char *const names[] = { "right", "left", "random", "adjacent", "gold" };
    const char *m = str(row, "method"), *c = strrchr(m, ':'), *last = c ? c + 1 : m;
    if (c && !strstr(m, ":baseline:")) return NULL;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(last, names[i])) return last;
    return NULL;
}

static double tree_score(json_t *row)
{
    json_t *res = json_object_get(row, "result");
    return is_dep(row) ? num(res, "uas") : num(res, "protocol_a.all.fmeasure");
}

static long n_sentences(json_t *row)
{
    json_t *n = json_object_get(json_object_get(row, "result"), "n_sentences");
    return json_is_integer(n) ? (long)json_integer_value(n) : -1;
}

/* a contender's name: its run, or its method when it has no run or shares the run with another */
static void contender_label(json_t *trees, json_t *row, int (*same)(json_t *, json_t *), char *out, size_t n)
{
    const char *run = json_string_value(json_object_get(row, "run"));
    size_t i;
    json_t *o;
    int dup = 0;
    json_array_foreach(trees, i, o) {
        const char *r2 = json_string_value(json_object_get(o, "run"));
        if (o != row && r2 && run && !strcmp(r2, run) && same(o, row)) dup = 1;
    }
    const char *m = str(row, "method");
    if (!run && !strncmp(m, "structprobe:trained:run=", 24)) run = m + 24;   /* a trained probe's row names its run there */
    snprintf(out, n, "%s", run && !dup ? run : m);
}

static int same_sp(json_t *a, json_t *b)
{
    return is_sp(a) && is_sp(b) && !strcmp(str(a, "corpus"), str(b, "corpus")) && strcmp(str(a, "method"), "structprobe:linear");
}

static int same_tree(json_t *a, json_t *b)
{
    return !is_sp(a) && !is_sp(b) && is_dep(a) == is_dep(b) && !strcmp(str(a, "corpus"), str(b, "corpus"));
}

/* structural probes per corpus: the trained probe of the highest UUAS */
static void sp_lines(json_t *trees, struct lines *out)
{
    size_t i, j;
    json_t *row, *o;
    json_t *seen = json_object();
    json_array_foreach(trees, i, row) {
        if (!is_sp(row) || !strcmp(str(row, "method"), "structprobe:linear")) continue;
        const char *corpus = str(row, "corpus");
        if (json_object_get(seen, corpus)) continue;
        json_object_set_new(seen, corpus, json_true());
        json_t *best = NULL, *linear = NULL;
        json_array_foreach(trees, j, o) {
            if (!is_sp(o) || strcmp(str(o, "corpus"), corpus)) continue;
            if (!strcmp(str(o, "method"), "structprobe:linear")) { if (!linear) linear = o; continue; }
            double v = num(json_object_get(o, "result"), "uuas");
            if (!isnan(v) && (!best || v > num(json_object_get(best, "result"), "uuas"))) best = o;
        }
        if (!best) continue;
        json_t *res = json_object_get(best, "result");
        struct line *x = add(out);
        snprintf(x->kind, sizeof x->kind, "structprobe");
        snprintf(x->task, sizeof x->task, "%s", *corpus ? corpus : "-");
        contender_label(trees, best, same_sp, x->best, sizeof x->best);
        snprintf(x->metric, sizeof x->metric, "UUAS");
        x->score = num(res, "uuas");
        x->n = n_sentences(best);
        x->small = x->n >= 0 && x->n < RPT_SMALL_TEST;
        /* the linear baseline on the same test sentences, else the corpus's linear row */
        double lin = num(res, "linear_baseline.uuas");
        if (isnan(lin) && linear) lin = num(json_object_get(linear, "result"), "uuas");
        baseline_add(x, "linear", lin, "%.2f");
        baseline_add(x, "DSpr", num(res, "dspr"), "%.4f");
        baseline_add(x, "root-acc", num(res, "root_acc"), "%.2f");
    }
    json_decref(seen);
}

/* trees from attention per corpus and kind: the highest UAS (dependency) or F1 (constituency);
 * against the baselines of the same corpus and kind (right, left, random, adjacent; not gold) */
static void tree_lines(json_t *trees, struct lines *out)
{
    size_t i, j;
    json_t *row, *o;
    json_t *seen = json_object();
    json_array_foreach(trees, i, row) {
        if (is_sp(row) || baseline_name(row)) continue;
        char key[400];
        snprintf(key, sizeof key, "%s/%s", str(row, "corpus"), is_dep(row) ? "dep" : "const");
        if (json_object_get(seen, key)) continue;
        json_object_set_new(seen, key, json_true());
        json_t *best = NULL;
        json_array_foreach(trees, j, o) {
            if (!same_tree(o, row) || baseline_name(o)) continue;
            double v = tree_score(o);
            if (!isnan(v) && (!best || v > tree_score(best))) best = o;
        }
        if (!best) continue;
        struct line *x = add(out);
        snprintf(x->kind, sizeof x->kind, "trees");
        snprintf(x->task, sizeof x->task, "%s", key);
        contender_label(trees, best, same_tree, x->best, sizeof x->best);
        snprintf(x->metric, sizeof x->metric, "%s", is_dep(best) ? "UAS" : "F1");
        x->score = tree_score(best);
        x->n = n_sentences(best);
        x->small = x->n >= 0 && x->n < RPT_SMALL_TEST;
        /* a baseline by its name ("dependency:baseline:right" is "right"); one without a directed
         * score (adjacent: undirected edges) against the best's UUAS of its MST */
        json_array_foreach(trees, j, o) {
            const char *bn = baseline_name(o);
            if (!same_tree(o, row) || !bn || !strcmp(bn, "gold")) continue;
            double v = tree_score(o), mst = num(json_object_get(o, "result"), "uuas_mst");
            if (!isnan(v)) baseline_add(x, bn, v, "%.2f");
            else if (!isnan(mst)) {
                char name[160];
                snprintf(name, sizeof name, "%s UUAS-MST", bn);
                baseline_add(x, name, mst, "%.2f");
                baseline_add(x, "best's UUAS-MST", num(json_object_get(best, "result"), "uuas_mst"), "%.2f");
            }
        }
    }
    json_decref(seen);
}

/* a field as the text report writes a name (rpt_text_escape): one line per task */
static void escape_field(char *s, size_t n)
{
    char *e = rpt_text_escape(s);
    if (e) snprintf(s, n, "%s", e);
    free(e);
}

static int width(const struct lines *l, size_t off, int min)
{
    int w = min;
    for (int i = 0; i < l->n; i++) {
        int k = (int)strlen((const char *)&l->v[i] + off);
        if (k > w) w = k;
    }
    return w;
}

int rpt_summary(struct stg_ctx *ctx, const char *db, FILE *f, int *n_lines)
{
    *n_lines = 0;
    json_t *probes, *trees;
    int rc = rpt_rows(ctx, db, &probes, &trees);
    if (rc != SP_OK) return rc;
    json_t *aggs = rpt_aggregate(probes);
    struct lines l = { 0 };
    probe_lines(probes, aggs, 0, &l);
    probe_lines(probes, aggs, 1, &l);
    sp_lines(trees, &l);
    tree_lines(trees, &l);
    for (int i = 0; i < l.n; i++) {
        escape_field(l.v[i].task, sizeof l.v[i].task);
        escape_field(l.v[i].best, sizeof l.v[i].best);
        escape_field(l.v[i].base, sizeof l.v[i].base);
    }
    if (l.n) {
        int wk = width(&l, offsetof(struct line, kind), 4), wt = width(&l, offsetof(struct line, task), 4),
            wb = width(&l, offsetof(struct line, best), 4), wm = width(&l, offsetof(struct line, metric), 6), small = 0;
        fprintf(f, "summary: the best encoder or layer per task on test (mean over seeds), against its baselines\n");
        fprintf(f, "%-*s  %-*s  %-*s  %-*s  %6s  %7s  %s\n", wk, "kind", wt, "task", wb, "best", wm, "metric", "score", "n",
                "baselines");
        for (int i = 0; i < l.n; i++) {
            struct line *x = &l.v[i];
            char n[32], sc[32];
            if (x->n >= 0) snprintf(n, sizeof n, "%ld%s", x->n, x->small ? "!" : "");
            else snprintf(n, sizeof n, "-");
            snprintf(sc, sizeof sc, isnan(x->score) ? "-" : "%.2f", x->score);
            fprintf(f, "%-*s  %-*s  %-*s  %-*s  %6s  %7s  %s\n", wk, x->kind, wt, x->task, wb, x->best, wm, x->metric, sc, n,
                    *x->base ? x->base : "-");
            small |= x->small;
        }
        *n_lines = l.n + 2;
        if (small) {
            fprintf(f, "! fewer than %d test items (sentences for structprobe and trees): too few to tell a 10-point "
                       "difference from chance; not a finding\n", RPT_SMALL_TEST);
            ++*n_lines;
        }
    }
    json_t *unfit = NULL;   /* the tasks a job skipped, and why */
    struct stg_ctx uc = *ctx;
    if (stg_probe_unfit_tasks_at(&uc, db, &unfit) == SP_OK) {
        const char *name;
        json_t *why;
        json_object_foreach(unfit, name, why) {
            const char *w = json_string_value(why) ? json_string_value(why) : "";
            char *en = rpt_text_escape(name), *ew = rpt_text_escape(w);   /* one task, one line */
            fprintf(f, "task %s: skipped: %s\n", en ? en : name, ew ? ew : w);
            free(en);
            free(ew);
            ++*n_lines;
        }
    }
    json_decref(unfit);
    free(l.v);
    json_decref(aggs);
    json_decref(probes);
    json_decref(trees);
    return SP_OK;
}
