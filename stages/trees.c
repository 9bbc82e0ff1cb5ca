/* stages/trees.c — the tree-evaluation stage (see trees.h); the scoring is probes/tree_scoring.c, the
 * extraction treeops/extract.c. */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/npy.h"
#include "common/sp.h"
#include "probes/sentsrc.h"
#include "stages/manifest.h"
#include "stages/manifest.h"
#include "stages/names.h"
#include "stages/trees.h"
#include "stages/trees_int.h"
#include "store/st_info.h"
#include "store/st_runs.h"
#include "store/store.h"
#include "treeops/treeops.h"

const struct sp_opt stg_trees_options[] = {
#define O(f) offsetof(struct stg_trees_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store with the gold trees (with --corpus)" },
    { "corpus", SP_OPT_STR, O(corpus), .metavar = "C", .help = "the corpus whose constituency trees are the gold" },
    { "mrg", SP_OPT_PATHS, O(mrg), .metavar = "FILE|DIR", .help = "gold trees from PTB files instead of a store" },
    { "baseline", SP_OPT_STR, O(baseline), .metavar = "right|left|random|gold", .help = "score a baseline's trees" },
    { "attention", SP_OPT_PATH, O(attention), .metavar = "A.npy",
      .help = "(n_sentences, L, L) or (n_sentences, H, L, L) word-level attention, corpus order" },
    { "run", SP_OPT_STR, O(run), .metavar = "R", .help = "the attention maps of encoder run R over corpus C" },
    { "seed", SP_OPT_INT, O(seed), "-1", .lo = 0, .hi = 2147483647L, .metavar = "N", .flags = SP_OPTF_NODEF,
      .help = "--baseline random: one seed (default: every figure is the mean over seeds 1..5)" },
    { "span-score", SP_OPT_CHOICE, O(span_score), "mean", .choices = "mean|sum",
      .help = "split score of the attention trees (docs/spec/structures.md §6)" },
    { "evalb-max-words", SP_OPT_INT, O(evalb_max_words), "0", .lo = 0, .hi = 1000000000L, .metavar = "N",
      .help = "leave sentences longer than N words out of Protocol A (200: as the EVALB binary; 0: none)" },
    { "out", SP_OPT_PATH, O(out), .metavar = "TREES.txt", .help = "write the predicted trees, one per line", .flags = SP_OPTF_OUTPUT },
    { "gold-out", SP_OPT_PATH, O(gold_out), .metavar = "GOLD.txt", .help = "write the gold trees, one per line", .flags = SP_OPTF_OUTPUT },
    { "no-save", SP_OPT_FLAG, O(no_save), .help = "with --db: do not store the evaluation" },
    { "dependency", SP_OPT_FLAG, O(dependency),
      .help = "dependency trees from attention (Chu-Liu/Edmonds; UAS, UUAS) against the corpus's dependency trees; the "
              "default for a corpus without constituency trees; baselines right, left, adjacent, random" },
    { "head", SP_OPT_INT, O(head), "-1", .lo = 0, .hi = 1023, .metavar = "H", .flags = SP_OPTF_NODEF,
      .help = "one head's map: with --run, the run's per-head maps (encode --heads); with --attention, H of a "
              "(n_sentences, H, L, L) file (default: the heads pooled)" },
    { "arc", SP_OPT_CHOICE, O(arc), "dep_to_head", .choices = "dep_to_head|head_to_dep",
      .help = "dependency trees: an arc h->d scores A[d][h] (the dependent attends to its head) or A[h][d]" },
#undef O
    { 0 },
};

enum kind { K_RIGHT, K_LEFT, K_RANDOM, K_GOLD, K_ATTN };

