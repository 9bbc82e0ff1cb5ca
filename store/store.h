/* store/store.h — the SQLite store: open + migrate, write ingested files, read corpora back.
 *
 * One st_db per thread (SQLite connections are not shared). Writers go through st_file_*,
 * which wraps one whole file in one transaction: a file is either fully present or absent,
 * even if the process is killed mid-way (SQLite WAL rollback). Schema: schemas/store.sql
 * plus schemas/migrations/ (embedded in the binary at build time). */
#ifndef ST_STORE_H
#define ST_STORE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "ingest/readers.h"
#include "store/blob.h"

#define ST_APPLICATION_ID 0x53507262   /* "SPrb" */

enum st_open_flags { ST_OPEN_CREATE = 1, ST_OPEN_READONLY = 2 };

struct st_db;

/* Open (and with ST_OPEN_CREATE create) a store, apply forward migrations, refuse stores
 * newer than this build or not made by synprobe. A side file SQLite would write in place
 * (PATH-wal, -shm, -journal) that is a symbolic link, not a regular file, or a file with another
 * hard link is refused first (SP_EIO naming it): writing it would overwrite another file. */
int  st_open(const char *path, unsigned flags, struct st_db **out, char *err, size_t errlen);

/* Bulk loading a store this process has just created (ingest into a new file): a rollback
 * journal instead of WAL until st_bulk_end, so the first load writes each page once. Call
 * st_bulk_begin before the first write; it leaves WAL on if another connection has the
 * store open. st_bulk_end returns the store to WAL (also fine when begin did nothing). */
int  st_bulk_begin(struct st_db *db, char *err, size_t errlen);
int  st_bulk_end(struct st_db *db, char *err, size_t errlen);
/* st_bulk_begin took effect and the first commit has not happened yet (read it before the
 * writer starts: the writer clears it). */
int  st_bulk_active(const struct st_db *db);
void st_close(struct st_db *db);
int  st_schema_version(void);
/* Once, before any store is opened: SQLite's process-wide settings (no malloc statistics: they
 * take a global mutex on every allocation, and we never read them). */
void st_library_init(void);
const char *st_sqlite_version(void);             /* the SQLite library in use, for manifests */                    /* the version this build migrates to */
/* Migrate only up to `version` (tests of the migration path). */
int  st_open_at_version(const char *path, int version, struct st_db **out, char *err, size_t errlen);

/* Run SQL with no result rows; message on failure. */
int  st_exec(struct st_db *db, const char *sql, char *err, size_t errlen);
/* BEGIN IMMEDIATE, refused (SP_ESTORE, "internal error") while a statement of this connection
 * is still reading: such a transaction could not wait for other writers (st_iter_pause), so it
 * would fail with "database is locked" only when someone else writes; refusing it always makes
 * the mistake show in every test instead. */
int  st_begin_write(struct st_db *db, char *err, size_t errlen);

/* Corpus id by name; create != 0 inserts it when missing. SP_EEXIST-free: returns SP_OK or an error. */
int  st_corpus_id(struct st_db *db, const char *name, int create, int64_t *id, char *err, size_t errlen);

/* The names of every corpus, task or run in the store, sorted (store/st_names.c): for "no such
 * task 'X'; did you mean 'Y'? the store has: ..." messages. Free with st_names_free. */
struct st_names { char **v; int n; };
int  st_corpus_names(struct st_db *db, struct st_names *out, char *err, size_t errlen);
int  st_task_names(struct st_db *db, struct st_names *out, char *err, size_t errlen);
int  st_run_names(struct st_db *db, struct st_names *out, char *err, size_t errlen);
void st_names_free(struct st_names *names);

/* The demo's example queries (store/st_examples.c; docs/sql.md), NULL-terminated; st_example_run calls
 * row(arg, n, columns as text) for each result row. */
struct st_example { const char *title, *sql; };
extern const struct st_example st_examples[];
typedef void (*st_row_fn)(void *arg, int n, const char *const *cols);
int  st_example_run(struct st_db *db, const struct st_example *ex, st_row_fn row, void *arg, char *err, size_t errlen);

/* ---- writing one ingested file ---- */

struct st_blobref { const uint8_t *p; size_t n; };

/* Structures a worker computed for one sentence (NULL / zero members = not available). */
struct st_derived {
    int has_dep;
    int root, max_depth, projective;
    struct st_blobref depth, distance, ancestors, relpos;
    int has_const;
    const char *tree;           /* normalised bracketed tree, one line */
    int tree_depth;
    const char *top_const, *top_const_class;
    int levels;
    const char *n_phrases;
    struct st_blobref phrases, spans;
};

/* n_kept: sentences an earlier version of the same file (same path stem) already stored
 * identically, at the same position: neither stored again nor counted in n_sentences. */
struct st_file_summary { int n_sentences, n_rejected, n_attached, n_kept; long n_words; };

struct st_file;

