/* cli/cmd_run.c — synprobe run JOB.json: a job file's steps in the foreground (daemon/run.h). */
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "daemon/job.h"
#include "daemon/run.h"
#include "daemon/shard.h"

static const char usage[] =
    "usage: synprobe run [--check] [--shard K/N] JOB.json\n"
    "\n"
    "Runs the job file's steps in order (ingest, tasks, encode, probe, trees, structprobe, report;\n"
    "schemas/job.schema.json), printing each as the command that would do it and one summary line.\n"
    "Steps already done are skipped: a re-run of a finished job does no work. SIGINT/SIGTERM stop at\n"
    "the next safe point (exit 130/143) and a re-run resumes. An invalid job file is refused before\n"
    "anything is written (exit 1, the message names the JSON path); so is an output that is the store,\n"
    "an input, another entry's output, or outside \"out\" through a symlinked folder (exit 2, --check too).\n"
    "Relative paths resolve against the folder of JOB.json as given (a symlinked job file: the link's\n"
    "folder, as for submit). Exit 0 only if every step succeeded.\n"
    "\n"
    "--shard K/N runs only ingest and the encodes over corpora, on shard K of N (0 <= K < N) of the\n"
    "job's sentences (chosen by a hash of each sentence's file name and position), into its own store\n"
    "OUT/STORE.shard-K-of-N.db;\n"
    "`synprobe merge STORE SHARD.db...` combines the shards, then `synprobe run JOB.json` does the rest;\n"
    "a store that holds some of the shards but not all is refused (exit 1), naming those missing.\n";

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

int cmd_run(int argc, char **argv)
{
    struct run_opts o;
    const struct sp_optbind b[] = { { run_options, &o } };
    struct cli c;
    int rc = cli_parse(&c, "run", usage, b, 1, argc, argv, 1);
    if (rc >= 0) return rc;
    if (c.operands.n != 1) return cli_done(&c, cli_fail(SP_EXIT_USAGE, "run", "expected one job file (see --help)"));
    struct dmn_job job;
    if (dmn_job_load(c.operands.v[0], &job, c.ctx.err, sizeof c.ctx.err)) {
        cli_fail(SP_EXIT_INPUT, "run", "%s", c.ctx.err);
        dmn_job_free(&job);
        return cli_done(&c, SP_EXIT_INPUT);
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
    if (dmn_job_guard(&job, NULL, &guard, c.ctx.err, sizeof c.ctx.err)) {
        sp_guard_free(&guard);
        dmn_job_free(&job);
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "run", "%s", c.ctx.err));
    }
    if (o.check) { rc = list_steps(&job); sp_guard_free(&guard); dmn_job_free(&job); return cli_done(&c, rc); }
    sp_guard_install(&guard);
    FILE *out = c.common.quiet ? NULL : stdout;
    if (out && n) printf("synprobe run: %s: shard %d/%d: %d steps (ingest, encode), store %s\n", job.path, k, n, job.n_steps, job.store);
    else if (out) printf("synprobe run: %s: %d steps, store %s\n", job.path, job.n_steps, job.store);

    c.ctx.job_file = job.path;
    c.ctx.job_sha256 = job.sha256;
    struct dmn_run_opts ro = { .out = out, .ctx = &c.ctx, .command = c.command, .shard_k = k, .shard_n = n };
    struct dmn_run_result r;
    int src = dmn_run(&job, &ro, &r);
    if (out && src == SP_OK && r.n_worked == 0)
        printf("synprobe run: nothing to do: all %d steps were done before\n", r.n_steps);
    else if (out && src == SP_OK)
        printf("synprobe run: done: %d steps did work, %d had none\n", r.n_worked, r.n_nowork);
    else if (out && src == SP_ESTOPPED)
        printf("synprobe run: stopped after %d of %d steps; run it again to resume\n", r.n_worked + r.n_nowork, r.n_steps);
    sp_guard_install(NULL);
    sp_guard_free(&guard);
    dmn_job_free(&job);
    return cli_done(&c, cli_finish_stage(&c, src));
}
