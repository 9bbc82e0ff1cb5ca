/* stages/encode.h — the encode stage: run an encoder over corpora or probing tasks and cache
 * sentence vectors (optionally token vectors and one layer's attention maps) in the store.
 *
 * Each input (a corpus of --corpus, or a task of --task) becomes one run: the --run name for a
 * single input, RUN-INPUT for each of several (--corpus a,b --run r: runs r-a and r-b). Inputs
 * are read in windows, looked up in the cache (stages/encode_batch.c says what keys it), and
 * the misses encoded in length-sorted batches; each batch is one transaction, so a stop request
 * (checked between batches) leaves whole batches that a later run of the same name reuses. */
#ifndef SP_STG_ENCODE_H
#define SP_STG_ENCODE_H

#include <stdint.h>

#include "stages/stage.h"

enum stg_encode_device { STG_DEVICE_AUTO, STG_DEVICE_CPU, STG_DEVICE_CUDA };
enum stg_encode_missing { STG_MISSING_SKIP, STG_MISSING_FAIL };
enum stg_encode_perturbed { STG_PERTURBED_KEEP, STG_PERTURBED_NO_PARSE };
enum stg_encode_gemm { STG_GEMM_OWN, STG_GEMM_BLAS };
enum stg_encode_overflow { STG_OVERFLOW_ERROR, STG_OVERFLOW_SATURATE };

struct stg_encode_opts {
    const char *db;
    struct sp_strlist corpus;     /* corpora to encode; exclusive with task */
    struct sp_strlist task;       /* tasks to encode */
    const char *encoder;          /* config JSON */
    const char *run;              /* run name (the prefix of each name for several inputs) */
    const char *weights;          /* safetensors; NULL: seeded Glorot init */
    const char *save_weights;     /* write the weights used here; NULL: no */
    const char *embeddings;       /* GloVe/word2vec text; NULL: seeded random vector per word */
    int token_vectors;
    long attention;               /* layer whose maps are cached; -1: none */
    long seed;                    /* -1: the config's */
    long layer;                   /* bert: the layer encoded (0 = embeddings); -2: the config's */
    const char *layers;           /* bert: "all" or "K,K,...": one pass, a run per layer; NULL: none */
    int layer_attention;          /* with layers: run L<k> caches encoder layer k's map (attention layer k-1) */
    int heads;                    /* bert: the per-head maps too */
    long threads;                 /* 0: the encoder's default */
    int device;                   /* enum stg_encode_device */
    int gemm;                     /* enum stg_encode_gemm: the CPU's products (--gemm own|blas) */
    long batch_tokens, max_tokens;
    uint64_t max_workspace;       /* bytes; 0: no cap */
    int on_missing;               /* enum stg_encode_missing */
    int perturbed;                /* enum stg_encode_perturbed */
    int store_dtype;              /* enum sp_stype (common/dtype.h): f32, f16, bf16 */
    int store_overflow;           /* enum stg_encode_overflow: a value beyond f16/bf16's range */
    struct sp_strlist command;    /* not in the table: the words that ran it, for the manifest */
    int empty_ok;                 /* not in the table: an input without a single item is no failure
                                   * (a shard may hold no sentence of a small corpus) */
};
extern const struct sp_opt stg_encode_options[];

/* One input's outcome. */
struct stg_encode_input {
    char *run;                    /* run name */
    char *source;                 /* "corpus demo", "task WC" */
    char fingerprint[65];
    const char *kind, *device;    /* static strings */
    const char *store_dtype;      /* static: "f32", "f16", "bf16" */
    int dim;
    long cached, encoded, missing, too_long, oom, batches;
    long saturated;               /* values clamped to the store dtype's range (--store-overflow saturate) */
    int64_t items;                /* run items after this pass */
    double seconds;
    int nothing_encoded;          /* every item skipped (or none): the stage fails once all inputs ran */
};

struct stg_encode_result {
    int n;                        /* inputs done (all of them on SP_OK) */
    struct stg_encode_input *in;
};

/* SP_OK; SP_EUSAGE (an option combination, --attention beyond the config's layers); SP_EPARSE
 * (bad config, weights, embeddings; a run name taken by another encoder; --on-missing fail;
 * nothing encoded: every item of an input skipped); SP_ESTORE; SP_EGPU; SP_ESTOPPED. r holds the
 * inputs finished before a failure. */
int stg_encode(struct stg_ctx *ctx, const struct stg_encode_opts *o, struct stg_encode_result *r);
/* The rules stg_encode checks its options against before it reads anything (options that go together
 * or exclude each other): SP_EUSAGE with ctx->err, or SP_OK. A job file's steps are checked
 * with it when the job is loaded, so `run --check` refuses what the run would. */
int stg_encode_check(struct stg_ctx *ctx, const struct stg_encode_opts *o);
/* The rules that need the encoder's config (cfg, from o->encoder): --layer, --heads and --layers
 * on bert configs only, no --embeddings on a config with a base, no --save-weights of a bert
 * model. The job loader runs it on every encode step with the config it reads. */
struct enc_config;
int stg_encode_check_config(struct stg_ctx *ctx, const struct stg_encode_opts *o, const struct enc_config *cfg);

/* A config with a "base" (cfg->base[0]): opens the base on `device` (enum enc_device) and sets
 * cfg->d_input to the width of its word vectors (d_input != d_model adds the input projection),
 * refusing a d_input the config gives that is neither. *base is the open base (the caller closes
 * it), or NULL with base == NULL to close it here. `synprobe weights` resolves a config so too. */
typedef struct enc enc_t;
int stg_encode_open_base(struct enc_config *cfg, const char *name, int device, const struct sp_logger *log, enc_t **base,
                         char *err, size_t errlen);

void stg_encode_result_free(struct stg_encode_result *r);

#endif
