/* store/st_results.c — probe_result and tree_eval rows: batched inserts in one transaction,
 * filtered listing (see results.h). */
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "store/st_results.h"
#include "store/st_int.h"

/* run id by name; 0 in *id (and SP_EPARSE) when absent */
static int run_id(struct st_db *db, const char *name, int64_t *id, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    *id = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT run_id FROM run WHERE name = ?", -1, &q, NULL) != SQLITE_OK)
        return st_sqlerr(db, "run lookup", err, errlen);
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW) *id = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    if (r != SQLITE_ROW && r != SQLITE_DONE) return st_sqlerr(db, "run lookup", err, errlen);
    if (!*id) {
        snprintf(err, errlen, "%s: no run '%s'", db->path, name);
        return SP_EPARSE;
    }
    return SP_OK;
}

static void bind_opt_id(sqlite3_stmt *q, int i, int64_t v)
{
    if (v) sqlite3_bind_int64(q, i, v); else sqlite3_bind_null(q, i);
}

/* The rows of one put share a transaction: BEGIN IMMEDIATE takes the write lock up front, so
 * a concurrent writer waits (busy_timeout) instead of failing half-way. */
static int begin(struct st_db *db, char *err, size_t errlen)
{
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    return SP_OK;
}

static int finish(struct st_db *db, int rc, char *err, size_t errlen)
{
    if (rc == SP_OK) rc = st_job_step_rows_written(db, err, errlen);
    if (rc == SP_OK && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = st_sqlerr(db, "commit", err, errlen);
    if (rc != SP_OK) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int st_probe_results_put(struct st_db *db, const struct st_probe_result *r, int n, int64_t *ids,
                         char *err, size_t errlen)
{
    int rc = begin(db, err, errlen);
    if (rc != SP_OK) return rc;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db->h, "INSERT INTO probe_result (run_id, task_id, task_name, classifier, seed, dev_acc,"
                           " test_acc, result, job_step_id) VALUES (?,?,?,?,?,?,?,?,?)", -1, &q, NULL) != SQLITE_OK)
        rc = st_sqlerr(db, "insert probe result", err, errlen);
    for (int i = 0; rc == SP_OK && i < n; i++) {
        const struct st_probe_result *x = &r[i];
        int64_t rid = 0;
        if (x->run && (rc = run_id(db, x->run, &rid, err, errlen)) != SP_OK) break;
        sqlite3_reset(q);
        bind_opt_id(q, 1, rid);
        bind_opt_id(q, 2, x->task_id);
        sqlite3_bind_text(q, 3, x->task_name, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, x->classifier, -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 5, x->seed);
        if (x->has_dev) sqlite3_bind_double(q, 6, x->dev_acc); else sqlite3_bind_null(q, 6);
        if (x->has_test) sqlite3_bind_double(q, 7, x->test_acc); else sqlite3_bind_null(q, 7);
        sqlite3_bind_text(q, 8, x->result, -1, SQLITE_STATIC);
        bind_opt_id(q, 9, db->job_step);
        if (sqlite3_step(q) != SQLITE_DONE) { rc = st_sqlerr(db, "insert probe result", err, errlen); break; }
        if (ids) ids[i] = sqlite3_last_insert_rowid(db->h);
    }
    sqlite3_finalize(q);
    return finish(db, rc, err, errlen);
}

int st_tree_evals_put(struct st_db *db, const struct st_tree_eval *e, int n, int64_t *ids,
                      char *err, size_t errlen)
{
    int rc = begin(db, err, errlen);
    if (rc != SP_OK) return rc;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db->h, "INSERT INTO tree_eval (run_id, corpus_id, method, result, job_step_id) VALUES (?,?,?,?,?)",
                           -1, &q, NULL) != SQLITE_OK)
        rc = st_sqlerr(db, "insert tree evaluation", err, errlen);
    for (int i = 0; rc == SP_OK && i < n; i++) {
        const struct st_tree_eval *x = &e[i];
        int64_t rid = 0;
        if (x->run && (rc = run_id(db, x->run, &rid, err, errlen)) != SP_OK) break;
        sqlite3_reset(q);
        bind_opt_id(q, 1, rid);
        bind_opt_id(q, 2, x->corpus_id);
        sqlite3_bind_text(q, 3, x->method, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, x->result, -1, SQLITE_STATIC);
        bind_opt_id(q, 5, db->job_step);
        if (sqlite3_step(q) != SQLITE_DONE) { rc = st_sqlerr(db, "insert tree evaluation", err, errlen); break; }
        if (ids) ids[i] = sqlite3_last_insert_rowid(db->h);
    }
    sqlite3_finalize(q);
    return finish(db, rc, err, errlen);
}

