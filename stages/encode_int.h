/* stages/encode_int.h — between the encode stage (stages/encode.c: options, fingerprint, the
 * store, the encoder, runs, manifest) and its engine for one input (stages/encode_batch.c). */
#ifndef SP_STG_ENCODE_INT_H
#define SP_STG_ENCODE_INT_H

#include "common/dtype.h"
#include "encoder/encoder.h"
#include "stages/stage.h"
#include "store/st_runs.h"
#include "store/store.h"

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

/* One input's pass: what it reads with, where it writes, and its counts. */
struct enc_pass {
    struct stg_ctx *ctx;           /* log, stop flag, progress */
    struct st_db *db;
    enc_t *e;
    enc_t *base;                   /* cfg->base: the encoder (input words) whose word vectors are the input */
    enc_embed_t *emb;
    const float *table;
    int table_rows;
    const struct enc_config *cfg;
    struct enc_caps caps;          /* what the encoder takes and gives (input words or rows, its own layer) */
    int n_out;                     /* outputs per input: 1, or the layers of --layers (a run and an encoder each) */
    const int *layers;             /* [n_out] layers with --layers (one enc_forward_layers pass), else NULL */
    const int64_t *encoder_ids;    /* [n_out] */
    const int64_t *run_ids;        /* [n_out] */
    int tok, attn_layer;           /* attn_layer -1: none */
    const int *attn_of;            /* [n_out] each output's attention layer (-1: none), or NULL: attn_layer for all */
    int heads;                     /* also the per-head maps of each output's attention layer (layer_outputs) */
    long batch_tokens, max_tokens;
    int on_missing_fail;
    int perturbed_no_parse;        /* --perturbed no-parse */
    long n_perturbed;              /* task items whose words differ from their sentence's */
    uint64_t n_seen, n_total;      /* progress: sentences or items read, of n_total (0: unknown) */
    /* window */
    struct unit *u;
    int n_units, cap_units;
    long window_tokens;
    struct sp_arena arena, batch_arena;
    struct st_iter *it;            /* the corpus being read: paused before each window's writes */
    /* results */
    long n_cached, n_encoded, n_missing, n_long, n_oom, n_batches;
    enum sp_stype dtype;           /* --store-dtype: what the store keeps */
    int saturate;                  /* --store-overflow saturate: values beyond dtype's range are clamped */
    long n_saturated;              /* ... how many */
    const char *source;            /* "corpus NAME" / "task NAME", for messages */
    char *const *run_names;        /* [n_out], for messages */
    int64_t *dropped;
    int n_dropped, cap_dropped;
    char err[SP_ERRLEN * 2];
};

/* Encode every sentence of the corpus / item of the task into c->run_id. SP_OK, or an error with
 * c->err (SP_ESTOPPED: stopped between batches, c->err "stopped"). */
int stg_encode_corpus_pass(struct enc_pass *c, int64_t corpus_id);
int stg_encode_task_pass(struct enc_pass *c, const char *task, int64_t corpus_id);

#endif
