/* daemon/step_report.c — the step kind "report": a job's "reports" entries (daemon/step.h), one step
 * each, written into place only when complete. */
#include "daemon/job_int.h"
#include "report/report.h"

static int report_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    json_t *c = dmn_jp_entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int rc = dmn_jp_fill(P, dmn_jp_new_step(P, DMN_REPORT, where), c, where, NULL);
    json_decref(c);
    return rc;
}

static int run_report(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    struct rpt_opts o = *(const struct rpt_opts *)s->opts;
    struct rpt_result r = { 0 };
    char written[4096];
    if (o.out && o.format != RPT_HTML) dmn_run_make_parents(o.out, 0);
    int rc = rpt_write(ro->ctx, &o, &r, written, sizeof written);
    snprintf(so->summary, sizeof so->summary, "%zu probe results, %zu tree evaluations -> %s", r.n_probe, r.n_tree, written);
    return rc;
}

static void what_report(json_t *o, struct sp_buf *b)
{
    const char *f = json_string_value(json_object_get(o, "format"));
    sp_buf_printf(b, " %s", f ? f : "text");
}
static int check_report(struct stg_ctx *ctx, const void *opts) { return rpt_check(ctx, opts); }

const struct dmn_step_def dmn_step_report = {
    .words = "report", .section = "reports", .table = rpt_options, .size = sizeof(struct rpt_opts),
    .entry = report_entry, .check = check_report, .run = run_report, .what = what_report, .flags = DMN_STEP_LEDGER,
};
