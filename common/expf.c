/* common/expf.c — see expf.h: Cephes' expf as one fixed sequence of IEEE operations. */
#include "common/expf.h"
#include "common/gemm.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EXPF_X86 1
#include <immintrin.h>
#endif

#define HI 88.3762626647949f        /* above: +inf */
#define LO -87.3365478515625f       /* below: 0 (e^x under FLT_MIN) */
#define LOG2E 1.44269504088896341f
#define C1 0.693359375f             /* ln 2 = C1 + C2; C1 has 9 bits, so n·C1 is exact */
#define C2 -2.12194440e-4f
#define P0 1.9875691500e-4f
#define P1 1.3981999507e-3f
#define P2 8.3334519073e-3f
#define P3 4.1665795894e-2f
#define P4 1.6666665459e-1f
#define P5 5.0000001201e-1f

float sp_expf(float x)
{
    if (x != x) return x;
    if (x > HI) return INFINITY;
    if (x < LO) return 0.0f;
    const float fx = floorf(fmaf(x, LOG2E, 0.5f));
    float r = fmaf(fx, -C1, x);
    r = fmaf(fx, -C2, r);
    float p = P0;
    p = fmaf(p, r, P1);
    p = fmaf(p, r, P2);
    p = fmaf(p, r, P3);
    p = fmaf(p, r, P4);
    p = fmaf(p, r, P5);
    p = fmaf(p, r * r, r);
    p = p + 1.0f;
    const uint32_t bits = (uint32_t)((int32_t)fx + 127) << 23;     /* 2^n, n in [-126, 128] */
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

static void expf_c(float *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = sp_expf(x[i]);
}

#ifdef EXPF_X86
/* the same operations 16 lanes at a time; the tail through a masked load and store */
__attribute__((target("avx512f")))
static __m512 expf16(__m512 x)
{
    const __m512 fx = _mm512_roundscale_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(LOG2E), _mm512_set1_ps(0.5f)),
                                           _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fmadd_ps(fx, _mm512_set1_ps(-C1), x);
    r = _mm512_fmadd_ps(fx, _mm512_set1_ps(-C2), r);
    __m512 p = _mm512_set1_ps(P0);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(P1));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(P2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(P3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(P4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(P5));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r);
    p = _mm512_add_ps(p, _mm512_set1_ps(1.0f));
    const __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvttps_epi32(fx), _mm512_set1_epi32(127)), 23);
    __m512 y = _mm512_mul_ps(p, _mm512_castsi512_ps(e));
    y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(HI), _CMP_GT_OQ), y, _mm512_set1_ps(INFINITY));
    y = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(LO), _CMP_LT_OQ), y, _mm512_setzero_ps());
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), y, x);
}

__attribute__((target("avx512f")))
static void expf_avx512(float *x, int n)
{
    int i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, expf16(_mm512_loadu_ps(x + i)));
    if (i < n) {
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(x + i, m, expf16(_mm512_maskz_loadu_ps(m, x + i)));
    }
}

__attribute__((target("avx2,fma")))
static __m256 expf8(__m256 x)
{
    const __m256 fx = _mm256_floor_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(LOG2E), _mm256_set1_ps(0.5f)));
    __m256 r = _mm256_fmadd_ps(fx, _mm256_set1_ps(-C1), x);
    r = _mm256_fmadd_ps(fx, _mm256_set1_ps(-C2), r);
    __m256 p = _mm256_set1_ps(P0);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(P1));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(P2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(P3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(P4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(P5));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r);
    p = _mm256_add_ps(p, _mm256_set1_ps(1.0f));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(fx), _mm256_set1_epi32(127)), 23);
    __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
    y = _mm256_blendv_ps(y, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(x, _mm256_set1_ps(HI), _CMP_GT_OQ));
    y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, _mm256_set1_ps(LO), _CMP_LT_OQ));
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

__attribute__((target("avx2,fma")))
static void expf_avx2(float *x, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, expf8(_mm256_loadu_ps(x + i)));
    expf_c(x + i, n - i);
}
#endif

void sp_expf_array(float *x, int n)
{
#ifdef EXPF_X86
    const char *kn = sp_gemm_kernel();
    if (!strcmp(kn, "avx512")) { expf_avx512(x, n); return; }
    if (!strcmp(kn, "avx2")) { expf_avx2(x, n); return; }
#endif
    expf_c(x, n);
}
