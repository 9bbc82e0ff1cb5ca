/* cli/cmd_trees.c — `synprobe trees`: binary trees from attention (or a baseline) scored
 * against the gold constituency trees of a corpus, Protocol A (EVALB, COLLINS.prm with
 * LABELED 0) and Protocol B (unsupervised-parsing span F1), SPEC-probing §5.
 *
 * Attention file (numpy, float32 or float64, C order), rows in corpus order:
 *   (n_sentences, L, L)      word-level attention of one layer, heads already pooled;
 *   (n_sentences, H, L, L)   per head: the heads are averaged here.
 * With --db --corpus the evaluation is also stored (table tree_eval, one row in one
 * transaction): method = the baseline name or "attention:<file>:<span score>", result = the
 * --json object plus "manifest" (seeds, evalb-max-words, span score, corpus, source, versions,
 * time). --no-save skips that; stdout is the same either way.
 * Row = query word, column = key word; sentence k uses A[k, :n_k, :n_k] where n_k counts the
 * gold tree's words after -NONE- removal (punctuation included); padding is ignored. Special
 * tokens must already be dropped and subwords merged (§5.1). Every row of the n_k x n_k block
 * is rescaled to sum 1 before the span scores, so blocks cut out of a longer padded row are
 * handled. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/npy.h"
#include "common/sp.h"
#include "cli/cli.h"
#include "cli/legacy.h"
#include "probes/sentsrc.h"
#include "probes/trees.h"
#include "store/results.h"
#include "store/runs.h"
#include "store/store.h"
#include "treeops/treeops.h"

#define CMD "trees"
#define MAX_SEEDS 5

static void usage(FILE *f)
{
    fprintf(f,
        "usage: synprobe trees (--db DB --corpus C | --mrg FILE|DIR...)\n"
        "                      (--baseline right|left|random|gold [--seed N] |\n"
        "                       (--attention A.npy | --run R) [--span-score mean|sum])\n"
        "                      [--evalb-max-words N] [--out TREES.txt] [--gold-out GOLD.txt] [--json] [--no-save]\n"
        "  --baseline random   without --seed: every figure is the mean over seeds 1..5\n"
        "  --attention A.npy   (n_sentences, L, L) or (n_sentences, H, L, L) word-level attention, corpus order\n"
        "  --run R             the attention maps of encoder run R over corpus C\n"
        "                      (`synprobe encode --corpus C --attention LAYER --run R`)\n"
        "  --evalb-max-words N leave sentences longer than N words out of Protocol A (200: as the EVALB binary)\n"
        "  --out / --gold-out  write predicted / gold trees one per line, for `synprobe evalb`\n"
        "  --json              {\"protocol_a\":{\"all\":{recall,precision,fmeasure},\"le40\":{...}},\n"
        "                       \"protocol_b\":{\"sentence_f1\":{all,le40,le10},\"corpus_f1\":{...}},\"n_sentences\":N}\n"
        "  --db DB --corpus C  also stores the evaluation in DB (tree_eval; see synprobe report) unless --no-save\n");
}

enum kind { K_RIGHT, K_LEFT, K_RANDOM, K_GOLD, K_ATTN };

struct ctx {
    enum kind kind;
    int n_runs;                         /* random: one accumulator per seed */
    struct prb_trees_acc *acc[MAX_SEEDS];
    struct sp_rng rng[MAX_SEEDS], rng_b[MAX_SEEDS];   /* random: Protocol A and B draws */
    const struct sp_npy *attn;
    const char *attn_path;
    /* --run: attention maps of a stored encoder run, indexed by corpus position */
    const char *run;
    int run_layer;
    long run_cap;
    float **run_attn;                   /* [run_cap]: n*n map or NULL (sentence not encoded) */
    int *run_n;
    long n_unencoded;
    enum tops_span_score score;
    FILE *out, *gold_out;
    int *span, *span_b;
    const char **tag;
    float *block;
    void *scratch;
    int cap;
    long n_skipped;
    char err[SP_ERRLEN];
};

