/* stages/info.h — what a store holds: per corpus, and the tasks, runs and results beside them
 * (the figures come from store/st_info.h; the command prints them). */
#ifndef SP_STG_INFO_H
#define SP_STG_INFO_H

#include "stages/stage.h"
#include "store/st_info.h"

struct stg_info_opts {
    const char *db;
    const char *corpus;      /* NULL: every corpus, and the work (tasks, runs, results) */
};
extern const struct sp_opt stg_info_options[];

/* SP_OK with r->info filled; SP_EPARSE "no such corpus 'X' in DB; did you mean ...; the store has:
 * ..." or "DB: no corpus yet"; SP_ESTORE / SP_EIO when the store cannot be read. */
int stg_info(struct stg_ctx *ctx, const struct stg_info_opts *o, struct st_info *r);

#endif
