/* daemon/run.c — the foreground job runner (daemon/run.h). */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/run.h"
#include "daemon/shard.h"
#include "stages/encode.h"
#include "stages/ingest.h"
#include "stages/probe.h"
#include "report/report.h"
#include "report/agg.h"
#include "stages/structprobe.h"
#include "stages/tasks.h"
#include "stages/tokprobe.h"
#include "stages/trees.h"
#include "store/st_jobs.h"
#include "store/st_shards.h"

struct step_out { char summary[4096]; int nowork; };   /* a result line: names of any length, figures */

/* mkdir -p of path's folder (the output folder itself when dir_too); a failure shows when the
 * file is opened there */
static void make_parents(const char *path, int dir_too)
{
    char p[4096], err[SP_ERRLEN];
    snprintf(p, sizeof p, "%s", path);
    if (!dir_too) { char *s = strrchr(p, '/'); if (!s) return; *s = 0; }
    (void)sp_mkdirs(p, err, sizeof err);
}

static void log_json(FILE *log, json_t *j)
{
    if (!log || !j) return;
    json_dumpf(j, log, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    fputc('\n', log);
}

static int do_ingest(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    struct stg_ingest_result r;
    int rc = stg_ingest(ro->ctx, s->opts, &r);
    if (rc == SP_OK) {
        /* what the reader left out: its messages are the stages' lines, which only --verbose shows */
        struct sp_buf b = { 0 };
        sp_buf_printf(&b, "%d files (%d unchanged), %ld sentences added", r.n_files, r.n_unchanged, r.sentences);
        if (r.rejected) sp_buf_printf(&b, ", %ld rejected (see the quarantine table)", r.rejected);
        if (r.skipped_lines) sp_buf_printf(&b, ", %ld comment line%s without a sentence skipped", r.skipped_lines,
                                           r.skipped_lines == 1 ? "" : "s");
        snprintf(so->summary, sizeof so->summary, "%s", b.p);
        sp_buf_free(&b);
        so->nowork = r.n_unchanged == r.n_files;
    } else if (r.n_files && r.files[r.n_files - 1].error[0]) {
        snprintf(ro->ctx->err, sizeof ro->ctx->err, "%s", r.files[r.n_files - 1].error);
    }
    stg_ingest_result_free(&r);
    return rc;
}

/* The dtype the step stores vectors as: its "store-dtype" option where the encode stage has one,
 * else f32 (every store before it). */
static const char *step_dtype(const struct dmn_step *s, char *buf, size_t n)
{
    json_t *o = json_object();
    sp_opt_to_json(s->table, s->opts, o);
    const char *d = json_string_value(json_object_get(o, "store-dtype"));
    snprintf(buf, n, "%s", d ? d : "f32");
    json_decref(o);
    return buf;
}

static int do_encode(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    struct stg_encode_opts o = *(const struct stg_encode_opts *)s->opts;
    o.command = ro->command;
    struct stg_encode_result r;
    int rc = stg_encode(ro->ctx, &o, &r);
    long enc = 0, cached = 0;
    for (int i = 0; i < r.n; i++) { enc += r.in[i].encoded; cached += r.in[i].cached; }
    char dt[32], dim[32] = "";
    step_dtype(s, dt, sizeof dt);
    if (r.n > 0) snprintf(dim, sizeof dim, "%d-dim ", r.in[0].dim);
    if (o.layers && r.n > 1)      /* one pass, a run per layer: the counts are each run's */
        snprintf(so->summary, sizeof so->summary, "runs %s..%s (%d layers, one pass): %ld encoded, %ld cached, %s%s",
                 r.in[0].run, r.in[r.n - 1].run, r.n, r.in[0].encoded, r.in[0].cached, dim, dt);
    else if (o.layers && r.n == 1)
        snprintf(so->summary, sizeof so->summary, "run %s: %ld encoded, %ld cached, %s%s", r.in[0].run, enc, cached, dim, dt);
    else
        snprintf(so->summary, sizeof so->summary, "run %s: %ld encoded, %ld cached, %s%s", o.run, enc, cached, dim, dt);
    so->nowork = enc == 0;
    stg_encode_result_free(&r);
    return rc;
}

static int do_tasks(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    if (s->kind == DMN_TASKS_IMPORT) {
        struct stg_tasks_import_result r;
        int rc = stg_tasks_import(ro->ctx, s->opts, &r);
        snprintf(so->summary, sizeof so->summary, "%d items imported", rc ? 0 : r.n_items);
        return rc;
    }
    const struct stg_tasks_build_opts *o = s->opts;
    if (o->out) make_parents(o->out, 1);
    struct stg_tasks_build_result r;
    int rc = stg_tasks_build(ro->ctx, o, &r);
    log_json(ro->log, r.summary);
    struct sp_buf b = { 0 };
    sp_buf_printf(&b, "%d tasks built, %d stored", r.n_built, r.n_stored);
    /* what the build knows now and the probes would find out after the encodes: said here */
    json_t *unfit = NULL;
    struct stg_ctx c = *ro->ctx;
    if (rc == SP_OK && o->db && stg_probe_unfit_tasks_at(&c, o->db, &unfit) == SP_OK) {
        int k = 0;
        for (int id = 0; id < PRB_NTASKS; id++) {
            if (!r.ts.task[id].built) continue;
            char name[512];
            snprintf(name, sizeof name, "%s%s", o->prefix ? o->prefix : "", prb_task_name((enum prb_task_id)id));
            const char *why = json_string_value(json_object_get(unfit, name));
            if (why) sp_buf_printf(&b, "%s%s (%s)", k++ ? ", " : "; the probing protocol cannot run on ", name, why);
        }
        if (k) sp_buf_printf(&b, ": %s encodes and probes are skipped", k == 1 ? "its" : "their");
    }
    json_decref(unfit);
    snprintf(so->summary, sizeof so->summary, "%s", b.p);
    sp_buf_free(&b);
    stg_tasks_build_result_free(&r);
    return rc;
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

static int do_probe(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
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

/* "UUAS u, DSpr d, root r" of a structural probe's figures (NaN: "-") */
static void sp_figures(const struct prb_sp_result *m, struct sp_buf *b)
{
    sp_buf_printf(b, isnan(m->uuas) ? "UUAS -" : "UUAS %.2f", m->uuas);
    sp_buf_printf(b, isnan(m->dspr) ? ", DSpr -" : ", DSpr %.4f", m->dspr);
    sp_buf_printf(b, isnan(m->root_acc) ? ", root acc -" : ", root acc %.2f", m->root_acc);
}

static int do_trees(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    struct sp_buf b = { 0 };
    if (s->kind == DMN_STRUCTPROBE) {
        struct stg_structprobe_opts o = *(const struct stg_structprobe_opts *)s->opts;
        o.command = ro->command;
        struct stg_structprobe_result r;
        int rc = stg_structprobe(ro->ctx, &o, &r);
        log_json(ro->log, r.json);
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
    struct stg_trees_opts o = *(const struct stg_trees_opts *)s->opts;
    o.command = ro->command;
    if (o.out) make_parents(o.out, 0);
    if (o.gold_out) make_parents(o.gold_out, 0);
    struct stg_trees_result r;
    int rc = stg_trees(ro->ctx, &o, &r);
    log_json(ro->log, r.json);
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

static int do_tokprobe(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    struct stg_tokprobe_opts o = *(const struct stg_tokprobe_opts *)s->opts;
    o.command = ro->command;
    struct stg_tokprobe_result r = { 0 };
    int rc = stg_tokprobe(ro->ctx, &o, &r);
    log_json(ro->log, r.json);
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

static int do_report(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    struct rpt_opts o = *(const struct rpt_opts *)s->opts;
    struct rpt_result r = { 0 };
    char written[4096];
    if (o.out && o.format != RPT_HTML) make_parents(o.out, 0);
    int rc = rpt_write(ro->ctx, &o, &r, written, sizeof written);
    snprintf(so->summary, sizeof so->summary, "%zu probe results, %zu tree evaluations -> %s", r.n_probe, r.n_tree, written);
    return rc;
}

static int run_stage(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    switch (s->kind) {
    case DMN_INGEST: return do_ingest(ro, s, so);
    case DMN_TASKS_BUILD: case DMN_TASKS_IMPORT: return do_tasks(ro, s, so);
    case DMN_ENCODE: return do_encode(ro, s, so);
    case DMN_PROBE: return do_probe(ro, s, so);
    case DMN_TREES: case DMN_STRUCTPROBE: return do_trees(ro, s, so);
    case DMN_TOKPROBE: return do_tokprobe(ro, s, so);
    case DMN_REPORT: return do_report(ro, s, so);
    default: return stg_fail(ro->ctx, SP_EUSAGE, "unknown step");
    }
}

/* The ledger (store/st_jobs.h): steps other than ingest and encode, which know by content whether
 * they have work. Begin: 1 when the step was done before (summary filled), 0 when it is to run
 * (*step_id its 'started' row, whose rows from an unfinished attempt are gone), -1 on error. */
static int ledger_begin(const struct dmn_job *job, const char *command, int64_t *step_id, char *summary, size_t n,
                        char *err, size_t errlen)
{
    struct st_db *db;
    int done = 0;
    if (st_open(job->store, ST_OPEN_CREATE, &db, err, errlen)) return -1;
    int rc = st_job_step_begin(db, command, step_id, &done, summary, n, err, errlen);
    st_close(db);
    return rc ? -1 : done;
}

static int ledger_finish(const struct dmn_job *job, int64_t step_id, const char *summary, char *err, size_t errlen)
{
    struct st_db *db;
    if (st_open(job->store, 0, &db, err, errlen)) return -1;
    int rc = st_job_step_finish(db, step_id, summary, err, errlen);
    st_close(db);
    return rc ? -1 : 0;
}

/* The step's command line ("probe --db X --task T --run R"), into b. */
static void step_command(const struct dmn_step *s, struct sp_buf *b)
{
    sp_buf_puts(b, s->words);
    dmn_step_format(s, b);
}

/* the option's value as the step has it: a string, or a list's items joined by ','; NULL: none */
static const char *opt_text(json_t *o, const char *name, struct sp_buf *tmp)
{
    json_t *v = json_object_get(o, name);
    if (json_is_string(v)) return json_string_value(v);
    if (!json_is_array(v) || !json_array_size(v)) return NULL;
    size_t i;
    json_t *x;
    tmp->len = 0;
    if (tmp->p) tmp->p[0] = 0;
    json_array_foreach(v, i, x) sp_buf_printf(tmp, "%s%s", i ? "," : "", json_is_string(x) ? json_string_value(x) : "?");
    return tmp->p;
}

void dmn_step_what(const struct dmn_step *s, struct sp_buf *b)
{
    json_t *o = json_object();
    sp_opt_to_json(s->table, s->opts, o);
    struct sp_buf t1 = { 0 }, t2 = { 0 };
    const char *run = json_string_value(json_object_get(o, "run")), *base = json_string_value(json_object_get(o, "baseline"));
    b->len = 0;
    if (b->p) b->p[0] = 0;
    sp_buf_puts(b, s->words);
    switch (s->kind) {
    case DMN_INGEST: case DMN_TASKS_BUILD: {
        const char *corpus = opt_text(o, "corpus", &t1);
        if (corpus) sp_buf_printf(b, " %s", corpus);
        break;
    }
    case DMN_ENCODE: {
        const char *corpus = opt_text(o, "corpus", &t1), *task = opt_text(o, "task", &t2);
        const char *layers = json_string_value(json_object_get(o, "layers"));
        sp_buf_printf(b, " %s over %s", run ? run : "?", task ? task : corpus ? corpus : "?");
        if (layers) sp_buf_printf(b, ", layers %s", layers);
        break;
    }
    case DMN_PROBE: {
        const char *task = opt_text(o, "task", &t1), *seed = opt_text(o, "seed", &t2);
        char label[512];
        if (task) sp_buf_printf(b, " %s", task);
        if (run) sp_buf_printf(b, " %s", task ? rpt_run_label(run, task, label, sizeof label) : run);
        if (seed) sp_buf_printf(b, " seed %s", seed);
        break;
    }
    case DMN_TREES: case DMN_STRUCTPROBE:
        if (json_is_true(json_object_get(o, "dependency"))) sp_buf_puts(b, " (dependency)");
        if (base) sp_buf_printf(b, " baseline %s", base);
        else if (run) sp_buf_printf(b, " %s", run);
        break;
    case DMN_TOKPROBE: {
        const char *task = json_string_value(json_object_get(o, "task"));
        sp_buf_printf(b, " %s %s", task ? task : "upos", run ? run : "?");
        break;
    }
    case DMN_REPORT: {
        const char *f = json_string_value(json_object_get(o, "format"));
        sp_buf_printf(b, " %s", f ? f : "text");
        break;
    }
    default:
        break;
    }
    sp_buf_free(&t1);
    sp_buf_free(&t2);
    json_decref(o);
}

void dmn_eta_add(struct dmn_eta *e, enum dmn_step_kind k, double seconds)
{
    if ((int)k < 0 || k >= DMN_NKINDS || !(seconds >= 0)) return;
    e->seconds[k] += seconds;
    e->n[k]++;
}

double dmn_eta_left(const struct dmn_eta *e, const struct dmn_job *job, int from, double elapsed_in_from)
{
    double all = 0;
    int n_all = 0;
    for (int k = 0; k < DMN_NKINDS; k++) { all += e->seconds[k]; n_all += e->n[k]; }
    if (!n_all) return -1;
    double left = 0;
    for (int i = from < 0 ? 0 : from; i < job->n_steps; i++) {
        enum dmn_step_kind k = job->steps[i].kind;
        double m = e->n[k] ? e->seconds[k] / e->n[k] : all / n_all;
        if (i == from) m = m > elapsed_in_from ? m - elapsed_in_from : 0;
        left += m;
    }
    return left;
}

/* The step's line: "[k/N] WHAT: RESULT (Ss)" (steps) or the indented result under its command. */
static void print_done(const struct dmn_run_opts *ro, const struct dmn_step_done *d)
{
    FILE *out = ro->out;
    if (!out) return;
    if (ro->steps == DMN_RUN_STATUS) {
        return;                      /* the caller shows it (on_done) */
    } else if (ro->steps == DMN_RUN_STEP_LINES) {
        fprintf(out, "[%d/%d] %s: %s (%.1fs)\n", d->i + 1, d->n, d->what, d->result, d->seconds);
    } else if (d->done_before) {
        if (!ro->quiet_skips) fprintf(out, "    %s\n", d->result);
    } else {
        fprintf(out, "    %s\n", d->result);
    }
    fflush(out);
}

/* An encode or probe of stored tasks the probing protocol cannot run on (every task it names):
 * "task 'T': REASON" into why, 1. Known once tasks build has stored them, before any encode of
 * them: the job skips the step, not fails after the expensive ones. 0 otherwise (or the store
 * unreadable: the step reports that). */
static int unfit_step(const struct dmn_run_opts *ro, const struct dmn_step *s, char *why, size_t n)
{
    const struct sp_strlist *tasks;
    const char *db;
    if (s->kind == DMN_PROBE) {
        const struct stg_probe_opts *o = s->opts;
        tasks = &o->task;
        db = o->db;
    } else if (s->kind == DMN_ENCODE) {
        const struct stg_encode_opts *o = s->opts;
        tasks = &o->task;
        db = o->db;
    } else {
        return 0;
    }
    if (!tasks->n || !db) return 0;
    json_t *unfit = NULL;
    struct stg_ctx c = *ro->ctx;
    if (stg_probe_unfit_tasks_at(&c, db, &unfit)) return 0;
    struct sp_buf b = { 0 };
    int all = 1;
    for (int k = 0; k < tasks->n && all; k++) {
        const char *w = json_string_value(json_object_get(unfit, tasks->v[k]));
        if (w) sp_buf_printf(&b, "%stask '%s': %s", k ? "; " : "", tasks->v[k], w);
        all = w != NULL;
    }
    if (all) snprintf(why, n, "%s", b.p);
    sp_buf_free(&b);
    json_decref(unfit);
    return all;
}

static int one_step(const struct dmn_job *job, const struct dmn_run_opts *ro, int i, struct dmn_run_result *r)
{
    const struct dmn_step *s = &job->steps[i];
    struct sp_buf cmd = { 0 }, what = { 0 }, res = { 0 };
    step_command(s, &cmd);
    dmn_step_what(s, &what);
    FILE *out = ro->out;
    double t0 = sp_now();
    if (out && ro->steps == DMN_RUN_COMMANDS) { fprintf(out, "  $ synprobe %s\n", cmd.p); fflush(out); }
    if (ro->log) { fprintf(ro->log, "\n$ synprobe %s\n", cmd.p); fflush(ro->log); }
    struct step_out so = { "", 0 };
    int use_ledger = s->kind != DMN_INGEST && s->kind != DMN_ENCODE, rc = SP_OK, done = 0;
    char err[SP_ERRLEN];
    int64_t step_id = 0;
    ro->ctx->err[0] = 0;
    char unfit[2048];
    if (unfit_step(ro, s, unfit, sizeof unfit)) {
        r->n_nowork++;
        r->n_skipped++;
        sp_buf_printf(&res, "skipped: %s", unfit);
        if (ro->log) fprintf(ro->log, "skipped: %s\n", unfit);
        done = 2;
    } else if (use_ledger) {
        done = ledger_begin(job, cmd.p, &step_id, so.summary, sizeof so.summary, err, sizeof err);
        if (done < 0) rc = stg_fail(ro->ctx, SP_ESTORE, "the job ledger: %s", err);
    }
    if (done == 2) {
        /* said above */
    } else if (done == 1) {
        r->n_nowork++;
        /* a kill between the rows' commit and ledger_finish leaves no summary */
        sp_buf_printf(&res, "done before, skipped%s%s%s", *so.summary ? " (" : "", so.summary, *so.summary ? ")" : "");
    } else {
        if (rc == SP_OK) {
            ro->ctx->job_step = step_id;
            rc = run_stage(ro, s, &so);
            ro->ctx->job_step = 0;
        }
        if (rc == SP_OK && use_ledger && ledger_finish(job, step_id, so.summary, err, sizeof err))
            rc = stg_fail(ro->ctx, SP_ESTORE, "recording the step in the job ledger: %s", err);
        if (rc == SP_OK) {
            if (so.nowork) r->n_nowork++;
            else r->n_worked++;
            sp_buf_printf(&res, "%s%s", so.nowork ? "no work: " : "", so.summary);
        } else {
            if (ro->log) fprintf(ro->log, "synprobe %s: %s\n", s->words, ro->ctx->err);
            if (rc != SP_ESTOPPED) {
                r->n_failed++;
                if (!r->failed_where) r->failed_where = s->where;
                sp_buf_printf(&res, "failed (%s): %s", s->where, ro->ctx->err);
            } else {
                sp_buf_puts(&res, "stopped");
            }
        }
    }
    struct dmn_step_done d = { i, job->n_steps, what.p, res.p, sp_now() - t0, rc, done == 1 };
    if (rc != SP_ESTOPPED) print_done(ro, &d);
    if (ro->on_done) ro->on_done(ro->done_arg, &d);
    sp_buf_free(&cmd);
    sp_buf_free(&what);
    sp_buf_free(&res);
    return rc;
}

static int run_steps(const struct dmn_job *job, const struct dmn_run_opts *ro, struct dmn_run_result *r);

/* One job at a time per store: two runs of one step at once would both find it 'started' in the
 * ledger, and the second to commit its rows would fail. STORE.run.lock (flock) is held for the
 * whole job; a second run waits, looking at the stop flag every 50 ms. */
int dmn_run(const struct dmn_job *job, const struct dmn_run_opts *ro, struct dmn_run_result *r)
{
    memset(r, 0, sizeof *r);
    r->n_steps = job->n_steps;
    make_parents(job->out, 1);
    int fd = -1;
    if (!ro->no_store_lock) {
        char p[4200];
        snprintf(p, sizeof p, "%s.run.lock", job->store);
        make_parents(p, 0);
        int refused;
        fd = sp_open_lockfile(p, &refused, ro->ctx->err, sizeof ro->ctx->err);
        if (refused) {                                  /* a link or a FIFO planted there: never followed */
            if (ro->out) { fprintf(ro->out, "synprobe run: %s\n", ro->ctx->err); fflush(ro->out); }
            return SP_EUSAGE;
        }
        ro->ctx->err[0] = 0;                            /* none (a read-only folder): run unlocked */
        if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
            if (ro->out) { fprintf(ro->out, "  (waiting for %s: another job is writing to this store)\n", p); fflush(ro->out); }
            while (flock(fd, LOCK_EX | LOCK_NB)) {
                if (stg_stopping(ro->ctx)) { close(fd); return stg_stopped(ro->ctx); }
                struct timespec ts = { 0, 50 * 1000 * 1000 };
                nanosleep(&ts, NULL);
            }
        }
    }
    int rc = run_steps(job, ro, r);
    if (fd >= 0) close(fd);
    return rc;
}

/* A store that merges shards (synprobe merge) runs the job only once it holds every shard: its
 * steps would see part of the corpus (ingest finds its files done, tasks and probes draw from the
 * sentences there) and the job would end as if all was well. SP_EPARSE naming the shard stores
 * still missing (the first 8). A store that cannot be read is left to the steps to report. */
static int every_shard_merged(const struct dmn_job *job, const struct dmn_run_opts *ro, struct dmn_run_result *r)
{
    struct stat sb;
    struct st_db *db;
    char err[SP_ERRLEN];
    if (stat(job->store, &sb) || sb.st_size == 0 || st_open(job->store, ST_OPEN_READONLY, &db, err, sizeof err)) return SP_OK;
    int n = 0, n_missing = 0, *ks = NULL;
    int rc = st_shards_unmerged(db, &n, &ks, &n_missing, err, sizeof err);
    st_close(db);
    if (rc || !n_missing) { free(ks); return SP_OK; }
    struct sp_buf names = { 0 };
    for (int i = 0; i < n_missing && i < 8; i++) {
        char p[4200];
        dmn_shard_path(job, ks[i], n, p, sizeof p);
        sp_buf_printf(&names, "%s%s", i ? ", " : "", p);
    }
    if (n_missing > 8) sp_buf_printf(&names, " and %d more", n_missing - 8);
    free(ks);
    r->n_failed = 1;
    r->failed_where = "store";
    rc = stg_fail(ro->ctx, SP_EPARSE, "%s holds %d of the %d shards of this job: %s %s not merged yet; merge %s first "
                  "(synprobe merge %s SHARD...): the job's steps would see part of its corpus", job->store, n - n_missing, n,
                  names.p, n_missing == 1 ? "is" : "are", n_missing == 1 ? "it" : "them", job->store);
    sp_buf_free(&names);
    return rc;
}

static int run_steps(const struct dmn_job *job, const struct dmn_run_opts *ro, struct dmn_run_result *r)
{
    if (!ro->shard_n) {
        int rc = every_shard_merged(job, ro, r);
        if (rc) return rc;
    }
    if (ro->shard_n) {   /* the shard store says which shard it holds, before anything is written to it */
        struct st_db *db;
        char err[SP_ERRLEN];
        int rc = st_open(job->store, ST_OPEN_CREATE, &db, err, sizeof err);
        if (!rc) { rc = st_shard_mark(db, ro->shard_k, ro->shard_n, err, sizeof err); st_close(db); }
        if (rc) {
            r->n_failed = 1;
            r->failed_where = "store";
            return stg_fail(ro->ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", err);
        }
    }
    int first_rc = SP_OK, ingested = 0;
    char keep[SP_ERRLEN] = "";   /* the first failure's message, kept while later steps run */
    for (int i = 0; i < job->n_steps; i++) {
        const struct dmn_step *s = &job->steps[i];
        if (!ingested && s->kind != DMN_INGEST) {
            ingested = 1;
            if (ro->after_ingest) ro->after_ingest(ro->arg);
        }
        if (stg_stopping(ro->ctx)) return stg_stopped(ro->ctx);
        if (ro->on_step) ro->on_step(ro->step_arg, i, s, 1, SP_OK);
        int rc = one_step(job, ro, i, r);
        if (ro->on_step) ro->on_step(ro->step_arg, i, s, 0, rc);
        if (rc == SP_ESTOPPED) return rc;
        if (rc != SP_OK && first_rc == SP_OK) { first_rc = rc; snprintf(keep, sizeof keep, "%s", ro->ctx->err); }
        if (rc != SP_OK && !ro->keep_going) return rc;
        if (first_rc != SP_OK && rc == SP_OK) snprintf(ro->ctx->err, sizeof ro->ctx->err, "%s", keep);
    }
    if (!ingested && ro->after_ingest) ro->after_ingest(ro->arg);
    return first_rc;
}
