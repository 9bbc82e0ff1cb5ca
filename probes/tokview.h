/* probes/tokview.h — a corpus's words as the rows of one matrix, grouped by sentence, and what
 * the word-level probes read of them: a labelled task's classes and partitions, the
 * logistic-regression probe's test accuracy (docs/spec/probing.md §1.4), its test items for the
 * report's interval, and the trained distance probe's test UUAS (docs/spec/models.md M4). The
 * erase stage runs them before, after and under the random control on the same rows. */
#ifndef PRB_TOKVIEW_H
#define PRB_TOKVIEW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/classifier.h"

struct prb_tokview {
    int n_sent;
    const long *first;               /* [n_sent + 1] each sentence's first row */
    const int *len;                  /* [n_sent] its words */
    long n_tok;
    const int *head;                 /* [n_tok] 0-based head within the sentence, -1 the root */
    const uint8_t *punct;            /* [n_tok] 1: punctuation (H&M's XPOS list) */
    const uint8_t *tree;             /* [n_sent] 1: the sentence has one dependency tree */
    int d;                           /* the width of a row */
};

/* One token task's data: class ids of every word (-1: none), the classes in byte order, and the
 * rows (word indexes) of each partition (spart[s]: 0 train, 1 dev, 2 test, -1 none) that have a
 * label. */
struct prb_toktask {
    int k;
    const char **cls;                /* point into the labels given */
    int *y;                          /* [n_tok] */
    int *rows[3];
    int n[3];
    double majority;                 /* percent of test words with the most frequent training label */
    int major;                       /* that class */
};
void prb_toktask_build(const struct prb_tokview *v, const int *spart, const char **lab, struct prb_toktask *t);
void prb_toktask_free(struct prb_toktask *t);
/* The probe trained on the train rows of X, early-stopped on dev: test accuracy in percent (NaN
 * when a partition is empty or there is one class); *dev: the best dev accuracy in percent;
 * correct (may be NULL; [t->n[2]]): 1 where the probe labelled test row i right. */
double prb_toktask_probe(const float *X, int d, const struct prb_toktask *t, const struct prb_train_cfg *cfg, double *dev,
                         uint8_t *correct);
/* The test items as tokprobe gives them: one per test sentence in corpus order, its words and how
 * many the probe got right (a new JSON object) */
json_t *prb_toktask_test_items(const struct prb_tokview *v, const int *spart, const struct prb_toktask *t,
                               const uint8_t *correct);
/* Test UUAS (percent) of the distance probe trained on the train sentences with one tree,
 * checkpointed on dev, over rows X; NaN when a partition has no tree, or training fails (err says
 * why; empty otherwise). */
double prb_tokview_uuas(const struct prb_tokview *v, const int *spart, const float *X, uint64_t seed, int threads,
                        char *err, size_t errlen);

#endif
