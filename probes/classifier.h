/* probes/classifier.h — SentEval's PyTorch probing classifier in C (docs/spec/probing.md §1.4).
 *
 * nhid = 0: logistic regression, logits = W x + b.
 * nhid > 0: MLP, h = sigmoid(dropout(W1 x + b1)), logits = W2 h + b2 (A1: sigmoid; dropout on the
 *           hidden pre-activations, inverted scaling 1/(1-p) at training time only).
 * Init = PyTorch nn.Linear default, every weight and bias ~ U(-1/sqrt(fan_in), +1/sqrt(fan_in)).
 * Loss = softmax cross-entropy, mean over the mini-batch (A3).
 * Optimizers: Adam (default; lr 1e-3, betas 0.9/0.999, eps 1e-8) and RMSprop (lr 1e-2, alpha 0.99,
 * eps 1e-8), both with coupled L2 = weight decay added to the gradient of every weight and bias
 * (A4, not AdamW); plain SGD for completeness.
 * fit(): SentEval's schedule with the never-reset non-improvement counter (A5, A6).
 *
 * Determinism. One PRNG per classifier seeded at init; it draws the initial weights, then the
 * per-pass permutations and the dropout masks, always from the calling thread. All matrix products
 * are synprobe's own (common/gemm.h: one FMA chain per element, k in order); parallel work is cut
 * into chunks whose boundaries depend only on the problem shape, never on the thread count, and
 * every reduction runs in a fixed order. So a seed gives bit-identical parameters with 1 or K
 * threads and under every SP_GEMM_KERNEL. */
#ifndef PRB_CLASSIFIER_H
#define PRB_CLASSIFIER_H

#include <stdint.h>

#include "common/sp.h"

enum prb_optim_kind { PRB_OPT_ADAM = 0, PRB_OPT_RMSPROP, PRB_OPT_SGD };

struct prb_optim {
    enum prb_optim_kind kind;
    double lr;
    double beta1, beta2;      /* Adam */
    double alpha;             /* RMSprop smoothing constant */
    double eps;
};

/* Parse SentEval's optimizer string "name" or "name,k=v,...": adam (lr, beta1, beta2, eps),
 * rmsprop (lr, alpha, eps), sgd (lr, required). 0 ok, -1 with a message in err. */
int prb_optim_parse(const char *s, struct prb_optim *out, char *err, size_t errlen);

struct prb_train_cfg {
    int nhid;                 /* 0 = logistic regression */
    double dropout;           /* MLP only, in [0, 1) */
    double l2;                /* weight decay on every parameter */
    int batch_size;           /* 64 */
    int tenacity;             /* 5 */
    int epoch_size;           /* passes per dev evaluation, 4 */
    int max_epoch;            /* 200 */
    struct prb_optim optim;
    uint64_t seed;
    int threads;              /* >= 1 */
    int select_loss;          /* 0: fit() early-stops on and keeps the best dev accuracy (SentEval); 1: the
                               * lowest dev cross-entropy (MDL probing, probes/online_code.h) */
};

/* SentEval defaults: adam, batch 64, tenacity 5, epoch_size 4, max_epoch 200, seed 1111, 1 thread. */
void prb_train_cfg_default(struct prb_train_cfg *c);

struct sp_pool;               /* worker threads (common/pool.h) */

struct prb_clf {
    int d, k, nhid;
    struct prb_train_cfg cfg;
    /* parameters, one block: logreg [W (k×d) | b (k)], MLP [W1 (h×d) | b1 (h) | W2 (k×h) | b2 (k)] */
    size_t nparam;
    float *param, *grad, *m, *v;          /* v unused by SGD; m also RMSprop's square average */
    float *W1, *b1, *W2, *b2;             /* views into param (W2, b2 NULL for logreg) */
    long step;                            /* optimizer steps taken */
    struct sp_rng rng;
    /* scratch for one batch */
    float *xb;                            /* (batch, d) gathered rows */
    float *z;                             /* (batch, h) pre-activations, then h */
    float *dz;                            /* (batch, h) */
    unsigned char *mask;                  /* (batch, h) 1 = kept */
    float *logits;                        /* (max(batch, eval chunk), k) */
    float *evbuf;                         /* (eval chunk, d) and (eval chunk, h) */
    float *pk_w1, *pk_w2;                 /* packed W1ᵀ, W2ᵀ (common/gemm.h) */
    float *lt;                            /* (k, batch) dL/dlogits transposed */
    float *dzt;                           /* (h, batch) dz transposed */
    float *wt;                            /* W1ᵀ (logreg) or W2ᵀ (MLP), zero-padded to SP_SMALL_CB (32) columns */
    struct sp_pool *pool;
    int avx512;                    /* the optimizer's loop on AVX-512 (this thread's GEMM kernel; same bits) */
};

/* Allocate and initialise (draws the initial weights from the seed). 0 ok, -1 on bad config. */
int prb_clf_init(struct prb_clf *c, int d, int k, const struct prb_train_cfg *cfg);
void prb_clf_free(struct prb_clf *c);

/* Loss and gradient (into c->grad, without L2) for the batch rows X[B×d], y[B]. Uses the
 * classifier's dropout with a mask drawn from its PRNG when train != 0 and dropout > 0.
 * Returns the mean cross-entropy. */
double prb_clf_loss_grad(struct prb_clf *c, const float *X, const int *y, int B, int train);

/* One optimizer step on a batch (gradient + coupled L2 + update); returns the batch loss. */
double prb_clf_step(struct prb_clf *c, const float *X, const int *y, int B);

/* Apply the optimizer to c->grad as it is (adds the L2 term first). */
void prb_clf_apply_grad(struct prb_clf *c);

/* Eval-mode logits for n rows given by index (rows[i] indexes X, stride d); out is n×k. */
void prb_clf_logits(struct prb_clf *c, const float *X, const int *rows, int n, float *out);

/* Argmax predictions (first index on ties) and accuracy over indexed rows. */
void prb_clf_predict(struct prb_clf *c, const float *X, const int *rows, int n, int *pred);
double prb_clf_accuracy(struct prb_clf *c, const float *X, const int *y, const int *rows, int n);

/* The early-stopping rule of §1.4 on a stream of dev accuracies. */
struct prb_stopper {
    int tenacity;
    double best;              /* -1 before the first evaluation */
    int counter;              /* non-improving evaluations, never reset (A5) */
    int nevals;
    int best_eval;            /* 1-based evaluation that set best */
    int stop;
};
void prb_stopper_init(struct prb_stopper *s, int tenacity);
/* Feed one dev accuracy; returns 1 if it improved (caller snapshots the parameters). */
int prb_stopper_update(struct prb_stopper *s, double acc);

struct prb_fit_info {
    int nevals;               /* dev evaluations run */
    int passes;               /* passes over the training set */
    int best_eval;
    double best_dev;          /* fraction; NAN with select_loss */
    double best_dev_loss;     /* select_loss: the kept parameters' mean dev cross-entropy (nats); else NAN */
    int early_stopped;        /* 1: stopped by tenacity, 0: max_epoch reached */
    long steps;
};

/* SentEval's fit(): train on rows tr[0..ntr) of X with labels y, early-stop on rows dv[0..ndv),
 * restore the best parameters. With cfg.select_loss the score is minus the mean cross-entropy of
 * the dev rows whose label is a class (y >= 0), the rest of the schedule the same. */
void prb_clf_fit(struct prb_clf *c, const float *X, const int *y, const int *tr, int ntr,
                 const int *dv, int ndv, struct prb_fit_info *info);

#endif
