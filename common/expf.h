/* common/expf.h — synprobe's own e^x for x <= 0, the one the softmaxes use (the encoder's
 * attention and PSA, the probe classifiers).
 *
 * Why not libm's expf: one call a value does not vectorise (40% of PSAN's time; 16% of a token
 * probe's training), and glibc picks its expf by CPU at load time, which keeps no promise that
 * two machines round alike. This is straight-line float code (Cephes' expf: x = m·ln2 + r with
 * |r| <= ln2/2, a degree-7 polynomial for e^r, 2^m assembled in the exponent bits) with no fused
 * multiply-add (-std=c11 keeps fp-contract off), so every vectorised build gives the bits of the
 * scalar one; within 2 ulp of e^x on [-86.9, 0] (tests/unit/encoder_formulas.c). Arguments
 * below -87 give 2^-126·e^r instead of a denormal or 0, which no softmax weight can tell apart;
 * positive ones give 1; NaN stays NaN. Header-only so that the encoder's loops inline and
 * vectorise it (and nvcc may compile it). */
#ifndef SP_EXPF_H
#define SP_EXPF_H

#include <stdint.h>

#ifdef __CUDACC__
#define SP_EXPF_FN static __forceinline__ __host__ __device__
#else
#define SP_EXPF_FN static inline
#endif

SP_EXPF_FN float sp_exp_nonpos(float x)
{
    x = x > 0.0f ? 0.0f : x;
    x = x < -87.0f ? -87.0f : x;
    /* round to nearest by adding and removing 1.5·2^23 (SSE2 has no vector roundf) */
    float m = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    float r = x - m * 0.693359375f + m * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    /* x is in [-87, 0] here unless it is NaN; a NaN must come out as NaN (the encoder's
     * non-finite check names it) without an undefined float-to-int conversion on the way:
     * m's exponent is taken as 0 (m >= -126 for every number) and p, NaN, carries it out */
    float mc = m > -127.0f ? m : -127.0f;
    union { float f; int32_t i; } scale;
    scale.i = ((int32_t)mc + 127) << 23;
    return p * scale.f;
}

#ifndef __CUDACC__
/* x[i] = sp_exp_nonpos(x[i]) for i < n: vectorised (AVX-512, AVX2 or the baseline, picked at load
 * time), the bits of the scalar function */
void sp_exp_nonpos_array(float *x, int n);
#endif

#endif
