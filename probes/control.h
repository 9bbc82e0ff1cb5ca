/* probes/control.h — token-level probes with control tasks (Hewitt & Liang 2019;
 * docs/spec/models.md M5): UPOS and dependency-relation labels of each word, the control label of
 * each word type, and selectivity = task accuracy - control accuracy.
 *
 * HOW IT WORKS.
 *   word type    the FORM string exactly as stored (case-sensitive, PTB escapes kept).
 *   labels       the label set is the set of gold labels of the training tokens, in byte order
 *                l_1 < ... < l_K, with cumulative counts C_k and N = C_K training tokens.
 *   control      types in order of first occurrence (train, then dev, then test, word by word);
 *   (M5.2)       for each, t = below(N) from one SplitMix64 stream seeded with control_seed;
 *                its control label is l_k for the smallest k with t < C_k. Every token of every
 *                split gets its type's label; dev/test-only types have one too (M5.3, D9).
 *   probe        the classifier of classifier.h (logistic regression or MLP, SentEval's fit with
 *   (M5.4)       early stopping on each task's own dev labels), trained twice with the same
 *                configuration and seed: on the gold labels and on the control labels.
 *   accuracy     correct test tokens / test tokens (punctuation included); acc_oov on the test
 *                tokens whose type does not occur in training. A dev/test gold label absent
 *                from training has no class and always counts as wrong. A no-punctuation
 *                variant is reported next to it when the test split carries a mask.
 *   selectivity  acc_task - acc_control, in percentage points.
 *
 * Token vectors come in as one float32 matrix, rows = the training tokens, then dev, then test,
 * in corpus order, one layer (how they were produced does not matter here). */
#ifndef PRB_CONTROL_H
#define PRB_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "common/sp.h"
#include "common/strmap.h"
#include "ingest/sentence.h"
#include "probes/classifier.h"

enum prb_tok_task {
    PRB_TASK_UPOS = 0,        /* UPOS (column 4); the XPOS tag where UPOS is "_" (PTB input) */
    PRB_TASK_DEPREL,          /* DEPREL of the word's own arc (column 8, root included) */
};
int prb_tok_task_parse(const char *name, enum prb_tok_task *out);   /* "upos" | "deprel" */

/* The label of word i of s for task t; strip_subtype cuts a DEPREL at its first ':'
 * (nmod:poss -> nmod). The string lives in s or in a. */
const char *prb_tok_label(struct sp_arena *a, const struct sp_sentence *s, int i, enum prb_tok_task t,
                          int strip_subtype);

/* One split's tokens, in corpus order. */
struct prb_tok_split {
    int n;
    const char *const *form;  /* [n] word types */
    const char *const *label; /* [n] gold labels */
    const uint8_t *punct;     /* [n] 1 = punctuation, for the no-punctuation accuracies; NULL = none */
};

struct prb_control {
    int n_labels;
    const char **label;       /* [n_labels] training labels in byte order */
    long *cum;                /* [n_labels] cumulative training counts C_k */
    int n_types;
    const char **type;        /* [n_types] types in first-occurrence order */
    int *type_label;          /* [n_types] control label id (index into label) */
    uint8_t *type_in_train;   /* [n_types] 1 if the type occurs in the training split */
    struct sp_strmap label_ids, type_ids;   /* value = id + 1 */
    struct sp_arena arena;
};

/* Build labels and control labels from the three splits (dev or test may have n = 0).
 * 0, or -1 with a message (empty training split, a NULL label naming split and token). */
int  prb_control_build(struct prb_control *c, const struct prb_tok_split *train, const struct prb_tok_split *dev,
                       const struct prb_tok_split *test, uint64_t control_seed, char *err, size_t errlen);
void prb_control_free(struct prb_control *c);

int prb_control_label_id(const struct prb_control *c, const char *label);   /* -1: not a training label */
int prb_control_type_id(const struct prb_control *c, const char *form);     /* -1: unknown type */
/* The control label id of a form (-1 for a type the build never saw). */
int prb_control_of(const struct prb_control *c, const char *form);

/* Task and control label ids of a split's tokens: task[i] (-1 when the gold label is not a
 * training label), control[i]; either output may be NULL. */
void prb_control_ids(const struct prb_control *c, const struct prb_tok_split *s, int *task, int *control);

/* Percent of tokens with pred == gold among those with mask[i] != 0 (mask NULL = all);
 * NaN for none. */
double prb_label_accuracy(int n, const int *gold, const int *pred, const uint8_t *mask);

struct prb_tokprobe_result {
    double acc_task, acc_control;           /* percent, test split */
    double acc_oov_task, acc_oov_control;   /* percent, test tokens of types unseen in training (NaN if none) */
    double selectivity;                     /* acc_task - acc_control, points */
    double acc_np_task, acc_np_control;     /* percent, test tokens that are not punctuation
                                               (test->punct; NaN without a mask or such tokens) */
    double dev_task, dev_control;           /* best dev accuracy (percent) of each fit */
    long n_test, n_oov;
    int n_labels;
    struct prb_fit_info fit_task, fit_control;
    uint8_t *test_correct;                  /* [n_test] 1: the task probe labelled test token i right (the
                                               report's interval); the caller frees it */
};

/* Train the probe on X rows [0, train->n) with gold labels and with control labels (same cfg,
 * same seed), select on dev rows [train->n, +dev->n), score on test rows after them.
 * Token i (train, then dev, then test) has its vector in row xrow[i] of X (d floats a row), or in
 * row i when xrow is NULL: a caller's array of every word's vector serves as it is, without a
 * gathered copy. Needs a non-empty dev split. 0, or -1 with a message. */
int prb_tokprobe_run(const float *X, const int *xrow, int d, const struct prb_tok_split *train, const struct prb_tok_split *dev,
                     const struct prb_tok_split *test, const struct prb_train_cfg *cfg, uint64_t control_seed,
                     struct prb_tokprobe_result *r, char *err, size_t errlen);

#endif
