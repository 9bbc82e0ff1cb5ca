/* store/st_int.h — internals shared by the store's own files. */
#ifndef ST_INT_H
#define ST_INT_H

#include <pthread.h>

#include "store/store.h"

struct st_write_cache;

struct st_db {
    sqlite3 *h;
    char path[1024];
    struct st_db *writer;            /* ingest's own connection (st_write.c), opened on first use */
    struct st_write_cache *wcache;   /* prepared ingest statements of this connection, kept across files */
    /* frees wcache; set by st_write.c when it makes the cache, so st_close (st_open.c) frees it
     * without calling into st_write.c, which calls st_open.c: the calls go one way */
    void (*wcache_free)(struct st_db *db);
    int bulk;                        /* st_bulk_begin switched the store to a rollback journal */
    pthread_t owner;                 /* the thread that opened it, the only one allowed to open writer */
    char *snapshot_dir;              /* read-only open of a private copy (st_open.c): removed by st_close */
    int64_t job_step;                /* st_set_job_step: written into the rows of results and tasks; 0: none */
};

/* A second connection to db's store at db's schema version, for the ingest writer (st_open.c). */
int  st_open_writer(struct st_db *db, struct st_db **out, char *err, size_t errlen);

/* PRAGMA journal_mode = mode; got receives the mode in force afterwards (st_open.c) */
int st_set_journal_mode(struct st_db *db, const char *mode, char *got, size_t gotlen);

/* SP_OK, or SP_ESTORE ("internal error") when a statement of db's connection is still reading
 * outside a transaction: a write then could not wait for other writers (st_begin_write) */
int st_no_read_open(struct st_db *db, char *err, size_t errlen);

/* Inside the write transaction of a put that stores a stage's rows: with a job step set
 * (st_set_job_step), the step becomes 'done' in the same transaction, so the rows and the
 * ledger's "done" are committed together (st_jobs.c). A second put of the same step is an
 * internal error: a step's rows are written in one transaction. */
int st_job_step_rows_written(struct st_db *db, char *err, size_t errlen);

/* snprintf of SQLite's message for the connection, prefixed with what we were doing */
int st_sqlerr(struct st_db *db, const char *what, char *err, size_t errlen);

#endif
