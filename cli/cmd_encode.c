/* cli/cmd_encode.c — `synprobe encode`: run an encoder over a corpus or a probing task and
 * cache sentence vectors (optionally token vectors and one layer's attention maps) in the store.
 *
 * Where the per-sentence structures come from: the store's cached BLOBs (st_iter, no
 * recomputation): depth, tree distance, ancestors and relative positions from dep_structure;
 * PSAN phrase ids from const_structure when the stored division has the config's `levels` and
 * min_phrase_len 4 (what ingest caches, store/st_derive.c). Only a PSAN config with other
 * levels or min_phrase_len gets its phrase ids from enc_sentence_prepare (treeops on the stored
 * tree). Task items: tokens = the item's text split on spaces (BShift/SOMO items differ from
 * their sentence); an item with a sentence_id gets that stored sentence's structures when the
 * token counts agree (a BShift item keeps its original sentence's parse), else it lacks
 * structure; imported items (no sentence_id) can only be encoded by encoders needing none.
 *
 * Cache identity.
 *   encoder fingerprint = SHA-256 of: the config file's JSON without "comment", with the
 *     effective seed set, re-serialised with sorted keys and no spaces (jansson); the weights
 *     file's SHA-256, or "glorot seed N" without --weights; the embeddings file's SHA-256, or
 *     "random seed N" without --embeddings. Two files that differ only in spacing, key order or
 *     comment share a fingerprint; spelling out a default value gives a new one (a cache miss,
 *     never a wrong hit).
 *   input hash (vector.text_hash) = SHA-256 of everything the encoder reads for the sentence:
 *     the forms joined by single spaces, then, for each structure the kind needs (enc_needs),
 *     a tag and its int32 values (depth; distance; ancestors; relative positions; phrase ids at
 *     the config's levels). Equal text with different parses therefore never shares a row, and
 *     a task item with the same words and structures as a corpus sentence shares the corpus's.
 *
 * Batching: inputs are read in windows (corpus/task order), looked up in the cache, and the
 * misses sorted by length and cut into batches of at most --batch-tokens padded tokens
 * (sentences x longest). Each batch's vectors and run items are one transaction. When
 * enc_forward reports SP_ENOMEM the batch is halved and retried, down to one sentence, which is
 * then skipped and reported. Sentences over --max-tokens are skipped and reported. */
#include <ctype.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/sp.h"
#include "cli/cli.h"
#include "stages/manifest.h"
#include "encoder/encoder.h"
#include "store/blob.h"
#include "store/runs.h"
#include "store/store.h"
#include "store/tasks.h"

#define CMD "encode"
#define STORED_MIN_PHRASE_LEN 4     /* the m_min ingest caches phrase ids with (store/st_derive.c) */
#define WINDOW_UNITS 1024
#define WINDOW_TOKENS 65536

static void usage(FILE *f)
{
    fprintf(f,
        "usage: synprobe encode --db DB (--corpus C | --task T) --encoder CFG.json --run R\n"
        "                       [--weights W.safetensors] [--save-weights W.safetensors] [--embeddings GLOVE.txt]\n"
        "                       [--token-vectors] [--attention LAYER] [--seed N] [--threads K]\n"
        "                       [--device auto|cpu|cuda] [--batch-tokens N] [--max-tokens N]\n"
        "                       [--on-missing skip|fail] [--perturbed keep-parse|no-parse]\n"
        "                       [--max-workspace SIZE] [--json] [--quiet | --verbose]\n"
        "  --weights         safetensors weights (default: seeded Glorot init from the config's seed)\n"
        "  --save-weights    write the weights used (e.g. the seeded init) to this file\n"
        "  --embeddings      GloVe/word2vec text file of width d_input (default: seeded random vector per word)\n"
        "  --token-vectors   cache token vectors too (export --what tokens)\n"
        "  --attention L     cache the head-averaged attention map of layer L (export --what attention)\n"
        "  --seed N          overrides the config's seed (weights init and random embeddings)\n"
        "  --batch-tokens N  padded tokens per forward batch (default 8192); halved on out-of-memory\n"
        "  --max-tokens N    longer sentences are skipped and reported (default 512)\n"
        "  --max-workspace S cap the encoder's working memory: bytes, or with a suffix K, M, G, T (powers of\n"
        "                    1024), at least 64K (e.g. 512M, 2G; default none). A batch\n"
        "                    over it is halved like a CUDA out-of-memory; a sentence alone over it is skipped\n"
        "  --on-missing      a sentence lacking the structure the encoder needs: skip and count it\n"
        "                    (default) or fail\n"
        "  --perturbed       task items whose words differ from their sentence's (BShift, SOMO, CoordInv):\n"
        "                    keep-parse (default) gives them the original sentence's structures when the\n"
        "                    word counts agree; no-parse treats them as lacking structure (--on-missing)\n"
        "  --verbose         also say why --device auto did not use a GPU (the CUDA runtime's words)\n"
        "Re-running a run name with the same encoder reuses every cached vector; a run name made by a\n"
        "different encoder fingerprint is an error. Exit 0 ok, 1 bad input, 2 usage.\n");
}

/* One input: a corpus sentence or a task item, with the structures its encoder needs. */
struct unit {
    int64_t ordinal, sentence_id, task_ordinal;
    const char *label;          /* for messages */
    int n;
    char **forms;
    int32_t *depth, *dist, *rel, *pid;
    uint8_t *anc;
    char hash[65];
    enum { U_PENDING, U_CACHED, U_SKIP } state;
};

