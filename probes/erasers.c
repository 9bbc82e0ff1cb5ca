/* probes/erasers.c — LEACE, INLP and random-direction erasers (see probes/erasers.h). */
#include "probes/erasers.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pool.h"

void prb_eraser_free(struct prb_eraser *e)
{
    free(e->mu);
    free(e->left);
    free(e->right);
    memset(e, 0, sizeof *e);
}

/* ---- the symmetric eigendecomposition ---- */

/* EISPACK tred2 / tql2 in the form JAMA gives them, with V kept transposed (T[c*n + r] = V[r][c])
 * so every inner loop runs along a row of T; the eigenvectors, V's columns, end up as T's rows. */
#define V_(r, c) T[(size_t)(c) * (size_t)n + (size_t)(r)]

static void tred2(int n, double *T, double *d, double *e)
{
    for (int j = 0; j < n; j++) d[j] = V_(n - 1, j);
    for (int i = n - 1; i > 0; i--) {
        double scale = 0.0, h = 0.0;
        for (int k = 0; k < i; k++) scale += fabs(d[k]);
        if (scale == 0.0) {
            e[i] = d[i - 1];
            for (int j = 0; j < i; j++) {
                d[j] = V_(i - 1, j);
                V_(i, j) = 0.0;
                V_(j, i) = 0.0;
            }
        } else {
            for (int k = 0; k < i; k++) {
                d[k] /= scale;
                h += d[k] * d[k];
            }
            double f = d[i - 1], g = sqrt(h);
            if (f > 0) g = -g;
            e[i] = scale * g;
            h -= f * g;
            d[i - 1] = f - g;
            for (int j = 0; j < i; j++) e[j] = 0.0;
            for (int j = 0; j < i; j++) {
                f = d[j];
                V_(j, i) = f;
                g = e[j] + V_(j, j) * f;
                double *tj = &V_(0, j);
                for (int k = j + 1; k <= i - 1; k++) {
                    g += tj[k] * d[k];
                    e[k] += tj[k] * f;
                }
                e[j] = g;
            }
            f = 0.0;
            for (int j = 0; j < i; j++) {
                e[j] /= h;
                f += e[j] * d[j];
            }
            double hh = f / (h + h);
            for (int j = 0; j < i; j++) e[j] -= hh * d[j];
            for (int j = 0; j < i; j++) {
                f = d[j];
                g = e[j];
                double *tj = &V_(0, j);
                for (int k = j; k <= i - 1; k++) tj[k] -= (f * e[k] + g * d[k]);
                d[j] = V_(i - 1, j);
                V_(i, j) = 0.0;
            }
        }
        d[i] = h;
    }
    /* accumulate the transformations */
    for (int i = 0; i < n - 1; i++) {
        V_(n - 1, i) = V_(i, i);
        V_(i, i) = 1.0;
        double h = d[i + 1];
        double *ti1 = &V_(0, i + 1);
        if (h != 0.0) {
            for (int k = 0; k <= i; k++) d[k] = ti1[k] / h;
            for (int j = 0; j <= i; j++) {
                double g = 0.0, *tj = &V_(0, j);
                for (int k = 0; k <= i; k++) g += ti1[k] * tj[k];
                for (int k = 0; k <= i; k++) tj[k] -= g * d[k];
            }
        }
        for (int k = 0; k <= i; k++) ti1[k] = 0.0;
    }
    for (int j = 0; j < n; j++) {
        d[j] = V_(n - 1, j);
        V_(n - 1, j) = 0.0;
    }
    V_(n - 1, n - 1) = 1.0;
    e[0] = 0.0;
}

