/* cli/cmd_probe.c — `synprobe probe`: SentEval probing classifiers on a task + vectors, results
 * optionally stored (table probe_result).
 *
 * Sources. The task comes from a SentEval file (--task-file) or from a store (--db --task); the
 * vectors from a .npy file whose row i is the sentence of the task's i-th item (file order =
 * ordinal order in the store). Each source only fills a `struct probe_data` (labels, splits, X);
 * dataset_build() then checks the alignment, maps labels to classes (§1.2) and hashes the data,
 * and the protocol of probes/senteval runs on those arrays. A new vector source (a stored run)
 * only has to fill d->X and d->vectors. One protocol run per classifier x seed.
 *
 * Storage. With --db (or --save DB for a task file) every run becomes one probe_result row whose
 * `result` is the JSON printed by --json plus "manifest" (every knob, data hash, sources,
 * versions, time). All rows of one invocation are written at the end in one transaction: an
 * interrupted probe stores nothing. Rows are never replaced (see store/results.h). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/npy.h"
#include "cli/cli.h"
#include "cli/legacy.h"
#include "ingest/senteval.h"
#include "probes/senteval.h"
#include "store/results.h"
#include "store/runs.h"
#include "store/tasks.h"

#define MAX_RUNS 64

static void help(FILE *f)
{
    fprintf(f,
        "usage: synprobe probe (--task-file TASK.txt [--save DB] | --db DB --task NAME [--no-save])\n"
        "                      (--vectors X.npy | --run R) [options]\n"
        "\n"
        "Train SentEval probing classifiers (SPEC-probing §1) and report dev/test accuracy.\n"
        "\n"
        "  --task-file F      SentEval probing file: tr|va|te TAB label TAB sentence, one instance a line\n"
        "  --db DB --task T   the stored task T (tasks import / tasks build --db); items in ordinal order\n"
        "  --vectors X.npy    sentence vectors, float32 or float64, shape (n, d); row i is the vector of\n"
        "                     the i-th line of the task file (file order, all partitions, n = number of lines),\n"
        "                     or of the stored task's i-th item (ordinal order = the imported file's order)\n"
        "  --run R            with --db --task T: the sentence vectors of encoder run R over task T\n"
        "                     (`synprobe encode --task T --run R`); the result row is linked to the run\n"
        "  --save DB          with --task-file: store the results in DB (created if missing)\n"
        "  --no-save          with --db: do not store the results\n"
        "  --classifier C     logreg (default) or mlp (sigmoid hidden layer; grid nhid {50,100,200} x\n"
        "                     dropout {0,0.1,0.2}, each cell with the l2 grid, chosen on dev);\n"
        "                     a comma-separated list runs each\n"
        "  --preset P         senteval-default (adam, batch 64, tenacity 5, epoch_size 4, max_epoch 200)\n"
        "                     or senteval-fast (rmsprop, batch 128, tenacity 3, epoch_size 2)\n"
        "  --seed N[,N...]    classifier seed (default 1111); a list runs each seed (one result each)\n"
        "  --threads K        worker threads (default 1); results do not depend on K\n"
        "  --nhid N           MLP: use this hidden size only (no nhid grid)\n"
        "  --dropout P        MLP: use this dropout only (no dropout grid)\n"
        "  --optim S          optimizer string as in SentEval, e.g. adam or rmsprop or adam,lr=0.0005\n"
        "  --max-epoch N      override max_epoch\n"
        "  --noreg            l2 grid {1e-9} instead of {1e-5, 1e-4, 1e-3, 1e-2}\n"
        "  --control-seed N   seed of the label shuffle of the control task (default: the run's seed)\n"
        "  --no-control       skip the control task\n"
        "  --json             print the result as JSON instead of text (several runs: a JSON array)\n"
        "  --quiet            no progress lines on stderr\n"
        "\n"
        "Every result includes the majority-class baseline, the control task (labels shuffled within\n"
        "each partition, seed recorded) with selectivity = test - control test, per-class precision /\n"
        "recall / F1 and the confusion matrix (test partition; dev if there is no test partition).\n"
        "Stored results (one probe_result row per classifier x seed, all in one transaction at the end)\n"
        "carry the printed JSON plus \"manifest\": protocol knobs, data sha256 (float32 X, labels,\n"
        "splits), task and vector sources, versions, timestamp. See `synprobe report`.\n"
        "Exit status: 0 ok, 1 bad input, 2 usage.\n");
}

static int next_arg(int argc, char **argv, int *i, const char **val)
{
    if (*i + 1 >= argc) return -1;
    *val = argv[++*i];
    return 0;
}

/* ---- the data of one probe invocation, whatever its sources ---- */

