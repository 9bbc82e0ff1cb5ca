/* stages/probe.h — the probe stage: SentEval probing classifiers (docs/spec/probing.md §1) on a task and
 * its sentence vectors, results optionally stored (table probe_result).
 *
 * Sources. The task comes from a SentEval file (task_file) or from a store (db + task: one or
 * more stored tasks, probed in turn); the vectors from a .npy file whose row i is the sentence of
 * the task's i-th item (file order = ordinal order in the store), or from a stored encoder run
 * over that task. One protocol run per task x classifier x seed.
 *
 * Storage. With db (unless no_save) or save, every run becomes one probe_result row whose
 * `result` is the run's JSON plus "manifest" (options, protocol, data hash, sources, versions,
 * time). All rows of one call are written at the end in one transaction: a stopped or failed
 * probe stores nothing. Rows are never replaced (see store/st_results.h). */
#ifndef SP_STG_PROBE_H
#define SP_STG_PROBE_H

#include <jansson.h>

#include "stages/stage.h"
#include "store/st_results.h"

struct stg_probe_opts {
    const char *db;                  /* the store holding the tasks (and getting the results) */
    struct sp_strlist task;          /* stored task names, probed in turn */
    const char *task_file;           /* or: a SentEval task file */
    const char *vectors;             /* X.npy, row i = item i */
    const char *run;                 /* or: a stored encoder run over the task */
    const char *save;                /* task_file: store the results here (created if missing) */
    int no_save;                     /* db: do not store */
    struct sp_strlist classifier;    /* logreg, mlp; empty: logreg */
    int preset;                      /* 0 senteval-default, 1 senteval-fast */
    const char *optim;               /* "adam,lr=0.0005"; NULL: the preset's */
    struct sp_strlist seed;          /* classifier seeds; empty: 1111 */
    long control_seed;               /* -1: the run's seed */
    int no_control;
    long nhid;                       /* MLP: -1 the grid */
    double dropout;                  /* MLP: -1 the grid */
    long max_epoch;                  /* -1: the preset's */
    int noreg;
    long threads;
    struct sp_strlist command;       /* not in the table: the words that ran it, for the manifest */
};
extern const struct sp_opt stg_probe_options[];

/* One task x classifier x seed run. */
struct stg_probe_run {
    char *task;                      /* the task's name, whole; owned */
    json_t *json;                    /* what --json prints (with "result_id" once stored); owned */
    char *text;                      /* the human-readable result; owned */
    int64_t result_id;               /* 0: not stored */
    struct st_probe_result row;      /* the row to store; row.result owned */
};

struct stg_probe_result {
    int n;                           /* runs done, in order task, classifier, seed */
    struct stg_probe_run *runs;
    const char *store;               /* where they were stored, NULL: nowhere (borrowed from opts) */
    double seconds;
};

/* SP_OK; SP_EUSAGE for inconsistent options; SP_EPARSE for bad input (unknown task or run with
 * the nearest names, misaligned vectors, ...); SP_ESTORE; SP_ESTOPPED (between runs, nothing
 * stored). r is filled in every case (the runs done before a failure are in it, unstored). */
int stg_probe(struct stg_ctx *ctx, const struct stg_probe_opts *o, struct stg_probe_result *r);

/* The rules stg_probe checks its options against before it reads anything (which sources go
 * together, seeds, classifiers, --optim, --nhid/--dropout with mlp, at most 64 runs): SP_EUSAGE
 * with ctx->err, or SP_OK. A job file's steps are checked with it when the job is loaded. */
int stg_probe_check(struct stg_ctx *ctx, const struct stg_probe_opts *o);
void stg_probe_result_free(struct stg_probe_result *r);

/* The stored tasks the probing protocol cannot run on (prb_senteval_unfit: no training or no dev
 * items, e.g. a small corpus re-split), each with the reason: *unfit a new object {"Tense": "the
 * protocol needs training and dev instances (have 28 train, 0 dev)", ...} (empty when none), and
 * the tasks a build skipped that its stored tasks' params name ("tasks build skipped it: no test
 * items ..."), which no step can read. A job
 * skips the encodes and probes of these tasks with that reason, and the run's summary and the
 * report say "skipped: REASON" (tasks build already knows it: the job learns it there, not after
 * the encodes). stg_probe_unfit_tasks_at opens db read-only (a store that does not exist yet holds
 * none). SP_OK or SP_ESTORE with ctx->err. */
struct st_db;
int stg_probe_unfit_tasks(struct stg_ctx *ctx, struct st_db *db, json_t **unfit);
int stg_probe_unfit_tasks_at(struct stg_ctx *ctx, const char *db, json_t **unfit);

/* A stored task's items and the vectors of a run over it, read, checked and labelled as stg_probe
 * reads them (classes: the training labels in byte order), for the stages that probe them
 * otherwise (stages/mdl.c). SP_OK or the errors of stg_probe; ps is freed by stg_probe_set_free
 * in every case. */
struct stg_probe_set {
    int n, d, k;
    const float *X;                  /* (n, d) */
    const int *y;                    /* n class ids */
    const unsigned char *split;      /* n, PRB_SPLIT_* (probes/senteval_protocol.h) */
    const char *const *names;        /* k class names */
    char sha256[65];                 /* the data hash of the probe's manifest */
    void *priv;
};
int stg_probe_set_load(struct stg_ctx *ctx, struct st_db *db, const char *dbpath, const char *task, const char *run,
                       struct stg_probe_set *ps);
void stg_probe_set_free(struct stg_probe_set *ps);

#endif
