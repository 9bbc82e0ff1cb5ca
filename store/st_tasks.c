/* store/st_tasks.c — write probing tasks with their items in one transaction; read items back. */
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "store/st_int.h"
#include "store/st_tasks.h"

int st_task_id(struct st_db *db, const char *name, int64_t *id, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    *id = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT task_id FROM task WHERE name = ?", -1, &q, NULL) != SQLITE_OK)
        return st_sqlerr(db, "task lookup", err, errlen);
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW) *id = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    if (r != SQLITE_ROW && r != SQLITE_DONE) return st_sqlerr(db, "task lookup", err, errlen);
    return SP_OK;
}

/* One task and its items, inside the caller's transaction. */
static int put_one(struct st_db *db, const struct st_task_put *p, int replace, char *err, size_t errlen)
{
    const struct st_task_info *t = &p->info;
    sqlite3_stmt *q = NULL;
    int64_t old = 0;
    int rc = st_task_id(db, t->name, &old, err, errlen);
    if (rc == SP_OK && old) {
        if (!replace) {
            snprintf(err, errlen, "%s: task '%s' already exists", db->path, t->name);
            rc = SP_EEXIST;
        } else {
            /* items first: the foreign-key cascade may be off on this connection */
            char sql[128];
            snprintf(sql, sizeof sql, "DELETE FROM task_item WHERE task_id = %lld; DELETE FROM task WHERE task_id = %lld",
                     (long long)old, (long long)old);
            if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK) rc = st_sqlerr(db, "replace task", err, errlen);
        }
    }
    int64_t tid = 0;
    if (rc == SP_OK) {
        if (sqlite3_prepare_v2(db->h, "INSERT INTO task (name, corpus_id, kind, seed, params, job_step_id) VALUES (?,?,?,?,?,?)",
                               -1, &q, NULL) != SQLITE_OK) {
            rc = st_sqlerr(db, "insert task", err, errlen);
        } else {
            sqlite3_bind_text(q, 1, t->name, -1, SQLITE_STATIC);
            if (t->corpus_id) sqlite3_bind_int64(q, 2, t->corpus_id); else sqlite3_bind_null(q, 2);
            sqlite3_bind_text(q, 3, t->kind, -1, SQLITE_STATIC);
            if (t->has_seed) sqlite3_bind_int64(q, 4, t->seed); else sqlite3_bind_null(q, 4);
            sqlite3_bind_text(q, 5, t->params ? t->params : "{}", -1, SQLITE_STATIC);
            if (db->job_step) sqlite3_bind_int64(q, 6, db->job_step); else sqlite3_bind_null(q, 6);
            if (sqlite3_step(q) != SQLITE_DONE) rc = st_sqlerr(db, "insert task", err, errlen);
            tid = sqlite3_last_insert_rowid(db->h);
            sqlite3_finalize(q);
            q = NULL;
        }
    }
    if (rc == SP_OK) {
        if (sqlite3_prepare_v2(db->h, "INSERT INTO task_item (task_id, ordinal, split, label, text, sentence_id, extra)"
                               " VALUES (?,?,?,?,?,?,?)", -1, &q, NULL) != SQLITE_OK)
            rc = st_sqlerr(db, "insert task item", err, errlen);
        for (int i = 0; rc == SP_OK && i < p->n_items; i++) {
            const struct st_task_item *it = &p->items[i];
            sqlite3_reset(q);
            sqlite3_bind_int64(q, 1, tid);
            sqlite3_bind_int(q, 2, i + 1);
            sqlite3_bind_text(q, 3, it->split, -1, SQLITE_STATIC);
            sqlite3_bind_text(q, 4, it->label, -1, SQLITE_STATIC);
            sqlite3_bind_text(q, 5, it->text, -1, SQLITE_STATIC);
            if (it->sentence_id) sqlite3_bind_int64(q, 6, it->sentence_id); else sqlite3_bind_null(q, 6);
            if (it->extra) sqlite3_bind_text(q, 7, it->extra, -1, SQLITE_STATIC); else sqlite3_bind_null(q, 7);
            if (sqlite3_step(q) != SQLITE_DONE) rc = st_sqlerr(db, "insert task item", err, errlen);
        }
        sqlite3_finalize(q);
    }
    return rc;
}

int st_tasks_put(struct st_db *db, const struct st_task_put *tasks, int n, int replace, char *err, size_t errlen)
{
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    int rc = SP_OK;
    for (int i = 0; rc == SP_OK && i < n; i++) rc = put_one(db, &tasks[i], replace, err, errlen);
    if (rc == SP_OK) rc = st_job_step_rows_written(db, err, errlen);
    if (rc == SP_OK && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = st_sqlerr(db, "commit", err, errlen);
    if (rc != SP_OK) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int st_task_items(struct st_db *db, const char *name, char **params,
                  int (*fn)(void *ctx, const struct st_task_item *it), void *ctx, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    if (params) *params = NULL;
    if (sqlite3_prepare_v2(db->h, "SELECT task_id, params FROM task WHERE name = ?", -1, &q, NULL) != SQLITE_OK)
        return st_sqlerr(db, "task lookup", err, errlen);
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    int r = sqlite3_step(q);
    if (r != SQLITE_ROW) {
        sqlite3_finalize(q);
        if (r != SQLITE_DONE) return st_sqlerr(db, "task lookup", err, errlen);
        snprintf(err, errlen, "%s: no task '%s'", db->path, name);
        return SP_EPARSE;
    }
    int64_t tid = sqlite3_column_int64(q, 0);
    if (params) *params = sp_xstrdup((const char *)sqlite3_column_text(q, 1));
    sqlite3_finalize(q);
    if (!fn) return SP_OK;
    if (sqlite3_prepare_v2(db->h, "SELECT split, label, text, sentence_id, extra FROM task_item"
                           " WHERE task_id = ? ORDER BY ordinal", -1, &q, NULL) != SQLITE_OK)
        return st_sqlerr(db, "task items", err, errlen);
    sqlite3_bind_int64(q, 1, tid);
    int rc = SP_OK;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        struct st_task_item it = {
            .split = (const char *)sqlite3_column_text(q, 0),
            .label = (const char *)sqlite3_column_text(q, 1),
            .text = (const char *)sqlite3_column_text(q, 2),
            .sentence_id = sqlite3_column_int64(q, 3),
            .extra = (const char *)sqlite3_column_text(q, 4),
        };
        if ((rc = fn(ctx, &it)) != 0) break;
    }
    if (rc == SP_OK && r != SQLITE_DONE) rc = st_sqlerr(db, "task items", err, errlen);
    sqlite3_finalize(q);
    return rc;
}
