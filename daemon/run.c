/* daemon/run.c — the foreground job runner (daemon/run.h). */
#include <errno.h>
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
#include "stages/report.h"
#include "stages/structprobe.h"
#include "stages/tasks.h"
#include "stages/tokprobe.h"
#include "stages/trees.h"
#include "store/st_jobs.h"
#include "store/st_shards.h"

struct step_out { char summary[512]; int nowork; };

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
        snprintf(so->summary, sizeof so->summary, "%d files (%d unchanged), %ld sentences added", r.n_files, r.n_unchanged,
                 r.sentences);
        so->nowork = r.n_unchanged == r.n_files;
    } else if (r.n_files && r.files[r.n_files - 1].error[0]) {
        snprintf(ro->ctx->err, sizeof ro->ctx->err, "%s", r.files[r.n_files - 1].error);
    }
    stg_ingest_result_free(&r);
    return rc;
}

static int do_encode(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    struct stg_encode_opts o = *(const struct stg_encode_opts *)s->opts;
    o.command = ro->command;
    struct stg_encode_result r;
    int rc = stg_encode(ro->ctx, &o, &r);
    long enc = 0, cached = 0;
    for (int i = 0; i < r.n; i++) { enc += r.in[i].encoded; cached += r.in[i].cached; }
    if (o.layers && r.n > 0)      /* one pass, a run per layer: the counts are each run's */
        snprintf(so->summary, sizeof so->summary, "runs %s..%s (%d layers, one pass): %ld encoded, %ld cached", r.in[0].run,
                 r.in[r.n - 1].run, r.n, r.in[0].encoded, r.in[0].cached);
    else
        snprintf(so->summary, sizeof so->summary, "run %s: %ld encoded, %ld cached", o.run, enc, cached);
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
    snprintf(so->summary, sizeof so->summary, "%d tasks built, %d stored", r.n_built, r.n_stored);
    stg_tasks_build_result_free(&r);
    return rc;
}

static int do_probe(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    struct stg_probe_opts o = *(const struct stg_probe_opts *)s->opts;
    o.command = ro->command;
    struct stg_probe_result r;
    int rc = stg_probe(ro->ctx, &o, &r);
    for (int i = 0; i < r.n; i++)
        if (ro->log && r.runs[i].text) fputs(r.runs[i].text, ro->log);
    if (r.n == 1 && r.runs[0].row.has_test)
        snprintf(so->summary, sizeof so->summary, "%s: test %.2f%% (result #%lld)", r.runs[0].task, r.runs[0].row.test_acc,
                 (long long)r.runs[0].result_id);
    else snprintf(so->summary, sizeof so->summary, "%d results", r.n);
    stg_probe_result_free(&r);
    return rc;
}

static int do_trees(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    if (s->kind == DMN_STRUCTPROBE) {
        struct stg_structprobe_opts o = *(const struct stg_structprobe_opts *)s->opts;
        o.command = ro->command;
        struct stg_structprobe_result r;
        int rc = stg_structprobe(ro->ctx, &o, &r);
        log_json(ro->log, r.json);
        if (o.run)
            snprintf(so->summary, sizeof so->summary, "run %s: UUAS %.2f, root %.2f on %ld test sentences of %ld (evaluation #%lld)",
                     o.run, r.res.uuas, r.res.root_acc, r.res.n_sentences, r.n_total, (long long)r.eval_id);
        else snprintf(so->summary, sizeof so->summary, "%ld sentences (evaluation #%lld)", r.n_total, (long long)r.eval_id);
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
    snprintf(so->summary, sizeof so->summary, "%s (evaluation #%lld)", r.method, (long long)r.eval_id);
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
    snprintf(so->summary, sizeof so->summary, "run %s: accuracy %.2f, control %.2f, selectivity %.2f points (result #%lld)",
             o.run, r.acc_task, r.acc_control, r.selectivity, (long long)r.result_id);
    stg_tokprobe_result_free(&r);
    return rc;
}

static int do_report(const struct dmn_run_opts *ro, const struct dmn_step *s, struct step_out *so)
{
    struct stg_report_opts o = *(const struct stg_report_opts *)s->opts;
    struct stg_report_result r = { 0 };
    char written[4096];
    if (o.out && o.format != STG_REPORT_HTML) make_parents(o.out, 0);
    int rc = stg_report_write(ro->ctx, &o, &r, written, sizeof written);
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

static int one_step(const struct dmn_job *job, const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_run_result *r)
{
    struct sp_buf cmd = { 0 };
    step_command(s, &cmd);
    FILE *out = ro->out;
    if (out) { fprintf(out, "  $ synprobe %s\n", cmd.p); fflush(out); }
    if (ro->log) { fprintf(ro->log, "\n$ synprobe %s\n", cmd.p); fflush(ro->log); }
    struct step_out so = { "", 0 };
    int use_ledger = s->kind != DMN_INGEST && s->kind != DMN_ENCODE, rc = SP_OK;
    char err[SP_ERRLEN];
    int64_t step_id = 0;
    ro->ctx->err[0] = 0;
    if (use_ledger) {
        int done = ledger_begin(job, cmd.p, &step_id, so.summary, sizeof so.summary, err, sizeof err);
        if (done < 0) rc = stg_fail(ro->ctx, SP_ESTORE, "the job ledger: %s", err);
        if (done == 1) {
            r->n_nowork++;
            /* a kill between the rows' commit and ledger_finish leaves no summary */
            if (out && !ro->quiet_skips)
                fprintf(out, "    done before, skipped%s%s%s\n", *so.summary ? " (" : "", so.summary, *so.summary ? ")" : "");
            sp_buf_free(&cmd);
            return SP_OK;
        }
    }
    if (rc == SP_OK) {
        ro->ctx->job_step = step_id;
        rc = run_stage(ro, s, &so);
        ro->ctx->job_step = 0;
    }
    if (rc == SP_OK && use_ledger && ledger_finish(job, step_id, so.summary, err, sizeof err))
        rc = stg_fail(ro->ctx, SP_ESTORE, "recording the step in the job ledger: %s", err);
    sp_buf_free(&cmd);
    if (rc == SP_OK) {
        if (so.nowork) r->n_nowork++;
        else r->n_worked++;
        if (out) fprintf(out, "    %s%s\n", so.nowork ? "no work: " : "", so.summary);
        return SP_OK;
    }
    if (ro->log) fprintf(ro->log, "synprobe %s: %s\n", s->words, ro->ctx->err);
    if (rc != SP_ESTOPPED) {
        r->n_failed++;
        if (!r->failed_where) r->failed_where = s->where;
        if (out) fprintf(out, "    failed (%s): %s\n", s->where, ro->ctx->err);
    }
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
        fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);   /* none (a read-only folder): run unlocked */
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
        int rc = one_step(job, ro, s, r);
        if (ro->on_step) ro->on_step(ro->step_arg, i, s, 0, rc);
        if (rc == SP_ESTOPPED) return rc;
        if (rc != SP_OK && first_rc == SP_OK) { first_rc = rc; snprintf(keep, sizeof keep, "%s", ro->ctx->err); }
        if (rc != SP_OK && !ro->keep_going) return rc;
        if (first_rc != SP_OK && rc == SP_OK) snprintf(ro->ctx->err, sizeof ro->ctx->err, "%s", keep);
    }
    if (!ingested && ro->after_ingest) ro->after_ingest(ro->arg);
    return first_rc;
}
