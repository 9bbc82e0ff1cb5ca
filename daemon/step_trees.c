/* daemon/step_trees.c — the step kind "trees": a job's "trees" entries (daemon/step.h), crossed with
 * the corpus runs that keep attention maps unless an entry names its run, baseline or trees. */
#include <math.h>
#include <string.h>
#include "daemon/job_int.h"
#include "report/agg.h"
#include "stages/trees.h"

/* A trees entry with "run", "baseline", "attention" or "mrg" is one step; otherwise it is
 * crossed with the corpus runs (of its "corpus", or all) that keep attention maps. */
static int trees_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    json_t *c = dmn_jp_entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int tmpl = P->job->n_steps;
    int rc = dmn_jp_fill(P, dmn_jp_new_step(P, DMN_TREES, where), c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    struct stg_trees_opts t = *(struct stg_trees_opts *)P->job->steps[tmpl].opts;
    if (t.corpus && dmn_jp_find_name(P->corpora, P->n_corpora, t.corpus) < 0)
        return dmn_jp_fail_name(P, sp_arena_printf(&P->job->arena, "%s.corpus", where), t.corpus, "corpus", P->corpora, P->n_corpora);
    if (!t.corpus && !t.mrg.n && !P->n_corpora) return dmn_jp_fail(P, "%s.corpus: the job has no corpora with gold trees", where);
    if (t.run || t.baseline || t.attention || t.mrg.n) {
        if (!t.corpus && !t.mrg.n) ((struct stg_trees_opts *)P->job->steps[tmpl].opts)->corpus = t.run ? dmn_jp_run_corpus(P, t.run) : P->corpora[0];
        return SP_OK;
    }
    P->job->n_steps--;
    for (int r = 0; r < P->n_runs; r++) {
        if (!dmn_jp_crossed(&P->runs[r], t.corpus, 'a')) continue;
        struct stg_trees_opts *o = dmn_jp_new_step(P, DMN_TREES, where)->opts;
        *o = t;
        o->corpus = P->runs[r].input;
        o->run = P->runs[r].run;
    }
    if (P->job->n_steps == tmpl)
        return dmn_jp_fail(P, "%s: no corpus run of this job%s%s keeps attention maps to extract trees from (give an encoder "
                    "\"attention\": LAYER, or this entry \"run\" or \"baseline\")", where, t.corpus ? " of corpus " : "",
                    t.corpus ? t.corpus : "");
    return SP_OK;
}

static int run_trees(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    struct sp_buf b = { 0 };
    struct stg_trees_opts o = *(const struct stg_trees_opts *)s->opts;
    o.command = ro->command;
    if (o.out) dmn_run_make_parents(o.out, 0);
    if (o.gold_out) dmn_run_make_parents(o.gold_out, 0);
    struct stg_trees_result r;
    int rc = stg_trees(ro->ctx, &o, &r);
    dmn_run_log_json(ro->log, r.json);
    sp_buf_printf(&b, "%s", r.method);
    if (rc == SP_OK && r.json) {
        double uas = rpt_jpath_num(r.json, "uas"), f1 = rpt_jpath_num(r.json, "protocol_a.all.fmeasure");
        json_t *n = json_object_get(r.json, "n_sentences");
        if (json_object_get(r.json, "uas")) {         /* dependency trees */
            sp_buf_printf(&b, isnan(uas) ? ": UAS -" : ": UAS %.2f", uas);
            double u = rpt_jpath_num(r.json, "uuas_mst");
            if (!isnan(u)) sp_buf_printf(&b, ", UUAS (MST) %.2f", u);
        } else {
            sp_buf_printf(&b, isnan(f1) ? ": F1 -" : ": F1 %.2f (EVALB)", f1);
        }
        if (json_is_integer(n)) sp_buf_printf(&b, " on %lld sentences", (long long)json_integer_value(n));
        if (r.n_runs > 1) sp_buf_printf(&b, ", mean of %d seeds", r.n_runs);
    }
    sp_buf_printf(&b, " (evaluation #%lld)", (long long)r.eval_id);
    snprintf(so->summary, sizeof so->summary, "%s", b.p);
    sp_buf_free(&b);
    stg_trees_result_free(&r);
    return rc;
}

/* trees and structprobe steps say the same: (dependency), the baseline or the run */
void dmn_step_what_trees(json_t *o, struct sp_buf *b)
{
    const char *run = json_string_value(json_object_get(o, "run")), *base = json_string_value(json_object_get(o, "baseline"));
    if (json_is_true(json_object_get(o, "dependency"))) sp_buf_puts(b, " (dependency)");
    if (base) sp_buf_printf(b, " baseline %s", base);
    else if (run) sp_buf_printf(b, " %s", run);
}
static int check_trees(struct stg_ctx *ctx, const void *opts) { return stg_trees_check(ctx, opts); }

const struct dmn_step_def dmn_step_trees = {
    .words = "trees", .section = "trees", .table = stg_trees_options, .size = sizeof(struct stg_trees_opts),
    .entry = trees_entry, .check = check_trees, .run = run_trees, .what = dmn_step_what_trees, .flags = DMN_STEP_LEDGER,
};
