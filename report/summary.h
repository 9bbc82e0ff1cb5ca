/* report/summary.h — the table a job's run ends with: per task, the best encoder (or layer)
 * on test and its score against the baselines, read back from the store as the report reads it
 * (rpt_table_load, report/rows.h), not from the steps' printed lines.
 *
 * One line per task, whitespace-separated columns (KIND TASK BEST METRIC SCORE N BASELINES...):
 *   task         SentEval-style probing tasks: mean test accuracy over seeds (the aggregates), best
 *                encoder label (run less its -TASK suffix: "minilm-L3"); majority, length and
 *                control-task accuracy, selectivity; TASK is TASK/CLASSIFIER when the store holds
 *                several classifiers
 *   token        token probes (tokprobe, "token:upos" as "upos"): accuracy; control, selectivity
 *   structprobe  trained structural probes per corpus: UUAS; the linear baseline on the same test
 *                sentences, DSpr and root accuracy of the best
 *   trees        trees from attention per corpus (TASK "CORPUS/dep" or "CORPUS/const"): UAS or EVALB
 *                F1 (Protocol A, all lengths); the baselines (right, left, random, adjacent) of the
 *                same corpus and kind
 * The best is the first maximum in the store's order. N, the test items (sentences for
 * structprobe and trees), carries "!" when below RPT_SMALL_TEST (report_agg.h), with one note
 * under the table. A store without results writes nothing. */
#ifndef SP_RPT_SUMMARY_H
#define SP_RPT_SUMMARY_H

#include <stdio.h>

#include "stages/stage.h"

/* The summary of store db to f. SP_OK (*n_lines: the lines written, 0 when the store holds no
 * results); SP_ESTORE with ctx->err. */
int rpt_summary(struct stg_ctx *ctx, const char *db, FILE *f, int *n_lines);

#endif
