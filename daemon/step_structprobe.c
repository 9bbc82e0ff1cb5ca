/* daemon/step_structprobe.c — the step kind "structprobe": a job's "structprobes" entries
 * (daemon/step.h), training the distance and depth probes on every corpus run that keeps token
 * vectors unless an entry names its run, baseline or gold files. */
#include <math.h>
#include <string.h>
#include "daemon/job_int.h"
#include "stages/structprobe.h"

/* A structprobe entry with "run", "baseline", "distances", "depths", "conllu" or "dp" is one step
 * (corpus: the run's, else the job's first); otherwise it trains the probes on every corpus run
 * (of its "corpus", or all) that keeps token vectors: one step per run, every layer run of a
 * "layers" encoder included. */
static int structprobe_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    json_t *c = dmn_jp_entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int tmpl = P->job->n_steps;
    int rc = dmn_jp_fill(P, dmn_jp_new_step(P, DMN_STRUCTPROBE, where), c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    struct stg_structprobe_opts t = *(struct stg_structprobe_opts *)P->job->steps[tmpl].opts;
    if (t.corpus && dmn_jp_find_name(P->corpora, P->n_corpora, t.corpus) < 0)
        return dmn_jp_fail_name(P, sp_arena_printf(&P->job->arena, "%s.corpus", where), t.corpus, "corpus", P->corpora, P->n_corpora);
    if (t.run || t.baseline || t.distances || t.depths || t.conllu.n || t.dp.n) {
        if (!t.corpus && !t.conllu.n && !t.dp.n) {
            const char *corpus = t.run ? dmn_jp_run_corpus(P, t.run) : P->n_corpora ? P->corpora[0] : NULL;
            if (!corpus) return dmn_jp_fail(P, "%s.corpus: the job has no corpora with gold trees", where);
            ((struct stg_structprobe_opts *)P->job->steps[tmpl].opts)->corpus = corpus;
        }
        return SP_OK;
    }
    P->job->n_steps--;
    for (int r = 0; r < P->n_runs; r++) {
        if (!dmn_jp_crossed(&P->runs[r], t.corpus, 't')) continue;
        struct stg_structprobe_opts *o = dmn_jp_new_step(P, DMN_STRUCTPROBE, where)->opts;
        *o = t;
        o->corpus = P->runs[r].input;
        o->run = P->runs[r].run;
    }
    if (P->job->n_steps == tmpl)
        return dmn_jp_fail(P, "%s: no corpus run of this job%s%s keeps token vectors to train structural probes on (give an "
                    "encoder \"token-vectors\": true, or this entry \"run\" or \"baseline\")", where,
                    t.corpus ? " of corpus " : "", t.corpus ? t.corpus : "");
    return SP_OK;
}

/* "UUAS u, DSpr d, root r" of a structural probe's figures (NaN: "-") */
static void sp_figures(const struct prb_sp_result *m, struct sp_buf *b)
{
    sp_buf_printf(b, isnan(m->uuas) ? "UUAS -" : "UUAS %.2f", m->uuas);
    sp_buf_printf(b, isnan(m->dspr) ? ", DSpr -" : ", DSpr %.4f", m->dspr);
    sp_buf_printf(b, isnan(m->root_acc) ? ", root acc -" : ", root acc %.2f", m->root_acc);
}

static int run_structprobe(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    struct sp_buf b = { 0 };
    struct stg_structprobe_opts o = *(const struct stg_structprobe_opts *)s->opts;
    o.command = ro->command;
    struct stg_structprobe_result r;
    int rc = stg_structprobe(ro->ctx, &o, &r);
    dmn_run_log_json(ro->log, r.json);
    if (rc == SP_OK && o.run) {
        sp_buf_printf(&b, "run %s: ", o.run);
        sp_figures(&r.res, &b);
        sp_buf_printf(&b, " on %ld test sentences of %ld", r.res.n_sentences, r.n_total);
        if (r.have_linear) {
            sp_buf_printf(&b, "; linear baseline there ");
            sp_figures(&r.linear, &b);
        }
    } else if (rc == SP_OK) {
        sp_buf_printf(&b, "%s: ", o.baseline ? o.baseline : r.method);
        sp_figures(&r.res, &b);
        sp_buf_printf(&b, " on %ld sentences", r.res.n_sentences);
    }
    sp_buf_printf(&b, " (evaluation #%lld)", (long long)r.eval_id);
    snprintf(so->summary, sizeof so->summary, "%s", b.p);
    sp_buf_free(&b);
    stg_structprobe_result_free(&r);
    return rc;
}
static int check_structprobe(struct stg_ctx *ctx, const void *opts) { return stg_structprobe_check(ctx, opts); }

const struct dmn_step_def dmn_step_structprobe = {
    .words = "structprobe", .section = "structprobes", .table = stg_structprobe_options,
    .size = sizeof(struct stg_structprobe_opts), .entry = structprobe_entry, .check = check_structprobe,
    .run = run_structprobe, .what = dmn_step_what_trees, .flags = DMN_STEP_LEDGER,
};
