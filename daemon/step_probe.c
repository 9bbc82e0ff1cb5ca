/* daemon/step_probe.c — the step kind "probe": a job's "probes" entries (daemon/step.h), each crossed
 * with the task runs (of its "task" list, or all), each classifier and each seed. */
#include <math.h>
#include <string.h>
#include "daemon/job_int.h"
#include "stages/probe.h"
#include "report/report.h"
#include "report/agg.h"

/* A probe entry crossed with the task runs (those of its "task" list, or all), each classifier
 * and each seed: one step stores one result row, so a stopped job never leaves half a step. An
 * entry with "run" is one step as written. */
static int probe_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    json_t *c = dmn_jp_entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int tmpl = P->job->n_steps;
    int rc = dmn_jp_fill(P, dmn_jp_new_step(P, DMN_PROBE, where), c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    struct stg_probe_opts t = *(struct stg_probe_opts *)P->job->steps[tmpl].opts;
    if (t.run || t.task_file) return SP_OK;
    for (int i = 0; i < t.task.n; i++)
        if (dmn_jp_find_name(P->tasks, P->n_tasks, t.task.v[i]) < 0)
            return dmn_jp_fail_name(P, sp_arena_printf(&P->job->arena, "%s.task[%d]", where, i), t.task.v[i], "task", P->tasks, P->n_tasks);
    P->job->n_steps--;   /* the template becomes the crossed steps */
    int nc = t.classifier.n ? t.classifier.n : 1, ns = t.seed.n ? t.seed.n : 1;
    for (int r = 0; r < P->n_runs; r++) {
        if (!P->runs[r].is_task || (t.task.n && dmn_jp_find_name(t.task.v, t.task.n, P->runs[r].input) < 0)) continue;
        for (int k = 0; k < nc * ns; k++) {
            struct dmn_step *s = dmn_jp_new_step(P, DMN_PROBE, where);
            struct stg_probe_opts *o = s->opts;
            *o = t;
            o->task = dmn_jp_one(P, P->runs[r].input);
            o->run = P->runs[r].run;
            if (t.classifier.n) o->classifier = dmn_jp_one(P, t.classifier.v[k / ns]);
            if (t.seed.n) o->seed = dmn_jp_one(P, t.seed.v[k % ns]);
            /* an entry for both classifiers gives "nhid"/"dropout" for its mlp steps: its logreg
             * steps keep their defaults (probe refuses them on a logreg alone) */
            if (t.classifier.n > 1 && !strcmp(o->classifier.v[0], "logreg")) {
                const struct stg_probe_opts *d = s->defaults;
                o->nhid = d->nhid;
                o->dropout = d->dropout;
            }
        }
    }
    return SP_OK;
}

/* " majority M, control C (selectivity S)" of a probe result's baselines, appended to b */
static void probe_baselines(json_t *res, struct sp_buf *b)
{
    double maj = rpt_jpath_num(res, "baselines.majority.acc"), ctl = rpt_jpath_num(res, "baselines.control.acc"),
           sel = rpt_jpath_num(res, "baselines.control.selectivity");
    if (!isnan(maj)) sp_buf_printf(b, ", majority %.2f%%", maj);
    if (!isnan(ctl)) sp_buf_printf(b, ", control %.2f%%", ctl);
    if (!isnan(sel)) sp_buf_printf(b, " (selectivity %+.2f)", sel);
}

static int run_probe(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    struct stg_probe_opts o = *(const struct stg_probe_opts *)s->opts;
    o.command = ro->command;
    struct stg_probe_result r;
    int rc = stg_probe(ro->ctx, &o, &r);
    for (int i = 0; i < r.n; i++)
        if (ro->log && r.runs[i].text) fputs(r.runs[i].text, ro->log);
    if (r.n == 1 && r.runs[0].row.has_test) {
        struct sp_buf b = { 0 };
        json_error_t e;
        json_t *res = r.runs[0].row.result ? json_loads(r.runs[0].row.result, 0, &e) : NULL;
        sp_buf_printf(&b, "%s: test %.2f%%", r.runs[0].task, r.runs[0].row.test_acc);
        probe_baselines(res, &b);
        if (json_is_integer(json_object_get(res, "ntest")))
            sp_buf_printf(&b, ", n %lld", (long long)json_integer_value(json_object_get(res, "ntest")));
        sp_buf_printf(&b, " (result #%lld)", (long long)r.runs[0].result_id);
        snprintf(so->summary, sizeof so->summary, "%s", b.p);
        json_decref(res);
        sp_buf_free(&b);
    } else if (r.n == 1) {       /* a task without test items: its dev accuracy, said as such */
        if (r.runs[0].row.has_dev)
            snprintf(so->summary, sizeof so->summary, "%s: no test items; dev %.2f%% (result #%lld)", r.runs[0].task,
                     r.runs[0].row.dev_acc, (long long)r.runs[0].result_id);
        else
            snprintf(so->summary, sizeof so->summary, "%s: no test items (result #%lld)", r.runs[0].task,
                     (long long)r.runs[0].result_id);
    } else {
        snprintf(so->summary, sizeof so->summary, "%d results", r.n);
    }
    stg_probe_result_free(&r);
    return rc;
}

static void what_probe(json_t *o, struct sp_buf *b)
{
    struct sp_buf t1 = { 0 }, t2 = { 0 };
    const char *task = dmn_step_opt_text(o, "task", &t1), *seed = dmn_step_opt_text(o, "seed", &t2);
    const char *run = json_string_value(json_object_get(o, "run"));
    char label[512];
    if (task) sp_buf_printf(b, " %s", task);
    if (run) sp_buf_printf(b, " %s", task ? rpt_run_label(run, task, label, sizeof label) : run);
    if (seed) sp_buf_printf(b, " seed %s", seed);
    sp_buf_free(&t1);
    sp_buf_free(&t2);
}
static int check_probe(struct stg_ctx *ctx, const void *opts) { return stg_probe_check(ctx, opts); }

const struct dmn_step_def dmn_step_probe = {
    .words = "probe", .section = "probes", .table = stg_probe_options, .size = sizeof(struct stg_probe_opts),
    .entry = probe_entry, .check = check_probe, .run = run_probe, .what = what_probe,
    .flags = DMN_STEP_LEDGER | DMN_STEP_TASK_RUNS,
};
