/* store/st_jobs.h — the job ledger: which steps of a job (`synprobe run`) are done.
 *
 * A step is named by the command line that does it (stage words and the options that differ
 * from their defaults, as sp_opt_format_args writes them). The runner begins a step before
 * running it (st_job_step_begin: a 'started' row, or "done before" and the step is skipped) and
 * finishes it after it succeeded (st_job_step_finish: 'done' with its summary). The stage's
 * connection is told the step (st_set_job_step): the probe results, tree evaluations or tasks it
 * stores carry the step's id, and the one transaction that stores them also makes the step
 * 'done' (a stage stores its rows in one transaction). A kill at any moment therefore leaves
 * either the rows and "done", or neither: a re-run skips the step or redoes it, and never
 * duplicates a row nor fails on a task the killed attempt stored. Steps that store no rows
 * (report) are 'done' by st_job_step_finish. */
#ifndef ST_JOBS_H
#define ST_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* Begin the step named command. Done before: *done = 1, summary (may be NULL) filled, *step_id
 * its id. Else *done = 0 and *step_id the id of its 'started' row (made now, or left by an
 * attempt that stopped before storing its rows). */
int st_job_step_begin(struct st_db *db, const char *command, int64_t *step_id, int *done, char *summary,
                      size_t summary_len, char *err, size_t errlen);

/* The step succeeded: 'done', with its summary. */
int st_job_step_finish(struct st_db *db, int64_t step_id, const char *summary, char *err, size_t errlen);

/* The rows this connection writes from now on (probe results, tree evaluations, tasks) carry
 * step_id; 0: none (NULL, as outside a job). */
void st_set_job_step(struct st_db *db, int64_t step_id);

/* *done = 1 and summary (may be NULL) filled when command was recorded done, else *done = 0. */
int st_job_step_done(struct st_db *db, const char *command, int *done, char *summary, size_t summary_len,
                     char *err, size_t errlen);

/* Number of recorded steps. */
int st_job_step_count(struct st_db *db, long long *n, char *err, size_t errlen);

#endif
