/* probes/online_code.h — minimum description length probing, the online code (Voita & Titov 2020,
 * "Information-Theoretic Probing with Minimum Description Length", §2.2).
 *
 * HOW IT WORKS.
 *   order        the n training items are transmitted in a given order (the caller's: synprobe
 *                shuffles them with the seed, stages/mdl.c).
 *   blocks       boundaries t_0 = 0 < t_1 <= ... <= t_11 = n at the paper's fractions of n:
 *                0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.25, 12.5, 25, 50, 100 %, t_i = floor(n * f_i)
 *                computed in integers (n * num / den). Block i (1..11) is items [t_{i-1}, t_i).
 *   first block  sent with the uniform code: |block| * log2 K bits. So is every later block whose
 *                prefix is empty (t_{i-1} = 0: a tiny n), there being nothing to train on.
 *   next blocks  a probe (the classifier of probes/classifier.h, logistic regression by default)
 *                trained on items [0, t_{i-1}), early-stopped on the dev items' cross-entropy (the
 *                code's own measure: dev accuracy stops improving long before the probabilities
 *                are sharp, cfg.select_loss), sends block i with
 *                bits = sum over its items of -log2 p(y | x), p the softmax of the probe's logits
 *                computed in double (prb_mdl_bits).
 *   warm start   the probe of block i starts from the parameters (and optimizer state) of block
 *                i-1's probe rather than from a fresh init, and its fit evaluates dev at most once
 *                per max(epoch_size, ceil(ndev / t_{i-1})) passes, so tiny prefixes do not spend
 *                their time on dev evaluations. The prefixes add up to about n, hence MDL costs
 *                about one probe fit on all of train per code (task or control).
 *   codelength   the sum of the blocks' bits; uniform = n log2 K; compression = uniform / codelength.
 *
 * Deterministic: the classifier's own guarantee (a seed gives the same bits with any thread count). */
#ifndef PRB_ONLINE_CODE_H
#define PRB_ONLINE_CODE_H

#include <stdatomic.h>
#include <stddef.h>

#include "probes/classifier.h"

#define PRB_MDL_NBLOCKS 11

/* The block ends t_1..t_11 of n items into end[PRB_MDL_NBLOCKS] (t_0 = 0 is implicit). */
void prb_mdl_bounds(long n, long *end);

/* -log2 of the softmax probability of class y among the K logits, in double. */
double prb_mdl_bits(const float *logits, int K, int y);

struct prb_mdl_block {
    long start, size;         /* items [start, start + size) of the transmission order */
    double bits;
    int uniform;              /* 1: sent with the uniform code */
    int passes, nevals;       /* the probe's fit that sent it (0 for a uniform block) */
    double dev;               /* that probe's dev accuracy (fraction); NAN for a uniform block */
    double dev_bits;          /* its mean bits per dev item (the score it was kept for); NAN for a uniform block */
};

struct prb_mdl_result {
    long n;                   /* training items */
    int k;                    /* classes */
    struct prb_mdl_block block[PRB_MDL_NBLOCKS];
    double codelength, uniform, compression;   /* bits, bits, uniform / codelength */
    long example_passes;      /* training examples processed by all the fits */
};

/* What each transmitted block's probe predicted, for checking the code (optional): block i
 * (0-based), its rows of X, their labels and logits (size x K, row-major); NULL logits for a
 * block sent with the uniform code. */
typedef void (*prb_mdl_dump_fn)(void *arg, int block, const int *rows, const int *y, long size, int K, const float *logits);

/* The online code of the items tr[0..n) (rows of X, d floats a row, in transmission order) with
 * labels y[row] in 0..k-1, the probes early-stopped on the dev rows dv[0..ndv) (their y[row]:
 * a class id, or -1 for a label no class has, left out of the dev loss, always wrong for the dev
 * accuracy). cfg: the classifier's configuration and seed. stop (NULL: none) is read before each
 * block. 0; -1 with a message; -2 when *stop was set (r incomplete). */
int prb_mdl_online(const float *X, int d, const int *y, int k, const int *tr, long n, const int *dv, int ndv,
                   const struct prb_train_cfg *cfg, const atomic_int *stop, prb_mdl_dump_fn dump, void *dump_arg,
                   struct prb_mdl_result *r, char *err, size_t errlen);

#endif
