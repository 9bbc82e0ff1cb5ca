/* Unit tests for common/expf.c: every kernel the CPU runs gives the bytes of the plain C sequence
 * (sp_expf) on a dense sweep of [-90, 90], on the boundaries and on the special values, at every
 * array length's tail; and the sequence is e^x to 2 ulp against double-precision exp (an
 * independent reference), 0 below the smallest normal and +inf past the largest float. */
#include "common/expf.h"
#include "common/gemm.h"
#include "common/sp.h"
#include "t_harness.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP (1 << 20)

/* ulps between a float result and the double truth, in units of the truth's float spacing */
static double ulps(float got, double want)
{
    double spacing = nextafterf((float)want, INFINITY) - (float)want;
    return fabs((double)got - want) / spacing;
}

int main(void)
{
    float *x = sp_xmalloc(sizeof(float) * (SWEEP + 64));
    float *ref = sp_xmalloc(sizeof(float) * (SWEEP + 64));
    int n = 0;
    for (int i = 0; i < SWEEP; i++) x[n++] = -90.0f + 180.0f * (float)i / (float)SWEEP;
    const float special[] = { 0.0f, -0.0f, 1.0f, -1.0f, 88.3762626647949f, nextafterf(88.3762626647949f, 100.0f),
                              -87.3365478515625f, nextafterf(-87.3365478515625f, -100.0f), 88.0f, -87.0f, 1e-30f, -1e-30f,
                              FLT_MIN, -FLT_MIN, 1e30f, -1e30f, INFINITY, -INFINITY, NAN, 0.5f, -0.5f, 0.34657359f, -0.34657359f };
    for (size_t i = 0; i < sizeof special / sizeof *special; i++) x[n++] = special[i];
    for (int i = 0; i < n; i++) ref[i] = sp_expf(x[i]);

    /* the reference sequence against double exp */
    double worst = 0;
    int bad_range = 0;
    for (int i = 0; i < n; i++) {
        float v = x[i];
        if (v != v) { bad_range += ref[i] == ref[i]; continue; }
        if (v < -87.3365478515625f) { bad_range += ref[i] != 0.0f; continue; }
        if (v > 88.3762626647949f) { bad_range += ref[i] != INFINITY; continue; }
        double e = exp((double)v);
        if (e < FLT_MIN * 2.0 || e > FLT_MAX / 2.0) continue;   /* the edges: only finite and positive */
        double u = ulps(ref[i], e);
        if (u > worst) worst = u;
    }
    T_EQ_INT(bad_range, 0);
    T_CHECK(worst <= 2.0);
    T_CHECK(sp_expf(0.0f) == 1.0f);
    T_CHECK(sp_expf(-100.0f) == 0.0f && sp_expf(100.0f) == INFINITY && isnan(sp_expf(NAN)));
    printf("sp_expf: worst %.2f ulp against double exp on [-87.3, 88.4]\n", worst);

    /* every kernel: the same bytes as the C sequence, whole arrays and every tail length */
    const char *names[] = { "avx512", "avx2", "c" };
    int ran = 0;
    float *y = sp_xmalloc(sizeof(float) * (SWEEP + 64));
    for (int kn = 0; kn < 3; kn++) {
        if (sp_gemm_use_kernel(names[kn]) != 0) { printf("ok # SKIP kernel %s: this CPU cannot run it\n", names[kn]); continue; }
        ran++;
        memcpy(y, x, sizeof(float) * (size_t)n);
        sp_expf_array(y, n);
        T_CHECK(memcmp(y, ref, sizeof(float) * (size_t)n) == 0);
        int tails = 0;
        for (int len = 0; len <= 40; len++) {          /* a short array leaves its neighbours alone */
            float buf[48];
            for (int i = 0; i < 48; i++) buf[i] = x[SWEEP + (i % 20)];
            float want[48];
            memcpy(want, buf, sizeof buf);
            for (int i = 0; i < len; i++) want[i] = sp_expf(buf[i]);
            sp_expf_array(buf, len);
            tails += memcmp(buf, want, sizeof buf) == 0;
        }
        T_EQ_INT(tails, 41);
        printf("kernel %s: %d values bit-exact with sp_expf\n", names[kn], n);
    }
    T_CHECK(ran >= 1);
    free(x); free(y); free(ref);
    return T_DONE();
}
