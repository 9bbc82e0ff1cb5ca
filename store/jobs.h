/* store/jobs.h — the job ledger: which steps of a job (`synprobe run`) are done.
 *
 * A step is named by the command line that does it (stage words and the options that differ
 * from their defaults, as sp_opt_format_args writes them). The runner asks before a step and
 * records after a step succeeded, so a re-run of a finished job does no work. */
#ifndef ST_JOBS_H
#define ST_JOBS_H

#include <stddef.h>

#include "store/store.h"

/* *done = 1 and summary (may be NULL) filled when command was recorded, else *done = 0. */
int st_job_step_done(struct st_db *db, const char *command, int *done, char *summary, size_t summary_len,
                     char *err, size_t errlen);

/* Record command as done with its summary (a second record of the same command replaces it). */
int st_job_step_mark(struct st_db *db, const char *command, const char *summary, char *err, size_t errlen);

/* Number of recorded steps. */
int st_job_step_count(struct st_db *db, long long *n, char *err, size_t errlen);

#endif
