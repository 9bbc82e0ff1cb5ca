/* cli/layer_loop.h — `--layer L|all` of probe, structprobe, tokprobe and trees: with --run NAME
 * encoded by `encode --layers`, the command runs its stage on each layer's run (NAME-L<k>[-INPUT],
 * the loop of stages/layers.h) and prints one row per layer (--json: an array, each object with
 * "layer" and "run"). The option itself is stg_layer_options (stages/layers.h). */
#ifndef SP_CLI_LAYERS_H
#define SP_CLI_LAYERS_H

#include "cli/cli.h"
#include "stages/layers.h"

/* what a command's per-layer function gets: the command, its options, the --layer spec */
struct cli_layer_arg { struct cli *c; const void *opts; const char *spec; };

/* fn on the layer runs of run in spec, for each of inputs in turn (none: once, without an input);
 * with --json the rows as one array (json_flags as cli_print_json takes them); workers > 1: that
 * many layers side by side (stg_layers_each). The exit status. */
int cli_layers(struct cli *c, const char *db, const char *run, const char *spec, const struct sp_strlist *inputs,
               stg_layer_fn fn, const void *opts, size_t json_flags, int workers);

#endif
