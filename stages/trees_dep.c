/* stages/trees_dep.c — dependency trees from attention (docs/spec/models.md M6, probes/mst.h), the
 * trees stage's mode for corpora with dependency trees: `trees --dependency` (and `trees` on a
 * corpus that has dependency trees but no constituency trees, as UD corpora are). Per sentence:
 * the run's word-level attention map (its rows rescaled to sum 1, as the constituency mode
 * does) gives a directed tree (root rule, arc direction --arc, Chu-Liu/Edmonds: UAS and UUAS of
 * its arcs) and an undirected maximum spanning tree (UUAS against the gold distances' MST);
 * baselines: right-chain, left-chain (directed), adjacent (undirected), random (both, the mean of
 * seeds 1-5, or --seed). Punctuation (the H&M XPOS list) is left out of every score. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probes/mst.h"
#include "probes/structprobe_metrics.h"
#include "stages/manifest.h"
#include "stages/names.h"
#include "stages/trees.h"
#include "stages/trees_int.h"
#include "store/st_runs.h"
#include "store/store.h"

struct dsent { int n; int *head; uint8_t *punct; float *attn; int attn_n; };
struct dwalk {
    struct stg_ctx *ctx;
    int n, cap;
    struct dsent *s;
    long n_no_tree;
    long head;                       /* --head: that head's map; -1: the pooled map */
};

static int on_attn(void *arg, const struct st_run_item *it)
{
    struct dwalk *w = arg;
    long k = (long)it->ordinal - 1;
    const float *src = w->head >= 0 ? it->attn_heads : it->attn;
    if (k < 0 || k >= w->n || !src) return 0;
    size_t nn = (size_t)it->n_tokens * (size_t)it->n_tokens;
    if (w->head >= 0) {               /* one head of the per-head maps */
        if (w->head >= it->n_heads)
            return stg_fail(w->ctx, SP_EPARSE, "--head %ld: the model has heads 0..%d", w->head, it->n_heads - 1);
        src += (size_t)w->head * nn;
    }
    w->s[k].attn = sp_xmalloc(sizeof(float) * (nn ? nn : 1));
    memcpy(w->s[k].attn, src, sizeof(float) * nn);
    w->s[k].attn_n = it->n_tokens;
    return 0;
}

static int read_corpus(struct dwalk *w, struct st_db *db, int64_t cid)
{
    struct st_iter *it;
    int rc = st_iter_open(db, cid, ST_WANT_DEP, &it, w->ctx->err, sizeof w->ctx->err);
    if (rc != SP_OK) return rc;
    while (rc == SP_OK) {
        const struct st_row *row;
        int k = st_iter_next(it, &row);
        if (k == 0) break;
        if (k < 0) { rc = stg_fail(w->ctx, SP_ESTORE, "%s", st_iter_error(it)); break; }
        if (w->n == w->cap) { w->cap = w->cap ? 2 * w->cap : 4096; w->s = sp_xrealloc(w->s, sizeof *w->s * (size_t)w->cap); }
        struct dsent *s = &w->s[w->n++];
        memset(s, 0, sizeof *s);
        if (!row->s.head || row->s.n < 1) { w->n_no_tree++; continue; }
        s->n = row->s.n;
        s->head = sp_xmalloc(sizeof *s->head * (size_t)s->n);
        memcpy(s->head, row->s.head, sizeof *s->head * (size_t)s->n);
        s->punct = sp_xmalloc((size_t)s->n);
        prb_punct_mask(&row->s, PRB_PUNCT_XPOS, s->punct);
    }
    st_iter_close(it);
    return rc;
}

static json_t *figures(const struct prb_dep_acc *dir, const struct prb_dep_acc *und, int n_avg, long n_sent)
{
    return json_pack("{s:o, s:o, s:o, s:I}", "uas", stg_json_num(dir ? prb_dep_uas(dir) / n_avg : NAN),
                     "uuas_dir", stg_json_num(dir ? prb_dep_uuas_dir(dir) / n_avg : NAN),
                     "uuas_mst", stg_json_num(und ? prb_dep_uuas_mst(und) / n_avg : NAN), "n_sentences", (json_int_t)n_sent);
}

