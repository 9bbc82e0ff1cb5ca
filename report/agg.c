/* report/agg.c — aggregation over seeds (see report/agg.h). */
#include "report/agg.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "probes/stats.h"
#include "report/rows.h"

/* the mean and sd of the numbers of v that are not NaN (*m, *sd: NAN where undefined); how many */
static int mean_sd(const double *v, size_t n, double *m, double *sd)
{
    int k = 0;
    double *w = sp_xmalloc(sizeof *w * (n ? n : 1));
    for (size_t i = 0; i < n; i++) if (!isnan(v[i])) w[k++] = v[i];
    *m = *sd = NAN;
    if (k) prb_mean_sd(w, k, m, sd);
    free(w);
    return k;
}

/* {"mean", "sd", "n"}, nulls where undefined */
static json_t *mean_sd_json(double m, double sd, int k)
{
    json_t *o = json_object();
    json_object_set_new(o, "mean", k ? json_real(m) : json_null());
    json_object_set_new(o, "sd", k && !isnan(sd) ? json_real(sd) : json_null());
    json_object_set_new(o, "n", json_integer(k));
    return o;
}

/* The members' per-item figures as num[s·N + i] and den[i] (the caller frees both); N, or -1 when
 * the members do not share one list of test item rows (or one member's sizes differ from
 * another's). rows0 (in/out) is the list to match. */
static long member_items(const struct rpt_row *const *m, size_t S, const char **rows0, double **num, double **den)
{
    *num = *den = NULL;
    for (size_t s = 0; s < S; s++) {
        if (m[s]->items.n <= 0) return -1;
        if (!*rows0) *rows0 = m[s]->items.rows;
        else if (strcmp(m[s]->items.rows, *rows0)) return -1;
    }
    if (!S) return -1;
    size_t N = (size_t)m[0]->items.n;
    *num = sp_xmalloc(sizeof **num * (S * N + 1));
    *den = sp_xmalloc(sizeof **den * (N + 1));
    memcpy(*den, m[0]->items.den, sizeof **den * N);
    for (size_t s = 0; s < S; s++) {
        int bad = (size_t)m[s]->items.n != N;
        for (size_t i = 0; !bad && i < N; i++) bad = m[s]->items.den[i] != (*den)[i];
        if (bad) { free(*num); free(*den); *num = *den = NULL; return -1; }
        memcpy(*num + s * N, m[s]->items.num, sizeof **num * N);
    }
    return (long)N;
}

/* The interval of one group (*iv): 1, or 0 when its members do not share their item rows. */
static int group_interval(const struct rpt_row *const *m, size_t S, struct prb_interval *iv)
{
    const char *rows0 = NULL;
    double *num = NULL, *den = NULL;
    long N = member_items(m, S, &rows0, &num, &den);
    int ok = N > 0 && prb_boot_ratio((int)S, (int)N, num, den, PRB_BOOT_B, PRB_BOOT_SEED, iv) == SP_OK;
    free(num);
    free(den);
    return ok;
}

static json_t *interval_json(const struct prb_interval *iv)
{
    json_t *o = json_object();
    json_object_set_new(o, "point", json_real(100 * iv->point));
    json_object_set_new(o, "lo", json_real(100 * iv->lo));
    json_object_set_new(o, "hi", json_real(100 * iv->hi));
    json_object_set_new(o, "wide_ci", json_boolean(iv->wide));
    json_object_set_new(o, "n_items", json_integer(iv->n_items));
    json_object_set_new(o, "B", json_integer(PRB_BOOT_B));
    json_object_set_new(o, "bootstrap_seed", json_integer(PRB_BOOT_SEED));
    json_object_set_new(o, "n_invalid", json_integer(iv->n_invalid));
    json_object_set_new(o, "resample_unit", json_string("sentence"));
    json_object_set_new(o, "prng", json_string("splitmix64"));
    return o;
}

/* a probe result with an accuracy: MDL probes' codelengths are listed apart (report.c) */
static int is_result(const struct rpt_row *r) { return rpt_is_probe(r) && (r->flags & RPT_F_SEED) && !rpt_is_mdl(r->method); }

