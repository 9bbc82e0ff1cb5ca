/* cli/cmd_run.c — synprobe run JOB.json: a job file's steps in the foreground (daemon/run.h). */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "daemon/job.h"
#include "daemon/run.h"
#include "daemon/shard.h"
#include "report/summary.h"

const struct cli_doc cmd_run_doc = {
    .name = "run",
    .purpose = "run a job file: the whole pipeline of an experiment, resumable",
    .synopsis = "[options] JOB.json",
    .prose =
        "Runs the job file's steps in order (ingest, tasks, encode, probe, trees, structprobe, report;\n"
        "schemas/job.schema.json). Steps already done are skipped: a re-run of a finished job does no work.\n"
        "SIGINT/SIGTERM stop at the next safe point (exit 130/143) and a re-run resumes. An invalid job file\n"
        "is refused before anything is written (exit 1, the message names the JSON path); so is an output\n"
        "that is the store, an input, another entry's output, or outside \"out\" through a symlinked folder\n"
        "(exit 2, --check too). Relative paths resolve against the folder of JOB.json as given (a symlinked\n"
        "job file: the link's folder, as for submit). Exit 0 only if every step succeeded.\n"
        "\n"
        "What it prints: on a terminal (stderr), one status line redrawn in place, \"step K/N  WHAT  elapsed\n"
        "M:SS  ETA M:SS\" (ETA from the finished steps' times by step kind; a dash until one has finished);\n"
        "off a terminal (a pipe, a file, cron, systemd, Slurm) and whenever stdout is not a terminal, one\n"
        "line per step on stdout, \"[K/N] WHAT: RESULT (Ss)\", where RESULT is the step's outcome: a probe's\n"
        "test accuracy with its majority and control baselines and selectivity, trees' F1 or UAS (baselines\n"
        "too), a structural probe's UUAS, DSpr and root accuracy, a token probe's accuracy, control and\n"
        "selectivity, an encode's items encoded and cached and the vectors' dtype, a report's file. Then a\n"
        "summary read back from the store: per task the best encoder or layer on test against its baselines\n"
        "and the number of test items (\"!\": fewer than the report's threshold). Warnings and errors go to\n"
        "stderr. --quiet prints only those; --verbose prints each step as the command that would do it,\n"
        "the stages' own lines and the result under it, then the summary.\n"
        "\n"
        "--shard K/N runs only ingest and the encodes over corpora, on shard K of N (0 <= K < N) of the\n"
        "job's sentences (chosen by a hash of each sentence's file name and position), into its own store\n"
        "OUT/STORE.shard-K-of-N.db;\n"
        "`synprobe merge STORE SHARD.db...` combines the shards, then `synprobe run JOB.json` does the rest;\n"
        "a store that holds some of the shards but not all is refused (exit 1), naming those missing.\n",
};

struct run_opts { int check; const char *shard; };
static const struct sp_opt run_options[] = {
    { "check", SP_OPT_FLAG, offsetof(struct run_opts, check), .help = "check the job file and list its steps; run nothing" },
    { "shard", SP_OPT_STR, offsetof(struct run_opts, shard), .metavar = "K/N",
      .help = "run ingest and the corpus encodes of shard K of N only, into the shard's own store (see synprobe merge)" },
    { 0 },
};

static int list_steps(const struct dmn_job *job)
{
    for (int i = 0; i < job->n_steps; i++) {
        struct sp_buf b = { 0 };
        dmn_step_format(&job->steps[i], &b);
        printf("  %-14s synprobe %s%s\n", job->steps[i].where, job->steps[i].words, b.p ? b.p : "");
        sp_buf_free(&b);
    }
    return SP_EXIT_OK;
}

/* ---- the status line on a terminal ----
 * Drawn at each step's start, on the stages' progress reports (at most 5 a second), and once a
 * second by a thread of its own, so that the elapsed time moves during a long step that reports
 * nothing. mu guards the state; the drawing holds stderr's lock, as the logger does (cli.c). */

struct status {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t ticker;
    int quit, ticking;
    struct cli *c;
    const struct dmn_job *job;
    struct dmn_eta eta;
    double t0, step_t0, last;
    int i;                          /* the step running (-1: none) */
    char what[256];
    char stage[160];                /* the stage's own progress: "1,234/5,000 sentences" */
};

