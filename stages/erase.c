/* stages/erase.c — the erasure stage (see stages/erase.h). */
#include "stages/erase.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/strmap.h"
#include "probes/control.h"
#include "probes/erasers.h"
#include "probes/tokview.h"
#include "probes/structprobe_train.h"
#include "common/gemm.h"
#include "stages/manifest.h"
#include "stages/names.h"
#include "stages/partition.h"
#include "store/st_results.h"
#include "store/st_runs.h"
#include "store/st_tasks.h"
#include "store/store.h"
#include "treeops/treeops.h"

const struct sp_opt stg_erase_options[] = {
#define O(f) offsetof(struct stg_erase_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store", .flags = SP_OPTF_REQUIRED },
    { "corpus", SP_OPT_STR, O(corpus), .metavar = "C", .help = "the corpus whose words are labelled", .flags = SP_OPTF_REQUIRED },
    { "run", SP_OPT_STR, O(run), .metavar = "R", .help = "a run of the corpus encoded with --token-vectors (of the task, for a task)",
      .flags = SP_OPTF_REQUIRED },
    { "property", SP_OPT_STR, O(property), .metavar = "P", .flags = SP_OPTF_REQUIRED,
      .help = "what to erase: upos, deprel (the relation of the word's arc), depth (its depth in the dependency tree), or "
              "the label of a stored sentence task (--run then a run of that task)" },
    { "method", SP_OPT_CHOICE, O(method), "leace", .choices = "leace|inlp",
      .help = "LEACE in closed form, or INLP (iterated null-space projection of a trained logistic regression)" },
    { "out-run", SP_OPT_STR, O(out_run), .metavar = "NAME", .flags = SP_OPTF_REQUIRED,
      .help = "the run the erased vectors are stored as" },
    { "fit", SP_OPT_CHOICE, O(fit), "train", .choices = "train|all",
      .help = "the words the eraser is fitted on: the train partition's, or every labelled word" },
    { "iterations", SP_OPT_INT, O(iterations), "10", .lo = 1, .hi = 1000, .metavar = "N",
      .help = "inlp: classifiers trained and projected out" },
    { "shrinkage", SP_OPT_FLAG, O(shrinkage),
      .help = "leace: shrink the covariance towards a multiple of the identity (concept-erasure's shrinkage)" },
    { "uuas", SP_OPT_FLAG, O(uuas),
      .help = "also train Hewitt & Manning's distance probe (full rank, docs/spec/models.md M4) before, after and after the random "
              "control, and give its test UUAS (three structprobe trainings)" },
    { "seed", SP_OPT_INT, O(seed), "1111", .lo = 0, .hi = LONG_MAX, .metavar = "N",
      .help = "the probes' and INLP's seed; the random control's directions" },
    { "split-seed", SP_OPT_INT, O(split_seed), "1", .lo = 0, .hi = LONG_MAX, .metavar = "N",
      .help = "the re-split of a corpus without train/dev/test" },
    { "max-epoch", SP_OPT_INT, O(max_epoch), "200", .lo = 1, .hi = 100000, .metavar = "N",
      .help = "the most epochs of each probe and INLP classifier" },
    { "threads", SP_OPT_INT, O(threads), "0", .lo = 1, .hi = 256, .metavar = "K", .flags = SP_OPTF_NODEF,
      .help = "threads of the covariance, the probes and the erasure (default: the CPUs it may run on); results do "
              "not depend on K" },
#undef O
    { 0 },
};

enum { PROP_UPOS = 0, PROP_DEPREL, PROP_DEPTH, PROP_TASK, PROP_NONE };
static const char *const prop_task[] = { "token:upos", "token:deprel", "token:depth" };

/* One item of the source run, kept to write the erased run */
struct item {
    int64_t ordinal, sentence_id, task_ordinal;
    char *hash;
    int n, dim, tok_dim;
    float *vec;
    int has_tok;                     /* 0: the run keeps no token vectors */
    float *tok;                      /* its own copy, or NULL: rows xrow.. of the walk's X */
    long xrow;
};

struct ewalk {
    struct stg_ctx *ctx;
    const struct stg_erase_opts *o;
    int prop, other;                 /* the property, the other token task (PROP_*; PROP_NONE: none) */
    int task_mode;                   /* a sentence task: each item is a "sentence" of one row, its
                                      * sentence vector, labelled with the item's label */
    struct sp_arena a;
    int n_sent, cap;
    long *first;                     /* [n_sent + 1] */
    int *len;
    const char **split;
    long n_tok, tcap;
    const char **lab[2];             /* [n_tok] the property's and the other task's label, NULL: none */
    int *head;                       /* [n_tok] 0-based head within the sentence, -1 root */
    uint8_t *punct;                  /* [n_tok] 1: punctuation (H&M's XPOS list) */
    uint8_t *tree;                   /* [n_sent] the sentence has one dependency tree */
    float *X;                        /* [n_tok][d] */
    int d;
    uint8_t *have;
    long n_mismatch, n_no_tree;
    struct item *it;
    long n_it, it_cap;
};

