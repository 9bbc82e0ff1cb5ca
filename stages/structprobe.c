/* stages/structprobe.c — the structural-probe stage (see structprobe.h); the metrics are
 * probes/structprobe_metrics.c. */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/npy.h"
#include "common/sp.h"
#include "probes/sentsrc.h"
#include "stages/manifest.h"
#include "stages/names.h"
#include "stages/structprobe.h"
#include "stages/structprobe_int.h"
#include "store/store.h"

const struct sp_opt stg_structprobe_options[] = {
#define O(f) offsetof(struct stg_structprobe_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store with the gold trees (with --corpus)" },
    { "corpus", SP_OPT_STR, O(corpus), .metavar = "C", .help = "the corpus whose dependency trees are the gold" },
    { "conllu", SP_OPT_PATHS, O(conllu), .metavar = "FILE|DIR", .help = "gold trees from CoNLL-U files instead of a store" },
    { "dp", SP_OPT_PATHS, O(dp), .metavar = "FILE|DIR", .help = "gold trees from 3-column dependency files" },
    { "baseline", SP_OPT_STR, O(baseline), .metavar = "linear", .help = "predicted distance |i-j|, predicted depth i" },
    { "distances", SP_OPT_PATH, O(distances), .metavar = "D.npy",
      .help = "(n_sentences, L, L) predicted distances, corpus order, padded" },
    { "depths", SP_OPT_PATH, O(depths), .metavar = "P.npy", .help = "(n_sentences, L) predicted depths, corpus order, padded" },
    { "run", SP_OPT_STR, O(run), .metavar = "R",
      .help = "train the distance and depth probes (Hewitt & Manning) on this corpus run's token vectors (encode "
              "--token-vectors): train partition, checkpoint on dev, scored on test" },
    { "rank", SP_OPT_INT, O(rank), "0", .lo = 0, .hi = 100000, .metavar = "K", .help = "with --run: the probes' rank (0: the vectors' width)" },
    { "probe-seed", SP_OPT_INT, O(probe_seed), "1", .lo = 0, .hi = LONG_MAX, .metavar = "N",
      .help = "with --run: the probes' initialisation and shuffles, and the re-split of a corpus without partitions" },
    { "max-epochs", SP_OPT_INT, O(max_epochs), "40", .lo = 1, .hi = 100000, .metavar = "N", .help = "with --run: the most epochs" },
    { "threads", SP_OPT_INT, O(threads), "0", .lo = 1, .hi = 256, .metavar = "K", .flags = SP_OPTF_NODEF,
      .help = "with --run: threads that train the probes (K >= 2: the distance and the depth probe side by side, "
              "each with K/2 threads for its products; with --layer, two layers at a time; default: the CPUs it may "
              "run on); results do not depend on K" },
    { "punct", SP_OPT_CHOICE, O(punct), "xpos", .choices = "xpos|upos",
      .help = "punctuation for UUAS and root accuracy: the H&M XPOS list, or UPOS = PUNCT" },
    { "no-save", SP_OPT_FLAG, O(no_save), .help = "with --db: do not store the figures" },
#undef O
    { 0 },
};

struct walk {
    struct stg_ctx *ctx;
    const struct stg_structprobe_opts *o;
    struct stg_structprobe_result *r;
    struct prb_sp_acc acc;
    struct sp_npy dist, depth;
    int have_dist, have_depth;
    struct st_db *db;
    int64_t corpus_id;
    uint8_t *mask;
    double *pd, *pdep;
    int cap;
    long n_seen;
    int failed;                  /* the callback set ctx->err */
    json_t *train;               /* --run: partitions and training of each probe */
};

/* Element off of a prediction array, as double. */
static double npy_at(const struct sp_npy *a, size_t off)
{
    switch (a->dtype) {
    case SP_DT_F32: return ((const float *)a->data)[off];
    case SP_DT_F64: return ((const double *)a->data)[off];
    default: return ((const int32_t *)a->data)[off];
    }
}

/* D[k, :n, :n] into w->pd; NaN would rank arbitrarily and be stored as a result: refused. */
static int read_distances(struct walk *w, long k, int n)
{
    const struct sp_npy *d = &w->dist;
    size_t L = d->shape[1];
    if ((size_t)k >= d->shape[0] || (size_t)n > L)
        return stg_fail(w->ctx, SP_EPARSE, "%s: shape (%zu, %zu, %zu) has no room for sentence %ld of %d words",
                        w->o->distances, d->shape[0], L, L, k + 1, n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = npy_at(d, ((size_t)k * L + (size_t)i) * L + (size_t)j);
            if (!isfinite(v))
                return stg_fail(w->ctx, SP_EPARSE, "%s: sentence %ld, distance[%d][%d] (0-based) is %s; predictions must be finite",
                                w->o->distances, k + 1, i, j, isnan(v) ? "NaN" : "infinite");
            w->pd[(size_t)i * n + j] = v;
        }
    return SP_OK;
}

