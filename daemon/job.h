/* daemon/job.h — a job file: one JSON file that describes a whole experiment.
 *
 * dmn_job_load reads and validates the file (schemas/job.schema.json) and expands it into the
 * list of steps the runner (daemon/run.h) calls in order: ingest each corpus, build or import
 * tasks, encode every encoder over each of its inputs, probe every task run (per classifier and
 * seed), extract and score trees, structural probes, reports. Each step is a stage's options
 * struct filled through that stage's option table (sp_opt_set_json), so a job key is the flag's
 * name and is declared once. Every error names the JSON path ("encoders[1].config: no such
 * file"); relative paths resolve against the job file's folder, output paths against the job's
 * output folder ("out"), which they may not leave. Loading writes nothing.
 *
 * The job file's folder is the folder of the path as given, symlinks above it resolved but the
 * file itself not followed: a job file reached through a symlink resolves against the link's
 * folder, for run, submit (the queue keeps that path), the daemon and slurm alike. That is how a
 * shared job file linked into several experiment folders runs once per folder, each with its own
 * store and outputs, and what the path the user typed suggests; the link's target is only where
 * the text is read from. */
#ifndef DMN_JOB_H
#define DMN_JOB_H

#include <stddef.h>

#include "common/opt.h"
#include "common/sp.h"

/* the step kinds, one line each in daemon/step_list.h (each defined in daemon/step_<name>.c) */
enum dmn_step_kind {
#define DMN_STEP(E, name) DMN_##E,
#include "daemon/step_list.h"
#undef DMN_STEP
    DMN_NKINDS
};

struct dmn_step {
    enum dmn_step_kind kind;
    const char *words;            /* the command words: "ingest", "tasks build" */
    const struct sp_opt *table;   /* the stage's option table */
    void *opts;                   /* the stage's options struct (in the job's arena) */
    void *defaults;               /* the same struct at its defaults: what the printed command leaves out */
    const char *where;            /* the JSON path it came from: "encoders[1]" */
    int config_key;               /* an encode step whose entry named its config "config" (the job's key for the
                                   * option "encoder"): messages name the key the user wrote */
};

struct dmn_job {
    struct sp_arena arena;        /* every string and options struct of the job */
    const char *path;             /* the job file */
    const char *dir;              /* its folder: relative paths resolve here */
    const char *out;              /* the output folder (resolved) */
    const char *store;            /* the store (resolved) */
    char sha256[65];              /* of the job file's text, as parsed: the manifests record it */
    struct dmn_step *steps;
    int n_steps;
    const char **ud_folders;      /* corpus folders of UD-named files, ingested as their files: inputs too */
    const char **ud_folder_labels;/* "input corpora[i].paths" for each */
    int n_ud_folders;
};

/* Read and check path; SP_OK with *job filled, or an error code with err naming the JSON path.
 * Nothing is created or written either way. Both check the stop flag (common/stop.h) between
 * entries and steps: SP_ESTOPPED with err saying where (dmn_job_parse, which the daemon calls on
 * queued text, does not). */
int dmn_job_load(const char *path, struct dmn_job *job, char *err, size_t errlen);
/* The same, also handing over the text it parsed (*text, the caller frees it; NULL on failure):
 * what submit queues is exactly what was checked. */
int dmn_job_read(const char *path, struct dmn_job *job, char **text, char *err, size_t errlen);

/* The same from a JSON text; dir is the folder relative paths resolve against. */
int dmn_job_parse(const char *text, const char *dir, const char *name, struct dmn_job *job, char *err, size_t errlen);

void dmn_job_free(struct dmn_job *job);

/* Outputs by identity (common/guard.h), before anything runs: fills g with the job file, the
 * store, queue_store (the queue's store for submit; NULL otherwise) and every input of every
 * step, then checks every output: not one of those files, not another entry's output, and
 * inside the output folder once symlinks are resolved (a symlinked folder in "out" that points
 * elsewhere is refused). SP_OK, or SP_EEXIST with err naming the job file, the JSON path and
 * both files: a usage error (the command exits 2); SP_ESTOPPED when a stop was asked for (checked
 * between steps). Linear in the steps but for one sort of the outputs. g stays filled for
 * sp_guard_install while the job runs; the caller frees it either way. */
struct sp_guard;
int dmn_job_guard(const struct dmn_job *job, const char *queue_store, struct sp_guard *g, char *err, size_t errlen);
/* The option table a job entry of kind k is filled through (the stage's table), for tools that
 * walk every value a job file may hold (tests/tools/daemon_jobvalues.c). */
const struct sp_opt *dmn_step_table(enum dmn_step_kind k);

/* " --db X --run Y" for a step: its options that differ from the defaults, into b. */
void dmn_step_format(const struct dmn_step *s, struct sp_buf *b);

#endif
