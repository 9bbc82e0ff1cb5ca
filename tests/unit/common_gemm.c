/* Unit tests for common/gemm.c: every kernel the CPU runs, on awkward shapes, gives exactly the
 * bytes of the contract in gemm.h (one fmaf chain per element, k in order, from the initial
 * value), computed here by a naive triple loop; and agrees with a double-precision product to
 * a tolerance (so the contract is a product at all). Threads and row position change nothing. */
#include "common/gemm.h"
#include "common/sp.h"
#include "t_harness.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;
static float frand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* what another thread sees of the GEMM's settings while this one has set its own */
struct seen { int threads, impl; const char *kernel; int threads_after; };
static void *other_thread(void *arg)
{
    struct seen *s = arg;
    s->threads = sp_gemm_threads();
    s->impl = sp_gemm_get_impl();
    s->kernel = sp_gemm_kernel();
    sp_gemm_set_threads(3);                  /* its own setting, and its own pool, freed when it ends */
    s->threads_after = sp_gemm_threads();
    return NULL;
}

/* the contract, written out: acc = init; acc = fmaf(x, b, acc) for k = 0..K-1 */
static void naive(int M, int K, int N, const float *X, int ldx, const float *W, int ldw, int trans,
                  const float *bias, int accumulate, float *Y, int ldy)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = (accumulate ? Y[(size_t)i * ldy + j] : 0.0f) + (bias ? bias[j] : 0.0f);
            for (int k = 0; k < K; k++)
                acc = fmaf(X[(size_t)i * ldx + k], trans ? W[(size_t)j * ldw + k] : W[(size_t)k * ldw + j], acc);
            Y[(size_t)i * ldy + j] = acc;
        }
}

/* one product through sp_gemm and naive(); returns 1 when every element has the same bits */
static int one(int M, int K, int N, int trans, int with_bias, int accumulate, double *max_rel)
{
    int ldx = K + 3, ldw = (trans ? K : N) + 2, ldy = N + 5;
    float *X = sp_xmalloc(sizeof(float) * ((size_t)M * ldx + 1));
    float *W = sp_xmalloc(sizeof(float) * ((size_t)(trans ? N : K) * ldw + 1));
    float *bias = sp_xmalloc(sizeof(float) * (size_t)(N + 1));
    float *Y = sp_xmalloc(sizeof(float) * ((size_t)M * ldy + 1)), *R = sp_xmalloc(sizeof(float) * ((size_t)M * ldy + 1));
    for (size_t i = 0; i < (size_t)M * ldx; i++) X[i] = frand();
    for (size_t i = 0; i < (size_t)(trans ? N : K) * ldw; i++) W[i] = frand();
    for (int j = 0; j < N; j++) bias[j] = frand();
    for (size_t i = 0; i < (size_t)M * ldy; i++) Y[i] = R[i] = frand();   /* accumulate input; padding columns must survive */
    struct sp_gemm_b B;
    float *buf = sp_gemm_alloc(sp_gemm_packed_floats(K, N));
    sp_gemm_pack(&B, K, N, W, ldw, trans, buf);
    sp_gemm(M, X, ldx, &B, with_bias ? bias : NULL, accumulate, Y, ldy);
    naive(M, K, N, X, ldx, W, ldw, trans, with_bias ? bias : NULL, accumulate, R, ldy);
    int same = memcmp(Y, R, sizeof(float) * (size_t)M * ldy) == 0;
    /* against double precision: |err| <= K·2^-23·Σ|x·w| + |init| ulp-level */
    for (int i = 0; i < M && max_rel && !accumulate; i++)   /* (Y's old value is gone when accumulating) */
        for (int j = 0; j < N; j++) {
            double ref = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double t = (double)X[(size_t)i * ldx + k] * (trans ? W[(size_t)j * ldw + k] : W[(size_t)k * ldw + j]);
                ref += t; mag += fabs(t);
            }
            double init = with_bias ? bias[j] : 0;
            double err = fabs((double)Y[(size_t)i * ldy + j] - (ref + init)) / (mag + fabs(init) + 1e-30);
            if (err > *max_rel) *max_rel = err;
        }
    free(X); free(W); free(bias); free(Y); free(R); free(buf);
    return same;
}