static int read_depths(struct walk *w, long k, int n)
{
    const struct sp_npy *p = &w->depth;
    size_t L = p->shape[1];
    if ((size_t)k >= p->shape[0] || (size_t)n > L)
        return stg_fail(w->ctx, SP_EPARSE, "%s: shape (%zu, %zu) has no room for sentence %ld of %d words",
                        w->o->depths, p->shape[0], L, k + 1, n);
    for (int i = 0; i < n; i++) {
        double v = npy_at(p, (size_t)k * L + (size_t)i);
        if (!isfinite(v))
            return stg_fail(w->ctx, SP_EPARSE, "%s: sentence %ld, depth[%d] (0-based) is %s; predictions must be finite",
                            w->o->depths, k + 1, i, isnan(v) ? "NaN" : "infinite");
        w->pdep[i] = v;
    }
    return SP_OK;
}

static void grow(struct walk *w, int n)
{
    if (n <= w->cap) return;
    w->cap = n;
    w->mask = sp_xrealloc(w->mask, (size_t)n);
    w->pd = sp_xrealloc(w->pd, (size_t)n * n * sizeof *w->pd);
    w->pdep = sp_xrealloc(w->pdep, (size_t)n * sizeof *w->pdep);
}

static int on_sentence(const struct sp_sentence *s, long k, void *arg)
{
    struct walk *w = arg;
    if (stg_stopping(w->ctx)) return SP_ESTOPPED;      /* between sentences: nothing written yet */
    stg_progress(w->ctx, "sentences", (uint64_t)++w->n_seen, 0);
    int n = s->n;
    if (!s->head) {         /* counted and said once at the end, not once a sentence */
        sp_log(w->ctx->log, SP_LOG_DEBUG, "sentence %ld (line %ld) has no dependency tree, skipped", k + 1, s->line);
        w->r->n_no_tree++;
        w->r->n_skipped++;
        return 0;
    }
    grow(w, n);
    prb_punct_mask(s, (enum prb_punct)w->o->punct, w->mask);
    const double *pd = NULL, *pdep = NULL;
    if (w->o->baseline) {
        prb_linear_distance(n, w->pd);
        prb_linear_depth(n, w->pdep);
        pd = w->pd;
        pdep = w->pdep;
    }
    if (w->have_dist) {
        if (read_distances(w, k, n) != SP_OK) { w->failed = 1; return SP_EPARSE; }
        pd = w->pd;
    }
    if (w->have_depth) {
        if (read_depths(w, k, n) != SP_OK) { w->failed = 1; return SP_EPARSE; }
        pdep = w->pdep;
    }
    char err[SP_ERRLEN];
    if (prb_sp_add(&w->acc, n, s->head, w->mask, pd, pdep, NULL, err, sizeof err) != 0) {
        sp_log(w->ctx->log, SP_LOG_WARN, "sentence %ld (line %ld): %s, skipped", k + 1, s->line, err);
        w->r->n_skipped++;
    }
    return 0;
}

/* ---- setting up ---- */

int stg_structprobe_check(struct stg_ctx *ctx, const struct stg_structprobe_opts *o)
{
    int n_src = !!o->db + (o->conllu.n > 0) + (o->dp.n > 0);
    if (n_src != 1 || (o->db && !o->corpus))
        return stg_fail(ctx, SP_EUSAGE, "give either --db DB --corpus C or --conllu/--dp FILE...");
    if (o->corpus && !o->db) return stg_fail(ctx, SP_EUSAGE, "--corpus needs --db DB");
    if (o->baseline && strcmp(o->baseline, "linear"))
        return stg_fail(ctx, SP_EUSAGE, "unknown baseline '%s' (expected linear)", o->baseline);
    if (!!o->baseline + !!(o->distances || o->depths) + !!o->run != 1)
        return stg_fail(ctx, SP_EUSAGE, "give one of --baseline linear, --distances/--depths, or --run R");
    if (o->run && !o->db) return stg_fail(ctx, SP_EUSAGE, "--run needs --db DB --corpus C (the run's corpus)");
    if (o->no_save && !o->db) return stg_fail(ctx, SP_EUSAGE, "--no-save applies to --db");
    return SP_OK;
}

