/* report/rows.c — a store's results as typed rows (see report/rows.h): the one place the outputs'
 * numbers are read out of the stored JSON. */
#include "report/rows.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "report/agg.h"
#include "report/report.h"
#include "stages/layers.h"
#include "stages/probe.h"
#include "store/st_runs.h"
#include "store/store.h"

/* ---- reading the stored JSON ---- */


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
    const char *run = json_string_value(json_object_get(row, "run")), *task = rpt_jpath_str(row, "task");
    if (!*task) task = rpt_jpath_str(row, "corpus");        /* a tree row: runs over a corpus are NAME-CORPUS */
    json_t *res = json_object_get(row, "result");
    const char *p = json_string_value(json_object_get(json_object_get(json_object_get(res, "manifest"), "vectors"), "path"));
    const char *whole = run ? run : p ? p : "vectors";
    b->len = 0;
    sp_buf_put(b, whole, strlen(whole) + 1);          /* the label is never longer than the run's name */
    if (run) rpt_run_label(run, task, b->p, b->len);
    b->len = strlen(b->p);
    return b->p;
}


/* s kept for the table's lifetime (NULL stays NULL) */
const char *rpt_table_keep(struct rpt_table *t, const char *s)
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
    for (int k = 0; k < RPT_T_COUNT; k++) r->fig[k] = NAN;
    r->n = -1;
    r->layer = -1;
    r->seed = -1;
    r->corpus = "";
    r->encoder = "";
    r->vectors = "";
    r->partition = "";
    r->items.n = -1;
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
        m = ri.kind ? rpt_table_keep(t, ri.kind) : NULL;
        st_run_info_free(&ri);
    }
    json_object_set_new(cache, run, m ? json_string(m) : json_null());
    return m;
}

/* one result's per-item figures (num[i], den[i]): a probe result records one letter per test item
 * ("item_correct": "0110...", size 1 each); a token probe one entry per test sentence, its tokens
 * and how many the probe labelled right ("item_tokens", "item_correct_count"), so that its
 * interval resamples sentences, not tokens of one sentence as if they were independent. 0, or -1
 * when the record is malformed. */
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

/* the per-item record of one result (metrics.item_rows of the test split), n = -1 when unusable */
static void items_of(struct rpt_table *t, struct rpt_row *r, json_t *res)
{
    json_t *met = json_object_get(res, "metrics"), *rows = json_object_get(met, "item_rows");
    r->items.n = -1;
    size_t N = json_array_size(rows);
    if (!json_is_array(rows) || !N || strcmp(rpt_jpath_str(met, "split"), "test")) return;
    double *num = sp_xmalloc(sizeof *num * N), *den = sp_xmalloc(sizeof *den * N);
    char *key = json_dumps(rows, JSON_COMPACT);
    if (!key || item_values(met, N, num, den)) {
        free(num);
        free(den);
        free(key);
        return;
    }
    r->items = (struct rpt_items){ rpt_table_keep(t, key), (long)N, num, den };
    free(key);
}

static double num_or_nan(json_t *j) { return json_is_number(j) ? json_number_value(j) : NAN; }