/* A NaN or infinite weight would make every split score equal (or NaN) and the extracted tree
 * an artefact of tie-breaking: refuse it, naming the sentence and the cell. */
static int block_finite(struct ctx *c, long k, int n)
{
    long bad = sp_first_nonfinite(c->block, (size_t)n * n);
    if (bad < 0) return 0;
    snprintf(c->err, sizeof c->err, "%s%s: sentence %ld, attention[%ld][%ld] (0-based) is %s; attention must be finite",
             c->run ? "run " : "", c->run ? c->run : c->attn_path, k + 1, bad / n, bad % n, sp_nonfinite_kind(c->block[bad]));
    return -1;
}

/* A[k] as an n x n float block, heads averaged for 4-D input. */
static int attention_block(struct ctx *c, long k, int n)
{
    if (c->run) {
        if (c->run_n[k] != n) {
            snprintf(c->err, sizeof c->err, "run '%s': corpus sentence %ld has %d attention rows, the gold tree %d words",
                     c->run, k + 1, c->run_n[k], n);
            return -1;
        }
        memcpy(c->block, c->run_attn[k], sizeof(float) * (size_t)n * (size_t)n);
        return block_finite(c, k, n);
    }
    const struct sp_npy *a = c->attn;
    int four = a->ndim == 4;
    size_t H = four ? a->shape[1] : 1, L = a->shape[a->ndim - 1];
    if ((size_t)k >= a->shape[0] || (size_t)n > L) {
        snprintf(c->err, sizeof c->err, "%s: no room for sentence %ld of %d words (L = %zu, %zu sentences)",
                 c->attn_path, k + 1, n, L, a->shape[0]);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0;
            for (size_t h = 0; h < H; h++) {
                size_t off = (((size_t)k * H + h) * L + (size_t)i) * L + (size_t)j;
                sum += a->dtype == SP_DT_F64 ? ((const double *)a->data)[off] : ((const float *)a->data)[off];
            }
            c->block[(size_t)i * n + j] = (float)(sum / (double)H);
        }
    return block_finite(c, k, n);
}

