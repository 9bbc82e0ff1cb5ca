/* stages/mdl.c — the MDL-probe stage (see stages/mdl.h): gather the training and dev items of a
 * token or sentence task with their task and control labels, send each with the online code
 * (probes/online_code.c), store the figures. */
#include "stages/mdl.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/control.h"
#include "probes/online_code.h"
#include "probes/senteval_protocol.h"
#include "stages/manifest.h"
#include "stages/names.h"
#include "stages/partition.h"
#include "stages/probe.h"
#include "stages/tokprobe.h"
#include "store/st_results.h"
#include "store/store.h"

const struct sp_opt stg_mdl_options[] = {
#define O(f) offsetof(struct stg_mdl_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store", .flags = SP_OPTF_REQUIRED },
    { "corpus", SP_OPT_STR, O(corpus), .metavar = "C", .help = "upos, deprel: the corpus whose words are labelled" },
    { "run", SP_OPT_STR, O(run), .metavar = "R",
      .help = "upos, deprel: a run of the corpus encoded with --token-vectors; a sentence task: a run encoding the task",
      .flags = SP_OPTF_REQUIRED },
    { "task", SP_OPT_STR, O(task), "upos", .metavar = "T",
      .help = "upos or deprel (every word's label, as tokprobe), or a stored sentence task (as probe)" },
    { "strip-subtype", SP_OPT_FLAG, O(strip_subtype), .help = "deprel: nmod:poss counts as nmod" },
    { "seed", SP_OPT_INT, O(seed), "1111", .lo = 0, .hi = LONG_MAX, .metavar = "N",
      .help = "the probes' seed and the order the training items are sent in" },
    { "control-seed", SP_OPT_INT, O(control_seed), "1", .lo = 0, .hi = LONG_MAX, .metavar = "N",
      .help = "the control labels' seed (a label per word type; a sentence task: its labels shuffled)" },
    { "no-control", SP_OPT_FLAG, O(no_control), .help = "do not send the control task's labels (half the time)" },
    { "split-seed", SP_OPT_INT, O(split_seed), "1", .lo = 0, .hi = LONG_MAX, .metavar = "N",
      .help = "upos, deprel: the re-split of a corpus without train/dev/test" },
    { "max-epoch", SP_OPT_INT, O(max_epoch), "200", .lo = 1, .hi = 100000, .metavar = "N",
      .help = "bounds the passes of each block's probe (SentEval's max_epoch)" },
    { "threads", SP_OPT_INT, O(threads), "0", .lo = 1, .hi = 256, .metavar = "K", .flags = SP_OPTF_NODEF,
      .help = "threads that train the probes (default: the CPUs it may run on); results do not depend on K" },
    { "dump", SP_OPT_PATH, O(dump), .metavar = "FILE", .flags = SP_OPTF_OUTPUT,
      .help = "write every transmitted item's block, label and logits to FILE (tab-separated, for checking the "
              "codelength: tests/reference/mdl_ref.py)" },
    { "no-save", SP_OPT_FLAG, O(no_save), .help = "do not store the result" },
#undef O
    { 0 },
};

/* ---- the items to send ---- */

struct mdl_data {
    const char *task;              /* "token:upos", "token:deprel" or the sentence task */
    const float *X;
    int d, k;
    int *y, *yc;                   /* [rows of X] task and control class ids (-1: none) */
    int *tr, *dv;                  /* training rows in transmission order; dev rows */
    long ntr;
    int ndv;
    const char *control_kind, *partition;
    struct stg_tokset ts;          /* token tasks: the owner of X */
    struct stg_probe_set ps;       /* sentence tasks: the owner of X */
    struct prb_control ctl;
    int have_ctl;
};

static void data_free(struct mdl_data *m)
{
    free(m->y); free(m->yc); free(m->tr); free(m->dv);
    if (m->have_ctl) prb_control_free(&m->ctl);
    stg_tokset_free(&m->ts);
    stg_probe_set_free(&m->ps);
}

