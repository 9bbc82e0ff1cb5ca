/* store/st_queue.h — the daemon's job queue (schemas/migrations/008-job-queue.sql).
 *
 * One row per submitted job: the job file's path and a snapshot of its text (what runs), its
 * state, the step it is in and how far it got, times, the last error and the step it failed in,
 * retries and the lease of the daemon running it. Every change that decides who runs a job
 * (lease, finish, cancel, reclaim) is one write transaction (BEGIN IMMEDIATE), so two daemons on
 * one store never lease the same job, and a finish only lands while its daemon still holds the
 * lease (a job re-queued behind a daemon's back is not finished by it). Times are Unix seconds,
 * passed in by the caller (the tests drive the clock). */
#ifndef ST_QUEUE_H
#define ST_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "common/sp.h"
#include "store/store.h"

struct st_queue_job {
    int64_t id;
    char *path, *text;            /* malloc'd (st_queue_job_free); text: the snapshot */
    char sha256[65];
    char state[16];               /* queued | running | done | failed | cancelled */
    char step[128];               /* JSON path of the step running (or last run) */
    int steps_done, steps_total;
    double submitted_at, started_at, finished_at;    /* 0: not yet */
    char error[SP_ERRLEN];        /* the last failure; "" none */
    char error_step[128];         /* the JSON path of the step it failed in */
    int attempts, failures, max_retries;
    double next_attempt;
    char owner[160];              /* lease owner "host:pid:id"; "" none */
    double lease_expiry, heartbeat;
    long pid;                     /* the job's process on the owner's host; 0 unknown */
};

void st_queue_job_free(struct st_queue_job *j);

/* Add a queued job; *id its number. */
int st_queue_submit(struct st_db *db, const char *path, const char *text, int max_retries, double now, int64_t *id,
                    char *err, size_t errlen);

/* Lease the oldest queued job whose next attempt is due: it becomes 'running', owned by owner
 * until now + lease_s, one more attempt. *got = 0 when none is due (j untouched). */
int st_queue_lease(struct st_db *db, const char *owner, double now, double lease_s, struct st_queue_job *j, int *got,
                   char *err, size_t errlen);

/* The process running a leased job (only while owner holds it). */
int st_queue_set_pid(struct st_db *db, int64_t id, const char *owner, long pid, char *err, size_t errlen);

/* Renew every lease owner holds to now + lease_s. *n: how many it holds. */
int st_queue_heartbeat(struct st_db *db, const char *owner, double now, double lease_s, int *n, char *err, size_t errlen);

/* The step a running job is in (JSON path) and how many of its steps are done. */
int st_queue_progress(struct st_db *db, int64_t id, const char *owner, const char *step, int done, int total,
                      char *err, size_t errlen);

enum st_queue_outcome {
    ST_QUEUE_DONE,       /* every step succeeded */
    ST_QUEUE_FAILED,     /* error (and error_step) kept; re-queued after backoff_s * 2^(failures-1)
                          * (at most an hour) while failures <= max_retries, else 'failed' */
    ST_QUEUE_REQUEUE,    /* stopped, not failed (the daemon drains): queued again, due now */
};

/* End owner's lease of job id with an outcome. state (16 bytes, may be NULL) receives the job's
 * state afterwards; a job no longer running under owner (cancelled, or re-queued after its lease
 * expired) is left as it is, and state says what it is. error (may be NULL) is kept as the
 * row's error (with error_step) for FAILED, for REQUEUE (how a stopped process ended, e.g.
 * killed after the grace period), and on a job owner held that was cancelled meanwhile (its
 * lease is then released). */
int st_queue_finish(struct st_db *db, int64_t id, const char *owner, enum st_queue_outcome outcome, const char *error,
                    const char *error_step, double now, double backoff_s, char *state, char *err, size_t errlen);

/* Cancel a queued or running job: 'cancelled' at once (a running job's daemon sees it at its next
 * heartbeat and stops the job's process). SP_EUSAGE with err when there is no such job, or it
 * is done, failed or cancelled already. prev (16 bytes, may be NULL): the state it was in. */
int st_queue_cancel(struct st_db *db, int64_t id, double now, char *prev, char *err, size_t errlen);

/* Put running jobs back in the queue (due now, lease cleared): those of owner when owner is not
 * NULL (a daemon that is gone, or draining), else those whose lease expired before now. *n: how many. */
int st_queue_requeue(struct st_db *db, const char *owner, double now, int *n, char *err, size_t errlen);

/* One job; *found = 0 when there is none with that id. */
int st_queue_get(struct st_db *db, int64_t id, struct st_queue_job *j, int *found, char *err, size_t errlen);

/* Every job in id order (state: only those in that state, NULL all); fn returns non-zero to stop.
 * The text is not read (j->text NULL) unless with_text. */
int st_queue_each(struct st_db *db, const char *state, int with_text, int (*fn)(void *arg, const struct st_queue_job *j),
                  void *arg, char *err, size_t errlen);

/* For the daemon's job processes: keep db's -wal and -shm files when this connection is the last
 * to close (SQLITE_FCNTL_PERSIST_WAL), so the next job on the same store does not make them
 * again (creating and deleting two files cost a third of a trivial job). */
void st_keep_wal_files(struct st_db *db);

#endif