/* the rest of one probe result (struct rpt_probe_detail) */
static struct rpt_probe_detail *detail_of(struct rpt_table *t, json_t *res)
{
    struct rpt_probe_detail *d = sp_xcalloc(1, sizeof *d);
    d->ntrain = rpt_jpath_num(res, "ntrain");
    d->ndev = rpt_jpath_num(res, "ndev");
    d->majority_dev = rpt_jpath_num(res, "baselines.majority.devacc");
    d->length_dev = rpt_jpath_num(res, "baselines.length.devacc");
    d->control_dev = rpt_jpath_num(res, "baselines.control.devacc");
    d->has_length = rpt_jpath(res, "baselines.length") != NULL;
    d->has_control = rpt_jpath(res, "baselines.control") != NULL;
    d->split = rpt_table_keep(t, rpt_jpath_str(res, "metrics.split"));
    d->macro_f1 = rpt_jpath_num(res, "metrics.macro_f1");
    json_t *pcs = rpt_jpath(res, "metrics.per_class"), *pc, *x;
    size_t i, j;
    d->cls = sp_xmalloc(sizeof *d->cls * (json_array_size(pcs) + 1));
    json_array_foreach(pcs, i, pc)
        d->cls[d->n_cls++] = (struct rpt_class_score){ rpt_table_keep(t, rpt_jpath_str(pc, "class")), rpt_jpath_num(pc, "precision"),
                                                       rpt_jpath_num(pc, "recall"), rpt_jpath_num(pc, "f1"),
                                                       rpt_jpath_num(pc, "support") };
    json_t *classes = json_object_get(res, "classes");
    d->classes = sp_xmalloc(sizeof *d->classes * (json_array_size(classes) + 1));
    json_array_foreach(classes, i, x) d->classes[d->n_classes++] = rpt_table_keep(t, json_string_value(x));
    json_t *cm = rpt_jpath(res, "metrics.confusion"), *row;
    size_t cells = 0;
    json_array_foreach(cm, i, row) cells += json_array_size(row);
    d->cm = sp_xmalloc(sizeof *d->cm * (cells + 1));
    d->cm_len = sp_xmalloc(sizeof *d->cm_len * (json_array_size(cm) + 1));
    d->cm_at = sp_xmalloc(sizeof *d->cm_at * (json_array_size(cm) + 1));
    cells = 0;
    json_array_foreach(cm, i, row) {
        d->cm_at[i] = cells;
        d->cm_len[i] = json_array_size(row);
        json_array_foreach(row, j, x) d->cm[cells++] = num_or_nan(x);
        d->cm_rows++;
    }
    d->chosen_nhid = rpt_jpath_num(res, "chosen.nhid");
    d->chosen_dropout = rpt_jpath_num(res, "chosen.dropout");
    d->chosen_l2reg = rpt_jpath_num(res, "chosen.l2reg");
    json_t *grid = json_object_get(res, "grid"), *g;
    d->grid = sp_xmalloc(sizeof *d->grid * (json_array_size(grid) + 1));
    json_array_foreach(grid, i, g)
        d->grid[d->n_grid++] = (struct rpt_grid_point){ (long long)json_integer_value(json_object_get(g, "nhid")),
                                                        rpt_jpath_num(g, "dropout"), rpt_jpath_num(g, "l2reg"),
                                                        rpt_jpath_num(g, "devacc") };
    return d;
}

/* an MDL probe's code (res: the result, or its "control" object) */
static void mdl_code(struct rpt_mdl_code *c, json_t *res)
{
    c->labels = rpt_jpath_num(res, "labels");
    c->codelength_bits = rpt_jpath_num(res, "codelength_bits");
    c->uniform_bits = rpt_jpath_num(res, "uniform_bits");
    c->compression = rpt_jpath_num(res, "compression");
    json_t *blocks = json_object_get(res, "blocks"), *b;
    size_t i;
    c->blocks = sp_xmalloc(sizeof *c->blocks * (json_array_size(blocks) + 1));
    json_array_foreach(blocks, i, b)
        c->blocks[c->n_blocks++] = (struct rpt_mdl_block){ rpt_jpath_num(b, "size"), rpt_jpath_num(b, "bits") };
}

static struct rpt_mdl *mdl_of(json_t *res)
{
    struct rpt_mdl *m = sp_xcalloc(1, sizeof *m);
    mdl_code(&m->code[0], res);
    json_t *ctl = json_object_get(res, "control");
    m->has_control = ctl != NULL;
    if (ctl) mdl_code(&m->code[1], ctl);
    m->selectivity_bits = rpt_jpath_num(res, "selectivity_bits");
    return m;
}

