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
#include "daemon/step.h"
#include "daemon/shard.h"
#include "stages/probe.h"
#include "store/st_jobs.h"
#include "store/st_shards.h"

/* mkdir -p of path's folder (the output folder itself when dir_too); a failure shows when the
 * file is opened there */
void dmn_run_make_parents(const char *path, int dir_too)
{
    char p[4096], err[SP_ERRLEN];
    snprintf(p, sizeof p, "%s", path);
    if (!dir_too) { char *s = strrchr(p, '/'); if (!s) return; *s = 0; }
    (void)sp_mkdirs(p, err, sizeof err);
}

void dmn_run_log_json(FILE *log, json_t *j)
{
    if (!log || !j) return;
    json_dumpf(j, log, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    fputc('\n', log);
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
const char *dmn_step_opt_text(json_t *o, const char *name, struct sp_buf *tmp)
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
    b->len = 0;
    if (b->p) b->p[0] = 0;
    sp_buf_puts(b, s->words);
    if (!dmn_steps[s->kind]->what) return;
    json_t *o = json_object();
    sp_opt_to_json(s->table, s->opts, o);
    dmn_steps[s->kind]->what(o, b);
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
    if (!(dmn_steps[s->kind]->flags & DMN_STEP_TASK_RUNS)) return 0;
    const struct sp_strlist *tasks = (const struct sp_strlist *)((const char *)s->opts + sp_opt_find(s->table, "task")->offset);
    const char *db = *(const char *const *)((const char *)s->opts + sp_opt_find(s->table, "db")->offset);
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
    struct dmn_step_out so = { "", 0 };
    int use_ledger = (dmn_steps[s->kind]->flags & DMN_STEP_LEDGER) != 0, rc = SP_OK, done = 0;
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
            rc = dmn_steps[s->kind]->run(ro, s, &so);
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
    dmn_run_make_parents(job->out, 1);
    int fd = -1;
    if (!ro->no_store_lock) {
        char p[4200];
        snprintf(p, sizeof p, "%s.run.lock", job->store);
        dmn_run_make_parents(p, 0);
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
        if (!ingested && !(dmn_steps[s->kind]->flags & DMN_STEP_SENTENCES)) {
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
