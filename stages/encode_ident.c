/* stages/encode_ident.c — what identifies an encoder (its fingerprint) and what an input is
 * named by (corpus / task names, checked against the store), for stages/encode.c.
 *
 * encoder fingerprint = SHA-256 of: the config file's JSON without "comment", with the effective
 * seed set, re-serialised with sorted keys and no spaces (jansson); the weights file's SHA-256,
 * or "glorot seed N" without --weights; the embeddings file's SHA-256, or "random seed N"
 * without --embeddings; with --store-dtype f16 or bf16, that type (f32, the default, adds nothing,
 * so f32 fingerprints are those of stores written before the option existed), and with it
 * --store-overflow saturate (clamped vectors are never shared with a run that refuses them). Two files that
 * differ only in spacing, key order or comment share a fingerprint; spelling out a default value
 * gives a new one (a cache miss, never a wrong hit). */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/stop.h"
#include "stages/encode_ident.h"
#include "store/st_encoded.h"

/* A regular file's SHA-256 (a device or FIFO is refused: /dev/zero would be hashed forever);
 * a stop request ends a long hash (SP_ESTOPPED). err names the file. */
static int file_sha256(const char *path, char out[65], char *err, size_t errlen)
{
    FILE *f = sp_fopen_input(path, err, errlen);
    if (!f) return SP_EIO;
    struct sp_sha256 h;
    sp_sha256_init(&h);
    char tmp[65536];
    size_t k;
    while (!sp_stopping() && (k = fread(tmp, 1, sizeof tmp, f)) > 0) sp_sha256_update(&h, tmp, k);
    int rc = sp_stopping() ? SP_ESTOPPED : ferror(f) ? SP_EIO : SP_OK;
    if (rc == SP_ESTOPPED) snprintf(err, errlen, "%s: stopped while reading", path);
    else if (rc) snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
    fclose(f);
    if (rc == SP_OK) sp_sha256_hex(&h, out);
    return rc;
}

/* An embeddings text file's SHA-256; for the array form (a folder with vectors.npy and
 * words.txt, or the .npy beside words.txt) the SHA-256 of the two files' SHA-256s. */
static int embeddings_sha256(const char *path, char out[65], char *err, size_t errlen)
{
    struct stat st;
    size_t n = strlen(path);
    int dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    if (!dir && !(n > 4 && !strcmp(path + n - 4, ".npy"))) return file_sha256(path, out, err, errlen);
    char a[4200], b[4200], ha[65], hb[65];
    if (dir) { snprintf(a, sizeof a, "%s/vectors.npy", path); snprintf(b, sizeof b, "%s/words.txt", path); }
    else {
        const char *slash = strrchr(path, '/');
        snprintf(a, sizeof a, "%s", path);
        snprintf(b, sizeof b, "%.*swords.txt", slash ? (int)(slash - path + 1) : 0, path);
    }
    int rc = file_sha256(a, ha, err, errlen);
    if (rc == SP_OK) rc = file_sha256(b, hb, err, errlen);
    if (rc) return rc;
    struct sp_sha256 h;
    sp_sha256_init(&h);
    sp_sha256_update(&h, ha, 64);
    sp_sha256_update(&h, hb, 64);
    sp_sha256_hex(&h, out);
    return SP_OK;
}

static void fingerprint(struct enc_ident *id, int weights, int embeddings)
{
    struct sp_sha256 h;
    struct sp_buf b = { 0 };
    sp_buf_printf(&b, "synprobe-encoder-1\nconfig %s\n", id->canon);
    if (weights) sp_buf_printf(&b, "weights sha256 %s\n", id->w_sha);
    else sp_buf_printf(&b, "weights glorot seed %llu\n", (unsigned long long)id->cfg.seed);
    if (id->base_fp[0]) sp_buf_printf(&b, "base %s\n", id->base_fp);
    else if (embeddings) sp_buf_printf(&b, "embeddings sha256 %s\n", id->e_sha);
    else sp_buf_printf(&b, "embeddings random seed %llu\n", (unsigned long long)id->cfg.seed);
    if (id->dtype != SP_STYPE_F32) sp_buf_printf(&b, "store-dtype %s\n", sp_stype_name(id->dtype));
    if (id->saturate) sp_buf_printf(&b, "store-overflow saturate\n");
    sp_sha256_init(&h);
    sp_sha256_update(&h, b.p, b.len);
    sp_sha256_hex(&h, id->fp);
    sp_buf_free(&b);
}