static void detail_free(struct rpt_probe_detail *d)
{
    if (!d) return;
    if (d->mdl) {
        free(d->mdl->code[0].blocks);
        free(d->mdl->code[1].blocks);
        free(d->mdl);
    }
    free(d->cls); free(d->classes); free(d->cm); free(d->cm_len); free(d->cm_at); free(d->grid);
    free(d);
}

/* what a result's manifest says about it: partition, job, command line, the manifest whole */
static void manifest_of(struct rpt_table *t, struct rpt_row *r, json_t *res)
{
    json_t *m = json_object_get(res, "manifest");
    json_t *p = rpt_jpath(m, "task.params.partition");   /* tasks: {"kind", "text", "seed"} (tasks build since 0.1.0) */
    const char *part = json_is_object(p) ? rpt_jpath_str(p, "text") : json_is_string(p) ? json_string_value(p)   /* before */
                     : rpt_jpath_str(m, "partition");                                  /* token and structural probes */
    r->partition = rpt_table_keep(t, part);
    if (json_is_object(p) ? !strcmp(rpt_jpath_str(p, "kind"), "resplit") : !strncmp(part, "re-split", 8)) r->flags |= RPT_F_RESPLIT;
    json_t *job = json_object_get(m, "job"), *cmd = json_object_get(m, "command"), *w;
    if (json_is_object(job)) {
        r->job_file = rpt_table_keep(t, rpt_jpath_str(job, "file"));
        r->job_sha256 = rpt_table_keep(t, rpt_jpath_str(job, "sha256"));
    }
    if (json_is_array(cmd)) {
        size_t k;
        r->flags |= RPT_F_COMMAND;
        r->command = sp_xmalloc(sizeof *r->command * (json_array_size(cmd) + 1));
        json_array_foreach(cmd, k, w) r->command[r->n_command++] = rpt_table_keep(t, json_string_value(w));
    }
    char *s = m ? json_dumps(m, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) : NULL;
    r->manifest = rpt_table_keep(t, s);
    free(s);
}