struct enc_ctx {
    struct st_db *db;
    enc_t *e;
    enc_embed_t *emb;
    const float *table;
    int table_rows;
    const struct enc_config *cfg;
    unsigned needs;
    int64_t encoder_id, run_id;
    int tok, attn_layer;           /* attn_layer -1: none */
    long batch_tokens, max_tokens;
    int on_missing_fail, quiet, progress;
    int perturbed_no_parse;        /* --perturbed no-parse */
    long n_perturbed;              /* task items whose words differ from their sentence's */
    /* window */
    struct unit *u;
    int n_units, cap_units;
    long window_tokens;
    struct sp_arena arena, batch_arena;
    struct st_iter *it;            /* the corpus being read: paused before each window's writes */
    /* results */
    long n_cached, n_encoded, n_missing, n_long, n_oom, n_batches;
    int64_t *dropped;
    int n_dropped, cap_dropped;
    char err[SP_ERRLEN * 2];
};

static void drop(struct enc_ctx *c, int64_t ordinal)
{
    if (c->n_dropped == c->cap_dropped) {
        c->cap_dropped = c->cap_dropped ? 2 * c->cap_dropped : 64;
        c->dropped = sp_xrealloc(c->dropped, sizeof *c->dropped * (size_t)c->cap_dropped);
    }
    c->dropped[c->n_dropped++] = ordinal;
}

static struct unit *unit_new(struct enc_ctx *c)
{
    if (c->n_units == c->cap_units) {
        c->cap_units = c->cap_units ? 2 * c->cap_units : 256;
        c->u = sp_xrealloc(c->u, sizeof *c->u * (size_t)c->cap_units);
    }
    struct unit *u = &c->u[c->n_units++];
    memset(u, 0, sizeof *u);
    return u;
}

static void hash_i32(struct sp_sha256 *h, const char *tag, const int32_t *v, size_t n)
{
    sp_sha256_update(h, tag, strlen(tag) + 1);
    unsigned char b[256];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = (uint32_t)v[i];
        b[k++] = (unsigned char)x; b[k++] = (unsigned char)(x >> 8); b[k++] = (unsigned char)(x >> 16); b[k++] = (unsigned char)(x >> 24);
        if (k == sizeof b) { sp_sha256_update(h, b, k); k = 0; }
    }
    sp_sha256_update(h, b, k);
}

/* the input hash: see the header comment */
static void unit_hash(const struct enc_ctx *c, struct unit *u)
{
    struct sp_sha256 h;
    sp_sha256_init(&h);
    sp_sha256_update(&h, "synprobe-input-1\n", 17);
    for (int i = 0; i < u->n; i++) {
        if (i) sp_sha256_update(&h, " ", 1);
        sp_sha256_update(&h, u->forms[i], strlen(u->forms[i]));
    }
    sp_sha256_update(&h, "\n", 1);
    size_t n = (size_t)u->n, nn = n * n;
    if (c->needs & (ENC_NEED_DEPTH | ENC_NEED_DIST | ENC_NEED_ANC | ENC_NEED_REL)) hash_i32(&h, "depth", u->depth, n);
    if (c->needs & ENC_NEED_DIST) hash_i32(&h, "dist", u->dist, nn);
    if (c->needs & ENC_NEED_ANC) {
        sp_sha256_update(&h, "anc", 4);
        sp_sha256_update(&h, u->anc, nn);
    }
    if (c->needs & ENC_NEED_REL) hash_i32(&h, "rel", u->rel, nn);
    if (c->needs & ENC_NEED_PID) hash_i32(&h, "pid", u->pid, (size_t)c->cfg->levels * n);
    sp_sha256_hex(&h, u->hash);
}

/* A sentence the encoder cannot use: counted and skipped, or (--on-missing fail) an error. */
static int missing(struct enc_ctx *c, struct unit *u, const char *why)
{
    if (c->on_missing_fail) {
        snprintf(c->err, sizeof c->err, "%s: %s needs %s (--on-missing skip to skip such sentences)",
                 u->label, enc_kind_name(c->cfg->kind), why);
        return SP_EPARSE;
    }
    u->state = U_SKIP;
    c->n_missing++;
    return SP_OK;
}

static int too_long(struct enc_ctx *c, struct unit *u)
{
    if (u->n > c->max_tokens || u->n <= 0) {
        if (!c->quiet)
            fprintf(stderr, "synprobe encode: %s: %d tokens, %s; skipped\n", u->label, u->n,
                    u->n <= 0 ? "empty" : "over --max-tokens");
        u->state = U_SKIP;
        c->n_long++;
        return 1;
    }
    return 0;
}

static char **split_text(struct sp_arena *a, const char *text, int *n_out);

/* Structures from the stored BLOBs of a corpus row (or enc_sentence_prepare, see the header).
 * text != NULL (a task item): the tokens are the item's text (BShift, SOMO items differ from
 * their sentence), with the sentence's structures when the token count matches. */