/* One run of the stage: the options, the source of predictions and the accumulators. */
struct walk {
    struct stg_ctx *ctx;
    const struct stg_trees_opts *o;
    struct stg_trees_result *r;
    enum kind kind;
    int n_runs;                         /* random: one accumulator per seed */
    struct prb_trees_acc *acc[STG_TREES_MAX_SEEDS];
    struct sp_rng rng[STG_TREES_MAX_SEEDS], rng_b[STG_TREES_MAX_SEEDS];   /* Protocol A and B draws */
    struct sp_npy attn;                 /* --attention */
    int have_attn;
    int run_layer;                      /* --run: maps by corpus position */
    long run_cap;
    float **run_attn;                   /* [run_cap]: n*n map or NULL (sentence not encoded) */
    int *run_n;
    struct sp_out out, gold_out;
    struct st_db *db;
    int64_t corpus_id;
    int *span, *span_b;
    const char **tag;
    float *block;
    void *scratch;
    int cap;
    long n_seen;
    int failed;                         /* the callback set ctx->err */
};

/* ---- predictions ---- */

/* A NaN or infinite weight would make every split score equal (or NaN) and the extracted tree
 * an artefact of tie-breaking: refuse it, naming the sentence and the cell. */
static int block_finite(struct walk *w, long k, int n)
{
    long bad = sp_first_nonfinite(w->block, (size_t)n * n);
    if (bad < 0) return 0;
    return stg_fail(w->ctx, SP_EPARSE, "%s%s: sentence %ld, attention[%ld][%ld] (0-based) is %s; attention must be finite",
                    w->o->run ? "run " : "", w->o->run ? w->o->run : w->o->attention, k + 1, bad / n, bad % n,
                    sp_nonfinite_kind(w->block[bad]));
}

/* A[k] as an n x n float block, heads averaged for 4-D input. */
static int attention_block(struct walk *w, long k, int n)
{
    if (w->o->run) {
        if (w->run_n[k] != n)
            return stg_fail(w->ctx, SP_EPARSE, "run '%s': corpus sentence %ld has %d attention rows, the gold tree %d words",
                            w->o->run, k + 1, w->run_n[k], n);
        memcpy(w->block, w->run_attn[k], sizeof(float) * (size_t)n * (size_t)n);
        return block_finite(w, k, n);
    }
    const struct sp_npy *a = &w->attn;
    int four = a->ndim == 4;
    size_t H = four ? a->shape[1] : 1, L = a->shape[a->ndim - 1];
    size_t h0 = w->o->head >= 0 ? (size_t)w->o->head : 0, h1 = w->o->head >= 0 ? h0 + 1 : H;   /* --head: that one */
    if ((size_t)k >= a->shape[0] || (size_t)n > L)
        return stg_fail(w->ctx, SP_EPARSE, "%s: no room for sentence %ld of %d words (L = %zu, %zu sentences)",
                        w->o->attention, k + 1, n, L, a->shape[0]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0;
            for (size_t h = h0; h < h1; h++) {
                size_t off = (((size_t)k * H + h) * L + (size_t)i) * L + (size_t)j;
                sum += a->dtype == SP_DT_F64 ? ((const double *)a->data)[off] : ((const float *)a->data)[off];
            }
            w->block[(size_t)i * n + j] = (float)(sum / (double)(h1 - h0));
        }
    return block_finite(w, k, n);
}

/* The predicted tree of seed `run` for sentence k into w->span (and w->span_b for random's
 * Protocol B tree over the words; *nb = -1 otherwise). Returns the bracket count or -1. */
static int predict(struct walk *w, const struct sp_sentence *s, long k, int run, int *nb)
{
    int n = s->n;
    *nb = -1;
    switch (w->kind) {
    case K_RIGHT: return prb_tree_right(n, w->span);
    case K_LEFT: return prb_tree_left(n, w->span);
    case K_RANDOM:      /* §5.4: A on a tree over all tokens, B on one over the words */
        *nb = prb_tree_random_words(n, w->tag, &w->rng_b[run], w->span_b);
        return prb_tree_random(n, &w->rng[run], w->span);
    case K_GOLD: return prb_tree_gold(s->tree, n, w->span);
    case K_ATTN:
        if (attention_block(w, k, n) != 0) return -1;
        return tops_extract_tree(n, w->block, (enum tops_span_score)w->o->span_score, 1, w->scratch, w->span);
    }
    return -1;
}