static void fmt_time(char *out, size_t n, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(out, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(out, n, "%ld:%02ld", t / 60, t % 60);
}

static void status_draw(struct status *st)
{
    if (st->i < 0) return;
    double now = sp_now();
    st->last = now;
    char el[32], eta[32] = "ETA \u2014", line[1024];
    fmt_time(el, sizeof el, now - st->t0);
    double left = dmn_eta_left(&st->eta, st->job, st->i, now - st->step_t0);
    if (left >= 0) { char t[24]; fmt_time(t, sizeof t, left); snprintf(eta, sizeof eta, "ETA %s", t); }
    int n = snprintf(line, sizeof line, "step %d/%d  %s  elapsed %s  %s%s%s", st->i + 1, st->job->n_steps, st->what, el, eta,
                     *st->stage ? "  " : "", st->stage);
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 100;
    if (n >= cols) {                        /* a wrapped line cannot be redrawn in place: cut at a character */
        int col = 0, k = 0;
        for (; line[k]; k++)
            if (((unsigned char)line[k] & 0xC0) != 0x80 && ++col >= cols) break;
        line[k] = 0;
    }
    flockfile(stderr);
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
    st->c->progress_shown = 1;              /* a warning clears it first (cli.c's logger) */
    funlockfile(stderr);
}

static void *status_tick(void *arg)
{
    struct status *st = arg;
    pthread_mutex_lock(&st->mu);
    while (!st->quit) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&st->cv, &st->mu, &ts);
        if (!st->quit && sp_now() - st->last >= 0.9) status_draw(st);
    }
    pthread_mutex_unlock(&st->mu);
    return NULL;
}

static void status_start(struct status *st)
{
    pthread_mutex_init(&st->mu, NULL);
    pthread_cond_init(&st->cv, NULL);
    st->ticking = pthread_create(&st->ticker, NULL, status_tick, st) == 0;
}

static void status_stop(struct status *st)
{
    pthread_mutex_lock(&st->mu);
    st->quit = 1;
    pthread_cond_signal(&st->cv);
    pthread_mutex_unlock(&st->mu);
    if (st->ticking) pthread_join(st->ticker, NULL);
    pthread_cond_destroy(&st->cv);
    pthread_mutex_destroy(&st->mu);
}

static void status_step(void *arg, int i, const struct dmn_step *s, int begin, int rc)
{
    struct status *st = arg;
    if (!begin) return;
    struct sp_buf b = { 0 };
    dmn_step_what(s, &b);
    pthread_mutex_lock(&st->mu);
    snprintf(st->what, sizeof st->what, "%s", b.p);
    st->i = i;
    st->stage[0] = 0;
    st->step_t0 = sp_now();
    status_draw(st);
    pthread_mutex_unlock(&st->mu);
    sp_buf_free(&b);
}

static void status_done(void *arg, const struct dmn_step_done *d)
{
    struct status *st = arg;
    pthread_mutex_lock(&st->mu);
    if (d->rc == SP_OK && !d->done_before) dmn_eta_add(&st->eta, st->job->steps[d->i].kind, d->seconds);
    pthread_mutex_unlock(&st->mu);
}

/* the stages' progress reports: shown at the end of the status line, at most 5 redraws a second */
static void status_progress(void *arg, const char *unit, uint64_t done, uint64_t total)
{
    struct status *st = arg;
    pthread_mutex_lock(&st->mu);
    if (total) snprintf(st->stage, sizeof st->stage, "%llu/%llu %s", (unsigned long long)done, (unsigned long long)total, unit);
    else snprintf(st->stage, sizeof st->stage, "%llu %s", (unsigned long long)done, unit);
    if (sp_now() - st->last >= 0.2 || done == total) status_draw(st);
    pthread_mutex_unlock(&st->mu);
}

