/* stages/known.h — "no task 'Tredepth' in DB; did you mean 'TreeDepth'? the store has: ..." for a
 * name the user typed that the store does not hold (probe --task/--run, report --run). */
#ifndef SP_STG_KNOWN_H
#define SP_STG_KNOWN_H

#include "stages/stage.h"

struct st_db;

enum stg_known_kind { STG_KNOWN_TASK, STG_KNOWN_RUN, STG_KNOWN_CORPUS };

/* SP_OK when the store db (at db_path, for the message) holds name; else SP_EPARSE with ctx->err
 * "no <kind> 'name' in db_path; did you mean 'x'? the store has: a, b, c" (the word "no task"
 * and "no run" is what scripts grep for); SP_ESTORE when the names cannot be read. */
int stg_known_name(struct stg_ctx *ctx, struct st_db *db, const char *db_path, enum stg_known_kind kind,
                   const char *name);

#endif