static const char *label_of(struct ewalk *w, const struct sp_sentence *s, int i, int prop, const int *depth)
{
    if (prop == PROP_DEPTH) return depth ? sp_arena_printf(&w->a, "%d", depth[i]) : NULL;
    const char *l = prb_tok_label(&w->a, s, i, prop == PROP_UPOS ? PRB_TASK_UPOS : PRB_TASK_DEPREL, 0);
    return l && strcmp(l, "_") ? sp_arena_strdup(&w->a, l) : NULL;
}

static int read_corpus(struct ewalk *w, struct st_db *db, int64_t cid)
{
    struct st_iter *iter;
    int rc = st_iter_open(db, cid, 0, &iter, w->ctx->err, sizeof w->ctx->err);
    if (rc != SP_OK) return rc;
    for (;;) {
        const struct st_row *row;
        int k = st_iter_next(iter, &row);
        if (k == 0) break;
        if (k < 0) { rc = stg_fail(w->ctx, SP_ESTORE, "%s", st_iter_error(iter)); break; }
        if (w->n_sent == w->cap) {
            w->cap = w->cap ? 2 * w->cap : 4096;
            w->first = sp_xrealloc(w->first, sizeof *w->first * (size_t)(w->cap + 1));
            w->len = sp_xrealloc(w->len, sizeof *w->len * (size_t)w->cap);
            w->split = sp_xrealloc(w->split, sizeof *w->split * (size_t)w->cap);
        }
        const struct sp_sentence *s = &row->s;
        int n = s->n;
        w->first[w->n_sent] = w->n_tok;
        w->len[w->n_sent] = n;
        w->split[w->n_sent] = row->split ? sp_arena_strdup(&w->a, row->split) : NULL;
        w->n_sent++;
        if (w->n_tok + n > w->tcap) {
            while (w->n_tok + n > w->tcap) w->tcap = w->tcap ? 2 * w->tcap : 65536;
            for (int t = 0; t < 2; t++) w->lab[t] = sp_xrealloc(w->lab[t], sizeof *w->lab[t] * (size_t)w->tcap);
            w->head = sp_xrealloc(w->head, sizeof *w->head * (size_t)w->tcap);
            w->punct = sp_xrealloc(w->punct, (size_t)w->tcap);
        }
        w->tree = sp_xrealloc(w->tree, (size_t)w->cap);
        w->tree[w->n_sent - 1] = 0;
        if (n > 0) prb_punct_mask(s, PRB_PUNCT_XPOS, w->punct + w->n_tok);
        for (int i = 0; i < n; i++) w->head[w->n_tok + i] = s->head ? s->head[i] : -1;
        int *depth = NULL, *order = NULL;
        if (s->head && n > 0 && (w->prop == PROP_DEPTH || w->other == PROP_DEPTH)) {
            depth = sp_xmalloc(sizeof *depth * (size_t)n);
            order = sp_xmalloc(sizeof *order * (size_t)n);
            if (tops_depth(n, s->head, order, depth)) { free(depth); depth = NULL; }
        }
        if (s->head && n > 0) {                  /* one tree: what the distance probe needs */
            int *o2 = sp_xmalloc(sizeof *o2 * (size_t)n), *d2 = sp_xmalloc(sizeof *d2 * (size_t)n);
            w->tree[w->n_sent - 1] = tops_depth(n, s->head, o2, d2) == 0;
            free(o2);
            free(d2);
        }
        if (!depth && w->prop == PROP_DEPTH) w->n_no_tree++;
        for (int i = 0; i < n; i++) {
            w->lab[0][w->n_tok + i] = label_of(w, s, i, w->prop, depth);
            w->lab[1][w->n_tok + i] = label_of(w, s, i, w->other, depth);
        }
        free(depth);
        free(order);
        w->n_tok += n;
    }
    w->first[w->n_sent] = w->n_tok;
    st_iter_close(iter);
    return rc;
}