static int tql2(int n, double *T, double *d, double *e)
{
    for (int i = 1; i < n; i++) e[i - 1] = e[i];
    e[n - 1] = 0.0;
    double f = 0.0, tst1 = 0.0;
    const double eps = DBL_EPSILON;
    for (int l = 0; l < n; l++) {
        tst1 = fmax(tst1, fabs(d[l]) + fabs(e[l]));
        int m = l;
        while (m < n) {
            if (fabs(e[m]) <= eps * tst1) break;
            m++;
        }
        if (m == n) m = n - 1;          /* e[n-1] is 0: never reached */
        if (m > l) {
            int iter = 0;
            do {
                if (++iter > 60) return -1;
                double g = d[l], p = (d[l + 1] - g) / (2.0 * e[l]), r = hypot(p, 1.0);
                if (p < 0) r = -r;
                d[l] = e[l] / (p + r);
                d[l + 1] = e[l] * (p + r);
                double dl1 = d[l + 1], h = g - d[l];
                for (int i = l + 2; i < n; i++) d[i] -= h;
                f += h;
                p = d[m];
                double c = 1.0, c2 = c, c3 = c, el1 = e[l + 1], s = 0.0, s2 = 0.0;
                for (int i = m - 1; i >= l; i--) {
                    c3 = c2;
                    c2 = c;
                    s2 = s;
                    g = c * e[i];
                    h = c * p;
                    r = hypot(p, e[i]);
                    e[i + 1] = s * r;
                    s = e[i] / r;
                    c = p / r;
                    p = c * d[i] - s * g;
                    d[i + 1] = h + s * (c * g + s * d[i]);
                    double *a = &V_(0, i), *b = &V_(0, i + 1);   /* columns i, i+1 of V: rows of T */
                    for (int k = 0; k < n; k++) {
                        double hk = b[k];
                        b[k] = s * a[k] + c * hk;
                        a[k] = c * a[k] - s * hk;
                    }
                }
                p = -s * s2 * c3 * el1 * e[l] / dl1;
                e[l] = s * p;
                d[l] = c * p;
            } while (fabs(e[l]) > eps * tst1);
        }
        d[l] += f;
        e[l] = 0.0;
    }
    return 0;
}
#undef V_

int prb_eigh(int n, double *A, double *w)
{
    if (n <= 0) return 0;
    double *e = calloc((size_t)n, sizeof *e), *row = malloc(sizeof *row * (size_t)n);
    if (!e || !row) { free(e); free(row); return -1; }
    tred2(n, A, w, e);
    int rc = tql2(n, A, w, e);
    /* ascending, vectors along (selection sort: n swaps of a row at most) */
    for (int i = 0; rc == 0 && i < n - 1; i++) {
        int k = i;
        for (int j = i + 1; j < n; j++) if (w[j] < w[k]) k = j;
        if (k == i) continue;
        double t = w[i]; w[i] = w[k]; w[k] = t;
        memcpy(row, A + (size_t)i * n, sizeof *row * (size_t)n);
        memcpy(A + (size_t)i * n, A + (size_t)k * n, sizeof *row * (size_t)n);
        memcpy(A + (size_t)k * n, row, sizeof *row * (size_t)n);
    }
    free(e);
    free(row);
    return rc;
}

/* ---- the covariance ---- */

/* C += Bᵀ B over blocks of centred rows, in double: B's block is packed in panels of 8 columns,
 * P[p][b][0..7] = row b's columns 8p..8p+7 (zero beyond d), and an 8×16 tile of C (the rows of
 * panel pi, the columns of panels pj, pj+1) takes its block in one pass. Every element of C is one
 * chain c = fma(a, b, c) over the rows in order, whatever the tile's shape inside: the AVX-512,
 * AVX2 and plain tiles give the same bits, and how the tiles are shared out among threads changes
 * nothing. */
struct cov_job {
    const float *X;
    const int *rows;
    int n, d, dp;             /* dp: d rounded up to 16 */
    const double *mu;
    double *C;                /* dp×dp; the upper triangle's tiles are filled */
    int n_items;
    int *cut;                 /* [n_items + 1] bounds of the row panels (of 8) of each item */
};

#define COV_BLOCK 256

typedef void (*cov_tile_fn)(int nb, const double *Pi, const double *Pj0, const double *Pj1, double *C, int ldc);

