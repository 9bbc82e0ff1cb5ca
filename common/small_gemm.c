/* common/small_gemm.c — see small_gemm.h: products too small to pack, the GEMM's chain per element. */
#include "common/small_gemm.h"
#include "common/gemm.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#define SG_ROWS 4          /* rows per block (8 with AVX-512) */

/* Rows in blocks of 4 (8 with AVX-512: that many chains in flight), the last rows in blocks of
 * 4, 2 and 1 (a side of 17 classes is 8 + 8 + 1 rows, not 24); columns in blocks of 32 with
 * AVX-512 (16 chains in flight), else 16 (vectorised by the compiler: the same C compiled per
 * kernel, fmaf exactly rounded in each). */
#define SMALL_GEMM_ROWS(RBV, CBV, I0, I1)                                                        \
    for (int i0 = (I0); i0 + (RBV) <= (I1); i0 += (RBV)) {                                       \
        const float *xr[RBV];                                                                    \
        for (int r = 0; r < (RBV); r++) xr[r] = X + (size_t)(i0 + r) * ldx;                      \
        for (int j0 = 0; j0 < N; j0 += (CBV)) {                                                  \
            const int cols = N - j0 < (CBV) ? N - j0 : (CBV);                                    \
            float acc[RBV][CBV] = { { 0 } };                                                     \
            const float *w = W + j0;                                                             \
            for (int k = 0; k < K; k++, w += ldw) {                                              \
                _Pragma("GCC unroll 8")                                                          \
                for (int r = 0; r < (RBV); r++) {                                                \
                    const float a = xr[r][k];                                                    \
                    _Pragma("GCC unroll 32")                                                     \
                    for (int j = 0; j < (CBV); j++) acc[r][j] = fmaf(a, w[j], acc[r][j]);       \
                }                                                                                \
            }                                                                                    \
            for (int r = 0; r < (RBV); r++)                                                      \
                memcpy(Y + (size_t)(i0 + r) * ldy + j0, acc[r], sizeof(float) * (size_t)cols);   \
        }                                                                                        \
    }

/* the full blocks of RB rows, then the rest in blocks of 4, 2, 1; CB columns a block */
#define SMALL_GEMM_BODY(RB, CB)                                                                  \
    int m0 = M / (RB) * (RB);                                                                    \
    SMALL_GEMM_ROWS(RB, CB, 0, m0)                                                               \
    if ((RB) > 4 && M - m0 >= 4) { SMALL_GEMM_ROWS(4, CB, m0, m0 + 4) m0 += 4; }                \
    if (M - m0 >= 2) { SMALL_GEMM_ROWS(2, CB, m0, m0 + 2) m0 += 2; }                            \
    if (M - m0 >= 1) { SMALL_GEMM_ROWS(1, CB, m0, m0 + 1) }

typedef void (*small_gemm_fn)(int M, int N, int K, const float *X, int ldx, const float *W, int ldw, float *Y, int ldy);