static int unit_from_row(struct enc_ctx *c, const struct st_row *r, const char *text, struct unit *u)
{
    struct sp_arena *a = &c->arena;
    int n = u->n = r->s.n;
    u->label = text ? sp_arena_printf(a, "task item %lld (sentence %s)", (long long)u->task_ordinal, r->s.sent_id ? r->s.sent_id : "?")
                    : sp_arena_printf(a, "sentence %s", r->s.sent_id ? r->s.sent_id : "?");
    if (text) {
        int m;
        u->forms = split_text(a, text, &m);
        int same = m == n;
        for (int i = 0; same && i < n; i++) same = !strcmp(u->forms[i], r->s.col[SP_FORM][i]);
        if (!same) c->n_perturbed++;
        if (m != n || (!same && c->perturbed_no_parse)) {
            u->n = m;
            if (too_long(c, u)) return SP_OK;
            if (!c->needs) { unit_hash(c, u); return SP_OK; }
            return missing(c, u, m != n ? "structures matching its words (the item's text and its sentence differ in length)"
                                        : "a parse of its own words (--perturbed no-parse)");
        }
    } else {
        u->forms = sp_arena_alloc(a, sizeof(char *) * (size_t)(n ? n : 1));
        for (int i = 0; i < n; i++) u->forms[i] = sp_arena_strdup(a, r->s.col[SP_FORM][i]);
    }
    if (too_long(c, u)) return SP_OK;
    size_t nn = (size_t)n * n;
    unsigned dep = c->needs & (ENC_NEED_DEPTH | ENC_NEED_DIST | ENC_NEED_ANC | ENC_NEED_REL);
    if (dep && !r->has_dep) return missing(c, u, "a dependency tree");
    if ((c->needs & ENC_NEED_PID) && !r->has_const) return missing(c, u, "a constituency tree");
    if (dep) {
        u->depth = sp_arena_alloc(a, 4 * (size_t)n);
        for (int i = 0; i < n; i++) u->depth[i] = st_blob_depth_at(r->depth.p, i);
        int *tmp = (c->needs & (ENC_NEED_DIST | ENC_NEED_REL)) ? sp_xmalloc(sizeof(int) * nn) : NULL;
        if (c->needs & ENC_NEED_DIST) {
            st_blob_get_distance(r->distance.p, n, tmp);
            u->dist = sp_arena_alloc(a, 4 * nn);
            for (size_t k = 0; k < nn; k++) u->dist[k] = tmp[k];
        }
        if (c->needs & ENC_NEED_REL) {
            st_blob_get_relpos(r->relpos.p, n, tmp);
            u->rel = sp_arena_alloc(a, 4 * nn);
            for (size_t k = 0; k < nn; k++) u->rel[k] = tmp[k];
        }
        free(tmp);
        if (c->needs & (ENC_NEED_ANC | ENC_NEED_REL)) {
            u->anc = sp_arena_alloc(a, nn);
            st_blob_get_ancestors(r->ancestors.p, n, u->anc);
        }
    }
    if (c->needs & ENC_NEED_PID) {
        int T = c->cfg->levels;
        u->pid = sp_arena_alloc(a, 4 * (size_t)T * n);
        if (r->levels == T && c->cfg->min_phrase_len == STORED_MIN_PHRASE_LEN) {
            for (int t = 1; t <= T; t++)
                for (int i = 0; i < n; i++) u->pid[(size_t)(t - 1) * n + i] = st_blob_phrase_at(r->phrases.p, n, t, i);
        } else {
            /* a division the store does not cache: treeops on the stored tree */
            struct enc_sentence es;
            char perr[SP_ERRLEN];
            if (enc_sentence_prepare(c->e, &r->s, NULL, NULL, a, &es, perr, sizeof perr) || !es.pid)
                return missing(c, u, "a usable constituency tree");
            memcpy(u->pid, es.pid, 4 * (size_t)T * n);
        }
    }
    unit_hash(c, u);
    return SP_OK;
}

/* Tokens = the text split on spaces (imported task items, or encoders needing no structure). */
static char **split_text(struct sp_arena *a, const char *text, int *n_out)
{
    int n = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ') p++;
        if (!*p) break;
        n++;
        while (*p && *p != ' ') p++;
    }
    char **forms = sp_arena_alloc(a, sizeof(char *) * (size_t)(n ? n : 1));
    int k = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ') p++;
        if (!*p) break;
        const char *s = p;
        while (*p && *p != ' ') p++;
        forms[k++] = sp_arena_strndup(a, s, (size_t)(p - s));
    }
    *n_out = n;
    return forms;
}

static int unit_from_text(struct enc_ctx *c, const char *text, struct unit *u)
{
    u->forms = split_text(&c->arena, text, &u->n);
    if (too_long(c, u)) return SP_OK;
    if (c->needs) return missing(c, u, c->needs & ENC_NEED_PID ? "a constituency tree (the item has no stored sentence)"
                                                               : "a dependency tree (the item has no stored sentence)");
    unit_hash(c, u);
    return SP_OK;
}

static int by_length(const void *x, const void *y, void *ctx)
{
    const struct unit *u = ctx;
    const struct unit *a = &u[*(const int *)x], *b = &u[*(const int *)y];
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    return a->ordinal < b->ordinal ? -1 : a->ordinal > b->ordinal;
}

static struct st_run_item_put item_of(const struct unit *u)
{
    return (struct st_run_item_put){ u->ordinal, u->sentence_id, u->task_ordinal, u->hash };
}

/* Finite weights and embeddings can still overflow (huge weights, exp in softmax): a NaN or
 * infinite output is never stored. SP_EPARSE with c->err naming the sentence and the output. */
static int outputs_finite(struct enc_ctx *c, const int *idx, int cnt, const float *sent, int dim,
                          float *const *tok, int td, float *const *attn)
{
    for (int b = 0; b < cnt; b++) {
        const struct unit *u = &c->u[idx[b]];
        size_t n = (size_t)u->n;
        const char *what = sp_first_nonfinite(sent + (size_t)b * dim, (size_t)dim) >= 0 ? "sentence vector"
                         : tok && sp_first_nonfinite(tok[b], n * (size_t)td) >= 0 ? "token vectors"
                         : attn && sp_first_nonfinite(attn[b], n * n) >= 0 ? "attention map" : NULL;
        if (what) {
            snprintf(c->err, sizeof c->err, "%s: the encoder's %s holds NaN or infinite values (weights or "
                     "embeddings too large?); encoding stopped", u->label, what);
            return SP_EPARSE;
        }
    }
    return SP_OK;
}