struct probe_data {
    char task[128];
    const char *origin;                 /* for messages: the task file, or "DB: task 'T'" */
    char origin_buf[1200];
    int n;
    const char **labels;                /* n, borrowed from tf or arena */
    unsigned char *split;               /* n, PRB_SPLIT_* */
    long *line;                         /* n, task-file line numbers; NULL for a stored task */
    struct sp_npy X;                    /* (n, d) float32 after dataset_build */
    const char *vectors_name;           /* for messages */
    /* filled by dataset_build */
    int *y, k;
    const char **names;
    char sha256[65];
    /* manifest parts */
    json_t *task_meta, *vectors_meta;
    int64_t task_id;                    /* stored task, 0 for a file */
    /* owners */
    struct ing_senteval_file tf;
    struct sp_arena arena;
};

static void data_init(struct probe_data *d)
{
    memset(d, 0, sizeof *d);
    ing_senteval_init(&d->tf);
    sp_arena_init(&d->arena);
}

static void data_free(struct probe_data *d)
{
    free(d->labels);
    free(d->split);
    free(d->line);
    free(d->y);
    free(d->names);
    sp_npy_free(&d->X);
    json_decref(d->task_meta);
    json_decref(d->vectors_meta);
    ing_senteval_free(&d->tf);
    sp_arena_free(&d->arena);
}

static void data_alloc(struct probe_data *d, int n)
{
    size_t m = (size_t)(n > 0 ? n : 1);
    d->labels = sp_xmalloc(m * sizeof *d->labels);
    d->split = sp_xmalloc(m);
}

/* Task from a SentEval file; the task name is the file's base name without extension. */
static int task_from_file(struct probe_data *d, const char *path, char *err, size_t errlen)
{
    if (ing_senteval_read(path, &d->tf, err, errlen)) return SP_EPARSE;
    d->origin = path;
    d->n = d->tf.n;
    data_alloc(d, d->n);
    d->line = sp_xmalloc((size_t)(d->n > 0 ? d->n : 1) * sizeof *d->line);
    for (int i = 0; i < d->n; i++) {
        const struct ing_senteval_item *it = &d->tf.item[i];
        d->labels[i] = it->label;
        d->split[i] = it->part == ING_PART_TRAIN ? PRB_SPLIT_TRAIN : it->part == ING_PART_DEV ? PRB_SPLIT_DEV : PRB_SPLIT_TEST;
        d->line[i] = it->line;
    }
    const char *base = strrchr(path, '/');
    snprintf(d->task, sizeof d->task, "%s", base ? base + 1 : path);
    char *dot = strrchr(d->task, '.');
    if (dot && dot != d->task) *dot = 0;
    d->task_meta = json_pack("{s:s, s:s, s:s}", "name", d->task, "source", "file", "path", path);
    return SP_OK;
}

struct store_fill { struct probe_data *d; int cap; };

static int store_item(void *vctx, const struct st_task_item *it)
{
    struct store_fill *c = vctx;
    struct probe_data *d = c->d;
    if (d->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        d->labels = sp_xrealloc(d->labels, (size_t)c->cap * sizeof *d->labels);
        d->split = sp_xrealloc(d->split, (size_t)c->cap);
    }
    d->labels[d->n] = sp_arena_strdup(&d->arena, it->label);
    d->split[d->n] = !strcmp(it->split, "tr") ? PRB_SPLIT_TRAIN : !strcmp(it->split, "va") ? PRB_SPLIT_DEV : PRB_SPLIT_TEST;
    d->n++;
    return 0;
}

