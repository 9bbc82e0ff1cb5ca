/* tests/unit/probes_leace.c — LEACE against the concept-erasure package (and a NumPy
 * re-derivation of the closed form), fixtures by tests/reference/leace_fixtures.py in
 * tests/data/leace; the eigendecomposition, the random control and INLP on hand-made data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/npy.h"
#include "probes/erasers.h"
#include "t_harness.h"

static int load(const char *dir, const char *name, struct sp_npy *a)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "tests/data/leace/%s/%s", dir, name);
    if (sp_npy_read(path, a, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static double max_abs_diff(const float *got, const double *want, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - want[i]);
        if (!(d <= m)) m = d;       /* NaN wins */
    }
    return m;
}

/* One fixture: synprobe's LEACE on X, z within 1e-4 of the package's and NumPy's erased X, the
 * same rank; 1 and 3 threads, and the plain and AVX2 paths, give the same bits. */
static void fixture(const char *dir)
{
    struct sp_npy X = { 0 }, z = { 0 }, meta = { 0 }, ref = { 0 }, np_ref = { 0 };
    int ok = !load(dir, "X.npy", &X) && !load(dir, "z.npy", &z) && !load(dir, "meta.npy", &meta) &&
             !load(dir, "leace.npy", &ref) && !load(dir, "numpy.npy", &np_ref);
    T_CHECK(ok);
    if (!ok) return;
    int n = (int)X.shape[0], d = (int)X.shape[1];
    const int *m = meta.data;
    struct prb_eraser e, e3;
    char err[256] = "";
    T_EQ_INT(prb_leace_fit(X.data, NULL, n, d, z.data, m[0], m[1], 1, &e, err, sizeof err), 0);
    T_EQ_INT(e.rank, m[2]);
    T_EQ_INT(e.cov_rank, m[3]);
    T_CHECK(e.trace_after <= e.trace_before * (1 + 1e-12));
    float *out = malloc(sizeof *out * (size_t)n * (size_t)d), *out3 = malloc(sizeof *out3 * (size_t)n * (size_t)d);
    prb_eraser_apply(&e, X.data, NULL, n, out, 1);
    double d_pkg = max_abs_diff(out, ref.data, (size_t)n * d), d_np = max_abs_diff(out, np_ref.data, (size_t)n * d);
    printf("# %s: n %d d %d k %d shrinkage %d rank %d: max |synprobe - concept-erasure| %.3g, - numpy %.3g\n", dir, n, d,
           m[0], m[1], e.rank, d_pkg, d_np);
    T_CHECK(d_pkg < 1e-4);
    T_CHECK(d_np < 1e-4);
    T_EQ_INT(prb_leace_fit(X.data, NULL, n, d, z.data, m[0], m[1], 3, &e3, err, sizeof err), 0);
    prb_eraser_apply(&e3, X.data, NULL, n, out3, 3);
    T_CHECK(memcmp(out, out3, sizeof *out * (size_t)n * (size_t)d) == 0);
    prb_eraser_free(&e3);
    /* the plain C and the AVX2 path: the same bits as the best path (AVX-512 where present) */
    const char *paths[] = { "plain", "avx2" };
    for (int p = 0; p < 2; p++) {
        setenv("SP_ERASE_TILE", paths[p], 1);
        T_EQ_INT(prb_leace_fit(X.data, NULL, n, d, z.data, m[0], m[1], 2, &e3, err, sizeof err), 0);
        prb_eraser_apply(&e3, X.data, NULL, n, out3, 2);
        unsetenv("SP_ERASE_TILE");
        T_CHECK(memcmp(out, out3, sizeof *out * (size_t)n * (size_t)d) == 0);
        prb_eraser_free(&e3);
    }
    /* rows given by index: the same fit on the rows in reverse order */
    int *rows = malloc(sizeof *rows * (size_t)n), *zr = malloc(sizeof *zr * (size_t)n);
    for (int i = 0; i < n; i++) { rows[i] = n - 1 - i; zr[i] = ((const int *)z.data)[n - 1 - i]; }
    struct prb_eraser er;
    T_EQ_INT(prb_leace_fit(X.data, rows, n, d, zr, m[0], m[1], 1, &er, err, sizeof err), 0);
    prb_eraser_apply(&er, X.data, NULL, n, out3, 1);
    T_CHECK(max_abs_diff(out3, ref.data, (size_t)n * d) < 1e-4);
    prb_eraser_free(&er);
    free(rows); free(zr);
    prb_eraser_free(&e);
    free(out); free(out3);
    sp_npy_free(&X); sp_npy_free(&z); sp_npy_free(&meta); sp_npy_free(&ref); sp_npy_free(&np_ref);
}

