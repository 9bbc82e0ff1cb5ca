/* stages/trees_int.h — inside the trees stage: the dependency-tree mode (stages/trees_dep.c),
 * which stg_trees hands a run over to. */
#ifndef SP_STG_TREES_INT_H
#define SP_STG_TREES_INT_H

#include "stages/trees.h"

/* r->json {"uas", "uuas_dir", "uuas_mst", "n_sentences"}, r->method, stored unless no_save. */
int stg_trees_dep(struct stg_ctx *ctx, const struct stg_trees_opts *o, struct stg_trees_result *r);

#endif