/* the BLAS path (--gemm blas) against the contract's fmaf chain: not the same bits (OpenBLAS sums
 * in its own order), but the same product. Each side is a float sum of the K products and the
 * initial terms (old Y when accumulating, bias), within (K + 2)·2^-24·S of the exact value, S =
 * Σ_k |x·w| + |old| + |bias|; so |Y_blas - Y_own| <= (K + 2)·2^-23·S. Returns the worst ratio
 * to that bound (and 1e9 when a column past N was touched). */
static double blas_vs_own(int M, int K, int N, int trans, int with_bias, int accumulate)
{
    int ldx = K + 1, ldw = (trans ? K : N) + 3, ldy = N + 2;
    const size_t ny = (size_t)M * ldy;
    float *X = sp_xmalloc(sizeof(float) * ((size_t)M * ldx + 1));
    float *W = sp_xmalloc(sizeof(float) * ((size_t)(trans ? N : K) * ldw + 1));
    float *bias = sp_xmalloc(sizeof(float) * (size_t)(N + 1));
    float *Y = sp_xmalloc(sizeof(float) * (ny + 1)), *R = sp_xmalloc(sizeof(float) * (ny + 1)), *O = sp_xmalloc(sizeof(float) * (ny + 1));
    for (size_t i = 0; i < (size_t)M * ldx; i++) X[i] = frand();
    for (size_t i = 0; i < (size_t)(trans ? N : K) * ldw; i++) W[i] = frand();
    for (int j = 0; j < N; j++) bias[j] = frand();
    for (size_t i = 0; i < ny; i++) Y[i] = R[i] = O[i] = frand();
    struct sp_gemm_b B;
    float *buf = sp_gemm_alloc(sp_gemm_packed_floats(K, N));
    sp_gemm_pack(&B, K, N, W, ldw, trans, buf);
    sp_gemm_set_impl(SP_GEMM_BLAS);
    sp_gemm(M, X, ldx, &B, with_bias ? bias : NULL, accumulate, Y, ldy);
    sp_gemm_set_impl(SP_GEMM_OWN);
    sp_gemm(M, X, ldx, &B, with_bias ? bias : NULL, accumulate, R, ldy);
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ldy; j++) {
            const size_t t = (size_t)i * ldy + j;
            if (j >= N) { if (Y[t] != O[t]) worst = 1e9; continue; }
            double S = (accumulate ? fabs((double)O[t]) : 0.0) + (with_bias ? fabs((double)bias[j]) : 0.0);
            for (int k = 0; k < K; k++)
                S += fabs((double)X[(size_t)i * ldx + k] * (trans ? W[(size_t)j * ldw + k] : W[(size_t)k * ldw + j]));
            const double e = fabs((double)Y[t] - R[t]) / ((K + 2) * 0x1p-23 * S + 1e-30);
            if (e > worst) worst = e;
        }
    free(X); free(W); free(bias); free(Y); free(R); free(O); free(buf);
    return worst;
}

/* sp_gemm_rows: A as scattered rows (trans 0) or the transpose of scattered rows (trans 1, with an
 * offset), the bits of naive() on A gathered; returns 1 when every element matches */
