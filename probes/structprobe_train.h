/* probes/structprobe_train.h — trained structural probes (Hewitt & Manning 2019;
 * docs/spec/models.md M4): the distance probe and the depth probe, trained with Adam on one layer's
 * word vectors, evaluated with the metrics of structprobe.h.
 *
 * HOW IT WORKS.
 *   parameter   proj (d×k, row-major, float32); t_i = h_i·proj. k = rank (default d).
 *   distance    D^(i,j) = sum_r (t_i[r] - t_j[r])^2 (squared, compared with the tree distance)
 *   depth       δ^(i)   = sum_r t_i[r]^2             (compared with the tree depth)
 *   loss        L_s = (1/n^2) sum_{i,j} |D^ - d|, or (1/n) sum_i |δ^ - δ|; batch = mean of L_s
 *   init        proj[e] = -0.05 + 0.1·unif(), e in row-major order, SplitMix64 seeded with the
 *               probe seed; the same stream then draws every epoch's shuffle
 *   training    Adam (lr 1e-3, 0.9, 0.999, 1e-8); each epoch a Fisher-Yates permutation of the
 *               training sentences (from the identity, i = N-1..1, j = below(i+1)), batches of
 *               20, last short batch kept; after the epoch dev_sum / dev_mean; LR ×0.1 on every
 *               epoch whose dev_sum is not below best·(1-1e-4) (floor 1e-8, PyTorch's eps rule);
 *               checkpoint when dev_mean < best - 1e-4; stop at the first non-improving epoch
 *               more than 4 epochs after the checkpoint; the checkpoint is the result.
 *
 * Arithmetic (issue 26). Parameters, Adam state, t and D^ are float32; every matrix product is
 * synprobe's own (common/gemm.h: one fused multiply-add chain per element, k in order), so the
 * results are the same bits for any thread count, batch split and SP_GEMM_KERNEL. Per step:
 *   T = X·proj                 one product over the batch's words (rows)
 *   per sentence (side by side on the GEMM's threads, each writing its own rows):
 *     distance  G = T_s T_sᵀ (a product), D^(i,j) = (G_ii + G_jj) - 2 G_ij (the Gram form: exact 0 on
 *               the diagonal, exactly symmetric), fused in one pass with |D^ - d| (summed in float64
 *               in increasing (i, j) order), the signs S and A = diag(rowsum S) - S (integers);
 *               M_s = (float)(c · (A T_s)), A T_s a product, c = gscale · 4/n^2
 *     depth     δ^(i) = sum_r t_i[r]^2 (16 fixed lanes, added pairwise), M_i = (float)(c · sgn_i · t_i),
 *               c = gscale · 2/n
 *   grad = Xᵀ M                one product over the batch's words, in word order: the gradient
 *                              is one chain per entry over the batch's rows, whatever the threads
 * (dL_s/dproj = (4/n^2) Hᵀ (diag(rowsum S) - S) T for the distance, (2/n) Hᵀ diag(sgn) T for the
 * depth, with sgn(0) = 0.) The batch's losses are added in batch order after the sentences are done.
 * A training step is two parallel passes: groups of sentences (their rows of T, their losses and M),
 * then blocks of proj's rows (their rows of the gradient, Adam on them, their rows of the packed
 * proj the next step reads). The Adam step is element-wise IEEE arithmetic without contraction,
 * compiled per kernel (plain, AVX2, AVX-512) from the same C: every kernel gives the same bits.
 * Threads: the calling thread's GEMM setting (sp_gemm_set_threads; structprobe --threads). */
#ifndef PRB_STRUCTPROBE_TRAIN_H
#define PRB_STRUCTPROBE_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "common/sp.h"
#include "probes/structprobe_metrics.h"

enum prb_sprobe_kind { PRB_SPROBE_DISTANCE = 0, PRB_SPROBE_DEPTH };
int prb_sprobe_kind_parse(const char *name, enum prb_sprobe_kind *out);   /* "distance" | "depth" */

/* Sentences with their word vectors (one layer), gold heads and (for evaluation) punctuation. */
struct prb_sp_set {
    int n_sent;
    int d;
    const float *X;           /* (total words, d) row-major */
    const long *off;          /* [n_sent + 1]: sentence s is rows off[s] .. off[s+1]-1 */
    const int *head;          /* [total words]: 0-based within the sentence, -1 = root */
    const uint8_t *punct;     /* [total words], 1 = punctuation; NULL = none (evaluation only) */
};

