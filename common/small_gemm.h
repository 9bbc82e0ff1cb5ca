/* common/small_gemm.h — products too small to pay for packing: Y = X·W with W row-major as it lies.
 *
 * Every element is the chain of common/gemm.h's contract, one fused multiply-add chain over
 * k = 0..K-1 in order from 0, so these give the bits sp_gemm gives on the same operands, on
 * every kernel (AVX-512 by hand, AVX2 and plain C from the same C with fmaf). For the products
 * with a side of a few classes, a batch of 64 or a sentence's words: the classifier's steps, the
 * structural probe's per-sentence Gram matrix and gradient factor.
 *
 * W's rows are read in whole blocks of SP_SMALL_CB columns: each row must be readable up to
 * column SP_SMALL_CB·ceil(N/SP_SMALL_CB) (ldw at least that, or slack after the last row); the
 * extra columns are computed and dropped. */
#ifndef SP_SMALL_GEMM_H
#define SP_SMALL_GEMM_H

#define SP_SMALL_CB 32         /* the widest column block (AVX-512: 8 rows x 32 columns in flight) */

/* Y[M][N] (row stride ldy) = X[M][K] (ldx) · W[K][N] (ldw), this thread's kernel (sp_gemm_kernel) */
void sp_small_gemm(int M, int N, int K, const float *X, int ldx, const float *W, int ldw, float *Y, int ldy);

/* the row stride of sp_transpose_pad's result for n rows: n rounded up to SP_SMALL_CB */
static inline int sp_transpose_ld(int n) { return (n + SP_SMALL_CB - 1) / SP_SMALL_CB * SP_SMALL_CB; }

/* W (n rows × d, row stride d) -> Wᵀ (d rows × ld), ld = sp_transpose_ld(n), the padding columns
 * zero: a small product's right operand. Returns ld. Wt holds d·ld floats. */
int sp_transpose_pad(const float *W, int n, int d, float *Wt);
/* the same with W's row stride (ldw) and Wt's (ld >= n, zero in columns n..ld-1) given; 16 x 16
 * blocks in AVX-512 registers where ld is a multiple of 16 and the kernel is avx512 */
void sp_transpose_strided(const float *W, int ldw, int n, int d, float *Wt, int ld);

#endif
