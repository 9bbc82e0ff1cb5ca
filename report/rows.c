/* report/rows.c — a store's results as typed rows (see report/rows.h): the one place the outputs'
 * numbers are read out of the stored JSON. */
#include "report/rows.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "report/agg.h"
#include "report/report.h"
#include "stages/layers.h"
#include "stages/probe.h"
#include "store/st_runs.h"
#include "store/store.h"

#define num rpt_jpath_num
#define str rpt_jpath_str

/* s kept for the table's lifetime (NULL stays NULL) */
static const char *keep(struct rpt_table *t, const char *s)
{
    if (!s) return NULL;
    if (t->n_str == t->cap_str) {
        t->cap_str = t->cap_str ? 2 * t->cap_str : 64;
        t->strs = sp_xrealloc(t->strs, sizeof *t->strs * t->cap_str);
    }
    return t->strs[t->n_str++] = sp_xstrdup(s);
}

static struct rpt_row *add(struct rpt_table *t, size_t *cap)
{
    if (t->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        t->v = sp_xrealloc(t->v, sizeof *t->v * *cap);
    }
    struct rpt_row *r = &t->v[t->n++];
    memset(r, 0, sizeof *r);
    r->value = r->sd = r->lo = r->hi = r->dev = r->dspr = r->root_acc = r->span_f1 = NAN;
    r->base = (struct rpt_baselines){ NAN, NAN, NAN, NAN, NAN, NAN, NAN };
    r->n = -1;
    r->layer = -1;
    r->seed = -1;
    r->corpus = "";
    r->encoder = "";
    return r;
}

static long count_at(json_t *j, const char *path)
{
    json_t *v = rpt_jpath(j, path);
    return json_is_integer(v) ? (long)json_integer_value(v) : -1;
}

static void set_layer(struct rpt_row *r, const char *label)
{
    char *base = sp_xstrdup(label);
    r->layer = stg_layer_of_run(label, base, strlen(label) + 1);
    free(base);
}

static void aggregate_rows(struct rpt_table *t, size_t *cap, json_t *aggs)
{
    size_t i;
    json_t *a;
    json_array_foreach(aggs, i, a) {
        struct rpt_row *r = add(t, cap);
        r->task = keep(t, str(a, "task"));
        r->kind = strncmp(r->task, "token:", 6) ? RPT_K_PROBE : RPT_K_TOKEN;
        r->encoder = keep(t, str(a, "encoder"));
        set_layer(r, r->encoder);
        r->method = keep(t, str(a, "classifier"));
        r->metric = "acc";
        r->value = num(a, "test_acc.mean");
        r->sd = num(a, "test_acc.sd");
        r->dev = num(a, "dev_acc.mean");
        json_t *ci = rpt_jpath(a, "test_acc.ci95");
        if (json_is_object(ci)) {
            r->lo = num(ci, "lo");
            r->hi = num(ci, "hi");
            if (json_is_true(json_object_get(ci, "wide_ci"))) r->flags |= RPT_F_WIDE;
        } else r->flags |= RPT_F_NOCI;
        r->base.majority = num(a, "majority_acc.mean");
        r->base.length = num(a, "length_acc.mean");
        r->base.control = num(a, "control_acc.mean");
        r->base.selectivity = num(a, "control_selectivity.mean");
        r->base.selectivity_sd = num(a, "control_selectivity.sd");
        r->n = count_at(a, "n_test");
        if (json_is_true(json_object_get(a, "small_test"))) r->flags |= RPT_F_SMALL;
        r->n_seeds = (int)count_at(a, "n_seeds");
    }
}

/* the run's encoder kind, looked up once per run */
static const char *model_of(struct rpt_table *t, struct st_db *db, json_t *cache, const char *run)
{
    if (!db || !run) return NULL;
    json_t *k = json_object_get(cache, run);
    if (k) return json_string_value(k);
    struct st_run_info ri;
    char err[SP_ERRLEN];
    const char *m = NULL;
    if (st_run_info(db, run, &ri, err, sizeof err) == SP_OK) {
        m = ri.kind ? keep(t, ri.kind) : NULL;
        st_run_info_free(&ri);
    }
    json_object_set_new(cache, run, m ? json_string(m) : json_null());
    return m;
}

static void probe_rows(struct rpt_table *t, size_t *cap, json_t *probes, struct st_db *db, json_t *cache)
{
    size_t i;
    json_t *p;
    struct sp_buf label = { 0 };
    json_array_foreach(probes, i, p) {
        json_t *res = json_object_get(p, "result");
        struct rpt_row *r = add(t, cap);
        r->flags = RPT_F_SEED;
        r->id = (int64_t)json_integer_value(json_object_get(p, "id"));
        r->task = keep(t, str(p, "task"));
        r->kind = strncmp(r->task, "token:", 6) ? RPT_K_PROBE : RPT_K_TOKEN;
        r->run = keep(t, json_string_value(json_object_get(p, "run")));
        r->model = model_of(t, db, cache, r->run);
        r->encoder = keep(t, rpt_encoder_label(p, &label));
        set_layer(r, r->encoder);
        r->method = keep(t, str(p, "classifier"));
        r->metric = "acc";
        r->value = num(p, "test_acc");
        r->dev = num(p, "dev_acc");
        r->base.majority = num(res, "baselines.majority.acc");
        r->base.length = num(res, "baselines.length.acc");
        r->base.control = num(res, "baselines.control.acc");
        r->base.selectivity = num(res, "baselines.control.selectivity");
        r->n = count_at(res, "ntest");
        if (r->n >= 0 && r->n < RPT_SMALL_TEST) r->flags |= RPT_F_SMALL;
        r->n_seeds = 1;
        r->seed = (int)json_integer_value(json_object_get(p, "seed"));
        if (rpt_is_mdl(r->method)) {
            r->flags = RPT_F_SEED | RPT_F_NOCI;
            r->metric = "compression";
            r->value = num(res, "compression");
            r->base = (struct rpt_baselines){ NAN, NAN, num(res, "control.compression"), num(res, "selectivity_bits"), NAN, NAN,
                                              NAN };
            r->n = count_at(res, "ntrain");
        }
    }
    sp_buf_free(&label);
}

