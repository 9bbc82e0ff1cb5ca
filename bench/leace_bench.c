/* bench/leace_bench.c — prb_leace_fit and prb_eraser_apply on N random rows of D floats with K
 * classes (class-shifted uniform rows), timed by phase (wall and process CPU seconds): the fit (means, cross-covariance,
 * covariance, eigendecomposition, the map) and the erasure of every row. Not a test.
 *   bench_leace N D K THREADS */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>

#include "common/sp.h"
#include "probes/erasers.h"

static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000, d = argc > 2 ? atoi(argv[2]) : 768, k = argc > 3 ? atoi(argv[3]) : 17;
    int threads = argc > 4 ? atoi(argv[4]) : 1;
    float *X = malloc(sizeof *X * (size_t)n * (size_t)d), *out = malloc(sizeof *out * (size_t)n * (size_t)d);
    int *z = malloc(sizeof *z * (size_t)n);
    struct sp_rng g;
    sp_rng_seed(&g, 1);
    for (int i = 0; i < n; i++) {
        z[i] = (int)sp_rng_below(&g, (uint64_t)k);
        for (int c = 0; c < d; c++) X[(size_t)i * d + c] = (float)(sp_rng_uniform(&g) - 0.5 + 0.1 * ((c + z[i]) % 7 == 0));
    }
    struct prb_eraser e;
    char err[256];
    double c0 = cpu(), t0 = sp_now();
    if (prb_leace_fit(X, NULL, n, d, z, k, 0, threads, &e, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    double c1 = cpu(), t1 = sp_now();
    prb_eraser_apply(&e, X, NULL, n, out, threads);
    double c2 = cpu(), t2 = sp_now();
    printf("| %d | %d | %d | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n", n, d, k, threads, e.rank, t1 - t0, c1 - c0,
           t2 - t1, c2 - c1, t2 - t0);
    prb_eraser_free(&e);
    free(X); free(out); free(z);
    return 0;
}
