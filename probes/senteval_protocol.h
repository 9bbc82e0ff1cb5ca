/* probes/senteval_protocol.h — the SentEval probing protocol on arrays (docs/spec/probing.md §1.2, §1.4–§1.10).
 *
 * Input is plain arrays: X (n × d float32, row-major), class ids y and a split per row. Where
 * they came from (a task file + .npy, or the store) is the caller's business.
 *
 * Protocol (one task):
 *   for every (nhid, dropout) cell of the outer grid (MLP only, A2; logreg has one cell):
 *     for every l2 of the grid in increasing order: new classifier with the task seed, fit on
 *     train with early stopping on dev, score round(100·dev, 2);
 *     the cell's l2 = first maximum of the rounded scores (§1.5);
 *   the chosen cell = first maximum of the cells' rounded dev scores;
 *   test accuracy = the selected model (kept from selection: deterministic arithmetic makes the
 *   re-fit of §1.5 identical).
 * Baselines: majority class of train (ties: smallest class id) on dev and test; and a control
 * task: the labels shuffled within each partition with a recorded seed, trained with the chosen
 * hyper-parameters (one fit, no grid), selectivity = test − control test.
 * Reported: dev/test accuracy, the grid, per-class precision/recall/F1 and the confusion matrix
 * on test (on dev when there is no test partition). */
#ifndef PRB_SENTEVAL_H
#define PRB_SENTEVAL_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "common/log.h"
#include "probes/classifier.h"

enum { PRB_SPLIT_TRAIN = 0, PRB_SPLIT_DEV = 1, PRB_SPLIT_TEST = 2 };

struct prb_dataset {
    int n, d, k;
    const float *X;                      /* n × d */
    const int *y;                        /* n, 0 .. k-1 */
    const unsigned char *split;          /* n, PRB_SPLIT_* */
    const char *const *class_names;      /* k, or NULL */
    const char *task;                    /* for messages and the WC special case; may be NULL */
};

/* §1.2: class ids from label strings. Distinct train labels sorted byte-wise -> 0..k-1.
 * y_out[n]; *names_out is a malloc'd array of k pointers into labels[] (free() it).
 * A dev/test label absent from train is an error naming the label and its row (0-based). */
int prb_label_map(int n, const char *const *labels, const unsigned char *split, int *y_out,
                  int *k_out, const char ***names_out, int *bad_row, char *err, size_t errlen);

#define PRB_MAX_GRID 16

enum prb_clf_kind { PRB_LOGREG = 0, PRB_MLP };

struct prb_protocol {
    const char *preset;                  /* "senteval-default" | "senteval-fast" | custom label */
    enum prb_clf_kind classifier;
    struct prb_train_cfg train;          /* batch, tenacity, epoch_size, max_epoch, optim, seed, threads */
    int n_l2;
    double l2[PRB_MAX_GRID];
    int n_nhid;
    int nhid[PRB_MAX_GRID];
    int n_dropout;
    double dropout[PRB_MAX_GRID];
    int control;                         /* run the control task */
    uint64_t control_seed;
    const struct sp_logger *log;         /* progress lines (INFO); NULL: none */
};

/* Presets of §1.9: "senteval-default" (adam, batch 64, tenacity 5, epoch_size 4, max_epoch 200)
 * and "senteval-fast" (rmsprop, batch 128, tenacity 3, epoch_size 2, max_epoch 200). Both: l2 grid
 * 1e-5..1e-2, MLP grid nhid {50,100,200} × dropout {0,0.1,0.2}, seed 1111, control on with seed
 * = seed. 0 ok, -1 unknown name. */
int prb_protocol_preset(struct prb_protocol *p, const char *name, enum prb_clf_kind kind);
/* p as the probe stage's manifest records it: name, preset, classifier, optimiser, the grids,
 * seeds, control, threads (a new JSON object). */
struct json_t;
struct json_t *prb_protocol_json(const struct prb_protocol *p);

struct prb_fit_rec {                     /* one fit of the grid */
    int nhid;
    double dropout, l2;
    double dev;                          /* round(100·dev, 2) */
    struct prb_fit_info info;
    double seconds;
};

struct prb_class_metrics { long support, predicted, correct; double precision, recall, f1; };

struct prb_result {
    const char *task;                    /* the dataset's name, borrowed from it ("" for bare arrays) */
    int n_train, n_dev, n_test, d, k;
    const char *const *class_names;      /* borrowed from the dataset */
    char preset[64];
    enum prb_clf_kind classifier;
    int wc_forced_logreg;                /* §1.6 */
    uint64_t seed;
    int threads;
    struct prb_train_cfg train;          /* the settings used (l2/nhid/dropout = chosen) */
    /* chosen */
    int nhid;
    double dropout, l2;
    double devacc, testacc;              /* percent, 2 decimals; testacc NAN without a test split */
    double dev_exact, test_exact;        /* fractions */
    struct prb_fit_info fit;             /* of the chosen model */
    int n_fits;
    struct prb_fit_rec *fits;
    /* baselines */
    int majority_class;
    double majority_dev, majority_test;  /* percent */
    int control;
    uint64_t control_seed;
    double control_dev, control_test, selectivity; /* percent */
    /* metrics on the evaluation split (test, or dev when there is no test) */
    const char *metrics_split;           /* "test" | "dev" */
    struct prb_class_metrics *per_class; /* k */
    double macro_f1;
    long *confusion;                     /* k × k, row = gold, column = predicted */
    /* per item of the evaluation split, for bootstrap intervals over items (docs/spec/models.md M7.3):
     * its dataset row and whether the prediction was right ('1') or not ('0') */
    int n_eval;
    int *eval_rows;                      /* n_eval, increasing */
    char *eval_correct;                  /* n_eval characters + NUL */
    double seconds;
    long example_passes;                 /* training rows × passes, summed over every fit */
};

/* Whether a task with ntr training and ndv dev items can be probed: the protocol trains on train and
 * chooses its model on dev, so it needs both. 0 when it can; else 1 with why ("the protocol needs
 * training and dev instances (have 28 train, 0 dev)"), the words prb_senteval_run refuses with. A
 * job skips such a task's probes with these words (daemon/run.c) instead of failing after the
 * encodes. */
int prb_senteval_unfit(long ntr, long ndv, char *why, size_t whylen);

int prb_senteval_run(const struct prb_dataset *ds, const struct prb_protocol *p, struct prb_result *r,
                     char *err, size_t errlen);
void prb_result_free(struct prb_result *r);

/* round(100·acc, 2) the way Python's round() does it (correctly rounded, ties to even) */
double prb_round_pct(double acc);
/* first index of the maximum (ties -> first) */
int prb_select_first_max(const double *v, int n);

json_t *prb_result_json(const struct prb_result *r);        /* new reference */
void prb_result_print(FILE *f, const struct prb_result *r);

#endif
