/* cli/cmd_queue.c — the job queue's clients: synprobe submit, status, cancel, logs
 * (daemon/daemon.h, store/st_queue.h). Four small commands over one table, kept in one file. */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "daemon/daemon.h"
#include "store/st_queue.h"

struct queue_opts { const char *db; long retry; };

static const struct sp_opt db_option[] = {
    { "db", SP_OPT_PATH, offsetof(struct queue_opts, db), .metavar = "STORE", .help = "the store that holds the queue",
      .flags = SP_OPTF_REQUIRED },
    { 0 },
};
static const struct sp_opt retry_option[] = {
    { "retry", SP_OPT_INT, offsetof(struct queue_opts, retry), "0", .lo = 0, .hi = 100, .metavar = "N",
      .help = "run a failed job again up to N times, after the daemon's --backoff, doubled each time" },
    { 0 },
};

/* JOB operand: a positive job number */
static int job_id(struct cli *c, int64_t *id)
{
    if (c->operands.n != 1) return cli_fail(SP_EXIT_USAGE, c->name, "expected one job id (see --help)");
    long v;
    if (sp_parse_int(c->operands.v[0], 1, 0x7fffffffL, &v))
        return cli_fail(SP_EXIT_USAGE, c->name, "JOB: expected a job id (a positive number, as submit printed), got '%s'",
                        c->operands.v[0]);
    *id = v;
    return SP_EXIT_OK;
}

static int open_queue(struct cli *c, const char *db, struct st_db **out)
{
    if (access(db, F_OK)) return cli_fail(SP_EXIT_INPUT, c->name, "%s: no such store (its queue is made by the first `synprobe submit`)", db);
    if (st_open(db, ST_OPEN_READONLY, out, c->ctx.err, sizeof c->ctx.err)) return cli_fail(SP_EXIT_INPUT, c->name, "%s", c->ctx.err);
    return SP_EXIT_OK;
}

/* ---- submit ---- */

const struct cli_doc cmd_submit_doc = {
    .name = "submit",
    .purpose = "add job files to a store's queue; prints the job ids",
    .synopsis = "--db [options] JOB.json...",
    .prose =
        "Checks the job file (as `synprobe run` does: an invalid one is refused, its JSON path named) and\n"
        "adds it to STORE's queue for `synprobe daemon --db STORE`; prints the job id. What runs is the\n"
        "file as it is now (its text is kept in the queue); paths in it resolve against its folder (a\n"
        "symlinked job file: the link's folder, as for run). An output that is the store, the queue's store\n"
        "or an input is refused (exit 2), as run refuses it.\n"
        "Several files are queued together, one id per line, or none of them if one is invalid.\n",
};

int cmd_submit(int argc, char **argv)
{
    struct queue_opts o = { 0 };
    const struct sp_optbind b[] = { { db_option, &o }, { retry_option, &o } };
    struct cli c;
    int rc = cli_parse(&c, &cmd_submit_doc, b, 2, argc, argv, 1);
    if (rc >= 0) return rc;
    if (c.operands.n < 1) return cli_done(&c, cli_fail(SP_EXIT_USAGE, "submit", "expected a job file (see --help)"));
    int64_t *ids = sp_xcalloc((size_t)c.operands.n, sizeof *ids);
    rc = dmn_submit(o.db, c.operands.v, c.operands.n, (int)o.retry, ids, c.ctx.err, sizeof c.ctx.err);
    if (rc)   /* EEXIST: an output clash; ESTOPPED: a signal while a job file was checked (130/143) */
        rc = cli_fail(rc == SP_EEXIST ? SP_EXIT_USAGE : rc == SP_ESTOPPED ? cli_exit_status(rc) : SP_EXIT_INPUT, "submit", "%s", c.ctx.err);
    else for (int i = 0; i < c.operands.n; i++) printf("%lld\n", (long long)ids[i]);
    free(ids);
    return cli_done(&c, rc);
}

/* ---- status ---- */

const struct cli_doc cmd_status_doc = {
    .name = "status",
    .purpose = "the queue's jobs: state, step, progress, times, errors",
    .synopsis = "--db [options] [JOB]",
    .prose =
        "Every job of STORE's queue, one line each (id, state, step, steps done/total, attempts, times,\n"
        "job file), or one job in full: its state, the step it is in (the job file's JSON path) and\n"
        "progress, times, attempts and retries, the daemon holding it, and for a failed job its error\n"
        "and the step it failed in. --json prints the same as JSON.\n",
};

