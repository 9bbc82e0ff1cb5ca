/* stages/trees_int.h — inside the trees stage: the dependency-tree mode (stages/trees_dep.c),
 * which stg_trees hands a run over to. */
#ifndef SP_STG_TREES_INT_H
#define SP_STG_TREES_INT_H

#include "stages/trees.h"

/* r->json {"uas", "uuas_dir", "uuas_mst", "n_sentences"}, r->method, stored unless no_save. */
int stg_trees_dep(struct stg_ctx *ctx, const struct stg_trees_opts *o, struct stg_trees_result *r);
/* The rules stg_trees_dep checks its options against before it reads anything (options that go together
 * or exclude each other): SP_EUSAGE with ctx->err, or SP_OK. A job file's steps are checked
 * with it when the job is loaded, so `run --check` refuses what the run would. */
int stg_trees_dep_check(struct stg_ctx *ctx, const struct stg_trees_opts *o);


#endif
