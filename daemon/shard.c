/* daemon/shard.c — shard jobs and Slurm scripts (daemon/shard.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/guard.h"
#include "daemon/shard.h"
#include "daemon/step.h"

int dmn_shard_parse(const char *s, int *k, int *n, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long a = strtol(s, &end, 10), b = -1;
    int ok = end != s && *end == '/' && s[0] >= '0' && s[0] <= '9';
    if (ok) {
        const char *t = end + 1;
        b = strtol(t, &end, 10);
        ok = end != t && !*end && t[0] >= '0' && t[0] <= '9' && !errno;
    }
    if (!ok || b < 1 || b > 10000 || a < 0 || a >= b) {
        snprintf(err, errlen, "--shard: expected K/N with 0 <= K < N <= 10000 (shard K of N, counted from 0), got '%s'", s);
        return SP_EUSAGE;
    }
    *k = (int)a;
    *n = (int)b;
    return SP_OK;
}

void dmn_shard_path(const struct dmn_job *job, int k, int n, char *buf, size_t cap)
{
    const char *base = strrchr(job->store, '/') ? strrchr(job->store, '/') + 1 : job->store;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) dot = base + strlen(base);
    snprintf(buf, cap, "%s/%.*s.shard-%d-of-%d%s", job->out, (int)(dot - base), base, k, n, dot);
}

const char *dmn_shard_store(struct dmn_job *job, int k, int n)
{
    char p[PATH_MAX + 64];
    dmn_shard_path(job, k, n, p, sizeof p);
    return sp_arena_strdup(&job->arena, p);
}

#define DB(s) ((const char **)((char *)(s)->opts + sp_opt_find((s)->table, "db")->offset))

int dmn_job_shard(struct dmn_job *job, int k, int n, char *err, size_t errlen)
{
    job->store = dmn_shard_store(job, k, n);
    int m = 0;
    for (int i = 0; i < job->n_steps; i++) {
        struct dmn_step *s = &job->steps[i];
        if (!dmn_steps[s->kind]->shard || !dmn_steps[s->kind]->shard(s->opts, k, n)) continue;
        *DB(s) = job->store;
        job->steps[m++] = *s;
    }
    job->n_steps = m;
    (void)err;
    (void)errlen;
    return SP_OK;
}

/* ---- Slurm ---- */

/* 'x' for sh, into b */
static void shq(struct sp_buf *b, const char *s)
{
    sp_buf_puts(b, "'");
    for (; *s; s++) {
        if (*s == '\'') sp_buf_puts(b, "'\\''");
        else sp_buf_put(b, s, 1);
    }
    sp_buf_puts(b, "'");
}

/* A value the scripts hold, checked before anything is written. Inside the single quotes of shq
 * every byte stands for itself except a line's end: a newline (or a CR, which other tools take
 * for one) would end the quoted word's line and start a command of its own, so every control
 * character (bytes below 0x20, and 0x7f) is refused. In the log folder ('pattern'), sbatch also
 * reads --output as a filename pattern: '%' starts a replacement (%j, %a, %x ...) and a backslash
 * turns them all off and is dropped from the name, so both are refused there too. SP_EUSAGE
 * with the value named (control bytes shown as \xNN). */
static int script_value(const char *what, const char *v, int pattern, char *err, size_t errlen)
{
    const unsigned char *bad = NULL;
    for (const unsigned char *p = (const unsigned char *)v; *p && !bad; p++)
        if (*p < 0x20 || *p == 0x7f || (pattern && (*p == '%' || *p == '\\'))) bad = p;
    if (!bad) return SP_OK;
    struct sp_buf shown = { 0 };
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) sp_buf_printf(&shown, "\\x%02x", *p);
        else sp_buf_put(&shown, p, 1);
    }
    if (*bad < 0x20 || *bad == 0x7f)
        snprintf(err, errlen, "%s '%s' holds a control character (byte 0x%02x at offset %ld): a value written into a Slurm "
                 "script may not hold one (a line break would start a command of its own)", what, shown.p,
                 *bad, (long)(bad - (const unsigned char *)v));
    else
        snprintf(err, errlen, "%s '%s' holds '%c' (offset %ld): sbatch reads the log files' names under it as a filename "
                 "pattern, where '%%' starts a replacement and '\\' turns them off; choose another folder (--out DIR)", what,
                 shown.p, *bad, (long)(bad - (const unsigned char *)v));
    sp_buf_free(&shown);
    return SP_EUSAGE;
}

static int write_file(const char *dir, const char *name, const char *text, int exec, char *err, size_t errlen)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct sp_out out;
    int orc = sp_out_open(&out, path, err, errlen);
    if (orc) return orc;
    fputs(text, out.f);
    if (sp_out_commit(&out, err, errlen)) return SP_EIO;
    if (exec && chmod(path, 0755)) {
        snprintf(err, errlen, "%s: chmod: %s", path, strerror(errno));
        return SP_EIO;
    }
    return SP_OK;
}

