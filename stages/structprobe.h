/* stages/structprobe.h — the structural-probe stage: UUAS, DSpr, root accuracy and NSpr
 * (docs/spec/probing.md §3.6) of the LINEAR baseline or of predictions read from .npy files, against
 * the gold dependency trees of a corpus.
 *
 * Prediction files (numpy, float32, float64 or int32, C order), rows in corpus order:
 *   distances D.npy   shape (n_sentences, L, L): sentence k uses D[k, :n_k, :n_k]
 *                     (predicted squared distances, row i = word i), L >= the longest n_k
 *   depths P.npy      shape (n_sentences, L): sentence k uses P[k, :n_k]
 * n_k are the corpus's sentence lengths (words only: no multiword ranges, no empty nodes);
 * padding cells are ignored. Either file alone gives only its two metrics (the other two are
 * NaN, null in JSON). With --db --corpus the figures are stored as a tree_eval row (method
 * "structprobe:linear" or "structprobe:distances=D.npy,depths=P.npy") unless no_save.
 *
 * Trained (--run R, with --db --corpus): the distance and depth probes of Hewitt & Manning
 * (docs/spec/models.md M4) trained on the token vectors of R, a run of the same corpus encoded with
 * --token-vectors, on the corpus's train partition (checkpoint on dev), scored on test; method
 * "structprobe:trained:run=R". The partitions are the corpus's recorded train/dev/test split, or
 * a seeded 80/10/10 split of its sentences (--probe-seed), as the manifest says. */
#ifndef SP_STG_STRUCTPROBE_H
#define SP_STG_STRUCTPROBE_H

#include <stdint.h>

#include "probes/structprobe_metrics.h"
#include "stages/stage.h"

struct json_t;

struct stg_structprobe_opts {
    const char *db, *corpus;       /* gold trees from a store ... */
    struct sp_strlist conllu, dp;  /* ... or from CoNLL-U / 3-column files and folders */
    const char *baseline;          /* "linear", or NULL */
    const char *distances, *depths;
    const char *run;               /* trained probes on this run's token vectors, or NULL */
    long rank, probe_seed, max_epochs;
    long threads;                  /* --run: the training's threads (results do not depend on it) */
    int punct;                     /* enum prb_punct */
    int no_save;
    struct sp_strlist command;     /* not in the table: the words that ran it, for the manifest */
};
extern const struct sp_opt stg_structprobe_options[];

struct stg_structprobe_result {
    struct prb_sp_result res;
    struct prb_sp_result linear;   /* --run: the linear baseline on the same test sentences */
    int have_linear;
    long n_total, n_skipped, n_no_tree;
    long n_rejected;               /* files: sentences the reader rejected (not in n_total: they have no ordinal) */
    struct json_t *json;           /* {"uuas", "dspr", "root_acc", "nspr", "n_sentences"} (--run: and "linear_baseline",
                                    * the same figures of the linear baseline on the same test sentences); NULL on failure */
    int64_t eval_id;               /* the stored row; 0 when not stored */
    char method[2200];
};

/* SP_OK; SP_EUSAGE for contradicting options; SP_EPARSE / SP_EIO for bad input (an unknown
 * corpus, a corpus without dependency trees, predictions that do not fit or are not finite);
 * SP_ESTORE; SP_ESTOPPED between sentences. */
int stg_structprobe(struct stg_ctx *ctx, const struct stg_structprobe_opts *o, struct stg_structprobe_result *r);
/* The rules stg_structprobe checks its options against before it reads anything (options that go together
 * or exclude each other; the baseline's name): SP_EUSAGE with ctx->err, or SP_OK. A job file's steps are checked
 * with it when the job is loaded, so `run --check` refuses what the run would. */
int stg_structprobe_check(struct stg_ctx *ctx, const struct stg_structprobe_opts *o);

void stg_structprobe_result_free(struct stg_structprobe_result *r);

#endif
