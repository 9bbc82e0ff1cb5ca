/* report/agg.c — aggregation over seeds (see report/agg.h). */
#include "report/agg.h"
#include "report/rows.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "probes/stats.h"

json_t *rpt_jpath(json_t *j, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && j; k = strtok_r(NULL, ".", &save))
        j = json_is_object(j) ? json_object_get(j, k) : NULL;
    return j;
}

double rpt_jpath_num(json_t *j, const char *path)
{
    json_t *v = rpt_jpath(j, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *rpt_jpath_str(json_t *j, const char *path)
{
    const char *s = json_string_value(rpt_jpath(j, path));
    return s ? s : "";
}

#define str_of rpt_jpath_str
static double num_of(json_t *j) { return json_is_number(j) ? json_number_value(j) : NAN; }

const char *rpt_run_label(const char *run, const char *input, char *buf, size_t n)
{
    size_t lr = strlen(run), li = strlen(input);
    if (li && lr > li + 1 && run[lr - li - 1] == '-' && !strcmp(run + lr - li, input))
        snprintf(buf, n, "%.*s", (int)(lr - li - 1), run);
    else
        snprintf(buf, n, "%s", run);
    return buf;
}

const char *rpt_encoder_label(json_t *row, struct sp_buf *b)
{
    const char *run = json_string_value(json_object_get(row, "run")), *task = str_of(row, "task");
    if (!*task) task = str_of(row, "corpus");        /* a tree row: runs over a corpus are NAME-CORPUS */
    json_t *res = json_object_get(row, "result");
    const char *p = json_string_value(json_object_get(json_object_get(json_object_get(res, "manifest"), "vectors"), "path"));
    const char *whole = run ? run : p ? p : "vectors";
    b->len = 0;
    sp_buf_put(b, whole, strlen(whole) + 1);          /* the label is never longer than the run's name */
    if (run) rpt_run_label(run, task, b->p, b->len);
    b->len = strlen(b->p);
    return b->p;
}

/* mean and sd of the numbers of arr as a {"mean","sd"} object (nulls where undefined) */
static json_t *mean_sd_json(const double *v, int n)
{
    double m, sd;
    int k = 0;
    double *w = malloc(sizeof *w * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) if (!isnan(v[i])) w[k++] = v[i];
    json_t *o = json_object();
    if (k) {
        prb_mean_sd(w, k, &m, &sd);
        json_object_set_new(o, "mean", json_real(m));
        json_object_set_new(o, "sd", isnan(sd) ? json_null() : json_real(sd));
    } else {
        json_object_set_new(o, "mean", json_null());
        json_object_set_new(o, "sd", json_null());
    }
    json_object_set_new(o, "n", json_integer(k));
    free(w);
    return o;
}

static long member_items(json_t *members, json_t **rows0, double **num, double **den);

/* The interval of one group: every member must have the same item rows; NULL when they do not. */
static json_t *group_interval(json_t *members)
{
    size_t S = json_array_size(members);
    json_t *rows0 = NULL;
    double *num = NULL, *den = NULL;
    long N = member_items(members, &rows0, &num, &den);
    if (N <= 0) { free(num); free(den); return NULL; }
    struct prb_interval iv;
    json_t *o = NULL;
    if (prb_boot_ratio((int)S, (int)N, num, den, PRB_BOOT_B, PRB_BOOT_SEED, &iv) == SP_OK) {
        o = json_object();
        json_object_set_new(o, "point", json_real(100 * iv.point));
        json_object_set_new(o, "lo", json_real(100 * iv.lo));
        json_object_set_new(o, "hi", json_real(100 * iv.hi));
        json_object_set_new(o, "wide_ci", json_boolean(iv.wide));
        json_object_set_new(o, "n_items", json_integer(iv.n_items));
        json_object_set_new(o, "B", json_integer(PRB_BOOT_B));
        json_object_set_new(o, "bootstrap_seed", json_integer(PRB_BOOT_SEED));
        json_object_set_new(o, "n_invalid", json_integer(iv.n_invalid));
        json_object_set_new(o, "resample_unit", json_string("sentence"));
        json_object_set_new(o, "prng", json_string("splitmix64"));
    }
    free(num);
    free(den);
    return o;
}

json_t *rpt_aggregate(json_t *probes)
{
    json_t *groups = json_object(), *order = json_array();
    size_t i;
    json_t *row;
    struct sp_buf label = { 0 }, key = { 0 };
    json_array_foreach(probes, i, row) {
        if (rpt_is_mdl(str_of(row, "classifier"))) continue;   /* codelengths, not accuracies: listed apart */
        rpt_encoder_label(row, &label);
        key.len = 0;
        sp_buf_printf(&key, "%s\t%s\t%s", label.p, str_of(row, "task"), str_of(row, "classifier"));
        json_t *g = json_object_get(groups, key.p);
        if (!g) {
            g = json_object();
            json_object_set_new(g, "encoder", json_string(label.p));
            json_object_set_new(g, "task", json_string(str_of(row, "task")));
            json_object_set_new(g, "classifier", json_string(str_of(row, "classifier")));
            json_object_set_new(g, "members", json_array());
            json_object_set_new(groups, key.p, g);
            json_array_append_new(order, json_string(key.p));
        }
        json_array_append(json_object_get(g, "members"), row);
    }
    sp_buf_free(&label);
    sp_buf_free(&key);
    json_t *out = json_array(), *k;
    json_array_foreach(order, i, k) {
        json_t *g = json_object_get(groups, json_string_value(k)), *members = json_object_get(g, "members");
        size_t S = json_array_size(members), s;
        double *test = malloc(sizeof(double) * S), *dev = malloc(sizeof(double) * S), *maj = malloc(sizeof(double) * S),
               *sel = malloc(sizeof(double) * S), *len = malloc(sizeof(double) * S), *ctl = malloc(sizeof(double) * S);
        json_t *seeds = json_array(), *m;
        long n_test = -1;
        json_array_foreach(members, s, m) {
            json_t *res = json_object_get(m, "result"), *bl = json_object_get(res, "baselines");
            test[s] = num_of(json_object_get(m, "test_acc"));
            dev[s] = num_of(json_object_get(m, "dev_acc"));
            maj[s] = num_of(json_object_get(json_object_get(bl, "majority"), "acc"));
            sel[s] = num_of(json_object_get(json_object_get(bl, "control"), "selectivity"));
            ctl[s] = num_of(json_object_get(json_object_get(bl, "control"), "acc"));
            len[s] = num_of(json_object_get(json_object_get(bl, "length"), "acc"));
            json_array_append(seeds, json_object_get(m, "seed"));
            if (json_is_integer(json_object_get(res, "ntest"))) n_test = (long)json_integer_value(json_object_get(res, "ntest"));
        }
        json_t *a = json_object();
        json_object_set(a, "encoder", json_object_get(g, "encoder"));
        json_object_set(a, "task", json_object_get(g, "task"));
        json_object_set(a, "classifier", json_object_get(g, "classifier"));
        json_object_set_new(a, "probe_kind", json_string(strncmp(str_of(g, "task"), "token:", 6) ? "sentence" : "token"));
        json_object_set_new(a, "n_seeds", json_integer((json_int_t)S));
        json_object_set_new(a, "seeds", seeds);
        json_object_set_new(a, "n_test", n_test >= 0 ? json_integer(n_test) : json_null());
        json_object_set_new(a, "small_test", json_boolean(n_test >= 0 && n_test < RPT_SMALL_TEST));
        json_object_set_new(a, "test_acc", mean_sd_json(test, (int)S));
        json_t *iv = group_interval(members);
        json_object_set_new(json_object_get(a, "test_acc"), "ci95", iv ? iv : json_null());
        json_object_set_new(a, "dev_acc", mean_sd_json(dev, (int)S));
        json_object_set_new(a, "majority_acc", mean_sd_json(maj, (int)S));
        json_object_set_new(a, "length_acc", mean_sd_json(len, (int)S));
        json_object_set_new(a, "control_acc", mean_sd_json(ctl, (int)S));
        json_object_set_new(a, "control_selectivity", mean_sd_json(sel, (int)S));
        json_array_append_new(out, a);
        free(test); free(dev); free(maj); free(sel); free(len); free(ctl);
    }
    json_decref(groups);
    json_decref(order);
    return out;
}

/* One member's items: per item its correct count and its size (num[i], den[i]). A probe result
 * records one letter per test item ("item_correct": "0110...", size 1 each); a token probe one
 * entry per test sentence, its tokens and how many the probe labelled right ("item_tokens",
 * "item_correct_count"), so that its interval resamples sentences, not tokens of one sentence
 * as if they were independent. 0, or -1 when the record is missing or malformed. */
static int item_values(json_t *met, size_t N, double *num, double *den)
{
    const char *corr = json_string_value(json_object_get(met, "item_correct"));
    json_t *tok = json_object_get(met, "item_tokens"), *cnt = json_object_get(met, "item_correct_count");
    if (corr) {
        if (strlen(corr) != N) return -1;
        for (size_t i = 0; i < N; i++) { num[i] = corr[i] == '1'; den[i] = 1; }
        return 0;
    }
    if (!json_is_array(tok) || !json_is_array(cnt) || json_array_size(tok) != N || json_array_size(cnt) != N) return -1;
    for (size_t i = 0; i < N; i++) {
        num[i] = (double)json_integer_value(json_array_get(cnt, i));
        den[i] = (double)json_integer_value(json_array_get(tok, i));
    }
    return 0;
}

/* The members' per-item figures as num[s·N + i] and den[i] (the caller frees both); N, or -1 when
 * the members do not share one list of test item rows (or one member's sizes differ from
 * another's). rows0 (in/out) is the list to match. */
static long member_items(json_t *members, json_t **rows0, double **num, double **den)
{
    size_t S = json_array_size(members), N = 0;
    *num = *den = NULL;
    for (size_t s = 0; s < S; s++) {
        json_t *met = json_object_get(json_object_get(json_array_get(members, s), "result"), "metrics");
        json_t *rows = json_object_get(met, "item_rows");
        if (!json_is_array(rows) || !json_array_size(rows) || strcmp(str_of(met, "split"), "test")) return -1;
        if (!*rows0) *rows0 = rows;
        else if (!json_equal(rows, *rows0)) return -1;
    }
    if (!*rows0) return -1;
    N = json_array_size(*rows0);
    *num = malloc(sizeof **num * (S * N + 1));
    *den = malloc(sizeof **den * (N + 1));
    double *d = malloc(sizeof *d * (N + 1));
    for (size_t s = 0; s < S; s++) {
        json_t *met = json_object_get(json_object_get(json_array_get(members, s), "result"), "metrics");
        int bad = item_values(met, N, *num + s * N, s ? d : *den);
        for (size_t i = 0; !bad && s && i < N; i++) bad = d[i] != (*den)[i];
        if (bad) { free(d); free(*num); free(*den); *num = *den = NULL; return -1; }
    }
    free(d);
    return (long)N;
}

/* the members of one side: results on (task, classifier) whose encoder label or run name is `who`,
 * or matches it as a shell pattern (fnmatch: "ms-san-trained-s*" pools the runs of several training
 * seeds into one side); labels (out, may be NULL) gets the distinct labels matched */
static json_t *side(json_t *probes, const char *who, const char *task, const char *clf, json_t *labels)
{
    json_t *out = json_array(), *row;
    size_t i;
    struct sp_buf label = { 0 };
    json_array_foreach(probes, i, row) {
        if (rpt_is_mdl(str_of(row, "classifier"))) continue;   /* codelengths, not accuracies: listed apart */
        rpt_encoder_label(row, &label);
        const char *run = json_string_value(json_object_get(row, "run"));
        if ((fnmatch(who, label.p, 0) && (!run || fnmatch(who, run, 0))) || strcmp(str_of(row, "task"), task) ||
            strcmp(str_of(row, "classifier"), clf))
            continue;
        json_array_append(out, row);
        size_t k;
        json_t *x;
        int seen = 0;
        json_array_foreach(labels, k, x) seen |= !strcmp(json_string_value(x), label.p);
        if (labels && !seen) json_array_append_new(labels, json_string(label.p));
    }
    sp_buf_free(&label);
    return out;
}

json_t *rpt_compare(json_t *probes, const char *a, const char *b)
{
    json_t *out = json_array(), *seen = json_object(), *row;
    json_t *labels_a = json_array(), *labels_b = json_array();
    size_t i;
    json_array_foreach(probes, i, row) {
        const char *task = str_of(row, "task"), *clf = str_of(row, "classifier");
        struct sp_buf key = { 0 };   /* whole: two long task names cut alike would be one pair */
        sp_buf_printf(&key, "%s\t%s", task, clf);
        int dup = json_object_get(seen, key.p) != NULL;
        if (!dup) json_object_set_new(seen, key.p, json_true());
        sp_buf_free(&key);
        if (dup) continue;
        json_array_clear(labels_a);
        json_array_clear(labels_b);
        json_t *ma = side(probes, a, task, clf, labels_a), *mb = side(probes, b, task, clf, labels_b);
        if (json_array_size(ma) && json_array_size(mb)) {
            json_t *c = json_object(), *rows0 = NULL;
            json_object_set_new(c, "task", json_string(task));
            json_object_set_new(c, "classifier", json_string(clf));
            json_object_set_new(c, "a", json_string(a));
            json_object_set_new(c, "b", json_string(b));
            json_object_set_new(c, "encoders_a", json_copy(labels_a));
            json_object_set_new(c, "encoders_b", json_copy(labels_b));
            json_object_set_new(c, "n_seeds_a", json_integer((json_int_t)json_array_size(ma)));
            json_object_set_new(c, "n_seeds_b", json_integer((json_int_t)json_array_size(mb)));
            double *na = NULL, *nb = NULL, *den = NULL, *denb = NULL;
            long Na = member_items(ma, &rows0, &na, &den), Nb = Na >= 0 ? member_items(mb, &rows0, &nb, &denb) : -1;
            struct prb_comparison r;
            int same = Na > 0 && Nb == Na, overlap = 0;
            size_t ka, kb;
            json_t *xa, *xb;
            json_array_foreach(labels_a, ka, xa) json_array_foreach(labels_b, kb, xb) overlap |= json_equal(xa, xb);
            for (long k = 0; same && k < Na; k++) same = den[k] == denb[k];
            if (overlap) {
                json_object_set_new(c, "error", json_string("an encoder is on both sides: no paired comparison"));
            } else if (same && prb_boot_paired((int)Na, den, (int)json_array_size(ma), na, (int)json_array_size(mb), nb, PRB_BOOT_B,
                                       PRB_BOOT_SEED, &r) == SP_OK) {
                json_object_set_new(c, "n_test", json_integer(r.n_items));
                json_object_set_new(c, "delta", json_real(100 * r.delta));
                json_object_set_new(c, "lo", json_real(100 * r.lo));
                json_object_set_new(c, "hi", json_real(100 * r.hi));
                json_object_set_new(c, "p", json_real(r.p));
                json_object_set_new(c, "p_floor", r.p_floor > 0 ? json_real(r.p_floor) : json_null());
                json_object_set_new(c, "se", isnan(r.se) ? json_null() : json_real(100 * r.se));
                json_object_set_new(c, "mdd80", isnan(r.mdd80) ? json_null() : json_real(100 * r.mdd80));
                json_object_set_new(c, "B", json_integer(PRB_BOOT_B));
                json_object_set_new(c, "bootstrap_seed", json_integer(PRB_BOOT_SEED));
                json_object_set_new(c, "n_invalid", json_integer(r.n_invalid));
            } else {
                json_object_set_new(c, "error", json_string("the two were not scored on the same test items (or carry no "
                                                            "per-item record): no paired comparison"));
            }
            free(den); free(denb); free(na); free(nb);
            json_array_append_new(out, c);
        }
        json_decref(ma);
        json_decref(mb);
    }
    json_decref(seen);
    json_decref(labels_a);
    json_decref(labels_b);
    return out;
}

size_t rpt_pair_end(json_t *cmp, size_t i)
{
    json_t *c0 = json_array_get(cmp, i);
    size_t j = i;
    while (j < json_array_size(cmp) && !strcmp(str_of(json_array_get(cmp, j), "a"), str_of(c0, "a")) &&
           !strcmp(str_of(json_array_get(cmp, j), "b"), str_of(c0, "b")))
        j++;
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

/* distinct string values of key over arr whose keep(x) holds, first-appearance order (a new array) */
json_t *rpt_distinct(json_t *arr, const char *key, int (*keep)(json_t *, const void *), const void *arg)
{
    json_t *out = json_array(), *seen = json_object(), *x;
    size_t i;
    json_array_foreach(arr, i, x) {
        if (keep && !keep(x, arg)) continue;
        const char *v = rpt_jpath_str(x, key);
        if (json_object_get(seen, v)) continue;
        json_object_set_new(seen, v, json_true());
        json_array_append_new(out, json_string(v));
    }
    json_decref(seen);
    return out;
}