static void small_gemm_c(int M, int N, int K, const float *X, int ldx, const float *W, int ldw, float *Y, int ldy)
{
    SMALL_GEMM_BODY(SG_ROWS, 16)
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SMALL_X86 1
__attribute__((target("avx2,fma")))
static void small_gemm_avx2(int M, int N, int K, const float *X, int ldx, const float *W, int ldw, float *Y, int ldy)
{
    SMALL_GEMM_BODY(SG_ROWS, 16)
}

/* R rows (1..8) x 32 columns by hand: 2R accumulators in registers (the compiler spilled the C
 * body's), each element the same fmaf chain (_mm512_fmadd_ps rounds once, as fmaf). Inlined
 * with R constant, so the row loops unroll and the accumulators stay in registers. */
__attribute__((target("avx512f"), always_inline))
static inline void rows_avx512(const int R, int N, int K, const float *const *xr, const float *W, int ldw, float *Y, int ldy)
{
    int j0 = 0;
    for (; j0 + 16 < N; j0 += 32) {
        __m512 acc[16];
        _Pragma("GCC unroll 16")
        for (int i = 0; i < 2 * R; i++) acc[i] = _mm512_setzero_ps();
        const float *w = W + j0;
        for (int k = 0; k < K; k++, w += ldw) {
            const __m512 w0 = _mm512_loadu_ps(w), w1 = _mm512_loadu_ps(w + 16);
            _Pragma("GCC unroll 8")
            for (int r = 0; r < R; r++) {
                const __m512 a = _mm512_set1_ps(xr[r][k]);
                acc[2 * r] = _mm512_fmadd_ps(a, w0, acc[2 * r]);
                acc[2 * r + 1] = _mm512_fmadd_ps(a, w1, acc[2 * r + 1]);
            }
        }
        const int cols = N - j0 < 32 ? N - j0 : 32;
        const __mmask16 m0 = cols >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << cols) - 1);
        const __mmask16 m1 = cols >= 32 ? (__mmask16)0xffff : cols > 16 ? (__mmask16)((1u << (cols - 16)) - 1) : 0;
        _Pragma("GCC unroll 8")
        for (int r = 0; r < R; r++) {
            _mm512_mask_storeu_ps(Y + (size_t)r * ldy + j0, m0, acc[2 * r]);
            _mm512_mask_storeu_ps(Y + (size_t)r * ldy + j0 + 16, m1, acc[2 * r + 1]);
        }
    }
    if (j0 < N) {                   /* at most 16 columns left: one vector a row (37 classes: 32 + 16, not 64) */
        __m512 acc[8];
        _Pragma("GCC unroll 8")
        for (int i = 0; i < R; i++) acc[i] = _mm512_setzero_ps();
        const float *w = W + j0;
        for (int k = 0; k < K; k++, w += ldw) {
            const __m512 w0 = _mm512_loadu_ps(w);
            _Pragma("GCC unroll 8")
            for (int r = 0; r < R; r++) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(xr[r][k]), w0, acc[r]);
        }
        const __mmask16 m0 = (__mmask16)((1u << (N - j0)) - 1);      /* N - j0 in 1..16 */
        _Pragma("GCC unroll 8")
        for (int r = 0; r < R; r++) _mm512_mask_storeu_ps(Y + (size_t)r * ldy + j0, m0, acc[r]);
    }
}

/* Rows in ceil(M/8) blocks of near-equal size (17 rows: 6 + 6 + 5, not 8 + 8 + 1; 37: 8 + 8 + 7
 * + 7 + 7): a block of fewer than 4 rows has too few chains in flight to keep the FMA units busy. */
__attribute__((target("avx512f")))
static void small_gemm_avx512(int M, int N, int K, const float *X, int ldx, const float *W, int ldw, float *Y, int ldy)
{
    const int nblk = (M + 7) / 8;
    for (int b = 0, i0 = 0; b < nblk; b++) {
        const int R = M / nblk + (b < M % nblk);
        const float *xr[8];
        for (int r = 0; r < R; r++) xr[r] = X + (size_t)(i0 + r) * ldx;
        float *y = Y + (size_t)i0 * ldy;
        switch (R) {
        case 8: rows_avx512(8, N, K, xr, W, ldw, y, ldy); break;
        case 7: rows_avx512(7, N, K, xr, W, ldw, y, ldy); break;
        case 6: rows_avx512(6, N, K, xr, W, ldw, y, ldy); break;
        case 5: rows_avx512(5, N, K, xr, W, ldw, y, ldy); break;
        case 4: rows_avx512(4, N, K, xr, W, ldw, y, ldy); break;
        case 3: rows_avx512(3, N, K, xr, W, ldw, y, ldy); break;
        case 2: rows_avx512(2, N, K, xr, W, ldw, y, ldy); break;
        default: rows_avx512(1, N, K, xr, W, ldw, y, ldy); break;
        }
        i0 += R;
    }
}
#endif

/* this thread's kernel (a pool worker runs the default one: every kernel gives the same bits) */
void sp_small_gemm(int M, int N, int K, const float *X, int ldx, const float *W, int ldw, float *Y, int ldy)
{
    small_gemm_fn fn = small_gemm_c;
#ifdef SMALL_X86
    const char *kn = sp_gemm_kernel();
    if (!strcmp(kn, "avx512")) fn = small_gemm_avx512;
    else if (!strcmp(kn, "avx2")) fn = small_gemm_avx2;
#endif
    fn(M, N, K, X, ldx, W, ldw, Y, ldy);
}