/* The #SBATCH lines both scripts share: fixed words only. sbatch reads these lines with rules of
 * its own (quotes, backslashes, '#' starts a comment, and a line that mentions "hetjob" or
 * "packjob" anywhere starts another job component), so nothing a user named is put there: the
 * job name, log file, partition and time limit go on sbatch's command line in submit.sh, quoted
 * for sh. */
static void sbatch_common(struct sp_buf *b)
{
    sp_buf_puts(b, "#SBATCH --open-mode=append\n");
    sp_buf_puts(b, "#SBATCH --requeue\n");
    sp_buf_puts(b, "#SBATCH --signal=B:USR1@60\n");
}

/* Runs "$@" in the background, passes SIGTERM on for SIGTERM/SIGINT (preemption, scancel) and
 * SIGUSR1 (60 s before the time limit), waits for it. synprobe checkpoints and exits 143; after
 * USR1 the task requeues itself, and the requeued task resumes. The traps are set before
 * anything runs and stay: a signal that comes before synprobe starts ends the script (143), one
 * that comes after it ended changes nothing (a shell without a USR1 trap would die of it). */
static const char run_fn[] =
    "pid=\n"
    "requeue=0\n"
    "trap 'requeue=1; [ -z \"$pid\" ] && exit 143; kill -TERM $pid 2>/dev/null' USR1\n"
    "trap '[ -z \"$pid\" ] && exit 143; kill -TERM $pid 2>/dev/null' TERM INT\n"
    "run() {\n"
    "    \"$@\" &\n"
    "    pid=$!\n"
    "    while :; do\n"
    "        wait $pid; rc=$?\n"
    "        kill -0 $pid 2>/dev/null || break\n"
    "    done\n"
    "    if [ $requeue = 1 ] && [ $rc = 143 ]; then\n"
    "        echo \"synprobe: stopped at a checkpoint before the time limit; requeueing $JOBREF\"\n"
    "        scontrol requeue \"$JOBREF\"\n"
    "    fi\n"
    "    return $rc\n"
    "}\n";

/* p made absolute against the current folder (job paths are resolved against the job's folder,
 * which is relative to it when the job file's path is) */
static void absolute(const char *p, char *buf, size_t cap)
{
    char cwd[PATH_MAX];
    if (p[0] != '/' && getcwd(cwd, sizeof cwd)) snprintf(buf, cap, "%s/%s", cwd, p);
    else snprintf(buf, cap, "%s", p);
}

/* One sbatch call of submit.sh: the options from the user's values, each quoted for sh. */
static void submit_call(struct sp_buf *b, const struct dmn_slurm_opts *o, const char *var, const char *jname, const char *log,
                        const char *dep, const char *script)
{
    sp_buf_printf(b, "%s=$(sbatch --parsable --job-name=", var);
    shq(b, jname);
    sp_buf_printf(b, " --output=\"$dir/logs/%s\"", log);
    if (o->partition) { sp_buf_puts(b, " --partition="); shq(b, o->partition); }
    if (o->time) { sp_buf_puts(b, " --time="); shq(b, o->time); }
    sp_buf_printf(b, "%s \"$dir/%s\")\n%s=${%s%%%%;*}\n", dep, script, var, var);
}