/* path as an array of ndim dimensions (distances: square in the last two) */
static int load_npy(struct walk *w, const char *path, int ndim, struct sp_npy *a, int *have)
{
    int rc = sp_npy_read(path, a, w->ctx->err, sizeof w->ctx->err);
    if (rc != SP_OK) return rc == SP_ESTOPPED ? stg_stopped(w->ctx) : rc;
    *have = 1;
    if (a->ndim != ndim || (ndim == 3 && a->shape[1] != a->shape[2]))
        return stg_fail(w->ctx, SP_EPARSE, "%s: expected shape %s, got %d dimensions", path,
                        ndim == 3 ? "(n_sentences, L, L)" : "(n_sentences, L)", a->ndim);
    return SP_OK;
}

/* The store (for writing unless no_save) and the corpus opened first: a bad name or a store we
 * cannot write fails before the work; then the prediction files. */
static int open_inputs(struct walk *w)
{
    const struct stg_structprobe_opts *o = w->o;
    struct stg_ctx *ctx = w->ctx;
    int rc;
    if (o->db) {
        if ((rc = stg_open_store(ctx, o->db, o->no_save ? ST_OPEN_READONLY : 0, &w->db)) != SP_OK) return rc;
        if ((rc = stg_corpus_id(ctx, w->db, o->db, o->corpus, &w->corpus_id)) != SP_OK) return rc;
    }
    if (o->distances && (rc = load_npy(w, o->distances, 3, &w->dist, &w->have_dist)) != SP_OK) return rc;
    if (o->depths && (rc = load_npy(w, o->depths, 2, &w->depth, &w->have_depth)) != SP_OK) return rc;
    return SP_OK;
}