static int on_sentence(const struct sp_sentence *s, long k, void *vctx)
{
    struct ctx *c = vctx;
    int n = s->n;
    if (!s->tree) {
        fprintf(stderr, "synprobe " CMD ": sentence %ld (line %ld) has no constituency tree, skipped\n", k + 1, s->line);
        c->n_skipped++;
        return 0;
    }
    if (n > c->cap) {
        c->cap = n;
        c->span = sp_xrealloc(c->span, 2 * (size_t)n * sizeof *c->span);
        c->span_b = sp_xrealloc(c->span_b, 2 * (size_t)n * sizeof *c->span_b);
        c->tag = sp_xrealloc(c->tag, (size_t)n * sizeof *c->tag);
        if (c->attn || c->run) {
            c->block = sp_xrealloc(c->block, (size_t)n * n * sizeof *c->block);
            free(c->scratch);
            c->scratch = sp_xmalloc(tops_extract_scratch_bytes(n));
        }
    }
    char err[SP_ERRLEN];
    if (c->run && (k >= c->run_cap || !c->run_attn[k])) {     /* the encoder skipped it (no annotation, too long) */
        c->n_unencoded++;
        c->n_skipped++;
        return 0;
    }
    if (prb_gold_tags(s, c->tag) != 0) {
        fprintf(stderr, "synprobe " CMD ": sentence %ld (line %ld): tree does not cover its words, skipped\n", k + 1, s->line);
        c->n_skipped++;
        return 0;
    }
    for (int run = 0; run < c->n_runs; run++) {
        int ns = 0, nb = -1;
        switch (c->kind) {
        case K_RIGHT: ns = prb_tree_right(n, c->span); break;
        case K_LEFT: ns = prb_tree_left(n, c->span); break;
        case K_RANDOM:      /* §5.4: A on a tree over all tokens, B on one over the words */
            ns = prb_tree_random(n, &c->rng[run], c->span);
            nb = prb_tree_random_words(n, c->tag, &c->rng_b[run], c->span_b);
            break;
        case K_GOLD: ns = prb_tree_gold(s->tree, n, c->span); break;
        case K_ATTN:
            if (attention_block(c, k, n) != 0) return SP_EPARSE;
            ns = tops_extract_tree(n, c->block, c->score, 1, c->scratch, c->span);
            break;
        }
        int bad = nb >= 0 ? prb_trees_add_ab(c->acc[run], s, ns, c->span, nb, c->span_b, err, sizeof err)
                          : prb_trees_add(c->acc[run], s, ns, c->span, err, sizeof err);
        if (bad) {
            fprintf(stderr, "synprobe " CMD ": sentence %ld (line %ld): %s, skipped\n", k + 1, s->line, err);
            c->n_skipped++;
            return 0;
        }
        if (run == 0 && (c->out || c->gold_out)) {
            struct sp_buf b = { 0 };
            if (c->out) {           /* the tree Protocol A scores */
                prb_tree_line(s, c->tag, ns, c->span, &b);
                fprintf(c->out, "%.*s\n", (int)b.len, b.p);
                b.len = 0;
            }
            if (c->gold_out) {
                prb_gold_line(s, &b);
                fprintf(c->gold_out, "%.*s\n", (int)b.len, b.p);
            }
            sp_buf_free(&b);
        }
    }
    return 0;
}

static json_t *num(double v) { return isnan(v) ? json_null() : json_real(v); }

static json_t *prf_json(const struct prb_prf *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "recall", num(p->recall));
    json_object_set_new(o, "precision", num(p->precision));
    json_object_set_new(o, "fmeasure", num(p->fmeasure));
    return o;
}

static json_t *sub_json(const double *v)
{
    json_t *o = json_object();
    json_object_set_new(o, "all", num(v[PRB_SUB_ALL]));
    json_object_set_new(o, "le40", num(v[PRB_SUB_LE40]));
    json_object_set_new(o, "le10", num(v[PRB_SUB_LE10]));
    return o;
}

/* Mean of the runs' figures (one run: the figures themselves). */
static void mean_result(struct prb_trees_result *r, int n, struct prb_trees_result *m)
{
    *m = r[0];
    if (n == 1) return;
#define AVG(field) do { double s_ = 0; for (int k_ = 0; k_ < n; k_++) s_ += r[k_].field; m->field = s_ / n; } while (0)
    AVG(a_all.recall); AVG(a_all.precision); AVG(a_all.fmeasure);
    AVG(a_le40.recall); AVG(a_le40.precision); AVG(a_le40.fmeasure);
    for (int sub = 0; sub < PRB_N_SUB; sub++) { AVG(b_sent_f1[sub]); AVG(b_corpus_f1[sub]); }
#undef AVG
}

