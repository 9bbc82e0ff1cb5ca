/* stages/structprobe_run.c — `structprobe --run R`: the trained structural probes of
 * Hewitt & Manning (docs/spec/models.md M4, probes/structprobe_train.h) on the token vectors a corpus run
 * cached (`encode --token-vectors`), trained on the train partition, checkpointed on dev and
 * scored on test with the metrics of docs/spec/probing.md §3.6: the distance probe gives UUAS and DSpr,
 * the depth probe root accuracy and NSpr.
 *
 * Partitions: the corpus's recorded train/dev/test split when it has all three (UD file names
 * give it), else a seeded 80/10/10 split of its sentences (SplitMix64 of --probe-seed), and the
 * result says which. Sentences without a dependency tree, or whose run item is missing or has
 * another number of tokens, are left out and counted. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/gemm.h"
#include "common/pool.h"
#include "probes/structprobe_train.h"
#include "stages/manifest.h"
#include "stages/names.h"
#include "stages/partition.h"
#include "stages/structprobe.h"
#include "stages/structprobe_int.h"
#include "store/st_runs.h"
#include "store/store.h"

struct tsent {
    int n;
    long word0;                 /* first word's row in the gathered arrays */
    int part;                   /* 0 train, 1 dev, 2 test, -1 left out */
    const char *split;          /* the recorded split, or NULL */
    int have_vec;
};

struct tdata {
    struct stg_ctx *ctx;
    int n_sent, cap;
    struct tsent *s;
    long n_words, wcap;
    int *head;                  /* [n_words], within the sentence */
    uint8_t *punct;             /* [n_words] */
    float *X;                   /* [n_words][d], filled from the run */
    int d;
    long n_mismatch;
    struct sp_arena arena;      /* split strings */
};

static void grow_words(struct tdata *t, long more)
{
    if (t->n_words + more <= t->wcap) return;
    while (t->n_words + more > t->wcap) t->wcap = t->wcap ? 2 * t->wcap : 65536;
    t->head = sp_xrealloc(t->head, sizeof *t->head * (size_t)t->wcap);
    t->punct = sp_xrealloc(t->punct, (size_t)t->wcap);
}

/* The corpus's sentences in order: trees, punctuation, recorded split. */
static int read_corpus(struct tdata *t, struct st_db *db, int64_t cid, int punct)
{
    struct st_iter *it;
    int rc = st_iter_open(db, cid, ST_WANT_DEP, &it, t->ctx->err, sizeof t->ctx->err);
    if (rc != SP_OK) return rc;
    for (;;) {
        const struct st_row *row;
        int k = st_iter_next(it, &row);
        if (k == 0) break;
        if (k < 0) { rc = stg_fail(t->ctx, SP_ESTORE, "%s", st_iter_error(it)); break; }
        if (t->n_sent == t->cap) { t->cap = t->cap ? 2 * t->cap : 4096; t->s = sp_xrealloc(t->s, sizeof *t->s * (size_t)t->cap); }
        struct tsent *s = &t->s[t->n_sent++];
        s->n = row->s.n;
        s->word0 = -1;
        s->have_vec = 0;
        s->part = -1;
        s->split = row->split ? sp_arena_strdup(&t->arena, row->split) : NULL;
        if (!row->s.head || row->s.n < 1) continue;      /* no tree: left out */
        grow_words(t, row->s.n);
        s->word0 = t->n_words;
        memcpy(t->head + t->n_words, row->s.head, sizeof *t->head * (size_t)row->s.n);
        prb_punct_mask(&row->s, (enum prb_punct)punct, t->punct + t->n_words);
        t->n_words += row->s.n;
    }
    st_iter_close(it);
    return rc;
}