static int walk_corpus(struct walk *w)
{
    const struct stg_structprobe_opts *o = w->o;
    struct prb_source src = { .db = o->db, .corpus = o->corpus, .want = ST_WANT_DEP,
                              .fmt = o->conllu.n ? SP_FMT_CONLLU : SP_FMT_DEP,
                              .n_paths = o->conllu.n ? o->conllu.n : o->dp.n, .paths = o->conllu.n ? o->conllu.v : o->dp.v,
                              .n_rejected = &w->r->n_rejected };
    char err[SP_ERRLEN];
    int rc = prb_source_each(&src, on_sentence, w, err, sizeof err);
    if (rc == SP_ESTOPPED) return stg_stopped(w->ctx);
    if (rc != SP_OK) return w->failed ? rc : stg_fail(w->ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", err);
    if (w->n_seen > 0 && w->r->n_no_tree == w->n_seen)     /* nothing to score against: say so once, store nothing */
        return stg_fail(w->ctx, SP_EPARSE, "corpus '%s' has no dependency trees (%ld sentences; ingest its .conllu or .dp files)",
                        o->corpus ? o->corpus : "?", w->n_seen);
    if (w->r->n_no_tree)
        sp_log(w->ctx->log, SP_LOG_WARN, "%ld of %ld sentences have no dependency tree, skipped", w->r->n_no_tree, w->n_seen);
    return SP_OK;
}

/* ---- results ---- */

static void finish(struct walk *w)
{
    struct stg_structprobe_result *r = w->r;
    if (!w->o->run) r->n_total = w->acc.n_sent + r->n_skipped;
    if (w->have_dist && (long)w->dist.shape[0] != r->n_total)
        sp_log(w->ctx->log, SP_LOG_WARN, "%s has %zu sentences, the corpus %ld", w->o->distances, w->dist.shape[0], r->n_total);
    if (w->have_depth && (long)w->depth.shape[0] != r->n_total)
        sp_log(w->ctx->log, SP_LOG_WARN, "%s has %zu sentences, the corpus %ld", w->o->depths, w->depth.shape[0], r->n_total);
    if (!w->o->run) prb_sp_result(&w->acc, &r->res);     /* --run: r->res is the trained probes' */
    if (r->res.n_nan_used)      /* A19: replicate scipy's NaN, but say why */
        sp_log(w->ctx->log, SP_LOG_WARN, "%ld Spearman correlations of sentences with 5..50 words were NaN (constant rows), "
               "so DSpr/NSpr are NaN, as scipy makes them", r->res.n_nan_used);
    r->json = json_pack("{s:o, s:o, s:o, s:o, s:I}", "uuas", stg_json_num(r->res.uuas), "dspr", stg_json_num(r->res.dspr),
                        "root_acc", stg_json_num(r->res.root_acc), "nspr", stg_json_num(r->res.nspr), "n_sentences",
                        (json_int_t)r->res.n_sentences);
    if (r->have_linear)
        json_object_set_new(r->json, "linear_baseline",
                            json_pack("{s:o, s:o, s:o, s:o, s:I}", "uuas", stg_json_num(r->linear.uuas), "dspr",
                                      stg_json_num(r->linear.dspr), "root_acc", stg_json_num(r->linear.root_acc), "nspr",
                                      stg_json_num(r->linear.nspr), "n_sentences", (json_int_t)r->linear.n_sentences));
}

/* One tree_eval row: the figures plus the manifest, in one transaction. */
static int save(struct walk *w)
{
    const struct stg_structprobe_opts *o = w->o;
    struct stg_structprobe_result *r = w->r;
    int rc = stg_turn_take(w->ctx);         /* layers side by side: the ids in layer order */
    if (rc != SP_OK) return rc;
    if (o->run) snprintf(r->method, sizeof r->method, "structprobe:trained:run=%s", o->run);
    else if (o->baseline) snprintf(r->method, sizeof r->method, "structprobe:linear");
    else snprintf(r->method, sizeof r->method, "structprobe:%s%s%s%s%s", o->distances ? "distances=" : "",
                  o->distances ? o->distances : "", o->distances && o->depths ? "," : "", o->depths ? "depths=" : "",
                  o->depths ? o->depths : "");
    json_t *man = stg_manifest_new(w->ctx, &o->command, stg_structprobe_options, o);
    json_object_set_new(man, "method", json_string(r->method));
    json_object_set_new(man, "source", o->run ? json_pack("{s:s, s:s, s:O}", "kind", "trained", "run", o->run, "training", w->train)
                        : o->baseline ? json_pack("{s:s, s:s}", "kind", "baseline", "name", "linear")
                        : json_pack("{s:s, s:s?, s:s?}", "kind", "npy", "distances", o->distances, "depths", o->depths));
    json_object_set_new(man, "punct", json_string(o->punct == PRB_PUNCT_UPOS ? "upos" : "xpos"));
    json_object_set_new(man, "gold", json_pack("{s:s, s:s, s:I}", "db", o->db, "corpus", o->corpus, "corpus_id",
                                                (json_int_t)w->corpus_id));
    json_object_set_new(man, "sentences_in_corpus", json_integer(r->n_total));
    json_object_set_new(man, "sentences_skipped", json_integer(r->n_skipped));
    return stg_save_tree_eval(w->ctx, w->db, NULL, w->corpus_id, r->method, r->json, man, &r->eval_id);
}

int stg_structprobe(struct stg_ctx *ctx, const struct stg_structprobe_opts *o, struct stg_structprobe_result *r)
{
    memset(r, 0, sizeof *r);
    struct walk w = { .ctx = ctx, .o = o, .r = r };
    int rc = stg_structprobe_check(ctx, o);
    if (rc != SP_OK) return rc;
    double t0 = sp_now();
    prb_sp_init(&w.acc);
    if ((rc = open_inputs(&w)) == SP_OK &&
        (rc = o->run ? stg_structprobe_trained(ctx, o, w.db, w.corpus_id, r, &w.train) : walk_corpus(&w)) == SP_OK) {
        finish(&w);
        if (w.db && !o->no_save) rc = save(&w);
    }
    json_decref(w.train);
    if (rc == SP_OK) {
        char why[256];
        stg_skipped_reasons(why, sizeof why, r->n_no_tree, "without a dependency tree", r->n_rejected,
                            "rejected when read, named above", r->n_skipped - r->n_no_tree, "not scorable, named above");
        sp_log(ctx->log, SP_LOG_INFO, "structprobe: %ld sentences scored, %ld skipped%s, in %.2fs", r->res.n_sentences,
               r->n_skipped + r->n_rejected, why, sp_now() - t0);
    }
    prb_sp_free(&w.acc);
    if (w.db) st_close(w.db);
    sp_npy_free(&w.dist);       /* zeroed when never read */
    sp_npy_free(&w.depth);
    free(w.mask);
    free(w.pd);
    free(w.pdep);
    return rc;
}

void stg_structprobe_result_free(struct stg_structprobe_result *r)
{
    json_decref(r->json);
    r->json = NULL;
}
