/* stages/stage.h — what every pipeline stage takes and gives back.
 *
 * A stage (stages/<name>.c: ingest, tasks, encode, probe, trees, structprobe, report) is one
 * step of the pipeline as a function:
 *
 *     int stg_<name>(struct stg_ctx *ctx, const struct stg_<name>_opts *o, struct stg_<name>_result *r);
 *
 * It returns SP_OK or an enum sp_err with ctx->err saying why (file:line or option, and what
 * was expected); it logs through ctx->log, reports progress through ctx->progress, stops at its
 * next safe point once *ctx->stop is set (returning SP_ESTOPPED, with nothing half-written),
 * and never prints, exits or reads argv. Nothing in a stage is global: two stages of different
 * jobs run side by side in one process, each with its own context on its own thread; the
 * settings a stage gives the matrix product (threads, `--gemm`, kernel) belong to the thread that
 * sets them (common/gemm.h), so they reach no other stage. The options struct is
 * filled from the stage's option table (stg_<name>_options[]), which the command line, the
 * job file and the manifest all read. */
#ifndef SP_STAGE_H
#define SP_STAGE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "common/log.h"
#include "common/opt.h"
#include "common/sp.h"

/* done of total units ("files", "sentences", "seeds"); total 0 when unknown. Called from the
 * stage's own thread, at most a few times per second's worth of work. */
typedef void (*stg_progress_fn)(void *arg, const char *unit, uint64_t done, uint64_t total);

struct stg_ctx {
    const struct sp_logger *log;   /* NULL: say nothing */
    const atomic_int *stop;        /* NULL or 0: run on; nonzero: stop at the next safe point */
    stg_progress_fn progress;      /* NULL: no progress reports */
    void *progress_arg;
    const char *job_file;          /* set by the job runner: the job file and the sha256 of its text,
                                    * recorded in every manifest (the report's header names them); NULL: none */
    const char *job_sha256;
    int64_t job_step;              /* set by the job runner: the probe results, tree evaluations and
                                    * tasks the stage writes carry this ledger step (store/st_jobs.h); 0: none */
    struct stg_turn *turn;         /* set by a loop that runs stages side by side (stg_layers_each with
                                    * workers > 1): the stage takes its turn (stg_turn_take) before it
                                    * writes to the store; NULL: no one else runs */
    int turn_no;                   /* this stage's place in that order */
    char err[SP_ERRLEN];           /* why the stage failed */
};

/* Before a stage writes its result: with ctx->turn set, wait until every stage before this one in
 * the loop's order has written and printed its result (so ids and rows come in that order);
 * SP_ESTOPPED when one of them failed (write nothing then). SP_OK at once without a turn, or when
 * the turn is taken already. */
int stg_turn_take(struct stg_ctx *ctx);

/* The order itself (stages/layers.c's loop owns one): turn `next` is served, the others wait;
 * failed: a stage before failed. */
struct stg_turn {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int next;
    int failed;
};

/* Whether the stage was asked to stop. */
static inline int stg_stopping(const struct stg_ctx *c)
{
    return c->stop && atomic_load_explicit(c->stop, memory_order_relaxed);
}

static inline void stg_progress(const struct stg_ctx *c, const char *unit, uint64_t done, uint64_t total)
{
    if (c->progress) c->progress(c->progress_arg, unit, done, total);
}

/* Fill ctx->err and return code: `return stg_fail(ctx, SP_EPARSE, "%s:%ld: ...", ...);` */
int stg_fail(struct stg_ctx *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The error in ctx->err, set by stopping: "stopped" and SP_ESTOPPED. */
int stg_stopped(struct stg_ctx *c);

/* Why sentences were skipped, for a summary line: " (n1 what1, n3 what3)" naming the nonzero
 * counts of the three, or "" when all are 0. */
void stg_skipped_reasons(char *out, size_t cap, long n1, const char *what1, long n2, const char *what2, long n3,
                         const char *what3);

#endif