static int rows_one(int M, int K, int N, int trans, int with_bias, int accumulate)
{
    const int off = trans ? 3 : 0, len = trans ? off + M + 2 : K + 1;   /* each scattered row's floats */
    const int nrows = trans ? K : M;
    float **rows = sp_xmalloc(sizeof *rows * (size_t)(nrows + 1));
    for (int r = 0; r < nrows; r++) {            /* each its own allocation, in reverse order */
        rows[nrows - 1 - r] = sp_xmalloc(sizeof(float) * (size_t)len);
        for (int e = 0; e < len; e++) rows[nrows - 1 - r][e] = frand();
    }
    float *A = sp_xmalloc(sizeof(float) * ((size_t)M * (K > 0 ? K : 1)));
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) A[(size_t)i * K + k] = trans ? rows[k][off + i] : rows[i][k];
    float *W = sp_xmalloc(sizeof(float) * ((size_t)K * N + 1)), *bias = sp_xmalloc(sizeof(float) * (size_t)N);
    for (size_t i = 0; i < (size_t)K * N; i++) W[i] = frand();
    for (int j = 0; j < N; j++) bias[j] = frand();
    float *Y = sp_xmalloc(sizeof(float) * (size_t)M * N), *R = sp_xmalloc(sizeof(float) * (size_t)M * N);
    for (size_t i = 0; i < (size_t)M * N; i++) Y[i] = R[i] = frand();
    struct sp_gemm_b B;
    float *buf = sp_gemm_alloc(sp_gemm_packed_floats(K, N));
    sp_gemm_pack(&B, K, N, W, N, 0, buf);
    struct sp_gemm_a a = { (const float *const *)rows, trans, off };
    sp_gemm_rows(M, &a, &B, with_bias ? bias : NULL, accumulate, Y, N);
    naive(M, K, N, A, K, W, N, 0, with_bias ? bias : NULL, accumulate, R, N);
    int same = !memcmp(Y, R, sizeof(float) * (size_t)M * N);
    for (int r = 0; r < nrows; r++) free(rows[r]);
    free(rows); free(A); free(W); free(bias); free(Y); free(R); free(buf);
    return same;
}

