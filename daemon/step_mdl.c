/* daemon/step_mdl.c — the step kind "mdl": a job's "mdl" entries (daemon/step.h). A token task
 * (upos, deprel) is crossed with every corpus run that keeps token vectors, as tokprobes are; a
 * sentence task with every run encoding it; unless the entry names its run. */
#include <math.h>
#include <string.h>

#include "daemon/job_int.h"
#include "report/agg.h"
#include "stages/mdl.h"

static int is_token_task(const char *t) { return !t || !strcmp(t, "upos") || !strcmp(t, "deprel"); }

static int mdl_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    json_t *c = dmn_jp_entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int tmpl = P->job->n_steps;
    int rc = dmn_jp_fill(P, dmn_jp_new_step(P, DMN_MDL, where), c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    struct stg_mdl_opts t = *(struct stg_mdl_opts *)P->job->steps[tmpl].opts;
    int tok = is_token_task(t.task);
    if (tok && t.corpus && dmn_jp_find_name(P->corpora, P->n_corpora, t.corpus) < 0)
        return dmn_jp_fail_name(P, sp_arena_printf(&P->job->arena, "%s.corpus", where), t.corpus, "corpus", P->corpora, P->n_corpora);
    if (tok && !P->n_corpora && !t.corpus) return dmn_jp_fail(P, "%s.corpus: the job has no corpora with word labels", where);
    if (t.run) {
        if (tok && !t.corpus) ((struct stg_mdl_opts *)P->job->steps[tmpl].opts)->corpus = dmn_jp_run_corpus(P, t.run);
        return SP_OK;
    }
    P->job->n_steps--;
    for (int r = 0; r < P->n_runs; r++) {
        const struct dmn_runref *ru = &P->runs[r];
        if (tok ? !dmn_jp_crossed(ru, t.corpus, 't') : !(ru->is_task && !strcmp(ru->input, t.task))) continue;
        struct stg_mdl_opts *o = dmn_jp_new_step(P, DMN_MDL, where)->opts;
        *o = t;
        if (tok) o->corpus = ru->input;
        o->run = ru->run;
    }
    if (P->job->n_steps == tmpl && tok)
        return dmn_jp_fail(P, "%s: no corpus run of this job%s%s keeps token vectors to probe (give an encoder \"token-vectors\": "
                    "true, or this entry \"run\")", where, t.corpus ? " of corpus " : "", t.corpus ? t.corpus : "");
    if (P->job->n_steps == tmpl)
        return dmn_jp_fail(P, "%s: no run of this job encodes task '%s' (give this entry \"run\")", where, t.task);
    return SP_OK;
}

static int run_mdl(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    struct stg_mdl_opts o = *(const struct stg_mdl_opts *)s->opts;
    o.command = ro->command;
    struct stg_mdl_result r = { 0 };
    int rc = stg_mdl(ro->ctx, &o, &r);
    dmn_run_log_json(ro->log, r.json);
    const char *task = rpt_jpath_str(r.json, "task");
    struct sp_buf b = { 0 };
    if (*task) sp_buf_printf(&b, "%s, ", task);
    sp_buf_printf(&b, "run %s: codelength %.1f bits, compression %.2f", o.run, r.codelength, r.compression);
    if (!isnan(r.control_compression))
        sp_buf_printf(&b, ", control %.2f, selectivity %.1f bits", r.control_compression, r.control_codelength - r.codelength);
    sp_buf_printf(&b, " (result #%lld)", (long long)r.result_id);
    snprintf(so->summary, sizeof so->summary, "%s", b.p);
    sp_buf_free(&b);
    stg_mdl_result_free(&r);
    return rc;
}

static void what_mdl(json_t *o, struct sp_buf *b)
{
    const char *task = json_string_value(json_object_get(o, "task")), *run = json_string_value(json_object_get(o, "run"));
    sp_buf_printf(b, " %s %s", task ? task : "upos", run ? run : "?");
}

static int check_mdl(struct stg_ctx *ctx, const void *opts) { return stg_mdl_check(ctx, opts); }

const struct dmn_step_def dmn_step_mdl = {
    .words = "mdl", .section = "mdl", .table = stg_mdl_options, .size = sizeof(struct stg_mdl_opts),
    .entry = mdl_entry, .check = check_mdl, .run = run_mdl, .what = what_mdl, .flags = DMN_STEP_LEDGER,
};
