/* report/latex.h — `report --format latex`: the tables of report/tab.h as a fragment
 * to \input into a paper: booktabs rules (\toprule, \midrule, \cmidrule, \bottomrule), one table
 * float per table with its caption (what every number is, and its precision) and label
 * tab:synprobe-ID, the flags' legend under the tabular. A comment at the top names the package it
 * needs (\usepackage{booktabs}), the store and the commands or job that made the results. Every
 * user string (run, task, corpus, method names; the store's path in the comment excepted) is
 * escaped: & % $ # _ { } ~ ^ \ < > | `, -- (a dash otherwise) and the few non-ASCII signs the
 * captions use. Last, the tasks without results (unfit: {"TASK": "why"}, a job skipped them) as a
 * table of task and reason, label tab:synprobe-skipped-tasks. */
#ifndef SP_RPT_LATEX_H
#define SP_RPT_LATEX_H

#include <jansson.h>
#include <stdio.h>

#include "common/sp.h"

/* The fragment of the collected rows (unfit may be NULL) to f. */
struct rpt_table;
void rpt_latex(FILE *f, const char *db, const struct rpt_table *rows, json_t *unfit);
/* s escaped for LaTeX text mode, appended to b. */
void rpt_latex_escape(struct sp_buf *b, const char *s);

#endif