#ifdef SMALL_X86
/* columns [0, d16) of sp_transpose_pad, 16 x 16 blocks transposed in registers (the scalar loop
 * stored one float at a time: 6% of a token probe's training). Only moves data; the loops unrolled
 * (at -O2 the register arrays went to the stack: 10% of a token probe's training). */
__attribute__((target("avx512f")))
static void transpose_avx512(const float *W, int ldw, int n, int d16, int ld, float *Wt)
{
    for (int j0 = 0; j0 < ld; j0 += 16)
        for (int c0 = 0; c0 < d16; c0 += 16) {
            __m512 r[16], t[16], u[4][4];
            _Pragma("GCC unroll 16")
            for (int i = 0; i < 16; i++) r[i] = j0 + i < n ? _mm512_loadu_ps(W + (size_t)(j0 + i) * ldw + c0) : _mm512_setzero_ps();
            _Pragma("GCC unroll 8")
            for (int i = 0; i < 8; i++) {                 /* per 128-bit lane: rows 2i, 2i+1 interleaved */
                t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
                t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
            }
            _Pragma("GCC unroll 4")
            for (int g = 0; g < 4; g++) {                 /* u[g][j], lane L: rows 4g..4g+3 at column 4L + j */
                u[g][0] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[4 * g]), _mm512_castps_pd(t[4 * g + 2])));
                u[g][1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[4 * g]), _mm512_castps_pd(t[4 * g + 2])));
                u[g][2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[4 * g + 1]), _mm512_castps_pd(t[4 * g + 3])));
                u[g][3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[4 * g + 1]), _mm512_castps_pd(t[4 * g + 3])));
            }
            _Pragma("GCC unroll 4")
            for (int j = 0; j < 4; j++) {                 /* 128-bit lanes transposed: column 4L + j, rows 0..15 */
                const __m512 v0 = _mm512_shuffle_f32x4(u[0][j], u[1][j], 0x44), v1 = _mm512_shuffle_f32x4(u[0][j], u[1][j], 0xEE);
                const __m512 v2 = _mm512_shuffle_f32x4(u[2][j], u[3][j], 0x44), v3 = _mm512_shuffle_f32x4(u[2][j], u[3][j], 0xEE);
                _mm512_storeu_ps(Wt + (size_t)(c0 + j) * ld + j0, _mm512_shuffle_f32x4(v0, v2, 0x88));
                _mm512_storeu_ps(Wt + (size_t)(c0 + 4 + j) * ld + j0, _mm512_shuffle_f32x4(v0, v2, 0xDD));
                _mm512_storeu_ps(Wt + (size_t)(c0 + 8 + j) * ld + j0, _mm512_shuffle_f32x4(v1, v3, 0x88));
                _mm512_storeu_ps(Wt + (size_t)(c0 + 12 + j) * ld + j0, _mm512_shuffle_f32x4(v1, v3, 0xDD));
            }
        }
}
#endif

void sp_transpose_strided(const float *W, int ldw, int n, int d, float *Wt, int ld)
{
    int c = 0;
#ifdef SMALL_X86
    if (!(ld % 16) && !strcmp(sp_gemm_kernel(), "avx512")) {   /* whole blocks of 16 rows */
        c = d / 16 * 16;
        transpose_avx512(W, ldw, n, c, ld, Wt);
    }
#endif
    for (; c < d; c++) {
        float *dst = Wt + (size_t)c * ld;
        for (int j = 0; j < n; j++) dst[j] = W[(size_t)j * ldw + c];
        for (int j = n; j < ld; j++) dst[j] = 0.0f;
    }
}

int sp_transpose_pad(const float *W, int n, int d, float *Wt)
{
    const int ld = sp_transpose_ld(n);
    sp_transpose_strided(W, d, n, d, Wt, ld);
    return ld;
}