/* One tree_eval row: the printed JSON plus the manifest, in one transaction. */
static int save_eval(struct st_db *db, const struct prb_source *src, const struct ctx *c, const struct prb_trees_result *m,
                     json_t *o, const char *baseline, long seed, long maxw, const char *score, int argc, char **argv)
{
    char err[SP_ERRLEN], method[1200];
    int64_t corpus_id = 0;
    if (st_corpus_id(db, src->corpus, 0, &corpus_id, err, sizeof err) != SP_OK)
        return cli_fail(SP_EXIT_INPUT, CMD, "%s", err), SP_EPARSE;
    json_t *man = sp_manifest_new(argc, argv), *seeds = json_array(), *source = json_object();
    if (c->kind == K_RANDOM)
        for (int r = 0; r < c->n_runs; r++) json_array_append_new(seeds, json_integer(seed >= 0 ? seed : r + 1));
    if (c->kind == K_ATTN && c->run) {
        snprintf(method, sizeof method, "attention:run:%s:layer%d:%s", c->run, c->run_layer, score);
        json_object_set_new(source, "kind", json_string("run"));
        json_object_set_new(source, "run", json_string(c->run));
        json_object_set_new(source, "attn_layer", json_integer(c->run_layer));
        json_object_set_new(source, "sentences_not_encoded", json_integer(c->n_unencoded));
    } else if (c->kind == K_ATTN) {
        snprintf(method, sizeof method, "attention:%s:%s", c->attn_path, score);
        json_object_set_new(source, "kind", json_string("attention"));
        json_object_set_new(source, "path", json_string(c->attn_path));
        json_t *shape = json_array();
        for (int k = 0; k < c->attn->ndim; k++) json_array_append_new(shape, json_integer((json_int_t)c->attn->shape[k]));
        json_object_set_new(source, "shape", shape);
        json_object_set_new(source, "dtype", json_string(sp_dtype_name(c->attn->dtype)));
        json_object_set_new(source, "heads", json_string(c->attn->ndim == 4 ? "averaged" : "pooled before"));
    } else {
        snprintf(method, sizeof method, "%s", baseline);
        json_object_set_new(source, "kind", json_string("baseline"));
        json_object_set_new(source, "name", json_string(baseline));
    }
    json_object_set_new(man, "method", json_string(method));
    json_object_set_new(man, "source", source);
    json_object_set_new(man, "seeds", c->kind == K_RANDOM ? seeds : (json_decref(seeds), json_null()));
    json_object_set_new(man, "evalb_max_words", maxw ? json_integer(maxw) : json_null());
    json_object_set_new(man, "span_score", c->kind == K_ATTN ? json_string(score) : json_null());
    json_object_set_new(man, "gold", json_pack("{s:s, s:s, s:I}", "db", src->db, "corpus", src->corpus,
                                                "corpus_id", (json_int_t)corpus_id));
    json_object_set_new(man, "protocols", json_string("A: EVALB COLLINS.prm LABELED 0; B: unlabeled spans, "
                                                      "punctuation removed (SPEC-probing 5.2, 5.3)"));
    json_object_set_new(man, "sentences_skipped", json_integer(c->n_skipped));
    json_object_set_new(man, "protocol_a_skipped_long", json_integer(m->a_skipped_long));
    return sp_save_tree_eval(db, CMD, src->db, c->run, corpus_id, method, o, man);
}

/* --run: the run's attention maps, by corpus position (run ordinal k+1 = corpus sentence k, the
 * order of st_iter that both `encode --corpus` and this walk use). */
static int run_item_attn(void *vctx, const struct st_run_item *it)
{
    struct ctx *c = vctx;
    long k = (long)it->ordinal - 1;
    if (k < 0) return 0;
    if (k >= c->run_cap) {
        long cap = c->run_cap ? c->run_cap : 1024;
        while (cap <= k) cap *= 2;
        c->run_attn = sp_xrealloc(c->run_attn, (size_t)cap * sizeof *c->run_attn);
        c->run_n = sp_xrealloc(c->run_n, (size_t)cap * sizeof *c->run_n);
        for (long i = c->run_cap; i < cap; i++) { c->run_attn[i] = NULL; c->run_n[i] = 0; }
        c->run_cap = cap;
    }
    size_t nn = (size_t)it->n_tokens * (size_t)it->n_tokens;
    c->run_attn[k] = sp_xmalloc(sizeof(float) * (nn ? nn : 1));
    memcpy(c->run_attn[k], it->attn, sizeof(float) * nn);
    c->run_n[k] = it->n_tokens;
    return 0;
}