int dmn_slurm_write(const struct dmn_job *job, const struct dmn_slurm_opts *o, char *err, size_t errlen)
{
    char jobabs[PATH_MAX], store[PATH_MAX + 64];
    char *ja = sp_path_real(job->path, 0);   /* a symlinked job file: the link, as run and submit (daemon/job.h) */
    snprintf(jobabs, sizeof jobabs, "%s", ja);
    free(ja);
    absolute(job->store, store, sizeof store);
    const char *name = strrchr(jobabs, '/') + 1;
    char jname[256];
    snprintf(jname, sizeof jname, "synprobe-%.*s", (int)(strchr(name, '.') ? (size_t)(strchr(name, '.') - name) : strlen(name)), name);
    /* every value the scripts will hold, before anything is written */
    int rc = script_value("the job file's path", jobabs, 0, err, errlen);
    if (!rc) rc = script_value("the synprobe binary's path", o->synprobe, 0, err, errlen);
    if (!rc) rc = script_value("the job's store", store, 0, err, errlen);
    if (!rc) rc = script_value("the job's output folder", job->out, 0, err, errlen);
    if (!rc) rc = script_value("the scripts' folder", o->dir, 1, err, errlen);
    if (!rc && o->partition) rc = script_value("--partition", o->partition, 0, err, errlen);
    if (!rc && o->time) rc = script_value("--time", o->time, 0, err, errlen);
    if (rc) return rc;

    char d[PATH_MAX], logs[PATH_MAX + 8];
    snprintf(d, sizeof d, "%s", o->dir);
    for (char *p = d + 1; *p; p++)
        if (*p == '/') { *p = 0; mkdir(d, 0777); *p = '/'; }
    mkdir(d, 0777);
    snprintf(logs, sizeof logs, "%s/logs", o->dir);
    if (mkdir(logs, 0777) && errno != EEXIST) { snprintf(err, errlen, "%s: %s", logs, strerror(errno)); return SP_EIO; }

    struct sp_buf a = { 0 }, f = { 0 }, s = { 0 }, l = { 0 };
    /* the array: one task per shard */
    sp_buf_puts(&a, "#!/bin/sh\n# Shards of a synprobe job, written by `synprobe slurm`: task K runs\n"
                    "# `synprobe run --shard K/N JOB` (ingest + encode of shard K into its own store).\n"
                    "# Submit with submit.sh: it gives sbatch the job name, log files, partition and time limit.\n");
    sbatch_common(&a);
    sp_buf_printf(&a, "#SBATCH --array=0-%d\n", o->shards - 1);
    if (o->gpus > 0) sp_buf_printf(&a, "#SBATCH --gres=gpu:%ld\n", o->gpus);
    sp_buf_puts(&a, "set -u\nSYNPROBE=");
    shq(&a, o->synprobe);
    sp_buf_puts(&a, "\nJOB=");
    shq(&a, jobabs);
    sp_buf_printf(&a, "\nJOBREF=\"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\"\n%s", run_fn);
    sp_buf_printf(&a, "run \"$SYNPROBE\" run --shard \"$SLURM_ARRAY_TASK_ID/%d\" \"$JOB\"\n", o->shards);

    /* the dependent job: merge every shard, then the whole job on the merged store */
    sp_buf_puts(&f, "#!/bin/sh\n# Runs after every shard succeeded (submit.sh: --dependency=afterok): merges the\n"
                    "# shard stores into the job's store, then runs the job on it; ingest and encode find\n"
                    "# their work done, tasks, probes, trees and reports run.\n");
    sbatch_common(&f);
    sp_buf_puts(&f, "set -u\nSYNPROBE=");
    shq(&f, o->synprobe);
    sp_buf_puts(&f, "\nJOB=");
    shq(&f, jobabs);
    sp_buf_printf(&f, "\nJOBREF=\"$SLURM_JOB_ID\"\n%s", run_fn);
    /* the shard stores in a list beside the scripts, one a line: the script stays the same size
     * for any N (10,000 paths on merge's command line would pass the kernel's argument limit,
     * and the script Slurm's 4 MB limit) */
    for (int k = 0; k < o->shards; k++) {
        char p[PATH_MAX + 64], q[PATH_MAX + 128];
        dmn_shard_path(job, k, o->shards, p, sizeof p);
        absolute(p, q, sizeof q);
        sp_buf_printf(&l, "%s\n", q);
    }
    char list[PATH_MAX + 16];
    snprintf(list, sizeof list, "%s/shards.list", o->dir);
    sp_buf_puts(&f, "\"$SYNPROBE\" merge ");
    shq(&f, store);
    sp_buf_puts(&f, " --from-list ");
    shq(&f, list);
    sp_buf_puts(&f, " || exit $?\nrun \"$SYNPROBE\" run \"$JOB\"\n");

    sp_buf_puts(&s, "#!/bin/sh\n# Submits the shards and the job that merges them, probes and reports (written by\n"
                    "# `synprobe slurm`). Prints the two Slurm job ids.\nset -eu\ndir=");
    shq(&s, o->dir);
    sp_buf_puts(&s, "\n");
    submit_call(&s, o, "array", jname, "shard-%a.out", "", "shards.sbatch");
    submit_call(&s, o, "final", jname, "final.out", " --dependency=afterok:$array", "final.sbatch");
    sp_buf_puts(&s, "echo \"shards: Slurm job $array; merge, probes, reports: Slurm job $final (after every shard succeeded)\"\n"
                    "echo \"$array $final\" >\"$dir/jobs\"\n");
    rc = write_file(o->dir, "shards.sbatch", a.p, 1, err, errlen);
    if (!rc) rc = write_file(o->dir, "shards.list", l.p, 0, err, errlen);
    if (!rc) rc = write_file(o->dir, "final.sbatch", f.p, 1, err, errlen);
    if (!rc) rc = write_file(o->dir, "submit.sh", s.p, 1, err, errlen);
    sp_buf_free(&a);
    sp_buf_free(&f);
    sp_buf_free(&s);
    sp_buf_free(&l);
    return rc;
}
