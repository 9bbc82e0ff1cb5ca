/* cli/cmd_slurm.c — synprobe slurm JOB.json --shards N: sbatch scripts for a sharded job (daemon/shard.h). */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "daemon/job.h"
#include "daemon/shard.h"

const struct cli_doc cmd_slurm_doc = {
    .name = "slurm",
    .purpose = "write sbatch scripts that run a job as shards on a Slurm cluster",
    .synopsis = "--shards [options] JOB.json",
    .prose =
        "Writes DIR/shards.sbatch (a job array: task K runs `synprobe run --shard K/N JOB.json`, ingest and\n"
        "encode of shard K), DIR/final.sbatch (merges the shard stores DIR/shards.list names, one a line, into\n"
        "the job's store with `merge --from-list`, then runs the job on it: tasks, probes, trees, reports; its\n"
        "size does not grow with N) and DIR/submit.sh, which submits both, the second with\n"
        "--dependency=afterok on the array. Both use --requeue and --signal=B:USR1@60: 60 s before the time\n"
        "limit, and on preemption or scancel (SIGTERM), the script passes SIGTERM to synprobe, which stops at\n"
        "a checkpoint (exit 143); after USR1 the task requeues itself, and the requeued task resumes.\n"
        "DIR defaults to the job's output folder/slurm. Paths in the scripts are absolute. submit.sh gives sbatch\n"
        "the job name, the log files (DIR/logs) and --partition and --time; every value is quoted for sh.\n"
        "Refused (exit 2, nothing written): a control character (newline, CR, tab ...) in any value the scripts\n"
        "would hold (the job file's, store's and binary's paths, DIR, P, T), and '%' or '\\' in DIR (sbatch reads\n"
        "the log files' names as filename patterns).\n",
};

struct slurm_opts { long shards, gpus; const char *partition, *time, *out; };
/* what --out names (common/guard.h): the folder of the scripts dmn_slurm_write writes and the logs */
static const char *slurm_holds(const void *src) { (void)src; return "shards.sbatch|final.sbatch|submit.sh|shards.list|logs"; }

static const struct sp_opt slurm_options[] = {
    { "shards", SP_OPT_INT, offsetof(struct slurm_opts, shards), .lo = 1, .hi = 10000, .metavar = "N",
      .help = "number of shards (array tasks)" },
    { "gpus", SP_OPT_INT, offsetof(struct slurm_opts, gpus), .lo = 0, .hi = 64, .metavar = "G",
      .help = "GPUs per shard task (--gres=gpu:G)" },
    { "partition", SP_OPT_STR, offsetof(struct slurm_opts, partition), .metavar = "P", .help = "Slurm partition of both jobs" },
    { "time", SP_OPT_STR, offsetof(struct slurm_opts, time), .metavar = "T", .help = "time limit of each job (sbatch --time)" },
    { "out", SP_OPT_PATH, offsetof(struct slurm_opts, out), .metavar = "DIR", .help = "folder for the scripts (default OUT/slurm)", .flags = SP_OPTF_OUTPUT,
      .holds = slurm_holds },
    { 0 },
};

/* No shard's store (OUT/STORE.shard-K-of-N.EXT, written by the array tasks) is an input of the job:
 * checked only where an input lies in OUT itself, the only place one could be. SP_OK or SP_EUSAGE. */
static int shard_stores(struct dmn_job *job, const struct sp_guard *g, int n, char *err, size_t errlen)
{
    char *out_real = sp_path_real(job->out, 1);
    size_t ol = strlen(out_real);
    int near = 0;
    for (int i = 0; i < g->n && !near; i++)
        near = !g->v[i].store && sp_path_inside(g->v[i].real, out_real) && g->v[i].real[ol] == '/' &&
               !strchr(g->v[i].real + ol + 1, '/');
    free(out_real);
    int rc = SP_OK;
    for (int k = 0; near && k < n && rc == SP_OK; k++) {
        char role[64];
        snprintf(role, sizeof role, "the store of shard %d/%d", k, n);
        char e[SP_ERRLEN];
        rc = sp_guard_check_store(g, dmn_shard_store(job, k, n), role, e, sizeof e);
        if (rc) snprintf(err, errlen, "%s: %s", job->path, e);
    }
    return rc;
}

int cmd_slurm(int argc, char **argv)
{
    struct slurm_opts o;
    struct cli c;
    const struct sp_optbind b[] = { { slurm_options, &o } };
    int rc = cli_parse(&c, &cmd_slurm_doc, b, 1, argc, argv, 1);
    if (rc >= 0) return rc;
    if (c.operands.n != 1) return cli_done(&c, cli_fail(SP_EXIT_USAGE, "slurm", "expected one job file (see --help)"));
    if (!o.shards) return cli_done(&c, cli_fail(SP_EXIT_USAGE, "slurm", "--shards N is required"));
    struct dmn_job job;
    if ((rc = dmn_job_load(c.operands.v[0], &job, c.ctx.err, sizeof c.ctx.err))) {   /* stopped: 130/143 */
        int ex = rc == SP_ESTOPPED ? cli_exit_status(rc) : SP_EXIT_INPUT;
        cli_fail(ex, "slurm", "%s", c.ctx.err);
        dmn_job_free(&job);
        return cli_done(&c, ex);
    }
    struct sp_guard guard = { 0 };   /* the job refused as run and submit refuse it; the scripts checked too */
    if ((rc = dmn_job_guard(&job, NULL, &guard, c.ctx.err, sizeof c.ctx.err))) {
        sp_guard_free(&guard);
        dmn_job_free(&job);
        return cli_done(&c, cli_fail(rc == SP_ESTOPPED ? cli_exit_status(rc) : SP_EXIT_USAGE, "slurm", "%s", c.ctx.err));
    }
    if (shard_stores(&job, &guard, (int)o.shards, c.ctx.err, sizeof c.ctx.err)) {
        sp_guard_free(&guard);
        dmn_job_free(&job);
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "slurm", "%s", c.ctx.err));
    }
    char self[PATH_MAX], dir[PATH_MAX + 16], cwd[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    if (o.out) snprintf(dir, sizeof dir, "%s", o.out);
    else snprintf(dir, sizeof dir, "%s/slurm", job.out);
    if (dir[0] != '/' && getcwd(cwd, sizeof cwd)) {
        char t[sizeof dir];
        snprintf(t, sizeof t, "%s/%s", cwd, dir);
        snprintf(dir, sizeof dir, "%s", t);
    }
    struct dmn_slurm_opts so = { .shards = (int)o.shards, .gpus = o.gpus, .partition = o.partition, .time = o.time, .dir = dir,
                                 .synprobe = self };
    sp_guard_install(&guard);
    rc = dmn_slurm_write(&job, &so, c.ctx.err, sizeof c.ctx.err);
    sp_guard_install(NULL);
    sp_guard_free(&guard);
    dmn_job_free(&job);
    if (rc) return cli_done(&c, cli_fail(cli_exit_status(rc), "slurm", "%s", c.ctx.err));
    if (!c.common.quiet)
        printf("synprobe slurm: wrote %s/shards.sbatch (%ld array tasks), %s/shards.list, %s/final.sbatch, %s/submit.sh\n"
               "submit with: sh %s/submit.sh\n", dir, o.shards, dir, dir, dir, dir);
    return cli_done(&c, SP_EXIT_OK);
}
