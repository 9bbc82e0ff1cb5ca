/* stages/encode_batch.c — the encode stage's engine for one input: units (a corpus sentence or
 * a task item with the structures its encoder needs), the input hash, windows, cache lookups,
 * length-sorted batches with halving on out-of-memory, and the writes.
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
 * Input hash (vector.text_hash) = SHA-256 of everything the encoder reads for the sentence:
 * the forms joined by single spaces, then, for each structure the kind needs (enc_needs), a tag
 * and its int32 values (depth; distance; ancestors; relative positions; phrase ids at the
 * config's levels). Equal text with different parses therefore never shares a row, and a task
 * item with the same words and structures as a corpus sentence shares the corpus's.
 *
 * Batching: inputs are read in windows (corpus/task order), looked up in the cache, and the
 * misses sorted by length and cut into batches of at most --batch-tokens padded tokens
 * (sentences x longest); the encoder runs each batch as one forward step (enc_set_group_tokens,
 * set in stages/encode.c), so --batch-tokens is the products' row budget. Each batch's vectors and run items are one transaction. When
 * enc_forward reports SP_ENOMEM the batch is halved and retried, down to one sentence, which is
 * then skipped and reported. Sentences over --max-tokens are skipped and reported. The stop
 * flag is checked between batches: what is stored then is whole batches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stages/encode_int.h"
#include "store/blob.h"
#include "store/st_tasks.h"

#define STORED_MIN_PHRASE_LEN 4     /* the m_min ingest caches phrase ids with (store/st_derive.c) */
/* The read window: inputs read and looked up in the cache before the misses are sorted by
 * length and cut into --batch-tokens batches. At least WINDOW_UNITS sentences / WINDOW_TOKENS
 * tokens, and at least WINDOW_BATCHES batches' worth, so a large --batch-tokens still gets full
 * batches (encoder/README.md "Batch budgets"). It bounds host memory for the inputs only. */
#define WINDOW_UNITS 1024
#define WINDOW_TOKENS 65536
#define WINDOW_BATCHES 4
#define MAX_SKIP_LINES 20           /* a warning per skipped sentence up to this many, then a count */

static void drop(struct enc_pass *c, int64_t ordinal)
{
    if (c->n_dropped == c->cap_dropped) {
        c->cap_dropped = c->cap_dropped ? 2 * c->cap_dropped : 64;
        c->dropped = sp_xrealloc(c->dropped, sizeof *c->dropped * (size_t)c->cap_dropped);
    }
    c->dropped[c->n_dropped++] = ordinal;
}

static struct unit *unit_new(struct enc_pass *c)
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
static void unit_hash(const struct enc_pass *c, struct unit *u)
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
    if (c->caps.needs & (ENC_NEED_DEPTH | ENC_NEED_DIST | ENC_NEED_ANC | ENC_NEED_REL)) hash_i32(&h, "depth", u->depth, n);
    if (c->caps.needs & ENC_NEED_DIST) hash_i32(&h, "dist", u->dist, nn);
    if (c->caps.needs & ENC_NEED_ANC) {
        sp_sha256_update(&h, "anc", 4);
        sp_sha256_update(&h, u->anc, nn);
    }
    if (c->caps.needs & ENC_NEED_REL) hash_i32(&h, "rel", u->rel, nn);
    if (c->caps.needs & ENC_NEED_PID) hash_i32(&h, "pid", u->pid, (size_t)c->cfg->levels * n);
    sp_sha256_hex(&h, u->hash);
}

/* A sentence the encoder cannot use: counted and skipped, or (--on-missing fail) an error. */
static int missing(struct enc_pass *c, struct unit *u, const char *why)
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