/* A = Qᵀ diag(w) Q by hand: eigh gives w ascending and vectors that rebuild A */
static void eigh_check(void)
{
    enum { N = 7 };
    double A[N * N], B[N * N], w[N];
    struct sp_rng g;
    sp_rng_seed(&g, 5);
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++) A[i * N + j] = A[j * N + i] = sp_rng_uniform(&g) - 0.5;
    A[3 * N + 3] = 0.0;
    memcpy(B, A, sizeof A);
    T_EQ_INT(prb_eigh(N, B, w), 0);
    int asc = 1;
    for (int i = 1; i < N; i++) asc &= w[i - 1] <= w[i];
    T_CHECK(asc);
    double worst = 0.0, orth = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0.0, o = 0.0;
            for (int q = 0; q < N; q++) {
                s += B[q * N + i] * w[q] * B[q * N + j];
                o += B[i * N + q] * B[j * N + q];
            }
            worst = fmax(worst, fabs(s - A[i * N + j]));
            orth = fmax(orth, fabs(o - (i == j)));
        }
    T_CHECK(worst < 1e-12);
    T_CHECK(orth < 1e-12);
    /* the 2×2 [[2,1],[1,2]]: 1 and 3 */
    double C[4] = { 2, 1, 1, 2 }, v[2];
    T_EQ_INT(prb_eigh(2, C, v), 0);
    T_NEAR(v[0], 1.0, 1e-14);
    T_NEAR(v[1], 3.0, 1e-14);
}

/* The random control: rank orthonormal directions, a seed gives the same ones */
static void random_check(void)
{
    struct prb_eraser a, b;
    prb_random_eraser(10, 4, 7, &a);
    prb_random_eraser(10, 4, 7, &b);
    T_EQ_INT(a.rank, 4);
    T_CHECK(memcmp(a.left, b.left, sizeof *a.left * 40) == 0);
    double worst = 0.0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int c = 0; c < 10; c++) s += a.left[i * 10 + c] * a.left[j * 10 + c];
            worst = fmax(worst, fabs(s - (i == j)));
        }
    T_CHECK(worst < 1e-12);
    prb_eraser_free(&a);
    prb_random_eraser(10, 4, 8, &a);
    T_CHECK(memcmp(a.left, b.left, sizeof *a.left * 40) != 0);   /* another seed, other directions */
    prb_eraser_free(&a);
    prb_eraser_free(&b);
}

/* INLP on three classes separated along two of 6 dimensions: after the iterations a fresh probe
 * on the projected rows is near chance, the removed rank is at most iterations × k */
static void inlp_check(void)
{
    enum { N = 600, D = 6, K = 3 };
    float *X = malloc(sizeof *X * N * D), *P = malloc(sizeof *P * N * D);
    int y[N], tr[400], dv[200];
    struct sp_rng g;
    sp_rng_seed(&g, 11);
    for (int i = 0; i < N; i++) {
        y[i] = i % K;
        for (int c = 0; c < D; c++) X[i * D + c] = (float)(sp_rng_uniform(&g) - 0.5);
        X[i * D + 0] += (float)(2.0 * (y[i] == 1));
        X[i * D + 1] += (float)(2.0 * (y[i] == 2));
        if (i < 400) tr[i] = i; else dv[i - 400] = i;
    }
    struct prb_train_cfg cfg;
    prb_train_cfg_default(&cfg);
    cfg.max_epoch = 100;
    struct prb_eraser e;
    double acc[4];
    char err[256];
    T_EQ_INT(prb_inlp_fit(X, N, D, y, K, tr, 400, dv, 200, &cfg, 4, acc, &e, err, sizeof err), 0);
    T_CHECK(acc[0] > 0.9);
    T_CHECK(e.rank >= 2 && e.rank <= D);
    prb_eraser_apply(&e, X, NULL, N, P, 1);
    struct prb_clf c;
    prb_clf_init(&c, D, K, &cfg);
    struct prb_fit_info info;
    prb_clf_fit(&c, P, y, tr, 400, dv, 200, &info);
    printf("# INLP: dev accuracy before %.3f, after 4 iterations (rank %d) %.3f\n", acc[0], e.rank, info.best_dev);
    T_CHECK(info.best_dev < 0.45);
    prb_clf_free(&c);
    prb_eraser_free(&e);
    free(X);
    free(P);
}

int main(void)
{
    const char *cases[] = { "full", "rankdef", "shrink", "weak" };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) fixture(cases[i]);
    eigh_check();
    random_check();
    inlp_check();
    return T_DONE();
}
