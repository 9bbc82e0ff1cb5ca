/* daemon/run.h — running a job's steps in order, in this process (`synprobe run`, the demo).
 *
 * Each step calls its stage with the options the job file gave, and says what it did in one result
 * line (the figures: a probe's test accuracy and baselines, trees' F1 or UAS, ...), printed in the
 * form the caller asks (enum dmn_run_form: under the command that would do the same, as
 * "[k/N] what: result (Ss)", or handed to on_done for a status line). Steps whose result is stored once per call (tasks, probe, trees,
 * structprobe, report) are recorded in the store's job ledger (store/st_jobs.h) when they succeed
 * and skipped when already recorded; ingest and encode are idempotent by content (unchanged files,
 * cached vectors) and always run, reporting whether they had any work. So a re-run of a finished
 * job does no work, and a job stopped between or inside steps resumes with no duplicate rows. */
#ifndef DMN_RUN_H
#define DMN_RUN_H

#include <stdio.h>

#include "daemon/job.h"
#include "stages/stage.h"

/* What one step did, for a caller that shows it its own way (on_done; the terminal's status line). */
struct dmn_step_done {
    int i, n;                     /* step i (0-based) of the job's n */
    const char *what;             /* "probe Tense minilm-L3 seed 1" (dmn_step_what) */
    const char *result;           /* its result line: "Tense: test 81.20%, majority 50.10%, ... (result #12)" */
    double seconds;               /* wall time of the step */
    int rc;                       /* SP_OK, SP_ESTOPPED or the stage's failure (ctx->err says why) */
    int done_before;              /* found done in the job ledger: skipped, no work */
};

/* What out gets per step (dmn_run_opts.steps). */
enum dmn_run_form {
    DMN_RUN_COMMANDS,             /* "  $ synprobe COMMAND", then the result indented (the demo, run --verbose) */
    DMN_RUN_STEP_LINES,           /* "[k/N] WHAT: RESULT (Ss)": the form off a terminal (run, the daemon's job logs, Slurm) */
    DMN_RUN_STATUS,               /* nothing: the caller draws a status line from on_step / on_done (run on a terminal) */
};

struct dmn_run_opts {
    FILE *out;                    /* the steps in the form `steps` says, and notices (waiting for the store's
                                   * lock); NULL: silent */
    int steps;                    /* enum dmn_run_form */
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
    /* (optional) called after each step with what it did (before on_step's begin = 0 call) */
    void (*on_done)(void *arg, const struct dmn_step_done *d);
    void *done_arg;
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
    int n_skipped;                /* of those: encodes and probes of a task the probing protocol cannot run on
                                   * (stg_probe_unfit_tasks: no training or no dev items), "skipped: REASON" */
    int n_failed;
    const char *failed_where;     /* the JSON path of the first failed step, or NULL */
};

/* A step in a few words, into b (cleared first): its command word and what it works on ("encode
 * minilm-L{layer} over Tense, layers 0-6", "probe Tense minilm-L3 seed 2", "trees baseline right",
 * "report html"). */
void dmn_step_what(const struct dmn_step *s, struct sp_buf *b);

/* The estimate of the time left: each finished step's wall time, by kind. A step found done
 * before (no work) is not added: it says nothing about the time of the steps still to do. */
struct dmn_eta { double seconds[DMN_NKINDS]; int n[DMN_NKINDS]; };
void dmn_eta_add(struct dmn_eta *e, enum dmn_step_kind k, double seconds);
/* Seconds left for steps from..n_steps-1 of job, each at the mean time of its kind's finished
 * steps, or at the mean over all kinds where none of its kind has finished; elapsed_in_from is the
 * time step `from` has run so far (taken off its estimate, down to 0). -1 until a step finished. */
double dmn_eta_left(const struct dmn_eta *e, const struct dmn_job *job, int from, double elapsed_in_from);

/* Runs the steps while holding STORE.run.lock (waiting for it when another job writes to the
 * store; a stop request ends the wait). SP_OK when every step succeeded; SP_ESTOPPED once the stop flag was seen (ctx->err says
 * "stopped"); else the first failing stage's code with ctx->err. */
int dmn_run(const struct dmn_job *job, const struct dmn_run_opts *o, struct dmn_run_result *r);

#endif
