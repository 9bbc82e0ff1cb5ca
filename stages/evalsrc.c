/* stages/evalsrc.c — name checks for the evaluation stages (see evalsrc.h). */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "stages/evalsrc.h"
#include "stages/known.h"

int stg_eval_corpus_id(struct stg_ctx *ctx, struct st_db *db, const char *db_path, const char *name, int64_t *id)
{
    *id = 0;
    int rc = stg_known_name(ctx, db, db_path, STG_KNOWN_CORPUS, name);
    if (rc != SP_OK) return rc;
    rc = st_corpus_id(db, name, 0, id, ctx->err, sizeof ctx->err);
    return rc == SP_EUSAGE ? SP_EPARSE : rc;
}

json_t *stg_eval_num(double v) { return isnan(v) ? json_null() : json_real(v); }