/* a tree baseline's name ("right", "dependency:baseline:left": "left"), or NULL for trees of an
 * encoder (attention of a run or of a file) */
static const char *baseline_name(const char *m)
{
    static const char *const names[] = { "right", "left", "random", "adjacent", "gold" };
    const char *c = strrchr(m, ':'), *last = c ? c + 1 : m;
    if (c && !strstr(m, ":baseline:")) return NULL;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(last, names[i])) return names[i];
    return NULL;
}

static void tree_rows(struct rpt_table *t, size_t *cap, json_t *trees, struct st_db *db, json_t *cache)
{
    size_t i;
    json_t *e;
    json_array_foreach(trees, i, e) {
        json_t *res = json_object_get(e, "result");
        struct rpt_row *r = add(t, cap);
        r->id = (int64_t)json_integer_value(json_object_get(e, "id"));
        r->corpus = keep(t, str(e, "corpus"));
        r->run = keep(t, json_string_value(json_object_get(e, "run")));
        r->model = model_of(t, db, cache, r->run);
        if (r->run) {
            r->encoder = r->run;
            set_layer(r, r->run);
        }
        r->method = keep(t, str(e, "method"));
        r->n = count_at(res, "n_sentences");
        if (r->n >= 0 && r->n < RPT_SMALL_TEST) r->flags |= RPT_F_SMALL;
        if (!strncmp(r->method, "structprobe:", 12)) {
            r->kind = RPT_K_STRUCTPROBE;
            r->task = "structprobe";
            r->metric = "UUAS";
            r->value = num(res, "uuas");
            r->dspr = num(res, "dspr");
            r->root_acc = num(res, "root_acc");
            r->base.linear = num(res, "linear_baseline.uuas");
            continue;
        }
        r->baseline = baseline_name(r->method);
        if (r->baseline) r->flags |= RPT_F_BASELINE;
        if (json_object_get(res, "uas")) {
            r->kind = RPT_K_DEP;
            r->task = "dep";
            r->metric = "UAS";
            r->value = num(res, "uas");
            r->base.uuas_mst = num(res, "uuas_mst");
        } else {
            r->kind = RPT_K_CONST;
            r->task = "const";
            r->metric = "F1";
            r->value = num(res, "protocol_a.all.fmeasure");
            r->span_f1 = num(res, "protocol_b.sentence_f1.all");
        }
    }
}

void rpt_table_from(struct rpt_table *t, json_t *probes, json_t *trees, json_t *aggs, struct st_db *db)
{
    memset(t, 0, sizeof *t);
    json_t *cache = json_object();
    size_t cap = 0;
    aggregate_rows(t, &cap, aggs);
    probe_rows(t, &cap, probes, db, cache);
    tree_rows(t, &cap, trees, db, cache);
    json_decref(cache);
}

int rpt_table_load(struct stg_ctx *ctx, const char *db_path, struct rpt_table *t)
{
    memset(t, 0, sizeof *t);
    json_t *probes, *trees;
    int rc = rpt_rows(ctx, db_path, &probes, &trees);
    if (rc != SP_OK) return rc;
    struct st_db *db = NULL;
    char err[SP_ERRLEN];
    if (st_open(db_path, ST_OPEN_READONLY, &db, err, sizeof err) != SP_OK) db = NULL;   /* no run kinds then */
    json_t *aggs = rpt_aggregate(probes);
    rpt_table_from(t, probes, trees, aggs, db);
    if (db) st_close(db);
    json_decref(aggs);
    json_decref(probes);
    json_decref(trees);

    json_t *unfit = NULL;
    struct stg_ctx uc = *ctx;
    if (stg_probe_unfit_tasks_at(&uc, db_path, &unfit) == SP_OK && json_object_size(unfit)) {
        const char *name;
        json_t *why;
        t->skipped = sp_xmalloc(sizeof *t->skipped * json_object_size(unfit));
        json_object_foreach(unfit, name, why) {
            const char *w = json_string_value(why);
            t->skipped[t->n_skipped++] = (struct rpt_skipped){ keep(t, name), keep(t, w ? w : "") };
        }
    }
    json_decref(unfit);
    return SP_OK;
}

void rpt_table_free(struct rpt_table *t)
{
    for (size_t i = 0; i < t->n_str; i++) free(t->strs[i]);
    free(t->strs);
    free(t->v);
    free(t->skipped);
    memset(t, 0, sizeof *t);
}