/* (encoder, task, classifier), then the table's order */
static int by_group(const void *x, const void *y)
{
    const struct rpt_row *a = *(const struct rpt_row *const *)x, *b = *(const struct rpt_row *const *)y;
    int c = strcmp(a->encoder, b->encoder);
    if (!c) c = strcmp(a->task, b->task);
    if (!c) c = strcmp(a->method, b->method);
    return c ? c : (a > b) - (a < b);
}

struct group { const struct rpt_row **m; size_t n; };

static int by_first(const void *x, const void *y)
{
    const struct rpt_row *a = ((const struct group *)x)->m[0], *b = ((const struct group *)y)->m[0];
    return (a > b) - (a < b);
}

/* One group's aggregate row (*r) and its JSON form. */
static json_t *aggregate_one(const struct group *g, struct rpt_row *r)
{
    size_t S = g->n;
    const struct rpt_row *r0 = g->m[0];
    double *v = sp_xmalloc(sizeof *v * 6 * S), m[6], sd[6];
    int k[6];
    long n_test = -1;
    json_t *seeds = json_array();
    for (size_t s = 0; s < S; s++) {
        const struct rpt_row *x = g->m[s];
        const double f[6] = { x->value, x->dev, x->base.majority, x->base.length, x->base.control, x->base.selectivity };
        for (int q = 0; q < 6; q++) v[q * S + s] = f[q];
        json_array_append_new(seeds, json_integer(x->seed));
        if (x->n >= 0) n_test = x->n;
    }
    for (int q = 0; q < 6; q++) k[q] = mean_sd(v + q * S, S, &m[q], &sd[q]);
    free(v);
    struct prb_interval iv;
    int has_iv = group_interval(g->m, S, &iv);

    memset(r, 0, sizeof *r);
    r->kind = r0->kind;
    r->id = 0;
    r->seed = -1;
    r->corpus = "";
    r->vectors = r->partition = "";
    r->encoder = r0->encoder;
    r->layer = r0->layer;
    r->task = r0->task;
    r->method = r0->method;
    r->metric = "acc";
    r->value = m[0];
    r->sd = sd[0];
    r->dev = m[1];
    r->lo = has_iv ? 100 * iv.lo : NAN;
    r->hi = has_iv ? 100 * iv.hi : NAN;
    r->flags = has_iv ? (iv.wide ? RPT_F_WIDE : 0) : RPT_F_NOCI;
    r->dspr = r->root_acc = r->span_f1 = NAN;
    r->base = (struct rpt_baselines){ m[2], m[3], m[4], m[5], sd[5], NAN, NAN };
    r->n = n_test;
    if (n_test >= 0 && n_test < RPT_SMALL_TEST) r->flags |= RPT_F_SMALL;
    r->n_seeds = (int)S;
    r->items.n = -1;
    for (int q = 0; q < RPT_T_COUNT; q++) r->fig[q] = NAN;

    json_t *a = json_object();
    json_object_set_new(a, "encoder", json_string(r->encoder));
    json_object_set_new(a, "task", json_string(r->task));
    json_object_set_new(a, "classifier", json_string(r->method));
    json_object_set_new(a, "probe_kind", json_string(r->kind == RPT_K_TOKEN ? "token" : "sentence"));
    json_object_set_new(a, "n_seeds", json_integer((json_int_t)S));
    json_object_set_new(a, "seeds", seeds);
    json_object_set_new(a, "n_test", n_test >= 0 ? json_integer(n_test) : json_null());
    json_object_set_new(a, "small_test", json_boolean(n_test >= 0 && n_test < RPT_SMALL_TEST));
    json_t *test = mean_sd_json(m[0], sd[0], k[0]);
    json_object_set_new(test, "ci95", has_iv ? interval_json(&iv) : json_null());
    json_object_set_new(a, "test_acc", test);
    static const char *const names[] = { "dev_acc", "majority_acc", "length_acc", "control_acc", "control_selectivity" };
    for (int q = 1; q < 6; q++) json_object_set_new(a, names[q - 1], mean_sd_json(m[q], sd[q], k[q]));
    return a;
}