static int on_item(void *ctx, const struct st_run_item *it)
{
    struct tdata *t = ctx;
    long k = (long)it->ordinal - 1;
    if (k < 0 || k >= t->n_sent || t->s[k].word0 < 0) return 0;
    struct tsent *s = &t->s[k];
    if (it->tok && !t->d) {     /* the width of the run's token vectors, from its first item */
        t->d = it->tok_dim;
        t->X = sp_xmalloc(sizeof *t->X * ((size_t)t->n_words * (size_t)t->d + 1));
    }
    if (!it->tok || it->n_tokens != s->n || it->tok_dim != t->d) { t->n_mismatch++; return 0; }
    memcpy(t->X + (size_t)s->word0 * (size_t)t->d, it->tok, sizeof(float) * (size_t)s->n * (size_t)t->d);
    s->have_vec = 1;
    return 0;
}

/* A partition's sentences as a prb_sp_set (its own off/head/punct/X views, gathered). */
struct tset { struct prb_sp_set set; long *off; int *head; uint8_t *punct; float *X; };

static void gather(const struct tdata *t, int part, struct tset *o)
{
    long nw = 0;
    int ns = 0;
    for (int k = 0; k < t->n_sent; k++) if (t->s[k].part == part && t->s[k].have_vec) { ns++; nw += t->s[k].n; }
    o->off = sp_xmalloc(sizeof *o->off * (size_t)(ns + 1));
    o->head = sp_xmalloc(sizeof *o->head * (size_t)(nw + 1));
    o->punct = sp_xmalloc((size_t)nw + 1);
    o->X = sp_xmalloc(sizeof *o->X * ((size_t)nw * (size_t)t->d + 1));
    long w = 0;
    int j = 0;
    for (int k = 0; k < t->n_sent; k++) {
        const struct tsent *s = &t->s[k];
        if (s->part != part || !s->have_vec) continue;
        o->off[j++] = w;
        memcpy(o->head + w, t->head + s->word0, sizeof *o->head * (size_t)s->n);
        memcpy(o->punct + w, t->punct + s->word0, (size_t)s->n);
        memcpy(o->X + (size_t)w * (size_t)t->d, t->X + (size_t)s->word0 * (size_t)t->d, sizeof(float) * (size_t)s->n * (size_t)t->d);
        w += s->n;
    }
    o->off[j] = w;
    o->set = (struct prb_sp_set){ ns, t->d, o->X, o->off, o->head, o->punct };
}

static void tset_free(struct tset *o) { free(o->off); free(o->head); free(o->punct); free(o->X); }

/* The linear baseline (distance |i-j|, depth i) on the same sentences as a trained probe's test
 * figures: a baseline scored on other sentences (the whole corpus) would not be comparable. */
static void linear_baseline(const struct prb_sp_set *set, struct prb_sp_result *out)
{
    struct prb_sp_acc acc;
    prb_sp_init(&acc);
    double *pd = NULL, *pdep = NULL;
    int cap = 0;
    char err[SP_ERRLEN];
    for (int s = 0; s < set->n_sent; s++) {
        int n = (int)(set->off[s + 1] - set->off[s]);
        if (n > cap) {
            cap = n;
            pd = sp_xrealloc(pd, sizeof *pd * (size_t)n * (size_t)n);
            pdep = sp_xrealloc(pdep, sizeof *pdep * (size_t)n);
        }
        prb_linear_distance(n, pd);
        prb_linear_depth(n, pdep);
        prb_sp_add(&acc, n, set->head + set->off[s], set->punct ? set->punct + set->off[s] : NULL, pd, pdep, NULL, err,
                   sizeof err);   /* the set holds trees only (gathered from gold): nothing to refuse */
    }
    prb_sp_result(&acc, out);
    prb_sp_free(&acc);
    free(pd);
    free(pdep);
}

