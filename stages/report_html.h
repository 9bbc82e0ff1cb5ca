/* stages/report_html.h — `report --format html`: one self-contained page (inline CSS and SVG, no
 * script, no network, no external file): the encoder × task table with intervals and baselines
 * (SentEval's layout), the comparison of --compare, accuracy by layer where runs are named
 * NAME-L<k>, tree-extraction F1 per method and subset against the baselines, structural probes,
 * corpus statistics with length and depth histograms, and every result's manifest. */
#ifndef SP_STG_REPORT_HTML_H
#define SP_STG_REPORT_HTML_H

#include <jansson.h>
#include <stdio.h>

#include "store/store.h"

struct stg_report_data {
    const char *db;                     /* the store's path, for the page */
    json_t *aggs, *probes, *trees, *cmp; /* as report.c collects them; cmp may be NULL */
};

/* SP_OK, or SP_ESTORE with err when the corpus statistics cannot be read. */
int stg_report_html(FILE *f, struct st_db *db, const struct stg_report_data *d, char *err, size_t errlen);

#endif