static void tile_plain(int nb, const double *Pi, const double *Pj0, const double *Pj1, double *C, int ldc)
{
    for (int r0 = 0; r0 < 8; r0 += 4) {
        double c[4][16];
        for (int r = 0; r < 4; r++) memcpy(c[r], C + (size_t)(r0 + r) * ldc, sizeof c[r]);
        for (int b = 0; b < nb; b++)
            for (int r = 0; r < 4; r++) {
                double a = Pi[8 * b + r0 + r];
                for (int q = 0; q < 8; q++) {
                    c[r][q] = fma(a, Pj0[8 * b + q], c[r][q]);
                    c[r][8 + q] = fma(a, Pj1[8 * b + q], c[r][8 + q]);
                }
            }
        for (int r = 0; r < 4; r++) memcpy(C + (size_t)(r0 + r) * ldc, c[r], sizeof c[r]);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx2,fma")))
static void tile_avx2(int nb, const double *Pi, const double *Pj0, const double *Pj1, double *C, int ldc)
{
    for (int r0 = 0; r0 < 8; r0 += 4)
        for (int h = 0; h < 16; h += 8) {          /* 4 rows × 8 columns at a time */
            const double *Pj = h ? Pj1 : Pj0;
            __m256d c0[4], c1[4];
            for (int r = 0; r < 4; r++) {
                c0[r] = _mm256_loadu_pd(C + (size_t)(r0 + r) * ldc + h);
                c1[r] = _mm256_loadu_pd(C + (size_t)(r0 + r) * ldc + h + 4);
            }
            for (int b = 0; b < nb; b++) {
                const __m256d b0 = _mm256_loadu_pd(Pj + 8 * b), b1 = _mm256_loadu_pd(Pj + 8 * b + 4);
                for (int r = 0; r < 4; r++) {
                    const __m256d a = _mm256_broadcast_sd(Pi + 8 * b + r0 + r);
                    c0[r] = _mm256_fmadd_pd(a, b0, c0[r]);
                    c1[r] = _mm256_fmadd_pd(a, b1, c1[r]);
                }
            }
            for (int r = 0; r < 4; r++) {
                _mm256_storeu_pd(C + (size_t)(r0 + r) * ldc + h, c0[r]);
                _mm256_storeu_pd(C + (size_t)(r0 + r) * ldc + h + 4, c1[r]);
            }
        }
}

__attribute__((target("avx512f")))
static void tile_avx512(int nb, const double *Pi, const double *Pj0, const double *Pj1, double *C, int ldc)
{
    __m512d c0[8], c1[8];
    for (int r = 0; r < 8; r++) {
        c0[r] = _mm512_loadu_pd(C + (size_t)r * ldc);
        c1[r] = _mm512_loadu_pd(C + (size_t)r * ldc + 8);
    }
    for (int b = 0; b < nb; b++) {
        const __m512d b0 = _mm512_loadu_pd(Pj0 + 8 * b), b1 = _mm512_loadu_pd(Pj1 + 8 * b);
        for (int r = 0; r < 8; r++) {
            const __m512d a = _mm512_set1_pd(Pi[8 * b + r]);
            c0[r] = _mm512_fmadd_pd(a, b0, c0[r]);
            c1[r] = _mm512_fmadd_pd(a, b1, c1[r]);
        }
    }
    for (int r = 0; r < 8; r++) {
        _mm512_storeu_pd(C + (size_t)r * ldc, c0[r]);
        _mm512_storeu_pd(C + (size_t)r * ldc + 8, c1[r]);
    }
}
static int have_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
static cov_tile_fn cov_tile(void)
{
    const char *force = getenv("SP_ERASE_TILE");      /* plain|avx2: the tests compare the paths */
    if (force && !strcmp(force, "plain")) return tile_plain;
    if (__builtin_cpu_supports("avx512f") && !(force && !strcmp(force, "avx2"))) return tile_avx512;
    return have_avx2() ? tile_avx2 : tile_plain;
}
#else
static int have_avx2(void) { return 0; }
static cov_tile_fn cov_tile(void) { return tile_plain; }
#endif

static void cov_item(void *arg, int item, int worker)
{
    (void)worker;
    struct cov_job *j = arg;
    const int d = j->d, dp = j->dp, np = dp / 8, p0 = j->cut[item], p1 = j->cut[item + 1];
    if (p0 >= p1) return;
    cov_tile_fn tile = cov_tile();
    double *P = malloc(sizeof *P * (size_t)COV_BLOCK * (size_t)dp);
    if (!P) abort();
    const int pstart = p0 / 2 * 2;            /* the first panel this item reads: its first tile column */
    for (int r0 = 0; r0 < j->n; r0 += COV_BLOCK) {
        int nb = j->n - r0 < COV_BLOCK ? j->n - r0 : COV_BLOCK;
        for (int b = 0; b < nb; b++) {
            const float *x = j->X + (size_t)(j->rows ? j->rows[r0 + b] : r0 + b) * (size_t)d;
            for (int p = pstart; p < np; p++)
                for (int q = 0; q < 8; q++) {
                    int c = 8 * p + q;
                    P[((size_t)p * COV_BLOCK + b) * 8 + q] = c < d ? (double)x[c] - j->mu[c] : 0.0;
                }
        }
        for (int pi = p0; pi < p1; pi++)
            for (int pj = pi / 2 * 2; pj < np; pj += 2)
                tile(nb, P + (size_t)pi * COV_BLOCK * 8, P + (size_t)pj * COV_BLOCK * 8, P + (size_t)(pj + 1) * COV_BLOCK * 8,
                     j->C + (size_t)(8 * pi) * dp + 8 * pj, dp);
    }
    free(P);
}

/* Σ (xi - mu)(xi - mu)ᵀ over the rows, full symmetric d×d (not divided). */
static void scatter(const float *X, const int *rows, int n, int d, const double *mu, double *C, int threads)
{
    int dp = (d + 15) / 16 * 16, np = dp / 8;
    double *Cp = calloc((size_t)dp * (size_t)dp, sizeof *Cp);
    if (!Cp) abort();
    struct cov_job j = { X, rows, n, d, dp, mu, Cp, 0, NULL };
    j.n_items = threads > 1 ? 2 * threads : 1;
    if (j.n_items > np) j.n_items = np;
    j.cut = malloc(sizeof *j.cut * (size_t)(j.n_items + 1));
    /* equal shares of the upper triangle's area: row panel p has about dp - 8p entries a row */
    double total = 0.0, acc = 0.0;
    for (int p = 0; p < np; p++) total += dp - 8 * p;
    int it = 0;
    j.cut[0] = 0;
    for (int p = 0; p < np && it < j.n_items - 1; p++) {
        acc += dp - 8 * p;
        if (acc >= total * (it + 1) / j.n_items) j.cut[++it] = p + 1;
    }
    while (it < j.n_items) j.cut[++it] = np;
    sp_pool_run_once(threads, j.n_items, cov_item, &j);
    free(j.cut);
    for (int i = 0; i < d; i++)
        for (int c = 0; c < d; c++) C[(size_t)i * d + c] = c >= i ? Cp[(size_t)i * dp + c] : Cp[(size_t)c * dp + i];
    free(Cp);
}

/* ---- LEACE ---- */

static int fail(char *err, size_t errlen, const char *msg)
{
    snprintf(err, errlen, "%s", msg);
    return -1;
}

int prb_leace_fit(const float *X, const int *rows, int n, int d, const int *z, int k, int shrinkage, int threads,
                  struct prb_eraser *e, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    if (n < 2) return fail(err, errlen, "LEACE needs at least 2 rows to fit on");
    if (k < 1 || d < 1) return fail(err, errlen, "LEACE needs a concept with a class and vectors");
    for (int i = 0; i < n; i++)
        if (z[i] < 0 || z[i] >= k) return fail(err, errlen, "LEACE: a class id out of range");
    const size_t dd = (size_t)d * (size_t)d;
    double *mu = calloc((size_t)d, sizeof *mu), *muz = calloc((size_t)k, sizeof *muz);
    double *S = malloc(sizeof *S * dd), *w = malloc(sizeof *w * (size_t)d);
    double *Sxz = calloc((size_t)d * (size_t)k, sizeof *Sxz);     /* d×k */
    if (!mu || !muz || !S || !w || !Sxz) abort();
    /* means */
    for (int i = 0; i < n; i++) {
        const float *x = X + (size_t)(rows ? rows[i] : i) * (size_t)d;
        for (int c = 0; c < d; c++) mu[c] += x[c];
        muz[z[i]] += 1.0;
    }
    for (int c = 0; c < d; c++) mu[c] /= n;
    for (int c = 0; c < k; c++) muz[c] /= n;
    /* cross-covariance: Σ (x - mu)(z - muz)ᵀ / (n - 1) */
    {
        double *xs = calloc((size_t)d * (size_t)k, sizeof *xs), *tot = calloc((size_t)d, sizeof *tot);
        if (!xs || !tot) abort();
        for (int i = 0; i < n; i++) {
            const float *x = X + (size_t)(rows ? rows[i] : i) * (size_t)d;
            double *o = xs + (size_t)z[i] * d;          /* class sums of centred x, [k][d] */
            for (int c = 0; c < d; c++) {
                double v = (double)x[c] - mu[c];
                o[c] += v;
                tot[c] += v;
            }
        }
        /* Σ_i (x_i - mu)(1[z_i = j] - muz_j) = classsum_j - muz_j Σ_i (x_i - mu) */
        for (int c = 0; c < d; c++)
            for (int j = 0; j < k; j++) Sxz[(size_t)c * k + j] = (xs[(size_t)j * d + c] - muz[j] * tot[c]) / (n - 1);
        free(xs);
        free(tot);
    }
    /* covariance */
    scatter(X, rows, n, d, mu, S, threads > 0 ? threads : 1);
    e->shrink_alpha = 1.0;
    if (!shrinkage) {
        for (size_t q = 0; q < dd; q++) S[q] /= (n - 1);
    } else {
        /* concept-erasure's optimal_linear_shrinkage(S_hat / n, n) */
        for (size_t q = 0; q < dd; q++) S[q] /= n;
        double tr = 0.0, fro = 0.0;
        for (int c = 0; c < d; c++) tr += S[(size_t)c * d + c];
        for (size_t q = 0; q < dd; q++) fro += S[q] * S[q];
        double s0n = tr * tr / d, prod = s0n;        /* ‖tr/d·I‖², tr(S · tr/d·I) */
        double top = tr * tr * s0n / n, bottom = fro * s0n - prod * prod;
        double alpha = 1.0 - (top + DBL_EPSILON) / (bottom + DBL_EPSILON);
        double beta = (1.0 - alpha) * (prod + DBL_EPSILON) / (s0n + DBL_EPSILON);
        for (size_t q = 0; q < dd; q++) S[q] *= alpha;
        for (int c = 0; c < d; c++) S[(size_t)c * d + c] += beta * tr / d;
        e->shrink_alpha = alpha;
    }
    double trace_before = 0.0;
    for (int c = 0; c < d; c++) trace_before += S[(size_t)c * d + c];
    /* S = Vᵀ diag(w) V (rows of S become the eigenvectors) */
    if (prb_eigh(d, S, w)) {
        free(mu); free(muz); free(S); free(w); free(Sxz);
        return fail(err, errlen, "LEACE: the covariance's eigendecomposition did not converge");
    }
    double cut = w[d - 1] * d * DBL_EPSILON;
    double *isq = malloc(sizeof *isq * (size_t)d), *sq = malloc(sizeof *sq * (size_t)d);
    int cov_rank = 0;
    for (int c = 0; c < d; c++) {
        int keep = w[c] > cut;
        double l = w[c] > 0 ? w[c] : 0.0;
        isq[c] = keep ? 1.0 / sqrt(l) : 0.0;
        sq[c] = keep ? sqrt(l) : 0.0;
        cov_rank += keep;
    }
    /* A = W Sxz = Vᵀ diag(isq) V Sxz   (d×k); T = V Sxz (k columns, d rows of eigen-coordinates) */
    double *Tm = calloc((size_t)d * (size_t)k, sizeof *Tm), *A = calloc((size_t)d * (size_t)k, sizeof *A);
    for (int a = 0; a < d; a++) {
        const double *v = S + (size_t)a * d;
        double *t = Tm + (size_t)a * k;
        for (int c = 0; c < d; c++) {
            const double *sx = Sxz + (size_t)c * k;
            for (int j = 0; j < k; j++) t[j] += v[c] * sx[j];
        }
        for (int j = 0; j < k; j++) t[j] *= isq[a];
    }
    for (int a = 0; a < d; a++) {            /* A += v_a ⊗ t_a */
        const double *v = S + (size_t)a * d, *t = Tm + (size_t)a * k;
        for (int c = 0; c < d; c++)
            for (int j = 0; j < k; j++) A[(size_t)c * k + j] += v[c] * t[j];
    }
    /* thin SVD of A through AᵀA = Q diag(s²) Qᵀ: u_j = A q_j / s_j */
    double *G = calloc((size_t)k * (size_t)k, sizeof *G), *s2 = malloc(sizeof *s2 * (size_t)k);
    for (int c = 0; c < d; c++)
        for (int i = 0; i < k; i++)
            for (int j = 0; j < k; j++) G[(size_t)i * k + j] += A[(size_t)c * k + i] * A[(size_t)c * k + j];
    int rc = prb_eigh(k, G, s2);
    double *U = calloc((size_t)d * (size_t)k, sizeof *U);   /* [r][d] */
    int r = 0;
    for (int q = k - 1; rc == 0 && q >= 0; q--) {
        double s = s2[q] > 0 ? sqrt(s2[q]) : 0.0;
        if (!(s > PRB_LEACE_SVD_TOL)) continue;
        const double *qv = G + (size_t)q * k;
        double *u = U + (size_t)r * d;
        for (int c = 0; c < d; c++) {
            double acc = 0.0;
            for (int j = 0; j < k; j++) acc += A[(size_t)c * k + j] * qv[j];
            u[c] = acc / s;
        }
        r++;
    }
    if (rc) {
        free(mu); free(muz); free(S); free(w); free(Sxz); free(isq); free(sq); free(Tm); free(A); free(G); free(s2); free(U);
        return fail(err, errlen, "LEACE: the cross-covariance's decomposition did not converge");
    }
    /* L = W⁺ U, R = Uᵀ W (W, W⁺ symmetric: row j of R = W u_j) */
    e->d = d;
    e->rank = r;
    e->mu = mu;
    e->left = calloc((size_t)(r ? r : 1) * (size_t)d, sizeof *e->left);
    e->right = calloc((size_t)(r ? r : 1) * (size_t)d, sizeof *e->right);
    double *cu = malloc(sizeof *cu * (size_t)d);
    for (int j = 0; j < r; j++) {
        const double *u = U + (size_t)j * d;
        for (int a = 0; a < d; a++) {        /* cu = V u */
            const double *v = S + (size_t)a * d;
            double acc = 0.0;
            for (int c = 0; c < d; c++) acc += v[c] * u[c];
            cu[a] = acc;
        }
        double *L = e->left + (size_t)j * d, *R = e->right + (size_t)j * d;
        for (int a = 0; a < d; a++) {
            const double *v = S + (size_t)a * d;
            double fl = sq[a] * cu[a], fr = isq[a] * cu[a];
            for (int c = 0; c < d; c++) {
                L[c] += v[c] * fl;
                R[c] += v[c] * fr;
            }
        }
    }
    /* tr(P Σ Pᵀ) with P = I − L R: tr Σ − 2 tr(R Σ L) + tr(L R Σ Rᵀ Lᵀ), Σ = Vᵀ diag(w) V */
    {
        double t2 = 0.0, t3 = 0.0;
        double *SL = malloc(sizeof *SL * (size_t)(r ? r : 1) * (size_t)d);   /* rows: Σ l_j */
        double *SR = malloc(sizeof *SR * (size_t)(r ? r : 1) * (size_t)d);   /* rows: Σ r_j */
        for (int j = 0; j < r; j++) {
            const double *vecs[2] = { e->left + (size_t)j * d, e->right + (size_t)j * d };
            double *outs[2] = { SL + (size_t)j * d, SR + (size_t)j * d };
            for (int h = 0; h < 2; h++) {
                for (int a = 0; a < d; a++) {
                    const double *v = S + (size_t)a * d;
                    double acc = 0.0;
                    for (int c = 0; c < d; c++) acc += v[c] * vecs[h][c];
                    cu[a] = acc * w[a];
                }
                memset(outs[h], 0, sizeof *outs[h] * (size_t)d);
                for (int a = 0; a < d; a++) {
                    const double *v = S + (size_t)a * d;
                    for (int c = 0; c < d; c++) outs[h][c] += v[c] * cu[a];
                }
            }
        }
        for (int j = 0; j < r; j++) {
            const double *rj = e->right + (size_t)j * d;
            for (int c = 0; c < d; c++) t2 += rj[c] * SL[(size_t)j * d + c];
        }
        /* tr(L (R Σ Rᵀ) Lᵀ) = Σ_ij (R Σ Rᵀ)_ij (LᵀL)_ji */
        for (int i = 0; i < r; i++)
            for (int j = 0; j < r; j++) {
                double a = 0.0, b = 0.0;
                for (int c = 0; c < d; c++) {
                    a += e->right[(size_t)i * d + c] * SR[(size_t)j * d + c];
                    b += e->left[(size_t)j * d + c] * e->left[(size_t)i * d + c];
                }
                t3 += a * b;
            }
        e->trace_before = trace_before;
        e->trace_after = trace_before - 2.0 * t2 + t3;
        free(SL);
        free(SR);
    }
    e->cov_rank = cov_rank;
    free(cu); free(muz); free(S); free(w); free(Sxz); free(isq); free(sq); free(Tm); free(A); free(G); free(s2); free(U);
    return 0;
}

/* ---- orthogonal projections: INLP and random ---- */

/* Add v (d) to the orthonormal basis B (rows [0, *r)) by Gram-Schmidt twice; dropped when its
 * remainder is under 1e-8 of its norm. Returns 1 when added. */
static int basis_add(double *B, int *r, int d, double *v)
{
    double n0 = 0.0;
    for (int c = 0; c < d; c++) n0 += v[c] * v[c];
    n0 = sqrt(n0);
    if (!(n0 > 0)) return 0;
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < *r; j++) {
            const double *b = B + (size_t)j * d;
            double dot = 0.0;
            for (int c = 0; c < d; c++) dot += b[c] * v[c];
            for (int c = 0; c < d; c++) v[c] -= dot * b[c];
        }
    double n1 = 0.0;
    for (int c = 0; c < d; c++) n1 += v[c] * v[c];
    n1 = sqrt(n1);
    if (!(n1 > 1e-8 * n0) || *r >= d) return 0;
    double *b = B + (size_t)(*r) * d;
    for (int c = 0; c < d; c++) b[c] = v[c] / n1;
    (*r)++;
    return 1;
}

static void ortho_eraser(struct prb_eraser *e, int d, const double *B, int r)
{
    memset(e, 0, sizeof *e);
    e->d = d;
    e->rank = r;
    e->mu = calloc((size_t)d, sizeof *e->mu);
    e->left = malloc(sizeof *e->left * (size_t)(r ? r : 1) * (size_t)d);
    e->right = malloc(sizeof *e->right * (size_t)(r ? r : 1) * (size_t)d);
    if (!e->mu || !e->left || !e->right) abort();
    memcpy(e->left, B, sizeof *B * (size_t)r * (size_t)d);
    memcpy(e->right, B, sizeof *B * (size_t)r * (size_t)d);
    e->shrink_alpha = 1.0;
}

int prb_inlp_fit(const float *X, int nrows, int d, const int *y, int k, const int *tr, int ntr, const int *dv, int ndv,
                 const struct prb_train_cfg *cfg, int iterations, double *acc_iter, struct prb_eraser *e, char *err,
                 size_t errlen)
{
    memset(e, 0, sizeof *e);
    if (cfg->nhid != 0) return fail(err, errlen, "INLP needs a linear classifier (nhid 0)");
    if (ntr < 1 || ndv < 1 || k < 2) return fail(err, errlen, "INLP needs training and dev rows and two classes");
    double *B = malloc(sizeof *B * (size_t)d * (size_t)d), *v = malloc(sizeof *v * (size_t)d);
    float *P = malloc(sizeof *P * (size_t)nrows * (size_t)d);
    if (!B || !v || !P) abort();
    memcpy(P, X, sizeof *P * (size_t)nrows * (size_t)d);
    int r = 0;
    for (int it = 0; it < iterations && r < d; it++) {
        struct prb_clf c;
        struct prb_train_cfg cc = *cfg;
        cc.seed = cfg->seed + (uint64_t)it;
        if (prb_clf_init(&c, d, k, &cc)) {
            free(B); free(v); free(P);
            return fail(err, errlen, "INLP: bad classifier configuration");
        }
        struct prb_fit_info info;
        prb_clf_fit(&c, P, y, tr, ntr, dv, ndv, &info);
        if (acc_iter) acc_iter[it] = info.best_dev;
        for (int j = 0; j < k; j++) {
            for (int q = 0; q < d; q++) v[q] = c.W1[(size_t)j * d + q];
            basis_add(B, &r, d, v);
        }
        prb_clf_free(&c);
        /* P = X projected onto the null space of every direction so far */
        struct prb_eraser cur;
        ortho_eraser(&cur, d, B, r);
        prb_eraser_apply(&cur, X, NULL, nrows, P, cfg->threads > 0 ? cfg->threads : 1);
        prb_eraser_free(&cur);
    }
    ortho_eraser(e, d, B, r);
    free(B); free(v); free(P);
    return 0;
}

void prb_random_eraser(int d, int rank, uint64_t seed, struct prb_eraser *e)
{
    if (rank > d) rank = d;
    double *B = malloc(sizeof *B * (size_t)(rank ? rank : 1) * (size_t)d), *v = malloc(sizeof *v * (size_t)d);
    if (!B || !v) abort();
    struct sp_rng g;
    sp_rng_seed(&g, seed);
    int r = 0;
    while (r < rank) {
        for (int c = 0; c < d; c++) {            /* Box-Muller */
            double u1 = (sp_rng_next(&g) >> 11) * 0x1.0p-53, u2 = (sp_rng_next(&g) >> 11) * 0x1.0p-53;
            v[c] = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
        }
        basis_add(B, &r, d, v);
    }
    ortho_eraser(e, d, B, r);
    free(B);
    free(v);
}

/* ---- applying ---- */

/* One row through the map, in double: u = x − μ; t_q = R_q · u, each a sum of 4 lanes
 * (lane l takes the elements c ≡ l mod 4, one fma chain each, then (l0 + l1) + (l2 + l3));
 * x −= Σ_q t_q L_q, one fma per element and q in order. The AVX2 row and the plain one are the
 * same arithmetic, so they give the same bits. Rows padded to dp (a multiple of 4) with zeros. */
struct apply_job {
    const struct prb_eraser *e;
    int dp;
    const double *mu, *R, *L;  /* padded copies: [dp], [rank][dp], [rank][dp] */
    const float *X;
    const int *rows;
    long n;
    float *out;
    int n_items;
};

static void row_plain(int dp, int r, const double *mu, const double *R, const double *L, double *x, double *u, double *t)
{
    for (int c = 0; c < dp; c++) u[c] = x[c] - mu[c];
    for (int q = 0; q < r; q++) {
        const double *Rq = R + (size_t)q * dp;
        double l[4] = { 0, 0, 0, 0 };
        for (int c = 0; c < dp; c += 4)
            for (int h = 0; h < 4; h++) l[h] = fma(Rq[c + h], u[c + h], l[h]);
        t[q] = (l[0] + l[1]) + (l[2] + l[3]);
    }
    for (int q = 0; q < r; q++) {
        const double *Lq = L + (size_t)q * dp;
        for (int c = 0; c < dp; c++) x[c] = fma(-t[q], Lq[c], x[c]);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma")))
static void row_avx2(int dp, int r, const double *mu, const double *R, const double *L, double *x, double *u, double *t)
{
    for (int c = 0; c < dp; c += 4) _mm256_storeu_pd(u + c, _mm256_sub_pd(_mm256_loadu_pd(x + c), _mm256_loadu_pd(mu + c)));
    for (int q = 0; q < r; q++) {
        const double *Rq = R + (size_t)q * dp;
        __m256d a = _mm256_setzero_pd();
        for (int c = 0; c < dp; c += 4) a = _mm256_fmadd_pd(_mm256_loadu_pd(Rq + c), _mm256_loadu_pd(u + c), a);
        double l[4];
        _mm256_storeu_pd(l, a);
        t[q] = (l[0] + l[1]) + (l[2] + l[3]);
    }
    for (int q = 0; q < r; q++) {
        const double *Lq = L + (size_t)q * dp;
        const __m256d m = _mm256_set1_pd(-t[q]);
        for (int c = 0; c < dp; c += 4)
            _mm256_storeu_pd(x + c, _mm256_fmadd_pd(m, _mm256_loadu_pd(Lq + c), _mm256_loadu_pd(x + c)));
    }
}
#else
#define row_avx2 row_plain
#endif

static void apply_item(void *arg, int item, int worker)
{
    (void)worker;
    const struct apply_job *j = arg;
    const int d = j->e->d, dp = j->dp, r = j->e->rank;
    long i0 = j->n * item / j->n_items, i1 = j->n * (item + 1) / j->n_items;
    const char *force = getenv("SP_ERASE_TILE");
    void (*row)(int, int, const double *, const double *, const double *, double *, double *, double *) =
        have_avx2() && !(force && !strcmp(force, "plain")) ? row_avx2 : row_plain;
    double *x = calloc((size_t)dp * 2 + (size_t)(r ? r : 1), sizeof *x), *u = x + dp, *t = u + dp;
    if (!x) abort();
    for (long i = i0; i < i1; i++) {
        const float *src = j->X + (size_t)(j->rows ? j->rows[i] : i) * (size_t)d;
        for (int c = 0; c < d; c++) x[c] = src[c];
        row(dp, r, j->mu, j->R, j->L, x, u, t);
        float *o = j->out + (size_t)i * (size_t)d;
        for (int c = 0; c < d; c++) o[c] = (float)x[c];
    }
    free(x);
}

void prb_eraser_apply(const struct prb_eraser *e, const float *X, const int *rows, long n, float *out, int threads)
{
    if (n <= 0) return;
    const int d = e->d, r = e->rank, dp = (d + 3) / 4 * 4;
    double *pad = calloc((size_t)dp * (size_t)(1 + 2 * r), sizeof *pad);
    if (!pad) abort();
    double *mu = pad, *R = pad + dp, *L = R + (size_t)r * dp;
    memcpy(mu, e->mu, sizeof *mu * (size_t)d);
    for (int q = 0; q < r; q++) {
        memcpy(R + (size_t)q * dp, e->right + (size_t)q * d, sizeof *R * (size_t)d);
        memcpy(L + (size_t)q * dp, e->left + (size_t)q * d, sizeof *L * (size_t)d);
    }
    struct apply_job j = { e, dp, mu, R, L, X, rows, n, out, 1 };
    if (threads > 1) j.n_items = (int)(n < 4L * threads ? n : 4L * threads);
    sp_pool_run_once(threads, j.n_items, apply_item, &j);
    free(pad);
}
