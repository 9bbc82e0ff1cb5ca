/* stages/probe.c — the probe stage (see stages/probe.h).
 *
 * Each source only fills a `struct probe_data` (labels, splits, X); dataset_build() then checks
 * the alignment, maps labels to classes (§1.2) and hashes the data, and the protocol of
 * probes/senteval runs on those arrays. A new vector source only has to fill d->X and
 * d->vectors_meta. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/npy.h"
#include "ingest/senteval_file.h"
#include "probes/senteval_protocol.h"
#include "stages/names.h"
#include "stages/manifest.h"
#include "stages/probe.h"
#include "store/st_runs.h"
#include "store/st_tasks.h"

#define MAX_RUNS 64                  /* classifier x seed runs per task */

const struct sp_opt stg_probe_options[] = {
#define O(f) offsetof(struct stg_probe_opts, f)
    { "task-file", SP_OPT_PATH, O(task_file), .metavar = "F",
      .help = "SentEval probing file: tr|va|te TAB label TAB sentence, one instance a line" },
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store of --task (tasks import / tasks build --db)" },
    { "task", SP_OPT_LIST, O(task), .metavar = "T[,T...]",
      .help = "stored tasks, probed in turn; items in ordinal order (needs --db)" },
    { "vectors", SP_OPT_PATH, O(vectors), .metavar = "X.npy",
      .help = "sentence vectors, float32 or float64, shape (n, d); row i is the vector of the i-th line of the task "
              "file (file order, all partitions, n = number of lines), or of the stored task's i-th item (ordinal "
              "order = the imported file's order)" },
    { "run", SP_OPT_STR, O(run), .metavar = "R",
      .help = "with --db --task T: the sentence vectors of encoder run R over task T (`synprobe encode --task T "
              "--run R`); the result row is linked to the run" },
    { "save", SP_OPT_PATH, O(save), .metavar = "DB", .help = "with --task-file: store the results in DB (created if missing)", .flags = SP_OPTF_OUTPUT },
    { "no-save", SP_OPT_FLAG, O(no_save), .help = "with --db: do not store the results" },
    { "classifier", SP_OPT_LIST, O(classifier), "logreg", .metavar = "C[,C...]", .choices = "logreg|mlp",
      .help = "logreg or mlp (sigmoid hidden layer; grid nhid {50,100,200} x dropout {0,0.1,0.2}, each "
              "cell with the l2 grid, chosen on dev); a comma-separated list runs each" },
    { "preset", SP_OPT_CHOICE, O(preset), "senteval-default", .choices = "senteval-default|senteval-fast",
      .help = "senteval-default (adam, batch 64, tenacity 5, epoch_size 4, max_epoch 200) or senteval-fast "
              "(rmsprop, batch 128, tenacity 3, epoch_size 2)" },
    { "optim", SP_OPT_STR, O(optim), .metavar = "S",
      .help = "optimizer string as in SentEval, e.g. adam or rmsprop or adam,lr=0.0005" },
    { "seed", SP_OPT_LIST, O(seed), "1111", .lo = 0, .hi = 2147483647L, .metavar = "N[,N...]",
      .help = "classifier seed; a list runs each seed (one result each)" },
    { "control-seed", SP_OPT_INT, O(control_seed), "-1", .lo = 0, .hi = 2147483647L, .metavar = "N",
      .help = "seed of the label shuffle of the control task (default: the run's seed)", .flags = SP_OPTF_NODEF },
    { "no-control", SP_OPT_FLAG, O(no_control), .help = "skip the control task" },
    { "nhid", SP_OPT_INT, O(nhid), "-1", .lo = 1, .hi = 100000, .metavar = "N",
      .help = "MLP: use this hidden size only (no nhid grid)", .flags = SP_OPTF_NODEF },
    { "dropout", SP_OPT_DOUBLE, O(dropout), "-1", .lo = 0, .hi = 1, .metavar = "P",
      .help = "MLP: use this dropout only (no dropout grid), 0 <= P < 1", .flags = SP_OPTF_NODEF | SP_OPTF_HI_OPEN },
    { "max-epoch", SP_OPT_INT, O(max_epoch), "-1", .lo = 0, .hi = 2147483647L, .metavar = "N",
      .help = "override max_epoch", .flags = SP_OPTF_NODEF },
    { "noreg", SP_OPT_FLAG, O(noreg), .help = "l2 grid {1e-9} instead of {1e-5, 1e-4, 1e-3, 1e-2}" },
    { "threads", SP_OPT_INT, O(threads), "0", .lo = 1, .hi = 256, .metavar = "K", .flags = SP_OPTF_NODEF,
      .help = "worker threads (default: the CPUs it may run on); results do not depend on K" },
#undef O
    { 0 },
};

