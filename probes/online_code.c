/* probes/online_code.c — the online code of MDL probing (see probes/online_code.h). */
#include "probes/online_code.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the paper's fractions of the training set, as num / den */
static const long frac_num[PRB_MDL_NBLOCKS] = { 1, 2, 4, 8, 16, 32, 1, 1, 1, 1, 1 };
static const long frac_den[PRB_MDL_NBLOCKS] = { 1000, 1000, 1000, 1000, 1000, 1000, 16, 8, 4, 2, 1 };

void prb_mdl_bounds(long n, long *end)
{
    for (int i = 0; i < PRB_MDL_NBLOCKS; i++) end[i] = n / frac_den[i] * frac_num[i] + n % frac_den[i] * frac_num[i] / frac_den[i];
}

double prb_mdl_bits(const float *logits, int K, int y)
{
    double mx = logits[0];
    for (int k = 1; k < K; k++)
        if (logits[k] > mx) mx = logits[k];
    double s = 0.0;
    for (int k = 0; k < K; k++) s += exp((double)logits[k] - mx);
    /* -log2 p_y = (log sum exp - l_y) / ln 2 */
    return (mx + log(s) - (double)logits[y]) / M_LN2;
}

int prb_mdl_online(const float *X, int d, const int *y, int k, const int *tr, long n, const int *dv, int ndv,
                   const struct prb_train_cfg *cfg, const atomic_int *stop, prb_mdl_dump_fn dump, void *dump_arg,
                   struct prb_mdl_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (n < 1 || n > INT_MAX) { snprintf(err, errlen, "MDL needs 1 to %d training items, got %ld", INT_MAX, n); return -1; }
    if (k < 2) { snprintf(err, errlen, "MDL needs at least 2 classes in training, got %d", k); return -1; }
    if (ndv < 1) { snprintf(err, errlen, "MDL early-stops each block's probe on dev items: there are none"); return -1; }
    long end[PRB_MDL_NBLOCKS];
    prb_mdl_bounds(n, end);
    r->n = n;
    r->k = k;
    r->uniform = (double)n * log2((double)k);
    struct prb_train_cfg cf = *cfg;
    cf.select_loss = 1;                     /* the code is a cross-entropy: keep the probe that sends dev cheapest */
    struct prb_clf c;
    if (prb_clf_init(&c, d, k, &cf)) { snprintf(err, errlen, "bad classifier configuration"); return -1; }
    int *yb = NULL;
    float *lg = NULL;
    size_t lgcap = 0;
    long start = 0;
    int ret = 0;
    for (int b = 0; b < PRB_MDL_NBLOCKS; b++) {
        if (stop && atomic_load_explicit(stop, memory_order_relaxed)) { ret = -2; break; }
        struct prb_mdl_block *B = &r->block[b];
        B->start = start;
        B->size = end[b] - start;
        B->dev = B->dev_bits = NAN;
        if (start == 0) {                   /* nothing to train on: the uniform code */
            B->uniform = 1;
            B->bits = (double)B->size * log2((double)k);
            if (dump && B->size) {
                yb = sp_xrealloc(yb, sizeof *yb * (size_t)B->size);
                for (long i = 0; i < B->size; i++) yb[i] = y[tr[i]];
                dump(dump_arg, b, tr, yb, B->size, k, NULL);
            }
        } else if (B->size > 0) {
            /* warm start: c keeps the previous block's probe; one dev evaluation per epoch, an epoch
             * at least as long as the evaluation (ndv rows) */
            long ep = (ndv + start - 1) / start;
            c.cfg.epoch_size = ep > cfg->epoch_size ? (int)(ep < cfg->max_epoch ? ep : cfg->max_epoch) : cfg->epoch_size;
            struct prb_fit_info info;
            prb_clf_fit(&c, X, y, tr, (int)start, dv, ndv, &info);
            r->example_passes += (long)info.passes * start;
            B->passes = info.passes;
            B->nevals = info.nevals;
            B->dev = prb_clf_accuracy(&c, X, y, dv, ndv);
            B->dev_bits = info.best_dev_loss / M_LN2;
            if ((size_t)B->size * (size_t)k > lgcap) {
                lgcap = (size_t)B->size * (size_t)k;
                lg = sp_xrealloc(lg, sizeof *lg * lgcap);
            }
            yb = sp_xrealloc(yb, sizeof *yb * (size_t)B->size);
            prb_clf_logits(&c, X, tr + start, (int)B->size, lg);
            double bits = 0.0;
            for (long i = 0; i < B->size; i++) {
                yb[i] = y[tr[start + i]];
                bits += prb_mdl_bits(lg + (size_t)i * (size_t)k, k, yb[i]);
            }
            B->bits = bits;
            if (dump) dump(dump_arg, b, tr + start, yb, B->size, k, lg);
        }
        r->codelength += B->bits;
        start = end[b];
    }
    r->compression = r->codelength > 0 ? r->uniform / r->codelength : NAN;
    prb_clf_free(&c);
    free(yb);
    free(lg);
    return ret;
}