/* Task from a store: its items in ordinal order, plus kind/seed/params for the manifest. */
static int task_from_store(struct probe_data *d, struct st_db *db, const char *dbpath, const char *name,
                           char *err, size_t errlen)
{
    struct st_task_meta m;
    int rc = st_result_task_meta(db, name, &m, err, errlen);
    if (rc != SP_OK) return rc;
    struct store_fill c = { d, 0 };
    rc = st_task_items(db, name, NULL, store_item, &c, err, errlen);
    if (rc != SP_OK) { free(m.params); return rc; }
    if (!d->labels) data_alloc(d, 0);
    snprintf(d->task, sizeof d->task, "%s", name);
    snprintf(d->origin_buf, sizeof d->origin_buf, "%s: task '%s'", dbpath, name);
    d->origin = d->origin_buf;
    d->task_id = m.id;
    json_t *params = json_loads(m.params ? m.params : "{}", 0, NULL);
    d->task_meta = json_pack("{s:s, s:s, s:s, s:I, s:s, s:o, s:o}", "name", name, "source", "store", "db", dbpath,
                             "task_id", (json_int_t)m.id, "kind", m.kind,
                             "seed", m.has_seed ? json_integer((json_int_t)m.seed) : json_null(),
                             "params", params ? params : json_object());
    free(m.params);
    return SP_OK;
}

/* Vectors from a .npy file (float32/float64, 2-D). */
static int vectors_from_npy(struct probe_data *d, const char *path, char *err, size_t errlen)
{
    if (sp_npy_read(path, &d->X, err, errlen)) return SP_EPARSE;
    if (d->X.ndim != 2 || d->X.dtype == SP_DT_I32) {
        snprintf(err, errlen, "%s: expected a 2-D float32 or float64 array (n, d), got %d-D %s", path, d->X.ndim,
                 sp_dtype_name(d->X.dtype));
        return SP_EPARSE;
    }
    d->vectors_name = path;
    d->vectors_meta = json_pack("{s:s, s:s, s:s, s:[I,I]}", "source", "file", "path", path, "dtype",
                                sp_dtype_name(d->X.dtype), "shape", (json_int_t)d->X.shape[0], (json_int_t)d->X.shape[1]);
    return SP_OK;
}

/* Vectors from a stored encoder run over the same task (`encode --task T --run R`): item k of the
 * task is run item k. A corpus run is refused: task items (BShift, SOMO, CoordInv) need not be
 * corpus sentences, and encoding the task reuses the corpus run's cached vectors anyway. */
struct run_fill { struct probe_data *d; int dim; int64_t missing; };

static int run_item(void *vctx, const struct st_run_item *it)
{
    struct run_fill *c = vctx;
    if (it->ordinal < 1 || it->ordinal > c->d->n) return 0;
    memcpy((float *)c->d->X.data + (size_t)(it->ordinal - 1) * (size_t)c->dim, it->vec, sizeof(float) * (size_t)c->dim);
    c->missing--;
    return 0;
}

