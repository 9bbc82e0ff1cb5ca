/* Unit tests for common/expf.c: sp_exp_nonpos_array (vectorised, whichever build the CPU picks)
 * gives the bytes of the scalar sp_exp_nonpos on a dense sweep of [-100, 10], on the special
 * values and at every array length's tail, and leaves what lies past the array alone. (The
 * accuracy of sp_exp_nonpos against double exp: tests/unit/encoder_formulas.c.) */
#include "common/expf.h"
#include "common/sp.h"
#include "t_harness.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP (1 << 20)

/* the scalar function through a volatile pointer, so that the compiler cannot vectorise this
 * reference loop: one value at a time */
static float (*volatile one)(float) = NULL;
static float scalar(float x) { return sp_exp_nonpos(x); }

int main(void)
{
    one = scalar;
    float *x = sp_xmalloc(sizeof(float) * (SWEEP + 64)), *ref = sp_xmalloc(sizeof(float) * (SWEEP + 64));
    int n = 0;
    for (int i = 0; i < SWEEP; i++) x[n++] = -100.0f + 110.0f * (float)i / (float)SWEEP;
    const float special[] = { 0.0f, -0.0f, 1.0f, -1.0f, -87.0f, nextafterf(-87.0f, -100.0f), -86.9f, 1e-30f, -1e-30f,
                              FLT_MIN, -FLT_MIN, -1e30f, INFINITY, -INFINITY, NAN, -0.5f, -0.34657359f };
    for (size_t i = 0; i < sizeof special / sizeof *special; i++) x[n++] = special[i];
    for (int i = 0; i < n; i++) ref[i] = one(x[i]);
    float *y = sp_xmalloc(sizeof(float) * (SWEEP + 64));
    memcpy(y, x, sizeof(float) * (size_t)n);
    sp_exp_nonpos_array(y, n);
    T_CHECK(memcmp(y, ref, sizeof(float) * (size_t)n) == 0);
    int tails = 0;
    for (int len = 0; len <= 40; len++) {
        float buf[48], want[48];
        for (int i = 0; i < 48; i++) buf[i] = want[i] = x[SWEEP + (i % 17)];
        for (int i = 0; i < len; i++) want[i] = one(buf[i]);
        sp_exp_nonpos_array(buf, len);
        tails += memcmp(buf, want, sizeof buf) == 0;
    }
    T_EQ_INT(tails, 41);
    T_CHECK(sp_exp_nonpos(0.0f) == 1.0f && sp_exp_nonpos(5.0f) == 1.0f && isnan(sp_exp_nonpos(NAN)));
    printf("sp_exp_nonpos_array: %d values bit-exact with the scalar function\n", n);
    free(x); free(y); free(ref);
    return T_DONE();
}
