/* Unit tests for common/small_gemm.c: every kernel the CPU runs gives, on awkward shapes (rows
 * left over after blocks of 8, 4 and 2; columns past a block of 16 or 32; strides wider than
 * the columns), exactly the bytes of common/gemm.h's contract (one fmaf chain per element, k in
 * order, from 0), computed here by a naive triple loop; the padding columns the kernels read
 * and drop never reach the result; and sp_transpose_pad is a transpose with zero padding. */
#include "common/gemm.h"
#include "common/small_gemm.h"
#include "common/sp.h"
#include "t_harness.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float frand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* one product: Y from sp_small_gemm and from the fmaf chain, same bits? W is allocated with the
 * slack the header asks for and filled with NaN past its N columns: a kernel that let a padding
 * column into a kept element would show it */
static int one(int M, int N, int K, int ldw_extra)
{
    int ldx = K + 3, ldw = N + ldw_extra, ldy = N + 1;
    size_t wn = (size_t)K * ldw + SP_SMALL_CB;
    float *X = sp_xmalloc(sizeof(float) * ((size_t)M * ldx + 1));
    float *W = sp_xmalloc(sizeof(float) * wn);
    float *Y = sp_xmalloc(sizeof(float) * ((size_t)M * ldy + 1)), *R = sp_xmalloc(sizeof(float) * ((size_t)M * ldy + 1));
    for (size_t i = 0; i < (size_t)M * ldx; i++) X[i] = frand();
    for (size_t i = 0; i < wn; i++) W[i] = NAN;
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) W[(size_t)k * ldw + j] = frand();
    for (size_t i = 0; i < (size_t)M * ldy; i++) Y[i] = R[i] = 7.0f;   /* the column past N must survive */
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++) acc = fmaf(X[(size_t)i * ldx + k], W[(size_t)k * ldw + j], acc);
            R[(size_t)i * ldy + j] = acc;
        }
    sp_small_gemm(M, N, K, X, ldx, W, ldw, Y, ldy);
    int same = memcmp(Y, R, sizeof(float) * (size_t)M * ldy) == 0;
    free(X); free(W); free(Y); free(R);
    return same;
}

/* Wt[c][j] = W[j·ldw + c] for j < n, +0 for n <= j < ld, byte for byte */
static int transpose_exact(const float *W, int ldw, int n, int d, const float *Wt, int ld)
{
    for (int c = 0; c < d; c++)
        for (int j = 0; j < ld; j++) {
            float want = j < n ? W[(size_t)j * ldw + c] : 0.0f;
            if (memcmp(&Wt[(size_t)c * ld + j], &want, sizeof want)) return 0;
        }
    return 1;
}

/* sp_transpose_pad on an n × d matrix: Wt[c][j] = W[j][c], zeros in columns n..ld-1 */
static int transposed(int n, int d)
{
    float *W = sp_xmalloc(sizeof(float) * ((size_t)n * d + 1));
    int ld_expect = (n + SP_SMALL_CB - 1) / SP_SMALL_CB * SP_SMALL_CB;
    float *Wt = sp_xmalloc(sizeof(float) * ((size_t)d * ld_expect + 1));
    for (size_t i = 0; i < (size_t)n * d; i++) W[i] = frand();
    for (size_t i = 0; i < (size_t)d * ld_expect; i++) Wt[i] = NAN;
    int ld = sp_transpose_pad(W, n, d, Wt), ok = ld == ld_expect && transpose_exact(W, d, n, d, Wt, ld);
    free(W); free(Wt);
    return ok;
}

/* sp_transpose_strided: the first d of each row of stride ldw (> d: the rest must not leak in)
 * into rows of stride ld (a multiple of 16, or not: the AVX-512 blocks or the loop) */
static int transposed_strided(int n, int d, int ldw, int ld)
{
    float *W = sp_xmalloc(sizeof(float) * ((size_t)n * ldw + 1));
    float *Wt = sp_xmalloc(sizeof(float) * ((size_t)d * ld + 1));
    for (size_t i = 0; i < (size_t)n * ldw; i++) W[i] = frand();
    for (size_t i = 0; i < (size_t)d * ld; i++) Wt[i] = NAN;
    sp_transpose_strided(W, ldw, n, d, Wt, ld);
    int ok = transpose_exact(W, ldw, n, d, Wt, ld);
    free(W); free(Wt);
    return ok;
}

int main(void)
{
    const char *names[] = { "avx512", "avx2", "c" };
    const int Ms[] = { 1, 2, 3, 5, 7, 8, 9, 13, 17, 37, 64 };
    const int Ns[] = { 1, 5, 16, 17, 31, 32, 33, 37, 48, 130, 384 };
    const int Ks[] = { 0, 1, 7, 17, 64, 384 };
    int ran = 0;
    for (int kn = 0; kn < 3; kn++) {
        if (sp_gemm_use_kernel(names[kn]) != 0) { printf("ok # SKIP kernel %s: this CPU cannot run it\n", names[kn]); continue; }
        ran++;
        int bad = 0, n = 0;
        for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
            for (size_t b = 0; b < sizeof Ns / sizeof *Ns; b++)
                for (size_t c = 0; c < sizeof Ks / sizeof *Ks; c++) {
                    n++;
                    if (!one(Ms[a], Ns[b], Ks[c], (int)((a + b + c) % 3) * 5)) {
                        if (bad++ < 5) fprintf(stderr, "FAIL kernel %s: M=%d N=%d K=%d differs from the fmaf chain\n", names[kn], Ms[a], Ns[b], Ks[c]);
                    }
                }
        T_EQ_INT(bad, 0);
        /* a structural probe's sentence: G = T·Tᵀ (17 × 17 × 384) and A·T (17 × 384 × 17) */
        T_CHECK(one(17, 17, 384, 15));
        T_CHECK(one(17, 384, 17, 0));
        int tbad = 0;
        for (int tn = 1; tn <= 40; tn += 3)
            for (int td = 1; td <= 70; td += 23) tbad += !transposed(tn, td);
        T_CHECK(transposed(37, 384));
        T_EQ_INT(tbad, 0);
        /* attention's Qᵀ: 1152-float rows of Q|K|V, 384 columns, ld the queries rounded up to 16 */
        int sbad = 0;
        for (int tn = 1; tn <= 40; tn += 3) sbad += !transposed_strided(tn, 384, 1152, (tn + 15) / 16 * 16);
        sbad += !transposed_strided(17, 40, 45, 33) + !transposed_strided(5, 20, 64, 16);
        T_EQ_INT(sbad, 0);
        printf("kernel %s: %d shapes bit-exact with the fmaf chain; transposes exact\n", names[kn], n - bad);
    }
    T_CHECK(ran >= 1);
    return T_DONE();
}
