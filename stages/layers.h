/* stages/layers.h — the layer runs of a name: `encode --layers` (and a job's "layers") store each
 * bert layer k of NAME as its own run, NAME-L<k> for one input or NAME-L<k>-INPUT for several;
 * probe, structprobe, tokprobe (--layer L|all) and export (--layers) find them here. */
#ifndef SP_STG_LAYERS_H
#define SP_STG_LAYERS_H

#include "stages/stage.h"

#define STG_MAX_LAYER_RUNS 65

struct stg_layer_runs {
    int n;
    int layer[STG_MAX_LAYER_RUNS];     /* ascending */
    char *run[STG_MAX_LAYER_RUNS];     /* owned */
    int attn_layer[STG_MAX_LAYER_RUNS];/* the run's cached attention layer, -1: none */
};

/* The runs of name's layers in spec ("all": every layer the store has; "K" or "K,K,...": those,
 * each required) over input (a task or corpus name: NAME-L<k>-INPUT is preferred to NAME-L<k>;
 * NULL: NAME-L<k> only). A name with {layer} (e.g. "m-L{layer}-Tense", the form encode --run and
 * job steps use) names the runs itself: the layer number in its place. SP_OK; SP_EUSAGE for a bad spec; SP_EPARSE naming what is missing
 * ("run 'R' has no layer runs ..." / "no run 'R-L3' ..."); SP_ESTORE. stg_layer_runs_free always. */
int stg_layer_runs(struct stg_ctx *ctx, const char *db_path, const char *name, const char *spec, const char *input,
                   struct stg_layer_runs *out);
void stg_layer_runs_free(struct stg_layer_runs *l);

#endif
