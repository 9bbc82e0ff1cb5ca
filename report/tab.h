/* report/tab.h — the tables for papers: one model of the report's tables, built once from
 * the rows report.c collects and written by two renderers, `report --format latex` (booktabs,
 * report/latex.c) and `--format md` (GitHub-flavoured Markdown, report/md.c), so
 * the two say the same numbers with the same rounding.
 *
 * The tables (each only where the store has rows for it):
 *   - probing tasks, one per classifier: encoders × tasks as SentEval lays them out, the baselines
 *     (majority class, sentence length alone) as rows above the encoders; each encoder's test
 *     accuracy mean ± sd over seeds, under it the 95% bootstrap interval and the selectivity
 *     against the control task (the probe on shuffled labels); n test items and seeds per task;
 *   - by layer, one per (NAME, classifier) of runs NAME-L<k>: tasks × layers, the mean over seeds,
 *     the best layer in bold, the task's majority class and n beside it, selectivity under it;
 *   - token probes (tasks token:*), one per classifier: per encoder and task the accuracy, the
 *     control task's accuracy and the selectivity;
 *   - structural probes (UUAS, DSpr, root accuracy, NSpr) against the linear baseline of the same
 *     test sentences and the baseline rows; by layer for runs NAME-L<k>;
 *   - tree extraction (EVALB Protocol A, span F1 of Protocol B) per method against the baselines;
 *     dependency trees from attention (UAS, UUAS) against theirs; the --compare table.
 *
 * Precision is fixed and said in every caption: percentages with one decimal, correlations (DSpr,
 * NSpr) with two, p-values with three; a value that rounds to zero is "0.0", never "-0.0".
 *
 * Strings in the model are plain UTF-8 (the user's names, captions, notes); each renderer escapes
 * them for its format. Ownership: the set owns every string and array in it (rpt_tab_free). */
#ifndef SP_RPT_TAB_H
#define SP_RPT_TAB_H

#include <jansson.h>
#include <stddef.h>

#include "common/sp.h"

#define RPT_TAB_PCT 1      /* decimals of a percentage */
#define RPT_TAB_CORR 2     /* decimals of a correlation (DSpr, NSpr) */
#define RPT_TAB_P 3        /* decimals of a p-value */

enum rpt_tab_cell_kind {
    RPT_CELL_EMPTY,        /* nothing */
    RPT_CELL_TEXT,         /* text (escaped by the renderer) */
    RPT_CELL_NUM,          /* v with prec decimals; NAN: the renderer's "no value" */
    RPT_CELL_SIGNED,       /* v with prec decimals and its sign (+1.0, −1.0) */
    RPT_CELL_MEANSD,       /* v ± sd (sd NAN: v alone) */
    RPT_CELL_INTERVAL,     /* [lo, hi] */
    RPT_CELL_COUNT,        /* v as an integer, or the range lo–hi when lo < hi */
};

/* footnote marks of a cell, with a legend line under the table for each one used */
enum { RPT_FLAG_SMALL = 1, RPT_FLAG_WIDE = 2, RPT_FLAG_NOCI = 4 };
#define RPT_TAB_NFLAGS 3

struct rpt_tab_cell {
    int kind;                        /* enum rpt_tab_cell_kind */
    char *text;                      /* RPT_CELL_TEXT; owned */
    double v, sd, lo, hi;
    int prec;                        /* decimals */
    int flags;                       /* RPT_FLAG_* */
    int bold;
    int span;                        /* head rows: columns this cell covers (>= 1); the next span-1 are empty */
};

enum rpt_tab_row_kind {
    RPT_ROW_HEAD,                    /* column heads (several: a grouped head, spans and cmidrules) */
    RPT_ROW_BODY,
    RPT_ROW_SUB,                     /* belongs to the body row above it (interval, selectivity): indented */
    RPT_ROW_RULE,                    /* a \midrule between groups of rows (Markdown has none) */
};

struct rpt_tab_row { int kind; struct rpt_tab_cell *cell; };   /* cell: ncol of them (NULL for a rule) */

struct rpt_tab {
    char *id;                        /* unique in the set, [a-z0-9-]: a LaTeX label's tail */
    char *caption;                   /* says what every number is, with its precision */
    char *align;                     /* one of l/r per column */
    int ncol, nrow, caprow;
    struct rpt_tab_row *row;
    int flags;                       /* union of the cells' flags: the legend lines under the table */
};

struct rpt_tab_set {
    char *store;                     /* the store's path */
    char **made_by;                  /* the distinct commands (manifest.command) that made the rows */
    int n_made_by;
    char **job;                      /* the distinct job files that made them, "FILE (sha256 HEX)" (manifest.job) */
    int n_job;
    size_t n_probe, n_tree;
    struct rpt_tab *t;
    int n, cap;
};

/* The tables of the results model (rows: report/rows.h; its comparisons and the results' manifests
 * among them). */
struct rpt_table;
void rpt_tab_build(struct rpt_tab_set *s, const char *db, const struct rpt_table *rows);
void rpt_tab_free(struct rpt_tab_set *s);

/* v with prec decimals into buf ("" for NAN; a value that rounds to zero without its sign). */
const char *rpt_tab_num(char *buf, size_t n, double v, int prec);
/* The legend line of one flag (RPT_FLAG_*), without its mark. */
const char *rpt_tab_flag_legend(int flag);
/* How a renderer writes what the model leaves to it: the strings around numbers and marks, and
 * the escape of plain text into its format (appended to b). */
struct rpt_tab_style {
    const char *none;                /* a missing value */
    const char *pm;                  /* between mean and sd */
    const char *minus;               /* a negative number's sign */
    const char *plus;                /* a positive difference's sign */
    const char *range;               /* between the ends of a count range */
    const char *iv_open, *iv_sep, *iv_close;   /* an interval */
    const char *bold_open, *bold_close;
    const char *mark[RPT_TAB_NFLAGS];          /* the footnote mark of flag 1 << i */
    void (*escape)(struct sp_buf *b, const char *s);
};
/* One cell's content in style st, appended to b (a head or text cell: its text, escaped). */
void rpt_tab_cell_text(struct sp_buf *b, const struct rpt_tab_cell *c, const struct rpt_tab_style *st);

#endif