static int vectors_from_run(struct probe_data *d, struct st_db *db, const char *run, char *err, size_t errlen)
{
    struct st_run_info ri;
    int rc = st_run_info(db, run, &ri, err, errlen);
    if (rc != SP_OK) return rc;
    if (ri.task_id != d->task_id) {
        if (ri.corpus)
            snprintf(err, errlen, "run '%s' encodes corpus '%s', not task '%s': run `synprobe encode --task %s --run R ...` "
                     "(vectors already cached for the corpus are reused)", run, ri.corpus, d->task, d->task);
        else
            snprintf(err, errlen, "run '%s' encodes task '%s', not task '%s'", run, ri.task ? ri.task : "?", d->task);
        st_run_info_free(&ri);
        return SP_EPARSE;
    }
    d->X.dtype = SP_DT_F32;
    d->X.ndim = 2;
    d->X.shape[0] = (size_t)d->n;
    d->X.shape[1] = (size_t)ri.dim;
    d->X.count = (size_t)d->n * (size_t)ri.dim;
    d->X.data = sp_xmalloc(sizeof(float) * (d->X.count ? d->X.count : 1));
    struct run_fill c = { d, ri.dim, d->n };
    rc = st_run_items(db, run, ST_RUN_VEC, run_item, &c, err, errlen);
    if (rc == SP_OK && c.missing) {
        snprintf(err, errlen, "run '%s' has vectors for %lld of the %d items of task '%s' (the encoder skipped the "
                 "others; see the run's manifest, e.g. `synprobe info` or the run table)", run,
                 (long long)(d->n - c.missing), d->n, d->task);
        rc = SP_EPARSE;
    }
    if (rc == SP_OK) {
        d->vectors_name = run;
        d->vectors_meta = json_pack("{s:s, s:s, s:s, s:s, s:I, s:[I,I]}", "source", "run", "run", run, "encoder_kind",
                                    ri.kind, "fingerprint", ri.fingerprint, "run_id", (json_int_t)ri.run_id, "shape",
                                    (json_int_t)d->n, (json_int_t)ri.dim);
    }
    st_run_info_free(&ri);
    return rc;
}

/* SHA-256 of what the classifiers see: a header "synprobe-probe-data-v1 n d\n", X as float32
 * little-endian row-major, then "split TAB label LF" per row (split tr|va|te). */
static void data_hash(struct probe_data *d)
{
    struct sp_sha256 h;
    sp_sha256_init(&h);
    char hdr[96];
    int len = snprintf(hdr, sizeof hdr, "synprobe-probe-data-v1 %zu %zu\n", d->X.shape[0], d->X.shape[1]);
    sp_sha256_update(&h, hdr, (size_t)len);
    const float *x = d->X.data;
    unsigned char buf[4096];
    size_t fill = 0;
    for (size_t i = 0; i < d->X.count; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        buf[fill++] = (unsigned char)u;
        buf[fill++] = (unsigned char)(u >> 8);
        buf[fill++] = (unsigned char)(u >> 16);
        buf[fill++] = (unsigned char)(u >> 24);
        if (fill == sizeof buf) { sp_sha256_update(&h, buf, fill); fill = 0; }
    }
    sp_sha256_update(&h, buf, fill);
    static const char *const tag[3] = { "tr", "va", "te" };
    for (int i = 0; i < d->n; i++) {
        sp_sha256_update(&h, tag[d->split[i]], 2);
        sp_sha256_update(&h, "\t", 1);
        sp_sha256_update(&h, d->labels[i], strlen(d->labels[i]));
        sp_sha256_update(&h, "\n", 1);
    }
    sp_sha256_hex(&h, d->sha256);
}

/* The one place a dataset is made, from (labels, splits, X) of any source: alignment, classes,
 * hash. Messages name both sources. */
static int dataset_build(const char *cmd, struct probe_data *d, struct prb_dataset *ds)
{
    char err[SP_ERRLEN];
    if (d->X.shape[0] != (size_t)d->n) {
        if (d->line)
            return cli_fail(SP_EXIT_INPUT, cmd, "%s: %zu rows, but %s has %d instance lines (row i must be line i's sentence)",
                           d->vectors_name, d->X.shape[0], d->origin, d->n);
        return cli_fail(SP_EXIT_INPUT, cmd, "%s: %zu rows, but %s has %d items (row i must be item i, ordinal order)",
                       d->vectors_name, d->X.shape[0], d->origin, d->n);
    }
    if (d->X.shape[1] < 1 || d->X.shape[1] > 1000000)
        return cli_fail(SP_EXIT_INPUT, cmd, "%s: bad dimension %zu", d->vectors_name, d->X.shape[1]);
    sp_npy_to_f32(&d->X);
    /* a NaN or infinite component would train to the majority class and be stored as a result */
    const float *x = d->X.data;
    const size_t nc = d->X.shape[1];
    long bad_at = sp_first_nonfinite(x, d->X.shape[0] * nc);
    if (bad_at >= 0)
        return cli_fail(SP_EXIT_INPUT, cmd, "%s: row %zu, column %zu (0-based): %s; vectors must be finite",
                       d->vectors_name, (size_t)bad_at / nc, (size_t)bad_at % nc, sp_nonfinite_kind(x[bad_at]));
    d->y = sp_xmalloc((size_t)(d->n ? d->n : 1) * sizeof *d->y);
    int bad = -1;
    if (prb_label_map(d->n, d->labels, d->split, d->y, &d->k, &d->names, &bad, err, sizeof err)) {
        if (bad >= 0 && d->line) return cli_fail(SP_EXIT_INPUT, cmd, "%s:%ld: %s", d->origin, d->line[bad], err);
        if (bad >= 0) return cli_fail(SP_EXIT_INPUT, cmd, "%s, item %d: %s", d->origin, bad + 1, err);
        return cli_fail(SP_EXIT_INPUT, cmd, "%s: %s", d->origin, err);
    }
    data_hash(d);
    *ds = (struct prb_dataset){ .n = d->n, .d = (int)d->X.shape[1], .k = d->k, .X = d->X.data, .y = d->y,
                                .split = d->split, .class_names = d->names, .task = d->task };
    return SP_EXIT_OK;
}