static void fmt_time(double t, char *out, size_t n)
{
    if (t <= 0) { snprintf(out, n, "-"); return; }
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *job_json(const struct st_queue_job *j)
{
    json_t *o = json_object();
    char t[32];
    json_object_set_new(o, "id", json_integer(j->id));
    json_object_set_new(o, "state", json_string(j->state));
    json_object_set_new(o, "job", json_string(j->path));
    json_object_set_new(o, "sha256", json_string(j->sha256));
    json_object_set_new(o, "step", j->step[0] ? json_string(j->step) : json_null());
    json_object_set_new(o, "steps_done", json_integer(j->steps_done));
    json_object_set_new(o, "steps_total", json_integer(j->steps_total));
    const double times[] = { j->submitted_at, j->started_at, j->finished_at };
    static const char *const keys[] = { "submitted", "started", "finished" };
    for (int i = 0; i < 3; i++) {
        fmt_time(times[i], t, sizeof t);
        json_object_set_new(o, keys[i], times[i] > 0 ? json_string(t) : json_null());
    }
    json_object_set_new(o, "attempts", json_integer(j->attempts));
    json_object_set_new(o, "failures", json_integer(j->failures));
    json_object_set_new(o, "max_retries", json_integer(j->max_retries));
    if (!strcmp(j->state, "queued") && j->failures) {
        fmt_time(j->next_attempt, t, sizeof t);
        json_object_set_new(o, "next_attempt", json_string(t));
    }
    json_object_set_new(o, "error", j->error[0] ? json_string(j->error) : json_null());
    json_object_set_new(o, "error_step", j->error_step[0] ? json_string(j->error_step) : json_null());
    json_object_set_new(o, "daemon", j->owner[0] ? json_string(j->owner) : json_null());
    return o;
}

struct status_acc { json_t *arr; int n; };

static int status_line_cb(void *arg, const struct st_queue_job *j)
{
    struct status_acc *a = arg;
    if (a->arr) { json_array_append_new(a->arr, job_json(j)); return 0; }
    if (!a->n++) printf("%-5s %-9s %-14s %-7s %-8s %-20s %-20s %s\n", "id", "state", "step", "steps", "attempts", "submitted",
                        "finished", "job");
    char sub[32], fin[32], steps[24];
    fmt_time(j->submitted_at, sub, sizeof sub);
    fmt_time(j->finished_at, fin, sizeof fin);
    snprintf(steps, sizeof steps, "%d/%d", j->steps_done, j->steps_total);
    const char *step = j->step[0] ? j->step : "-";
    if (!strcmp(j->state, "failed") && j->error_step[0]) step = j->error_step;
    printf("%-5lld %-9s %-14s %-7s %-8d %-20s %-20s %s\n", (long long)j->id, j->state, step, steps, j->attempts, sub, fin, j->path);
    return 0;
}

static void print_job(const struct st_queue_job *j)
{
    char t[32];
    printf("job %lld: %s\n", (long long)j->id, j->state);
    printf("  job file   %s (sha256 %.12s...)\n", j->path, j->sha256);
    if (j->step[0]) printf("  step       %s (%d of %d steps done)\n", j->step, j->steps_done, j->steps_total);
    fmt_time(j->submitted_at, t, sizeof t); printf("  submitted  %s\n", t);
    if (j->started_at > 0) { fmt_time(j->started_at, t, sizeof t); printf("  started    %s\n", t); }
    if (j->finished_at > 0) { fmt_time(j->finished_at, t, sizeof t); printf("  finished   %s\n", t); }
    printf("  attempts   %d (%d failed; retries allowed: %d)\n", j->attempts, j->failures, j->max_retries);
    if (!strcmp(j->state, "queued") && j->failures) { fmt_time(j->next_attempt, t, sizeof t); printf("  next try   %s\n", t); }
    if (j->owner[0]) printf("  daemon     %s (process %ld)\n", j->owner, j->pid);
    if (j->error[0]) printf("  %s %s: %s\n", !strcmp(j->state, "failed") ? "error     " : "last error", j->error_step[0] ? j->error_step : "?",
                            j->error);
}

int cmd_status(int argc, char **argv)
{
    struct queue_opts o = { 0 };
    struct cli c;
    const struct sp_optbind b[] = { { db_option, &o }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_status_doc, b, 2, argc, argv, 1);
    if (rc >= 0) return rc;
    int64_t id = 0;
    if (c.operands.n && (rc = job_id(&c, &id))) return cli_done(&c, rc);
    struct st_db *db;
    if ((rc = open_queue(&c, o.db, &db))) return cli_done(&c, rc);
    if (id) {
        struct st_queue_job j;
        int found = 0;
        if (st_queue_get(db, id, &j, &found, c.ctx.err, sizeof c.ctx.err)) rc = cli_fail(SP_EXIT_INPUT, "status", "%s", c.ctx.err);
        else if (!found) rc = cli_fail(SP_EXIT_INPUT, "status", "%s: no job %lld in the queue", o.db, (long long)id);
        else {
            if (c.common.json) { json_t *x = job_json(&j); cli_print_json(&c, x, JSON_INDENT(2) | JSON_PRESERVE_ORDER); json_decref(x); }
            else print_job(&j);
            st_queue_job_free(&j);
        }
    } else {
        struct status_acc a = { c.common.json ? json_array() : NULL, 0 };
        if (st_queue_each(db, NULL, 0, status_line_cb, &a, c.ctx.err, sizeof c.ctx.err))
            rc = cli_fail(SP_EXIT_INPUT, "status", "%s", c.ctx.err);
        else if (a.arr) cli_print_json(&c, a.arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        else if (!a.n) printf("%s: the queue is empty\n", o.db);
        json_decref(a.arr);
    }
    st_close(db);
    return cli_done(&c, rc);
}

/* ---- cancel ---- */

const struct cli_doc cmd_cancel_doc = {
    .name = "cancel",
    .purpose = "cancel a queued or running job",
    .synopsis = "--db JOB",
    .prose =
        "Cancels a queued or running job: a running one's daemon stops its process at the next safe\n"
        "point (within a heartbeat); what its finished steps stored stays. A done, failed or cancelled\n"
        "job is refused (exit 1).\n",
};

int cmd_cancel(int argc, char **argv)
{
    struct queue_opts o = { 0 };
    const struct sp_optbind b[] = { { db_option, &o } };
    struct cli c;
    int rc = cli_parse(&c, &cmd_cancel_doc, b, 1, argc, argv, 1);
    if (rc >= 0) return rc;
    int64_t id;
    if ((rc = job_id(&c, &id))) return cli_done(&c, rc);
    struct st_db *db;
    if (st_open(o.db, 0, &db, c.ctx.err, sizeof c.ctx.err)) return cli_done(&c, cli_fail(SP_EXIT_INPUT, "cancel", "%s", c.ctx.err));
    char prev[16];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (st_queue_cancel(db, id, (double)ts.tv_sec + ts.tv_nsec * 1e-9, prev, c.ctx.err, sizeof c.ctx.err))
        rc = cli_fail(SP_EXIT_INPUT, "cancel", "%s", c.ctx.err);
    else if (!c.common.quiet)
        printf("job %lld cancelled (it was %s%s)\n", (long long)id, prev,
               !strcmp(prev, "running") ? "; its daemon stops it at the next safe point" : "");
    st_close(db);
    return cli_done(&c, rc);
}

/* ---- logs ---- */

const struct cli_doc cmd_logs_doc = {
    .name = "logs",
    .purpose = "print a queued job's log",
    .synopsis = "--db JOB",
    .prose =
        "Prints the job's log (STORE.logs/ID-T.log, T its submit time in microseconds): each attempt's\n"
        "steps as the commands that do them, their summaries and full results, warnings and errors. A log\n"
        "that is a symbolic link, not a regular file or a file with other names (hard links) is refused.\n",
};

int cmd_logs(int argc, char **argv)
{
    struct queue_opts o = { 0 };
    const struct sp_optbind b[] = { { db_option, &o } };
    struct cli c;
    int rc = cli_parse(&c, &cmd_logs_doc, b, 1, argc, argv, 1);
    if (rc >= 0) return rc;
    int64_t id;
    if ((rc = job_id(&c, &id))) return cli_done(&c, rc);
    struct st_db *db;
    if ((rc = open_queue(&c, o.db, &db))) return cli_done(&c, rc);
    struct st_queue_job j;
    int found = 0;
    if (st_queue_get(db, id, &j, &found, c.ctx.err, sizeof c.ctx.err)) rc = cli_fail(SP_EXIT_INPUT, "logs", "%s", c.ctx.err);
    else if (!found) rc = cli_fail(SP_EXIT_INPUT, "logs", "%s: no job %lld in the queue", o.db, (long long)id);
    st_close(db);
    if (rc || !found) return cli_done(&c, rc);
    char p[4200];
    int fd = dmn_job_log_open(o.db, &j, 0, p, sizeof p, c.ctx.err, sizeof c.ctx.err);   /* no link followed, regular files only */
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (fd < 0 && errno == ENOENT) {
        if (!c.common.quiet) printf("job %lld (%s) has no log yet: it has not run\n", (long long)id, j.state);
        /* an older synprobe named logs by the id alone: such a file may be an earlier queue's job */
        char old[4200];
        struct stat st;
        snprintf(old, sizeof old, "%s.logs/%lld.log", o.db, (long long)id);
        if (!c.common.quiet && lstat(old, &st) == 0)
            printf("(%s is named by the job id alone, as an older synprobe named logs: it may be a job of an earlier queue at "
                   "this path, so it is not shown)\n", old);
    } else if (!f) {
        rc = cli_fail(SP_EXIT_INPUT, "logs", "%s", fd < 0 ? c.ctx.err : strerror(errno));
        if (fd >= 0) close(fd);
    } else {
        char buf[65536];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, k, stdout);
        fclose(f);
    }
    st_queue_job_free(&j);
    return cli_done(&c, rc);
}
