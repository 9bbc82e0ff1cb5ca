/* stages/layers.h — layer runs, in one place. `encode --layers` (and a job encoder's "layers")
 * keeps several bert layers of one forward pass, each stored as a run of its own: NAME-L<k>, or
 * NAME-L<k>-INPUT when the pass covers several inputs; a NAME with {layer} (encode --run
 * "m-L{layer}-Tense", the form job steps use) names the runs itself, k in every {layer}'s place.
 * Layer 0 is the embeddings. This module owns:
 *   - the spec "all|K,K,..." and its checks (stg_layer_spec, stg_layer_add),
 *   - the run names (stg_layer_pattern, stg_layer_run_name; back: stg_layer_of_run, for report),
 *   - a bert config's layer count, for a job's "layers": "all" at --check time (stg_layer_count),
 *   - the layer runs a store has (stg_layer_runs) and the loop of a stage over them
 *     (stg_layers_each), which probe, structprobe, tokprobe, trees and export use,
 *   - the --layer L|all option of those commands (stg_layer_options). */
#ifndef SP_STG_LAYERS_H
#define SP_STG_LAYERS_H

#include <jansson.h>

#include "encoder/encoder.h"
#include "stages/stage.h"

#define STG_MAX_LAYER_RUNS (ENC_MAX_LAYERS + 1)     /* layers 0..ENC_MAX_LAYERS */

/* --layer L|all of probe, structprobe, tokprobe and trees (cli/layer_loop.h runs it) */
struct stg_layer_opt { const char *layer; };     /* NULL: no --layer */
extern const struct sp_opt stg_layer_options[];

/* ---- the spec ---- */

struct stg_layer_list {
    int all;                       /* the spec was "all" */
    int n;
    int k[STG_MAX_LAYER_RUNS];     /* in the spec's order; "all": 0..max */
};

/* Parse spec, "all" or "K,K,..." (decimal digits, no signs or spaces), into l. opt names the
 * option in messages ("--layers", "encoders[0].layers"); max is the last layer (a model's layer
 * count, or ENC_MAX_LAYERS when no model is at hand); model, when not NULL, names the model whose
 * layers 0..max these are. SP_OK, or SP_EUSAGE with err: "OPT: expected all or layer numbers
 * K,K,... (0 = embeddings), got 'SPEC'", a layer out of range, a layer named twice. */
int stg_layer_spec(const char *opt, const char *spec, int max, const char *model, struct stg_layer_list *l, char *err,
                   size_t errlen);

/* Add layer k to l with the checks stg_layer_spec gives each layer (range, named twice): for lists
 * that are not strings (a job's "layers": [0, 3]). SP_OK or SP_EUSAGE with err. */
int stg_layer_add(struct stg_layer_list *l, long long k, int max, const char *opt, const char *model, char *err,
                  size_t errlen);

/* The last layer (the hidden-layer count) of the bert model an encoder config file names, read
 * from the model's config.json without loading its weights: SP_OK with *last, or -1 and *kind
 * (the config's kind) when it is not a bert config; else the loader's code with err. */
int stg_layer_count(const char *encoder_config, int *last, const char **kind, char *err, size_t errlen);

/* ---- the names ---- */

/* The run-name pattern of name (malloc'd): name itself when it has {layer}, else NAME-L{layer}. */
char *stg_layer_pattern(const char *name);

/* The run of layer k (malloc'd): every {layer} of name's pattern replaced by k, then -INPUT when
 * input is not NULL. stg_layer_run_name("m", 3, NULL) = "m-L3"; ("m", 3, "Tense") = "m-L3-Tense";
 * ("x-{layer}-y", 3, NULL) = "x-3-y". */
char *stg_layer_run_name(const char *name, int k, const char *input);

/* The layer of a run named NAME-L<k> (the name stg_layer_run_name gives layer k of NAME for one
 * input): k, with NAME in base; -1, with the whole name in base, for a run that is no layer run. */
int stg_layer_of_run(const char *run, char *base, size_t n);

/* ---- the runs of a store ---- */

struct stg_layer_runs {
    int n;
    int layer[STG_MAX_LAYER_RUNS];     /* ascending */
    char *run[STG_MAX_LAYER_RUNS];     /* owned */
    int attn_layer[STG_MAX_LAYER_RUNS];/* the run's cached attention layer, -1: none */
};

/* The runs of name's layers in spec ("all": every layer the store has; "K" or "K,K,...": those,
 * each required) over input (a task or corpus name: NAME-L<k>-INPUT is preferred to NAME-L<k>;
 * NULL: NAME-L<k> only). A name with {layer} names the runs itself (input is not appended).
 * opt names the spec's option in messages ("--layer", "--layers"). SP_OK; SP_EUSAGE for a bad
 * spec; SP_EPARSE naming what is missing ("run 'R' has no layer runs ..." / "no run 'R-L3' ...");
 * SP_ESTORE. stg_layer_runs_free always. */
int stg_layer_runs(struct stg_ctx *ctx, const char *db_path, const char *opt, const char *name, const char *spec,
                   const char *input, struct stg_layer_runs *out);
void stg_layer_runs_free(struct stg_layer_runs *l);

/* One layer run, as the loop hands it to a stage. */
struct stg_layer_run {
    int layer;
    const char *run;
    int attn_layer;                /* its cached attention layer, -1: none */
    const char *input;             /* the input the runs were looked up for (NULL: none) */
};

/* A stage on one layer run: SP_OK or the stage's code (ctx->err set); it may append its result
 * objects to rows. With workers > 1 (below) it runs beside the stages of other layers and must
 * call stg_turn_take(ctx) before it writes to the store, prints, or touches rows (the stage's
 * save does; a function that prints takes it again, at no cost), and stop when that fails. */
typedef int (*stg_layer_fn)(struct stg_ctx *ctx, const struct stg_layer_run *l, json_t *rows, void *arg);

/* fn once per layer run of name (found as stg_layer_runs finds them, opt "--layer"), layer by
 * layer, until one fails; every object fn appends to rows gets "layer": k and "run": the layer
 * run's name. SP_OK or the first failure's code. workers > 1: that many layers at a time, each
 * fn on a thread and a copy of ctx of its own (no progress reports), the store's rows, the
 * printed lines and rows still in layer order (stg_turn_take); for the stages whose work is
 * training, where one layer's models leave cores idle while the last of them finishes. A layer
 * after a failed one writes nothing. */
int stg_layers_each(struct stg_ctx *ctx, const char *db_path, const char *name, const char *spec, const char *input,
                    stg_layer_fn fn, void *arg, json_t *rows, int workers);

#endif