/* Fisher-Yates from a seed, in place */
static void shuffle(int *v, long n, uint64_t seed)
{
    struct sp_rng rng;
    sp_rng_seed(&rng, seed);
    for (long i = n - 1; i > 0; i--) {
        long j = (long)sp_rng_below(&rng, (uint64_t)i + 1);
        int t = v[i]; v[i] = v[j]; v[j] = t;
    }
}

static int too_few(struct stg_ctx *ctx, const char *what, long ntr, long ndv)
{
    return stg_fail(ctx, SP_EPARSE, "%s: %ld training and %ld dev items: MDL needs training items to send and dev items to "
                    "early-stop each block's probe", what, ntr, ndv);
}

/* upos / deprel: the words of the corpus's train and dev partitions (tokprobe's) */
static int load_tokens(struct stg_ctx *ctx, struct st_db *db, const struct stg_mdl_opts *o, int tok_task, struct mdl_data *m)
{
    int64_t cid = 0;
    int rc = stg_corpus_id(ctx, db, o->db, o->corpus, &cid);
    if (rc == SP_OK) rc = stg_known_name(ctx, db, o->db, STG_NAME_RUN, o->run);
    if (rc == SP_OK) rc = stg_corpus_run_check(ctx, db, o->run, cid, o->corpus, "mdl");
    struct stg_tokprobe_opts to = { .db = o->db, .corpus = o->corpus, .run = o->run, .task = tok_task,
                                    .strip_subtype = o->strip_subtype, .split_seed = o->split_seed };
    if (rc == SP_OK) rc = stg_tokset_load(ctx, db, &to, cid, &m->ts);
    if (rc != SP_OK) return rc;
    const struct stg_tokset *ts = &m->ts;
    if (ts->n[0] < 1 || ts->n[1] < 1) return too_few(ctx, ts->how, ts->n[0], ts->n[1]);
    char err[SP_ERRLEN];
    if (prb_control_build(&m->ctl, &ts->s[0], &ts->s[1], &ts->s[2], (uint64_t)o->control_seed, err, sizeof err))
        return stg_fail(ctx, SP_EPARSE, "%s", err);
    m->have_ctl = 1;
    long ntok = ts->n[0] + ts->n[1], nrow = 0;
    for (long i = 0; i < ntok; i++)
        if (ts->xrow[i] + 1 > nrow) nrow = ts->xrow[i] + 1;
    m->y = sp_xmalloc(sizeof *m->y * (size_t)nrow);
    m->yc = sp_xmalloc(sizeof *m->yc * (size_t)nrow);
    int *tk = sp_xmalloc(sizeof *tk * (size_t)ntok), *ck = sp_xmalloc(sizeof *ck * (size_t)ntok);
    prb_control_ids(&m->ctl, &ts->s[0], tk, ck);
    prb_control_ids(&m->ctl, &ts->s[1], tk + ts->n[0], ck + ts->n[0]);
    for (long i = 0; i < nrow; i++) m->y[i] = m->yc[i] = -1;
    for (long i = 0; i < ntok; i++) { m->y[ts->xrow[i]] = tk[i]; m->yc[ts->xrow[i]] = ck[i]; }
    free(tk);
    free(ck);
    m->ntr = ts->n[0];
    m->ndv = (int)ts->n[1];
    m->tr = sp_xmalloc(sizeof *m->tr * (size_t)m->ntr);
    m->dv = sp_xmalloc(sizeof *m->dv * (size_t)m->ndv);
    memcpy(m->tr, ts->xrow, sizeof *m->tr * (size_t)m->ntr);
    memcpy(m->dv, ts->xrow + m->ntr, sizeof *m->dv * (size_t)m->ndv);
    m->X = ts->X;
    m->d = ts->d;
    m->k = m->ctl.n_labels;
    m->task = tok_task ? "token:deprel" : "token:upos";
    m->control_kind = "control task: a random label per word type (Hewitt & Liang)";
    m->partition = ts->how;
    return SP_OK;
}

