/* probes/erasers.h — concept erasure: LEACE in closed form, INLP, and a random-direction control.
 *
 * Every eraser is a rank-r affine map, stored implicitly (as concept-erasure's LeaceEraser):
 *
 *     x' = x - L (R (x - mu))        L: d×r (stored as r rows of d), R: r×d, mu: d
 *
 * LEACE (Belrose et al. 2023, "LEACE: Perfect linear concept erasure in closed form"; the
 * reference is the concept-erasure package 0.2.4, LeaceFitter with method "leace", affine,
 * svd_tol 0.01, shrinkage off unless asked): mu = mean of X, Sxx = the covariance of X with
 * Bessel's correction (with shrinkage: the package's optimal linear shrinkage of Sxx·(n-1)/n
 * towards tr/d·I), Sxz = the cross-covariance of X and the one-hot concept Z (/(n-1)).
 * Sxx = V diag(λ) Vᵀ; W = V diag(λ^-½) Vᵀ and W⁺ = V diag(λ^½) Vᵀ over the eigenvalues above
 * λmax·d·ε (torch.linalg.pinv's cut, the others 0); U = the left singular vectors of W·Sxz with
 * singular value > svd_tol; L = W⁺U, R = UᵀW, r = rank(U). The package's trace constraint never
 * acts on this map (tr(PΣPᵀ) = tr Σ − tr(UᵀW⁺W⁺U) ≤ tr Σ with P = I − LR, Σ the Sxx used;
 * prb_leace_fit reports both traces so a caller can show it). All of it in double.
 * The one-hot classes of a k-class concept span k-1 directions after centring: r <= k-1.
 *
 * INLP (Ravfogel et al. 2020): N times, train synprobe's logistic-regression probe
 * (probes/classifier.h) on the training rows projected onto the null space of every direction
 * removed so far, early-stopped on the dev rows; add its weight rows (k×d) to the removed
 * directions (Gram-Schmidt in double, a direction whose remainder is under 1e-8 of its norm is
 * dropped). L = R = the orthonormal basis Bᵀ, mu = 0: x' = x − BᵀB x.
 *
 * Random (Elazar et al. 2021's control): r orthonormal directions drawn from a seeded Gaussian,
 * the same orthogonal projection as INLP's. */
#ifndef PRB_ERASERS_H
#define PRB_ERASERS_H

#include <stdint.h>

#include "probes/classifier.h"

struct prb_eraser {
    int d, rank;
    double *mu;               /* [d] (zeros for orthogonal projections) */
    double *left;             /* [rank][d]: column j of L is left + j*d */
    double *right;            /* [rank][d]: row j of R */
    /* LEACE's diagnostics */
    int cov_rank;             /* eigenvalues of Sxx kept by the pinv cut */
    double trace_before, trace_after;   /* tr Σ, tr(P Σ Pᵀ) */
    double shrink_alpha;      /* the shrinkage's weight on Sxx (1 without shrinkage) */
};
void prb_eraser_free(struct prb_eraser *e);

#define PRB_LEACE_SVD_TOL 0.01

/* LEACE on the n rows rows[0..n) of X (d floats a row; rows NULL: rows 0..n-1), z[i] in [0, k)
 * the class of row i. 0, or -1 with err (n < 2, k < 1, a class out of range). threads >= 1:
 * the covariance's threads (the result does not depend on them). */
int prb_leace_fit(const float *X, const int *rows, int n, int d, const int *z, int k, int shrinkage, int threads,
                  struct prb_eraser *e, char *err, size_t errlen);

/* INLP: iterations classifiers (cfg: nhid must be 0) trained on rows tr[0..ntr) (labels y[i] of
 * row tr[i]... y is indexed by the row of X, as in prb_clf_fit) early-stopped on dv[0..ndv).
 * acc_iter[it] (may be NULL; [iterations]): each classifier's dev accuracy (fraction) before its
 * directions were removed. 0, or -1 with err. */
int prb_inlp_fit(const float *X, int nrows, int d, const int *y, int k, const int *tr, int ntr, const int *dv, int ndv,
                 const struct prb_train_cfg *cfg, int iterations, double *acc_iter, struct prb_eraser *e, char *err,
                 size_t errlen);

/* rank orthonormal random directions from seed (rank <= d). */
void prb_random_eraser(int d, int rank, uint64_t seed, struct prb_eraser *e);

/* The covariance's tiles and the erasure's rows run on AVX-512 / AVX2+FMA where the CPU has them,
 * with the same arithmetic as the plain C (one fma chain per element in a fixed order), so every
 * path gives the same bits; SP_ERASE_TILE=plain|avx2 picks a path (the unit test compares them). */

/* out[i] = the erased row rows[i] of X (rows NULL: row i), n rows of d floats, in double then
 * rounded to float. out may be X when rows is NULL. threads >= 1. */
void prb_eraser_apply(const struct prb_eraser *e, const float *X, const int *rows, long n, float *out, int threads);

/* A symmetric eigendecomposition (Householder tridiagonalisation + implicit QL, as EISPACK's
 * tred2/tql2): A (n×n, row-major, symmetric) is overwritten by the eigenvectors, row j the
 * vector of eigenvalue w[j], w ascending. 0, or -1 when QL did not converge. */
int prb_eigh(int n, double *A, double *w);

#endif
