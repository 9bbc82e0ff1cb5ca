/* report/md.h — `report --format md`: the tables of report/tab.h as GitHub-flavoured
 * Markdown: per table a bold "Table N." caption, the pipe table (several head rows joined into one
 * per column; Markdown has no rules between groups of rows, and a row that belongs to the one above
 * it starts with "↳"), and the flags' legend. Every user string is escaped (\ ` * _ | < > [ ] ~ $ &
 * get a backslash; line breaks become spaces), so a name with a pipe stays in its cell. Last, the
 * tasks without results (unfit: {"TASK": "why"}, a job skipped them) as a table of task and reason. */
#ifndef SP_RPT_MD_H
#define SP_RPT_MD_H

#include <jansson.h>
#include <stdio.h>

#include "common/sp.h"

/* The Markdown of the collected rows (unfit may be NULL) to f. */
struct rpt_table;
void rpt_md(FILE *f, const char *db, const struct rpt_table *rows, json_t *unfit);
/* s escaped for a Markdown table cell or paragraph, appended to b. */
void rpt_md_escape(struct sp_buf *b, const char *s);

#endif
