/* stages/names.h — the one message every stage gives for a corpus, task or run the store does
 * not hold: "no corpus 'ewd' in DB; did you mean 'ewt'? the store has: ewt, ptb" (bad input,
 * exit 1). Scripts grep for "no task 'X'" and "no run 'X'", so the wording is fixed here. */
#ifndef SP_STG_NAMES_H
#define SP_STG_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct stg_ctx;

enum stg_name_kind { STG_NAME_CORPUS, STG_NAME_TASK, STG_NAME_RUN };

/* SP_OK when db (at db_path, for the message) holds name; else SP_EPARSE with the message in
 * ctx->err; SP_ESTORE when the names cannot be read. */
int stg_known_name(struct stg_ctx *ctx, struct st_db *db, const char *db_path, enum stg_name_kind kind, const char *name);

/* The message for a name known to be missing, into ctx->err; returns SP_EPARSE (or SP_ESTORE). */
int stg_no_such(struct stg_ctx *ctx, struct st_db *db, const char *db_path, enum stg_name_kind kind, const char *name);

/* The corpus id of name; an unknown name is SP_EPARSE with the message. */
int stg_corpus_id(struct stg_ctx *ctx, struct st_db *db, const char *db_path, const char *name, int64_t *id);

/* SP_OK unless db (at path) merges shards (synprobe merge) and some are not merged yet: then
 * SP_EPARSE naming them, since a step that writes to it would compute on part of its corpus. */
int stg_every_shard_merged(struct stg_ctx *ctx, struct st_db *db, const char *path);

/* st_open for a stage: a store that is not ours, or too new, is bad input (SP_ESTORE), never a
 * usage error; the message in ctx->err. Opened for writing, a store whose merge is not complete
 * is refused (stg_every_shard_merged). */
int stg_open_store(struct stg_ctx *ctx, const char *path, unsigned flags, struct st_db **db);

#endif