/* a stored sentence task and run R over it (probe's) */
static int load_sentences(struct stg_ctx *ctx, struct st_db *db, const struct stg_mdl_opts *o, struct mdl_data *m)
{
    int rc = stg_known_name(ctx, db, o->db, STG_NAME_TASK, o->task);
    if (rc == SP_OK) rc = stg_known_name(ctx, db, o->db, STG_NAME_RUN, o->run);
    if (rc == SP_OK) rc = stg_probe_set_load(ctx, db, o->db, o->task, o->run, &m->ps);
    if (rc != SP_OK) return rc;
    const struct stg_probe_set *ps = &m->ps;
    size_t n = (size_t)(ps->n > 0 ? ps->n : 1);
    m->y = sp_xmalloc(sizeof *m->y * n);
    m->yc = sp_xmalloc(sizeof *m->yc * n);
    m->tr = sp_xmalloc(sizeof *m->tr * n);
    m->dv = sp_xmalloc(sizeof *m->dv * n);
    int *te = sp_xmalloc(sizeof *te * n), nte = 0;
    memcpy(m->y, ps->y, sizeof *m->y * (size_t)ps->n);
    for (int i = 0; i < ps->n; i++) {
        if (ps->split[i] == PRB_SPLIT_TRAIN) m->tr[m->ntr++] = i;
        else if (ps->split[i] == PRB_SPLIT_DEV) m->dv[m->ndv++] = i;
        else te[nte++] = i;
    }
    if (m->ntr < 1 || m->ndv < 1) { free(te); return too_few(ctx, o->task, m->ntr, m->ndv); }
    /* the protocol's control: the labels shuffled within each partition (train, dev, test in turn,
     * one stream from the control seed), as probes/senteval_protocol.c draws them */
    memcpy(m->yc, ps->y, sizeof *m->yc * (size_t)ps->n);
    struct sp_rng rng;
    sp_rng_seed(&rng, (uint64_t)o->control_seed);
    const int *part[3] = { m->tr, m->dv, te };
    long np[3] = { m->ntr, m->ndv, nte };
    for (int q = 0; q < 3; q++)
        for (long i = np[q] - 1; i > 0; i--) {
            long j = (long)sp_rng_below(&rng, (uint64_t)i + 1);
            int t = m->yc[part[q][i]]; m->yc[part[q][i]] = m->yc[part[q][j]]; m->yc[part[q][j]] = t;
        }
    free(te);
    m->X = ps->X;
    m->d = ps->d;
    m->k = ps->k;
    m->task = o->task;
    m->control_kind = "control task: the labels shuffled within each partition (the probing protocol's)";
    m->partition = "the task's train/dev/test items";
    return SP_OK;
}

/* ---- the dump for tests/reference/mdl_ref.py ---- */

struct dump { FILE *f; const char *code; };

/* "code TAB block TAB label TAB logits" per item, logits "-" for a uniform block, after a header
 * line "#code TAB n TAB K" per code */
static void dump_block(void *arg, int block, const int *rows, const int *y, long size, int K, const float *logits)
{
    struct dump *dp = arg;
    for (long i = 0; i < size; i++) {
        fprintf(dp->f, "%s\t%d\t%d\t%d\t", dp->code, block, rows[i], y[i]);
        if (!logits) fputc('-', dp->f);
        for (int k = 0; logits && k < K; k++) fprintf(dp->f, k ? " %.9g" : "%.9g", (double)logits[(size_t)i * K + k]);
        fputc('\n', dp->f);
    }
}

/* ---- the figures ---- */

static json_t *num(double v) { return isnan(v) ? json_null() : json_real(v); }