/* Encode units idx[0..cnt) as one batch; halve on out-of-memory. */
static int encode_batch(struct enc_ctx *c, const int *idx, int cnt)
{
    struct sp_arena *a = &c->batch_arena;
    sp_arena_reset(a);
    int din = c->cfg->d_input, dim = enc_dim(c->e), td = enc_tok_dim(c->e);
    struct enc_sentence *s = sp_arena_alloc(a, sizeof *s * (size_t)cnt);
    float **tok = c->tok ? sp_arena_alloc(a, sizeof(float *) * (size_t)cnt) : NULL;
    float **attn = c->attn_layer >= 0 ? sp_arena_alloc(a, sizeof(float *) * (size_t)cnt) : NULL;
    float *sent = sp_arena_alloc(a, sizeof(float) * (size_t)cnt * (size_t)dim);
    for (int b = 0; b < cnt; b++) {
        const struct unit *u = &c->u[idx[b]];
        int n = u->n;
        s[b] = (struct enc_sentence){ .n = n, .depth = u->depth, .dist = u->dist, .anc = u->anc, .rel = u->rel,
                                      .pid = u->pid, .n_levels = u->pid ? c->cfg->levels : 0 };
        if (c->table) {
            int32_t *ids = sp_arena_alloc(a, 4 * (size_t)n);
            for (int i = 0; i < n; i++) ids[i] = enc_embed_id(c->emb, u->forms[i]);
            s[b].ids = ids;
        } else {
            float *emb = sp_arena_alloc(a, sizeof(float) * (size_t)n * (size_t)din);
            for (int i = 0; i < n; i++) enc_embed_vector(c->emb, u->forms[i], emb + (size_t)i * din);
            s[b].emb = emb;
        }
        if (tok) tok[b] = sp_arena_alloc(a, sizeof(float) * (size_t)n * (size_t)td);
        if (attn) attn[b] = sp_arena_alloc(a, sizeof(float) * (size_t)n * (size_t)n);
    }
    struct enc_batch in = { cnt, s, c->table, c->table_rows };
    struct enc_output out = { sent, tok, attn, c->attn_layer };
    char ferr[SP_ERRLEN];
    int rc = enc_forward(c->e, &in, &out, ferr, sizeof ferr);
    if (rc == SP_ENOMEM) {
        if (cnt == 1) {
            const struct unit *u = &c->u[idx[0]];
            if (!c->quiet) fprintf(stderr, "synprobe encode: %s (%d tokens): out of memory alone (%s); skipped\n",
                                   u->label, u->n, ferr);
            c->n_oom++;
            drop(c, u->ordinal);
            return SP_OK;
        }
        int h = cnt / 2;
        if ((rc = encode_batch(c, idx, h)) != SP_OK) return rc;
        return encode_batch(c, idx + h, cnt - h);
    }
    if (rc) { snprintf(c->err, sizeof c->err, "%s", ferr); return rc; }
    if ((rc = outputs_finite(c, idx, cnt, sent, dim, tok, td, attn)) != SP_OK) return rc;
    struct st_vector_put *vp = sp_xmalloc(sizeof *vp * (size_t)cnt);
    struct st_run_item_put *ip = sp_xmalloc(sizeof *ip * (size_t)cnt);
    for (int b = 0; b < cnt; b++) {
        const struct unit *u = &c->u[idx[b]];
        vp[b] = (struct st_vector_put){ u->hash, dim, sent + (size_t)b * dim, u->n, td, tok ? tok[b] : NULL,
                                        c->attn_layer, attn ? attn[b] : NULL };
        ip[b] = item_of(u);
    }
    rc = st_run_write(c->db, c->run_id, c->encoder_id, vp, cnt, ip, cnt, c->err, sizeof c->err);
    free(vp);
    free(ip);
    if (!rc) { c->n_encoded += cnt; c->n_batches++; }
    return rc;
}

/* Cache lookups, then length-sorted token-budget batches of the misses. */
static int flush_window(struct enc_ctx *c)
{
    int rc = SP_OK;
    unsigned want = ST_RUN_VEC | (c->tok ? ST_RUN_TOK : 0) | (c->attn_layer >= 0 ? ST_RUN_ATTN : 0);
    st_iter_pause(c->it);   /* no read open across the writes below, so they wait for other writers */
    struct st_run_item_put *cached = sp_xmalloc(sizeof *cached * (size_t)(c->n_units ? c->n_units : 1));
    int *pend = sp_xmalloc(sizeof(int) * (size_t)(c->n_units ? c->n_units : 1));
    int nc = 0, np = 0;
    for (int i = 0; rc == SP_OK && i < c->n_units; i++) {
        struct unit *u = &c->u[i];
        if (u->state == U_SKIP) { drop(c, u->ordinal); continue; }
        unsigned have;
        if ((rc = st_vector_cached(c->db, c->encoder_id, u->hash, c->attn_layer, &have, c->err, sizeof c->err))) break;
        if ((have & want) == want) { u->state = U_CACHED; cached[nc++] = item_of(u); }
        else pend[np++] = i;
    }
    if (rc == SP_OK && nc) {
        rc = st_run_write(c->db, c->run_id, c->encoder_id, NULL, 0, cached, nc, c->err, sizeof c->err);
        if (!rc) c->n_cached += nc;
    }
    qsort_r(pend, (size_t)np, sizeof *pend, by_length, c->u);
    for (int i = 0; rc == SP_OK && i < np;) {
        int j = i + 1;     /* sorted ascending: the last taken is the longest */
        while (j < np && (long)(j + 1 - i) * c->u[pend[j]].n <= c->batch_tokens) j++;
        rc = encode_batch(c, pend + i, j - i);
        i = j;
    }
    if (c->progress && !c->quiet)
        fprintf(stderr, "\rencode: %ld cached, %ld encoded, %ld skipped", c->n_cached, c->n_encoded,
                c->n_missing + c->n_long + c->n_oom);
    free(cached);
    free(pend);
    c->n_units = 0;
    c->window_tokens = 0;
    sp_arena_reset(&c->arena);
    return rc;
}

static int unit_done(struct enc_ctx *c, const struct unit *u)
{
    c->window_tokens += u->n;
    if (c->n_units >= WINDOW_UNITS || c->window_tokens >= WINDOW_TOKENS) return flush_window(c);
    return SP_OK;
}

/* ---- sources ---- */

