/* report/report.h — the report stage: stored probing results and tree evaluations as a text
 * table, JSON, a tidy CSV, an HTML page or tables for papers (LaTeX, Markdown), written to a FILE the caller gives (stdout, or a temporary file the
 * caller renames into place only when the stage succeeds).
 *
 * The rows come from store/results (probe_result, tree_eval); their `result` JSON is what the
 * commands printed plus a manifest. It is parsed once into the results model (report/rows.h),
 * which every writer formats; --format json prints it whole. */
#ifndef SP_RPT_REPORT_H
#define SP_RPT_REPORT_H

#include <stdio.h>

#include "stages/stage.h"

enum rpt_format { RPT_TEXT, RPT_JSON, RPT_CSV, RPT_HTML, RPT_LATEX, RPT_MD };

struct rpt_opts {
    const char *db;                  /* the store (read only) */
    struct sp_strlist run;           /* rows of any of these runs; empty: any */
    struct sp_strlist task;          /* probe results of any of these tasks; empty: any */
    const char *classifier;          /* probe results only */
    const char *method, *corpus;     /* tree evaluations only */
    struct sp_strlist compare;       /* two encoders (or runs): their paired comparison per task */
    int format;                      /* enum rpt_format */
    const char *out;                 /* the destination's name; NULL: standard output */
    const char *figures;             /* a folder for the charts as files; NULL: none */
    const char *figure_formats;      /* "svg,pdf,png", "auto" */
    FILE *f;                         /* not in the table: where the report is written */
};
extern const struct sp_opt rpt_options[];

struct rpt_result { size_t n_probe, n_tree; };

/* SP_OK; SP_ESTORE / SP_EIO (missing store, write error); SP_EPARSE when a --run names no run of
 * the store (ctx->err has the nearest names; the report of the other filters is still written to
 * f) or when filters match nothing and o->out is set (nothing is written: the caller keeps its
 * file). */
int rpt_report(struct stg_ctx *ctx, const struct rpt_opts *o, struct rpt_result *r);
/* The rules rpt_report checks its options against before it reads anything (options that go together
 * or exclude each other; --compare takes two names): SP_EUSAGE with ctx->err, or SP_OK. A job file's steps are checked
 * with it when the job is loaded, so `run --check` refuses what the run would. */
int rpt_check(struct stg_ctx *ctx, const struct rpt_opts *o);


/* Every probe result and tree evaluation of the store db, collected as the report collects them
 * (the rows of `report --format json`'s "probe_results" and "tree_evals"): two new arrays, oldest
 * first. SP_OK, or SP_ESTORE with ctx->err (the arrays are NULL then). The run's summary reads them
 * (report/summary.h). */
struct json_t;
int rpt_rows(struct stg_ctx *ctx, const char *db, struct json_t **probes, struct json_t **trees);

/* s as the text report writes a name, one line of one width (a control byte as \n, \t, \r or \xHH,
 * a C1 control as \uHHHH); NULL when s needs no escape. Caller frees. The run's summary uses it. */
char *rpt_text_escape(const char *s);

/* rpt_report into o->out (NULL: stdout), the one way commands and jobs write a report: a temporary
 * file renamed into place only when the report is complete; for html, o->out is a folder (made
 * with its parents) and the page is FOLDER/report.html. o->f is set here. *written: the path. */
int rpt_write(struct stg_ctx *ctx, struct rpt_opts *o, struct rpt_result *r, char *written,
                     size_t written_len);

#endif