static int load_run(struct ctx *c, const struct prb_source *src)
{
    char err[SP_ERRLEN];
    struct st_db *db;
    if (st_open(src->db, ST_OPEN_READONLY, &db, err, sizeof err) != SP_OK) return cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
    struct st_run_info ri;
    int rc = st_run_info(db, c->run, &ri, err, sizeof err);
    if (rc == SP_OK) {
        if (!ri.corpus || strcmp(ri.corpus, src->corpus) != 0) {
            snprintf(err, sizeof err, "run '%s' encodes %s '%s', not corpus '%s'", c->run, ri.corpus ? "corpus" : "task",
                     ri.corpus ? ri.corpus : ri.task ? ri.task : "?", src->corpus);
            rc = SP_EPARSE;
        }
        c->run_layer = ri.attn_layer;
        st_run_info_free(&ri);
    }
    if (rc == SP_OK) rc = st_run_items(db, c->run, ST_RUN_ATTN, run_item_attn, c, err, sizeof err);
    st_close(db);
    return rc == SP_OK ? SP_EXIT_OK : cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
}

int cmd_trees(int argc, char **argv)
{
    struct prb_source src = { .want = ST_WANT_CONST, .fmt = SP_FMT_PTB };
    const char *baseline = NULL, *attn_path = NULL, *seed_s = NULL, *out_path = NULL, *gold_path = NULL;
    const char *score = "mean", *maxw_s = NULL, *run_name = NULL;
    int json = 0, no_save = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return SP_EXIT_OK; }
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--no-save")) no_save = 1;
        else if (!strcmp(a, "--db") && has) src.db = argv[++i];
        else if (!strcmp(a, "--corpus") && has) src.corpus = argv[++i];
        else if (!strcmp(a, "--baseline") && has) baseline = argv[++i];
        else if (!strcmp(a, "--attention") && has) attn_path = argv[++i];
        else if (!strcmp(a, "--run") && has) run_name = argv[++i];
        else if (!strcmp(a, "--seed") && has) seed_s = argv[++i];
        else if (!strcmp(a, "--span-score") && has) score = argv[++i];
        else if (!strcmp(a, "--evalb-max-words") && has) maxw_s = argv[++i];
        else if (!strcmp(a, "--out") && has) out_path = argv[++i];
        else if (!strcmp(a, "--gold-out") && has) gold_path = argv[++i];
        else if (!strcmp(a, "--mrg") && src.n_paths == 0) {
            const char **p;
            if (sp_collect_paths(argc, argv, &i, &p, &src.n_paths) != 0)
                return cli_fail(SP_EXIT_USAGE, CMD, "--mrg needs at least one FILE or DIR");
            src.paths = p;
        } else {
            usage(stderr);
            return cli_fail(SP_EXIT_USAGE, CMD, "unexpected argument '%s'", a);
        }
    }
    if (!!src.db + (src.n_paths > 0) != 1 || (src.db && !src.corpus))
        return cli_fail(SP_EXIT_USAGE, CMD, "give either --db DB --corpus C or --mrg FILE...");
    if (!!baseline + !!attn_path + !!run_name != 1)
        return cli_fail(SP_EXIT_USAGE, CMD, "give one of --baseline right|left|random|gold, --attention A.npy or --run R");
    if (run_name && !src.db) return cli_fail(SP_EXIT_USAGE, CMD, "--run R needs --db DB --corpus C");
    if (no_save && !src.db) return cli_fail(SP_EXIT_USAGE, CMD, "--no-save applies to --db");

    struct ctx c = { .n_runs = 1, .attn_path = attn_path, .run = run_name };
    if (attn_path || run_name) c.kind = K_ATTN;
    else if (!strcmp(baseline, "right")) c.kind = K_RIGHT;
    else if (!strcmp(baseline, "left")) c.kind = K_LEFT;
    else if (!strcmp(baseline, "random")) c.kind = K_RANDOM;
    else if (!strcmp(baseline, "gold")) c.kind = K_GOLD;
    else return cli_fail(SP_EXIT_USAGE, CMD, "unknown baseline '%s' (expected right, left, random or gold)", baseline);
    if (seed_s && c.kind != K_RANDOM) return cli_fail(SP_EXIT_USAGE, CMD, "--seed only applies to --baseline random");
    if (!strcmp(score, "mean")) c.score = TOPS_SPAN_MEAN;
    else if (!strcmp(score, "sum")) c.score = TOPS_SPAN_SUM;
    else return cli_fail(SP_EXIT_USAGE, CMD, "--span-score: expected mean or sum, got '%s'", score);
    long maxw = 0, seed = 0;
    if (maxw_s && sp_parse_int(maxw_s, 0, 1000000000L, &maxw) != 0)
        return cli_fail(SP_EXIT_USAGE, CMD, "--evalb-max-words: expected a non-negative integer, got '%s'", maxw_s);
    if (seed_s && sp_parse_int(seed_s, 0, 2147483647L, &seed) != 0)
        return cli_fail(SP_EXIT_USAGE, CMD, "--seed: expected a non-negative integer, got '%s'", seed_s);
    if (c.kind == K_RANDOM) {
        if (seed_s) {
            sp_rng_seed(&c.rng[0], (uint64_t)seed);
            sp_rng_seed(&c.rng_b[0], (uint64_t)seed);
        } else {
            c.n_runs = MAX_SEEDS;                       /* §5.4: mean over seeds 1..5 */
            for (int r = 0; r < MAX_SEEDS; r++) {
                sp_rng_seed(&c.rng[r], (uint64_t)r + 1);
                sp_rng_seed(&c.rng_b[r], (uint64_t)r + 1);
            }
        }
    }

    int rc = SP_EXIT_OK;
    char err[SP_ERRLEN];
    struct sp_npy attn = { 0 };
    struct sp_out o_out = { 0 }, o_gold = { 0 };
    struct st_db *save_db = NULL;
    json_t *o = NULL;
    if (attn_path) {
        if (sp_npy_read(attn_path, &attn, err, sizeof err) != SP_OK) return cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
        if ((attn.ndim != 3 && attn.ndim != 4) || attn.shape[attn.ndim - 1] != attn.shape[attn.ndim - 2]
            || attn.dtype == SP_DT_I32) {
            sp_npy_free(&attn);
            return cli_fail(SP_EXIT_INPUT, CMD, "%s: expected float32/float64 of shape (n_sentences, L, L) "
                           "or (n_sentences, H, L, L)", attn_path);
        }
        c.attn = &attn;
    }
    if (run_name && (rc = load_run(&c, &src)) != SP_EXIT_OK) goto out;
    /* --out / --gold-out: temporary files, renamed into place only when the command succeeds */
    if (out_path) {
        if (sp_out_open(&o_out, out_path, err, sizeof err)) { rc = cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
        c.out = o_out.f;
    }
    if (gold_path) {
        if (sp_out_open(&o_gold, gold_path, err, sizeof err)) { rc = cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
        c.gold_out = o_gold.f;
    }
    for (int r = 0; r < c.n_runs; r++) c.acc[r] = prb_trees_new((int)maxw);
    /* the store for the result is opened (and migrated) before the walk, so that a store we
     * cannot write fails before the work */
    if (src.db && !no_save && st_open(src.db, 0, &save_db, err, sizeof err) != SP_OK) {
        rc = cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
        goto out;
    }

    int e = prb_source_each(&src, on_sentence, &c, err, sizeof err);
    if (e != SP_OK) {
        rc = cli_fail(e == SP_EUSAGE ? SP_EXIT_USAGE : SP_EXIT_INPUT, CMD, "%s", c.err[0] ? c.err : err);
        goto out;
    }
    struct prb_trees_result res[MAX_SEEDS], m;
    for (int r = 0; r < c.n_runs; r++) prb_trees_result(c.acc[r], &res[r]);
    mean_result(res, c.n_runs, &m);
    if (attn_path && (long)attn.shape[0] != m.n_sentences + c.n_skipped)
        fprintf(stderr, "synprobe " CMD ": warning: %s has %zu sentences, the corpus %ld\n",
                attn_path, attn.shape[0], m.n_sentences + c.n_skipped);
    if (c.n_unencoded)
        fprintf(stderr, "synprobe " CMD ": %ld sentences have no attention map in run '%s' (the encoder skipped them)\n",
                c.n_unencoded, run_name);
    if (m.a_skipped_long)
        fprintf(stderr, "synprobe " CMD ": %ld sentences longer than %ld words left out of Protocol A\n",
                m.a_skipped_long, maxw);
    o = json_object();
    {
        json_t *a = json_object(), *b = json_object();
        json_object_set_new(a, "all", prf_json(&m.a_all));
        json_object_set_new(a, "le40", prf_json(&m.a_le40));
        json_object_set_new(b, "sentence_f1", sub_json(m.b_sent_f1));
        json_object_set_new(b, "corpus_f1", sub_json(m.b_corpus_f1));
        json_object_set_new(o, "protocol_a", a);
        json_object_set_new(o, "protocol_b", b);
        json_object_set_new(o, "n_sentences", json_integer(m.n_sentences));
    }
    if (json) {
        char *txt = json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        printf("%s\n", txt);
        free(txt);
    } else {
        printf("sentences %ld%s\n", m.n_sentences, c.n_runs > 1 ? " (random: mean of seeds 1..5)" : "");
        printf("Protocol A (EVALB, COLLINS.prm, LABELED 0)  recall  precision  F\n");
        printf("  all    (%5ld valid)                      %6.2f  %9.2f  %6.2f\n", m.a_all.n_valid,
               m.a_all.recall, m.a_all.precision, m.a_all.fmeasure);
        printf("  len<=40 (%5ld valid)                     %6.2f  %9.2f  %6.2f\n", m.a_le40.n_valid,
               m.a_le40.recall, m.a_le40.precision, m.a_le40.fmeasure);
        printf("Protocol B (unlabeled spans, no punctuation)  all    <=40   <=10\n");
        printf("  sentence F1                                %6.2f %6.2f %6.2f\n",
               m.b_sent_f1[0], m.b_sent_f1[1], m.b_sent_f1[2]);
        printf("  corpus F1                                  %6.2f %6.2f %6.2f\n",
               m.b_corpus_f1[0], m.b_corpus_f1[1], m.b_corpus_f1[2]);
        printf("  sentences scored                           %6ld %6ld %6ld\n", m.b_n[0], m.b_n[1], m.b_n[2]);
    }
    if (save_db) {
        fflush(stdout);
        if (save_eval(save_db, &src, &c, &m, o, baseline, seed_s ? seed : -1, maxw, score, argc, argv) != SP_OK)
            rc = SP_EXIT_INPUT;
    }
out:
    json_decref(o);
    if (save_db) st_close(save_db);
    for (int r = 0; r < MAX_SEEDS; r++) prb_trees_delete(c.acc[r]);
    if (rc == SP_EXIT_OK && o_out.f && sp_out_commit(&o_out, err, sizeof err)) rc = cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
    if (rc == SP_EXIT_OK && o_gold.f && sp_out_commit(&o_gold, err, sizeof err)) rc = cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
    sp_out_abort(&o_out);       /* no-ops after a commit */
    sp_out_abort(&o_gold);
    free(c.span);
    free(c.span_b);
    free(c.tag);
    free(c.block);
    free(c.scratch);
    for (long k = 0; k < c.run_cap; k++) free(c.run_attn[k]);
    free(c.run_attn);
    free(c.run_n);
    sp_npy_free(&attn);
    return rc;
}
