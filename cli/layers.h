/* cli/layers.h — `--layer L|all` of probe, structprobe and tokprobe: with --run NAME encoded by
 * `encode --layers`, the command runs its stage on each layer's run (NAME-L<k>[-INPUT], found by
 * stages/layers.h) and prints one row per layer (--json: an array, each object with "layer"). */
#ifndef SP_CLI_LAYERS_H
#define SP_CLI_LAYERS_H

#include "common/opt.h"

struct cli_layer { const char *layer; };   /* NULL: no --layer */
extern const struct sp_opt cli_layer_option[];

#endif