static void grow(struct walk *w, int n)
{
    if (n <= w->cap) return;
    w->cap = n;
    w->span = sp_xrealloc(w->span, 2 * (size_t)n * sizeof *w->span);
    w->span_b = sp_xrealloc(w->span_b, 2 * (size_t)n * sizeof *w->span_b);
    w->tag = sp_xrealloc(w->tag, (size_t)n * sizeof *w->tag);
    if (w->kind == K_ATTN) {
        w->block = sp_xrealloc(w->block, (size_t)n * n * sizeof *w->block);
        free(w->scratch);
        w->scratch = sp_xmalloc(tops_extract_scratch_bytes(n));
    }
}

/* The tree Protocol A scores and the gold tree, one line each (seed 1 only). */
static void write_lines(struct walk *w, const struct sp_sentence *s, int ns)
{
    struct sp_buf b = { 0 };
    if (w->out.f) {
        prb_tree_line(s, w->tag, ns, w->span, &b);
        fprintf(w->out.f, "%.*s\n", (int)b.len, b.p);
        b.len = 0;
    }
    if (w->gold_out.f) {
        prb_gold_line(s, &b);
        fprintf(w->gold_out.f, "%.*s\n", (int)b.len, b.p);
    }
    sp_buf_free(&b);
}

/* Why a sentence is not scored; 1 when skipped (counted and logged), 0 when it is scored. */
static int skip_sentence(struct walk *w, const struct sp_sentence *s, long k)
{
    if (!s->tree) {         /* counted and said once at the end, not once a sentence */
        w->r->n_no_tree++;
        w->r->n_skipped++;
        sp_log(w->ctx->log, SP_LOG_DEBUG, "sentence %ld (line %ld) has no constituency tree, skipped", k + 1, s->line);
        return 1;
    }
    if (w->o->run && (k >= w->run_cap || !w->run_attn[k])) {    /* the encoder skipped it (no annotation, too long) */
        w->r->n_unencoded++;
        w->r->n_skipped++;
        return 1;
    }
    if (prb_gold_tags(s, w->tag) != 0) {
        sp_log(w->ctx->log, SP_LOG_WARN, "sentence %ld (line %ld): tree does not cover its words, skipped", k + 1, s->line);
        w->r->n_skipped++;
        return 1;
    }
    return 0;
}

static int on_sentence(const struct sp_sentence *s, long k, void *arg)
{
    struct walk *w = arg;
    if (stg_stopping(w->ctx)) return SP_ESTOPPED;      /* between sentences: nothing written yet */
    stg_progress(w->ctx, "sentences", (uint64_t)++w->n_seen, 0);
    grow(w, s->n);
    if (skip_sentence(w, s, k)) return 0;
    char err[SP_ERRLEN];
    for (int run = 0; run < w->n_runs; run++) {
        int nb, ns = predict(w, s, k, run, &nb);
        if (ns < 0) { w->failed = 1; return SP_EPARSE; }
        int bad = nb >= 0 ? prb_trees_add_ab(w->acc[run], s, ns, w->span, nb, w->span_b, err, sizeof err)
                          : prb_trees_add(w->acc[run], s, ns, w->span, err, sizeof err);
        if (bad) {
            sp_log(w->ctx->log, SP_LOG_WARN, "sentence %ld (line %ld): %s, skipped", k + 1, s->line, err);
            w->r->n_skipped++;
            return 0;
        }
        if (run == 0) write_lines(w, s, ns);
    }
    return 0;
}

/* ---- setting up ---- */

