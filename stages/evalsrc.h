/* stages/evalsrc.h — what the evaluation stages (trees, structprobe) share: the names a user
 * typed checked against the store, with the nearest names suggested. */
#ifndef SP_STG_EVALSRC_H
#define SP_STG_EVALSRC_H

#include <stdint.h>

#include "stages/stage.h"
#include "store/store.h"

struct json_t;

/* The id of corpus name in db; SP_EPARSE "no corpus 'ewd' in DB; did you mean 'ewt'? the
 * store has: ewt, ptb" when there is none. */
int stg_eval_corpus_id(struct stg_ctx *ctx, struct st_db *db, const char *db_path, const char *name, int64_t *id);

/* A figure for JSON: NaN becomes null. */
struct json_t *stg_eval_num(double v);

#endif
