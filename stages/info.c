/* stages/info.c — the store summary (stages/info.h). Read-only: nothing is written. */
#include <string.h>

#include "stages/info.h"
#include "stages/names.h"

const struct sp_opt stg_info_options[] = {
#define O(f) offsetof(struct stg_info_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store", .flags = SP_OPTF_REQUIRED },
    { "corpus", SP_OPT_STR, O(corpus), .metavar = "NAME", .help = "only this corpus (default: every corpus, then "
      "the tasks, encoder runs and results)" },
#undef O
    { 0 },
};

int stg_info(struct stg_ctx *ctx, const struct stg_info_opts *o, struct st_info *r)
{
    memset(r, 0, sizeof *r);
    if (!o->db) return stg_fail(ctx, SP_EUSAGE, "--db is required");
    struct st_db *db = NULL;
    int rc = stg_open_store(ctx, o->db, ST_OPEN_READONLY, &db);
    if (rc == SP_OK) rc = st_info_summary(db, o->corpus, !o->corpus, r, ctx->err, sizeof ctx->err);
    if (rc == SP_OK && !r->n_corpora) {
        rc = o->corpus ? stg_no_such(ctx, db, o->db, STG_NAME_CORPUS, o->corpus)
                       : stg_fail(ctx, SP_EPARSE, "%s: no corpus yet", o->db);
        st_info_free(r);
    }
    st_close(db);
    return rc;
}
