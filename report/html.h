/* report/html.h — `report --format html`: one self-contained page (inline CSS and SVG, no
 * script, no network, no external file), read top down:
 *   - the experiment: corpora and their partitions (official or re-split), encoders and layers,
 *     probe seeds, the job file and its hash (or the command), the store;
 *   - the caveats, said once (test sets too small to be findings, re-splits, missing intervals);
 *   - the figure of layer-wise probing: a layer × measure heatmap per layered encoder
 *     (report_findings.c);
 *   - the probing tasks (SentEval's table: encoder × task, intervals, n, baselines; under it the
 *     tasks without results, each with the reason a job skipped it), the
 *     comparison of --compare, the control tasks (accuracy, control accuracy, selectivity per
 *     layer), accuracy by layer;
 *   - trees from attention (constituency, dependency), structural probes, corpora with length and
 *     depth histograms (report_html_trees.c);
 *   - every result's manifest.
 * With d->fig, every chart is also written as a figure (report/figures.h). */
#ifndef SP_RPT_REPORT_HTML_H
#define SP_RPT_REPORT_HTML_H

#include <jansson.h>
#include <stdio.h>

#include "report/figures.h"
#include "store/store.h"

struct rpt_table;
struct rpt_data {
    const char *db;                     /* the store's path, for the page */
    const struct rpt_table *rows;       /* the results and the comparisons as typed rows (report/rows.h) */
    struct rpt_figures *fig;            /* NULL: no figures */
    json_t *unfit;                      /* {"TASK": "why"}: tasks without results (a job skipped them), or NULL */
};

/* SP_OK, or SP_ESTORE with err when the corpus statistics cannot be read. */
int rpt_html(FILE *f, struct st_db *db, const struct rpt_data *d, char *err, size_t errlen);

#endif
