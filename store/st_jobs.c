/* store/st_jobs.c — the job ledger table (schemas/migrations/006-job-steps.sql). */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "common/sp.h"
#include "store/st_jobs.h"
#include "store/st_int.h"

void st_set_job_step(struct st_db *db, int64_t step_id) { db->job_step = step_id; }

int st_job_step_rows_written(struct st_db *db, char *err, size_t errlen)
{
    if (!db->job_step) return SP_OK;
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE job_step SET state = 'done' WHERE step_id = %lld AND state = 'started'",
             (long long)db->job_step);
    if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK) return st_sqlerr(db, "job ledger", err, errlen);
    if (sqlite3_changes(db->h) != 1) {
        snprintf(err, errlen, "%s: internal error: job step %lld wrote its rows in two transactions, or was not begun",
                 db->path, (long long)db->job_step);
        return SP_ESTORE;
    }
    return SP_OK;
}

int st_job_step_begin(struct st_db *db, const char *command, int64_t *step_id, int *done, char *summary,
                      size_t summary_len, char *err, size_t errlen)
{
    *step_id = 0;
    *done = 0;
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    sqlite3_stmt *q;
    int rc = SP_OK;
    if (sqlite3_prepare_v2(db->h, "SELECT step_id, state, summary FROM job_step WHERE command = ?1", -1, &q, NULL) != SQLITE_OK) {
        rc = st_sqlerr(db, "job ledger", err, errlen);
    } else {
        sqlite3_bind_text(q, 1, command, -1, SQLITE_TRANSIENT);
        int r = sqlite3_step(q);
        if (r == SQLITE_ROW) {
            *step_id = sqlite3_column_int64(q, 0);
            *done = strcmp((const char *)sqlite3_column_text(q, 1), "done") == 0;
            if (*done && summary && summary_len)
                snprintf(summary, summary_len, "%s", (const char *)sqlite3_column_text(q, 2));
        } else if (r != SQLITE_DONE) {
            rc = st_sqlerr(db, "job ledger", err, errlen);
        }
        sqlite3_finalize(q);
    }
    if (rc == SP_OK && !*step_id) {
        if (sqlite3_prepare_v2(db->h, "INSERT INTO job_step (command, summary, state) VALUES (?1, '', 'started')", -1, &q,
                               NULL) != SQLITE_OK) {
            rc = st_sqlerr(db, "job ledger", err, errlen);
        } else {
            sqlite3_bind_text(q, 1, command, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(q) != SQLITE_DONE) rc = st_sqlerr(db, "job ledger", err, errlen);
            else *step_id = sqlite3_last_insert_rowid(db->h);
            sqlite3_finalize(q);
        }
    }
    if (rc == SP_OK && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = st_sqlerr(db, "commit", err, errlen);
    if (rc != SP_OK) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int st_job_step_finish(struct st_db *db, int64_t step_id, const char *summary, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    static const char *const sql = "UPDATE job_step SET state = 'done', summary = ?2,"
                                   " finished_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE step_id = ?1";
    if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, "job ledger", err, errlen);
    sqlite3_bind_int64(q, 1, step_id);
    sqlite3_bind_text(q, 2, summary ? summary : "", -1, SQLITE_TRANSIENT);
    int r = sqlite3_step(q);
    sqlite3_finalize(q);
    if (r != SQLITE_DONE) return st_sqlerr(db, "job ledger", err, errlen);
    if (sqlite3_changes(db->h) != 1) { snprintf(err, errlen, "%s: job ledger: no step %lld", db->path, (long long)step_id); return SP_ESTORE; }
    return SP_OK;
}

int st_job_step_done(struct st_db *db, const char *command, int *done, char *summary, size_t summary_len,
                     char *err, size_t errlen)
{
    sqlite3_stmt *q;
    *done = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT summary FROM job_step WHERE command = ?1 AND state = 'done'", -1, &q, NULL) != SQLITE_OK)
        return st_sqlerr(db, "job ledger", err, errlen);
    sqlite3_bind_text(q, 1, command, -1, SQLITE_TRANSIENT);
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW) {
        *done = 1;
        if (summary && summary_len) snprintf(summary, summary_len, "%s", (const char *)sqlite3_column_text(q, 0));
    }
    sqlite3_finalize(q);
    if (r != SQLITE_ROW && r != SQLITE_DONE) return st_sqlerr(db, "job ledger", err, errlen);
    return SP_OK;
}

int st_job_step_count(struct st_db *db, long long *n, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    *n = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM job_step", -1, &q, NULL) != SQLITE_OK)
        return st_sqlerr(db, "job ledger", err, errlen);
    if (sqlite3_step(q) == SQLITE_ROW) *n = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return SP_OK;
}