struct prb_sp_wk;
struct prb_sprobe {
    enum prb_sprobe_kind kind;
    int d, k;
    float *proj;              /* (d, k) */
    float *grad;              /* (d, k), accumulated by prb_sprobe_sent_loss */
    float *m, *v;             /* (d, k) Adam moments */
    long step;                /* Adam steps taken */
    /* scratch, grown as needed */
    long ws_rows;             /* rows of one batch */
    float *ws_t;              /* (rows, k) projections */
    const float **ws_xr;      /* (rows) the batch's word vectors, where they lie (sp_gemm_rows reads them
                               * as X and, transposed, as the gradient's left operand) */
    float *pk_proj;           /* proj packed for the GEMM */
    float *pk_m;              /* (rows, k) the gradient factors M, written packed */
    double *ws_loss;          /* one loss per sentence of a batch */
    int ws_nb;
    int n_wk;                 /* per-worker scratch for the sentences side by side */
    struct prb_sp_wk *wk;
};

/* Allocate; draw the initial proj from rng (d·k draws). k <= 0 means k = d. 0 ok, -1 bad shape. */
int  prb_sprobe_init(struct prb_sprobe *p, enum prb_sprobe_kind kind, int d, int k, struct sp_splitmix *rng);
void prb_sprobe_free(struct prb_sprobe *p);

/* Gold targets of one sentence: distance (n×n) or depth (n). -1 if head is not one tree. */
int prb_sprobe_target(enum prb_sprobe_kind kind, int n, const int *head, float *target);

/* L_s for one sentence (n words, X (n, d)); adds gscale · dL_s/dproj into p->grad when
 * gscale != 0. NaN inputs give a NaN loss. */
double prb_sprobe_sent_loss(struct prb_sprobe *p, int n, const float *X, const float *target, double gscale);

void prb_sprobe_zero_grad(struct prb_sprobe *p);
/* One Adam step on p->grad with learning rate lr (PyTorch's Adam, no weight decay). */
void prb_sprobe_adam_step(struct prb_sprobe *p, double lr);

/* Predictions for one sentence: distance (n, n) or depth (n), float32 values as float64. */
void prb_sprobe_predict(struct prb_sprobe *p, int n, const float *X, double *out);

/* The schedule and early stopping of M4.4, fed one epoch at a time. */
struct prb_sp_regimen {
    double lr;
    double best_s;            /* scheduler's best dev_sum (+inf at start) */
    double best_m;            /* checkpoint's best dev_mean (huge at start) */
    int best_e;               /* epoch of the checkpoint, -1 before */
};
void prb_sp_regimen_init(struct prb_sp_regimen *r, double lr);
/* After epoch e (0-based): updates lr; *save = 1 when the parameters are to be saved.
 * Returns 1 when training stops now. */
int prb_sp_regimen_epoch(struct prb_sp_regimen *r, int e, double dev_sum, double dev_mean, int *save);

struct prb_sptrain_cfg {
    enum prb_sprobe_kind kind;
    int rank;                 /* k; 0 = d */
    int batch_size;           /* 20 */
    int max_epochs;           /* 40 */
    double lr;                /* 1e-3 */
    uint64_t seed;            /* probe_seed */
};
void prb_sptrain_cfg_default(struct prb_sptrain_cfg *c);   /* M4.6 defaults, distance, seed 1 */

struct prb_sptrain_info {
    int epochs;               /* epochs run */
    int best_epoch;           /* the checkpoint's epoch (0-based) */
    double best_dev_mean;
    int early_stopped;        /* 1: stopped by the rule; 0: max_epochs reached */
    long steps;
    double lr_final;
    double *train_mean;       /* [max_epochs] mean over training sentences of L_s as trained
                                 (each batch's loss before its step); NULL = not wanted */
    double *dev_mean;         /* [max_epochs]; NULL = not wanted */
};

/* Initialise p from cfg.seed and train it on train, checkpointing on dev; p holds the
 * checkpoint at the end. 0 ok; -1 with a message (bad heads naming the sentence, no epoch
 * ever saved (NaN losses), empty sets). p is initialised even on failure (free it). */
int prb_sprobe_train(struct prb_sprobe *p, const struct prb_sptrain_cfg *cfg,
                     const struct prb_sp_set *train, const struct prb_sp_set *dev,
                     struct prb_sptrain_info *info, char *err, size_t errlen);

/* Add every sentence of set to the metric accumulator with p's predictions (distance probe:
 * pred_dist, depth probe: pred_depth). 0, or -1 with a message naming the sentence. */
int prb_sprobe_eval(struct prb_sprobe *p, const struct prb_sp_set *set, struct prb_sp_acc *acc,
                    char *err, size_t errlen);

#endif
