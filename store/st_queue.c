/* store/st_queue.c — the job queue table (store/st_queue.h, schemas/migrations/008-job-queue.sql).
 *
 * Each function that changes who runs a job is one BEGIN IMMEDIATE transaction: SQLite's write
 * lock orders two daemons' leases, and the conditions in the WHERE clauses (state = 'running'
 * AND lease_owner = ?) make a late finish from a daemon that lost its lease a no-op. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/st_queue.h"
#include "store/st_int.h"

void st_queue_job_free(struct st_queue_job *j)
{
    if (!j) return;
    free(j->path);
    free(j->text);
    j->path = j->text = NULL;
}

static void col_text(sqlite3_stmt *q, int i, char *out, size_t n)
{
    const unsigned char *t = sqlite3_column_text(q, i);
    snprintf(out, n, "%s", t ? (const char *)t : "");
}

static char *col_dup(sqlite3_stmt *q, int i)
{
    const unsigned char *t = sqlite3_column_text(q, i);
    return t ? sp_xstrdup((const char *)t) : NULL;
}

#define JOB_COLS "job_id, path, sha256, state, step, steps_done, steps_total, submitted_at, started_at, finished_at, " \
                 "error, error_step, attempts, failures, max_retries, next_attempt, lease_owner, lease_expiry, heartbeat, pid"

/* a row selected with JOB_COLS (then text, when asked) into j */
static void read_job(sqlite3_stmt *q, struct st_queue_job *j, int with_text)
{
    memset(j, 0, sizeof *j);
    j->id = sqlite3_column_int64(q, 0);
    j->path = col_dup(q, 1);
    col_text(q, 2, j->sha256, sizeof j->sha256);
    col_text(q, 3, j->state, sizeof j->state);
    col_text(q, 4, j->step, sizeof j->step);
    j->steps_done = sqlite3_column_int(q, 5);
    j->steps_total = sqlite3_column_int(q, 6);
    j->submitted_at = sqlite3_column_double(q, 7);
    j->started_at = sqlite3_column_double(q, 8);
    j->finished_at = sqlite3_column_double(q, 9);
    col_text(q, 10, j->error, sizeof j->error);
    col_text(q, 11, j->error_step, sizeof j->error_step);
    j->attempts = sqlite3_column_int(q, 12);
    j->failures = sqlite3_column_int(q, 13);
    j->max_retries = sqlite3_column_int(q, 14);
    j->next_attempt = sqlite3_column_double(q, 15);
    col_text(q, 16, j->owner, sizeof j->owner);
    j->lease_expiry = sqlite3_column_double(q, 17);
    j->heartbeat = sqlite3_column_double(q, 18);
    j->pid = (long)sqlite3_column_int64(q, 19);
    if (with_text) j->text = col_dup(q, 20);
}

static int prep(struct st_db *db, const char *sql, sqlite3_stmt **q, char *err, size_t errlen)
{
    if (sqlite3_prepare_v2(db->h, sql, -1, q, NULL) == SQLITE_OK) return SP_OK;
    *q = NULL;
    return st_sqlerr(db, "job queue", err, errlen);
}

/* step a write statement to its end; SP_OK or the SQLite error */
static int run_write(struct st_db *db, sqlite3_stmt *q, char *err, size_t errlen)
{
    int r = sqlite3_step(q);
    int rc = r == SQLITE_DONE ? SP_OK : st_sqlerr(db, "job queue", err, errlen);
    sqlite3_finalize(q);
    return rc;
}

