/* store/st_jobs.c — the job ledger table (schemas/migrations/006-job-steps.sql). */
#include <sqlite3.h>
#include <stdio.h>

#include "common/sp.h"
#include "store/jobs.h"
#include "store/st_int.h"

int st_job_step_done(struct st_db *db, const char *command, int *done, char *summary, size_t summary_len,
                     char *err, size_t errlen)
{
    sqlite3_stmt *q;
    *done = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT summary FROM job_step WHERE command = ?1", -1, &q, NULL) != SQLITE_OK)
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

int st_job_step_mark(struct st_db *db, const char *command, const char *summary, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    static const char *const sql =
        "INSERT INTO job_step (command, summary) VALUES (?1, ?2)"
        " ON CONFLICT (command) DO UPDATE SET summary = excluded.summary, finished_at = excluded.finished_at";
    if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, "job ledger", err, errlen);
    sqlite3_bind_text(q, 1, command, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(q, 2, summary ? summary : "", -1, SQLITE_TRANSIENT);
    int r = sqlite3_step(q);
    sqlite3_finalize(q);
    return r == SQLITE_DONE ? SP_OK : st_sqlerr(db, "job ledger", err, errlen);
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
