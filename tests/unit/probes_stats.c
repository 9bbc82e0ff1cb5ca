/* Unit tests for probes/stats (docs/spec/models.md M7): the worked example TV-M7 (M7.7) for the bootstrap
 * interval, the paired comparison and the wide-interval flag, M7.2's mean/sd example, and hand-
 * computed edge cases. Expected values are the spec's, compared at the decimals it prints. */
#include <math.h>
#include <stdio.h>

#include "common/sp.h"
#include "probes/stats.h"
#include "t_harness.h"

#define T_ROUNDS(x, decimals, expect) do { char _b[32]; snprintf(_b, sizeof _b, "%.*f", decimals, (double)(x)); \
        T_EQ_STR(_b, expect); } while (0)

/* TV-M7: 10 items; tokens, correct A, correct B */
static const double tok[10] = { 12, 8, 15, 5, 20, 9, 11, 7, 14, 10 };
static const double ca[10] = { 10, 7, 11, 5, 16, 6, 10, 4, 12, 9 };
static const double cb[10] = { 9, 7, 12, 4, 14, 6, 8, 5, 11, 7 };

static void test_mean_sd(void)
{
    double x[3] = { 0.812, 0.807, 0.815 }, m, sd;
    prb_mean_sd(x, 3, &m, &sd);
    T_ROUNDS(m, 6, "0.811333");
    T_ROUNDS(sd, 8, "0.00404145");
    prb_mean_sd(x, 1, &m, &sd);
    T_CHECK(m == 0.812 && isnan(sd));                          /* one seed: sd null, never 0 */
}

static void test_tv_m7_intervals(void)
{
    struct prb_interval a, b;
    T_EQ_INT(prb_boot_ratio(1, 10, ca, tok, 1000, 1111, &a), SP_OK);
    T_EQ_INT(prb_boot_ratio(1, 10, cb, tok, 1000, 1111, &b), SP_OK);
    T_ROUNDS(a.point, 6, "0.810811");
    T_ROUNDS(b.point, 6, "0.747748");
    T_ROUNDS(a.lo, 6, "0.750000");
    T_ROUNDS(a.hi, 6, "0.867257");
    T_ROUNDS(b.lo, 6, "0.716216");
    T_ROUNDS(b.hi, 6, "0.784483");
    T_CHECK(a.wide && !b.wide);                                /* widths 0.117257 and 0.0682665 */
    T_EQ_INT(a.n_valid, 1000);
    T_EQ_INT(a.n_invalid, 0);
    T_EQ_INT(a.n_items, 10);
}

static void test_tv_m7_paired(void)
{
    struct prb_comparison c;
    T_EQ_INT(prb_boot_paired(10, tok, 1, ca, 1, cb, 1000, 1111, &c), SP_OK);
    T_ROUNDS(c.delta, 7, "0.0630631");
    T_ROUNDS(c.lo, 6, "0.000000");
    T_ROUNDS(c.hi, 6, "0.120370");
    T_ROUNDS(c.p, 3, "0.068");                                 /* c = 34: 20 zero, 14 negative */
    T_CHECK(c.p_floor == 0);
    T_ROUNDS(c.se, 7, "0.0303416");
    T_ROUNDS(c.mdd80, 7, "0.0849564");
    /* the same system against itself: delta 0, p = 1 */
    T_EQ_INT(prb_boot_paired(10, tok, 1, ca, 1, ca, 1000, 1111, &c), SP_OK);
    T_CHECK(c.delta == 0 && c.p == 1.0);
}

/* Hand-computed: an item with den 0 is removed before resampling, so the result equals the
 * same data without it; several seeds average per-seed ratios on the same resample. */
static void test_edges(void)
{
    double den[3] = { 1, 0, 1 }, num[3] = { 1, 0, 0 }, den2[2] = { 1, 1 }, num2[2] = { 1, 0 };
    struct prb_interval x, y;
    T_EQ_INT(prb_boot_ratio(1, 3, num, den, 200, 7, &x), SP_OK);
    T_EQ_INT(prb_boot_ratio(1, 2, num2, den2, 200, 7, &y), SP_OK);
    T_CHECK(x.point == 0.5 && x.n_items == 2 && x.lo == y.lo && x.hi == y.hi);
    /* 2 items: every resample's accuracy is 0, 0.5 or 1; with B = 200 both ends are reached */
    T_CHECK(x.lo == 0.0 && x.hi == 1.0 && x.wide);
    /* two seeds: seed 0 gets item 0 right, seed 1 item 1: every resample averages to 0.5 */
    double num_s[4] = { 1, 0, 0, 1 };
    T_EQ_INT(prb_boot_ratio(2, 2, num_s, den2, 100, 3, &x), SP_OK);
    T_CHECK(x.point == 0.5 && x.lo == 0.5 && x.hi == 0.5 && !x.wide);
    /* no item with den > 0: nothing to estimate */
    double zero[2] = { 0, 0 };
    T_EQ_INT(prb_boot_ratio(1, 2, num2, zero, 100, 3, &x), SP_EUSAGE);
    /* a one-sided clear win: c = 0, p reported as 0 with the floor 2/B' */
    double always[4] = { 1, 1, 1, 1 }, never[4] = { 0, 0, 0, 0 }, d4[4] = { 1, 1, 1, 1 };
    struct prb_comparison c;
    T_EQ_INT(prb_boot_paired(4, d4, 1, always, 1, never, 1000, 1111, &c), SP_OK);
    T_CHECK(c.delta == 1.0 && c.p == 0 && c.p_floor == 0.002 && c.lo == 1.0 && c.hi == 1.0);
}

int main(void)
{
    test_mean_sd();
    test_tv_m7_intervals();
    test_tv_m7_paired();
    test_edges();
    return T_DONE();
}
