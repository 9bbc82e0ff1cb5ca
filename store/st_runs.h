/* store/st_runs.h — encoders, encoder runs and their cached outputs (tables encoder, run, run_item,
 * vector of migration 002; attention and the extra columns of migration 003).
 *
 * Model.
 *   encoder  one row per fingerprint (SHA-256 of the canonical config + weights + embeddings;
 *            daemon/cmd_encode.c computes it). st_encoder_upsert returns the existing row's id.
 *   vector   cache keyed by (encoder_id, input hash): the sentence vector, optionally the token
 *            vectors [n][tok_dim]; attention maps [n][n] sit in table `attention` keyed by layer.
 *            The input hash covers everything the encoder reads (forms + the structures its kind
 *            needs), so any run of the same encoder reuses what exists.
 *   run      a named pass of one encoder over a corpus or a task; run_item maps each input
 *            (ordinal) to its vector row. Ordinals are the position in the source: corpus order
 *            (1-based) for corpus runs, the task's file order for task runs; sentences that were
 *            skipped leave gaps, so an ordinal always means the same input.
 *
 * Writing (the encoder driver): st_run_begin, then st_run_write once per batch (vectors and
 * run items of the batch in ONE transaction: an interrupted encode leaves whole batches), then
 * st_run_finish. Reading (export, probe --run, trees --run): st_run_info + st_run_items.
 *
 * Floats are stored little-endian in the encoder's element type (encoder.store_dtype, migration
 * 010: f32, the default and every older store; f16; bf16, common/dtype.h): the writer narrows
 * them, the reader widens them back to float. Pointers handed to callbacks are aligned float
 * arrays in native byte order, valid during the call only. */
#ifndef ST_RUNS_H
#define ST_RUNS_H

#include <stdint.h>

#include "common/dtype.h"
#include "store/store.h"

/* ---- encoders ---- */

struct st_encoder {
    const char *fingerprint;    /* 64 hex digits */
    const char *kind;           /* "san", "ms-san", ... */
    const char *config;         /* canonical JSON */
    int dim;                    /* sentence vector width */
    enum sp_stype dtype;        /* element type its outputs are stored in (part of the fingerprint when not f32) */
};

/* Id of the encoder with this fingerprint, inserting it when absent. An existing row of another
 * store_dtype (a fingerprint that left the type out): SP_EEXIST, err names both types. */
int st_encoder_upsert(struct st_db *db, const struct st_encoder *enc, int64_t *id, char *err, size_t errlen);

/* ---- runs ---- */

struct st_run_spec {
    const char *name;
    int64_t encoder_id;
    int64_t corpus_id;          /* exactly one of corpus_id / task_id is non-zero */
    int64_t task_id;
    int token_vectors;          /* items will carry token vectors */
    int attn_layer;             /* items will carry this layer's attention maps; -1: none */
};

/* Create the run, or reuse it when a run of that name exists with the same encoder and the same
 * corpus/task (re-running extends/refreshes it; its token_vectors/attn_layer become the spec's).
 * A different encoder (fingerprint) or source under an existing name: SP_EEXIST, and err names
 * both fingerprints (or both sources). *created = 1 when the run is new. */
int st_run_begin(struct st_db *db, const struct st_run_spec *spec, int64_t *run_id, int *created,
                 char *err, size_t errlen);

/* Which cached outputs of (encoder, input hash) exist: ST_RUN_VEC if the vector row exists,
 * | ST_RUN_TOK if it has token vectors, | ST_RUN_ATTN if the map of attn_layer (>= 0) exists,
 * | ST_RUN_HEADS if its per-head maps exist. */
#define ST_RUN_VEC  1u
#define ST_RUN_TOK  2u
#define ST_RUN_ATTN 4u
#define ST_RUN_HEADS 8u     /* the per-head maps of attn_layer */
/* Per-head maps share table attention with the head-averaged ones: the row of key
 * ST_ATTN_HEADS_KEY(l) (negative, so never an attention layer) holds float32 [heads][n][n]. */
#define ST_ATTN_HEADS_KEY(l) (-2 - (l))
int st_vector_cached(struct st_db *db, int64_t encoder_id, const char *hash, int attn_layer, unsigned *have,
                     char *err, size_t errlen);

/* One freshly computed output. tok / attn NULL: not computed (existing cached ones are kept). */
struct st_vector_put {
    const char *hash;
    int dim;                    /* sentence vector width */
    const float *vec;           /* [dim] */
    int n_tokens;
    int tok_dim;
    const float *tok;           /* [n_tokens][tok_dim] or NULL */
    int attn_layer;
    const float *attn;          /* [n_tokens][n_tokens] or NULL */
    int n_heads;
    const float *attn_heads;    /* [n_heads][n_tokens][n_tokens] of attn_layer, or NULL */
};