/* where the vectors of a probe result came from: the run, else the file */
static const char *vectors_of(json_t *row)
{
    const char *run = json_string_value(json_object_get(row, "run"));
    if (run) return run;
    json_t *res = json_object_get(row, "result");
    const char *p = rpt_jpath_str(res, "manifest.vectors.path");
    return *p ? p : rpt_jpath_str(res, "vectors");
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
        r->task = rpt_table_keep(t, rpt_jpath_str(p, "task"));
        r->kind = strncmp(r->task, "token:", 6) ? RPT_K_PROBE : RPT_K_TOKEN;
        r->run = rpt_table_keep(t, json_string_value(json_object_get(p, "run")));
        r->model = model_of(t, db, cache, r->run);
        r->encoder = rpt_table_keep(t, rpt_encoder_label(p, &label));
        set_layer(r, r->encoder);
        r->method = rpt_table_keep(t, rpt_jpath_str(p, "classifier"));
        r->metric = "acc";
        r->value = rpt_jpath_num(p, "test_acc");
        r->dev = rpt_jpath_num(p, "dev_acc");
        r->base.majority = rpt_jpath_num(res, "baselines.majority.acc");
        r->base.length = rpt_jpath_num(res, "baselines.length.acc");
        r->base.control = rpt_jpath_num(res, "baselines.control.acc");
        r->base.selectivity = rpt_jpath_num(res, "baselines.control.selectivity");
        r->n = count_at(res, "ntest");
        if (r->n >= 0 && r->n < RPT_SMALL_TEST) r->flags |= RPT_F_SMALL;
        r->n_seeds = 1;
        r->seed = (int)json_integer_value(json_object_get(p, "seed"));
        r->vectors = rpt_table_keep(t, vectors_of(p));
        if (rpt_is_mdl(r->method)) {   /* codelengths, not accuracies (rows.h) */
            r->flags = RPT_F_SEED | RPT_F_NOCI;
            r->metric = "compression";
            r->value = rpt_jpath_num(res, "compression");
            r->base = (struct rpt_baselines){ NAN, NAN, rpt_jpath_num(res, "control.compression"),
                                              rpt_jpath_num(res, "selectivity_bits"), NAN, NAN, NAN };
            r->n = count_at(res, "ntrain");
        }
        items_of(t, r, res);
        r->detail = detail_of(t, res);
        if (rpt_is_mdl(r->method)) r->detail->mdl = mdl_of(res);
        manifest_of(t, r, res);
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

/* where each figure is in a stored tree evaluation */
static const char *const fig_path[RPT_T_COUNT] = {
    [RPT_T_NSENT] = "n_sentences", [RPT_T_UUAS] = "uuas", [RPT_T_DSPR] = "dspr", [RPT_T_ROOT] = "root_acc",
    [RPT_T_NSPR] = "nspr", [RPT_T_LIN_NSENT] = "linear_baseline.n_sentences", [RPT_T_LIN_UUAS] = "linear_baseline.uuas",
    [RPT_T_LIN_DSPR] = "linear_baseline.dspr", [RPT_T_LIN_ROOT] = "linear_baseline.root_acc",
    [RPT_T_LIN_NSPR] = "linear_baseline.nspr", [RPT_T_UAS] = "uas", [RPT_T_UUAS_DIR] = "uuas_dir",
    [RPT_T_UUAS_MST] = "uuas_mst", [RPT_T_A_R] = "protocol_a.all.recall", [RPT_T_A_P] = "protocol_a.all.precision",
    [RPT_T_A_F] = "protocol_a.all.fmeasure", [RPT_T_A_R40] = "protocol_a.le40.recall",
    [RPT_T_A_P40] = "protocol_a.le40.precision", [RPT_T_A_F40] = "protocol_a.le40.fmeasure",
    [RPT_T_B_SENT] = "protocol_b.sentence_f1.all", [RPT_T_B_SENT40] = "protocol_b.sentence_f1.le40",
    [RPT_T_B_SENT10] = "protocol_b.sentence_f1.le10", [RPT_T_B_CORP] = "protocol_b.corpus_f1.all",
    [RPT_T_B_CORP40] = "protocol_b.corpus_f1.le40", [RPT_T_B_CORP10] = "protocol_b.corpus_f1.le10",
};

/* a tree evaluation's figures and length bins */
static void tree_figures(struct rpt_row *r, json_t *res)
{
    for (int k = 0; k < RPT_T_COUNT; k++) r->fig[k] = rpt_jpath_num(res, fig_path[k]);
    if (json_is_object(json_object_get(res, "linear_baseline"))) r->flags |= RPT_F_LINEAR;
    json_t *bins = rpt_jpath(res, "protocol_b.sentence_f1_by_length"), *bin;
    if (!json_is_array(bins)) return;
    r->flags |= RPT_F_BINS;
    r->bins = sp_xmalloc(sizeof *r->bins * (json_array_size(bins) + 1));
    size_t i;
    json_array_foreach(bins, i, bin) {
        json_t *hi = json_object_get(bin, "hi");
        r->bins[r->n_bins++] = (struct rpt_len_bin){ rpt_jpath_num(bin, "lo"), json_is_integer(hi) ? json_number_value(hi) : NAN,
                                                     rpt_jpath_num(bin, "f1"), count_at(bin, "n") };
    }
}

static void tree_rows(struct rpt_table *t, size_t *cap, json_t *trees, struct st_db *db, json_t *cache)
{
    size_t i;
    json_t *e;
    struct sp_buf label = { 0 };
    json_array_foreach(trees, i, e) {
        json_t *res = json_object_get(e, "result");
        struct rpt_row *r = add(t, cap);
        r->id = (int64_t)json_integer_value(json_object_get(e, "id"));
        r->corpus = rpt_table_keep(t, rpt_jpath_str(e, "corpus"));
        r->run = rpt_table_keep(t, json_string_value(json_object_get(e, "run")));
        r->model = model_of(t, db, cache, r->run);
        if (r->run) {
            r->encoder = rpt_table_keep(t, rpt_encoder_label(e, &label));
            set_layer(r, r->encoder);
        }
        r->method = rpt_table_keep(t, rpt_jpath_str(e, "method"));
        r->n = count_at(res, "n_sentences");
        if (r->n >= 0 && r->n < RPT_SMALL_TEST) r->flags |= RPT_F_SMALL;
        tree_figures(r, res);
        manifest_of(t, r, res);
        if (!strncmp(r->method, "structprobe:", 12)) {
            r->kind = RPT_K_STRUCTPROBE;
            r->task = "structprobe";
            r->metric = "UUAS";
            r->value = r->fig[RPT_T_UUAS];
            r->dspr = r->fig[RPT_T_DSPR];
            r->root_acc = r->fig[RPT_T_ROOT];
            r->base.linear = r->fig[RPT_T_LIN_UUAS];
            continue;
        }
        r->baseline = baseline_name(r->method);
        if (r->baseline) r->flags |= RPT_F_BASELINE;
        if (json_object_get(res, "uas")) {
            r->kind = RPT_K_DEP;
            r->task = "dep";
            r->metric = "UAS";
            r->value = r->fig[RPT_T_UAS];
            r->base.uuas_mst = r->fig[RPT_T_UUAS_MST];
        } else {
            r->kind = RPT_K_CONST;
            r->task = "const";
            r->metric = "F1";
            r->value = r->fig[RPT_T_A_F];
            r->span_f1 = r->fig[RPT_T_B_SENT];
        }
    }
    sp_buf_free(&label);
}

void rpt_table_from(struct rpt_table *t, json_t *probes, json_t *trees, struct st_db *db, json_t **aggs)
{
    memset(t, 0, sizeof *t);
    json_t *cache = json_object();
    size_t cap = 0;
    probe_rows(t, &cap, probes, db, cache);
    tree_rows(t, &cap, trees, db, cache);
    json_decref(cache);
    json_t *a = rpt_aggregate_rows(t);
    if (aggs) *aggs = a;
    else json_decref(a);
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
    rpt_table_from(t, probes, trees, db, NULL);
    if (db) st_close(db);
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
            t->skipped[t->n_skipped++] = (struct rpt_skipped){ rpt_table_keep(t, name), rpt_table_keep(t, w ? w : "") };
        }
    }
    json_decref(unfit);
    return SP_OK;
}

