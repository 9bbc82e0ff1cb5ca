/* stages/encode_ident.h — the encode stage's encoder fingerprint, input names and embeddings
 * vocabulary (stages/encode_ident.c). */
#ifndef SP_STG_ENCODE_IDENT_H
#define SP_STG_ENCODE_IDENT_H

#include "common/dtype.h"
#include "encoder/encoder.h"
#include "stages/stage.h"
#include "store/store.h"

struct json_t;

/* The encoder as parsed (effective seed set) and as identified. */
struct enc_ident {
    struct enc_config cfg;
    struct json_t *jcfg;        /* the config without "comment", with the seed */
    char *canon;                /* jcfg with sorted keys, compact */
    char w_sha[65], e_sha[65];  /* the weights / embeddings files' SHA-256 ("" without) */
    char fp[65];                /* the fingerprint */
    char base_fp[65];           /* cfg.base: the base encoder's fingerprint ("" without) */
    enum sp_stype dtype;        /* --store-dtype: part of the fingerprint when not f32 */
    int saturate;               /* --store-overflow saturate (not f32): part of the fingerprint */
};

/* Read, parse and fingerprint the config (seed >= 0 overrides the config's; dtype: the type the
 * outputs are stored in). SP_EIO / SP_EPARSE with ctx->err. stg_encode_ident_free in every case. */
int stg_encode_ident(struct stg_ctx *ctx, const char *cfg_path, long seed, long layer, const char *weights, const char *embeddings,
                     enum sp_stype dtype, int saturate, struct enc_ident *id);
void stg_encode_ident_free(struct enc_ident *id);
/* A bert ident (from stg_encode_ident) as --layer `layer` would have made it: the same config
 * with "layer" set (and the same store dtype), so the same fingerprint. SP_OK; stg_encode_ident_free(out) in every case. */
int stg_encode_ident_layer(const struct enc_ident *from, int layer, struct enc_ident *out);

/* The words a run can look up in an embeddings file: every form of the corpora (or every token
 * of the tasks' item texts) and its ASCII lower-case form (enc_embed_id falls back to it). */
struct enc_vocab { char **w; size_t n, cap; struct sp_arena a; };
void stg_encode_vocab_init(struct enc_vocab *v);
int stg_encode_vocab_add(struct enc_vocab *v, struct st_db *db, int64_t corpus_id, int64_t task_id, char *err, size_t errlen);
void stg_encode_vocab_sort(struct enc_vocab *v);
int stg_encode_vocab_has(void *ctx, const char *word);   /* after sorting */
void stg_encode_vocab_free(struct enc_vocab *v);

#endif
