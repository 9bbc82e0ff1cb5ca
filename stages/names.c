/* stages/names.c — messages for names the store does not hold (stages/names.h). */
#include <stdlib.h>
#include <string.h>

#include "common/opt.h"
#include "stages/names.h"
#include "stages/stage.h"
#include "store/st_jobs.h"
#include "store/st_shards.h"

static const char *const kind_word[] = { "corpus", "task", "run" };
static const char *const how_to_add[] = { "synprobe ingest", "synprobe tasks build or tasks import", "synprobe encode" };

static int list(struct st_db *db, enum stg_name_kind kind, struct st_names *n, char *err, size_t errlen)
{
    if (kind == STG_NAME_CORPUS) return st_corpus_names(db, n, err, errlen);
    if (kind == STG_NAME_TASK) return st_task_names(db, n, err, errlen);
    return st_run_names(db, n, err, errlen);
}

static int missing(struct stg_ctx *ctx, const struct st_names *n, const char *db_path, enum stg_name_kind kind,
                   const char *name)
{
    if (!n->n)
        return stg_fail(ctx, SP_EPARSE, "no %s '%s' in %s; the store has none yet (%s adds them)", kind_word[kind], name,
                        db_path, how_to_add[kind]);
    char sugg[256], all[1024];
    sp_suggest(sugg, sizeof sugg, name, (const char *const *)n->v, (size_t)n->n);
    sp_join_names(all, sizeof all, (const char *const *)n->v, (size_t)n->n, 20);
    return stg_fail(ctx, SP_EPARSE, "no %s '%s' in %s; %s%sthe store has: %s", kind_word[kind], name, db_path, sugg,
                    sugg[0] ? " " : "", all);
}

int stg_known_name(struct stg_ctx *ctx, struct st_db *db, const char *db_path, enum stg_name_kind kind, const char *name)
{
    struct st_names n;
    int rc = list(db, kind, &n, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) return rc;
    int found = 0;
    for (int i = 0; i < n.n && !found; i++) found = !strcmp(n.v[i], name);
    rc = found ? SP_OK : missing(ctx, &n, db_path, kind, name);
    st_names_free(&n);
    return rc;
}

int stg_no_such(struct stg_ctx *ctx, struct st_db *db, const char *db_path, enum stg_name_kind kind, const char *name)
{
    int rc = stg_known_name(ctx, db, db_path, kind, name);
    if (rc == SP_OK)        /* listed, yet not found where the caller looked */
        rc = stg_fail(ctx, SP_EPARSE, "%s '%s' in %s could not be read", kind_word[kind], name, db_path);
    return rc;
}

int stg_corpus_id(struct stg_ctx *ctx, struct st_db *db, const char *db_path, const char *name, int64_t *id)
{
    *id = 0;
    int rc = st_corpus_id(db, name, 0, id, ctx->err, sizeof ctx->err);
    if (rc == SP_EUSAGE || (rc == SP_OK && !*id)) return stg_no_such(ctx, db, db_path, STG_NAME_CORPUS, name);
    return rc;
}

int stg_every_shard_merged(struct stg_ctx *ctx, struct st_db *db, const char *path)
{
    int n = 0, n_missing = 0, *ks = NULL;
    int rc = st_shards_unmerged(db, &n, &ks, &n_missing, ctx->err, sizeof ctx->err);
    if (rc || !n_missing) { free(ks); return rc; }
    struct sp_buf list = { 0 };
    for (int i = 0; i < n_missing && i < 16; i++) sp_buf_printf(&list, "%s%d", i ? ", " : "", ks[i]);
    if (n_missing > 16) sp_buf_printf(&list, " and %d more", n_missing - 16);
    free(ks);
    rc = stg_fail(ctx, SP_EPARSE, "%s holds %d of %d shards (synprobe merge): shard%s %s of %d %s not merged yet; merge %s before "
                  "a step writes to it (it would see part of the corpus)", path, n - n_missing, n, n_missing == 1 ? "" : "s", list.p,
                  n, n_missing == 1 ? "is" : "are", n_missing == 1 ? "it" : "them");
    sp_buf_free(&list);
    return rc;
}

int stg_open_store(struct stg_ctx *ctx, const char *path, unsigned flags, struct st_db **db)
{
    int rc = st_open(path, flags, db, ctx->err, sizeof ctx->err);
    if (rc == SP_OK) st_set_job_step(*db, ctx->job_step);
    if (rc == SP_OK && !(flags & ST_OPEN_READONLY) && (rc = stg_every_shard_merged(ctx, *db, path))) {
        st_close(*db);
        *db = NULL;
    }
    return rc == SP_EUSAGE ? SP_ESTORE : rc;
}