/* A sentence task's items, in ordinal order: one row each, its label and its partition */
static int on_task_item(void *ctx, const struct st_task_item *ti)
{
    struct ewalk *w = ctx;
    if (w->n_sent == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 4096;
        w->first = sp_xrealloc(w->first, sizeof *w->first * (size_t)(w->cap + 1));
        w->len = sp_xrealloc(w->len, sizeof *w->len * (size_t)w->cap);
        w->split = sp_xrealloc(w->split, sizeof *w->split * (size_t)w->cap);
        for (int t = 0; t < 2; t++) w->lab[t] = sp_xrealloc(w->lab[t], sizeof *w->lab[t] * (size_t)w->cap);
    }
    int k = w->n_sent++;
    w->first[k] = k;
    w->len[k] = 1;
    w->split[k] = !strcmp(ti->split, "tr") ? "train" : !strcmp(ti->split, "va") ? "dev" : "test";
    w->lab[0][k] = sp_arena_strdup(&w->a, ti->label);
    w->lab[1][k] = NULL;
    w->n_tok = k + 1;
    w->first[k + 1] = k + 1;
    return 0;
}

static int on_item(void *ctx, const struct st_run_item *ri)
{
    struct ewalk *w = ctx;
    if (stg_stopping(w->ctx)) return SP_ESTOPPED;
    if (w->n_it == w->it_cap) {
        w->it_cap = w->it_cap ? 2 * w->it_cap : 1024;
        w->it = sp_xrealloc(w->it, sizeof *w->it * (size_t)w->it_cap);
    }
    struct item *t = &w->it[w->n_it++];
    *t = (struct item){ ri->ordinal, ri->sentence_id, ri->task_ordinal, sp_xstrdup(ri->hash), ri->n_tokens, ri->dim,
                        ri->tok_dim, NULL, 0, NULL, -1 };
    t->vec = sp_xmalloc(sizeof *t->vec * (size_t)(ri->dim > 0 ? ri->dim : 1));
    if (ri->vec) memcpy(t->vec, ri->vec, sizeof *t->vec * (size_t)ri->dim);
    size_t nt = (size_t)ri->n_tokens * (size_t)ri->tok_dim;
    t->has_tok = ri->tok != NULL;
    t->xrow = -1;
    if (!ri->tok) t->tok_dim = 0;
    long k = (long)ri->ordinal - 1;
    int matched = 0;
    if (w->task_mode) {
        if (k >= 0 && k < w->n_sent && ri->vec) {
            if (!w->d) {
                w->d = ri->dim;
                w->X = sp_xmalloc(sizeof *w->X * ((size_t)w->n_tok * (size_t)w->d + 1));
            }
            memcpy(w->X + (size_t)k * (size_t)w->d, ri->vec, sizeof(float) * (size_t)w->d);
            w->have[k] = 1;
        }
    } else if (k >= 0 && k < w->n_sent && ri->tok) {
        if (!w->d) {
            w->d = ri->tok_dim;
            w->X = sp_xmalloc(sizeof *w->X * ((size_t)w->n_tok * (size_t)w->d + 1));
        }
        if (ri->tok_dim != w->d || ri->dim != w->it[0].dim)
            return stg_fail(w->ctx, SP_EPARSE, "run %s: item %lld has %d-dim token vectors (%d-dim sentence vector), the "
                            "first %d (%d): a run of one width is needed", w->o->run, (long long)ri->ordinal, ri->tok_dim,
                            ri->dim, w->d, w->it[0].dim);
        if (ri->n_tokens != w->len[k]) {
            w->n_mismatch++;
        } else {                             /* its token vectors live in X only */
            memcpy(w->X + (size_t)w->first[k] * (size_t)w->d, ri->tok, sizeof(float) * nt);
            w->have[k] = 1;
            t->xrow = w->first[k];
            matched = 1;
        }
    }
    if (ri->tok && !matched) {
        t->tok = sp_xmalloc(sizeof *t->tok * (nt ? nt : 1));
        memcpy(t->tok, ri->tok, sizeof *t->tok * nt);
    }
    return 0;
}

static void free_walk(struct ewalk *w)
{
    for (long i = 0; i < w->n_it; i++) { free(w->it[i].hash); free(w->it[i].vec); free(w->it[i].tok); }
    free(w->it);
    free(w->first); free(w->len); free(w->split); free(w->lab[0]); free(w->lab[1]); free(w->X); free(w->have);
    free(w->head); free(w->punct); free(w->tree);
    sp_arena_free(&w->a);
}

/* ---- writing the erased run ---- */

