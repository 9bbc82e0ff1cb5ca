/* stages/manifest.h — the run manifest: what every stored result records about how it was made.
 *
 * {"timestamp": UTC ISO-8601, "command": [the words that ran it: "synprobe", argv... on the
 * command line, or the job file and stage], "versions": {synprobe, build, sqlite, blas,
 * jansson}, "options": {the stage's options, from its table}}; the stage adds its own knobs
 * (seeds, data hashes). report reads these back; a number without its manifest is not stored. */
#ifndef SP_STG_MANIFEST_H
#define SP_STG_MANIFEST_H

#include "common/opt.h"

struct json_t;
struct st_db;
struct stg_ctx;

/* A new manifest; command may be NULL (nothing to record), table/opts may be NULL. A stage a job
 * runs (ctx->job_file set) records "job": {"file", "sha256"} too. */
struct json_t *stg_manifest_new(const struct stg_ctx *ctx, const struct sp_strlist *command, const struct sp_opt *table,
                                const void *opts);

/* A figure for a result's JSON: NaN (nothing to measure) becomes null. */
struct json_t *stg_json_num(double v);

/* "CUDA yes (cuBLAS), BLAS openblas, figures svg, pdf, png (librsvg)": the build's options, for
 * --version and the manifest. */
const char *stg_build_info(void);

/* One tree_eval row (trees, structprobe): result plus "manifest" (reference taken), in one
 * transaction; the new row's id in *id. SP_ESTORE with ctx->err on failure. */
int stg_save_tree_eval(struct stg_ctx *ctx, struct st_db *db, const char *run, int64_t corpus_id, const char *method,
                       struct json_t *result, struct json_t *manifest, int64_t *id);

#endif