static const char *const preset_names[] = { "senteval-default", "senteval-fast" };

/* ---- the data of one task, whatever its sources ---- */

struct probe_data {
    char *task;                         /* the task's name, whole (a stored name is the user's); owned */
    const char *origin;                 /* for messages: the task file, or "DB: task 'T'" */
    char origin_buf[1200];
    int n;
    const char **labels;                /* n, borrowed from tf or arena */
    unsigned char *split;               /* n, PRB_SPLIT_* */
    long *line;                         /* n, task-file line numbers; NULL for a stored task */
    int *words;                         /* n, the item's sentence length in words (the length baseline) */
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
    free(d->task);
    free(d->labels);
    free(d->split);
    free(d->line);
    free(d->words);
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
    d->words = sp_xmalloc(m * sizeof *d->words);
}

/* words of a sentence given as tokens separated by spaces */
static int count_words(const char *t)
{
    int n = 0;
    for (int in = 0; t && *t; t++) {
        int sp = *t == ' ' || *t == '\t';
        if (!sp && !in) n++;
        in = !sp;
    }
    return n;
}

/* Task from a SentEval file; the task name is the file's base name without extension. */
static int task_from_file(struct stg_ctx *ctx, struct probe_data *d, const char *path)
{
    if (ing_senteval_read(path, &d->tf, ctx->err, sizeof ctx->err)) return SP_EPARSE;
    d->origin = path;
    d->n = d->tf.n;
    data_alloc(d, d->n);
    d->line = sp_xmalloc((size_t)(d->n > 0 ? d->n : 1) * sizeof *d->line);
    for (int i = 0; i < d->n; i++) {
        const struct ing_senteval_item *it = &d->tf.item[i];
        d->labels[i] = it->label;
        d->split[i] = it->part == ING_PART_TRAIN ? PRB_SPLIT_TRAIN : it->part == ING_PART_DEV ? PRB_SPLIT_DEV : PRB_SPLIT_TEST;
        d->line[i] = it->line;
        d->words[i] = count_words(it->sentence);
    }
    const char *base = strrchr(path, '/');
    d->task = sp_xstrdup(base ? base + 1 : path);
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
        d->words = sp_xrealloc(d->words, (size_t)c->cap * sizeof *d->words);
    }
    d->words[d->n] = count_words(it->text);
    d->labels[d->n] = sp_arena_strdup(&d->arena, it->label);
    d->split[d->n] = !strcmp(it->split, "tr") ? PRB_SPLIT_TRAIN : !strcmp(it->split, "va") ? PRB_SPLIT_DEV : PRB_SPLIT_TEST;
    d->n++;
    return 0;
}