static int encode_corpus(struct enc_ctx *c, int64_t corpus_id)
{
    unsigned want = 0;
    if (c->needs & (ENC_NEED_DEPTH | ENC_NEED_DIST | ENC_NEED_ANC | ENC_NEED_REL)) want |= ST_WANT_DEP;
    if (c->needs & ENC_NEED_PID) want |= ST_WANT_CONST;
    struct st_iter *it;
    int rc = st_iter_open(c->db, corpus_id, want, &it, c->err, sizeof c->err);
    if (rc) return rc;
    c->it = it;
    const struct st_row *r;
    int64_t ordinal = 0;
    int k;
    while (rc == SP_OK && (k = st_iter_next(it, &r)) > 0) {
        struct unit *u = unit_new(c);
        u->ordinal = ++ordinal;
        u->sentence_id = r->sentence_id;
        if (!(rc = unit_from_row(c, r, NULL, u))) rc = unit_done(c, u);
    }
    if (rc == SP_OK && k < 0) { snprintf(c->err, sizeof c->err, "%s", st_iter_error(it)); rc = SP_ESTORE; }
    st_iter_close(it);
    c->it = NULL;
    if (rc == SP_OK) rc = flush_window(c);
    return rc;
}

struct titem { int64_t ordinal, sentence_id; char *text; };
struct tlist { struct titem *v; int n, cap; };

static int collect_item(void *ctx, const struct st_task_item *it)
{
    struct tlist *l = ctx;
    if (l->n == l->cap) { l->cap = l->cap ? 2 * l->cap : 1024; l->v = sp_xrealloc(l->v, sizeof *l->v * (size_t)l->cap); }
    l->v[l->n] = (struct titem){ l->n + 1, it->sentence_id, sp_xstrdup(it->text) };
    l->n++;
    return 0;
}

static int by_sentence(const void *x, const void *y)
{
    const struct titem *a = x, *b = y;
    if (a->sentence_id != b->sentence_id) return a->sentence_id < b->sentence_id ? -1 : 1;
    return a->ordinal < b->ordinal ? -1 : a->ordinal > b->ordinal;
}

static int text_unit(struct enc_ctx *c, const struct titem *t)
{
    struct unit *u = unit_new(c);
    u->ordinal = u->task_ordinal = t->ordinal;
    u->sentence_id = t->sentence_id;
    u->label = sp_arena_printf(&c->arena, "task item %lld", (long long)t->ordinal);
    int rc = unit_from_text(c, t->text, u);
    return rc ? rc : unit_done(c, u);
}

/* Task items: from their text when the encoder needs no structure; else the structures of
 * their corpus sentences, read in one pass over the corpus (merge join on sentence_id). */
static int encode_task(struct enc_ctx *c, const char *task, int64_t corpus_id)
{
    struct tlist l = { 0 };
    int rc = st_task_items(c->db, task, NULL, collect_item, &l, c->err, sizeof c->err);
    if (rc == SP_OK && (!c->needs || !corpus_id)) {
        for (int i = 0; rc == SP_OK && i < l.n; i++) rc = text_unit(c, &l.v[i]);
    } else if (rc == SP_OK) {
        qsort(l.v, (size_t)l.n, sizeof *l.v, by_sentence);
        int i = 0;
        for (; i < l.n && !l.v[i].sentence_id; i++) rc = rc ? rc : text_unit(c, &l.v[i]);
        unsigned want = ST_WANT_DEP | ((c->needs & ENC_NEED_PID) ? ST_WANT_CONST : 0);
        struct st_iter *it = NULL;
        if (rc == SP_OK) rc = st_iter_open(c->db, corpus_id, want, &it, c->err, sizeof c->err);
        c->it = it;
        const struct st_row *r;
        int k = 1;
        while (rc == SP_OK && i < l.n && (k = st_iter_next(it, &r)) > 0) {
            for (; rc == SP_OK && i < l.n && l.v[i].sentence_id < r->sentence_id; i++) rc = text_unit(c, &l.v[i]);
            for (; rc == SP_OK && i < l.n && l.v[i].sentence_id == r->sentence_id; i++) {
                struct unit *u = unit_new(c);
                u->ordinal = u->task_ordinal = l.v[i].ordinal;
                u->sentence_id = r->sentence_id;
                if (!(rc = unit_from_row(c, r, l.v[i].text, u))) rc = unit_done(c, u);
            }
        }
        if (rc == SP_OK && k < 0) { snprintf(c->err, sizeof c->err, "%s", st_iter_error(it)); rc = SP_ESTORE; }
        for (; rc == SP_OK && i < l.n; i++) rc = text_unit(c, &l.v[i]);   /* not in the corpus */
        st_iter_close(it);
        c->it = NULL;
    }
    if (rc == SP_OK) rc = flush_window(c);
    for (int i = 0; i < l.n; i++) free(l.v[i].text);
    free(l.v);
    return rc;
}

/* ---- fingerprint ---- */

/* The words a run can look up in an embeddings file: every form of the corpus (or every token of
 * the task's item texts) and its ASCII lower-case form (enc_embed_id falls back to it). */
struct vocab { char **w; size_t n, cap; struct sp_arena a; };

static void vocab_add(struct vocab *v, const char *s, size_t len)
{
    for (int low = 0; low < 2; low++) {
        if (v->n == v->cap) { v->cap = v->cap ? 2 * v->cap : 4096; v->w = sp_xrealloc(v->w, v->cap * sizeof *v->w); }
        char *c = sp_arena_strndup(&v->a, s, len);
        if (low) for (char *p = c; *p; p++) *p = (char)tolower((unsigned char)*p);
        v->w[v->n++] = c;
    }
}

static int vocab_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int vocab_has(void *ctx, const char *word)
{
    const struct vocab *v = ctx;
    return v->n && bsearch(&word, v->w, v->n, sizeof *v->w, vocab_cmp) != NULL;
}

static void vocab_free(struct vocab *v) { free(v->w); sp_arena_free(&v->a); }