static int too_long(struct enc_pass *c, struct unit *u)
{
    if (u->n > 0 && u->n <= c->max_tokens && !enc_fits(c->base ? c->base : c->e, (const char *const *)u->forms, u->n)) {
        if (c->n_long < MAX_SKIP_LINES)       /* D6: more pieces than the model's positions */
            sp_log(c->ctx->log, SP_LOG_WARN, "%s: %d words, more word pieces than the model's positions; skipped", u->label, u->n);
        u->state = U_SKIP;
        c->n_long++;
        return 1;
    }
    if (u->n > c->max_tokens || u->n <= 0) {
        if (c->n_long < MAX_SKIP_LINES)
            sp_log(c->ctx->log, SP_LOG_WARN, "%s: %d tokens, %s; skipped", u->label, u->n,
                   u->n <= 0 ? "empty" : "over --max-tokens");
        else if (c->n_long == MAX_SKIP_LINES)
            sp_log(c->ctx->log, SP_LOG_WARN, "more sentences over --max-tokens: counted in the summary, not listed");
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
static int unit_from_row(struct enc_pass *c, const struct st_row *r, const char *text, struct unit *u)
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
            if (!c->caps.needs) { unit_hash(c, u); return SP_OK; }
            return missing(c, u, m != n ? "structures matching its words (the item's text and its sentence differ in length)"
                                        : "a parse of its own words (--perturbed no-parse)");
        }
    } else {
        u->forms = sp_arena_alloc(a, sizeof(char *) * (size_t)(n ? n : 1));
        for (int i = 0; i < n; i++) u->forms[i] = sp_arena_strdup(a, r->s.col[SP_FORM][i]);
    }
    if (too_long(c, u)) return SP_OK;
    size_t nn = (size_t)n * n;
    unsigned dep = c->caps.needs & (ENC_NEED_DEPTH | ENC_NEED_DIST | ENC_NEED_ANC | ENC_NEED_REL);
    if (dep && !r->has_dep) return missing(c, u, "a dependency tree");
    if ((c->caps.needs & ENC_NEED_PID) && !r->has_const) return missing(c, u, "a constituency tree");
    if (dep) {
        u->depth = sp_arena_alloc(a, 4 * (size_t)n);
        for (int i = 0; i < n; i++) u->depth[i] = st_blob_depth_at(r->depth.p, i);
        int *tmp = (c->caps.needs & (ENC_NEED_DIST | ENC_NEED_REL)) ? sp_xmalloc(sizeof(int) * nn) : NULL;
        if (c->caps.needs & ENC_NEED_DIST) {
            st_blob_get_distance(r->distance.p, n, tmp);
            u->dist = sp_arena_alloc(a, 4 * nn);
            for (size_t k = 0; k < nn; k++) u->dist[k] = tmp[k];
        }
        if (c->caps.needs & ENC_NEED_REL) {
            st_blob_get_relpos(r->relpos.p, n, tmp);
            u->rel = sp_arena_alloc(a, 4 * nn);
            for (size_t k = 0; k < nn; k++) u->rel[k] = tmp[k];
        }
        free(tmp);
        if (c->caps.needs & (ENC_NEED_ANC | ENC_NEED_REL)) {
            u->anc = sp_arena_alloc(a, nn);
            st_blob_get_ancestors(r->ancestors.p, n, u->anc);
        }
    }
    if (c->caps.needs & ENC_NEED_PID) {
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

static int unit_from_text(struct enc_pass *c, const char *text, struct unit *u)
{
    u->forms = split_text(&c->arena, text, &u->n);
    if (too_long(c, u)) return SP_OK;
    if (c->caps.needs) return missing(c, u, c->caps.needs & ENC_NEED_PID ? "a constituency tree (the item has no stored sentence)"
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

/* "corpus demo, sentence s7 (input 7), run R, layer 3" of output o: what a message names */
static void where(const struct enc_pass *c, const struct unit *u, int o, char *out, size_t len)
{
    int layer = c->layers ? c->layers[o] : c->caps.layer_outputs ? c->caps.own_layer : c->cfg->layers;
    snprintf(out, len, "%s, %s (input %lld), run '%s', layer %d%s", c->source ? c->source : "?", u->label,
             (long long)u->ordinal, c->run_names ? c->run_names[o] : "?", layer,
             c->layers || c->caps.layer_outputs ? "" : " (the encoder's output)");
}

/* Finite weights and embeddings can still overflow (huge weights, exp in softmax): a NaN or
 * infinite output is never stored. Then a finite value the store's type cannot hold (f16 beyond
 * 65504: it would be stored as inf) is refused, or with --store-overflow saturate clamped and
 * counted. SP_EPARSE with c->err naming the input, the run and layer, and the output. */
static int outputs_finite(struct enc_pass *c, int o, const int *idx, int cnt, float *sent, int dim,
                          float *const *tok, int td, float *const *attn)
{
    char at[SP_ERRLEN];
    for (int b = 0; b < cnt; b++) {
        const struct unit *u = &c->u[idx[b]];
        size_t n = (size_t)u->n;
        const char *what = sp_first_nonfinite(sent + (size_t)b * dim, (size_t)dim) >= 0 ? "sentence vector"
                         : tok && sp_first_nonfinite(tok[b], n * (size_t)td) >= 0 ? "token vectors"
                         : attn && sp_first_nonfinite(attn[b], n * n) >= 0 ? "attention map" : NULL;
        if (what) {
            where(c, u, o, at, sizeof at);
            snprintf(c->err, sizeof c->err, "%s: the encoder's %s holds NaN or infinite values (weights or "
                     "embeddings too large?); encoding stopped", at, what);
            return SP_EPARSE;
        }
        struct { const char *name; float *v; size_t len; } arr[3] = {
            { "sentence vector", sent + (size_t)b * dim, (size_t)dim },
            { "token vectors", tok ? tok[b] : NULL, n * (size_t)td },
            { "attention map", attn ? attn[b] : NULL, n * n },
        };
        for (int k = 0; k < 3; k++) {
            if (!arr[k].v) continue;
            size_t first = 0, over = sp_stype_overflow(c->dtype, arr[k].v, arr[k].len, c->saturate, &first);
            if (!over) continue;
            if (c->saturate) { c->n_saturated += (long)over; continue; }
            where(c, u, o, at, sizeof at);
            size_t w = k == 0 ? (size_t)dim : k == 1 ? (size_t)td : n;   /* [row][column] of the first */
            char el[64];
            if (k == 0) snprintf(el, sizeof el, "component %zu", first);
            else snprintf(el, sizeof el, "%s %zu, %s %zu", k == 1 ? "token" : "row", first / w, k == 1 ? "component" : "column",
                          first % w);
            snprintf(c->err, sizeof c->err, "%s: the encoder's %s: %zu value%s beyond %s's range (+-%g), the first %g at %s "
                     "(0-based; it would be stored as infinite); encoding stopped (--store-dtype f32 keeps them; "
                     "--store-overflow saturate clamps them)", at, arr[k].name, over, over > 1 ? "s" : "",
                     sp_stype_name(c->dtype), (double)sp_stype_max(c->dtype), (double)arr[k].v[first], el);
            return SP_EPARSE;
        }
    }
    return SP_OK;
}

/* output o's attention layer (-1: none) */
static int attn_at(const struct enc_pass *c, int o) { return c->attn_of ? c->attn_of[o] : c->attn_layer; }

static int any_attn(const struct enc_pass *c)
{
    for (int o = 0; o < c->n_out; o++) if (attn_at(c, o) >= 0) return 1;
    return 0;
}

/* The batch's writes, every output (layer run) in one transaction. */
static int write_batch(struct enc_pass *c, const int *idx, int cnt, float *const *sent, float **const *tok,
                       float **const *attn, float **const *hd, int dim, int td)
{
    int no = c->n_out;
    struct st_vector_put *vp = sp_xmalloc(sizeof *vp * (size_t)cnt * (size_t)no);
    struct st_run_item_put *ip = sp_xmalloc(sizeof *ip * (size_t)cnt);
    struct st_run_write_part *parts = sp_xmalloc(sizeof *parts * (size_t)no);
    for (int b = 0; b < cnt; b++) ip[b] = item_of(&c->u[idx[b]]);
    for (int o = 0; o < no; o++) {
        for (int b = 0; b < cnt; b++) {
            const struct unit *u = &c->u[idx[b]];
            vp[(size_t)o * cnt + b] = (struct st_vector_put){ u->hash, dim, sent[o] + (size_t)b * dim, u->n, td,
                                                             tok ? tok[o][b] : NULL, attn_at(c, o),
                                                             attn && attn[o] ? attn[o][b] : NULL, hd && hd[o] ? c->cfg->heads : 0,
                                                             hd && hd[o] ? hd[o][b] : NULL };
        }
        parts[o] = (struct st_run_write_part){ c->run_ids[o], c->encoder_ids[o], vp + (size_t)o * cnt, cnt, ip, cnt };
    }
    int rc = st_run_write_many(c->db, parts, no, c->err, sizeof c->err);
    free(parts);
    free(vp);
    free(ip);
    return rc;
}

/* One batch's inputs and output arrays, all in c->batch_arena */
struct batch_io {
    struct enc_sentence *s;          /* [cnt] the inputs */
    float **sent;                    /* [no][cnt * dim] sentence vectors */
    float ***tok, ***attn, ***hd;    /* [no][cnt] -> token vectors, attention maps, per-head maps (or NULL) */
};

/* The output arrays of every output o, and per sentence its token / attention / per-head rows */
static void alloc_outputs(struct enc_pass *c, const int *idx, int cnt, struct batch_io *B)
{
    struct sp_arena *a = &c->batch_arena;
    int dim = enc_dim(c->e), td = enc_tok_dim(c->e), no = c->n_out;
    const size_t H = (size_t)c->cfg->heads;
    B->tok = c->tok ? sp_arena_alloc(a, sizeof(float **) * (size_t)no) : NULL;
    B->attn = any_attn(c) ? sp_arena_alloc(a, sizeof(float **) * (size_t)no) : NULL;
    B->sent = sp_arena_alloc(a, sizeof(float *) * (size_t)no);
    B->hd = c->heads && B->attn ? sp_arena_alloc(a, sizeof(float **) * (size_t)no) : NULL;   /* per-head maps */
    for (int o = 0; o < no; o++) {
        B->sent[o] = sp_arena_alloc(a, sizeof(float) * (size_t)cnt * (size_t)dim);
        if (B->tok) B->tok[o] = sp_arena_alloc(a, sizeof(float *) * (size_t)cnt);
        if (B->attn) B->attn[o] = attn_at(c, o) >= 0 ? sp_arena_alloc(a, sizeof(float *) * (size_t)cnt) : NULL;
        if (B->hd) B->hd[o] = B->attn[o] ? sp_arena_alloc(a, sizeof(float *) * (size_t)cnt) : NULL;
    }
    for (int b = 0; b < cnt; b++) {
        size_t n = (size_t)c->u[idx[b]].n;
        for (int o = 0; o < no; o++) {
            if (B->tok) B->tok[o][b] = sp_arena_alloc(a, sizeof(float) * n * (size_t)td);
            if (B->attn && B->attn[o]) B->attn[o][b] = sp_arena_alloc(a, sizeof(float) * n * n);
            if (B->hd && B->hd[o]) B->hd[o][b] = sp_arena_alloc(a, sizeof(float) * H * n * n);
        }
    }
}

/* Unit u as the encoder's input: its words (the model or the base tokenizes them), embedding
 * ids (a device table) or embedding rows */
static void unit_input(struct enc_pass *c, const struct unit *u, struct enc_sentence *s)
{
    struct sp_arena *a = &c->batch_arena;
    int n = u->n, din = c->cfg->d_input;
    *s = (struct enc_sentence){ .n = n, .depth = u->depth, .dist = u->dist, .anc = u->anc, .rel = u->rel,
                                .pid = u->pid, .n_levels = u->pid ? c->cfg->levels : 0 };
    if (c->caps.input == ENC_INPUT_WORDS) {
        s->words = (const char *const *)u->forms;    /* the model tokenizes them */
    } else if (c->base) {
        s->words = (const char *const *)u->forms;    /* the base's word vectors, below */
    } else if (c->table) {
        int32_t *ids = sp_arena_alloc(a, 4 * (size_t)n);
        for (int i = 0; i < n; i++) ids[i] = enc_embed_id(c->emb, u->forms[i]);
        s->ids = ids;
    } else {
        float *emb = sp_arena_alloc(a, sizeof(float) * (size_t)n * (size_t)din);
        for (int i = 0; i < n; i++) enc_embed_vector(c->emb, u->forms[i], emb + (size_t)i * din);
        s->emb = emb;
    }
}

/* The base encoder's word vectors become the input rows of s[0..cnt) */
static int base_inputs(struct enc_pass *c, struct enc_sentence *s, int cnt, char *ferr, size_t ferrlen)
{
    struct sp_arena *a = &c->batch_arena;
    int bd = enc_tok_dim(c->base);
    float **btok = sp_arena_alloc(a, sizeof(float *) * (size_t)cnt);
    float *bsent = sp_arena_alloc(a, sizeof(float) * (size_t)cnt * (size_t)enc_dim(c->base));
    for (int b = 0; b < cnt; b++) btok[b] = sp_arena_alloc(a, sizeof(float) * (size_t)s[b].n * (size_t)bd);
    struct enc_batch bin = { cnt, s, NULL, 0, 0 };
    struct enc_output bout = { bsent, btok, NULL, -1 };
    int rc = enc_forward(c->base, &bin, &bout, ferr, ferrlen);
    for (int b = 0; b < cnt; b++) s[b].emb = btok[b];
    return rc;
}

/* One forward pass of the batch into every output (the layers asked for, or the config's layer
 * with per-head maps, or the plain pass) */
static int forward_batch(struct enc_pass *c, int cnt, const struct batch_io *B, char *ferr, size_t ferrlen)
{
    int no = c->n_out;
    struct enc_batch in = { cnt, B->s, c->table, c->table_rows, 1 };   /* the stage's table: fixed */
    struct enc_output *out = sp_arena_alloc(&c->batch_arena, sizeof *out * (size_t)no);
    for (int o = 0; o < no; o++)
        out[o] = (struct enc_output){ B->sent[o], B->tok ? B->tok[o] : NULL, B->attn ? B->attn[o] : NULL, attn_at(c, o) };
    int own = c->caps.own_layer;             /* layer_outputs: the config's layer */
    return c->layers ? enc_forward_layers(c->e, &in, no, c->layers, out, B->hd, ferr, ferrlen)
         : B->hd     ? enc_forward_layers(c->e, &in, 1, &own, out, B->hd, ferr, ferrlen)
                     : enc_forward(c->e, &in, &out[0], ferr, ferrlen);
}

static int encode_batch(struct enc_pass *c, const int *idx, int cnt);

/* Out of memory: the batch again as two halves; a single input is skipped with a warning */
static int encode_halves(struct enc_pass *c, const int *idx, int cnt, const char *ferr)
{
    if (cnt == 1) {
        const struct unit *u = &c->u[idx[0]];
        sp_log(c->ctx->log, SP_LOG_WARN, "%s (%d tokens): out of memory alone (%s); skipped", u->label, u->n, ferr);
        c->n_oom++;
        drop(c, u->ordinal);
        return SP_OK;
    }
    int h = cnt / 2, rc;
    if ((rc = encode_batch(c, idx, h)) != SP_OK) return rc;
    return encode_batch(c, idx + h, cnt - h);
}

/* Encode units idx[0..cnt) as one batch (every output of c->n_out from one forward pass); halve on
 * out-of-memory. */
static int encode_batch(struct enc_pass *c, const int *idx, int cnt)
{
    sp_arena_reset(&c->batch_arena);
    int dim = enc_dim(c->e), td = enc_tok_dim(c->e);
    struct batch_io B;
    B.s = sp_arena_alloc(&c->batch_arena, sizeof *B.s * (size_t)cnt);
    alloc_outputs(c, idx, cnt, &B);
    for (int b = 0; b < cnt; b++) unit_input(c, &c->u[idx[b]], &B.s[b]);
    char ferr[SP_ERRLEN];
    int rc = c->base ? base_inputs(c, B.s, cnt, ferr, sizeof ferr) : SP_OK;
    if (rc == SP_OK) rc = forward_batch(c, cnt, &B, ferr, sizeof ferr);
    if (rc == SP_ENOMEM) return encode_halves(c, idx, cnt, ferr);
    if (rc) { snprintf(c->err, sizeof c->err, "%s", ferr); return rc; }
    for (int o = 0; o < c->n_out; o++)
        if ((rc = outputs_finite(c, o, idx, cnt, B.sent[o], dim, B.tok ? B.tok[o] : NULL, td, B.attn ? B.attn[o] : NULL)) != SP_OK)
            return rc;
    rc = write_batch(c, idx, cnt, B.sent, B.tok, B.attn, B.hd, dim, td);
    if (!rc) { c->n_encoded += cnt; c->n_batches++; }
    return rc;
}

/* Cache lookups (an input is cached when every output has it), then length-sorted token-budget
 * batches of the misses. */
static int flush_window(struct enc_pass *c)
{
    int rc = SP_OK;
    st_iter_pause(c->it);   /* no read open across the writes below, so they wait for other writers */
    struct st_run_item_put *cached = sp_xmalloc(sizeof *cached * (size_t)(c->n_units ? c->n_units : 1));
    int *pend = sp_xmalloc(sizeof(int) * (size_t)(c->n_units ? c->n_units : 1));
    int nc = 0, np = 0;
    for (int i = 0; rc == SP_OK && i < c->n_units; i++) {
        struct unit *u = &c->u[i];
        if (u->state == U_SKIP) { drop(c, u->ordinal); continue; }
        int all = 1;
        for (int o = 0; rc == SP_OK && all && o < c->n_out; o++) {
            unsigned have, want = ST_RUN_VEC | (c->tok ? ST_RUN_TOK : 0) | (attn_at(c, o) >= 0 ? ST_RUN_ATTN : 0) |
                                  (c->heads && attn_at(c, o) >= 0 ? ST_RUN_HEADS : 0);
            rc = st_vector_cached(c->db, c->encoder_ids[o], u->hash, attn_at(c, o), &have, c->err, sizeof c->err);
            all = (have & want) == want;
        }
        if (rc) break;
        if (all) { u->state = U_CACHED; cached[nc++] = item_of(u); }
        else pend[np++] = i;
    }
    if (rc == SP_OK && nc) {
        struct st_run_write_part *parts = sp_xmalloc(sizeof *parts * (size_t)c->n_out);
        for (int o = 0; o < c->n_out; o++)
            parts[o] = (struct st_run_write_part){ c->run_ids[o], c->encoder_ids[o], NULL, 0, cached, nc };
        rc = st_run_write_many(c->db, parts, c->n_out, c->err, sizeof c->err);
        free(parts);
        if (!rc) c->n_cached += nc;
    }
    qsort_r(pend, (size_t)np, sizeof *pend, by_length, c->u);
    for (int i = 0; rc == SP_OK && i < np;) {
        if (stg_stopping(c->ctx)) {      /* between batches: every batch so far is committed whole */
            snprintf(c->err, sizeof c->err, "stopped");
            rc = SP_ESTOPPED;
            break;
        }
        int j = i + 1;     /* sorted ascending: the last taken is the longest */
        while (j < np && (long)(j + 1 - i) * c->u[pend[j]].n <= c->batch_tokens) j++;
        rc = encode_batch(c, pend + i, j - i);
        i = j;
    }
    stg_progress(c->ctx, "sentences", c->n_seen, c->n_total);
    free(cached);
    free(pend);
    c->n_units = 0;
    c->window_tokens = 0;
    sp_arena_reset(&c->arena);
    return rc;
}

static int unit_done(struct enc_pass *c, const struct unit *u)
{
    c->n_seen++;
    c->window_tokens += u->n;
    const long tokens = WINDOW_TOKENS > WINDOW_BATCHES * c->batch_tokens ? WINDOW_TOKENS : WINDOW_BATCHES * c->batch_tokens;
    const long units = WINDOW_UNITS * (tokens / WINDOW_TOKENS);      /* as many more sentences as tokens */
    if (c->n_units >= units || c->window_tokens >= tokens) return flush_window(c);
    return SP_OK;
}

/* ---- sources ---- */

int stg_encode_corpus_pass(struct enc_pass *c, int64_t corpus_id)
{
    unsigned want = 0;
    if (c->caps.needs & (ENC_NEED_DEPTH | ENC_NEED_DIST | ENC_NEED_ANC | ENC_NEED_REL)) want |= ST_WANT_DEP;
    if (c->caps.needs & ENC_NEED_PID) want |= ST_WANT_CONST;
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

static int text_unit(struct enc_pass *c, const struct titem *t)
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
int stg_encode_task_pass(struct enc_pass *c, const char *task, int64_t corpus_id)
{
    struct tlist l = { 0 };
    int rc = st_task_items(c->db, task, NULL, collect_item, &l, c->err, sizeof c->err);
    c->n_total = (uint64_t)l.n;
    if (rc == SP_OK && (!c->caps.needs || !corpus_id)) {
        for (int i = 0; rc == SP_OK && i < l.n; i++) rc = text_unit(c, &l.v[i]);
    } else if (rc == SP_OK) {
        qsort(l.v, (size_t)l.n, sizeof *l.v, by_sentence);
        int i = 0;
        for (; i < l.n && !l.v[i].sentence_id; i++) rc = rc ? rc : text_unit(c, &l.v[i]);
        unsigned want = ST_WANT_DEP | ((c->caps.needs & ENC_NEED_PID) ? ST_WANT_CONST : 0);
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