static json_t *code_json(const struct prb_mdl_result *r)
{
    json_t *blocks = json_array();
    for (int b = 0; b < PRB_MDL_NBLOCKS; b++) {
        const struct prb_mdl_block *B = &r->block[b];
        json_t *o = json_pack("{s:I, s:I, s:o, s:s}", "start", (json_int_t)B->start, "size", (json_int_t)B->size, "bits",
                              json_real(B->bits), "code", B->uniform ? "uniform" : "probe");
        if (!B->uniform && B->size) {
            json_object_set_new(o, "dev_acc", num(100.0 * B->dev));
            json_object_set_new(o, "dev_bits", num(B->dev_bits));
            json_object_set_new(o, "passes", json_integer(B->passes));
        }
        json_array_append_new(blocks, o);
    }
    return json_pack("{s:i, s:I, s:o, s:o, s:o, s:o}", "labels", r->k, "ntrain", (json_int_t)r->n, "codelength_bits",
                     json_real(r->codelength), "uniform_bits", json_real(r->uniform), "compression", num(r->compression),
                     "blocks", blocks);
}

static json_t *result_json(const struct stg_mdl_opts *o, const struct mdl_data *m, const struct prb_mdl_result *rt,
                           const struct prb_mdl_result *rc)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:i}", "method", "mdl", "task", m->task, "run", o->run, "classifier",
                          "logreg", "seed", (json_int_t)o->seed, "ndev", (json_int_t)m->ndv, "dim", m->d);
    json_t *c = code_json(rt);
    json_object_update(j, c);
    json_decref(c);
    if (rc) {
        json_t *ct = code_json(rc);
        json_object_set_new(ct, "kind", json_string(m->control_kind));
        json_object_set_new(ct, "seed", json_integer((json_int_t)o->control_seed));
        json_object_set_new(j, "control", ct);
        json_object_set_new(j, "selectivity_bits", json_real(rc->codelength - rt->codelength));
    }
    json_object_set_new(j, "order", json_sprintf("the training items in a random order drawn from seed %ld", o->seed));
    json_object_set_new(j, "example_passes", json_integer((json_int_t)(rt->example_passes + (rc ? rc->example_passes : 0))));
    return j;
}