static int vocab_load(struct vocab *v, struct st_db *db, int64_t corpus_id, int64_t task_id, char *err, size_t errlen)
{
    sp_arena_init(&v->a);
    const char *sql = corpus_id
        ? "SELECT DISTINCT t.form FROM token t JOIN sentence s USING (sentence_id) WHERE s.corpus_id = ?1"
        : "SELECT text FROM task_item WHERE task_id = ?1";
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st_handle(db), sql, -1, &q, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "vocabulary: %s", sqlite3_errmsg(st_handle(db)));
        return SP_ESTORE;
    }
    sqlite3_bind_int64(q, 1, corpus_id ? corpus_id : task_id);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(q, 0);
        if (!t) continue;
        if (corpus_id) { vocab_add(v, t, strlen(t)); continue; }
        for (const char *p = t; *p;) {                 /* task texts: tokens separated by single spaces */
            const char *e = strchr(p, ' ');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (len) vocab_add(v, p, len);
            p += len + (e != NULL);
        }
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) { snprintf(err, errlen, "vocabulary: %s", sqlite3_errmsg(st_handle(db))); return SP_ESTORE; }
    if (v->n > 1) qsort(v->w, v->n, sizeof *v->w, vocab_cmp);
    return SP_OK;
}

static int file_sha256(const char *path, char out[65])
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    struct sp_sha256 h;
    sp_sha256_init(&h);
    char tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) sp_sha256_update(&h, tmp, k);
    int bad = ferror(f);
    fclose(f);
    if (bad) return -1;
    sp_sha256_hex(&h, out);
    return 0;
}

