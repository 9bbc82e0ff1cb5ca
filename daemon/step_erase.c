/* daemon/step_erase.c — the step kind "erase": a job's "erasures" entries (daemon/step.h), one step
 * each. An entry names its "run" (the corpus: the run's, else the job's first) and its "out-run",
 * which the sections after it (tokprobes, structprobes) then see as a corpus run with token vectors. */
#include <string.h>

#include "daemon/job_int.h"
#include "stages/erase.h"

static int erase_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    json_t *c = dmn_jp_entry(P, e, where);
    if (!c) return SP_EUSAGE;
    struct dmn_step *s = dmn_jp_new_step(P, DMN_ERASE, where);
    int rc = dmn_jp_fill(P, s, c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    struct stg_erase_opts *o = s->opts;
    if (o->corpus && dmn_jp_find_name(P->corpora, P->n_corpora, o->corpus) < 0)
        return dmn_jp_fail_name(P, sp_arena_printf(&P->job->arena, "%s.corpus", where), o->corpus, "corpus", P->corpora,
                                P->n_corpora);
    if (!o->corpus && o->run) o->corpus = dmn_jp_run_corpus(P, o->run);
    if (!o->corpus) return dmn_jp_fail(P, "%s.corpus: the job has no corpora to erase a word property of", where);
    if (o->out_run) {
        for (int i = 0; i < P->n_runs; i++)
            if (!strcmp(P->runs[i].run, o->out_run))
                return dmn_jp_fail(P, "%s.out-run: run '%s' is made twice (give the erasure another name)", where, o->out_run);
        P->runs = sp_xrealloc(P->runs, sizeof *P->runs * (size_t)(P->n_runs + 1));
        P->runs[P->n_runs++] = (struct dmn_runref){ o->out_run, o->corpus, 0, 0, 1 };
    }
    return SP_OK;
}

static int check_erase(struct stg_ctx *ctx, const void *opts) { return stg_erase_check(ctx, opts); }

static int run_erase(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    struct stg_erase_opts o = *(const struct stg_erase_opts *)s->opts;
    o.command = ro->command;
    struct stg_erase_result r = { 0 };
    int rc = stg_erase(ro->ctx, &o, &r);
    dmn_run_log_json(ro->log, r.json);
    snprintf(so->summary, sizeof so->summary,
             "%s from run %s into %s: %d directions removed, accuracy %.2f -> %.2f (random %.2f, majority %.2f) (result #%lld)",
             o.property, o.run, o.out_run, r.rank, r.acc_before, r.acc_after, r.acc_random, r.majority, (long long)r.result_id);
    stg_erase_result_free(&r);
    return rc;
}

static void what_erase(json_t *o, struct sp_buf *b)
{
    const char *p = json_string_value(json_object_get(o, "property")), *run = json_string_value(json_object_get(o, "run"));
    const char *out = json_string_value(json_object_get(o, "out-run"));
    sp_buf_printf(b, " %s %s -> %s", p ? p : "?", run ? run : "?", out ? out : "?");
}

const struct dmn_step_def dmn_step_erase = {
    .words = "erase", .section = "erasures", .table = stg_erase_options, .size = sizeof(struct stg_erase_opts),
    .entry = erase_entry, .check = check_erase, .run = run_erase, .what = what_erase, .flags = DMN_STEP_LEDGER,
};
