/* cli/layers.c — the --layer option of the probing commands (see layers.h). */
#include <stddef.h>

#include "cli/layers.h"

const struct sp_opt cli_layer_option[] = {
    { "layer", SP_OPT_STR, offsetof(struct cli_layer, layer), .metavar = "L|all",
      .help = "with --run NAME made by encode --layers: run on each layer's run NAME-L<k> (or NAME-L<k>-INPUT), all or "
              "K,K,...; one row per layer, results stored per layer run" },
    { 0 },
};
