/* probes_online_code: the online code of MDL probing (probes/online_code.h): the block ends for a
 * few n worked out by hand from the paper's fractions, -log2 p of the softmax on logits whose
 * probabilities are known exactly, and the whole code on seeded separable data (the first block
 * uniform, the blocks summing to the codelength, fewer bits than the uniform code, the same bits
 * with 1 and 2 threads) and its refusals. */
#include "t_harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probes/online_code.h"
#include "common/sp.h"

static void t_bounds(void)
{
    /* floor(n f) for f = 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.25, 12.5, 25, 50, 100 % */
    static const long n1000[PRB_MDL_NBLOCKS] = { 1, 2, 4, 8, 16, 32, 62, 125, 250, 500, 1000 };
    static const long n289[PRB_MDL_NBLOCKS] = { 0, 0, 1, 2, 4, 9, 18, 36, 72, 144, 289 };
    static const long n7[PRB_MDL_NBLOCKS] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 7 };
    /* 10^12 + 999: n f without rounding, e.g. 0.1 %: 1,000,000,000.999 -> 10^9 */
    static const long nbig[PRB_MDL_NBLOCKS] = { 1000000000L, 2000000001L, 4000000003L, 8000000007L, 16000000015L,
                                                32000000031L, 62500000062L, 125000000124L, 250000000249L, 500000000499L,
                                                1000000000999L };
    long e[PRB_MDL_NBLOCKS];
    prb_mdl_bounds(1000, e);
    for (int i = 0; i < PRB_MDL_NBLOCKS; i++) T_EQ_INT(e[i], n1000[i]);
    prb_mdl_bounds(289, e);
    for (int i = 0; i < PRB_MDL_NBLOCKS; i++) T_EQ_INT(e[i], n289[i]);
    prb_mdl_bounds(7, e);
    for (int i = 0; i < PRB_MDL_NBLOCKS; i++) T_EQ_INT(e[i], n7[i]);
    prb_mdl_bounds(1000000000999L, e);
    for (int i = 0; i < PRB_MDL_NBLOCKS; i++) T_EQ_INT(e[i], nbig[i]);
}

static void t_bits(void)
{
    const float eq[4] = { 0.5f, 0.5f, 0.5f, 0.5f };
    T_NEAR(prb_mdl_bits(eq, 4, 2), 2.0, 1e-15);                 /* p = 1/4 */
    const float l3[2] = { 0.0f, (float)log(3.0) };                 /* p = (1/4, 3/4) up to float rounding */
    T_NEAR(prb_mdl_bits(l3, 2, 0), 2.0, 1e-7);
    T_NEAR(prb_mdl_bits(l3, 2, 1), 0.41503749927884381, 1e-7);  /* -log2 0.75 */
    const float big[2] = { 1000.0f, 0.0f };                        /* no overflow: 1000 / ln 2 bits */
    T_NEAR(prb_mdl_bits(big, 2, 1), 1442.6950408889634, 1e-9);
    T_CHECK(prb_mdl_bits(big, 2, 0) >= 0.0 && prb_mdl_bits(big, 2, 0) < 1e-300);
}

/* two Gaussian blobs in 4-d, label = blob; rows 0..n-1 train, n..n+nd-1 dev */
static float *blobs(int n, int *y, uint64_t seed)
{
    struct sp_rng r;
    sp_rng_seed(&r, seed);
    float *X = malloc(sizeof *X * (size_t)n * 4);
    for (int i = 0; i < n; i++) {
        y[i] = (int)sp_rng_below(&r, 2);
        for (int j = 0; j < 4; j++) X[i * 4 + j] = (float)(sp_rng_uniform(&r) - 0.5 + (y[i] ? 1.5 : -1.5) * (j == 0));
    }
    return X;
}

static void t_online(void)
{
    enum { N = 2000, ND = 200 };
    int y[N + ND], tr[N], dv[ND];
    float *X = blobs(N + ND, y, 5);
    for (int i = 0; i < N; i++) tr[i] = i;
    for (int i = 0; i < ND; i++) dv[i] = N + i;
    struct prb_train_cfg cfg;
    prb_train_cfg_default(&cfg);
    cfg.max_epoch = 20;
    struct prb_mdl_result r1, r2;
    char err[200];
    T_EQ_INT(prb_mdl_online(X, 4, y, 2, tr, N, dv, ND, &cfg, NULL, NULL, NULL, &r1, err, sizeof err), 0);
    T_EQ_INT(r1.block[0].size, 2);
    T_CHECK(r1.block[0].uniform && !r1.block[1].uniform);
    T_NEAR(r1.block[0].bits, 2.0, 1e-12);                         /* 2 items x log2 2 */
    T_NEAR(r1.uniform, (double)N, 1e-9);
    double sum = 0;
    long items = 0;
    for (int b = 0; b < PRB_MDL_NBLOCKS; b++) { sum += r1.block[b].bits; items += r1.block[b].size; }
    T_NEAR(r1.codelength, sum, 1e-9 * sum);
    T_EQ_INT(items, N);
    T_CHECK(r1.codelength < 0.5 * r1.uniform && r1.compression > 2.0);
    printf("# separable blobs: %.1f bits of %.0f uniform (compression %.2f)\n", r1.codelength, r1.uniform, r1.compression);
    cfg.threads = 2;
    T_EQ_INT(prb_mdl_online(X, 4, y, 2, tr, N, dv, ND, &cfg, NULL, NULL, NULL, &r2, err, sizeof err), 0);
    T_CHECK(r2.codelength == r1.codelength);                       /* bit for bit */
    T_EQ_INT(prb_mdl_online(X, 4, y, 2, tr, 0, dv, ND, &cfg, NULL, NULL, NULL, &r2, err, sizeof err), -1);
    T_EQ_INT(prb_mdl_online(X, 4, y, 2, tr, N, dv, 0, &cfg, NULL, NULL, NULL, &r2, err, sizeof err), -1);
    T_CHECK(strstr(err, "dev") != NULL);
    T_EQ_INT(prb_mdl_online(X, 4, y, 1, tr, N, dv, ND, &cfg, NULL, NULL, NULL, &r2, err, sizeof err), -1);
    atomic_int stop = 1;                                           /* a stop asked for: nothing sent */
    T_EQ_INT(prb_mdl_online(X, 4, y, 2, tr, N, dv, ND, &cfg, &stop, NULL, NULL, &r2, err, sizeof err), -2);
    free(X);
}

int main(void)
{
    t_bounds();
    t_bits();
    t_online();
    return T_DONE();
}