/* Has this corpus already ingested exactly these bytes? source_id (or 0) in *found. */
int  st_source_find(struct st_db *db, int64_t corpus_id, const char *sha256, int64_t *found);
/* Bytes already stored as source `found`, asked for again (as `path`) in `mode`: SP_EEXIST when
 * ingesting them in that mode would store the same (same mode; stored under --strict; stored in
 * default mode with nothing rejected), else SP_EPARSE with a message that names the mode they were
 * ingested in and how to redo them (another corpus or a new store). On SP_EEXIST, `recorded` (when
 * not NULL) gets what the first ingest of these bytes stored: sentences, rejected, words. */
int  st_source_check_mode(struct st_db *db, int64_t found, const char *path, enum sp_mode mode,
                          struct st_file_summary *recorded, char *err, size_t errlen);

/* Open the ingest writer's own connection now, from the thread that uses db; st_file_begin
 * otherwise opens it on first use, reading db's version, which from another thread would
 * use db's connection concurrently with its owner (connections are opened NOMUTEX). */
int  st_file_writer_open(struct st_db *db, char *err, size_t errlen);
/* 1 if ingest writes through a connection of its own; 0 for an in-memory store, written
 * through db's connection itself (a second connection would not see it). */
int  st_file_writer_separate(const struct st_db *db);
/* sha256 may be NULL when the bytes are still being read: set it with st_file_hash before the
 * file is committed. SP_EEXIST: these bytes are already in the corpus (nothing written). */
int  st_file_begin(struct st_db *db, int64_t corpus_id, const char *path, const char *sha256,
                   enum sp_format fmt, enum sp_mode mode, const char *split,
                   struct st_file **out, char *err, size_t errlen);
/* Record the SHA-256 of the bytes the file's sentences came from (known once they are all
 * read). SP_EEXIST: the corpus already holds these bytes (or another file of this run did):
 * the caller aborts the file, which is then unchanged; `recorded` (may be NULL) gets what the
 * first ingest of these bytes stored (see st_source_check_mode). */
int  st_file_hash(struct st_file *f, const char *sha256, struct st_file_summary *recorded, char *err, size_t errlen);
/* Store item number `position` (1-based, file order). A rejected item, or a sentence that
 * conflicts with the corpus (duplicate sent_id, words differing from the other annotation),
 * is quarantined and SP_EPARSE returned with "file:line: sent_id: reason" in err: in strict
 * mode the caller then aborts the file. SP_ESTORE: SQLite failed (abort). */
int  st_file_put(struct st_file *f, int position, const struct ing_item *it,
                 const struct st_derived *d, char *err, size_t errlen);
int  st_file_commit(struct st_file *f, struct st_file_summary *sum, char *err, size_t errlen);
void st_file_abort(struct st_file *f);
/* Group commit for many small files: st_file_commit_held ends the file (a savepoint: still
 * all-or-nothing) but keeps the transaction open for the next files; st_file_sync(db)
 * commits every file held (if it fails, none of them is stored). st_file_commit = both. */
int  st_file_commit_held(struct st_file *f, struct st_file_summary *sum, char *err, size_t errlen);
int  st_file_sync(struct st_db *db, char *err, size_t errlen);

/* ---- reading a corpus back, in corpus order ---- */

enum st_want { ST_WANT_DEP = 1, ST_WANT_CONST = 2, ST_WANT_EXTRA = 4 };

struct st_row {
    int64_t sentence_id;
    const char *split;          /* NULL if none */
    struct sp_sentence s;       /* words, heads (if any), tree (parsed back, if asked), extras (if asked) */
    const char *doc;
    int position;
    /* dependency structures (ST_WANT_DEP and the sentence has a tree) */
    int has_dep;
    struct st_blobref depth, distance, ancestors, relpos;
    /* constituency structures (ST_WANT_CONST and the sentence has a tree) */
    int has_const;
    const char *tree_text, *top_const, *top_const_class;
    int tree_depth, levels;
    struct st_blobref phrases, spans;
};

struct st_iter;
int  st_iter_open(struct st_db *db, int64_t corpus_id, unsigned want, struct st_iter **out,
                  char *err, size_t errlen);
/* 1: *row filled (valid until the next call), 0: end, <0: error (message from st_iter_error). */
int  st_iter_next(struct st_iter *it, const struct st_row **row);
/* End the iterator's read transaction (its cursors are reset; the last row stays valid). Call it
 * before writing on the same connection: a write transaction begun while a read is open cannot
 * wait for other writers (SQLite skips the busy handler when a read must be upgraded, and fails
 * at once when another process committed since the read began). The next st_iter_next resumes
 * after the last sentence returned, in the store as it is then: sentences committed meanwhile
 * (larger ids) are included. */
void st_iter_pause(struct st_iter *it);
const char *st_iter_error(struct st_iter *it);
void st_iter_close(struct st_iter *it);

#endif