/* ---- manifest ---- */

static const char *optim_name(enum prb_optim_kind k)
{
    return k == PRB_OPT_ADAM ? "adam" : k == PRB_OPT_RMSPROP ? "rmsprop" : "sgd";
}

static json_t *protocol_json(const struct prb_protocol *p)
{
    const struct prb_train_cfg *t = &p->train;
    json_t *o = json_object(), *opt = json_object(), *l2 = json_array(), *nh = json_array(), *dr = json_array();
    json_object_set_new(o, "name", json_string("senteval"));
    json_object_set_new(o, "preset", json_string(p->preset ? p->preset : "custom"));
    json_object_set_new(o, "classifier", json_string(p->classifier == PRB_MLP ? "mlp" : "logreg"));
    json_object_set_new(opt, "kind", json_string(optim_name(t->optim.kind)));
    json_object_set_new(opt, "lr", json_real(t->optim.lr));
    if (t->optim.kind == PRB_OPT_ADAM) {
        json_object_set_new(opt, "beta1", json_real(t->optim.beta1));
        json_object_set_new(opt, "beta2", json_real(t->optim.beta2));
    }
    if (t->optim.kind == PRB_OPT_RMSPROP) json_object_set_new(opt, "alpha", json_real(t->optim.alpha));
    if (t->optim.kind != PRB_OPT_SGD) json_object_set_new(opt, "eps", json_real(t->optim.eps));
    json_object_set_new(o, "optim", opt);
    json_object_set_new(o, "batch_size", json_integer(t->batch_size));
    json_object_set_new(o, "tenacity", json_integer(t->tenacity));
    json_object_set_new(o, "epoch_size", json_integer(t->epoch_size));
    json_object_set_new(o, "max_epoch", json_integer(t->max_epoch));
    for (int i = 0; i < p->n_l2; i++) json_array_append_new(l2, json_real(p->l2[i]));
    json_object_set_new(o, "l2_grid", l2);
    int mlp = p->classifier == PRB_MLP;
    for (int i = 0; i < (mlp ? p->n_nhid : 1); i++) json_array_append_new(nh, json_integer(mlp ? p->nhid[i] : 0));
    for (int i = 0; i < (mlp ? p->n_dropout : 1); i++) json_array_append_new(dr, json_real(mlp ? p->dropout[i] : 0.0));
    json_object_set_new(o, "nhid_grid", nh);
    json_object_set_new(o, "dropout_grid", dr);
    json_object_set_new(o, "seed", json_integer((json_int_t)t->seed));
    json_object_set_new(o, "control", json_boolean(p->control));
    json_object_set_new(o, "control_seed", p->control ? json_integer((json_int_t)p->control_seed) : json_null());
    json_object_set_new(o, "threads", json_integer(t->threads));
    return o;
}

