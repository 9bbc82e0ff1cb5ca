/* stages/export_encoded.h — an encoder run's cached outputs as NumPy files (the part of
 * `synprobe export` for --what vectors|tokens|attention).
 *
 * Rows are the run's items in ordinal order: corpus order for corpus runs, task file order for
 * task runs. Sentences the encode skipped have no row (a warning says how many).
 *   vectors    float32 (n_items, dim)
 *   tokens     float32 (total_tokens, tok_dim): the items' token vectors one after the other,
 *              plus FILE.lengths.npy (FILE without its .npy) int32 (n_items,) with each item's
 *              token count. Flat rather than padded (n, L, d): a padded array grows with the
 *              longest sentence (PTB: ~6x the data at d = 512); numpy gets per-sentence blocks
 *              with np.split(tok, np.cumsum(lengths)[:-1]).
 *   attention  float32 (n_items, L, L), L = the longest item, zero-padded: the layout
 *              `synprobe trees --attention` reads (row = query word, column = key); with heads
 *              (encode --heads) float32 (n_items, H, L, L), each head's map.
 * With several layer runs (export --layers) the layer axis comes second: vectors (n_items, layers,
 * dim), tokens (total_tokens, layers, tok_dim); [:, i, :] is what the i-th run alone gives.
 * Files are written as a stream (two passes over the run: sizes, then data), so memory stays at
 * one item whatever the run's size; the header is numpy.save's (version 1.0, 64-byte aligned).
 * Both files go to temporaries renamed into place only once both are complete. */
#ifndef SP_STG_EXPORT_ENCODED_H
#define SP_STG_EXPORT_ENCODED_H

#include <stddef.h>

#include "stages/stage.h"

enum stg_export_what { STG_EXPORT_VECTORS, STG_EXPORT_TOKENS, STG_EXPORT_ATTENTION };

struct stg_export_encoded_opts {
    const char *db;
    const char *run;
    const char *corpus;     /* NULL: not checked; else the run must encode this corpus */
    const char *out;        /* FILE.npy */
    int what;               /* enum stg_export_what */
    int heads;              /* attention: per head, (n_items, heads, L, L) (encode --heads) */
    /* several runs, one per layer (export --layers; run is then unused): vectors (n_items, layers,
     * dim), tokens (total_tokens, layers, tok_dim) with one lengths file; every run must hold the
     * same items (ordinals, inputs, token counts), as the layer runs of one encode --layers do */
    int n_layer_runs;
    const char *const *layer_runs;
};

struct stg_export_encoded_result {
    size_t rows;            /* items written */
    char *lengths_path;     /* tokens: the second file written; malloc'd, else NULL */
};

/* SP_OK; SP_EUSAGE (no run or out); SP_EPARSE (unknown run, another corpus, no token vectors or
 * attention in the run, no items); SP_EIO; SP_ESTORE. */
int stg_export_encoded(struct stg_ctx *ctx, const struct stg_export_encoded_opts *o, struct stg_export_encoded_result *r);
/* The same for o->layer_runs[0..n_layer_runs) (vectors or tokens; attention is SP_EUSAGE); SP_EPARSE
 * also for runs whose items differ. */
int stg_export_encoded_layers(struct stg_ctx *ctx, const struct stg_export_encoded_opts *o, struct stg_export_encoded_result *r);
void stg_export_encoded_result_free(struct stg_export_encoded_result *r);

#endif