/* the mean of the seeds' percentages (M6.7) */
static json_t *random_figures(const struct prb_dep_baselines *b, long n_sent)
{
    double u = 0, ud = 0, um = 0;
    for (int k = 0; k < b->n_seeds; k++) {
        u += prb_dep_uas(&b->random_dir[k]);
        ud += prb_dep_uuas_dir(&b->random_dir[k]);
        um += prb_dep_uuas_mst(&b->random_und[k]);
    }
    int n = b->n_seeds;
    return json_pack("{s:o, s:o, s:o, s:I}", "uas", stg_json_num(u / n), "uuas_dir", stg_json_num(ud / n), "uuas_mst",
                     stg_json_num(um / n), "n_sentences", (json_int_t)n_sent);
}

int stg_trees_dep_check(struct stg_ctx *ctx, const struct stg_trees_opts *o)
{
    if (!o->db || !o->corpus) return stg_fail(ctx, SP_EUSAGE, "dependency trees need --db DB --corpus C");
    if (o->baseline && strcmp(o->baseline, "right") && strcmp(o->baseline, "left") && strcmp(o->baseline, "random") &&
        strcmp(o->baseline, "adjacent"))
        return stg_fail(ctx, SP_EUSAGE, "--baseline %s: dependency baselines are right, left, adjacent and random", o->baseline);
    if (!o->baseline && !o->run) return stg_fail(ctx, SP_EUSAGE, "dependency trees come from --run R or --baseline");
    if (o->attention) return stg_fail(ctx, SP_EUSAGE, "--attention files are for constituency trees; use --run R");
    if (o->head >= 0 && !o->run) return stg_fail(ctx, SP_EUSAGE, "--head applies to --run R");
    if (o->seed >= 0 && (!o->baseline || strcmp(o->baseline, "random")))   /* as for constituency trees */
        return stg_fail(ctx, SP_EUSAGE, "--seed only applies to --baseline random");
    return SP_OK;
}

/* --run R: the run must exist, encode this corpus and hold attention maps; *layer: their layer */
static int check_run(struct stg_ctx *ctx, struct st_db *db, const struct stg_trees_opts *o, int64_t cid, int *layer)
{
    struct st_run_info ri;
    int rc = stg_known_name(ctx, db, o->db, STG_NAME_RUN, o->run);
    if (rc == SP_OK) rc = st_run_info(db, o->run, &ri, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) return rc;
    if (ri.corpus_id != cid)
        rc = stg_fail(ctx, SP_EPARSE, "run '%s' encodes %s '%s', not corpus '%s'", o->run, ri.corpus ? "corpus" : "task",
                      ri.corpus ? ri.corpus : ri.task ? ri.task : "?", o->corpus);
    else if (ri.attn_layer < 0)
        rc = stg_fail(ctx, SP_EPARSE, "run '%s' has no attention maps: encode the corpus again with --attention LAYER", o->run);
    *layer = ri.attn_layer;
    st_run_info_free(&ri);
    return rc;
}

/* s's attention map with every row rescaled to sum 1 (a row summing to 0: uniform) */
static double *row_normalised(const struct dsent *s)
{
    int n = s->n;
    double *A = sp_xmalloc(sizeof *A * (size_t)n * n);
    for (int i = 0; i < n; i++) {
        double sum = 0;
        for (int j = 0; j < n; j++) sum += s->attn[(size_t)i * n + j];
        for (int j = 0; j < n; j++) A[(size_t)i * n + j] = sum > 0 ? s->attn[(size_t)i * n + j] / sum : 1.0 / n;
    }
    return A;
}

/* Sentence k's directed tree into ad and its undirected MST into au (counted in *scored when
 * au took it); an error when its map gives no tree */