static void bind_opt_text(sqlite3_stmt *q, int i, const char *s)
{
    if (s) sqlite3_bind_text(q, i, s, -1, SQLITE_STATIC); else sqlite3_bind_null(q, i);
}

static const char *col_text(sqlite3_stmt *q, int i)
{
    return sqlite3_column_type(q, i) == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(q, i);
}

int st_probe_results_each(struct st_db *db, const struct st_result_filter *f,
                          int (*fn)(void *ctx, const struct st_probe_row *r), void *ctx,
                          char *err, size_t errlen)
{
    static const struct st_result_filter none = { 0 };
    if (!f) f = &none;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db->h,
            "SELECT p.result_id, r.name, p.task_name, p.classifier, p.seed, p.dev_acc, p.test_acc, p.result, p.created"
            " FROM probe_result p LEFT JOIN run r ON r.run_id = p.run_id"
            " WHERE (?1 IS NULL OR r.name = ?1) AND (?2 IS NULL OR p.task_name = ?2) AND (?3 IS NULL OR p.classifier = ?3)"
            " ORDER BY p.result_id", -1, &q, NULL) != SQLITE_OK)
        return st_sqlerr(db, "list probe results", err, errlen);
    bind_opt_text(q, 1, f->run);
    bind_opt_text(q, 2, f->task);
    bind_opt_text(q, 3, f->classifier);
    int r, rc = SP_OK;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        struct st_probe_row row = {
            .id = sqlite3_column_int64(q, 0),
            .run = col_text(q, 1),
            .task_name = col_text(q, 2),
            .classifier = col_text(q, 3),
            .seed = sqlite3_column_int64(q, 4),
            .has_dev = sqlite3_column_type(q, 5) != SQLITE_NULL,
            .dev_acc = sqlite3_column_double(q, 5),
            .has_test = sqlite3_column_type(q, 6) != SQLITE_NULL,
            .test_acc = sqlite3_column_double(q, 6),
            .result = col_text(q, 7),
            .created = col_text(q, 8),
        };
        if ((rc = fn(ctx, &row)) != 0) break;
    }
    if (rc == SP_OK && r != SQLITE_DONE) rc = st_sqlerr(db, "list probe results", err, errlen);
    sqlite3_finalize(q);
    return rc;
}

int st_tree_evals_each(struct st_db *db, const struct st_result_filter *f,
                       int (*fn)(void *ctx, const struct st_tree_row *r), void *ctx,
                       char *err, size_t errlen)
{
    static const struct st_result_filter none = { 0 };
    if (!f) f = &none;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db->h,
            "SELECT e.eval_id, r.name, c.name, e.method, e.result, e.created"
            " FROM tree_eval e LEFT JOIN run r ON r.run_id = e.run_id LEFT JOIN corpus c ON c.corpus_id = e.corpus_id"
            " WHERE (?1 IS NULL OR r.name = ?1) AND (?2 IS NULL OR e.method = ?2) AND (?3 IS NULL OR c.name = ?3)"
            " ORDER BY e.eval_id", -1, &q, NULL) != SQLITE_OK)
        return st_sqlerr(db, "list tree evaluations", err, errlen);
    bind_opt_text(q, 1, f->run);
    bind_opt_text(q, 2, f->method);
    bind_opt_text(q, 3, f->corpus);
    int r, rc = SP_OK;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        struct st_tree_row row = {
            .id = sqlite3_column_int64(q, 0),
            .run = col_text(q, 1),
            .corpus = col_text(q, 2),
            .method = col_text(q, 3),
            .result = col_text(q, 4),
            .created = col_text(q, 5),
        };
        if ((rc = fn(ctx, &row)) != 0) break;
    }
    if (rc == SP_OK && r != SQLITE_DONE) rc = st_sqlerr(db, "list tree evaluations", err, errlen);
    sqlite3_finalize(q);
    return rc;
}

int st_result_task_meta(struct st_db *db, const char *name, struct st_task_meta *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(db->h, "SELECT task_id, kind, seed, params FROM task WHERE name = ?", -1, &q, NULL) != SQLITE_OK)
        return st_sqlerr(db, "task lookup", err, errlen);
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW) {
        m->id = sqlite3_column_int64(q, 0);
        snprintf(m->kind, sizeof m->kind, "%s", (const char *)sqlite3_column_text(q, 1));
        m->has_seed = sqlite3_column_type(q, 2) != SQLITE_NULL;
        m->seed = sqlite3_column_int64(q, 2);
        m->params = sp_xstrdup((const char *)sqlite3_column_text(q, 3));
    }
    sqlite3_finalize(q);
    if (r == SQLITE_DONE) {
        snprintf(err, errlen, "%s: no task '%s'", db->path, name);
        return SP_EPARSE;
    }
    if (r != SQLITE_ROW) return st_sqlerr(db, "task lookup", err, errlen);
    return SP_OK;
}