/* The options that contradict each other, and the kind of prediction. */
static int check_opts(struct stg_ctx *ctx, const struct stg_trees_opts *o, enum kind *kind)
{
    if (!!o->db + (o->mrg.n > 0) != 1 || (o->db && !o->corpus))
        return stg_fail(ctx, SP_EUSAGE, "give either --db DB --corpus C or --mrg FILE...");
    if (o->corpus && !o->db) return stg_fail(ctx, SP_EUSAGE, "--corpus needs --db DB");
    if (!!o->baseline + !!o->attention + !!o->run != 1)
        return stg_fail(ctx, SP_EUSAGE, "give one of --baseline right|left|random|gold, --attention A.npy or --run R");
    if (o->run && !o->db) return stg_fail(ctx, SP_EUSAGE, "--run R needs --db DB --corpus C");
    if (o->no_save && !o->db) return stg_fail(ctx, SP_EUSAGE, "--no-save applies to --db");
    static const char *const names[] = { "right", "left", "random", "gold" };
    *kind = K_ATTN;
    if (o->baseline) {
        int i = 0;
        while (i < 4 && strcmp(o->baseline, names[i])) i++;
        if (i == 4) return stg_fail(ctx, SP_EUSAGE, "unknown baseline '%s' (expected right, left, random or gold)", o->baseline);
        *kind = (enum kind)i;
    }
    if (o->seed >= 0 && *kind != K_RANDOM) return stg_fail(ctx, SP_EUSAGE, "--seed only applies to --baseline random");
    if (o->head >= 0 && o->baseline) return stg_fail(ctx, SP_EUSAGE, "--head applies to --run or --attention");
    return SP_OK;
}

/* random: one seed, or seeds 1..5 whose figures are averaged (§5.4) */
static void seed_runs(struct walk *w)
{
    w->n_runs = 1;
    if (w->kind != K_RANDOM) return;
    w->n_runs = w->o->seed >= 0 ? 1 : STG_TREES_MAX_SEEDS;
    for (int r = 0; r < w->n_runs; r++) {
        uint64_t seed = w->o->seed >= 0 ? (uint64_t)w->o->seed : (uint64_t)r + 1;
        sp_rng_seed(&w->rng[r], seed);
        sp_rng_seed(&w->rng_b[r], seed);
    }
}

static int load_attention(struct walk *w)
{
    const char *path = w->o->attention;
    int rc = sp_npy_read(path, &w->attn, w->ctx->err, sizeof w->ctx->err);
    if (rc != SP_OK) return rc == SP_ESTOPPED ? stg_stopped(w->ctx) : rc;
    w->have_attn = 1;
    const struct sp_npy *a = &w->attn;
    if ((a->ndim != 3 && a->ndim != 4) || a->shape[a->ndim - 1] != a->shape[a->ndim - 2] || a->dtype == SP_DT_I32)
        return stg_fail(w->ctx, SP_EPARSE, "%s: expected float32/float64 of shape (n_sentences, L, L) "
                        "or (n_sentences, H, L, L)", path);
    if (w->o->head >= 0 && (a->ndim != 4 || (size_t)w->o->head >= a->shape[1]))
        return stg_fail(w->ctx, SP_EPARSE, "%s: --head %ld: %s", path, w->o->head,
                        a->ndim != 4 ? "the file has no head axis (expected (n_sentences, H, L, L))" : "beyond the file's heads");
    return SP_OK;
}

/* --run: the run's attention maps, by corpus position (run ordinal k+1 = corpus sentence k, the
 * order of st_iter that both `encode --corpus` and this walk use). */