int cmd_run(int argc, char **argv)
{
    struct run_opts o;
    const struct sp_optbind b[] = { { run_options, &o } };
    struct cli c;
    int rc = cli_parse(&c, &cmd_run_doc, b, 1, argc, argv, 1);
    if (rc >= 0) return rc;
    if (c.operands.n != 1) return cli_done(&c, cli_fail(SP_EXIT_USAGE, "run", "expected one job file (see --help)"));
    struct dmn_job job;
    if ((rc = dmn_job_load(c.operands.v[0], &job, c.ctx.err, sizeof c.ctx.err))) {   /* stopped: 130/143 */
        int ex = rc == SP_ESTOPPED ? cli_exit_status(rc) : SP_EXIT_INPUT;
        cli_fail(ex, "run", "%s", c.ctx.err);
        dmn_job_free(&job);
        return cli_done(&c, ex);
    }
    int k = 0, n = 0;
    if (o.shard) {
        char err[SP_ERRLEN];
        if (dmn_shard_parse(o.shard, &k, &n, err, sizeof err)) {
            dmn_job_free(&job);
            return cli_done(&c, cli_fail(SP_EXIT_USAGE, "run", "%s", err));
        }
        dmn_job_shard(&job, k, n, err, sizeof err);
    }
    struct sp_guard guard = { 0 };   /* the job's store and inputs: no output may be one */
    if ((rc = dmn_job_guard(&job, NULL, &guard, c.ctx.err, sizeof c.ctx.err))) {
        sp_guard_free(&guard);
        dmn_job_free(&job);
        return cli_done(&c, cli_fail(rc == SP_ESTOPPED ? cli_exit_status(rc) : SP_EXIT_USAGE, "run", "%s", c.ctx.err));
    }
    if (o.check) { rc = list_steps(&job); sp_guard_free(&guard); dmn_job_free(&job); return cli_done(&c, rc); }
    sp_guard_install(&guard);
    int quiet = c.common.quiet, verbose = c.common.verbose;
    /* the stages' own lines only under --verbose; their warnings always */
    if (!verbose) c.log.level = SP_LOG_WARN;
    FILE *out = quiet ? NULL : stdout;
    if (out && n) printf("synprobe run: %s: shard %d/%d: %d steps (ingest, encode), store %s\n", job.path, k, n, job.n_steps, job.store);
    else if (out) printf("synprobe run: %s: %d steps, store %s\n", job.path, job.n_steps, job.store);
    fflush(stdout);

    c.ctx.job_file = job.path;
    c.ctx.job_sha256 = job.sha256;
    struct dmn_run_opts ro = { .out = out, .ctx = &c.ctx, .command = c.command, .shard_k = k, .shard_n = n };
    struct status st = { .c = &c, .job = &job, .t0 = sp_now(), .i = -1 };
    int status_line = !quiet && !verbose && c.tty;
    if (!quiet && !verbose)   /* the status line says it; a redirected stdout keeps the lines */
        ro.steps = status_line && isatty(STDOUT_FILENO) ? DMN_RUN_STATUS : DMN_RUN_STEP_LINES;
    if (status_line) {
        ro.on_step = status_step;
        ro.step_arg = &st;
        ro.on_done = status_done;
        ro.done_arg = &st;
        c.ctx.progress = status_progress;
        c.ctx.progress_arg = &st;
        status_start(&st);
    }
    struct dmn_run_result r;
    int src = dmn_run(&job, &ro, &r);
    if (status_line) status_stop(&st);
    cli_progress_clear(&c);
    if (out && !n && src != SP_ESTOPPED) {   /* what the store holds now, however the run ended */
        struct stg_ctx sc = c.ctx;
        int lines;
        if (rpt_summary(&sc, job.store, stdout, &lines) == SP_OK && lines) fflush(stdout);
    }
    if (out && src == SP_OK && r.n_worked == 0)
        printf("synprobe run: nothing to do: all %d steps were done before\n", r.n_steps);
    else if (out && src == SP_OK)
        printf("synprobe run: done: %d steps did work, %d had none%s\n", r.n_worked, r.n_nowork,
               r.n_skipped ? " (some skipped: a task the probing protocol cannot run on, said above)" : "");
    else if (out && src == SP_ESTOPPED)
        printf("synprobe run: stopped after %d of %d steps; run it again to resume\n", r.n_worked + r.n_nowork, r.n_steps);
    sp_guard_install(NULL);
    sp_guard_free(&guard);
    dmn_job_free(&job);
    return cli_done(&c, cli_finish_stage(&c, src));
}
