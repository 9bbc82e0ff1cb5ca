/* probes/stats.c — docs/spec/models.md M7 (see probes/stats.h). */
#include "probes/stats.h"

#include <math.h>
#include <stdlib.h>

#include "common/sp.h"

void prb_mean_sd(const double *x, int n, double *mean, double *sd)
{
    double s = 0, ss = 0;
    for (int i = 0; i < n; i++) s += x[i];
    double m = n > 0 ? s / n : NAN;
    for (int i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
    *mean = m;
    *sd = n > 1 ? sqrt(ss / (n - 1)) : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The kept items (den > 0), in index order: their indices into the caller's arrays. */
static int kept_items(int n, const double *den, int **keep)
{
    int k = 0;
    *keep = malloc(sizeof **keep * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        if (den[i] > 0) (*keep)[k++] = i;
    return k;
}

/* Mean over seeds of Σ num / Σ den over the items idx[0..m-1] (indices into the caller's arrays). */
static double ratio_stat(int n_seeds, int n, const double *num, const double *den, const int *idx, int m)
{
    double d = 0, mean = 0;
    for (int j = 0; j < m; j++) d += den[idx[j]];
    for (int s = 0; s < n_seeds; s++) {
        double u = 0;
        for (int j = 0; j < m; j++) u += num[(size_t)s * n + idx[j]];
        mean += u / d;
    }
    return mean / n_seeds;
}

/* The equal-tailed interval of M7.3 from B' sorted values. */
static void percentile_interval(double *v, int nv, double *lo, double *hi)
{
    qsort(v, (size_t)nv, sizeof *v, cmp_double);
    int k = (int)floor((nv + 1) * 0.025);
    if (k < 1) k = 1;
    *lo = v[k - 1];
    *hi = v[nv - k];             /* 1-based B' + 1 − k */
}

/* One resample: N draws of below(N) over the kept items, mapped to the caller's indices. */
static void draw(struct sp_splitmix *r, const int *keep, int m, int *idx)
{
    for (int j = 0; j < m; j++) idx[j] = keep[sp_splitmix_below(r, (uint64_t)m)];
}

int prb_boot_ratio(int n_seeds, int n, const double *num, const double *den, int B, uint64_t seed,
                   struct prb_interval *out)
{
    int *keep, m = kept_items(n, den, &keep);
    if (m == 0 || B < 1 || n_seeds < 1) { free(keep); return SP_EUSAGE; }
    int *idx = malloc(sizeof *idx * (size_t)m);
    double *v = malloc(sizeof *v * (size_t)B);
    out->point = ratio_stat(n_seeds, n, num, den, keep, m);
    struct sp_splitmix r;
    sp_splitmix_seed(&r, seed);
    int nv = 0;
    for (int b = 0; b < B; b++) {
        draw(&r, keep, m, idx);
        double t = ratio_stat(n_seeds, n, num, den, idx, m);
        if (isfinite(t)) v[nv++] = t;
    }
    out->n_items = m;
    out->n_valid = nv;
    out->n_invalid = B - nv;
    if (nv) percentile_interval(v, nv, &out->lo, &out->hi);
    else out->lo = out->hi = NAN;
    out->wide = nv && out->hi - out->lo > PRB_WIDE_CI;
    free(v); free(idx); free(keep);
    return SP_OK;
}

int prb_boot_paired(int n, const double *den, int na_seeds, const double *num_a, int nb_seeds, const double *num_b,
                    int B, uint64_t seed, struct prb_comparison *out)
{
    int *keep, m = kept_items(n, den, &keep);
    if (m == 0 || B < 1 || na_seeds < 1 || nb_seeds < 1) { free(keep); return SP_EUSAGE; }
    int *idx = malloc(sizeof *idx * (size_t)m);
    double *v = malloc(sizeof *v * (size_t)B);
    double delta = ratio_stat(na_seeds, n, num_a, den, keep, m) - ratio_stat(nb_seeds, n, num_b, den, keep, m);
    struct sp_splitmix r;
    sp_splitmix_seed(&r, seed);
    int nv = 0;
    for (int b = 0; b < B; b++) {
        draw(&r, keep, m, idx);
        double t = ratio_stat(na_seeds, n, num_a, den, idx, m) - ratio_stat(nb_seeds, n, num_b, den, idx, m);
        if (isfinite(t)) v[nv++] = t;
    }
    out->delta = delta;
    out->n_items = m;
    out->n_valid = nv;
    out->n_invalid = B - nv;
    out->p_floor = 0;
    if (nv) {
        double sgn = delta > 0 ? 1 : -1, mean, sd;
        int c = 0;
        for (int b = 0; b < nv; b++) c += v[b] * sgn <= 0;
        out->p = delta == 0 ? 1.0 : fmin(1.0, 2.0 * c / nv);
        if (delta != 0 && c == 0) out->p_floor = 2.0 / nv;
        prb_mean_sd(v, nv, &mean, &sd);
        out->se = nv > 1 ? sd : NAN;
        out->mdd80 = 2.80 * out->se;
        percentile_interval(v, nv, &out->lo, &out->hi);
    } else {
        out->p = out->se = out->mdd80 = out->lo = out->hi = NAN;
    }
    free(v); free(idx); free(keep);
    return SP_OK;
}
