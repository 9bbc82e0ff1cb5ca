/* stages/trees.h — the tree-evaluation stage: binary trees from attention (or a baseline)
 * scored against the gold constituency trees of a corpus, Protocol A (EVALB, COLLINS.prm with
 * LABELED 0) and Protocol B (unsupervised-parsing span F1), docs/spec/probing.md §5.
 *
 * Attention file (numpy, float32 or float64, C order), rows in corpus order:
 *   (n_sentences, L, L)      word-level attention of one layer, heads already pooled;
 *   (n_sentences, H, L, L)   per head: the heads are averaged here.
 * Row = query word, column = key word; sentence k uses A[k, :n_k, :n_k] where n_k counts the
 * gold tree's words after -NONE- removal (punctuation included); padding is ignored. Every
 * row of the n_k x n_k block is rescaled to sum 1 before the span scores, so blocks cut out of
 * a longer padded row are handled. --run reads the same maps from an encoder run.
 * With --db --corpus the evaluation is stored (tree_eval, one row in one transaction) unless
 * no_save: method = the baseline name or "attention:<file>:<span score>", result = the figures
 * plus "manifest". A corpus without any constituency tree fails (nothing is stored), unless
 * it has dependency trees: then (or with --dependency) trees from attention are dependency
 * trees (docs/spec/models.md M6: maximum spanning arborescence, UAS/UUAS; baselines right, left,
 * adjacent, random), see stages/trees_dep.c. */
#ifndef SP_STG_TREES_H
#define SP_STG_TREES_H

#include <stdint.h>

#include "probes/tree_scoring.h"
#include "stages/stage.h"

struct json_t;

#define STG_TREES_MAX_SEEDS 5

struct stg_trees_opts {
    const char *db, *corpus;       /* gold trees from a store ... */
    struct sp_strlist mrg;         /* ... or from .mrg files and folders */
    const char *baseline;          /* right|left|random|gold, or NULL */
    const char *attention;         /* A.npy, or NULL */
    const char *run;               /* an encoder run's attention maps, or NULL */
    long seed;                     /* random: -1 = the mean over seeds 1..5 */
    int span_score;                /* enum tops_span_score */
    long evalb_max_words;          /* 0: every sentence in Protocol A */
    const char *out, *gold_out;    /* predicted / gold trees, one per line */
    int no_save;
    int dependency;                /* dependency trees (stages/trees_dep.c), also chosen for a
                                      corpus with dependency trees and no constituency trees */
    int arc;                       /* enum prb_arc_dir (probes/mst.h) */
    long head;                     /* --run / 4-D --attention: this head's map only (encode --heads); -1: heads pooled */
    struct sp_strlist command;     /* not in the table: the words that ran it, for the manifest */
};
extern const struct sp_opt stg_trees_options[];

struct stg_trees_result {
    struct prb_trees_result m;     /* the figures (random without a seed: the mean of 5 seeds) */
    int n_runs;                    /* seeds averaged */
    long n_skipped, n_no_tree, n_unencoded;
    long n_rejected;               /* --mrg: trees the reader rejected (they have no ordinal) */
    struct json_t *json;           /* {"protocol_a", "protocol_b", "n_sentences"}; NULL on failure */
    int64_t eval_id;               /* the stored row; 0 when not stored */
    char method[1200];
};

/* SP_OK; SP_EUSAGE for contradicting options; SP_EPARSE / SP_EIO for bad input (an unknown
 * corpus or run, a corpus without trees, an attention file that does not fit); SP_ESTORE;
 * SP_ESTOPPED between sentences. --out / --gold-out are renamed into place only on SP_OK. */
int stg_trees(struct stg_ctx *ctx, const struct stg_trees_opts *o, struct stg_trees_result *r);
/* The rules stg_trees checks its options against before it reads anything (options that go together
 * or exclude each other; the baseline's name: a constituency one, or a
 * dependency one where the store's corpus may have dependency trees only): SP_EUSAGE with ctx->err, or SP_OK. A job file's steps are checked
 * with it when the job is loaded, so `run --check` refuses what the run would. */
int stg_trees_check(struct stg_ctx *ctx, const struct stg_trees_opts *o);

void stg_trees_result_free(struct stg_trees_result *r);

#endif
