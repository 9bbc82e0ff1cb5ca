/* common/gemm.h — synprobe's own single-precision matrix product: Y[M,N] = init + X[M,K]·B[K,N].
 *
 * Why not BLAS: a row's result must not depend on how many rows share the product, on where the
 * row sits in it, or on how many threads compute it (the determinism contract, docs/reproducibility.md). OpenBLAS
 * keeps none of these on its Haswell/Zen kernels: the two halves of their 12-column register
 * block accumulate in different orders, so a row's bits depend on its position modulo 12.
 *
 * The contract here: every output element is ONE fused multiply-add chain over k = 0..K-1, in
 * order, from its initial value:
 *
 *     acc = init(i, j);   for k in 0..K-1: acc = fmaf(X[i][k], B[k][j], acc);   Y[i][j] = acc
 *
 * with init = (accumulate ? Y[i][j] : 0) + (bias ? bias[j] : 0). The AVX-512, AVX2+FMA and plain
 * C kernels evaluate exactly that chain lane by lane (a chain split across cache blocks resumes
 * from the stored partial, which is exact), so a row gets the same bytes whatever M, its
 * position, the blocking, the thread split or the kernel. fmaf is exactly rounded on every IEEE
 * machine: the plain C kernel gives the same bytes too (slowly where the CPU has no FMA unit).
 *
 * The BLAS path (sp_gemm_set_impl(SP_GEMM_BLAS), `--gemm blas`): the same products through
 * OpenBLAS's cblas_sgemm on the unpacked operand, on OpenBLAS's own threads. It keeps NONE of
 * the guarantees above (a row's bits depend on its position in OpenBLAS's register block and on
 * the thread split); it agrees with the own path to float rounding (tests/unit/common_gemm.c
 * states the tolerance). It is there to compare against, not the default: see docs/reproducibility.md, "--gemm own|blas".
 *
 * B is packed once into panels of SP_GEMM_NR columns (zero-padded), the layout every kernel
 * reads: weights are packed when loaded, per-call operands (attention) into a caller's buffer.
 * Weights in f16 or bf16 (a checkpoint's dtype) are packed in that dtype, half the bytes, and
 * each panel's block of k-values is widened to float on the thread that uses it, just before
 * the kernel reads it: the widening is exact, so the product has the same bits as the f32
 * product of the widened matrix, on every kernel (tests/unit/common_gemm.c). */
#ifndef SP_GEMM_H
#define SP_GEMM_H

#include "common/pool.h"

#include <stddef.h>
#include <stdint.h>

#define SP_GEMM_NR 32          /* columns per packed panel */

/* element types of a weight operand: f32, IEEE binary16, bfloat16 (little-endian uint16) */
enum sp_gemm_dtype { SP_GEMM_F32 = 0, SP_GEMM_F16, SP_GEMM_BF16 };

struct sp_gemm_b {
    int K, N;
    float *p;                  /* [ceil(N/NR)][K][NR], 64-byte aligned (dtype SP_GEMM_F32) */
    const float *w;            /* the operand as given to sp_gemm_pack (the BLAS path reads it); NULL:
                                * the BLAS path unpacks the panels */
    int ldw, trans;
    int dtype;                 /* enum sp_gemm_dtype of the panels: F16/BF16 ones are h */
    uint16_t *h;               /* [ceil(N/NR)][K][NR] halves, 64-byte aligned */
};

/* One block of columns of B given by a weight in its own layout and dtype: B[k][j0 + j] for
 * j < cols is w[k*ldw + j] (trans = 0) or w[j*ldw + k] (trans = 1), of dtype (enum sp_gemm_dtype). */
struct sp_gemm_part { const void *w; int dtype, cols, ldw, trans; };
/* bytes a packed [K, N] operand of dtype takes */
size_t sp_gemm_packed_bytes(int K, int N, int dtype);
/* Packs B = [parts[0] | parts[1] | ...] (sum of cols = N) into buf (64-byte aligned,
 * sp_gemm_packed_bytes(K, N, dtype)) as dtype: SP_GEMM_F32 widens every part exactly; F16 or
 * BF16 needs every part of that dtype (the halves are copied). The parts need not stay valid. */
void sp_gemm_pack_parts(struct sp_gemm_b *b, int K, int N, const struct sp_gemm_part *parts, int n_parts, int dtype,
                        void *buf);