static int run_item_attn(void *arg, const struct st_run_item *it)
{
    struct walk *w = arg;
    long k = (long)it->ordinal - 1;
    if (k < 0) return 0;
    if (k >= w->run_cap) {
        long cap = w->run_cap ? w->run_cap : 1024;
        while (cap <= k) cap *= 2;
        w->run_attn = sp_xrealloc(w->run_attn, (size_t)cap * sizeof *w->run_attn);
        w->run_n = sp_xrealloc(w->run_n, (size_t)cap * sizeof *w->run_n);
        for (long i = w->run_cap; i < cap; i++) { w->run_attn[i] = NULL; w->run_n[i] = 0; }
        w->run_cap = cap;
    }
    size_t nn = (size_t)it->n_tokens * (size_t)it->n_tokens;
    const float *src = it->attn;
    if (w->o->head >= 0) {            /* one head of the per-head maps */
        if (w->o->head >= it->n_heads)
            return stg_fail(w->ctx, SP_EPARSE, "run '%s': --head %ld: the model has heads 0..%d", w->o->run, w->o->head,
                            it->n_heads - 1);
        src = it->attn_heads + (size_t)w->o->head * nn;
    }
    w->run_attn[k] = sp_xmalloc(sizeof(float) * (nn ? nn : 1));
    memcpy(w->run_attn[k], src, sizeof(float) * nn);
    w->run_n[k] = it->n_tokens;
    return 0;
}

static int load_run(struct walk *w)
{
    const struct stg_trees_opts *o = w->o;
    int rc = stg_known_name(w->ctx, w->db, o->db, STG_NAME_RUN, o->run);
    if (rc != SP_OK) return rc;
    struct st_run_info ri;
    if ((rc = st_run_info(w->db, o->run, &ri, w->ctx->err, sizeof w->ctx->err)) != SP_OK) return rc;
    if (!ri.corpus || strcmp(ri.corpus, o->corpus) != 0)
        rc = stg_fail(w->ctx, SP_EPARSE, "run '%s' encodes %s '%s', not corpus '%s'", o->run, ri.corpus ? "corpus" : "task",
                      ri.corpus ? ri.corpus : ri.task ? ri.task : "?", o->corpus);
    w->run_layer = ri.attn_layer;
    st_run_info_free(&ri);
    if (rc == SP_OK)
        rc = st_run_items(w->db, o->run, o->head >= 0 ? ST_RUN_HEADS : ST_RUN_ATTN, run_item_attn, w, w->ctx->err,
                          sizeof w->ctx->err);
    return rc;
}

/* Everything read or opened before the walk, so that a bad name, file or store fails before the
 * work. The store is opened for writing unless no_save (a store we cannot write fails here). */
static int open_inputs(struct walk *w)
{
    const struct stg_trees_opts *o = w->o;
    struct stg_ctx *ctx = w->ctx;
    int rc;
    if (o->attention && (rc = load_attention(w)) != SP_OK) return rc;
    if (o->db) {
        if ((rc = stg_open_store(ctx, o->db, o->no_save ? ST_OPEN_READONLY : 0, &w->db)) != SP_OK) return rc;
        if ((rc = stg_corpus_id(ctx, w->db, o->db, o->corpus, &w->corpus_id)) != SP_OK) return rc;
        if (o->run && (rc = load_run(w)) != SP_OK) return rc;
    }
    /* --out / --gold-out: temporary files, renamed into place only when the stage succeeds */
    if (o->out && (rc = sp_out_open(&w->out, o->out, ctx->err, sizeof ctx->err)) != SP_OK) return rc;
    if (o->gold_out && (rc = sp_out_open(&w->gold_out, o->gold_out, ctx->err, sizeof ctx->err)) != SP_OK) return rc;
    for (int r = 0; r < w->n_runs; r++) w->acc[r] = prb_trees_new((int)o->evalb_max_words);
    return SP_OK;
}