json_t *rpt_aggregate_rows(struct rpt_table *t)
{
    size_t n = 0, ng = 0;
    const struct rpt_row **p = sp_xmalloc(sizeof *p * (t->n + 1));
    for (size_t i = 0; i < t->n; i++)
        if (is_result(&t->v[i])) p[n++] = &t->v[i];
    qsort(p, n, sizeof *p, by_group);
    struct group *g = sp_xmalloc(sizeof *g * (n + 1));
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && !strcmp(p[j]->encoder, p[i]->encoder) && !strcmp(p[j]->task, p[i]->task) &&
                        !strcmp(p[j]->method, p[i]->method);
             j++)
            ;
        g[ng++] = (struct group){ p + i, j - i };
    }
    qsort(g, ng, sizeof *g, by_first);   /* first-appearance order */
    json_t *out = json_array();
    struct rpt_row *v = sp_xmalloc(sizeof *v * (ng + t->n + 1));
    for (size_t i = 0; i < ng; i++) json_array_append_new(out, aggregate_one(&g[i], &v[i]));
    if (t->n) memcpy(v + ng, t->v, sizeof *v * t->n);
    free(t->v);
    t->v = v;
    t->n += ng;
    free(g);
    free(p);
    return out;
}

/* The members of one side: results on (task, classifier) whose encoder label or run name is `who`,
 * or matches it as a shell pattern (fnmatch: "ms-san-trained-s*" pools the runs of several training
 * seeds into one side), into m (*n of them); the distinct labels matched into lab (*nl). */
static void side(const struct rpt_table *t, const char *who, const char *task, const char *clf, const struct rpt_row **m,
                 size_t *n, const char **lab, size_t *nl)
{
    *n = *nl = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *r = &t->v[i];
        if (!is_result(r) || (fnmatch(who, r->encoder, 0) && (!r->run || fnmatch(who, r->run, 0))) || strcmp(r->task, task) ||
            strcmp(r->method, clf))
            continue;
        m[(*n)++] = r;
        int seen = 0;
        for (size_t k = 0; k < *nl && !seen; k++) seen = !strcmp(lab[k], r->encoder);
        if (!seen) lab[(*nl)++] = r->encoder;
    }
}

/* a new array of n labels (NULL when n is 0) */
static const char **labels_copy(const char *const *lab, size_t n)
{
    const char **v = n ? sp_xmalloc(sizeof *v * n) : NULL;
    for (size_t i = 0; i < n; i++) v[i] = lab[i];
    return v;
}

size_t rpt_compare(struct rpt_table *t, const char *a, const char *b)
{
    size_t cap = t->n + 1, n_seen = 0, n0 = t->n_cmp;
    const struct rpt_row **ma = sp_xmalloc(sizeof *ma * cap), **mb = sp_xmalloc(sizeof *mb * cap),
                         **seen = sp_xmalloc(sizeof *seen * cap);
    const char **la = sp_xmalloc(sizeof *la * cap), **lb = sp_xmalloc(sizeof *lb * cap);
    a = rpt_table_keep(t, a);
    b = rpt_table_keep(t, b);
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *row = &t->v[i];
        if (!is_result(row)) continue;
        const char *task = row->task, *clf = row->method;
        int dup = 0;   /* whole names: two long task names cut alike would be one pair */
        for (size_t k = 0; k < n_seen && !dup; k++) dup = !strcmp(seen[k]->task, task) && !strcmp(seen[k]->method, clf);
        if (dup) continue;
        seen[n_seen++] = row;
        size_t na_, nb_, nla, nlb;
        side(t, a, task, clf, ma, &na_, la, &nla);
        side(t, b, task, clf, mb, &nb_, lb, &nlb);
        if (!na_ || !nb_) continue;
        t->cmp = sp_xrealloc(t->cmp, sizeof *t->cmp * (t->n_cmp + 1));
        struct rpt_cmp *c = &t->cmp[t->n_cmp++];
        *c = (struct rpt_cmp){ task, clf, a, b, labels_copy(la, nla), labels_copy(lb, nlb), nla, nlb, (int)na_, (int)nb_, NULL,
                               -1, -1, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
        const char *rows0 = NULL;
        double *na = NULL, *nb = NULL, *den = NULL, *denb = NULL;
        long Na = member_items(ma, na_, &rows0, &na, &den), Nb = Na >= 0 ? member_items(mb, nb_, &rows0, &nb, &denb) : -1;
        struct prb_comparison r;
        int same = Na > 0 && Nb == Na, overlap = 0;
        for (size_t x = 0; x < nla; x++)
            for (size_t y = 0; y < nlb; y++) overlap |= !strcmp(la[x], lb[y]);
        for (long k = 0; same && k < Na; k++) same = den[k] == denb[k];
        if (overlap) {
            c->error = "an encoder is on both sides: no paired comparison";
        } else if (same && prb_boot_paired((int)Na, den, (int)na_, na, (int)nb_, nb, PRB_BOOT_B, PRB_BOOT_SEED, &r) == SP_OK) {
            c->n_test = r.n_items;
            c->delta = 100 * r.delta;
            c->lo = 100 * r.lo;
            c->hi = 100 * r.hi;
            c->p = r.p;
            c->p_floor = r.p_floor > 0 ? r.p_floor : NAN;
            c->se = 100 * r.se;
            c->mdd80 = 100 * r.mdd80;
            c->n_invalid = r.n_invalid;
        } else {
            c->error = "the two were not scored on the same test items (or carry no per-item record): no paired comparison";
        }
        free(den); free(denb); free(na); free(nb);
    }
    free(ma); free(mb); free(seen); free(la); free(lb);
    return t->n_cmp - n0;
}

