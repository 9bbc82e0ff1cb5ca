/* stages/evalsrc.c — name checks for the evaluation stages (see evalsrc.h). */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "stages/evalsrc.h"

/* "no such WHAT 'NAME' in DB; did you mean 'X'? the store has: a, b" */
static int no_such(struct stg_ctx *ctx, const char *what, const char *name, const char *db_path,
                   const struct st_names *names)
{
    char sug[256], list[1024];
    const char *const *v = (const char *const *)names->v;
    sp_suggest(sug, sizeof sug, name, v, (size_t)names->n);
    sp_join_names(list, sizeof list, v, (size_t)names->n, 20);
    return stg_fail(ctx, SP_EPARSE, "no such %s '%s' in %s; %s%sthe store has%s%s", what, name, db_path, sug,
                    sug[0] ? " " : "", names->n ? ": " : " none", names->n ? list : "");
}

/* Whether name is among the names of kind `what` (corpus / run); SP_EPARSE with the message when not. */
static int find_name(struct stg_ctx *ctx, struct st_db *db, const char *db_path, const char *what, const char *name,
                     int (*list)(struct st_db *, struct st_names *, char *, size_t))
{
    struct st_names names;
    int rc = list(db, &names, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) return rc;
    int found = 0;
    for (int i = 0; i < names.n && !found; i++) found = !strcmp(names.v[i], name);
    if (!found) rc = no_such(ctx, what, name, db_path, &names);
    st_names_free(&names);
    return rc;
}

int stg_eval_corpus_id(struct stg_ctx *ctx, struct st_db *db, const char *db_path, const char *name, int64_t *id)
{
    *id = 0;
    int rc = find_name(ctx, db, db_path, "corpus", name, st_corpus_names);
    if (rc != SP_OK) return rc;
    rc = st_corpus_id(db, name, 0, id, ctx->err, sizeof ctx->err);
    return rc == SP_EUSAGE ? SP_EPARSE : rc;
}

int stg_eval_run_exists(struct stg_ctx *ctx, struct st_db *db, const char *db_path, const char *name)
{
    return find_name(ctx, db, db_path, "run", name, st_run_names);
}

json_t *stg_eval_num(double v) { return isnan(v) ? json_null() : json_real(v); }
