/* daemon/run.h — running a job's steps in order, in this process (`synprobe run`, the demo).
 *
 * Each step calls its stage with the options the job file gave, after printing the command line
 * that would do the same. Steps whose result is stored once per call (tasks, probe, trees,
 * structprobe, report) are recorded in the store's job ledger (store/st_jobs.h) when they succeed
 * and skipped when already recorded; ingest and encode are idempotent by content (unchanged files,
 * cached vectors) and always run, reporting whether they had any work. So a re-run of a finished
 * job does no work, and a job stopped between or inside steps resumes with no duplicate rows. */
#ifndef DMN_RUN_H
#define DMN_RUN_H

#include <stdio.h>

#include "daemon/job.h"
#include "stages/stage.h"

struct dmn_run_opts {
    FILE *out;                    /* "  $ synprobe ..." and one summary line per step; NULL: silent */
    FILE *log;                    /* the stages' full results (JSON, probe texts); NULL: none */
    struct stg_ctx *ctx;          /* logger, stop flag, progress: shared by every step */
    struct sp_strlist command;    /* the words recorded in the manifests */
    int keep_going;               /* run the later steps after a failure (the demo) */
    int quiet_skips;              /* print a step found done as its command only (the demo) */
    /* called once the last ingest step has run (the demo prints its store summary there) */
    void (*after_ingest)(void *arg);
    void *arg;
    /* (optional) called before each step (begin = 1) and after it (begin = 0, rc its result):
     * the daemon's job process reports progress and takes the GPU token here (daemon/daemon.c) */
    void (*on_step)(void *arg, int i, const struct dmn_step *s, int begin, int rc);
    void *step_arg;
    /* the caller holds STORE.run.lock already (the daemon's job process, which waits for it
     * without polling); else dmn_run takes it: one job at a time per store */
    int no_store_lock;
    int shard_k, shard_n;         /* a shard job (daemon/shard.h): the store is marked as shard K of N
                                   * before anything is written to it; shard_n 0: no shard */
};

struct dmn_run_result {
    int n_steps;                  /* steps of the job */
    int n_worked;                 /* steps that did work */
    int n_nowork;                 /* steps found done (ledger) or with nothing new (ingest, encode) */
    int n_failed;
    const char *failed_where;     /* the JSON path of the first failed step, or NULL */
};

/* Runs the steps while holding STORE.run.lock (waiting for it when another job writes to the
 * store; a stop request ends the wait). SP_OK when every step succeeded; SP_ESTOPPED once the stop flag was seen (ctx->err says
 * "stopped"); else the first failing stage's code with ctx->err. */
int dmn_run(const struct dmn_job *job, const struct dmn_run_opts *o, struct dmn_run_result *r);

#endif