/* The partitions of stages/partition.h over the sentences with a tree. */
static void partition(struct tdata *t, uint64_t seed, char *how, size_t n)
{
    const char **split = sp_xmalloc(sizeof *split * (size_t)(t->n_sent + 1));
    uint8_t *usable = sp_xmalloc((size_t)t->n_sent + 1);
    int *part = sp_xmalloc(sizeof *part * (size_t)(t->n_sent + 1));
    for (int k = 0; k < t->n_sent; k++) { split[k] = t->s[k].split; usable[k] = t->s[k].word0 >= 0; }
    stg_partition(t->n_sent, split, usable, seed, part, how, n);
    for (int k = 0; k < t->n_sent; k++) t->s[k].part = part[k];
    free(split); free(usable); free(part);
}

static json_t *train_json(const struct prb_sptrain_info *in, const struct prb_sprobe *p)
{
    return json_pack("{s:i, s:i, s:i, s:f, s:b, s:I, s:f}", "rank", p->k, "epochs", in->epochs, "best_epoch", in->best_epoch,
                     "best_dev_loss", in->best_dev_mean, "early_stopped", in->early_stopped, "steps", (json_int_t)in->steps,
                     "lr_final", in->lr_final);
}

static void tdata_free(struct tdata *t) { free(t->s); free(t->head); free(t->punct); free(t->X); sp_arena_free(&t->arena); }

/* One probe's training: its inputs, and what it gives back (its test predictions in acc, its
 * training record in info, or an error in err) */
struct probe_fit {
    const struct stg_structprobe_opts *o;
    enum prb_sprobe_kind kind;
    const struct tset *tr, *dv, *te;
    int threads;                       /* GEMM threads of the thread that trains it */
    struct prb_sp_acc acc;
    json_t *info;
    int rc;
    char err[SP_ERRLEN];
};

/* Train one probe on train (checkpoint on dev) and add its test predictions to f->acc, with
 * f->threads GEMM threads on the calling thread (its setting put back after) */
static void train_one(struct probe_fit *f)
{
    const struct stg_structprobe_opts *o = f->o;
    struct prb_sptrain_cfg cfg;
    prb_sptrain_cfg_default(&cfg);
    cfg.kind = f->kind;
    cfg.rank = (int)o->rank;
    cfg.seed = (uint64_t)o->probe_seed;
    if (o->max_epochs > 0) cfg.max_epochs = (int)o->max_epochs;
    struct prb_sprobe p;
    struct prb_sptrain_info in = { 0 };
    char err[SP_ERRLEN];
    const char *what = f->kind == PRB_SPROBE_DISTANCE ? "distance" : "depth";
    int threads0 = sp_gemm_threads();
    sp_gemm_set_threads(f->threads);
    f->rc = SP_OK;
    if (prb_sprobe_train(&p, &cfg, &f->tr->set, &f->dv->set, &in, err, sizeof err) != 0) {
        snprintf(f->err, sizeof f->err, "training the %s probe: %s", what, err);
        f->rc = SP_EPARSE;
    } else if (prb_sprobe_eval(&p, &f->te->set, &f->acc, err, sizeof err) != 0) {
        snprintf(f->err, sizeof f->err, "scoring the %s probe: %s", what, err);
        f->rc = SP_EPARSE;
    }
    if (f->rc == SP_OK) f->info = train_json(&in, &p);
    prb_sprobe_free(&p);
    sp_gemm_set_threads(threads0);
}

static void train_item(void *arg, int item, int worker)
{
    (void)worker;
    train_one((struct probe_fit *)arg + item);
}

/* The distance and the depth probe: with two threads or more, side by side, each with half the
 * threads for its products (a probe's products are small: two whole probes on two cores beat one
 * probe's products split in two, and a probe's result does not depend on its thread count, so the
 * figures are those of --threads 1); otherwise one after the other. The first error wins. */
static int train_both(struct stg_ctx *ctx, struct probe_fit f[2])
{
    int threads = f[0].threads;
    if (threads >= 2) {
        f[0].threads = f[1].threads = threads / 2;
        sp_pool_run_once(2, 2, train_item, f);
    } else {
        train_one(&f[0]);
        if (f[0].rc == SP_OK && stg_stopping(ctx)) return stg_stopped(ctx);
        train_one(&f[1]);
    }
    for (int i = 0; i < 2; i++)
        if (f[i].rc != SP_OK) return stg_fail(ctx, f[i].rc, "%s", f[i].err);
    return stg_stopping(ctx) ? stg_stopped(ctx) : SP_OK;
}

