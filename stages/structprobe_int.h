/* stages/structprobe_int.h — inside the structural-probe stage: the trained mode
 * (stages/structprobe_run.c), called by stages/structprobe.c with the store and corpus open. */
#ifndef SP_STG_STRUCTPROBE_INT_H
#define SP_STG_STRUCTPROBE_INT_H

#include <jansson.h>
#include <stdint.h>

#include "stages/structprobe.h"
#include "store/store.h"

/* Train the distance and depth probes on o->run's token vectors and score them on the test
 * partition into r->res (n_total, n_skipped too); *train_info: partitions and each probe's
 * training (a new reference). SP_EPARSE with ctx->err for a run that does not fit. */
int stg_structprobe_trained(struct stg_ctx *ctx, const struct stg_structprobe_opts *o, struct st_db *db, int64_t cid,
                            struct stg_structprobe_result *r, json_t **train_info);

#endif
