/* Unit tests for common/gemm.c's f16 and bf16 weights (sp_gemm_pack_parts): a B packed in its
 * half dtype and widened panel by panel gives exactly the bytes of the f32 product of the matrix
 * widened first (the widening is exact), on every kernel the CPU runs, both layouts, with bias or
 * accumulating, on 1 and 2 threads, through sp_gemm, sp_gemm_post and sp_gemm_rows; B from several
 * parts (fused weights) packs as the one matrix; the widening itself against hand-written values;
 * and the BLAS path agrees to float rounding. The widened reference here is an independent loop
 * over the bit patterns (not the code under test). */
#include "common/gemm.h"
#include "common/sp.h"
#include "t_harness.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)(rng >> 32);
}
static float frand(void) { return (float)((double)next() / 4294967296.0 * 2.0 - 1.0); }

/* a finite half of dtype with a random exponent near 1 (and some subnormals for f16) */
static uint16_t rand_half(int dtype)
{
    const uint32_t r = next();
    if (dtype == SP_GEMM_BF16) {               /* sign, exponent 120..130, 7 mantissa bits */
        const uint32_t ex = 120 + r % 11;
        return (uint16_t)((r >> 31) << 15 | ex << 7 | ((r >> 8) & 0x7f));
    }
    const uint32_t ex = (r % 16 == 0) ? 0 : 10 + r % 10;   /* a subnormal one time in 16 */
    return (uint16_t)((r >> 31) << 15 | ex << 10 | ((r >> 8) & 0x3ff));
}

/* independent widening: bf16 = the top half of the float; f16 from its fields */
static float ref_widen(int dtype, uint16_t h)
{
    if (dtype == SP_GEMM_BF16) { uint32_t b = (uint32_t)h << 16; float f; memcpy(&f, &b, 4); return f; }
    const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e ? ldexp(1.0 + m / 1024.0, e - 15) : ldexp(m / 1024.0, -14);
    if (e == 31) v = m ? NAN : INFINITY;
    return (float)(s ? -v : v);
}

static void widen_values(void)
{
    const uint16_t f16[] = { 0x3c00, 0xc000, 0x0001, 0x03ff, 0x0400, 0x7bff, 0x8000, 0x7c00, 0xfc00, 0x3555 };
    const float f16v[] = { 1.0f, -2.0f, 0x1p-24f, 0x3ffp-24f, 0x1p-14f, 65504.0f, -0.0f, INFINITY, -INFINITY, 0x1.554p-2f };
    float got[16];
    sp_gemm_widen(SP_GEMM_F16, f16, got, 10);
    for (int i = 0; i < 10; i++) T_CHECK(!memcmp(&got[i], &f16v[i], 4));
    const uint16_t bf[] = { 0x3f80, 0xc040, 0x0001, 0x7f7f, 0x8000 };
    const float bfv[] = { 1.0f, -3.0f, 0x1p-133f, 0x1.fep127f, -0.0f };
    sp_gemm_widen(SP_GEMM_BF16, bf, got, 5);
    for (int i = 0; i < 5; i++) T_CHECK(!memcmp(&got[i], &bfv[i], 4));
    /* every f16 bit pattern that is finite, against the independent formula */
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        const uint16_t x = (uint16_t)h;
        if (((x >> 10) & 31) == 31) continue;
        float a, b = ref_widen(SP_GEMM_F16, x);
        sp_gemm_widen(SP_GEMM_F16, &x, &a, 1);
        if (memcmp(&a, &b, 4)) bad++;
    }
    T_EQ_INT(bad, 0);
}

static void post_neg(void *arg, float *Y, int rows, int cols, int ldy)
{
    (void)arg;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) Y[(size_t)i * ldy + j] = -Y[(size_t)i * ldy + j] * 0.5f;
}