int main(void)
{
    const char *names[] = { "avx512", "avx2", "c" };
    const int Ms[] = { 1, 7, 12, 13, 16, 17, 96, 97, 200, 511 };
    const int Ks[] = { 0, 1, 3, 17, 255, 256, 257, 600 };
    const int Ns[] = { 1, 5, 31, 32, 33, 100 };
    int ran = 0;
    for (int kn = 0; kn < 3; kn++) {
        if (sp_gemm_use_kernel(names[kn]) != 0) { printf("ok # SKIP kernel %s: this CPU cannot run it\n", names[kn]); continue; }
        T_EQ_STR(sp_gemm_kernel(), names[kn]);
        ran++;
        double max_rel = 0;
        int bad = 0, n = 0;
        for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
            for (size_t b = 0; b < sizeof Ks / sizeof *Ks; b++)
                for (size_t c = 0; c < sizeof Ns / sizeof *Ns; c++) {
                    int variant = (int)((a + b + c) % 4);   /* trans, bias, accumulate in turn */
                    n++;
                    if (!one(Ms[a], Ks[b], Ns[c], variant & 1, variant != 2, variant == 2, &max_rel)) {
                        if (bad++ < 5) fprintf(stderr, "FAIL kernel %s: M=%d K=%d N=%d variant %d differs from the fmaf chain\n", names[kn], Ms[a], Ks[b], Ns[c], variant);
                    }
                }
        T_EQ_INT(bad, 0);
        /* 600 terms of |x|,|w| <= 1: a float sum is within ~600 ulp of the magnitude */
        T_CHECK(max_rel < 600 * 1.2e-7);
        printf("kernel %s: %d shapes bit-exact with the contract, max relative error vs double %.2g\n", names[kn], n - bad, max_rel);
    }
    T_CHECK(ran >= 1);
    /* A by rows: every kernel, both forms, awkward shapes, 1 and 2 threads */
    for (int kn = 0; kn < 3; kn++) {
        if (sp_gemm_use_kernel(names[kn]) != 0) continue;
        int bad = 0;
        for (int th = 1; th <= 2; th++) {
            sp_gemm_set_threads(th);
            for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
                for (size_t b = 1; b < sizeof Ks / sizeof *Ks; b += 2)
                    for (int tr = 0; tr < 2; tr++)
                        if (!rows_one(Ms[a], Ks[b], Ns[(a + b) % 6], tr, (a + tr) % 2, (b + tr) % 3 == 0)) {
                            if (bad++ < 5) fprintf(stderr, "FAIL sp_gemm_rows kernel %s: M=%d K=%d trans %d\n", names[kn], Ms[a], Ks[b], tr);
                        }
        }
        sp_gemm_set_threads(1);
        T_EQ_INT(bad, 0);
    }
    T_CHECK(rows_one(1000, 300, 384, 1, 0, 0));      /* a structural probe's Xᵀ·M shape */
    /* threads: a product big enough to be split gives the same bytes on 1, 2 and 3 threads */
    if (sp_gemm_use_kernel("avx512") != 0 && sp_gemm_use_kernel("avx2") != 0) sp_gemm_use_kernel("c");
    for (int th = 2; th <= 3; th++) {
        sp_gemm_set_threads(th);
        T_CHECK(one(1000, 300, 700, 0, 1, 0, NULL));
        T_CHECK(one(40, 600, 2400, 1, 0, 0, NULL));   /* few row blocks: the columns are split */
        T_CHECK(one(2000, 64, 64, 0, 0, 1, NULL));
    }
    sp_gemm_set_threads(1);
    /* the BLAS path: the same shapes (1, 7, 16, 17, 511 rows; K not a multiple of 8 or 16) to the
     * tolerance of blas_vs_own, on 1 and 2 threads */
    T_EQ_INT(sp_gemm_impl_parse("own"), SP_GEMM_OWN);
    T_EQ_INT(sp_gemm_impl_parse("blas"), SP_GEMM_BLAS);
    T_EQ_INT(sp_gemm_impl_parse("mkl"), -1);
    for (int th = 1; th <= 2; th++) {
        sp_gemm_set_threads(th);
        double worst = 0;
        for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
            for (size_t b = 0; b < sizeof Ks / sizeof *Ks; b++)
                for (size_t c = 0; c < sizeof Ns / sizeof *Ns; c += 2) {
                    int variant = (int)((a + b + c) % 4);
                    double w = blas_vs_own(Ms[a], Ks[b], Ns[c], variant & 1, variant != 2, variant == 2);
                    if (w > worst) worst = w;
                }
        double w = blas_vs_own(300, 384, 1536, 0, 1, 0);   /* an encoder's FFN shape */
        if (w > worst) worst = w;
        printf("blas path, %d thread(s): worst difference from the own path %.3f of the bound\n", th, worst);
        T_CHECK(worst <= 1.0);
    }
    sp_gemm_set_threads(1);
    T_EQ_INT(sp_gemm_get_impl(), SP_GEMM_OWN);
    /* settings belong to the thread that sets them (stages/stage.h): a thread started while this
     * one runs 2 threads on the BLAS path with the plain C kernel sees the defaults, and what it
     * sets does not reach this thread */
    const char *best = sp_gemm_kernel();
    {
        pthread_t t;
        struct seen s = { 0 };
        pthread_create(&t, NULL, other_thread, &s);   /* before: the defaults */
        pthread_join(t, NULL);
        best = s.kernel;
    }
    sp_gemm_set_threads(2);
    sp_gemm_set_impl(SP_GEMM_BLAS);
    T_EQ_INT(sp_gemm_use_kernel("c"), 0);
    struct seen s = { 0 };
    pthread_t t;
    T_EQ_INT(pthread_create(&t, NULL, other_thread, &s), 0);
    pthread_join(t, NULL);
    T_EQ_INT(s.threads, 1);
    T_EQ_INT(s.impl, SP_GEMM_OWN);
    T_CHECK(s.kernel && !strcmp(s.kernel, best));
    T_EQ_INT(s.threads_after, 3);
    T_EQ_INT(sp_gemm_threads(), 2);
    T_EQ_INT(sp_gemm_get_impl(), SP_GEMM_BLAS);
    T_CHECK(!strcmp(sp_gemm_kernel(), "c"));
    sp_gemm_set_impl(SP_GEMM_OWN);
    T_CHECK(one(1000, 300, 700, 0, 1, 0, NULL));     /* own path, 2 threads, kernel c: the contract */
    sp_gemm_set_threads(1);
    return T_DONE();
}