/* exact widening of n halves of dtype (SP_GEMM_F16 or SP_GEMM_BF16) */
void sp_gemm_widen(int dtype, const uint16_t *src, float *dst, size_t n);

/* floats a packed [K, N] operand takes (a buffer for sp_gemm_pack must hold this many) */
size_t sp_gemm_packed_floats(int K, int N);
/* Packs W into buf (64-byte aligned, sp_gemm_packed_floats(K, N) floats); W must stay valid while
 * b is used (the BLAS path reads it). trans = 0: W is
 * [K, N] row-major (B[k][j] = W[k*ldw + j]); trans = 1: W is [N, K] (B[k][j] = W[j*ldw + k]). */
void sp_gemm_pack(struct sp_gemm_b *b, int K, int N, const float *W, int ldw, int trans, float *buf);
/* 64-byte aligned allocation for packed operands (free with free()); aborts on failure */
float *sp_gemm_alloc(size_t floats);

/* Y[M,N] = init + X[M,K]·B (see top). Y must not overlap X. Runs on the threads the calling
 * thread set (sp_gemm_set_threads) when the product is large enough; the result does not depend on it.
 *
 * Settings belong to the calling thread (common/gemm.c, "settings"): sp_gemm_set_threads,
 * sp_gemm_set_impl and sp_gemm_use_kernel change what products called from this thread do, and
 * nothing on other threads, so each stage sets them for itself. */
void sp_gemm(int M, const float *X, int ldx, const struct sp_gemm_b *B, const float *bias,
             int accumulate, float *Y, int ldy);

/* sp_gemm, then post(arg, Y block, rows, cols, ldy) on each finished block of Y (one item's block
 * on the own path: at most a hundred-odd rows of a range of columns; the whole Y in row blocks on
 * the BLAS path), on the thread that computed it, while it is still in cache: for element-wise work that follows
 * the product (an activation). post must be element-wise (each element's result from its own
 * value only), so the bits do not depend on the blocking. */
typedef void (*sp_gemm_post_fn)(void *arg, float *Y, int rows, int cols, int ldy);
void sp_gemm_post(int M, const float *X, int ldx, const struct sp_gemm_b *B, const float *bias,
                  int accumulate, float *Y, int ldy, sp_gemm_post_fn post, void *post_arg);

/* sp_gemm with A given by its rows where they lie (trans = 0: A[i][k] = rows[i][k]) or as the
 * transpose of such rows (trans = 1: A[i][k] = rows[k][off + i], K = B's rows), instead of one
 * strided matrix: a batch of sentences whose word vectors stay where they are, and its Xᵀ·M,
 * without gathering or transposing them first (the packing reads them). The same bits as sp_gemm
 * on the gathered A. */
struct sp_gemm_a { const float *const *rows; int trans, off; };
void sp_gemm_rows(int M, const struct sp_gemm_a *A, const struct sp_gemm_b *B, const float *bias, int accumulate, float *Y,
                  int ldy);

void sp_gemm_set_threads(int n);   /* this thread's products, default 1 */

enum sp_gemm_impl { SP_GEMM_OWN = 0, SP_GEMM_BLAS };
/* which implementation this thread's products run (default SP_GEMM_OWN) */
void sp_gemm_set_impl(enum sp_gemm_impl impl);
enum sp_gemm_impl sp_gemm_get_impl(void);
/* "own" | "blas" -> impl; -1 for anything else */
int sp_gemm_impl_parse(const char *name);
const char *sp_gemm_impl_name(enum sp_gemm_impl impl);
/* Runs fn(arg, item, worker) for every item in [0, n) on the GEMM's threads, the caller taking
 * items too (worker 0); worker < max_workers. Runs them all on the caller (worker 0) when one
 * thread is set, n < 2, the pool has more than max_workers threads, or another thread's job
 * holds the pool. For the row-local work beside the products (attention per sentence,
 * element-wise ops), whose results must not depend on the worker. A product inside an item
 * runs on the item's thread. */
void sp_gemm_parallel(int n, sp_pool_fn fn, void *arg, int max_workers);
int  sp_gemm_threads(void);
/* the kernel in use: "avx512", "avx2" or "c" (the best the CPU runs, or $SP_GEMM_KERNEL) */
const char *sp_gemm_kernel(void);
/* selects this thread's kernel by name; returns -1 (and keeps the current one) if the CPU cannot run it */
int  sp_gemm_use_kernel(const char *name);

#endif