static char *eraser_fingerprint(const struct st_run_info *src, const struct stg_erase_opts *o, json_t **config)
{
    *config = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:b, s:I}", "kind", "erase", "source_fingerprint",
                        src->fingerprint, "corpus", o->corpus, "property", o->property, "method",
                        o->method == STG_ERASE_INLP ? "inlp" : "leace", "fit", o->fit ? "all" : "train", "seed",
                        (json_int_t)o->seed, "split_seed", (json_int_t)o->split_seed, "iterations",
                        (json_int_t)(o->method == STG_ERASE_INLP ? o->iterations : 0), "shrinkage",
                        o->method == STG_ERASE_LEACE && o->shrinkage, "max_epoch",
                        (json_int_t)(o->method == STG_ERASE_INLP ? o->max_epoch : 0));
    char *txt = json_dumps(*config, JSON_COMPACT | JSON_SORT_KEYS);
    struct sp_sha256 h;
    char hex[65];
    sp_sha256_init(&h);
    sp_sha256_update(&h, txt, strlen(txt));
    sp_sha256_hex(&h, hex);
    free(txt);
    return sp_xstrdup(hex);
}

#define WRITE_BATCH 256

static int write_run(struct stg_ctx *ctx, struct st_db *db, const struct stg_erase_opts *o, const struct st_run_info *src,
                     const struct ewalk *w, const struct prb_eraser *e, int threads, json_t *run_manifest, long *n_items)
{
    json_t *config;
    char *fp = eraser_fingerprint(src, o, &config);
    char *ctext = json_dumps(config, JSON_COMPACT | JSON_SORT_KEYS);
    char err[SP_ERRLEN * 2];
    int64_t enc_id = 0, run_id = 0;
    int created = 0;
    struct st_encoder se = { fp, "erase", ctext, src->dim, SP_STYPE_F32 };
    int rc = st_encoder_upsert(db, &se, &enc_id, err, sizeof err);
    struct st_run_spec spec = { o->out_run, enc_id, src->corpus_id, src->task_id, src->token_vectors, -1 };
    if (!rc) {
        rc = st_run_begin(db, &spec, &run_id, &created, err, sizeof err);
        if (rc == SP_EEXIST)
            rc = stg_fail(ctx, SP_EPARSE, "--out-run %s: %s; give another name", o->out_run, err);
        else if (rc)
            rc = stg_fail(ctx, SP_ESTORE, "%s", err);
    } else {
        rc = stg_fail(ctx, SP_ESTORE, "%s", err);
    }
    struct st_vector_put *vp = sp_xcalloc(WRITE_BATCH, sizeof *vp);
    struct st_run_item_put *ip = sp_xcalloc(WRITE_BATCH, sizeof *ip);
    float *vbuf = NULL, *tbuf = NULL;
    size_t vcap = 0, tcap = 0;
    for (long b0 = 0; !rc && b0 < w->n_it; b0 += WRITE_BATCH) {
        if (stg_stopping(ctx)) { rc = stg_stopped(ctx); break; }
        long nb = w->n_it - b0 < WRITE_BATCH ? w->n_it - b0 : WRITE_BATCH;
        size_t nv = 0, nt = 0;
        for (long i = b0; i < b0 + nb; i++) {
            nv += (size_t)w->it[i].dim;
            if (w->it[i].has_tok) nt += (size_t)w->it[i].n * (size_t)w->it[i].tok_dim;
        }
        if (nv > vcap) vbuf = sp_xrealloc(vbuf, sizeof *vbuf * (vcap = nv));
        if (nt > tcap) tbuf = sp_xrealloc(tbuf, sizeof *tbuf * (tcap = nt));
        size_t ov = 0, ot = 0;
        for (long i = b0; i < b0 + nb; i++) {
            const struct item *t = &w->it[i];
            float *v = vbuf + ov, *tk = t->has_tok ? tbuf + ot : NULL;
            memcpy(v, t->vec, sizeof *v * (size_t)t->dim);
            if (tk) memcpy(tk, t->tok ? t->tok : w->X + (size_t)t->xrow * (size_t)w->d, sizeof *tk * (size_t)t->n * (size_t)t->tok_dim);
            vp[i - b0] = (struct st_vector_put){ .hash = t->hash, .dim = t->dim, .vec = v, .n_tokens = t->n,
                                                 .tok_dim = t->tok_dim, .tok = tk, .attn_layer = -1 };
            ip[i - b0] = (struct st_run_item_put){ t->ordinal, t->sentence_id, t->task_ordinal, t->hash };
            ov += (size_t)t->dim;
            if (tk) ot += (size_t)t->n * (size_t)t->tok_dim;
        }
        /* one width for the run's sentence vectors and one for its token vectors (on_item checks): the
         * batch at once, each through the map when it has the map's width */
        if (src->dim == e->d) prb_eraser_apply(e, vbuf, NULL, (long)(ov / (size_t)e->d), vbuf, threads);
        if (ot && w->it[b0].tok_dim == e->d) prb_eraser_apply(e, tbuf, NULL, (long)(ot / (size_t)e->d), tbuf, threads);
        if ((rc = st_run_write(db, run_id, enc_id, vp, (int)nb, ip, (int)nb, err, sizeof err)))
            rc = stg_fail(ctx, SP_ESTORE, "%s", err);
    }
    if (!rc) {
        json_object_set_new(run_manifest, "encoder", config);
        config = NULL;
        char *mtext = json_dumps(run_manifest, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        if ((rc = st_run_finish(db, run_id, mtext, NULL, 0, err, sizeof err))) rc = stg_fail(ctx, SP_ESTORE, "%s", err);
        free(mtext);
    }
    if (rc && created && run_id) {
        char derr[SP_ERRLEN];
        if (st_run_discard(db, &run_id, 1, derr, sizeof derr)) sp_log(ctx->log, SP_LOG_ERROR, "%s", derr);
    }
    *n_items = rc ? 0 : w->n_it;
    free(vp); free(ip); free(vbuf); free(tbuf);
    json_decref(config);
    free(ctext);
    free(fp);
    return rc;
}

/* ---- the stage ---- */

static int parse_property(struct stg_ctx *ctx, const char *p, int *prop, int *other)
{
    if (!strcmp(p, "upos")) *prop = PROP_UPOS, *other = PROP_DEPREL;
    else if (!strcmp(p, "deprel")) *prop = PROP_DEPREL, *other = PROP_UPOS;
    else if (!strcmp(p, "depth")) *prop = PROP_DEPTH, *other = PROP_UPOS;
    else *prop = PROP_TASK, *other = PROP_NONE;       /* a sentence task of the store: checked there */
    return SP_OK;
}

static json_t *three_json(double before, double after, double random, double dev_before, double dev_after,
                          double dev_random)
{
    return json_pack("{s:o, s:o, s:o, s:{s:o, s:o, s:o}}", "before", stg_json_num(before), "after", stg_json_num(after),
                     "random", stg_json_num(random), "devacc", "before", stg_json_num(dev_before), "after",
                     stg_json_num(dev_after), "random", stg_json_num(dev_random));
}

int stg_erase_check(struct stg_ctx *ctx, const struct stg_erase_opts *o)
{
    int prop, other;
    int rc = parse_property(ctx, o->property, &prop, &other);
    if (rc == SP_OK && o->run && o->out_run && !strcmp(o->run, o->out_run))
        rc = stg_fail(ctx, SP_EUSAGE, "--out-run %s: the erased vectors need a run of their own, not --run's", o->out_run);
    return rc;
}

int stg_erase(struct stg_ctx *ctx, const struct stg_erase_opts *o, struct stg_erase_result *r)
{
    memset(r, 0, sizeof *r);
    struct ewalk w = { .ctx = ctx, .o = o };
    sp_arena_init(&w.a);
    struct st_db *db = NULL;
    struct st_run_info src = { 0 };
    int64_t cid = 0;
    int rc = stg_erase_check(ctx, o);
    if (rc == SP_OK) parse_property(ctx, o->property, &w.prop, &w.other);
    if (rc == SP_OK) rc = stg_open_store(ctx, o->db, 0, &db);
    if (rc == SP_OK) rc = stg_corpus_id(ctx, db, o->db, o->corpus, &cid);
    if (rc == SP_OK) rc = stg_known_name(ctx, db, o->db, STG_NAME_RUN, o->run);
    if (rc == SP_OK && w.prop == PROP_TASK) {
        /* a sentence task: run R encodes the task (encode --task T), the task was built from C */
        w.task_mode = 1;
        int64_t tid = 0, tcid = 0;
        rc = stg_known_name(ctx, db, o->db, STG_NAME_TASK, o->property);
        if (rc == SP_EPARSE) {
            char why[SP_ERRLEN];
            snprintf(why, sizeof why, "%s", ctx->err);
            rc = stg_fail(ctx, SP_EPARSE, "--property %s: not upos, deprel or depth, and %s", o->property, why);
        }
        if (rc == SP_OK && st_task_source(db, o->property, &tid, &tcid, ctx->err, sizeof ctx->err)) rc = SP_ESTORE;
        if (rc == SP_OK && tcid && tcid != cid)
            rc = stg_fail(ctx, SP_EPARSE, "task '%s' was not built from corpus '%s'", o->property, o->corpus);
        if (rc == SP_OK && st_run_info(db, o->run, &src, ctx->err, sizeof ctx->err)) rc = SP_ESTORE;
        if (rc == SP_OK && src.task_id != tid)
            rc = stg_fail(ctx, SP_EPARSE, "run '%s' does not encode task '%s': run `synprobe encode --task %s --run R ...` "
                          "first", o->run, o->property, o->property);
        if (rc == SP_OK) {
            rc = st_task_items(db, o->property, NULL, on_task_item, &w, ctx->err, sizeof ctx->err);
            if (!w.first) w.first = sp_xcalloc(1, sizeof *w.first);
        }
    } else {
        if (rc == SP_OK) rc = stg_corpus_run_check(ctx, db, o->run, cid, o->corpus, "erase");
        if (rc == SP_OK && st_run_info(db, o->run, &src, ctx->err, sizeof ctx->err)) rc = SP_ESTORE;
        if (rc == SP_OK) rc = read_corpus(&w, db, cid);
    }
    if (rc == SP_OK) {
        w.have = sp_xcalloc((size_t)w.n_sent + 1, 1);
        unsigned what = ST_RUN_VEC | (!w.task_mode || src.token_vectors ? ST_RUN_TOK : 0);
        rc = st_run_items(db, o->run, what, on_item, &w, ctx->err, sizeof ctx->err);
        if (rc == SP_ESTOPPED) rc = stg_stopped(ctx);
    }
    /* partitions: sentences with vectors whose every word has the property */
    int *spart = NULL;
    char how[256] = "";
    if (rc == SP_OK) {
        uint8_t *usable = sp_xcalloc((size_t)w.n_sent + 1, 1);
        for (int k = 0; k < w.n_sent; k++) {
            int ok = w.have[k] && w.len[k] > 0;
            for (long i = w.first[k]; ok && i < w.first[k + 1]; i++) ok = w.lab[0][i] != NULL;
            usable[k] = (uint8_t)ok;
        }
        spart = sp_xmalloc(sizeof *spart * (size_t)(w.n_sent + 1));
        stg_partition(w.n_sent, w.split, usable, (uint64_t)o->split_seed, spart, how, sizeof how);
        free(usable);
    }
    struct prb_toktask t[2];
    const struct prb_tokview v = { w.n_sent, w.first, w.len, w.n_tok, w.head, w.punct, w.tree, w.d };
    memset(t, 0, sizeof t);
    if (rc == SP_OK) {
        prb_toktask_build(&v, spart, w.lab[0], &t[0]);
        prb_toktask_build(&v, spart, w.lab[1], &t[1]);
        const char *unit = w.task_mode ? "items" : "words";
        if (t[0].k < 2)
            rc = stg_fail(ctx, SP_EPARSE, "%s %s: %s %s have %s %s label; erasure needs two classes",
                          w.task_mode ? "task" : "corpus", w.task_mode ? o->property : o->corpus,
                          t[0].k ? "all its labelled" : "no", unit, t[0].k ? "one" : "a", o->property);
        else if (!t[0].n[0] || !t[0].n[1] || !t[0].n[2])
            rc = stg_fail(ctx, SP_EPARSE, "%s: train %d, dev %d, test %d %s with vectors and a %s label: every "
                          "partition needs some", how, t[0].n[0], t[0].n[1], t[0].n[2], unit, o->property);
    }
    const int threads = o->threads > 0 ? (int)o->threads : sp_cpu_count();
    struct prb_train_cfg cfg;
    prb_train_cfg_default(&cfg);
    cfg.seed = (uint64_t)o->seed;
    cfg.max_epoch = (int)o->max_epoch;
    cfg.threads = threads;
    struct prb_eraser e = { 0 }, er = { 0 };
    double *inlp_dev = NULL;
    int *fit_rows = NULL, n_fit = 0;
    if (rc == SP_OK) {
        /* the fit rows: train (or every partition) words with the property */
        fit_rows = sp_xmalloc(sizeof *fit_rows * (size_t)(w.n_tok + 1));
        for (int p = 0; p < (o->fit ? 3 : 1); p++)
            for (int i = 0; i < t[0].n[p]; i++) fit_rows[n_fit++] = t[0].rows[p][i];
        char err[SP_ERRLEN];
        double t0 = sp_now();
        if (o->method == STG_ERASE_LEACE) {
            int *z = sp_xmalloc(sizeof *z * (size_t)(n_fit + 1));
            for (int i = 0; i < n_fit; i++) z[i] = t[0].y[fit_rows[i]];
            if (prb_leace_fit(w.X, fit_rows, n_fit, w.d, z, t[0].k, o->shrinkage, threads, &e, err, sizeof err))
                rc = stg_fail(ctx, SP_EPARSE, "%s", err);
            free(z);
        } else {
            inlp_dev = sp_xcalloc((size_t)o->iterations, sizeof *inlp_dev);
            for (long i = 0; i < o->iterations; i++) inlp_dev[i] = NAN;   /* stays NaN (null) past a full removal */
            if (prb_inlp_fit(w.X, (int)w.n_tok, w.d, t[0].y, t[0].k, fit_rows, n_fit, t[0].rows[1], t[0].n[1], &cfg,
                             (int)o->iterations, inlp_dev, &e, err, sizeof err))
                rc = stg_fail(ctx, SP_EPARSE, "%s", err);
        }
        if (rc == SP_OK)
            sp_log(ctx->log, SP_LOG_INFO, "erase: %s on %d %s (%d-dim, %d classes) removed %d directions in %.2fs",
                   o->method ? "INLP" : "LEACE", n_fit, w.task_mode ? "items" : "words", w.d, t[0].k, e.rank, sp_now() - t0);
    }
    if (rc == SP_OK && stg_stopping(ctx)) rc = stg_stopped(ctx);
    /* the probes: before, after, after the random control of the same rank */
    double acc[2][3], dev[2][3], uuas[3] = { NAN, NAN, NAN };
    uint8_t *correct_after = NULL;       /* the erased probe's test rows (the report's interval) */
    for (int a = 0; a < 2; a++) for (int b = 0; b < 3; b++) acc[a][b] = dev[a][b] = NAN;
    if (rc == SP_OK) {
        prb_random_eraser(w.d, e.rank, (uint64_t)o->seed, &er);
        correct_after = sp_xcalloc((size_t)t[0].n[2] + 1, 1);
        float *XE = sp_xmalloc(sizeof *XE * ((size_t)w.n_tok * (size_t)w.d + 1));
        const struct prb_eraser *which[3] = { NULL, &e, &er };
        for (int b = 0; b < 3 && rc == SP_OK; b++) {
            const float *Xb = w.X;
            if (which[b]) {
                prb_eraser_apply(which[b], w.X, NULL, w.n_tok, XE, threads);
                Xb = XE;
            }
            for (int a = 0; a < 2; a++) {
                if (stg_stopping(ctx)) { rc = stg_stopped(ctx); break; }
                acc[a][b] = prb_toktask_probe(Xb, w.d, &t[a], &cfg, &dev[a][b], a == 0 && b == 1 ? correct_after : NULL);
            }
            if (rc == SP_OK && o->uuas && !w.task_mode) {
                char e[SP_ERRLEN] = "";
                uuas[b] = prb_tokview_uuas(&v, spart, Xb, (uint64_t)o->seed, threads, e, sizeof e);
                if (e[0]) sp_log(ctx->log, SP_LOG_WARN, "erase --uuas: the distance probe: %s", e);
            }
        }
        free(XE);
    }
    json_t *man = NULL;
    if (rc == SP_OK) {
        man = stg_manifest_new(ctx, &o->command, stg_erase_options, o);
        json_object_set_new(man, "partition", json_string(how));
        json_t *rm = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s}", "source_run", o->run, "source_fingerprint",
                               src.fingerprint, "corpus", o->corpus, "property", o->property, "method",
                               o->method ? "inlp" : "leace", "rank_removed", e.rank, "dim", w.d, "fitted_on", n_fit,
                               "sentence_vectors", src.dim == w.d ? "erased (the same map)" : "copied (another width)");
        json_object_set_new(rm, "token_vectors", json_string(!src.token_vectors ? "none" : w.n_it && w.it[0].tok_dim == w.d ?
                            "erased (the same map)" : "copied (another width)"));
        json_object_set(rm, "manifest", man);
        rc = write_run(ctx, db, o, &src, &w, &e, threads, rm, &r->n_items);
        json_decref(rm);
    }
    if (rc == SP_OK) {
        const char *task = sp_arena_printf(&w.a, "erase:%s", w.task_mode ? o->property : prop_task[w.prop]);
        json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "task", task,
                              "run", o->out_run, "source_run", o->run, "property", o->property, "method",
                              o->method ? "inlp" : "leace", "fit", o->fit ? "all" : "train", "rank_removed", e.rank,
                              "nclasses", t[0].k, "ntrain", (json_int_t)t[0].n[0], "ndev", (json_int_t)t[0].n[1], "ntest",
                              (json_int_t)t[0].n[2], "acc", stg_json_num(acc[0][1]), "devacc", stg_json_num(dev[0][1]),
                              "majority", stg_json_num(t[0].majority), "property_acc",
                              three_json(acc[0][0], acc[0][1], acc[0][2], dev[0][0], dev[0][1], dev[0][2]),
                              "other", three_json(acc[1][0], acc[1][1], acc[1][2], dev[1][0], dev[1][1], dev[1][2]));
        if (w.other == PROP_NONE) {
            json_object_set_new(j, "other", json_null());       /* a sentence task: no other task to watch */
        } else {
            json_t *oj = json_object_get(j, "other");
            json_object_set_new(oj, "task", json_string(prop_task[w.other]));
            json_object_set_new(oj, "nclasses", json_integer(t[1].k));
            json_object_set_new(oj, "majority", stg_json_num(t[1].majority));
        }
        if (o->uuas && !w.task_mode)
            json_object_set_new(j, "uuas", json_pack("{s:o, s:o, s:o, s:s}", "before", stg_json_num(uuas[0]), "after",
                                stg_json_num(uuas[1]), "random", stg_json_num(uuas[2]), "probe",
                                "distance probe, full rank, H&M's regimen (docs/spec/models.md M4), test UUAS"));
        json_object_set_new(j, "random_control", json_pack("{s:s, s:i, s:I}", "kind",
                            "random orthonormal directions of the same rank, projected out (Elazar et al. 2021)", "rank",
                            er.rank, "seed", (json_int_t)o->seed));
        if (o->method == STG_ERASE_LEACE) {
            json_object_set_new(j, "leace", json_pack("{s:b, s:f, s:i, s:o, s:o, s:o}", "shrinkage", o->shrinkage,
                                "svd_tol", PRB_LEACE_SVD_TOL, "cov_rank", e.cov_rank, "shrink_alpha",
                                stg_json_num(e.shrink_alpha), "trace_before", stg_json_num(e.trace_before),
                                "trace_after", stg_json_num(e.trace_after)));
        } else {
            json_t *it = json_array();
            for (long i = 0; i < o->iterations; i++) json_array_append_new(it, stg_json_num(100.0 * inlp_dev[i]));
            json_object_set_new(j, "inlp", json_pack("{s:I, s:o, s:f}", "iterations", (json_int_t)o->iterations,
                                "devacc_per_iteration", it, "margin_points", STG_ERASE_INLP_MARGIN));
        }
        json_object_set_new(j, "metrics", prb_toktask_test_items(&v, spart, &t[0], correct_after));
        json_object_set_new(j, "baselines", json_pack("{s:{s:o, s:s}}", "majority", "acc", stg_json_num(t[0].majority),
                                                      "kind", "the most frequent training label"));
        r->json = j;
        r->rank = e.rank;
        r->acc_before = acc[0][0];
        r->acc_after = acc[0][1];
        r->acc_random = acc[0][2];
        r->majority = t[0].majority;
        /* the stored result */
        json_t *full = json_deep_copy(j);
        json_object_set(full, "manifest", man);
        char *txt = json_dumps(full, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        struct st_probe_result row = { .run = o->out_run, .task_id = 0, .task_name = task,
                                       .classifier = o->method ? "inlp" : "leace", .seed = o->seed,
                                       .has_dev = !isnan(dev[0][1]), .dev_acc = dev[0][1], .has_test = !isnan(acc[0][1]),
                                       .test_acc = acc[0][1], .result = txt };
        rc = st_probe_results_put(db, &row, 1, &r->result_id, ctx->err, sizeof ctx->err);
        free(txt);
        json_decref(full);
    }
    if (w.n_mismatch) sp_log(ctx->log, SP_LOG_WARN, "%ld run items do not match their sentence's words, left out of the fit",
                             w.n_mismatch);
    if (w.n_no_tree) sp_log(ctx->log, SP_LOG_WARN, "%ld sentences have no dependency tree, left out", w.n_no_tree);
    json_decref(man);
    free(correct_after);
    free(inlp_dev);
    free(fit_rows);
    prb_eraser_free(&e);
    prb_eraser_free(&er);
    prb_toktask_free(&t[0]);
    prb_toktask_free(&t[1]);
    free(spart);
    free_walk(&w);
    st_run_info_free(&src);
    if (db) st_close(db);
    return rc;
}

void stg_erase_result_free(struct stg_erase_result *r)
{
    json_decref(r->json);
    r->json = NULL;
}