static json_t *labels_json(const char *const *lab, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_string(lab[i]));
    return a;
}

static json_t *real_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

json_t *rpt_cmp_json(const struct rpt_table *t)
{
    json_t *out = json_array();
    for (size_t i = 0; i < t->n_cmp; i++) {
        const struct rpt_cmp *x = &t->cmp[i];
        json_t *c = json_object();
        json_object_set_new(c, "task", json_string(x->task));
        json_object_set_new(c, "classifier", json_string(x->classifier));
        json_object_set_new(c, "a", json_string(x->a));
        json_object_set_new(c, "b", json_string(x->b));
        json_object_set_new(c, "encoders_a", labels_json(x->enc_a, x->n_enc_a));
        json_object_set_new(c, "encoders_b", labels_json(x->enc_b, x->n_enc_b));
        json_object_set_new(c, "n_seeds_a", json_integer(x->n_seeds_a));
        json_object_set_new(c, "n_seeds_b", json_integer(x->n_seeds_b));
        if (x->error) {
            json_object_set_new(c, "error", json_string(x->error));
        } else {
            json_object_set_new(c, "n_test", json_integer(x->n_test));
            json_object_set_new(c, "delta", json_real(x->delta));
            json_object_set_new(c, "lo", json_real(x->lo));
            json_object_set_new(c, "hi", json_real(x->hi));
            json_object_set_new(c, "p", json_real(x->p));
            json_object_set_new(c, "p_floor", real_or_null(x->p_floor));
            json_object_set_new(c, "se", real_or_null(x->se));
            json_object_set_new(c, "mdd80", real_or_null(x->mdd80));
            json_object_set_new(c, "B", json_integer(PRB_BOOT_B));
            json_object_set_new(c, "bootstrap_seed", json_integer(PRB_BOOT_SEED));
            json_object_set_new(c, "n_invalid", json_integer(x->n_invalid));
        }
        json_array_append_new(out, c);
    }
    return out;
}

size_t rpt_pair_end(const struct rpt_table *t, size_t i)
{
    size_t j = i;
    while (j < t->n_cmp && !strcmp(t->cmp[j].a, t->cmp[i].a) && !strcmp(t->cmp[j].b, t->cmp[i].b)) j++;
    return j;
}

const char *rpt_fmt_num(char *buf, size_t n, const char *fmt, double v)
{
    if (isnan(v)) { snprintf(buf, n, "–"); return buf; }
    snprintf(buf, n, fmt, v);
    /* "-0.0", "-0.00": a negative that rounds to zero prints as zero */
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)) memmove(buf, buf + 1, strlen(buf));
    return buf;
}
