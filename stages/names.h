/* stages/names.h — "no such corpus 'ewd' in DB; did you mean 'ewt'? the store has: ewt, ptb":
 * the message every stage (and the info command) gives for a name the store does not hold. */
#ifndef SP_STG_NAMES_H
#define SP_STG_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

enum stg_name_kind { STG_NAME_CORPUS, STG_NAME_TASK, STG_NAME_RUN };

/* The message for name, with the nearest stored names and a list of all of them, into err.
 * Returns SP_EPARSE (bad input: exit 1), or SP_ESTORE when the names cannot be read. */
int stg_no_such(struct st_db *db, const char *db_path, enum stg_name_kind kind, const char *name,
                char *err, size_t errlen);

/* *found = 1 when the store holds a corpus (kind) called name; else 0 and the stg_no_such
 * message in err. SP_ESTORE when the store cannot be read. */
int stg_check_name(struct st_db *db, const char *db_path, enum stg_name_kind kind, const char *name, int *found,
                   char *err, size_t errlen);

struct stg_ctx;

/* st_open for a stage: a store that is not ours, or too new, is bad input (SP_ESTORE), never a
 * usage error; the message in ctx->err. */
int stg_open_store(struct stg_ctx *ctx, const char *path, unsigned flags, struct st_db **db);

/* The corpus id of name; an unknown name is SP_EPARSE with the stg_no_such message. */
int stg_corpus_id(struct stg_ctx *ctx, struct st_db *db, const char *db_path, const char *name, int64_t *id);

#endif
