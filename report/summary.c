/* report/summary.c — the run's closing table (see report/summary.h). */
#include "report/summary.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/agg.h"
#include "report/rows.h"

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

/* SentEval-style tasks (RPT_K_PROBE) or token probes (RPT_K_TOKEN): per task (and classifier where
 * the store has several), the aggregate of the highest mean test accuracy */
static void probe_lines(const struct rpt_table *t, int kind, struct lines *out)
{
    const char *clf0 = NULL;
    int several = 0, token = kind == RPT_K_TOKEN;
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *a = &t->v[i];
        if (a->kind != kind || (a->flags & RPT_F_SEED)) continue;
        if (!clf0) clf0 = a->method;
        else if (strcmp(clf0, a->method)) several = 1;
    }
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *a = &t->v[i], *best = NULL;
        if (a->kind != kind || (a->flags & RPT_F_SEED)) continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = t->v[j].kind == kind && !(t->v[j].flags & RPT_F_SEED) && !strcmp(t->v[j].task, a->task) &&
                   (!several || !strcmp(t->v[j].method, a->method));
        if (seen) continue;
        for (size_t j = 0; j < t->n; j++) {
            const struct rpt_row *b = &t->v[j];
            if (b->kind != kind || (b->flags & RPT_F_SEED) || strcmp(b->task, a->task) || (several && strcmp(b->method, a->method)))
                continue;
            if (!isnan(b->value) && (!best || b->value > best->value)) best = b;
        }
        if (!best) continue;
        struct line *x = add(out);
        snprintf(x->kind, sizeof x->kind, "%s", token ? "token" : "task");
        snprintf(x->task, sizeof x->task, "%s%s%s", token ? a->task + 6 : a->task, several ? "/" : "", several ? best->method : "");
        snprintf(x->best, sizeof x->best, "%s", best->encoder);
        snprintf(x->metric, sizeof x->metric, "acc");
        x->score = best->value;
        x->n = best->n;
        x->small = !!(best->flags & RPT_F_SMALL);
        if (!token) {
            baseline_add(x, "majority", best->base.majority, "%.2f");
            baseline_add(x, "length", best->base.length, "%.2f");
        }
        baseline_add(x, "control", best->base.control, "%.2f");
        baseline_add(x, "selectivity", best->base.selectivity, "%+.2f");
    }
}

static int is_linear(const struct rpt_row *r) { return !strcmp(r->method, "structprobe:linear"); }

/* a contender's name: its run, or its method when it has no run or shares the run with another */
static void contender_label(const struct rpt_table *t, const struct rpt_row *row,
                            int (*same)(const struct rpt_row *, const struct rpt_row *), char *out, size_t n)
{
    const char *run = row->run;
    int dup = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *o = &t->v[i];
        if (o != row && o->run && run && !strcmp(o->run, run) && same(o, row)) dup = 1;
    }
    const char *m = row->method;
    if (!run && !strncmp(m, "structprobe:trained:run=", 24)) run = m + 24;   /* a trained probe's row names its run there */
    snprintf(out, n, "%s", run && !dup ? run : m);
}

static int same_sp(const struct rpt_row *a, const struct rpt_row *b)
{
    return a->kind == RPT_K_STRUCTPROBE && b->kind == RPT_K_STRUCTPROBE && !strcmp(a->corpus, b->corpus) && !is_linear(a);
}

static int same_tree(const struct rpt_row *a, const struct rpt_row *b)
{
    return (a->kind == RPT_K_DEP || a->kind == RPT_K_CONST) && a->kind == b->kind && !strcmp(a->corpus, b->corpus);
}

/* whether an earlier row than i is of the same group (same(.., row)) and passes keep */
static int seen_before(const struct rpt_table *t, size_t i, int (*same)(const struct rpt_row *, const struct rpt_row *),
                       int (*keep)(const struct rpt_row *))
{
    for (size_t j = 0; j < i; j++)
        if (keep(&t->v[j]) && same(&t->v[j], &t->v[i])) return 1;
    return 0;
}

static int sp_contender(const struct rpt_row *r) { return r->kind == RPT_K_STRUCTPROBE && !is_linear(r); }
static int tree_contender(const struct rpt_row *r) { return (r->kind == RPT_K_DEP || r->kind == RPT_K_CONST) && !r->baseline; }
static int same_corpus_sp(const struct rpt_row *a, const struct rpt_row *b) { return !strcmp(a->corpus, b->corpus); }