void rpt_table_free(struct rpt_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].items.num);
        free(t->v[i].items.den);
        free(t->v[i].bins);
        detail_free(t->v[i].detail);
        free(t->v[i].command);
    }
    for (size_t i = 0; i < t->n_str; i++) free(t->strs[i]);
    for (size_t i = 0; i < t->n_cmp; i++) {
        free(t->cmp[i].enc_a);
        free(t->cmp[i].enc_b);
    }
    free(t->cmp);
    free(t->strs);
    free(t->v);
    free(t->skipped);
    memset(t, 0, sizeof *t);
}

struct rpt_names rpt_rows_distinct(const struct rpt_table *t, const char *(*field)(const struct rpt_row *),
                                   int (*keep)(const struct rpt_row *, const char *), const char *arg)
{
    struct rpt_names o = { sp_xmalloc(sizeof *o.v * (t->n + 1)), 0 };
    for (size_t i = 0; i < t->n; i++) {
        if (!keep(&t->v[i], arg)) continue;
        const char *x = field(&t->v[i]);
        size_t k = 0;
        while (k < o.n && strcmp(o.v[k], x)) k++;
        if (k == o.n) o.v[o.n++] = x;
    }
    return o;
}

const struct rpt_row *rpt_find_agg(const struct rpt_table *t, const char *enc, const char *task, const char *clf)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct rpt_row *a = &t->v[i];
        if (rpt_is_agg(a) && !strcmp(a->encoder, enc) && !strcmp(a->task, task) && !strcmp(a->method, clf)) return a;
    }
    return NULL;
}