/* One run item (a cached or fresh input of the run). */
struct st_run_item_put {
    int64_t ordinal;            /* >= 1, position in the source */
    int64_t sentence_id;        /* 0: none */
    int64_t task_ordinal;       /* 0: none */
    const char *hash;           /* must have a vector row (written here or before) */
};

/* Write vectors (upsert: a fresh output replaces the cached one part by part) and run items
 * (replacing items of the same ordinals) in one transaction; all or nothing. */
int st_run_write(struct st_db *db, int64_t run_id, int64_t encoder_id,
                 const struct st_vector_put *vecs, int n_vecs,
                 const struct st_run_item_put *items, int n_items, char *err, size_t errlen);

/* The writes of several runs (e.g. the layers of one bert pass: one run and encoder per layer)
 * in ONE transaction: all or nothing. */
struct st_run_write_part {
    int64_t run_id, encoder_id;
    const struct st_vector_put *vecs;
    int n_vecs;
    const struct st_run_item_put *items;
    int n_items;
};
int st_run_write_many(struct st_db *db, const struct st_run_write_part *parts, int n_parts, char *err, size_t errlen);

/* End of a complete pass: store the manifest JSON and drop the run items of the given ordinals
 * (inputs skipped this time that an earlier pass had encoded). One transaction. */
int st_run_finish(struct st_db *db, int64_t run_id, const char *manifest,
                  const int64_t *dropped, int n_dropped, char *err, size_t errlen);
/* An encoding that failed on its data (an output beyond the store's range, say): the runs
 * run_ids[0..n) it created are removed, items and row, in one transaction, so no reader sees a
 * part of them. The vectors written stay cached for their encoder (finite and in range: checked
 * before they were written). */
int st_run_discard(struct st_db *db, const int64_t *run_ids, int n, char *err, size_t errlen);

/* ---- reading a run back ---- */

struct st_run_info {
    int64_t run_id;
    char *name;
    int64_t encoder_id;
    char *fingerprint, *kind, *config;
    int dim;                    /* sentence vector width */
    int64_t corpus_id;          /* 0: task run */
    char *corpus;               /* corpus name, or NULL */
    int64_t task_id;            /* 0: corpus run */
    char *task;                 /* task name, or NULL */
    int token_vectors;
    int attn_layer;             /* -1: none */
    enum sp_stype dtype;        /* the encoder's store_dtype: how its blobs are read */
    char *manifest;             /* JSON */
    char *created;
    int64_t count;              /* run items */
    int max_tokens;             /* longest item (tokens) */
};

/* SP_EPARSE "DB: no run 'R'" when the name is unknown. Strings are malloc'd: st_run_info_free. */
int  st_run_info(struct st_db *db, const char *name, struct st_run_info *info, char *err, size_t errlen);
void st_run_info_free(struct st_run_info *info);

struct st_run_item {
    int64_t ordinal;            /* position in the source (corpus order / task file order) */
    int64_t sentence_id;        /* 0: none (imported task item) */
    int64_t task_ordinal;       /* 0: corpus run */
    const char *hash;           /* input hash */
    int n_tokens;
    int dim;
    const float *vec;           /* [dim] when ST_RUN_VEC asked, else NULL */
    int tok_dim;
    const float *tok;           /* [n_tokens][tok_dim] when ST_RUN_TOK asked, else NULL */
    const float *attn;          /* [n_tokens][n_tokens] of the run's attn_layer when ST_RUN_ATTN asked */
    int n_heads;                /* ST_RUN_HEADS: */
    const float *attn_heads;    /* [n_heads][n_tokens][n_tokens] of the run's attn_layer */
};

/* Call fn for every item of the run in ordinal order with the parts `what` asks for
 * (ST_RUN_VEC | ST_RUN_TOK | ST_RUN_ATTN; 0 = metadata only). A non-zero return of fn stops
 * the walk and is returned. Errors (SP_EPARSE with a message): unknown run; ST_RUN_TOK on a run
 * without token vectors ("re-run encode with --token-vectors"); ST_RUN_ATTN on a run without
 * attention ("re-run encode with --attention LAYER"); a cached part missing or of the wrong size; a
 * NaN or infinite value in a part asked for (naming the run, its layer, the item, its sentence
 * and the element), checked here once for every reader (probe, tokprobe, structprobe, trees, export). */
int st_run_items(struct st_db *db, const char *run, unsigned what,
                 int (*fn)(void *ctx, const struct st_run_item *item), void *ctx, char *err, size_t errlen);

/* Task id and the corpus it was built from (0 when imported) by task name; SP_EPARSE if unknown. */
int st_task_source(struct st_db *db, const char *task, int64_t *task_id, int64_t *corpus_id,
                   char *err, size_t errlen);

#endif
