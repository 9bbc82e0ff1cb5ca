/* daemon/step.h — a step kind, declared once (daemon/step_list.h lists them; each is defined in its
 * own file, daemon/step_<name>.c): its command words, the job file's section whose entries make its
 * steps, the stage's option table, the checks, how it runs and says what it did, and the rules the
 * job system asks instead of testing kinds (is its result recorded in the job ledger, does it store
 * sentences, does it run in a shard, does it use the GPU).
 *
 * The job parser (daemon/job.c) reads each kind's section through `entry`, the runner
 * (daemon/run.c) calls `run` and `what`, the sharder (daemon/shard.c) `shard`, the outputs guard
 * `protect`, the daemon `uses_gpu`. Internal to daemon/. */
#ifndef DMN_STEP_H
#define DMN_STEP_H

#include <jansson.h>
#include <stdio.h>

#include "daemon/job.h"
#include "daemon/run.h"

struct dmn_parse;   /* the job parser's state (daemon/job_int.h) */
struct sp_guard;

/* what a step's run says: its result line (names of any length, figures), and whether it had no work */
struct dmn_step_out { char summary[4096]; int nowork; };

enum {
    DMN_STEP_LEDGER = 1,      /* its result is stored once per call: recorded in the job ledger when it succeeds,
                               * skipped when recorded (ingest and encode know by content whether they have work) */
    DMN_STEP_SENTENCES = 2,   /* it stores the corpus's sentences: the steps after the last of these read them */
    DMN_STEP_TASK_RUNS = 4,   /* it reads the stored tasks its option "task" names: skipped when the probing
                               * protocol cannot run on any of them (no training or no dev items) */
};

struct dmn_step_def {
    const char *words;                  /* the command: "tasks build" */
    const char *section;                /* the job file's array whose entries `entry` reads ("tasks"); NULL: the
                                         * steps of this kind are made by another kind's section */
    const struct sp_opt *table;         /* the stage's options: a job key is the flag's name */
    size_t size;                        /* sizeof the stage's options struct */
    int (*entry)(struct dmn_parse *P, json_t *e, const char *where);  /* one section entry -> its steps */
    int (*check)(struct stg_ctx *ctx, const void *opts);  /* the stage's own rules (NULL: all in its table):
                                                           * SP_OK or an error with ctx->err */
    int (*check_job)(struct dmn_parse *P, const struct dmn_step *s);  /* after check, the rules that need the
                                                                      * whole job (NULL: none) */
    int (*run)(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so);
    void (*what)(json_t *opts, struct sp_buf *b);   /* what it works on, after its words (opts: its options
                                                     * as JSON, sp_opt_to_json); NULL: nothing */
    int (*shard)(void *opts, int k, int n);  /* in shard K of N of a job (daemon/shard.h): 1 keeps the step,
                                              * told its part; NULL or 0: it runs on the merged store only */
    int (*uses_gpu)(const void *opts);       /* NULL: never */
    void (*protect)(struct sp_guard *g, const struct dmn_step *s);  /* its inputs, when not its PATH
                                                                    * options' (NULL: those) */
    unsigned flags;                          /* DMN_STEP_* */
};

#define DMN_STEP(E, name) extern const struct dmn_step_def dmn_step_##name;
#include "daemon/step_list.h"
#undef DMN_STEP

/* every kind by enum dmn_step_kind (daemon/steps.c) */
extern const struct dmn_step_def *const dmn_steps[DMN_NKINDS];

/* what the runners share (daemon/run.c) */
void dmn_run_make_parents(const char *path, int dir_too);   /* mkdir -p of path's folder (path itself: dir_too) */
void dmn_run_log_json(FILE *log, json_t *j);                 /* j as one line of the job's log (NULL: none) */
/* an option's value as a step has it (JSON from sp_opt_to_json): a string, or a list's items
 * joined by ','; NULL: none. tmp holds the joined text. */
void dmn_step_what_trees(json_t *opts, struct sp_buf *b);   /* trees and structprobe: (dependency), the baseline or the run */
const char *dmn_step_opt_text(json_t *opts, const char *name, struct sp_buf *tmp);

#endif