int stg_encode_ident(struct stg_ctx *ctx, const char *cfg_path, long seed, long layer, const char *weights, const char *embeddings,
                     enum sp_stype dtype, int saturate, struct enc_ident *id)
{
    memset(id, 0, sizeof *id);
    id->dtype = dtype;
    id->saturate = saturate && dtype != SP_STYPE_F32;
    size_t len;
    char *text = sp_read_file(cfg_path, &len, ctx->err, sizeof ctx->err);
    if (!text) return SP_EIO;
    const char *base = strrchr(cfg_path, '/') ? strrchr(cfg_path, '/') + 1 : cfg_path;
    (void)base;
    if (enc_config_load(cfg_path, &id->cfg, ctx->err, sizeof ctx->err)) { free(text); return SP_EPARSE; }
    if (seed >= 0) id->cfg.seed = (uint64_t)seed;
    json_error_t jerr;
    id->jcfg = json_loads(text, 0, &jerr);
    free(text);
    if (!json_is_object(id->jcfg)) return stg_fail(ctx, SP_EPARSE, "%s: not a JSON object", cfg_path);
    json_object_del(id->jcfg, "comment");
    json_object_set_new(id->jcfg, "seed", json_integer((json_int_t)id->cfg.seed));
    struct enc_caps caps;
    enc_config_caps(&id->cfg, &caps);
    if (layer >= -1 && caps.layer_outputs) {   /* --layer: part of what the encoder is (a config with
                                                * layer outputs only: stg_encode_check_config) */
        id->cfg.bert_layer = (int)layer;
        json_object_set_new(id->jcfg, "layer", json_integer(layer));
    }
    id->canon = json_dumps(id->jcfg, JSON_SORT_KEYS | JSON_COMPACT);
    int rc;
    if (weights && (rc = file_sha256(weights, id->w_sha, ctx->err, sizeof ctx->err))) return rc == SP_ESTOPPED ? stg_stopped(ctx) : rc;
    if (caps.model_dir) {              /* the model's files are its weights: SHA-256 of their SHA-256s */
        struct sp_sha256 h;
        sp_sha256_init(&h);
        for (int i = 0; caps.model_files[i]; i++) {
            char path[sizeof id->cfg.bert_model + 32], one[65];
            snprintf(path, sizeof path, "%s/%s", caps.model_dir, caps.model_files[i]);
            char e[SP_ERRLEN];
            if ((rc = file_sha256(path, one, e, sizeof e)))
                return rc == SP_ESTOPPED ? stg_stopped(ctx) : stg_fail(ctx, rc, "%s (the config's model directory)", e);
            sp_sha256_update(&h, one, 64);
        }
        sp_sha256_hex(&h, id->w_sha);
        weights = "model";
    }
    if (embeddings && (rc = embeddings_sha256(embeddings, id->e_sha, ctx->err, sizeof ctx->err)))
        return rc == SP_ESTOPPED ? stg_stopped(ctx) : rc;
    if (id->cfg.base[0]) {             /* the base's identity is part of this one's */
        struct enc_ident bid;
        rc = stg_encode_ident(ctx, id->cfg.base, -1, -2, NULL, NULL, SP_STYPE_F32, 0, &bid);
        struct enc_caps bcaps = { 0 }; /* a base turns words into the word vectors this one reads */
        if (rc == SP_OK) enc_config_caps(&bid.cfg, &bcaps);
        if (rc == SP_OK && bcaps.input != ENC_INPUT_WORDS)
            rc = stg_fail(ctx, SP_EPARSE, "%s: base: %s is a %s config; a base is a bert config", cfg_path, id->cfg.base,
                          enc_kind_name(bid.cfg.kind));
        if (rc == SP_OK) memcpy(id->base_fp, bid.fp, sizeof id->base_fp);
        stg_encode_ident_free(&bid);
        if (rc != SP_OK) return rc;
    }
    fingerprint(id, weights != NULL, embeddings != NULL);
    return SP_OK;
}

int stg_encode_ident_layer(const struct enc_ident *from, int layer, struct enc_ident *out)
{
    memset(out, 0, sizeof *out);
    out->cfg = from->cfg;
    out->cfg.bert_layer = layer;
    out->jcfg = json_deep_copy(from->jcfg);
    if (!out->jcfg) return SP_ENOMEM;
    json_object_set_new(out->jcfg, "layer", json_integer(layer));
    out->canon = json_dumps(out->jcfg, JSON_SORT_KEYS | JSON_COMPACT);
    memcpy(out->w_sha, from->w_sha, sizeof out->w_sha);
    memcpy(out->e_sha, from->e_sha, sizeof out->e_sha);
    memcpy(out->base_fp, from->base_fp, sizeof out->base_fp);
    out->dtype = from->dtype;
    out->saturate = from->saturate;
    fingerprint(out, 1, from->e_sha[0] != 0);
    return SP_OK;
}

void stg_encode_ident_free(struct enc_ident *id)
{
    json_decref(id->jcfg);
    free(id->canon);
    memset(id, 0, sizeof *id);
}

/* ---- the vocabulary an embeddings file is filtered by ---- */

static void vocab_add(struct enc_vocab *v, const char *s, size_t len)
{
    for (int low = 0; low < 2; low++) {
        if (v->n == v->cap) { v->cap = v->cap ? 2 * v->cap : 4096; v->w = sp_xrealloc(v->w, v->cap * sizeof *v->w); }
        char *c = sp_arena_strndup(&v->a, s, len);
        if (low) for (char *p = c; *p; p++) *p = (char)tolower((unsigned char)*p);
        v->w[v->n++] = c;
    }
}

static int add_form(void *ctx, const char *form)
{
    vocab_add(ctx, form, strlen(form));
    return 0;
}

static int add_text(void *ctx, const char *t)
{
    for (const char *p = t; *p;) {                 /* task texts: tokens separated by single spaces */
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len) vocab_add(ctx, p, len);
        p += len + (e != NULL);
    }
    return 0;
}

static int vocab_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void stg_encode_vocab_init(struct enc_vocab *v)
{
    memset(v, 0, sizeof *v);
    sp_arena_init(&v->a);
}

int stg_encode_vocab_add(struct enc_vocab *v, struct st_db *db, int64_t corpus_id, int64_t task_id, char *err, size_t errlen)
{
    return corpus_id ? st_corpus_forms(db, corpus_id, add_form, v, err, errlen)
                     : st_task_texts(db, task_id, add_text, v, err, errlen);
}

void stg_encode_vocab_sort(struct enc_vocab *v)
{
    if (v->n > 1) qsort(v->w, v->n, sizeof *v->w, vocab_cmp);
}

int stg_encode_vocab_has(void *ctx, const char *word)
{
    const struct enc_vocab *v = ctx;
    return v->n && bsearch(&word, v->w, v->n, sizeof *v->w, vocab_cmp) != NULL;
}

void stg_encode_vocab_free(struct enc_vocab *v)
{
    free(v->w);
    sp_arena_free(&v->a);
}