static int save_result(struct stg_ctx *ctx, struct st_db *db, const struct stg_mdl_opts *o, const struct mdl_data *m,
                       struct stg_mdl_result *r)
{
    int rc = stg_turn_take(ctx);            /* layers side by side: the ids in layer order */
    if (rc != SP_OK) return rc;
    json_t *full = json_deep_copy(r->json);
    json_t *man = stg_manifest_new(ctx, &o->command, stg_mdl_options, o);
    json_object_set_new(man, "partition", json_string(m->partition));
    if (m->ps.priv) json_object_set_new(man, "data_sha256", json_string(m->ps.sha256));   /* probe's data hash */
    json_object_set_new(man, "code", json_string("online code, Voita & Titov 2020: blocks at 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, "
                                                 "6.25, 12.5, 25, 50, 100 % of train; warm-started logistic regression"));
    json_object_set_new(full, "manifest", man);
    char *txt = json_dumps(full, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    struct st_probe_result row = { .run = o->run, .task_id = 0, .task_name = m->task, .classifier = "mdl", .seed = o->seed,
                                   .result = txt };
    rc = st_probe_results_put(db, &row, 1, &r->result_id, ctx->err, sizeof ctx->err);
    free(txt);
    json_decref(full);
    return rc;
}

/* ---- the stage ---- */

static int send_all(struct stg_ctx *ctx, const struct stg_mdl_opts *o, struct mdl_data *m, struct prb_mdl_result *rt,
                    struct prb_mdl_result *rc)
{
    shuffle(m->tr, m->ntr, (uint64_t)o->seed);
    struct prb_train_cfg cfg;
    prb_train_cfg_default(&cfg);
    cfg.seed = (uint64_t)o->seed;
    cfg.max_epoch = (int)o->max_epoch;
    cfg.threads = o->threads > 0 ? (int)o->threads : sp_cpu_count();
    FILE *f = NULL;
    if (o->dump && !(f = fopen(o->dump, "w")))
        return stg_fail(ctx, SP_EIO, "%s: cannot write: %s", o->dump, strerror(errno));
    struct dump dp = { f, "task" };
    char err[SP_ERRLEN];
    int ret = SP_OK;
    for (int code = 0; code < (o->no_control ? 1 : 2) && ret == SP_OK; code++) {
        if (stg_stopping(ctx)) { ret = stg_stopped(ctx); break; }
        dp.code = code ? "control" : "task";
        if (f) fprintf(f, "#%s\t%ld\t%d\n", dp.code, m->ntr, m->k);
        double t0 = sp_now();
        int k = prb_mdl_online(m->X, m->d, code ? m->yc : m->y, m->k, m->tr, m->ntr, m->dv, m->ndv, &cfg, ctx->stop,
                               f ? dump_block : NULL, &dp, code ? rc : rt, err, sizeof err);
        if (k == -2) ret = stg_stopped(ctx);
        else if (k) ret = stg_fail(ctx, SP_EPARSE, "%s: %s", m->task, err);
        else
            sp_log(ctx->log, SP_LOG_DEBUG, "mdl: %s %s on run %s: %.1f bits in %.1fs", m->task, dp.code, o->run,
                   (code ? rc : rt)->codelength, sp_now() - t0);
    }
    if (f && fclose(f) != 0 && ret == SP_OK) ret = stg_fail(ctx, SP_EIO, "%s: write error", o->dump);
    return ret;
}

int stg_mdl_check(struct stg_ctx *ctx, const struct stg_mdl_opts *o)
{
    enum prb_tok_task tt;
    int tok = o->task && prb_tok_task_parse(o->task, &tt) == 0;
    if (tok && !o->corpus)
        return stg_fail(ctx, SP_EUSAGE, "--task %s needs --corpus C (the corpus whose words run %s encodes)", o->task,
                        o->run ? o->run : "R");
    if (!tok && o->corpus)
        return stg_fail(ctx, SP_EUSAGE, "--corpus: a sentence task ('%s') brings its own items; --corpus is for upos and "
                        "deprel", o->task);
    if (!tok && o->strip_subtype)
        return stg_fail(ctx, SP_EUSAGE, "--strip-subtype is for --task deprel, not a sentence task ('%s')", o->task);
    return SP_OK;
}

int stg_mdl(struct stg_ctx *ctx, const struct stg_mdl_opts *o, struct stg_mdl_result *r)
{
    memset(r, 0, sizeof *r);
    r->codelength = r->compression = r->control_codelength = r->control_compression = NAN;
    struct mdl_data m = { 0 };
    struct st_db *db = NULL;
    int rc = stg_mdl_check(ctx, o);
    if (rc == SP_OK) rc = stg_open_store(ctx, o->db, o->no_save ? ST_OPEN_READONLY : 0, &db);
    enum prb_tok_task tt;
    if (rc == SP_OK)
        rc = prb_tok_task_parse(o->task, &tt) == 0 ? load_tokens(ctx, db, o, (int)tt, &m) : load_sentences(ctx, db, o, &m);
    struct prb_mdl_result rt, rcn;
    if (rc == SP_OK) rc = send_all(ctx, o, &m, &rt, &rcn);
    if (rc == SP_OK) {
        r->json = result_json(o, &m, &rt, o->no_control ? NULL : &rcn);
        r->codelength = rt.codelength;
        r->compression = rt.compression;
        if (!o->no_control) {
            r->control_codelength = rcn.codelength;
            r->control_compression = rcn.compression;
        }
    }
    if (rc == SP_OK && !o->no_save) rc = save_result(ctx, db, o, &m, r);
    data_free(&m);
    if (db) st_close(db);
    return rc;
}

void stg_mdl_result_free(struct stg_mdl_result *r)
{
    json_decref(r->json);
    r->json = NULL;
}