int cmd_encode(int argc, char **argv)
{
    const char *db_path = NULL, *corpus = NULL, *task = NULL, *cfg_path = NULL, *weights = NULL, *save_weights = NULL,
               *emb_path = NULL, *run = NULL, *device_s = "auto", *on_missing = "skip",
               *perturbed = "keep-parse";
    size_t max_ws = 0;
    long attn_layer = -1, seed = -1, threads = 0, batch_tokens = 8192, max_tokens = 512;
    int tok = 0, json = 0, quiet = 0, verbose = 0;
    enum { O_WEIGHTS = 256, O_SAVEW, O_EMB, O_TOK, O_ATTN, O_SEED, O_THREADS, O_DEVICE, O_BATCH, O_MAXTOK, O_MISSING, O_PERTURBED, O_MAXWS, O_JSON, O_QUIET, O_VERBOSE };
    static const struct option opts[] = {
        { "db", required_argument, 0, 'd' }, { "corpus", required_argument, 0, 'c' }, { "task", required_argument, 0, 't' },
        { "encoder", required_argument, 0, 'e' }, { "run", required_argument, 0, 'r' },
        { "weights", required_argument, 0, O_WEIGHTS }, { "save-weights", required_argument, 0, O_SAVEW },
        { "embeddings", required_argument, 0, O_EMB }, { "token-vectors", no_argument, 0, O_TOK },
        { "attention", required_argument, 0, O_ATTN }, { "seed", required_argument, 0, O_SEED },
        { "threads", required_argument, 0, O_THREADS }, { "device", required_argument, 0, O_DEVICE },
        { "batch-tokens", required_argument, 0, O_BATCH }, { "max-tokens", required_argument, 0, O_MAXTOK },
        { "on-missing", required_argument, 0, O_MISSING }, { "perturbed", required_argument, 0, O_PERTURBED },
        { "max-workspace", required_argument, 0, O_MAXWS }, { "json", no_argument, 0, O_JSON },
        { "quiet", no_argument, 0, O_QUIET }, { "verbose", no_argument, 0, O_VERBOSE }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': db_path = optarg; break;
        case 'c': corpus = optarg; break;
        case 't': task = optarg; break;
        case 'e': cfg_path = optarg; break;
        case 'r': run = optarg; break;
        case O_WEIGHTS: weights = optarg; break;
        case O_SAVEW: save_weights = optarg; break;
        case O_EMB: emb_path = optarg; break;
        case O_TOK: tok = 1; break;
        case O_ATTN:
            if (sp_parse_int(optarg, 0, ENC_MAX_LAYERS, &attn_layer)) return cli_fail(SP_EXIT_USAGE, CMD, "--attention: expected a layer number, got '%s'", optarg);
            break;
        case O_SEED:
            if (sp_parse_int(optarg, 0, 0x7fffffffffffffffL, &seed)) return cli_fail(SP_EXIT_USAGE, CMD, "--seed: expected a non-negative integer, got '%s'", optarg);
            break;
        case O_THREADS:
            if (sp_parse_int(optarg, 1, 1024, &threads)) return cli_fail(SP_EXIT_USAGE, CMD, "--threads: expected 1..1024, got '%s'", optarg);
            break;
        case O_DEVICE: device_s = optarg; break;
        case O_BATCH:
            if (sp_parse_int(optarg, 1, 1L << 30, &batch_tokens)) return cli_fail(SP_EXIT_USAGE, CMD, "--batch-tokens: expected a positive integer, got '%s'", optarg);
            break;
        case O_MAXTOK:
            if (sp_parse_int(optarg, 1, ST_BLOB_MAX_WORDS, &max_tokens)) return cli_fail(SP_EXIT_USAGE, CMD, "--max-tokens: expected 1..65535, got '%s'", optarg);
            break;
        case O_MISSING: on_missing = optarg; break;
        case O_PERTURBED: perturbed = optarg; break;
        case O_MAXWS: {
            uint64_t v;
            if (sp_parse_size(optarg, 64u << 10, &v) || v > SIZE_MAX)
                return cli_fail(SP_EXIT_USAGE, CMD, "--max-workspace: expected a whole number of bytes of at least 64K, "
                               "optionally with a suffix K, M, G or T (e.g. 512M, 2G), got '%s'", optarg);
            max_ws = (size_t)v;
            break;
        }
        case O_JSON: json = 1; break;
        case O_QUIET: quiet = 1; break;
        case O_VERBOSE: verbose = 1; break;
        case 'h': usage(stdout); return SP_EXIT_OK;
        default: usage(stderr); return SP_EXIT_USAGE;
        }
    }
    if (optind < argc) return cli_fail(SP_EXIT_USAGE, CMD, "unexpected argument '%s'", argv[optind]);
    if (!db_path) return cli_fail(SP_EXIT_USAGE, CMD, "--db is required");
    if (!corpus == !task) return cli_fail(SP_EXIT_USAGE, CMD, "exactly one of --corpus or --task is required");
    if (!cfg_path) return cli_fail(SP_EXIT_USAGE, CMD, "--encoder CONFIG.json is required");
    if (!run || !*run) return cli_fail(SP_EXIT_USAGE, CMD, "--run NAME is required");
    enum enc_device device;
    if (!strcmp(device_s, "auto")) device = ENC_DEVICE_AUTO;
    else if (!strcmp(device_s, "cpu")) device = ENC_DEVICE_CPU;
    else if (!strcmp(device_s, "cuda")) device = ENC_DEVICE_CUDA;
    else return cli_fail(SP_EXIT_USAGE, CMD, "--device: expected auto, cpu or cuda, got '%s'", device_s);
    if (strcmp(perturbed, "keep-parse") && strcmp(perturbed, "no-parse"))
        return cli_fail(SP_EXIT_USAGE, CMD, "--perturbed: expected keep-parse or no-parse, got '%s'", perturbed);
    if (strcmp(on_missing, "skip") && strcmp(on_missing, "fail"))
        return cli_fail(SP_EXIT_USAGE, CMD, "--on-missing: expected skip or fail, got '%s'", on_missing);

    /* config: parsed for the encoder, canonicalised for the fingerprint */
    char err[SP_ERRLEN * 4];
    size_t cfg_len;
    char *cfg_text = sp_read_file(cfg_path, &cfg_len);
    if (!cfg_text) return cli_fail(SP_EXIT_INPUT, CMD, "%s: cannot read", cfg_path);
    const char *base = strrchr(cfg_path, '/') ? strrchr(cfg_path, '/') + 1 : cfg_path;
    struct enc_config cfg;
    if (enc_config_parse(cfg_text, base, &cfg, err, sizeof err)) {
        free(cfg_text);
        return cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
    }
    if (seed >= 0) cfg.seed = (uint64_t)seed;
    json_error_t jerr;
    json_t *jcfg = json_loads(cfg_text, 0, &jerr);
    free(cfg_text);
    if (!json_is_object(jcfg)) { json_decref(jcfg); return cli_fail(SP_EXIT_INPUT, CMD, "%s: not a JSON object", cfg_path); }
    json_object_del(jcfg, "comment");
    json_object_set_new(jcfg, "seed", json_integer((json_int_t)cfg.seed));
    char *canon = json_dumps(jcfg, JSON_SORT_KEYS | JSON_COMPACT);

    int status = SP_EXIT_INPUT;
    char w_sha[65] = "", e_sha[65] = "", fp[65];
    struct enc_ctx c = { 0 };
    struct st_run_info info = { 0 };
    json_t *manifest = NULL;
    int64_t corpus_id = 0, task_id = 0, task_corpus = 0;
    if (weights && file_sha256(weights, w_sha)) { cli_fail(SP_EXIT_INPUT, CMD, "%s: cannot read", weights); goto out; }
    if (emb_path && file_sha256(emb_path, e_sha)) { cli_fail(SP_EXIT_INPUT, CMD, "%s: cannot read", emb_path); goto out; }
    {
        struct sp_sha256 h;
        struct sp_buf b = { 0 };
        sp_buf_printf(&b, "synprobe-encoder-1\nconfig %s\n", canon);
        if (weights) sp_buf_printf(&b, "weights sha256 %s\n", w_sha);
        else sp_buf_printf(&b, "weights glorot seed %llu\n", (unsigned long long)cfg.seed);
        if (emb_path) sp_buf_printf(&b, "embeddings sha256 %s\n", e_sha);
        else sp_buf_printf(&b, "embeddings random seed %llu\n", (unsigned long long)cfg.seed);
        sp_sha256_init(&h);
        sp_sha256_update(&h, b.p, b.len);
        sp_sha256_hex(&h, fp);
        sp_buf_free(&b);
    }

    /* the store and the source first: a typo in --corpus should not wait for a large model */
    if (st_open(db_path, 0, &c.db, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
    if (corpus && st_corpus_id(c.db, corpus, 0, &corpus_id, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
    if (task && st_task_source(c.db, task, &task_id, &task_corpus, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
    if (threads) enc_set_threads((int)threads);
    if (enc_open(&cfg, device, weights, quiet ? 0 : verbose ? 2 : 1, &c.e, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
    enc_set_workspace_limit(c.e, max_ws);
    if (attn_layer >= enc_attn_layers(c.e)) {
        cli_fail(SP_EXIT_USAGE, CMD, "--attention %ld: this %s config has attention layers 0..%d", attn_layer,
                enc_kind_name(cfg.kind), enc_attn_layers(c.e) - 1);
        status = SP_EXIT_USAGE;
        goto out;
    }
    if (save_weights && enc_save_weights(c.e, save_weights, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }

    {   /* only the embedding rows this corpus/task can look up are loaded */
        struct vocab v = { 0 };
        if (emb_path && vocab_load(&v, c.db, corpus_id, task_id, err, sizeof err)) { vocab_free(&v); cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
        int erc = enc_embed_open_filtered(emb_path, cfg.d_input, cfg.seed, emb_path ? vocab_has : NULL, &v, &c.emb, err, sizeof err);
        vocab_free(&v);
        if (erc) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
    }
    if (enc_embed_dim(c.emb) != cfg.d_input) {
        cli_fail(SP_EXIT_INPUT, CMD, "%s: vectors of width %d, the config's d_input is %d", emb_path, enc_embed_dim(c.emb), cfg.d_input);
        goto out;
    }
    if (emb_path) {
        c.table = enc_embed_table(c.emb, &c.table_rows);
        if (!quiet)
            fprintf(stderr, "synprobe " CMD ": %s: %d of %ld rows kept (the words of this %s)\n", emb_path,
                    enc_embed_vocab_size(c.emb), enc_embed_file_rows(c.emb), corpus ? "corpus" : "task");
    }
    struct st_encoder se = { fp, enc_kind_name(cfg.kind), canon, enc_dim(c.e) };
    if (st_encoder_upsert(c.db, &se, &c.encoder_id, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
    struct st_run_spec spec = { run, c.encoder_id, corpus_id, task_id, tok, (int)attn_layer };
    int created;
    if (st_run_begin(c.db, &spec, &c.run_id, &created, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }

    c.cfg = enc_get_config(c.e);
    c.needs = enc_needs(c.e);
    c.tok = tok;
    c.attn_layer = (int)attn_layer;
    c.batch_tokens = batch_tokens;
    c.max_tokens = max_tokens;
    c.on_missing_fail = !strcmp(on_missing, "fail");
    c.perturbed_no_parse = !strcmp(perturbed, "no-parse");
    c.quiet = quiet;
    c.progress = isatty(2);
    sp_arena_init(&c.arena);
    sp_arena_init(&c.batch_arena);
    double t0 = sp_now();
    int rc = corpus ? encode_corpus(&c, corpus_id) : encode_task(&c, task, task_corpus);
    if (c.progress && !quiet) fputc('\n', stderr);
    if (rc) { cli_fail(SP_EXIT_INPUT, CMD, "%s", c.err); goto out; }

    /* manifest: everything needed to say how these vectors were made */
    char when[32];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    long skipped = c.n_missing + c.n_long + c.n_oom;
    manifest = json_pack("{s:s, s:s, s:O, s:s, s:s, s:I, s:s, s:s, s:i, s:i, s:i, s:b, s:s, s:f, s:s}",
                         "synprobe", SP_VERSION, "build", stg_build_info(), "config", jcfg, "config_path", cfg_path,
                         "fingerprint", fp, "seed", (json_int_t)cfg.seed, "device", enc_backend_name(c.e),
                         "device_requested", device_s, "threads", (int)threads, "batch_tokens", (int)batch_tokens,
                         "max_tokens", (int)max_tokens, "token_vectors", tok, "on_missing", on_missing,
                         "seconds", sp_now() - t0, "time", when);
    json_object_set_new(manifest, "weights", weights ? json_pack("{s:s, s:s}", "path", weights, "sha256", w_sha)
                                                     : json_pack("{s:s}", "init", "glorot"));
    json_object_set_new(manifest, "embeddings", emb_path ? json_pack("{s:s, s:s, s:I, s:i}", "path", emb_path, "sha256", e_sha,
                                                                   "file_rows", (json_int_t)enc_embed_file_rows(c.emb),
                                                                   "rows_kept", enc_embed_vocab_size(c.emb))
                                                         : json_pack("{s:s}", "init", "random per word"));
    json_object_set_new(manifest, "max_workspace_bytes", max_ws ? json_integer((json_int_t)max_ws) : json_null());
    if (task)
        json_object_set_new(manifest, "perturbed", json_pack("{s:s, s:I}", "parse", perturbed, "items", (json_int_t)c.n_perturbed));
    json_object_set_new(manifest, "attention_layer", attn_layer >= 0 ? json_integer(attn_layer) : json_null());
    json_object_set_new(manifest, "source", corpus ? json_pack("{s:s}", "corpus", corpus) : json_pack("{s:s}", "task", task));
    json_object_set_new(manifest, "counts", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "cached", (json_int_t)c.n_cached,
                        "encoded", (json_int_t)c.n_encoded, "skipped_missing_structure", (json_int_t)c.n_missing,
                        "skipped_too_long", (json_int_t)c.n_long, "skipped_out_of_memory", (json_int_t)c.n_oom,
                        "batches", (json_int_t)c.n_batches));
    char *mtext = json_dumps(manifest, JSON_SORT_KEYS | JSON_COMPACT);
    rc = st_run_finish(c.db, c.run_id, mtext, c.dropped, c.n_dropped, err, sizeof err);
    free(mtext);
    if (rc) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
    if (st_run_info(c.db, run, &info, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }

    if (!quiet)
        fprintf(stderr, "synprobe encode: run %s (%s on %s, %d-dim): %ld cached, %ld encoded, %ld skipped"
                " (%ld lacking structure, %ld over --max-tokens, %ld out of memory); %lld items\n",
                run, enc_kind_name(cfg.kind), enc_backend_name(c.e), enc_dim(c.e), c.n_cached, c.n_encoded, skipped,
                c.n_missing, c.n_long, c.n_oom, (long long)info.count);
    if (json) {
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "run", run, "fingerprint", fp,
                              "kind", enc_kind_name(cfg.kind), "device", enc_backend_name(c.e), "dim", enc_dim(c.e),
                              "items", (json_int_t)info.count, "cached", (json_int_t)c.n_cached,
                              "encoded", (json_int_t)c.n_encoded, "skipped", (json_int_t)skipped,
                              "skipped_missing_structure", (json_int_t)c.n_missing, "skipped_too_long", (json_int_t)c.n_long,
                              "skipped_out_of_memory", (json_int_t)c.n_oom);
        char *s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
        puts(s);
        free(s);
        json_decref(o);
    }
    status = SP_EXIT_OK;
out:
    st_run_info_free(&info);
    json_decref(manifest);
    json_decref(jcfg);
    free(canon);
    free(c.u);
    free(c.dropped);
    sp_arena_free(&c.arena);
    sp_arena_free(&c.batch_arena);
    st_close(c.db);
    enc_embed_close(c.emb);
    enc_close(c.e);
    return status;
}