int stg_structprobe_trained(struct stg_ctx *ctx, const struct stg_structprobe_opts *o, struct st_db *db, int64_t cid,
                            struct stg_structprobe_result *r, json_t **train_info)
{
    int rc = stg_corpus_run_check(ctx, db, o->run, cid, o->corpus, "structprobe --run");
    struct tdata t = { .ctx = ctx };
    sp_arena_init(&t.arena);
    char how[256] = "";
    if (rc == SP_OK) rc = read_corpus(&t, db, cid, o->punct);
    if (rc == SP_OK) rc = st_run_items(db, o->run, ST_RUN_TOK, on_item, &t, ctx->err, sizeof ctx->err);
    long n_vec = 0;
    for (int k = 0; k < t.n_sent; k++) n_vec += t.s[k].have_vec;
    if (rc == SP_OK && n_vec == 0)
        rc = stg_fail(ctx, SP_EPARSE, "run '%s' has no token vectors for the sentences of '%s' that have a dependency tree",
                      o->run, o->corpus);
    if (rc == SP_OK) {
        partition(&t, (uint64_t)o->probe_seed, how, sizeof how);
        struct tset tr, dv, te;
        gather(&t, 0, &tr);
        gather(&t, 1, &dv);
        gather(&t, 2, &te);
        if (!tr.set.n_sent || !dv.set.n_sent || !te.set.n_sent)
            rc = stg_fail(ctx, SP_EPARSE, "%s: train %d, dev %d, test %d sentences with vectors: every partition needs some",
                          how, tr.set.n_sent, dv.set.n_sent, te.set.n_sent);
        struct probe_fit f[2];
        for (int i = 0; i < 2; i++) {
            f[i] = (struct probe_fit){ .o = o, .kind = i ? PRB_SPROBE_DEPTH : PRB_SPROBE_DISTANCE, .tr = &tr, .dv = &dv,
                                       .te = &te, .threads = o->threads > 0 ? (int)o->threads : sp_cpu_count(), .rc = SP_OK };
            prb_sp_init(&f[i].acc);
        }
        if (rc == SP_OK) rc = train_both(ctx, f);
        if (rc == SP_OK) {
            struct prb_sp_result rd, rp;
            prb_sp_result(&f[0].acc, &rd);
            prb_sp_result(&f[1].acc, &rp);
            r->res = rd;                      /* UUAS, DSpr from the distance probe ... */
            r->res.root_acc = rp.root_acc;    /* ... root accuracy and NSpr from the depth probe */
            r->res.nspr = rp.nspr;
            linear_baseline(&te.set, &r->linear);
            r->have_linear = 1;
            r->n_total = t.n_sent;
            r->n_skipped = t.n_sent - te.set.n_sent - tr.set.n_sent - dv.set.n_sent;
            *train_info = json_pack("{s:s, s:i, s:i, s:i, s:I, s:o, s:o}", "partition", how, "train", tr.set.n_sent, "dev",
                                    dv.set.n_sent, "test", te.set.n_sent, "token_mismatch", (json_int_t)t.n_mismatch,
                                    "distance", f[0].info, "depth", f[1].info);
            f[0].info = f[1].info = NULL;
        }
        for (int i = 0; i < 2; i++) { json_decref(f[i].info); prb_sp_free(&f[i].acc); }
        tset_free(&tr); tset_free(&dv); tset_free(&te);
    }
    if (t.n_mismatch)
        sp_log(ctx->log, SP_LOG_WARN, "%ld run items do not match their sentence's words, left out", t.n_mismatch);
    tdata_free(&t);
    return rc;
}