/* one product, half-packed against f32-packed-widened; 1 when the bytes agree (rows form too) */
static int one(int dtype, int M, int K, int N, int trans, int with_bias, int accumulate, int post)
{
    const int ldx = K + 3, ldw = (trans ? K : N) + 2, ldy = N + 5, wr = trans ? N : K;
    float *X = sp_xmalloc(sizeof(float) * ((size_t)M * ldx + 1)), *bias = sp_xmalloc(sizeof(float) * (size_t)(N + 1));
    uint16_t *Wh = sp_xmalloc(sizeof(uint16_t) * ((size_t)wr * ldw + 1));
    float *Wf = sp_xmalloc(sizeof(float) * ((size_t)wr * ldw + 1));
    float *Y = sp_xmalloc(sizeof(float) * ((size_t)M * ldy + 1)), *R = sp_xmalloc(sizeof(float) * ((size_t)M * ldy + 1));
    float *Z = sp_xmalloc(sizeof(float) * ((size_t)M * ldy + 1));
    for (size_t i = 0; i < (size_t)M * ldx; i++) X[i] = frand();
    for (size_t i = 0; i < (size_t)wr * ldw; i++) Wf[i] = ref_widen(dtype, Wh[i] = rand_half(dtype));
    for (int j = 0; j < N; j++) bias[j] = frand();
    for (size_t i = 0; i < (size_t)M * ldy; i++) Y[i] = R[i] = Z[i] = frand();
    struct sp_gemm_b Bh, Bf;
    void *bh = sp_gemm_alloc(sp_gemm_packed_bytes(K, N, dtype) / sizeof(float) + 1);
    float *bf = sp_gemm_alloc(sp_gemm_packed_floats(K, N));
    const struct sp_gemm_part part = { Wh, dtype, N, ldw, trans };
    sp_gemm_pack_parts(&Bh, K, N, &part, 1, dtype, bh);
    sp_gemm_pack(&Bf, K, N, Wf, ldw, trans, bf);
    const float *b = with_bias ? bias : NULL;
    if (post) {
        sp_gemm_post(M, X, ldx, &Bh, b, accumulate, Y, ldy, post_neg, NULL);
        sp_gemm_post(M, X, ldx, &Bf, b, accumulate, R, ldy, post_neg, NULL);
    } else {
        sp_gemm(M, X, ldx, &Bh, b, accumulate, Y, ldy);
        sp_gemm(M, X, ldx, &Bf, b, accumulate, R, ldy);
    }
    int same = !memcmp(Y, R, sizeof(float) * (size_t)M * ldy);
    if (!post && !accumulate) {                     /* A by rows: the same bytes */
        const float **rows = sp_xmalloc(sizeof *rows * (size_t)(M + 1));
        for (int i = 0; i < M; i++) rows[i] = X + (size_t)i * ldx;
        const struct sp_gemm_a a = { rows, 0, 0 };
        sp_gemm_rows(M, &a, &Bh, b, 0, Z, ldy);
        same &= !memcmp(Z, R, sizeof(float) * (size_t)M * ldy);
        free(rows);
    }
    free(X); free(bias); free(Wh); free(Wf); free(Y); free(R); free(Z); free(bh); free(bf);
    return same;
}

/* B = [q | k | v] from three parts (one transposed [cols, K] each, as a Linear's [out, in]):
 * packed as halves, and as f32 from mixed dtypes, against the f32 matrix assembled by hand */
static int parts(int dtype, int K, int c0, int c1, int c2)
{
    const int N = c0 + c1 + c2, cols[3] = { c0, c1, c2 }, M = 19;
    uint16_t *w[3];
    float *full = sp_xmalloc(sizeof(float) * (size_t)K * N), *X = sp_xmalloc(sizeof(float) * (size_t)M * K);
    float *Y = sp_xmalloc(sizeof(float) * (size_t)M * N), *R = sp_xmalloc(sizeof(float) * (size_t)M * N);
    float *Y2 = sp_xmalloc(sizeof(float) * (size_t)M * N);
    struct sp_gemm_part P[3];
    for (int q = 0, j0 = 0; q < 3; j0 += cols[q], q++) {
        w[q] = sp_xmalloc(sizeof(uint16_t) * (size_t)cols[q] * K + 2);
        for (int j = 0; j < cols[q]; j++)
            for (int k = 0; k < K; k++) full[(size_t)k * N + j0 + j] = ref_widen(dtype, w[q][(size_t)j * K + k] = rand_half(dtype));
        P[q] = (struct sp_gemm_part){ w[q], dtype, cols[q], K, 1 };
    }
    for (size_t i = 0; i < (size_t)M * K; i++) X[i] = frand();
    struct sp_gemm_b Bh, Bf, Bm;
    void *bh = sp_gemm_alloc(sp_gemm_packed_bytes(K, N, dtype) / sizeof(float) + 1);
    float *bf = sp_gemm_alloc(sp_gemm_packed_floats(K, N)), *bm = sp_gemm_alloc(sp_gemm_packed_floats(K, N));
    sp_gemm_pack_parts(&Bh, K, N, P, 3, dtype, bh);
    sp_gemm_pack(&Bf, K, N, full, N, 0, bf);
    /* mixed: the middle part as f32 ([cols, K] floats), packed as f32 */
    float *mid = sp_xmalloc(sizeof(float) * (size_t)c1 * K + 4);
    for (int j = 0; j < c1; j++)
        for (int k = 0; k < K; k++) mid[(size_t)j * K + k] = full[(size_t)k * N + c0 + j];
    struct sp_gemm_part Pm[3] = { P[0], { mid, SP_GEMM_F32, c1, K, 1 }, P[2] };
    sp_gemm_pack_parts(&Bm, K, N, Pm, 3, SP_GEMM_F32, bm);
    sp_gemm(M, X, K, &Bh, NULL, 0, Y, N);
    sp_gemm(M, X, K, &Bf, NULL, 0, R, N);
    sp_gemm(M, X, K, &Bm, NULL, 0, Y2, N);
    int same = !memcmp(Y, R, sizeof(float) * (size_t)M * N) && !memcmp(Y2, R, sizeof(float) * (size_t)M * N) &&
               !memcmp(bm, bf, sp_gemm_packed_bytes(K, N, SP_GEMM_F32));
    for (int q = 0; q < 3; q++) free(w[q]);
    free(full); free(X); free(Y); free(R); free(Y2); free(bh); free(bf); free(bm); free(mid);
    return same;
}