static json_t *manifest_json(const struct prb_protocol *p, const struct probe_data *d, int argc, char **argv)
{
    json_t *m = sp_manifest_new(argc, argv);
    json_object_set_new(m, "protocol", protocol_json(p));
    json_object_set_new(m, "data", json_pack("{s:s, s:s, s:i, s:i, s:i}", "sha256", d->sha256, "scheme",
                        "synprobe-probe-data-v1: header 'synprobe-probe-data-v1 n d\\n', X float32 LE row-major, "
                        "'split\\tlabel\\n' per row", "n", d->n, "dim", (int)d->X.shape[1], "nclasses", d->k));
    json_object_set(m, "task", d->task_meta);
    json_object_set(m, "vectors", d->vectors_meta);
    return m;
}

/* comma-separated list of integers in [lo, hi] */
static int parse_list(const char *s, long lo, long hi, long *out, int max)
{
    int n = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == max || sp_parse_int(t, lo, hi, &out[n])) return -1;
        n++;
    }
    return n;
}

int cmd_probe(int argc, char **argv)
{
    const char *cmd = "probe";
    const char *task_file = NULL, *vectors = NULL, *run_name = NULL, *classifier = "logreg", *preset = "senteval-default";
    const char *optim = NULL, *db_path = NULL, *task_name = NULL, *save_path = NULL, *seed_s = "1111";
    long threads = 1, nhid = -1, max_epoch = -1, control_seed = -1;
    double dropout = -1;
    int json = 0, quiet = 0, noreg = 0, no_control = 0, no_save = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { help(stdout); return SP_EXIT_OK; }
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--noreg")) noreg = 1;
        else if (!strcmp(a, "--no-control")) no_control = 1;
        else if (!strcmp(a, "--no-save")) no_save = 1;
        else if (!strcmp(a, "--task-file")) { if (next_arg(argc, argv, &i, &task_file)) goto missing; }
        else if (!strcmp(a, "--db")) { if (next_arg(argc, argv, &i, &db_path)) goto missing; }
        else if (!strcmp(a, "--task")) { if (next_arg(argc, argv, &i, &task_name)) goto missing; }
        else if (!strcmp(a, "--save")) { if (next_arg(argc, argv, &i, &save_path)) goto missing; }
        else if (!strcmp(a, "--vectors")) { if (next_arg(argc, argv, &i, &vectors)) goto missing; }
        else if (!strcmp(a, "--run")) { if (next_arg(argc, argv, &i, &run_name)) goto missing; }
        else if (!strcmp(a, "--classifier")) { if (next_arg(argc, argv, &i, &classifier)) goto missing; }
        else if (!strcmp(a, "--preset")) { if (next_arg(argc, argv, &i, &preset)) goto missing; }
        else if (!strcmp(a, "--optim")) { if (next_arg(argc, argv, &i, &optim)) goto missing; }
        else if (!strcmp(a, "--seed")) { if (next_arg(argc, argv, &i, &seed_s)) goto missing; }
        else if (!strcmp(a, "--threads") || !strcmp(a, "--nhid") || !strcmp(a, "--max-epoch") || !strcmp(a, "--control-seed")) {
            if (next_arg(argc, argv, &i, &v)) goto missing;
            long *dst = !strcmp(a, "--threads") ? &threads : !strcmp(a, "--nhid") ? &nhid
                      : !strcmp(a, "--max-epoch") ? &max_epoch : &control_seed;
            long hi = !strcmp(a, "--threads") ? 256 : !strcmp(a, "--nhid") ? 100000 : 2147483647L;
            long lo = !strcmp(a, "--threads") || !strcmp(a, "--nhid") ? 1 : 0;
            if (sp_parse_int(v, lo, hi, dst)) return cli_fail(SP_EXIT_USAGE, cmd, "bad value for %s: '%s'", a, v);
        } else if (!strcmp(a, "--dropout")) {
            if (next_arg(argc, argv, &i, &v)) goto missing;
            char *end;
            dropout = strtod(v, &end);
            if (*end || end == v || !(dropout >= 0 && dropout < 1))
                return cli_fail(SP_EXIT_USAGE, cmd, "bad value for --dropout: '%s' (expected 0 <= p < 1)", v);
        } else {
            cli_fail(SP_EXIT_USAGE, cmd, "unknown option '%s'", a);
            help(stderr);
            return SP_EXIT_USAGE;
        }
        continue;
    missing:
        return cli_fail(SP_EXIT_USAGE, cmd, "option %s needs a value", a);
    }
    if (!!task_file + !!task_name != 1 || !!vectors + !!run_name != 1) {
        cli_fail(SP_EXIT_USAGE, cmd, "give --task-file F or --db DB --task NAME, and --vectors X.npy or --run R");
        help(stderr);
        return SP_EXIT_USAGE;
    }
    if (run_name && !task_name) return cli_fail(SP_EXIT_USAGE, cmd, "--run R needs --db DB --task NAME");
    if (task_name && !db_path) return cli_fail(SP_EXIT_USAGE, cmd, "--task NAME needs --db DB");
    if (task_file && db_path) return cli_fail(SP_EXIT_USAGE, cmd, "--db goes with --task; to store results of --task-file use --save DB");
    if (task_name && save_path) return cli_fail(SP_EXIT_USAGE, cmd, "results of --db --task go to that store; --save is for --task-file");
    if (no_save && !db_path) return cli_fail(SP_EXIT_USAGE, cmd, "--no-save applies to --db");

    /* the runs: classifiers x seeds */
    long seeds[MAX_RUNS];
    int n_seeds = parse_list(seed_s, 0, 2147483647L, seeds, MAX_RUNS);
    if (n_seeds < 1) return cli_fail(SP_EXIT_USAGE, cmd, "bad value for --seed: '%s' (integers, comma-separated)", seed_s);
    enum prb_clf_kind kinds[4];
    int n_kinds = 0;
    {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", classifier);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (n_kinds == 4) return cli_fail(SP_EXIT_USAGE, cmd, "too many classifiers in '%s'", classifier);
            if (!strcmp(t, "logreg")) kinds[n_kinds++] = PRB_LOGREG;
            else if (!strcmp(t, "mlp")) kinds[n_kinds++] = PRB_MLP;
            else return cli_fail(SP_EXIT_USAGE, cmd, "unknown classifier '%s' (expected logreg or mlp)", t);
        }
        if (!n_kinds) return cli_fail(SP_EXIT_USAGE, cmd, "unknown classifier '%s' (expected logreg or mlp)", classifier);
    }
    int any_mlp = 0;
    for (int c = 0; c < n_kinds; c++) any_mlp |= kinds[c] == PRB_MLP;
    if (!any_mlp && (nhid > 0 || dropout >= 0))
        return cli_fail(SP_EXIT_USAGE, cmd, "--nhid and --dropout apply to --classifier mlp only");
    int n_runs = n_kinds * n_seeds;
    if (n_runs > MAX_RUNS) return cli_fail(SP_EXIT_USAGE, cmd, "at most %d classifier x seed runs", MAX_RUNS);
    struct prb_protocol proto[MAX_RUNS];
    char err[SP_ERRLEN];
    for (int c = 0; c < n_kinds; c++)
        for (int s = 0; s < n_seeds; s++) {
            struct prb_protocol *p = &proto[c * n_seeds + s];
            if (prb_protocol_preset(p, preset, kinds[c]))
                return cli_fail(SP_EXIT_USAGE, cmd, "unknown preset '%s' (expected senteval-default or senteval-fast)", preset);
            if (optim && prb_optim_parse(optim, &p->train.optim, err, sizeof err))
                return cli_fail(SP_EXIT_USAGE, cmd, "--optim: %s", err);
            p->train.seed = (uint64_t)seeds[s];
            p->train.threads = (int)threads;
            p->control_seed = control_seed >= 0 ? (uint64_t)control_seed : (uint64_t)seeds[s];
            p->control = !no_control;
            p->verbose = !quiet;
            if (max_epoch >= 0) p->train.max_epoch = (int)max_epoch;
            if (noreg) { p->n_l2 = 1; p->l2[0] = 1e-9; }
            if (kinds[c] == PRB_MLP && nhid > 0) { p->n_nhid = 1; p->nhid[0] = (int)nhid; }
            if (kinds[c] == PRB_MLP && dropout >= 0) { p->n_dropout = 1; p->dropout[0] = dropout; }
        }

    int rc = SP_EXIT_INPUT;
    struct probe_data d;
    data_init(&d);
    struct st_db *db = NULL;
    json_t *out[MAX_RUNS] = { 0 };
    struct st_probe_result rows[MAX_RUNS];
    char *texts[MAX_RUNS] = { 0 };
    int n_done = 0;
    const char *store = db_path && !no_save ? db_path : save_path;

    /* sources; the store is opened first so a bad --db/--save fails before any training */
    if (db_path && st_open(db_path, no_save ? ST_OPEN_READONLY : 0, &db, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, cmd, "%s", err); goto out; }
    if (save_path && st_open(save_path, ST_OPEN_CREATE, &db, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, cmd, "%s", err); goto out; }
    if (task_file ? task_from_file(&d, task_file, err, sizeof err) : task_from_store(&d, db, db_path, task_name, err, sizeof err)) {
        cli_fail(SP_EXIT_INPUT, cmd, "%s", err);
        goto out;
    }
    if (run_name ? vectors_from_run(&d, db, run_name, err, sizeof err) : vectors_from_npy(&d, vectors, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, cmd, "%s", err); goto out; }
    struct prb_dataset ds;
    if (dataset_build(cmd, &d, &ds) != SP_EXIT_OK) goto out;

    for (int r = 0; r < n_runs; r++) {
        struct prb_result res;
        if (prb_senteval_run(&ds, &proto[r], &res, err, sizeof err)) {
            cli_fail(SP_EXIT_INPUT, cmd, "%s: %s", d.origin, err);
            goto out;
        }
        json_t *j = prb_result_json(&res);
        if (task_file) json_object_set_new(j, "task_file", json_string(task_file));
        else { json_object_set_new(j, "db", json_string(db_path)); json_object_set_new(j, "task_name", json_string(task_name)); }
        if (run_name) json_object_set_new(j, "run", json_string(run_name));
        else json_object_set_new(j, "vectors", json_string(vectors));
        if (store) {
            json_t *full = json_deep_copy(j);
            json_object_set_new(full, "manifest", manifest_json(&proto[r], &d, argc, argv));
            texts[r] = json_dumps(full, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
            json_decref(full);
            rows[r] = (struct st_probe_result){ .run = run_name, .task_id = d.task_id, .task_name = d.task,
                                                .classifier = res.classifier == PRB_MLP ? "mlp" : "logreg",
                                                .seed = (int64_t)res.seed, .has_dev = 1, .dev_acc = res.devacc,
                                                .has_test = !isnan(res.testacc), .test_acc = res.testacc,
                                                .result = texts[r] };
        }
        if (!json) {
            if (r) fputc('\n', stdout);
            prb_result_print(stdout, &res);
            fflush(stdout);
        }
        out[r] = j;
        n_done++;
        prb_result_free(&res);
    }
    if (store) {
        int64_t ids[MAX_RUNS];
        if (st_probe_results_put(db, rows, n_runs, ids, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, cmd, "%s", err); goto out; }
        for (int r = 0; r < n_runs; r++) json_object_set_new(out[r], "result_id", json_integer((json_int_t)ids[r]));
        if (!quiet)
            fprintf(stderr, "synprobe probe: stored %d result%s in %s (result_id %lld%s)\n", n_runs, n_runs > 1 ? "s" : "",
                    store, (long long)ids[0], n_runs > 1 ? " ..." : "");
    }
    if (json) {
        json_t *all = n_runs == 1 ? json_incref(out[0]) : json_array();
        if (n_runs > 1) for (int r = 0; r < n_runs; r++) json_array_append(all, out[r]);
        char *s = json_dumps(all, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        if (s) { fputs(s, stdout); fputc('\n', stdout); free(s); }
        json_decref(all);
    }
    rc = SP_EXIT_OK;
out:
    for (int r = 0; r < n_done; r++) { json_decref(out[r]); free(texts[r]); }
    if (db) st_close(db);
    data_free(&d);
    return rc;
}
