/* stages/names.c — messages for names the store does not hold (stages/names.h). */
#include <string.h>

#include "common/opt.h"
#include "stages/names.h"
#include "stages/stage.h"

static const char *const kind_word[] = { "corpus", "task", "run" };

static int list(struct st_db *db, enum stg_name_kind kind, struct st_names *n, char *err, size_t errlen)
{
    if (kind == STG_NAME_CORPUS) return st_corpus_names(db, n, err, errlen);
    if (kind == STG_NAME_TASK) return st_task_names(db, n, err, errlen);
    return st_run_names(db, n, err, errlen);
}

static void format_msg(const struct st_names *n, const char *db_path, enum stg_name_kind kind, const char *name,
                       char *err, size_t errlen)
{
    char sugg[256], all[256];
    sp_suggest(sugg, sizeof sugg, name, (const char *const *)n->v, (size_t)n->n);
    sp_join_names(all, sizeof all, (const char *const *)n->v, (size_t)n->n, 20);
    if (!n->n)
        snprintf(err, errlen, "no such %s '%s' in %s; the store has no %s yet", kind_word[kind], name, db_path,
                 kind == STG_NAME_CORPUS ? "corpus" : kind == STG_NAME_TASK ? "task" : "run");
    else
        snprintf(err, errlen, "no such %s '%s' in %s; %s%sthe store has: %s", kind_word[kind], name, db_path, sugg,
                 sugg[0] ? " " : "", all);
}

int stg_check_name(struct st_db *db, const char *db_path, enum stg_name_kind kind, const char *name, int *found,
                   char *err, size_t errlen)
{
    struct st_names n;
    *found = 0;
    int rc = list(db, kind, &n, err, errlen);
    if (rc != SP_OK) return rc;
    for (int i = 0; i < n.n && !*found; i++) *found = !strcmp(n.v[i], name);
    if (!*found) format_msg(&n, db_path, kind, name, err, errlen);
    st_names_free(&n);
    return SP_OK;
}

int stg_no_such(struct st_db *db, const char *db_path, enum stg_name_kind kind, const char *name,
                char *err, size_t errlen)
{
    int found;
    int rc = stg_check_name(db, db_path, kind, name, &found, err, errlen);
    if (rc != SP_OK) return rc;
    if (found) snprintf(err, errlen, "%s '%s' in %s could not be read", kind_word[kind], name, db_path);
    return SP_EPARSE;
}

int stg_open_store(struct stg_ctx *ctx, const char *path, unsigned flags, struct st_db **db)
{
    int rc = st_open(path, flags, db, ctx->err, sizeof ctx->err);
    return rc == SP_EUSAGE ? SP_ESTORE : rc;
}

int stg_corpus_id(struct stg_ctx *ctx, struct st_db *db, const char *db_path, const char *name, int64_t *id)
{
    *id = 0;
    int rc = st_corpus_id(db, name, 0, id, ctx->err, sizeof ctx->err);
    if (rc == SP_EUSAGE || (rc == SP_OK && !*id)) return stg_no_such(db, db_path, STG_NAME_CORPUS, name, ctx->err, sizeof ctx->err);
    return rc;
}
