/* stages/known.c — unknown names with the nearest known ones and the list of what exists. */
#include <string.h>

#include "stages/known.h"
#include "store/store.h"

int stg_known_name(struct stg_ctx *ctx, struct st_db *db, const char *db_path, enum stg_known_kind kind,
                   const char *name)
{
    static const char *const word[] = { "task", "run", "corpus" };
    struct st_names names;
    int rc = kind == STG_KNOWN_TASK ? st_task_names(db, &names, ctx->err, sizeof ctx->err)
           : kind == STG_KNOWN_RUN  ? st_run_names(db, &names, ctx->err, sizeof ctx->err)
                                    : st_corpus_names(db, &names, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) return rc;
    for (int i = 0; i < names.n; i++)
        if (!strcmp(names.v[i], name)) { st_names_free(&names); return SP_OK; }
    char sugg[256], list[1024];
    sp_suggest(sugg, sizeof sugg, name, (const char *const *)names.v, (size_t)names.n);
    sp_join_names(list, sizeof list, (const char *const *)names.v, (size_t)names.n, 20);
    rc = stg_fail(ctx, SP_EPARSE, "no %s '%s' in %s; %s%sthe store has: %s", word[kind], name, db_path, sugg,
                  sugg[0] ? " " : "", names.n ? list : "none");
    st_names_free(&names);
    return rc;
}
