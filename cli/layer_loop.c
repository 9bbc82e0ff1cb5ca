/* cli/layer_loop.c — the --layer runs of the probing commands (see layers.h). */
#include "cli/layer_loop.h"

int cli_layers(struct cli *c, const char *db, const char *run, const char *spec, const struct sp_strlist *inputs,
               stg_layer_fn fn, const void *opts, size_t json_flags, int workers)
{
    struct cli_layer_arg arg = { c, opts, spec };
    json_t *rows = json_array();
    int rc = SP_OK;
    for (int t = 0; rc == SP_OK && t < (inputs->n ? inputs->n : 1); t++)
        rc = stg_layers_each(&c->ctx, db, run, spec, inputs->n ? inputs->v[t] : NULL, fn, &arg, rows, workers);
    if (rc == SP_OK && c->common.json) cli_print_json(c, rows, json_flags);
    json_decref(rows);
    return cli_finish_stage(c, rc);
}
