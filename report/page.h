/* report/page.h — what the HTML report's sections share: the page being written, its charts
 * (inlined, and written as figures by --figures), and the cells every table uses. Internal to
 * report_html.c and report_findings.c. */
#ifndef SP_RPT_PAGE_H
#define SP_RPT_PAGE_H

#include <jansson.h>
#include <stdio.h>

#include "report/figures.h"
#include "report/svg.h"

struct rpt_page {
    FILE *f;
    struct rpt_figures *fig;   /* NULL: no figures */
};

/* One chart into the page and, as a figure named name, into page->fig. Lines and bars with more
 * than RPT_CHART_MAX_SERIES series become small multiples: one chart per RPT_CHART_MAX_SERIES,
 * titled "(part k of m)". */
void rpt_page_bars(struct rpt_page *p, const struct rpt_chart *c, const char *name);
void rpt_page_lines(struct rpt_page *p, const struct rpt_chart *c, const char *name);
void rpt_page_heatmap(struct rpt_page *p, const struct rpt_heatmap *h, const char *name);

/* <td>number</td> */
void rpt_page_cell(FILE *f, double v, const char *fmt);

struct st_db;
/* the tree sections (report_html_trees.c): constituency and dependency trees from attention,
 * structural probes, the corpora (SP_ESTORE with err when their statistics cannot be read) */
struct rpt_table;
void rpt_constituency(struct rpt_page *p, const struct rpt_table *t);
void rpt_dependency(struct rpt_page *p, const struct rpt_table *t);
void rpt_structprobes(struct rpt_page *p, const struct rpt_table *t);
int rpt_corpora(struct rpt_page *p, struct st_db *db, char *err, size_t errlen);

/* the report's layer-wise figure and the control tasks (report_findings.c) */
void rpt_findings_section(struct rpt_page *p, const struct rpt_table *t);
void rpt_control_section(struct rpt_page *p, const struct rpt_table *t);

#endif