/* Task from a store: its items in ordinal order, plus kind/seed/params for the manifest. */
static int task_from_store(struct stg_ctx *ctx, struct probe_data *d, struct st_db *db, const char *dbpath,
                           const char *name)
{
    struct st_task_meta m;
    int rc = st_result_task_meta(db, name, &m, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) return rc;
    struct store_fill c = { d, 0 };
    rc = st_task_items(db, name, NULL, store_item, &c, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) { free(m.params); return rc; }
    if (!d->labels) data_alloc(d, 0);
    d->task = sp_xstrdup(name);
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
static int vectors_from_npy(struct stg_ctx *ctx, struct probe_data *d, const char *path)
{
    int rc = sp_npy_read(path, &d->X, ctx->err, sizeof ctx->err);
    if (rc) return rc == SP_ESTOPPED ? stg_stopped(ctx) : SP_EPARSE;
    if (d->X.ndim != 2 || d->X.dtype == SP_DT_I32)
        return stg_fail(ctx, SP_EPARSE, "%s: expected a 2-D float32 or float64 array (n, d), got %d-D %s", path,
                        d->X.ndim, sp_dtype_name(d->X.dtype));
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

static int run_matches_task(struct stg_ctx *ctx, const struct st_run_info *ri, const struct probe_data *d, const char *run)
{
    if (ri->task_id == d->task_id) return SP_OK;
    if (ri->corpus)
        return stg_fail(ctx, SP_EPARSE, "run '%s' encodes corpus '%s', not task '%s': run `synprobe encode --task %s "
                        "--run R ...` (vectors already cached for the corpus are reused)", run, ri->corpus, d->task, d->task);
    return stg_fail(ctx, SP_EPARSE, "run '%s' encodes task '%s', not task '%s'", run, ri->task ? ri->task : "?", d->task);
}

static int vectors_from_run(struct stg_ctx *ctx, struct probe_data *d, struct st_db *db, const char *run)
{
    struct st_run_info ri;
    int rc = st_run_info(db, run, &ri, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) return rc;
    if ((rc = run_matches_task(ctx, &ri, d, run)) != SP_OK) { st_run_info_free(&ri); return rc; }
    d->X.dtype = SP_DT_F32;
    d->X.ndim = 2;
    d->X.shape[0] = (size_t)d->n;
    d->X.shape[1] = (size_t)ri.dim;
    d->X.count = (size_t)d->n * (size_t)ri.dim;
    d->X.data = sp_xmalloc(sizeof(float) * (d->X.count ? d->X.count : 1));
    struct run_fill c = { d, ri.dim, d->n };
    rc = st_run_items(db, run, ST_RUN_VEC, run_item, &c, ctx->err, sizeof ctx->err);
    if (rc == SP_OK && c.missing)
        rc = stg_fail(ctx, SP_EPARSE, "run '%s' has vectors for %lld of the %d items of task '%s' (the encoder skipped "
                      "the others; see the run's manifest, e.g. `synprobe info` or the run table)", run,
                      (long long)(d->n - c.missing), d->n, d->task);
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
static int dataset_build(struct stg_ctx *ctx, struct probe_data *d, struct prb_dataset *ds)
{
    if (d->X.shape[0] != (size_t)d->n) {
        if (d->line)
            return stg_fail(ctx, SP_EPARSE, "%s: %zu rows, but %s has %d instance lines (row i must be line i's sentence)",
                            d->vectors_name, d->X.shape[0], d->origin, d->n);
        return stg_fail(ctx, SP_EPARSE, "%s: %zu rows, but %s has %d items (row i must be item i, ordinal order)",
                        d->vectors_name, d->X.shape[0], d->origin, d->n);
    }
    if (d->X.shape[1] < 1 || d->X.shape[1] > 1000000)
        return stg_fail(ctx, SP_EPARSE, "%s: bad dimension %zu", d->vectors_name, d->X.shape[1]);
    if (d->X.dtype == SP_DT_F64) {   /* a finite float64 beyond float32's range would become infinite here */
        const double *x64 = d->X.data;
        const size_t nc64 = d->X.shape[1];
        for (size_t i = 0; i < d->X.count; i++)
            if (isfinite(x64[i]) && fabs(x64[i]) > FLT_MAX)
                return stg_fail(ctx, SP_EPARSE, "%s: row %zu, column %zu (0-based): %g is beyond float32's range (+-%g), "
                                "which the probes compute in; vectors must be finite in float32",
                                d->vectors_name, i / nc64, i % nc64, x64[i], (double)FLT_MAX);
    }
    sp_npy_to_f32(&d->X);
    /* a NaN or infinite component would train to the majority class and be stored as a result */
    const float *x = d->X.data;
    const size_t nc = d->X.shape[1];
    long bad_at = sp_first_nonfinite(x, d->X.shape[0] * nc);
    if (bad_at >= 0)
        return stg_fail(ctx, SP_EPARSE, "%s: row %zu, column %zu (0-based): %s; vectors must be finite",
                        d->vectors_name, (size_t)bad_at / nc, (size_t)bad_at % nc, sp_nonfinite_kind(x[bad_at]));
    d->y = sp_xmalloc((size_t)(d->n ? d->n : 1) * sizeof *d->y);
    int bad = -1;
    char err[SP_ERRLEN];
    if (prb_label_map(d->n, d->labels, d->split, d->y, &d->k, &d->names, &bad, err, sizeof err)) {
        if (bad >= 0 && d->line) return stg_fail(ctx, SP_EPARSE, "%s:%ld: %s", d->origin, d->line[bad], err);
        if (bad >= 0) return stg_fail(ctx, SP_EPARSE, "%s, item %d: %s", d->origin, bad + 1, err);
        return stg_fail(ctx, SP_EPARSE, "%s: %s", d->origin, err);
    }
    data_hash(d);
    *ds = (struct prb_dataset){ .n = d->n, .d = (int)d->X.shape[1], .k = d->k, .X = d->X.data, .y = d->y,
                                .split = d->split, .class_names = d->names, .task = d->task };
    return SP_OK;
}

/* ---- manifest ---- */

static json_t *manifest_json(const struct stg_ctx *ctx, const struct stg_probe_opts *o, const struct prb_protocol *p,
                            const struct probe_data *d)
{
    json_t *m = stg_manifest_new(ctx, &o->command, stg_probe_options, o);
    json_object_set_new(m, "protocol", prb_protocol_json(p));
    json_object_set_new(m, "data", json_pack("{s:s, s:s, s:i, s:i, s:i}", "sha256", d->sha256, "scheme",
                        "synprobe-probe-data-v1: header 'synprobe-probe-data-v1 n d\\n', X float32 LE row-major, "
                        "'split\\tlabel\\n' per row", "n", d->n, "dim", (int)d->X.shape[1], "nclasses", d->k));
    json_object_set(m, "task", d->task_meta);
    json_object_set(m, "vectors", d->vectors_meta);
    return m;
}

/* ---- the plan: classifiers x seeds ---- */

struct plan {
    int n;
    struct prb_protocol proto[MAX_RUNS];
};

static int parse_seeds(struct stg_ctx *ctx, const struct stg_probe_opts *o, long *seeds, int *n)
{
    *n = 0;
    if (!o->seed.n) return stg_fail(ctx, SP_EUSAGE, "--seed: expected at least one seed");
    for (int i = 0; i < o->seed.n; i++) {
        if (*n == MAX_RUNS) return stg_fail(ctx, SP_EUSAGE, "at most %d classifier x seed runs", MAX_RUNS);
        if (sp_parse_int(o->seed.v[i], 0, 2147483647L, &seeds[(*n)++]))
            return stg_fail(ctx, SP_EUSAGE, "--seed: expected integers 0..2147483647, comma-separated, got '%s'",
                            o->seed.v[i]);
    }
    return SP_OK;
}

static int parse_classifiers(struct stg_ctx *ctx, const struct stg_probe_opts *o, enum prb_clf_kind *kinds, int *n)
{
    *n = 0;
    if (!o->classifier.n) return stg_fail(ctx, SP_EUSAGE, "--classifier: expected logreg, mlp or both");
    for (int i = 0; i < o->classifier.n; i++) {
        const char *t = o->classifier.v[i];
        if (*n == 4) return stg_fail(ctx, SP_EUSAGE, "--classifier: at most 4 classifiers");
        if (!strcmp(t, "logreg")) kinds[(*n)++] = PRB_LOGREG;
        else if (!strcmp(t, "mlp")) kinds[(*n)++] = PRB_MLP;
        else return stg_fail(ctx, SP_EUSAGE, "--classifier: expected logreg or mlp, got '%s'", t);
    }
    return SP_OK;
}

static int protocol_set(struct stg_ctx *ctx, const struct stg_probe_opts *o, struct prb_protocol *p,
                        enum prb_clf_kind kind, long seed)
{
    char err[SP_ERRLEN];
    prb_protocol_preset(p, preset_names[o->preset], kind);
    if (o->optim && prb_optim_parse(o->optim, &p->train.optim, err, sizeof err))
        return stg_fail(ctx, SP_EUSAGE, "--optim: %s", err);
    p->train.seed = (uint64_t)seed;
    p->train.threads = o->threads > 0 ? (int)o->threads : sp_cpu_count();
    p->control_seed = o->control_seed >= 0 ? (uint64_t)o->control_seed : (uint64_t)seed;
    p->control = !o->no_control;
    p->log = ctx->log;
    if (o->max_epoch >= 0) p->train.max_epoch = (int)o->max_epoch;
    if (o->noreg) { p->n_l2 = 1; p->l2[0] = 1e-9; }
    if (kind == PRB_MLP && o->nhid > 0) { p->n_nhid = 1; p->nhid[0] = (int)o->nhid; }
    if (kind == PRB_MLP && o->dropout >= 0) { p->n_dropout = 1; p->dropout[0] = o->dropout; }
    return SP_OK;
}

static int plan_make(struct stg_ctx *ctx, const struct stg_probe_opts *o, struct plan *pl)
{
    long seeds[MAX_RUNS];
    enum prb_clf_kind kinds[4];
    int n_seeds, n_kinds, rc, any_mlp = 0;
    if ((rc = parse_seeds(ctx, o, seeds, &n_seeds)) || (rc = parse_classifiers(ctx, o, kinds, &n_kinds))) return rc;
    for (int c = 0; c < n_kinds; c++) any_mlp |= kinds[c] == PRB_MLP;
    if (!any_mlp && (o->nhid > 0 || o->dropout != -1))
        return stg_fail(ctx, SP_EUSAGE, "--nhid and --dropout apply to --classifier mlp only");
    if (n_kinds * n_seeds > MAX_RUNS) return stg_fail(ctx, SP_EUSAGE, "at most %d classifier x seed runs", MAX_RUNS);
    pl->n = 0;
    for (int c = 0; c < n_kinds; c++)
        for (int s = 0; s < n_seeds; s++)
            if ((rc = protocol_set(ctx, o, &pl->proto[pl->n++], kinds[c], seeds[s]))) return rc;
    return SP_OK;
}

/* Which sources go together: a task file or stored tasks, vectors from a file or a run. */
static int check_sources(struct stg_ctx *ctx, const struct stg_probe_opts *o)
{
    if (!!o->task_file + !!o->task.n != 1 || !!o->vectors + !!o->run != 1)
        return stg_fail(ctx, SP_EUSAGE, "give --task-file F or --db DB --task NAME, and --vectors X.npy or --run R");
    if (o->run && !o->task.n) return stg_fail(ctx, SP_EUSAGE, "--run R needs --db DB --task NAME");
    if (o->task.n && !o->db) return stg_fail(ctx, SP_EUSAGE, "--task NAME needs --db DB");
    if (o->task_file && o->db)
        return stg_fail(ctx, SP_EUSAGE, "--db goes with --task; to store results of --task-file use --save DB");
    if (o->task.n && o->save)
        return stg_fail(ctx, SP_EUSAGE, "results of --db --task go to that store; --save is for --task-file");
    if (o->no_save && !o->db) return stg_fail(ctx, SP_EUSAGE, "--no-save applies to --db");
    return SP_OK;
}

/* ---- running ---- */

struct probe_run_ctx {
    struct stg_ctx *ctx;
    const struct stg_probe_opts *o;
    const struct plan *pl;
    struct st_db *db;
    const char *store;                   /* NULL: results are not stored */
    struct stg_probe_result *r;
    uint64_t total;                      /* runs of the whole call, for progress */
};

static char *result_text(const struct prb_result *res)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return sp_xstrdup("");
    prb_result_print(f, res);
    fclose(f);
    return buf;
}

/* One finished protocol run: its JSON, text and (when storing) the row with its manifest. */
static void run_keep(struct probe_run_ctx *pc, const struct probe_data *d, const struct prb_protocol *p,
                     const struct prb_result *res, json_t *length_bl)
{
    const struct stg_probe_opts *o = pc->o;
    struct stg_probe_run *run = &pc->r->runs[pc->r->n++];
    memset(run, 0, sizeof *run);
    run->task = sp_xstrdup(d->task);
    json_t *j = prb_result_json(res);
    json_t *bl = json_object_get(j, "baselines");
    if (json_is_object(bl)) json_object_set_new(bl, "length", length_bl);
    else json_decref(length_bl);
    if (o->task_file) json_object_set_new(j, "task_file", json_string(o->task_file));
    else { json_object_set_new(j, "db", json_string(o->db)); json_object_set_new(j, "task_name", json_string(d->task)); }
    if (o->run) json_object_set_new(j, "run", json_string(o->run));
    else json_object_set_new(j, "vectors", json_string(o->vectors));
    run->json = j;
    run->text = result_text(res);
    if (!pc->store) return;
    json_t *full = json_deep_copy(j);
    json_object_set_new(full, "manifest", manifest_json(pc->ctx, o, p, d));
    char *txt = json_dumps(full, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(full);
    run->row = (struct st_probe_result){ .run = o->run, .task_id = d->task_id, .task_name = run->task,
                                         .classifier = res->classifier == PRB_MLP ? "mlp" : "logreg",
                                         .seed = (int64_t)res->seed, .has_dev = 1, .dev_acc = res->devacc,
                                         .has_test = !isnan(res->testacc), .test_acc = res->testacc, .result = txt };
}

/* The length-only baseline (the confound of TreeDepth and friends): the same protocol, classifier
 * and seed on one-hot sentence length (bins 1..STG_LEN_BINS words, longer sentences in the last),
 * so a linear probe can learn any class per length. Its accuracy beside the encoder's says how
 * much of a task sentence length alone explains. */
#define STG_LEN_BINS 80
static int length_baseline(const struct prb_dataset *ds, const struct probe_data *d, const struct prb_protocol *p,
                           json_t **out, char *err, size_t errlen)
{
    int L = 1;
    for (int i = 0; i < d->n; i++) if (d->words[i] > L) L = d->words[i];
    if (L > STG_LEN_BINS) L = STG_LEN_BINS;
    float *X = sp_xcalloc((size_t)d->n * (size_t)L + 1, sizeof *X);
    for (int i = 0; i < d->n; i++) {
        int w = d->words[i] < 1 ? 1 : d->words[i] > L ? L : d->words[i];
        X[(size_t)i * (size_t)L + (size_t)(w - 1)] = 1.0f;
    }
    struct prb_dataset dl = *ds;
    dl.X = X;
    dl.d = L;
    struct prb_protocol pl = *p;
    pl.control = 0;
    struct prb_result r;
    int rc = prb_senteval_run(&dl, &pl, &r, err, errlen);
    if (rc == SP_OK) {
        *out = json_pack("{s:s, s:i, s:o, s:o}", "kind", "the same probe on one-hot sentence length (words)", "bins", L,
                         "devacc", isnan(r.devacc) ? json_null() : json_real(r.devacc),
                         "acc", isnan(r.testacc) ? json_null() : json_real(r.testacc));
        prb_result_free(&r);
    }
    free(X);
    return rc;
}

/* Load one task and its vectors, then run every classifier x seed on them. */
static int probe_one_task(struct probe_run_ctx *pc, const char *task)
{
    struct stg_ctx *ctx = pc->ctx;
    const struct stg_probe_opts *o = pc->o;
    struct probe_data d;
    data_init(&d);
    struct prb_dataset ds;
    int rc = task ? task_from_store(ctx, &d, pc->db, o->db, task) : task_from_file(ctx, &d, o->task_file);
    if (rc == SP_OK) rc = o->run ? vectors_from_run(ctx, &d, pc->db, o->run) : vectors_from_npy(ctx, &d, o->vectors);
    if (rc == SP_OK) rc = dataset_build(ctx, &d, &ds);
    for (int i = 0; rc == SP_OK && i < pc->pl->n; i++) {
        if (stg_stopping(ctx)) { rc = stg_stopped(ctx); break; }     /* between runs: nothing half-done */
        struct prb_result res;
        char err[SP_ERRLEN];
        if (prb_senteval_run(&ds, &pc->pl->proto[i], &res, err, sizeof err)) {
            rc = stg_fail(ctx, SP_EPARSE, "%s: %s", d.origin, err);
            break;
        }
        json_t *lb = NULL;
        if (length_baseline(&ds, &d, &pc->pl->proto[i], &lb, err, sizeof err)) {
            prb_result_free(&res);
            rc = stg_fail(ctx, SP_EPARSE, "%s: the length baseline: %s", d.origin, err);
            break;
        }
        run_keep(pc, &d, &pc->pl->proto[i], &res, lb);
        prb_result_free(&res);
        stg_progress(ctx, "runs", (uint64_t)pc->r->n, pc->total);
    }
    data_free(&d);
    return rc;
}

/* Every row in one transaction, then the ids into the printed JSON. */
static int store_rows(struct probe_run_ctx *pc)
{
    struct stg_probe_result *r = pc->r;
    struct st_probe_result *rows = sp_xmalloc(sizeof *rows * (size_t)(r->n ? r->n : 1));
    int64_t *ids = sp_xmalloc(sizeof *ids * (size_t)(r->n ? r->n : 1));
    for (int i = 0; i < r->n; i++) rows[i] = r->runs[i].row;
    int rc = st_probe_results_put(pc->db, rows, r->n, ids, pc->ctx->err, sizeof pc->ctx->err);
    for (int i = 0; rc == SP_OK && i < r->n; i++) {
        r->runs[i].result_id = ids[i];
        json_object_set_new(r->runs[i].json, "result_id", json_integer((json_int_t)ids[i]));
    }
    if (rc == SP_OK) r->store = pc->store;
    free(rows);
    free(ids);
    return rc;
}

/* The store: opened first so that a bad --db/--save fails before any training; every --task and
 * --run checked against it, with the nearest names when one is not there. */
static int open_store(struct probe_run_ctx *pc)
{
    const struct stg_probe_opts *o = pc->o;
    struct stg_ctx *ctx = pc->ctx;
    const char *path = o->db ? o->db : o->save;
    if (!path) return SP_OK;
    int rc = stg_open_store(ctx, path, o->db ? (o->no_save ? ST_OPEN_READONLY : 0) : ST_OPEN_CREATE, &pc->db);
    if (rc != SP_OK) return rc;
    for (int i = 0; o->db && i < o->task.n; i++)
        if ((rc = stg_known_name(ctx, pc->db, o->db, STG_NAME_TASK, o->task.v[i]))) return rc;
    if (o->run && (rc = stg_known_name(ctx, pc->db, o->db, STG_NAME_RUN, o->run))) return rc;
    return SP_OK;
}

/* ---- a stored task and its run for other stages (stages/mdl.c) ---- */

int stg_probe_set_load(struct stg_ctx *ctx, struct st_db *db, const char *dbpath, const char *task, const char *run,
                       struct stg_probe_set *ps)
{
    memset(ps, 0, sizeof *ps);
    struct probe_data *d = sp_xmalloc(sizeof *d);
    data_init(d);
    ps->priv = d;
    struct prb_dataset ds;
    int rc = task_from_store(ctx, d, db, dbpath, task);
    if (rc == SP_OK) rc = vectors_from_run(ctx, d, db, run);
    if (rc == SP_OK) rc = dataset_build(ctx, d, &ds);
    if (rc != SP_OK) return rc;
    *ps = (struct stg_probe_set){ ds.n, ds.d, ds.k, ds.X, ds.y, ds.split, ds.class_names, "", d };
    memcpy(ps->sha256, d->sha256, sizeof ps->sha256);
    return SP_OK;
}

void stg_probe_set_free(struct stg_probe_set *ps)
{
    if (ps->priv) {
        data_free(ps->priv);
        free(ps->priv);
    }
    memset(ps, 0, sizeof *ps);
}

int stg_probe_check(struct stg_ctx *ctx, const struct stg_probe_opts *o)
{
    struct plan *pl = sp_xmalloc(sizeof *pl);
    int rc = check_sources(ctx, o);
    if (rc == SP_OK) rc = plan_make(ctx, o, pl);
    free(pl);
    return rc;
}

int stg_probe(struct stg_ctx *ctx, const struct stg_probe_opts *o, struct stg_probe_result *r)
{
    memset(r, 0, sizeof *r);
    struct plan *pl = sp_xmalloc(sizeof *pl);
    int rc = check_sources(ctx, o);                  /* stg_probe_check's rules, the plan kept */
    if (rc == SP_OK) rc = plan_make(ctx, o, pl);
    if (rc != SP_OK) { free(pl); return rc; }
    int n_tasks = o->task.n ? o->task.n : 1;
    r->runs = sp_xcalloc((size_t)(n_tasks * pl->n), sizeof *r->runs);
    struct probe_run_ctx pc = { ctx, o, pl, NULL, o->db && !o->no_save ? o->db : o->save, r,
                                (uint64_t)(n_tasks * pl->n) };
    double t0 = sp_now();
    rc = open_store(&pc);
    for (int t = 0; rc == SP_OK && t < n_tasks; t++) rc = probe_one_task(&pc, o->task.n ? o->task.v[t] : NULL);
    if (rc == SP_OK && pc.store) rc = store_rows(&pc);
    st_close(pc.db);
    free(pl);
    r->seconds = sp_now() - t0;
    if (rc != SP_OK) return rc;
    if (r->store)
        sp_log(ctx->log, SP_LOG_INFO, "probe: %d run%s (%d task%s) in %.1fs; stored %d result%s in %s (result_id %lld%s)",
               r->n, r->n > 1 ? "s" : "", n_tasks, n_tasks > 1 ? "s" : "", r->seconds, r->n, r->n > 1 ? "s" : "",
               r->store, (long long)r->runs[0].result_id, r->n > 1 ? " ..." : "");
    else
        sp_log(ctx->log, SP_LOG_INFO, "probe: %d run%s (%d task%s) in %.1fs; not stored", r->n, r->n > 1 ? "s" : "",
               n_tasks, n_tasks > 1 ? "s" : "", r->seconds);
    return SP_OK;
}

void stg_probe_result_free(struct stg_probe_result *r)
{
    for (int i = 0; r->runs && i < r->n; i++) {
        json_decref(r->runs[i].json);
        free(r->runs[i].task);
        free(r->runs[i].text);
        free((char *)r->runs[i].row.result);
    }
    free(r->runs);
    memset(r, 0, sizeof *r);
}

/* ---- tasks the protocol cannot run on ---- */

int stg_probe_unfit_tasks(struct stg_ctx *ctx, struct st_db *db, json_t **unfit)
{
    *unfit = json_object();
    struct st_task_row *rows = NULL;
    int n = 0;
    if (st_task_list(db, &rows, &n, ctx->err, sizeof ctx->err)) { json_decref(*unfit); *unfit = NULL; return SP_ESTORE; }
    for (int i = 0; i < n; i++) {
        char why[256];
        if (prb_senteval_unfit((long)rows[i].n[0], (long)rows[i].n[1], why, sizeof why))
            json_object_set_new(*unfit, rows[i].name, json_string(why));
    }
    /* the tasks a build skipped (no items, no test items, no trees ...): its stored tasks' params
     * name them ("skipped"), under the build's prefix (a stored name less its kind) */
    for (int i = 0; i < n; i++) {
        json_error_t e;
        json_t *p = rows[i].params ? json_loads(rows[i].params, 0, &e) : NULL;
        json_t *sk = json_object_get(p, "skipped");
        size_t ln = strlen(rows[i].name), lk = rows[i].kind ? strlen(rows[i].kind) : 0;
        if (json_is_object(sk) && lk && ln >= lk && !strcmp(rows[i].name + ln - lk, rows[i].kind)) {
            const char *task;
            json_t *why;
            json_object_foreach(sk, task, why) {
                char full[1024];
                snprintf(full, sizeof full, "%.*s%s", (int)(ln - lk), rows[i].name, task);
                int stored = 0;
                for (int k = 0; k < n && !stored; k++) stored = !strcmp(rows[k].name, full);
                if (!stored && !json_object_get(*unfit, full))
                    json_object_set_new(*unfit, full, json_sprintf("tasks build skipped it: %s",
                                                                    json_is_string(why) ? json_string_value(why) : "not built"));
            }
        }
        json_decref(p);
    }
    st_task_rows_free(rows, n);
    return SP_OK;
}

int stg_probe_unfit_tasks_at(struct stg_ctx *ctx, const char *path, json_t **unfit)
{
    struct stat sb;
    if (stat(path, &sb) || sb.st_size == 0) { *unfit = json_object(); return SP_OK; }
    struct st_db *db;
    if (st_open(path, ST_OPEN_READONLY, &db, ctx->err, sizeof ctx->err)) { *unfit = NULL; return SP_ESTORE; }
    int rc = stg_probe_unfit_tasks(ctx, db, unfit);
    st_close(db);
    return rc;
}
