/* stages/report_page.h — what the HTML report's sections share: the page being written, its charts
 * (inlined, and written as figures by --figures), and the cells every table uses. Internal to
 * report_html.c and report_findings.c. */
#ifndef SP_STG_REPORT_PAGE_H
#define SP_STG_REPORT_PAGE_H

#include <jansson.h>
#include <stdio.h>

#include "stages/report_figures.h"
#include "stages/report_svg.h"

struct stg_page {
    FILE *f;
    struct stg_figures *fig;   /* NULL: no figures */
};

/* One chart into the page and, as a figure named name, into page->fig. Lines and bars with more
 * than STG_CHART_MAX_SERIES series become small multiples: one chart per STG_CHART_MAX_SERIES,
 * titled "(part k of m)". */
void stg_page_bars(struct stg_page *p, const struct stg_chart *c, const char *name);
void stg_page_lines(struct stg_page *p, const struct stg_chart *c, const char *name);
void stg_page_heatmap(struct stg_page *p, const struct stg_heatmap *h, const char *name);

/* <td>number</td> */
void stg_page_cell(FILE *f, double v, const char *fmt);

struct st_db;
/* the tree sections (report_html_trees.c): constituency and dependency trees from attention,
 * structural probes, the corpora (SP_ESTORE with err when their statistics cannot be read) */
void stg_report_constituency(struct stg_page *p, json_t *trees);
void stg_report_dependency(struct stg_page *p, json_t *trees);
void stg_report_structprobes(struct stg_page *p, json_t *trees);
int stg_report_corpora(struct stg_page *p, struct st_db *db, char *err, size_t errlen);

/* the report's layer-wise figure and the control tasks (report_findings.c) */
void stg_findings_section(struct stg_page *p, json_t *aggs, json_t *trees);
void stg_control_section(struct stg_page *p, json_t *aggs);

#endif
