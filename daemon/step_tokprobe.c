/* daemon/step_tokprobe.c — the step kind "tokprobe": a job's "tokprobes" entries (daemon/step.h),
 * crossed with every corpus run that keeps token vectors unless an entry names its run. */
#include <string.h>
#include "daemon/job_int.h"
#include "report/agg.h"
#include "stages/tokprobe.h"

/* A tokprobe entry with "run" is one step (corpus: the run's, else the job's first); otherwise
 * it is crossed with every corpus run (of its "corpus", or all) that keeps token vectors. */
static int tokprobe_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    json_t *c = dmn_jp_entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int tmpl = P->job->n_steps;
    int rc = dmn_jp_fill(P, dmn_jp_new_step(P, DMN_TOKPROBE, where), c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    struct stg_tokprobe_opts t = *(struct stg_tokprobe_opts *)P->job->steps[tmpl].opts;
    if (t.corpus && dmn_jp_find_name(P->corpora, P->n_corpora, t.corpus) < 0)
        return dmn_jp_fail_name(P, sp_arena_printf(&P->job->arena, "%s.corpus", where), t.corpus, "corpus", P->corpora, P->n_corpora);
    if (!P->n_corpora && !t.corpus) return dmn_jp_fail(P, "%s.corpus: the job has no corpora with word labels", where);
    if (t.run) {
        if (!t.corpus) ((struct stg_tokprobe_opts *)P->job->steps[tmpl].opts)->corpus = dmn_jp_run_corpus(P, t.run);
        return SP_OK;
    }
    P->job->n_steps--;
    for (int r = 0; r < P->n_runs; r++) {
        if (!dmn_jp_crossed(&P->runs[r], t.corpus, 't')) continue;
        struct stg_tokprobe_opts *o = dmn_jp_new_step(P, DMN_TOKPROBE, where)->opts;
        *o = t;
        o->corpus = P->runs[r].input;
        o->run = P->runs[r].run;
    }
    if (P->job->n_steps == tmpl)
        return dmn_jp_fail(P, "%s: no corpus run of this job%s%s keeps token vectors to probe (give an encoder \"token-vectors\": "
                    "true, or this entry \"run\")", where, t.corpus ? " of corpus " : "", t.corpus ? t.corpus : "");
    return SP_OK;
}

static int run_tokprobe(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    struct stg_tokprobe_opts o = *(const struct stg_tokprobe_opts *)s->opts;
    o.command = ro->command;
    struct stg_tokprobe_result r = { 0 };
    int rc = stg_tokprobe(ro->ctx, &o, &r);
    dmn_run_log_json(ro->log, r.json);
    const char *task = rpt_jpath_str(r.json, "task");
    json_t *n = json_object_get(r.json, "ntest");
    struct sp_buf b = { 0 };
    if (*task) sp_buf_printf(&b, "%s, ", task);
    sp_buf_printf(&b, "run %s: accuracy %.2f, control %.2f, selectivity %.2f points", o.run, r.acc_task, r.acc_control,
                  r.selectivity);
    if (json_is_integer(n)) sp_buf_printf(&b, ", n %lld", (long long)json_integer_value(n));
    sp_buf_printf(&b, " (result #%lld)", (long long)r.result_id);
    snprintf(so->summary, sizeof so->summary, "%s", b.p);
    sp_buf_free(&b);
    stg_tokprobe_result_free(&r);
    return rc;
}

static void what_tokprobe(json_t *o, struct sp_buf *b)
{
    const char *task = json_string_value(json_object_get(o, "task")), *run = json_string_value(json_object_get(o, "run"));
    sp_buf_printf(b, " %s %s", task ? task : "upos", run ? run : "?");
}

const struct dmn_step_def dmn_step_tokprobe = {   /* tokprobe's rules are all in its table */
    .words = "tokprobe", .section = "tokprobes", .table = stg_tokprobe_options, .size = sizeof(struct stg_tokprobe_opts),
    .entry = tokprobe_entry, .run = run_tokprobe, .what = what_tokprobe, .flags = DMN_STEP_LEDGER,
};