/* structural probes per corpus: the trained probe of the highest UUAS */
static void sp_lines(const struct rpt_table *t, struct lines *out)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *row = &t->v[i], *best = NULL, *linear = NULL;
        if (!sp_contender(row) || seen_before(t, i, same_corpus_sp, sp_contender)) continue;
        for (size_t j = 0; j < t->n; j++) {
            const struct rpt_row *o = &t->v[j];
            if (o->kind != RPT_K_STRUCTPROBE || strcmp(o->corpus, row->corpus)) continue;
            if (is_linear(o)) { if (!linear) linear = o; continue; }
            if (!isnan(o->value) && (!best || o->value > best->value)) best = o;
        }
        if (!best) continue;
        struct line *x = add(out);
        snprintf(x->kind, sizeof x->kind, "structprobe");
        snprintf(x->task, sizeof x->task, "%s", *row->corpus ? row->corpus : "-");
        contender_label(t, best, same_sp, x->best, sizeof x->best);
        snprintf(x->metric, sizeof x->metric, "UUAS");
        x->score = best->value;
        x->n = best->n;
        x->small = x->n >= 0 && x->n < RPT_SMALL_TEST;
        /* the linear baseline on the same test sentences, else the corpus's linear row */
        double lin = best->base.linear;
        if (isnan(lin) && linear) lin = linear->value;
        baseline_add(x, "linear", lin, "%.2f");
        baseline_add(x, "DSpr", best->dspr, "%.4f");
        baseline_add(x, "root-acc", best->root_acc, "%.2f");
    }
}

/* trees from attention per corpus and kind: the highest UAS (dependency) or F1 (constituency);
 * against the baselines of the same corpus and kind (right, left, random, adjacent; not gold) */
static void tree_lines(const struct rpt_table *t, struct lines *out)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *row = &t->v[i], *best = NULL;
        if (!tree_contender(row) || seen_before(t, i, same_tree, tree_contender)) continue;
        for (size_t j = 0; j < t->n; j++) {
            const struct rpt_row *o = &t->v[j];
            if (!same_tree(o, row) || o->baseline) continue;
            if (!isnan(o->value) && (!best || o->value > best->value)) best = o;
        }
        if (!best) continue;
        struct line *x = add(out);
        snprintf(x->kind, sizeof x->kind, "trees");
        snprintf(x->task, sizeof x->task, "%s/%s", row->corpus, row->task);
        contender_label(t, best, same_tree, x->best, sizeof x->best);
        snprintf(x->metric, sizeof x->metric, "%s", best->metric);
        x->score = best->value;
        x->n = best->n;
        x->small = x->n >= 0 && x->n < RPT_SMALL_TEST;
        /* a baseline by its name ("dependency:baseline:right" is "right"); one without a directed
         * score (adjacent: undirected edges) against the best's UUAS of its MST */
        for (size_t j = 0; j < t->n; j++) {
            const struct rpt_row *o = &t->v[j];
            if (!same_tree(o, row) || !o->baseline || !strcmp(o->baseline, "gold")) continue;
            if (!isnan(o->value)) baseline_add(x, o->baseline, o->value, "%.2f");
            else if (!isnan(o->base.uuas_mst)) {
                char name[160];
                snprintf(name, sizeof name, "%s UUAS-MST", o->baseline);
                baseline_add(x, name, o->base.uuas_mst, "%.2f");
                baseline_add(x, "best's UUAS-MST", best->base.uuas_mst, "%.2f");
            }
        }
    }
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
    struct rpt_table t;
    int rc = rpt_table_load(ctx, db, &t);
    if (rc != SP_OK) return rc;
    struct lines l = { 0 };
    probe_lines(&t, RPT_K_PROBE, &l);
    probe_lines(&t, RPT_K_TOKEN, &l);
    sp_lines(&t, &l);
    tree_lines(&t, &l);
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
    for (size_t i = 0; i < t.n_skipped; i++) {   /* the tasks a job skipped, and why */
        const char *name = t.skipped[i].task, *w = t.skipped[i].why;
        char *en = rpt_text_escape(name), *ew = rpt_text_escape(w);   /* one task, one line */
        fprintf(f, "task %s: skipped: %s\n", en ? en : name, ew ? ew : w);
        free(en);
        free(ew);
        ++*n_lines;
    }
    free(l.v);
    rpt_table_free(&t);
    return SP_OK;
}