/* the BLAS path on a half B: to float rounding of the own path (bound as in common_gemm.c) */
static double blas_half(int dtype, int M, int K, int N)
{
    float *X = sp_xmalloc(sizeof(float) * (size_t)M * K), *Y = sp_xmalloc(sizeof(float) * (size_t)M * N);
    float *R = sp_xmalloc(sizeof(float) * (size_t)M * N), *Wf = sp_xmalloc(sizeof(float) * (size_t)K * N);
    uint16_t *Wh = sp_xmalloc(sizeof(uint16_t) * (size_t)K * N);
    for (size_t i = 0; i < (size_t)M * K; i++) X[i] = frand();
    for (size_t i = 0; i < (size_t)K * N; i++) Wf[i] = ref_widen(dtype, Wh[i] = rand_half(dtype));
    struct sp_gemm_b B;
    void *bh = sp_gemm_alloc(sp_gemm_packed_bytes(K, N, dtype) / sizeof(float) + 1);
    const struct sp_gemm_part part = { Wh, dtype, N, N, 0 };
    sp_gemm_pack_parts(&B, K, N, &part, 1, dtype, bh);
    sp_gemm_set_impl(SP_GEMM_BLAS);
    sp_gemm(M, X, K, &B, NULL, 0, Y, N);
    sp_gemm_set_impl(SP_GEMM_OWN);
    sp_gemm(M, X, K, &B, NULL, 0, R, N);
    double worst = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double S = 0;
            for (int k = 0; k < K; k++) S += fabs((double)X[(size_t)i * K + k] * Wf[(size_t)k * N + j]);
            const double e = fabs((double)Y[(size_t)i * N + j] - R[(size_t)i * N + j]) / ((K + 2) * 0x1p-23 * S + 1e-30);
            if (e > worst) worst = e;
        }
    free(X); free(Y); free(R); free(Wf); free(Wh); free(bh);
    return worst;
}

int main(void)
{
    widen_values();
    const char *names[] = { "avx512", "avx2", "c" };
    const int Ms[] = { 1, 13, 17, 97, 200 };
    const int Ks[] = { 0, 1, 17, 400, 800 };      /* 400, 800: more than one k-block on every kernel */
    const int Ns[] = { 1, 31, 33, 100 };
    int ran = 0;
    for (int kn = 0; kn < 3; kn++) {
        if (sp_gemm_use_kernel(names[kn]) != 0) { printf("ok # SKIP kernel %s: this CPU cannot run it\n", names[kn]); continue; }
        ran++;
        for (int dt = SP_GEMM_F16; dt <= SP_GEMM_BF16; dt++) {
            int bad = 0, n = 0;
            for (int th = 1; th <= 2; th++) {
                sp_gemm_set_threads(th);
                for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
                    for (size_t b = 0; b < sizeof Ks / sizeof *Ks; b++)
                        for (size_t c = 0; c < sizeof Ns / sizeof *Ns; c++) {
                            const int v = (int)((a + b + c + (size_t)th) % 8);   /* trans, bias, accumulate, post in turn */
                            n++;
                            if (!one(dt, Ms[a], Ks[b], Ns[c], v & 1, (v & 2) != 0, (v & 4) != 0, v == 3 || v == 6) && bad++ < 5)
                                fprintf(stderr, "FAIL kernel %s %s: M=%d K=%d N=%d variant %d threads %d differs from f32\n", names[kn],
                                        dt == SP_GEMM_F16 ? "f16" : "bf16", Ms[a], Ks[b], Ns[c], v, th);
                        }
                /* large enough to be split over the threads (rows and columns) */
                if (th == 2) {
                    n += 2;
                    if (!one(dt, 300, 384, 1536, 1, 1, 0, 1)) bad++;
                    if (!one(dt, 40, 600, 2400, 1, 0, 0, 0)) bad++;
                }
            }
            sp_gemm_set_threads(1);
            T_EQ_INT(bad, 0);
            T_CHECK(parts(dt, 384, 384, 384, 384));
            T_CHECK(parts(dt, 70, 20, 45, 33));       /* parts cut through the panels */
            printf("kernel %s %s: %d products bit-identical to the f32 product of the widened matrix\n", names[kn],
                   dt == SP_GEMM_F16 ? "f16" : "bf16", n - bad);
        }
    }
    T_CHECK(ran >= 1);
    for (int dt = SP_GEMM_F16; dt <= SP_GEMM_BF16; dt++) {
        const double w = blas_half(dt, 37, 300, 70);
        T_CHECK(w <= 1.0);
        printf("blas path, %s B: worst error %.3g of the float-rounding bound\n", dt == SP_GEMM_F16 ? "f16" : "bf16", w);
    }
    return T_DONE();
}
