/* probes/stats.h — the statistics of reports (docs/spec/models.md M7): mean and spread over seeds, the
 * percentile bootstrap interval over test items, the paired bootstrap comparison of two systems
 * and the wide-interval flag.
 *
 * Items are test sentences (cluster resampling, M7.3). A ratio metric (accuracy, UAS, UUAS, root
 * accuracy) is given per item as a numerator per seed and a denominator shared by every seed and
 * system (the item's count of scored units: 1 for a SentEval-style item, its scored words for
 * UAS): num[s·N + i], den[i]. On a resample the metric is Σ num / Σ den over the drawn items,
 * repeated items counted as often as drawn; with several seeds it is the mean over seeds of the
 * per-seed metric on the same resample. Items whose den is 0 are removed first. Resamples come
 * from one SplitMix64 stream (common/sp.h) seeded with `seed`: resample b draws N indices with
 * below(N), one after the other, so two calls with the same seed and N use the same index lists
 * (the pairing of M7.4). */
#ifndef PRB_STATS_H
#define PRB_STATS_H

#include <stdint.h>

#define PRB_BOOT_B 1000           /* default resamples (M7.3) */
#define PRB_BOOT_SEED 1111        /* default bootstrap_seed */
#define PRB_WIDE_CI 0.10          /* M7.5: an interval wider than 10 points on a 0-1 scale */
/* A test set of fewer items is too small: too few to tell a 10-point difference from chance at
 * 95% even in the best case (normal approximation at p = 0.5: 1.96·sqrt(0.25/n) < 0.10 needs
 * n >= 97). tasks build warns and flags such a task (its params' "test_items"/"small_test"); the
 * report flags its results (small_test, report/agg.h). */
#define PRB_SMALL_TEST 97

/* M7.2: mean and sample standard deviation (two passes); sd is NAN for n = 1 (never 0). */
void prb_mean_sd(const double *x, int n, double *mean, double *sd);

struct prb_interval {
    double point;                 /* the full-data value (never the bootstrap mean) */
    double lo, hi;                /* equal-tailed 95% percentile interval, order statistics (D13) */
    int n_items;                  /* items kept (den > 0) */
    int n_valid, n_invalid;       /* resamples used / dropped as undefined (B = their sum) */
    int wide;                     /* hi - lo > PRB_WIDE_CI (M7.5) */
};

/* M7.3 for a ratio metric over n_seeds × n items. SP_OK; SP_EUSAGE when no item has den > 0 or
 * B < 1 (nothing to estimate). */
int prb_boot_ratio(int n_seeds, int n, const double *num, const double *den, int B, uint64_t seed,
                   struct prb_interval *out);

struct prb_comparison {
    double delta;                 /* θ_A − θ_B on the full data */
    double lo, hi;                /* 95% interval of the paired differences */
    double p;                     /* two-sided, min(1, 2c/B'); 0 with p_floor = 2/B' when c = 0 */
    double p_floor;               /* 0 unless p = 0 */
    double se;                    /* sample sd of the differences δ*_b */
    double mdd80;                 /* 2.80 · se (M7.5): informative only */
    int n_items, n_valid, n_invalid;
};

/* M7.4: systems A (na_seeds) and B (nb_seeds) on the same n items (one den for both). */
int prb_boot_paired(int n, const double *den, int na_seeds, const double *num_a, int nb_seeds, const double *num_b,
                    int B, uint64_t seed, struct prb_comparison *out);

#endif
