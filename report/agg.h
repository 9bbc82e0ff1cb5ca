/* report/agg.h — probe results of the same (encoder, task, classifier) aggregated over
 * seeds (docs/spec/models.md M7): mean ± sd of the test accuracy, a 95% percentile bootstrap interval over
 * the test items (resampled together for every seed, B = PRB_BOOT_B, seed PRB_BOOT_SEED), n items,
 * the number of seeds, the wide-interval flag, the small-test flag and the baselines' means.
 *
 * small_test: fewer than RPT_SMALL_TEST (= PRB_SMALL_TEST, probes/stats.h, which tasks build warns
 * with too) test items, too few to tell a 10-point difference from chance at 95% even in the best
 * case (normal approximation at p = 0.5: 1.96·sqrt(0.25/n) < 0.10 needs n >= 97). A bootstrap interval alone does not show this: 2 items both right resample to
 * [100, 100].
 *
 * The encoder of a result is its run's name less the "-TASK" suffix the job runner and the demo
 * give task runs ("san-Tense" -> "san"), else the run name, else the vectors file. The interval
 * needs each seed's per-item correctness: probe results record metrics.item_rows and item_correct
 * (one letter per test item); token probes one item per test sentence, metrics.item_rows,
 * item_tokens and item_correct_count, so their interval resamples sentences (a ratio, M7.3).
 * Each aggregate also says probe_kind ("sentence" or "token": task "token:upos") and the control's
 * accuracy (control_acc: shuffled labels, or the token probes' control task) beside its
 * selectivity. A group whose seeds were scored on different items, or results stored before
 * items were recorded, gets no interval (null, and "no per-item record" in the text). */
#ifndef SP_RPT_AGG_H
#define SP_RPT_AGG_H

#include <jansson.h>

#include "common/sp.h"
#include "probes/stats.h"

#define RPT_SMALL_TEST PRB_SMALL_TEST

/* The aggregates of the probe results of the results model t (report/rows.h): one row per
 * (encoder, task, classifier) in first-appearance order, put before t's rows; returned as a new
 * JSON array, the form `report --format json` prints. */
struct rpt_table;
json_t *rpt_aggregate_rows(struct rpt_table *t);
/* The paired comparisons of encoders a and b (labels as above, or run names, or shell patterns
 * matching them: "ms-san-trained-s*" makes the runs of several training seeds one side, each run
 * and probe seed a member, as the seeds of one encoder are) on every (task, classifier) both have
 * among t's probe results (docs/spec/models.md M7.4), appended to t->cmp (report/rows.h): the difference of
 * their test accuracies (a − b, mean over each one's seeds), its 95% paired-bootstrap interval over
 * the same test items (the same resamples for both), the two-sided p-value, se and mdd80. A pair
 * whose results were scored on different items (or carry no per-item record), or where one encoder
 * is on both sides, gets an error instead. Each lists the encoders each side pooled. How many were
 * appended. */
size_t rpt_compare(struct rpt_table *t, const char *a, const char *b);
/* t's comparisons as `report --format json` prints them: a new array. */
json_t *rpt_cmp_json(const struct rpt_table *t);
/* The end of the run of t's comparisons from index i that share i's pair (a, b): renderers give
 * each pair of `report --compare A,B,C,D` its own table. */
size_t rpt_pair_end(const struct rpt_table *t, size_t i);

/* Reading the collected rows (report/rows.c, the store boundary): j at a path of object keys ("a.b.c", NULL when absent); its number
 * (NAN when not a number); its string ("" when not a string). */
json_t *rpt_jpath(json_t *j, const char *path);
double rpt_jpath_num(json_t *j, const char *path);
const char *rpt_jpath_str(json_t *j, const char *path);

/* A number formatted with fmt into buf, "–" for NaN, and never "-0.0" (a negative that rounds to
 * zero prints as zero): every report format writes its numbers through here, so they agree. */
const char *rpt_fmt_num(char *buf, size_t n, const char *fmt, double v);

/* The encoder label of one collected probe row (see above; report/rows.c), whole, appended to b (cleared
 * first); returns b->p. Run names are the user's: no fixed buffer cuts them (two long names cut
 * alike would be one encoder). */
const char *rpt_encoder_label(json_t *row, struct sp_buf *b);
/* A run's name without the input it was made for (RUN-INPUT -> RUN; otherwise the name), into buf. */
const char *rpt_run_label(const char *run, const char *input, char *buf, size_t n);

#endif