static int score_sentence(struct stg_ctx *ctx, const struct stg_trees_opts *o, const struct dsent *s, int k,
                          enum prb_arc_dir dir, struct prb_dep_acc *ad, struct prb_dep_acc *au, long *scored)
{
    int n = s->n, rc = SP_OK;
    double *A = row_normalised(s);
    int *head = sp_xmalloc(sizeof *head * (size_t)n), *edge = sp_xmalloc(sizeof *edge * 2 * (size_t)n);
    char err[SP_ERRLEN];
    if (prb_attn_tree(n, A, dir, head, err, sizeof err) != 0) {
        rc = stg_fail(ctx, SP_EPARSE, "run '%s', sentence %d: %s", o->run, k + 1, err);
    } else {
        prb_dep_add_directed(ad, n, s->head, head, s->punct, NULL);
        int ne = prb_attn_umst(n, A, s->punct, edge);
        if (ne >= 0 && prb_dep_add_undirected(au, n, s->head, s->punct, edge, ne, NULL, err, sizeof err) == 0) (*scored)++;
    }
    free(A); free(head); free(edge);
    return rc;
}

/* --run R: every sentence with a tree and a map of its length scored; *res: the figures,
 * *scored: the sentences scored, *unencoded: those without a map */
static int score_run(struct stg_ctx *ctx, const struct stg_trees_opts *o, const struct dwalk *w,
                     enum prb_arc_dir dir, json_t **res, long *scored, long *unencoded)
{
    struct prb_dep_acc ad, au;
    prb_dep_init(&ad);
    prb_dep_init(&au);
    *scored = 0;
    int rc = SP_OK;
    for (int k = 0; rc == SP_OK && k < w->n; k++) {
        const struct dsent *s = &w->s[k];
        if (!s->n) continue;
        if (!s->attn || s->attn_n != s->n) { (*unencoded)++; continue; }
        if (stg_stopping(ctx)) { rc = stg_stopped(ctx); break; }
        rc = score_sentence(ctx, o, s, k, dir, &ad, &au, scored);
    }
    if (rc == SP_OK) *res = figures(&ad, &au, 1, *scored);
    return rc;
}

/* --baseline B: its figures over the corpus (random: the mean over the seeds) */
static int score_baseline(struct stg_ctx *ctx, const struct stg_trees_opts *o, const struct dwalk *w, long scored,
                          json_t **res)
{
    int *len = sp_xmalloc(sizeof *len * (size_t)(w->n + 1));
    const int **gold = sp_xmalloc(sizeof *gold * (size_t)(w->n + 1));
    const uint8_t **pm = sp_xmalloc(sizeof *pm * (size_t)(w->n + 1));
    for (int k = 0; k < w->n; k++) { len[k] = w->s[k].n; gold[k] = w->s[k].head; pm[k] = w->s[k].punct; }
    uint64_t seeds[STG_TREES_MAX_SEEDS];
    int n_seeds = o->seed >= 0 ? 1 : STG_TREES_MAX_SEEDS;
    for (int k = 0; k < n_seeds; k++) seeds[k] = o->seed >= 0 ? (uint64_t)o->seed : (uint64_t)k + 1;
    struct prb_dep_baselines b;
    char err[SP_ERRLEN];
    int rc = SP_OK;
    if (prb_dep_baselines_run(&b, w->n, len, (const int *const *)gold, (const uint8_t *const *)pm, seeds, n_seeds, err,
                              sizeof err) != 0)
        rc = stg_fail(ctx, SP_EPARSE, "corpus '%s': %s", o->corpus, err);
    else if (!strcmp(o->baseline, "right")) *res = figures(&b.right, NULL, 1, scored);
    else if (!strcmp(o->baseline, "left")) *res = figures(&b.left, NULL, 1, scored);
    else if (!strcmp(o->baseline, "adjacent")) *res = figures(NULL, &b.adjacent, 1, scored);
    else *res = random_figures(&b, scored);
    if (rc == SP_OK || b.random_dir) prb_dep_baselines_free(&b);
    free(len); free(gold); free(pm);
    return rc;
}

static const char *arc_name(enum prb_arc_dir dir) { return dir == PRB_DEP_TO_HEAD ? "dep_to_head" : "head_to_dep"; }

