/* common/expf.h — e^x over an array, the same bits on every CPU and kernel.
 *
 * Why not libm's expf: one call a value does not vectorise (16 % of a token probe's training went
 * to the softmax's expf), and glibc picks its expf by CPU at load time (an FMA and an SSE2
 * variant), which keeps no promise that two machines round alike. Here every value goes through
 * one fixed sequence of IEEE single-precision operations (Cephes' expf: n = floor(x·log2 e + ½),
 * r = x − n·ln2 in two parts, a degree-5 polynomial by fused multiply-adds, times 2ⁿ), which the
 * AVX-512, AVX2 and plain C versions evaluate lane by lane: the same bytes on every kernel.
 * Accuracy: 1 ulp of e^x at worst on a 2^20-point sweep of [−87.3, 88.4] (tests/unit/common_expf.c,
 * against double exp, allows 2);
 * below −87.33654 (e^x under the smallest normal float) the result is 0, above 88.37626 +inf,
 * NaN stays NaN. */
#ifndef SP_EXPF_H
#define SP_EXPF_H

/* x[i] = e^x[i] for i < n, with this thread's kernel (sp_gemm_kernel) */
void sp_expf_array(float *x, int n);

/* one value, the plain C sequence (the reference the vector versions equal) */
float sp_expf(float x);

#endif