static int commit(struct st_db *db, int rc, char *err, size_t errlen)
{
    if (rc == SP_OK && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = st_sqlerr(db, "commit", err, errlen);
    if (rc != SP_OK) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int st_queue_submit(struct st_db *db, const char *path, const char *text, int max_retries, double now, int64_t *id,
                    char *err, size_t errlen)
{
    struct sp_sha256 h;
    char hex[65];
    sp_sha256_init(&h);
    sp_sha256_update(&h, text, strlen(text));
    sp_sha256_hex(&h, hex);
    sqlite3_stmt *q;
    *id = 0;
    if (st_no_read_open(db, err, errlen) ||
        prep(db, "INSERT INTO queue_job (path, text, sha256, max_retries, submitted_at, next_attempt) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
             &q, err, errlen))
        return SP_ESTORE;
    sqlite3_bind_text(q, 1, path, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, text, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, hex, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 4, max_retries);
    sqlite3_bind_double(q, 5, now);
    int rc = run_write(db, q, err, errlen);
    if (rc == SP_OK) *id = sqlite3_last_insert_rowid(db->h);
    return rc;
}

int st_queue_lease(struct st_db *db, const char *owner, double now, double lease_s, struct st_queue_job *j, int *got,
                   char *err, size_t errlen)
{
    *got = 0;
    /* a read first: an idle daemon looks often, and should not take the write lock to find nothing */
    sqlite3_stmt *q;
    if (prep(db, "SELECT 1 FROM queue_job WHERE state = 'queued' AND next_attempt <= ?1 LIMIT 1", &q, err, errlen)) return SP_ESTORE;
    sqlite3_bind_double(q, 1, now);
    int r0 = sqlite3_step(q);
    sqlite3_finalize(q);
    if (r0 == SQLITE_DONE) return SP_OK;
    if (r0 != SQLITE_ROW) return st_sqlerr(db, "leasing a job", err, errlen);
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    int rc = prep(db, "UPDATE queue_job SET state = 'running', lease_owner = ?1, lease_expiry = ?2 + ?3, heartbeat = ?2,"
                      " started_at = ?2, finished_at = NULL, attempts = attempts + 1, pid = NULL, step = NULL, steps_done = 0"
                      " WHERE job_id = (SELECT job_id FROM queue_job WHERE state = 'queued' AND next_attempt <= ?2"
                      " ORDER BY job_id LIMIT 1)"
                      " RETURNING " JOB_COLS ", text", &q, err, errlen);
    if (rc == SP_OK) {
        sqlite3_bind_text(q, 1, owner, -1, SQLITE_STATIC);
        sqlite3_bind_double(q, 2, now);
        sqlite3_bind_double(q, 3, lease_s);
        int r = sqlite3_step(q);
        if (r == SQLITE_ROW) {
            read_job(q, j, 1);
            *got = 1;
            r = sqlite3_step(q);
        }
        if (r != SQLITE_DONE) rc = st_sqlerr(db, "leasing a job", err, errlen);
        sqlite3_finalize(q);
    }
    rc = commit(db, rc, err, errlen);
    if (rc && *got) { st_queue_job_free(j); *got = 0; }
    return rc;
}

int st_queue_set_pid(struct st_db *db, int64_t id, const char *owner, long pid, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (prep(db, "UPDATE queue_job SET pid = ?3 WHERE job_id = ?1 AND lease_owner = ?2 AND state = 'running'", &q, err, errlen))
        return SP_ESTORE;
    sqlite3_bind_int64(q, 1, id);
    sqlite3_bind_text(q, 2, owner, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 3, pid);
    return run_write(db, q, err, errlen);
}

int st_queue_heartbeat(struct st_db *db, const char *owner, double now, double lease_s, int *n, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    *n = 0;
    if (prep(db, "UPDATE queue_job SET lease_expiry = ?2 + ?3, heartbeat = ?2 WHERE lease_owner = ?1 AND state = 'running'",
             &q, err, errlen))
        return SP_ESTORE;
    sqlite3_bind_text(q, 1, owner, -1, SQLITE_STATIC);
    sqlite3_bind_double(q, 2, now);
    sqlite3_bind_double(q, 3, lease_s);
    int rc = run_write(db, q, err, errlen);
    if (rc == SP_OK) *n = sqlite3_changes(db->h);
    return rc;
}

int st_queue_progress(struct st_db *db, int64_t id, const char *owner, const char *step, int done, int total,
                      char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (prep(db, "UPDATE queue_job SET step = ?3, steps_done = ?4, steps_total = ?5"
                 " WHERE job_id = ?1 AND lease_owner = ?2 AND state = 'running'", &q, err, errlen))
        return SP_ESTORE;
    sqlite3_bind_int64(q, 1, id);
    sqlite3_bind_text(q, 2, owner, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, step, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 4, done);
    sqlite3_bind_int(q, 5, total);
    return run_write(db, q, err, errlen);
}

static int state_of(struct st_db *db, int64_t id, char *state, size_t n, int *found, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    *found = 0;
    if (prep(db, "SELECT state FROM queue_job WHERE job_id = ?1", &q, err, errlen)) return SP_ESTORE;
    sqlite3_bind_int64(q, 1, id);
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW) { *found = 1; col_text(q, 0, state, n); }
    sqlite3_finalize(q);
    return r == SQLITE_ROW || r == SQLITE_DONE ? SP_OK : st_sqlerr(db, "job queue", err, errlen);
}

int st_queue_finish(struct st_db *db, int64_t id, const char *owner, enum st_queue_outcome outcome, const char *error,
                    const char *error_step, double now, double backoff_s, char *state, char *err, size_t errlen)
{
    static const char *const sql[] = {
        [ST_QUEUE_DONE] = "UPDATE queue_job SET state = 'done', finished_at = ?3, steps_done = steps_total,"
                          " lease_owner = NULL, lease_expiry = NULL, pid = NULL",
        /* failures + 1 is the count after this one: re-queued while it is <= max_retries */
        [ST_QUEUE_FAILED] = "UPDATE queue_job SET failures = failures + 1, error = ?4, error_step = ?5,"
                            " state = CASE WHEN failures + 1 <= max_retries THEN 'queued' ELSE 'failed' END,"
                            " finished_at = CASE WHEN failures + 1 <= max_retries THEN NULL ELSE ?3 END,"
                            " next_attempt = ?3 + min(3600.0, ?6 * (1 << min(failures, 20))),"
                            " lease_owner = NULL, lease_expiry = NULL, pid = NULL",
        [ST_QUEUE_REQUEUE] = "UPDATE queue_job SET state = 'queued', next_attempt = ?3, lease_owner = NULL,"
                             " lease_expiry = NULL, pid = NULL, error = coalesce(?4, error),"
                             " error_step = CASE WHEN ?4 IS NULL THEN error_step ELSE ?5 END",
    };
    char full[800];
    snprintf(full, sizeof full, "%s WHERE job_id = ?1 AND lease_owner = ?2 AND state = 'running'", sql[outcome]);
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    sqlite3_stmt *q;
    int rc = prep(db, full, &q, err, errlen);
    if (rc == SP_OK) {
        sqlite3_bind_int64(q, 1, id);
        sqlite3_bind_text(q, 2, owner, -1, SQLITE_STATIC);
        sqlite3_bind_double(q, 3, now);
        if (outcome == ST_QUEUE_REQUEUE && error) {
            sqlite3_bind_text(q, 4, error, -1, SQLITE_STATIC);
            if (error_step && *error_step) sqlite3_bind_text(q, 5, error_step, -1, SQLITE_STATIC);
        }
        if (outcome == ST_QUEUE_FAILED) {
            sqlite3_bind_text(q, 4, error ? error : "", -1, SQLITE_STATIC);
            if (error_step && *error_step) sqlite3_bind_text(q, 5, error_step, -1, SQLITE_STATIC);
            else sqlite3_bind_null(q, 5);
            sqlite3_bind_double(q, 6, backoff_s);
        }
        rc = run_write(db, q, err, errlen);
    }
    if (rc == SP_OK && error && outcome != ST_QUEUE_DONE) {
        /* a job cancelled while it ran stays cancelled; its row keeps how its process ended */
        rc = prep(db, "UPDATE queue_job SET error = ?3, error_step = ?4, lease_owner = NULL, lease_expiry = NULL, pid = NULL"
                      " WHERE job_id = ?1 AND lease_owner = ?2 AND state = 'cancelled'", &q, err, errlen);
        if (rc == SP_OK) {
            sqlite3_bind_int64(q, 1, id);
            sqlite3_bind_text(q, 2, owner, -1, SQLITE_STATIC);
            sqlite3_bind_text(q, 3, error, -1, SQLITE_STATIC);
            if (error_step && *error_step) sqlite3_bind_text(q, 4, error_step, -1, SQLITE_STATIC);
            rc = run_write(db, q, err, errlen);
        }
    }
    int found = 0;
    char st[16] = "";
    if (rc == SP_OK) rc = state_of(db, id, st, sizeof st, &found, err, errlen);
    if (state) snprintf(state, 16, "%s", st);
    return commit(db, rc, err, errlen);
}

int st_queue_cancel(struct st_db *db, int64_t id, double now, char *prev, char *err, size_t errlen)
{
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    int found = 0;
    char st[16] = "";
    int rc = state_of(db, id, st, sizeof st, &found, err, errlen);
    if (prev) snprintf(prev, 16, "%s", st);
    if (rc == SP_OK && !found) {
        snprintf(err, errlen, "%s: no job %lld in the queue", db->path, (long long)id);
        rc = SP_EUSAGE;
    } else if (rc == SP_OK && strcmp(st, "queued") && strcmp(st, "running")) {
        snprintf(err, errlen, "%s: job %lld is %s already; only a queued or running job can be cancelled", db->path,
                 (long long)id, st);
        rc = SP_EUSAGE;
    } else if (rc == SP_OK) {
        /* the lease stays with a running job: its daemon finds it cancelled and stops the process */
        sqlite3_stmt *q;
        rc = prep(db, "UPDATE queue_job SET state = 'cancelled', finished_at = ?2 WHERE job_id = ?1", &q, err, errlen);
        if (rc == SP_OK) {
            sqlite3_bind_int64(q, 1, id);
            sqlite3_bind_double(q, 2, now);
            rc = run_write(db, q, err, errlen);
        }
    }
    return commit(db, rc, err, errlen);
}

int st_queue_requeue(struct st_db *db, const char *owner, double now, int *n, char *err, size_t errlen)
{
    *n = 0;
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    sqlite3_stmt *q;
    int rc = prep(db, owner ? "UPDATE queue_job SET state = 'queued', next_attempt = ?2, lease_owner = NULL, lease_expiry = NULL,"
                              " pid = NULL WHERE state = 'running' AND lease_owner = ?1"
                            : "UPDATE queue_job SET state = 'queued', next_attempt = ?2, lease_owner = NULL, lease_expiry = NULL,"
                              " pid = NULL WHERE state = 'running' AND lease_expiry < ?2",
                  &q, err, errlen);
    if (rc == SP_OK) {
        if (owner) sqlite3_bind_text(q, 1, owner, -1, SQLITE_STATIC);
        sqlite3_bind_double(q, 2, now);
        rc = run_write(db, q, err, errlen);
        if (rc == SP_OK) *n = sqlite3_changes(db->h);
    }
    return commit(db, rc, err, errlen);
}

int st_queue_get(struct st_db *db, int64_t id, struct st_queue_job *j, int *found, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    *found = 0;
    if (prep(db, "SELECT " JOB_COLS ", text FROM queue_job WHERE job_id = ?1", &q, err, errlen)) return SP_ESTORE;
    sqlite3_bind_int64(q, 1, id);
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW) { read_job(q, j, 1); *found = 1; }
    sqlite3_finalize(q);
    return r == SQLITE_ROW || r == SQLITE_DONE ? SP_OK : st_sqlerr(db, "job queue", err, errlen);
}

int st_queue_each(struct st_db *db, const char *state, int with_text, int (*fn)(void *arg, const struct st_queue_job *j),
                  void *arg, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (prep(db, with_text ? "SELECT " JOB_COLS ", text FROM queue_job WHERE ?1 IS NULL OR state = ?1 ORDER BY job_id"
                           : "SELECT " JOB_COLS " FROM queue_job WHERE ?1 IS NULL OR state = ?1 ORDER BY job_id",
             &q, err, errlen))
        return SP_ESTORE;
    if (state) sqlite3_bind_text(q, 1, state, -1, SQLITE_STATIC);
    int r, stop = 0;
    while (!stop && (r = sqlite3_step(q)) == SQLITE_ROW) {
        struct st_queue_job j;
        read_job(q, &j, with_text);
        stop = fn(arg, &j);
        st_queue_job_free(&j);
    }
    int rc = stop || r == SQLITE_DONE ? SP_OK : st_sqlerr(db, "job queue", err, errlen);
    sqlite3_finalize(q);
    return rc;
}

void st_keep_wal_files(struct st_db *db)
{
    int on = 1;
    sqlite3_file_control(db->h, "main", SQLITE_FCNTL_PERSIST_WAL, &on);
}