/* The evaluation r into the store, with its manifest */
static int save_eval(struct stg_ctx *ctx, struct st_db *db, const struct stg_trees_opts *o, struct stg_trees_result *r,
                     int64_t cid, int layer, enum prb_arc_dir dir)
{
    json_t *man = stg_manifest_new(ctx, &o->command, stg_trees_options, o);
    json_object_set_new(man, "method", json_string(r->method));
    json_object_set_new(man, "source", o->run ? json_pack("{s:s, s:s, s:i, s:s}", "kind", "run", "run", o->run, "layer",
                                                          layer, "arc", arc_name(dir))
                                              : json_pack("{s:s, s:s}", "kind", "baseline", "name", o->baseline));
    json_object_set_new(man, "gold", json_pack("{s:s, s:s, s:I, s:s}", "db", o->db, "corpus", o->corpus, "corpus_id",
                                                (json_int_t)cid, "trees", "dependency"));
    json_object_set_new(man, "metrics", json_string("docs/spec/models.md M6: UAS, UUAS of the directed tree's arcs, UUAS of "
                                                    "the undirected MST against the gold distances' MST; punctuation "
                                                    "(H&M XPOS list) excluded"));
    json_object_set_new(man, "sentences_skipped", json_integer(r->n_skipped));
    return stg_save_tree_eval(ctx, db, o->run, cid, r->method, r->json, man, &r->eval_id);
}

static void free_walk(struct dwalk *w)
{
    for (int k = 0; k < w->n; k++) { free(w->s[k].head); free(w->s[k].punct); free(w->s[k].attn); }
    free(w->s);
}

/* The corpus's sentences and, with --run, their attention maps */
static int load_walk(struct stg_ctx *ctx, struct st_db *db, const struct stg_trees_opts *o, int64_t cid, struct dwalk *w)
{
    int rc = read_corpus(w, db, cid);
    if (rc == SP_OK && o->run)
        rc = st_run_items(db, o->run, o->head >= 0 ? ST_RUN_HEADS : ST_RUN_ATTN, on_attn, w, ctx->err, sizeof ctx->err);
    return rc;
}

int stg_trees_dep(struct stg_ctx *ctx, const struct stg_trees_opts *o, struct stg_trees_result *r)
{
    int rc = stg_trees_dep_check(ctx, o);
    if (rc) return rc;
    struct st_db *db = NULL;
    int64_t cid = 0;
    int layer = -1;
    rc = stg_open_store(ctx, o->db, o->no_save ? ST_OPEN_READONLY : 0, &db);
    if (rc == SP_OK) rc = stg_corpus_id(ctx, db, o->db, o->corpus, &cid);
    if (rc == SP_OK && o->run) rc = check_run(ctx, db, o, cid, &layer);
    struct dwalk w = { .ctx = ctx, .head = o->head };
    if (rc == SP_OK) rc = load_walk(ctx, db, o, cid, &w);
    long scored = 0, unencoded = 0;
    for (int k = 0; k < w.n; k++) scored += w.s[k].n > 0;
    if (rc == SP_OK && scored == 0)
        rc = stg_fail(ctx, SP_EPARSE, "corpus '%s' has no dependency trees (%d sentences; ingest its .conllu or .dp files)",
                      o->corpus, w.n);
    enum prb_arc_dir dir = (enum prb_arc_dir)o->arc;
    json_t *res = NULL;
    if (rc == SP_OK && o->run) {
        rc = score_run(ctx, o, &w, dir, &res, &scored, &unencoded);
        char hd[32] = "";
        if (o->head >= 0) snprintf(hd, sizeof hd, "head%ld:", o->head);
        snprintf(r->method, sizeof r->method, "dependency:run:%s:layer%d:%s%s", o->run, layer, hd, arc_name(dir));
    } else if (rc == SP_OK) {
        rc = score_baseline(ctx, o, &w, scored, &res);
        snprintf(r->method, sizeof r->method, "dependency:baseline:%s", o->baseline);
    }
    if (rc == SP_OK) {
        r->json = res;
        r->m.n_sentences = scored;
        r->n_no_tree = w.n_no_tree;
        r->n_unencoded = unencoded;
        r->n_skipped = w.n_no_tree + unencoded;
        if (unencoded) sp_log(ctx->log, SP_LOG_WARN, "%ld sentences have no attention map in run '%s' (the encoder skipped them)",
                              unencoded, o->run);
        if (!o->no_save) rc = save_eval(ctx, db, o, r, cid, layer, dir);
    } else {
        json_decref(res);
    }
    free_walk(&w);
    if (db) st_close(db);
    return rc;
}