/* The walk over the gold trees, in corpus order. */
static int walk_corpus(struct walk *w)
{
    const struct stg_trees_opts *o = w->o;
    struct prb_source src = { .db = o->db, .corpus = o->corpus, .want = ST_WANT_CONST, .fmt = SP_FMT_PTB,
                              .n_paths = o->mrg.n, .paths = o->mrg.v, .n_rejected = &w->r->n_rejected };
    char err[SP_ERRLEN];
    int rc = prb_source_each(&src, on_sentence, w, err, sizeof err);
    if (rc == SP_ESTOPPED) return stg_stopped(w->ctx);
    if (rc != SP_OK) return w->failed ? rc : stg_fail(w->ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", err);
    if (w->n_seen > 0 && w->r->n_no_tree == w->n_seen)     /* nothing to score against: say so once, store nothing */
        return stg_fail(w->ctx, SP_EPARSE, "%s%s%s has no constituency trees (%ld sentences; ingest its .mrg files)",
                        o->db ? "corpus '" : "", o->db ? o->corpus : o->mrg.v[0], o->db ? "'" : "", w->n_seen);
    if (w->r->n_no_tree)
        sp_log(w->ctx->log, SP_LOG_WARN, "%ld of %ld sentences have no constituency tree, skipped", w->r->n_no_tree, w->n_seen);
    return SP_OK;
}

/* ---- results ---- */

/* Mean of the seeds' figures (one seed: the figures themselves). */
static void mean_result(const struct prb_trees_result *r, int n, struct prb_trees_result *m)
{
    *m = r[0];
    if (n == 1) return;
#define AVG(field) do { double s_ = 0; for (int k_ = 0; k_ < n; k_++) s_ += r[k_].field; m->field = s_ / n; } while (0)
    AVG(a_all.recall); AVG(a_all.precision); AVG(a_all.fmeasure);
    AVG(a_le40.recall); AVG(a_le40.precision); AVG(a_le40.fmeasure);
    for (int sub = 0; sub < PRB_N_SUB; sub++) { AVG(b_sent_f1[sub]); AVG(b_corpus_f1[sub]); }
    for (int k = 0; k < PRB_N_LENBIN; k++) AVG(b_bin_f1[k]);
#undef AVG
}

static json_t *prf_json(const struct prb_prf *p)
{
    return json_pack("{s:o, s:o, s:o}", "recall", stg_json_num(p->recall), "precision", stg_json_num(p->precision),
                     "fmeasure", stg_json_num(p->fmeasure));
}

static json_t *sub_json(const double *v)
{
    return json_pack("{s:o, s:o, s:o}", "all", stg_json_num(v[PRB_SUB_ALL]), "le40", stg_json_num(v[PRB_SUB_LE40]),
                     "le10", stg_json_num(v[PRB_SUB_LE10]));
}

/* The figures, the warnings about what was left out, and the result object. */
static void finish(struct walk *w)
{
    struct stg_trees_result *r = w->r;
    struct prb_trees_result res[STG_TREES_MAX_SEEDS];
    for (int k = 0; k < w->n_runs; k++) prb_trees_result(w->acc[k], &res[k]);
    mean_result(res, w->n_runs, &r->m);
    r->n_runs = w->n_runs;
    const struct prb_trees_result *m = &r->m;
    if (w->have_attn && (long)w->attn.shape[0] != m->n_sentences + r->n_skipped)
        sp_log(w->ctx->log, SP_LOG_WARN, "%s has %zu sentences, the corpus %ld", w->o->attention, w->attn.shape[0],
               m->n_sentences + r->n_skipped);
    if (r->n_unencoded)
        sp_log(w->ctx->log, SP_LOG_WARN, "%ld sentences have no attention map in run '%s' (the encoder skipped them)",
               r->n_unencoded, w->o->run);
    if (m->a_skipped_long)
        sp_log(w->ctx->log, SP_LOG_WARN, "%ld sentences longer than %ld words left out of Protocol A", m->a_skipped_long,
               w->o->evalb_max_words);
    json_t *bins = json_array();
    for (int k = 0; k < PRB_N_LENBIN; k++)
        json_array_append_new(bins, json_pack("{s:i, s:o, s:I, s:o}", "lo", prb_lenbin_lo(k), "hi",
                                              k + 1 < PRB_N_LENBIN ? json_integer(prb_lenbin_lo(k + 1) - 1) : json_null(),
                                              "n", (json_int_t)m->b_bin_n[k], "f1", stg_json_num(m->b_bin_f1[k])));
    r->json = json_pack("{s:{s:o, s:o}, s:{s:o, s:o, s:o}, s:I}", "protocol_a", "all", prf_json(&m->a_all), "le40",
                        prf_json(&m->a_le40), "protocol_b", "sentence_f1", sub_json(m->b_sent_f1), "corpus_f1",
                        sub_json(m->b_corpus_f1), "sentence_f1_by_length", bins, "n_sentences", (json_int_t)m->n_sentences);
}

static const char *score_name(int s) { return s == TOPS_SPAN_SUM ? "sum" : "mean"; }

/* method and the manifest's "source": what the trees came from */
static json_t *source_json(const struct walk *w, char *method, size_t len)
{
    const struct stg_trees_opts *o = w->o;
    if (w->kind == K_ATTN && o->run) {
        char head[32] = "";
        if (o->head >= 0) snprintf(head, sizeof head, "head%ld:", o->head);
        snprintf(method, len, "attention:run:%s:layer%d:%s%s", o->run, w->run_layer, head, score_name(o->span_score));
        return json_pack("{s:s, s:s, s:i, s:I, s:I}", "kind", "run", "run", o->run, "attn_layer", w->run_layer,
                         "sentences_not_encoded", (json_int_t)w->r->n_unencoded, "head", (json_int_t)o->head);
    }
    if (w->kind == K_ATTN) {
        char head[32] = "";
        if (o->head >= 0) snprintf(head, sizeof head, "head%ld:", o->head);
        snprintf(method, len, "attention:%s:%s%s", o->attention, head, score_name(o->span_score));
        json_t *shape = json_array();
        for (int k = 0; k < w->attn.ndim; k++) json_array_append_new(shape, json_integer((json_int_t)w->attn.shape[k]));
        return json_pack("{s:s, s:s, s:o, s:s, s:s}", "kind", "attention", "path", o->attention, "shape", shape, "dtype",
                         sp_dtype_name(w->attn.dtype), "heads", o->head >= 0 ? "one" : w->attn.ndim == 4 ? "averaged" : "pooled before");
    }
    snprintf(method, len, "%s", o->baseline);
    return json_pack("{s:s, s:s}", "kind", "baseline", "name", o->baseline);
}

/* One tree_eval row: the figures plus the manifest, in one transaction. */
static int save(struct walk *w)
{
    const struct stg_trees_opts *o = w->o;
    struct stg_trees_result *r = w->r;
    json_t *man = stg_manifest_new(w->ctx, &o->command, stg_trees_options, o), *seeds = json_null();
    json_object_set_new(man, "source", source_json(w, r->method, sizeof r->method));
    json_object_set_new(man, "method", json_string(r->method));
    if (w->kind == K_RANDOM) {
        seeds = json_array();
        for (int k = 0; k < w->n_runs; k++) json_array_append_new(seeds, json_integer(o->seed >= 0 ? o->seed : k + 1));
    }
    json_object_set_new(man, "seeds", seeds);
    json_object_set_new(man, "evalb_max_words", o->evalb_max_words ? json_integer(o->evalb_max_words) : json_null());
    json_object_set_new(man, "span_score", w->kind == K_ATTN ? json_string(score_name(o->span_score)) : json_null());
    json_object_set_new(man, "gold", json_pack("{s:s, s:s, s:I}", "db", o->db, "corpus", o->corpus, "corpus_id",
                                                (json_int_t)w->corpus_id));
    json_object_set_new(man, "protocols", json_string("A: EVALB COLLINS.prm LABELED 0; B: unlabeled spans, "
                                                      "punctuation removed (docs/spec/probing.md §5.2, 5.3)"));
    json_object_set_new(man, "sentences_skipped", json_integer(r->n_skipped));
    json_object_set_new(man, "protocol_a_skipped_long", json_integer(r->m.a_skipped_long));
    return stg_save_tree_eval(w->ctx, w->db, o->run, w->corpus_id, r->method, r->json, man, &r->eval_id);
}

static void walk_free(struct walk *w)
{
    if (w->db) st_close(w->db);
    for (int k = 0; k < STG_TREES_MAX_SEEDS; k++) prb_trees_delete(w->acc[k]);
    sp_out_abort(&w->out);          /* no-ops after a commit */
    sp_out_abort(&w->gold_out);
    free(w->span);
    free(w->span_b);
    free(w->tag);
    free(w->block);
    free(w->scratch);
    for (long k = 0; k < w->run_cap; k++) free(w->run_attn[k]);
    free(w->run_attn);
    free(w->run_n);
    sp_npy_free(&w->attn);      /* zeroed when never read */
}

/* A corpus with dependency trees and no constituency tree (UD): 1, said once. */
static int dependency_only(struct stg_ctx *ctx, const struct stg_trees_opts *o)
{
    struct st_db *db;
    struct st_info in;
    char err[SP_ERRLEN];
    if (!o->db || !o->corpus || o->attention || st_open(o->db, ST_OPEN_READONLY, &db, err, sizeof err) != SP_OK) return 0;
    int dep = 0;
    if (st_info_summary(db, o->corpus, 0, &in, err, sizeof err) == SP_OK) {
        dep = in.n_corpora == 1 && in.corpora[0].v[ST_INFO_CONST_TREES] == 0 && in.corpora[0].v[ST_INFO_DEP_TREES] > 0;
        st_info_free(&in);
    }
    st_close(db);
    if (dep) sp_log(ctx->log, SP_LOG_INFO, "corpus '%s' has dependency trees and no constituency trees: scoring dependency "
                    "trees from attention", o->corpus);
    return dep;
}

int stg_trees_check(struct stg_ctx *ctx, const struct stg_trees_opts *o)
{
    if (o->dependency) return stg_trees_dep_check(ctx, o);
    enum kind kind;
    int rc = check_opts(ctx, o, &kind);
    /* a store corpus may turn out to have dependency trees only (dependency_only): its rules then */
    if (rc != SP_OK && o->db && o->corpus && !o->attention) {
        char why[SP_ERRLEN];
        memcpy(why, ctx->err, sizeof why);
        if (stg_trees_dep_check(ctx, o) == SP_OK) return SP_OK;
        memcpy(ctx->err, why, sizeof why);
    }
    return rc;
}

int stg_trees(struct stg_ctx *ctx, const struct stg_trees_opts *o, struct stg_trees_result *r)
{
    memset(r, 0, sizeof *r);
    if (o->dependency || dependency_only(ctx, o)) return stg_trees_dep(ctx, o, r);
    struct walk w = { .ctx = ctx, .o = o, .r = r };
    int rc = check_opts(ctx, o, &w.kind);
    if (rc != SP_OK) return rc;
    seed_runs(&w);
    double t0 = sp_now();
    if ((rc = open_inputs(&w)) == SP_OK && (rc = walk_corpus(&w)) == SP_OK) {
        finish(&w);
        if (w.db && !o->no_save) rc = save(&w);
        else snprintf(r->method, sizeof r->method, "%s", o->baseline ? o->baseline : "attention");
    }
    if (rc == SP_OK && w.out.f) rc = sp_out_commit(&w.out, ctx->err, sizeof ctx->err);
    if (rc == SP_OK && w.gold_out.f) rc = sp_out_commit(&w.gold_out, ctx->err, sizeof ctx->err);
    if (rc == SP_OK) {
        char why[256];
        stg_skipped_reasons(why, sizeof why, r->n_no_tree + r->n_unencoded, "without a tree or an attention map",
                            r->n_rejected, "rejected when read, named above",
                            r->n_skipped - r->n_no_tree - r->n_unencoded, "not scorable, named above");
        sp_log(ctx->log, SP_LOG_INFO, "trees: %ld sentences scored, %ld skipped%s, in %.2fs", r->m.n_sentences,
               r->n_skipped + r->n_rejected, why, sp_now() - t0);
    }
    walk_free(&w);
    return rc;
}

void stg_trees_result_free(struct stg_trees_result *r)
{
    json_decref(r->json);
    r->json = NULL;
}
