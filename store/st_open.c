/* store/st_open.c — opening a store: pragmas, identity check, forward migrations. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/sp.h"
#include "store/st_int.h"

#include "common/embedded.h"

/* st_schema_files (build/gen/st_schema.c): v1, then each migration; version = count */
static int schema_versions(void)
{
    int n = 0;
    while (st_schema_files[n].name) n++;
    return n;
}
#define st_schema_versions schema_versions()

int st_schema_version(void) { return st_schema_versions; }

/* " (REASON)" when SQLite's error is a failed system call (a full disk gives only "disk I/O
 * error" while the shared-memory file grows), else "" */
static const char *os_reason(sqlite3 *h, char *buf, size_t n)
{
    int c = sqlite3_errcode(h) & 0xff, e = sqlite3_system_errno(h);
    buf[0] = 0;
    if ((c == SQLITE_IOERR || c == SQLITE_FULL || c == SQLITE_CANTOPEN) && e > 0) snprintf(buf, n, " (%s)", strerror(e));
    return buf;
}

int st_sqlerr(struct st_db *db, const char *what, char *err, size_t errlen)
{
    char os[128];
    snprintf(err, errlen, "%s: %s: %s%s", db->path, what, sqlite3_errmsg(db->h), os_reason(db->h, os, sizeof os));
    return SP_ESTORE;
}

int st_exec(struct st_db *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) == SQLITE_OK) return SP_OK;
    char os[128];
    snprintf(err, errlen, "%s: %s%s", db->path, msg ? msg : sqlite3_errmsg(db->h), os_reason(db->h, os, sizeof os));
    sqlite3_free(msg);
    return SP_ESTORE;
}

int st_no_read_open(struct st_db *db, char *err, size_t errlen)
{
    if (sqlite3_get_autocommit(db->h) == 0) return SP_OK;   /* inside our own write transaction */
    for (sqlite3_stmt *q = sqlite3_next_stmt(db->h, NULL); q; q = sqlite3_next_stmt(db->h, q)) {
        if (sqlite3_stmt_busy(q)) {
            snprintf(err, errlen, "%s: internal error: a write begun while a read is open on the same "
                     "connection (%.80s): it could not wait for other writers", db->path, sqlite3_sql(q));
            return SP_ESTORE;
        }
    }
    return SP_OK;
}

int st_begin_write(struct st_db *db, char *err, size_t errlen)
{
    if (st_no_read_open(db, err, errlen)) return SP_ESTORE;
    return st_exec(db, "BEGIN IMMEDIATE", err, errlen);
}

static int pragma_int(struct st_db *db, const char *pragma, int *out)
{
    sqlite3_stmt *st;
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA %s", pragma);
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* What the file says it is: application_id, user_version, number of schema objects. */
struct st_ident { int app, ver, ntables; };

static int read_ident(struct st_db *db, struct st_ident *id, char *err, size_t errlen)
{
    /* one statement, so one read transaction: read piecemeal, a header could be seen before and
     * the tables after another process's first migration */
    memset(id, 0, sizeof *id);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT (SELECT application_id FROM pragma_application_id()), "
                           "(SELECT user_version FROM pragma_user_version()), (SELECT count(*) FROM sqlite_schema)",
                           -1, &st, NULL) != SQLITE_OK)
        return st_sqlerr(db, "reading the store header", err, errlen);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        id->app = sqlite3_column_int(st, 0);
        id->ver = sqlite3_column_int(st, 1);
        id->ntables = sqlite3_column_int(st, 2);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? SP_OK : st_sqlerr(db, "reading the store header", err, errlen);
}

/* A file we may write to: a synprobe store of a version this build knows (1..current; an older
 * one is migrated), or an empty SQLite file (version 0, no tables). Anything else is refused
 * before a single byte of it changes: another application's SQLite file, a version above ours,
 * and versions no synprobe ever wrote (negative, or 0 with tables). */
static int check_ident(struct st_db *db, const struct st_ident *id, char *err, size_t errlen)
{
    int n = st_schema_versions;
    if (id->app == 0 && id->ntables == 0) {
        if (id->ver == 0) return SP_OK;
        snprintf(err, errlen, "%s: not a synprobe store (an empty SQLite file with user_version %d)", db->path, id->ver);
        return SP_EUSAGE;
    }
    if (id->app != ST_APPLICATION_ID) {
        snprintf(err, errlen, "%s: not a synprobe store (application_id %d); left unchanged", db->path, id->app);
        return SP_EUSAGE;
    }
    if (id->ver > n) {
        snprintf(err, errlen, "%s: store version %d is newer than this synprobe supports (%d); "
                 "upgrade synprobe to open it", db->path, id->ver, n);
        return SP_EUSAGE;
    }
    if (id->ver < 1) {
        snprintf(err, errlen, "%s: store version %d is not one synprobe ever wrote (known: 1..%d); "
                 "the store header is damaged", db->path, id->ver, n);
        return SP_EUSAGE;
    }
    return SP_OK;
}

/* Bring the store from its version to `target`, each step in its own transaction. The version
 * is read again under the write lock (BEGIN IMMEDIATE) before each step: two processes opening
 * the same new store both see version 0 before either holds the lock, and only the first may
 * create the tables; the second then finds the step done. */
static int migrate(struct st_db *db, int target, char *err, size_t errlen)
{
    for (;;) {
        struct st_ident id;
        if (st_begin_write(db, err, errlen)) return SP_ESTORE;
        int rc = read_ident(db, &id, err, errlen);
        if (!rc) rc = check_ident(db, &id, err, errlen);
        if (!rc && id.ver >= target) rc = st_exec(db, "COMMIT", err, errlen) ? SP_ESTORE : SP_OK;
        if (rc || id.ver >= target) {
            if (rc) sqlite3_exec(db->h, "ROLLBACK", 0, 0, 0);
            return rc;
        }
        char sql[96];
        if (st_exec(db, st_schema_files[id.ver].data, err, errlen)) { sqlite3_exec(db->h, "ROLLBACK", 0, 0, 0); return SP_ESTORE; }
        snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d", ST_APPLICATION_ID, id.ver + 1);
        if (st_exec(db, sql, err, errlen) || st_exec(db, "COMMIT", err, errlen)) {
            sqlite3_exec(db->h, "ROLLBACK", 0, 0, 0);
            return SP_ESTORE;
        }
    }
}

/* ---- read-only opens SQLite cannot serve in place ----
 * A read-only connection cannot write, yet SQLite needs to in two cases: a hot rollback journal
 * (an ingest killed while it bulk-loaded a new store) must be rolled back before the committed
 * state can be read, and a WAL store needs its -shm index file, which a folder we cannot write
 * to does not let us create. Then, rather than refusing (or writing):
 *   - nothing to apply beside the store (no -journal, no -wal with content): the file alone is
 *     the committed state, read as immutable (no locks, no side files);
 *   - a journal or a WAL to apply: the store and its side files are copied into a private
 *     folder under $TMPDIR and SQLite recovers the copy there; the original stays as it was.
 *     The copy is removed by st_close. */
static int readonly_needs_write(int xrc)
{
    return xrc == SQLITE_READONLY_ROLLBACK || xrc == SQLITE_READONLY_DIRECTORY || xrc == SQLITE_READONLY_CANTINIT ||
           xrc == SQLITE_READONLY_RECOVERY || xrc == SQLITE_READONLY_CANTLOCK || (xrc & 0xff) == SQLITE_CANTOPEN;
}

static int side_file_pending(const char *path, const char *suffix)
{
    char side[1100];
    struct stat sb;
    snprintf(side, sizeof side, "%s%s", path, suffix);
    return stat(side, &sb) == 0 && sb.st_size > 0;
}

static int copy_file(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0) return -1;
    int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) { close(in); return -1; }
    enum { BUFSZ = 1 << 16 };
    char *buf = sp_xmalloc(BUFSZ);
    ssize_t k = 0;
    while ((k = read(in, buf, BUFSZ)) > 0) {
        for (ssize_t off = 0; off < k;) {
            ssize_t w = write(out, buf + off, (size_t)(k - off));
            if (w < 0) { if (errno == EINTR) continue; k = -1; break; }
            off += w;
        }
        if (k < 0) break;
    }
    int bad = k < 0;
    free(buf);
    close(in);
    if (close(out)) bad = 1;
    return bad ? -1 : 0;
}

static void snapshot_remove(char *dir)
{
    static const char *const names[] = { "store.db", "store.db-journal", "store.db-wal", "store.db-shm" };
    char p[1100];
    if (!dir) return;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
    free(dir);
}

/* file: URI of a path, with the characters a URI gives meaning to escaped */
static void path_uri(const char *path, const char *query, char *out, size_t len)
{
    size_t k = (size_t)snprintf(out, len, "file:%s", path[0] == '/' ? "//" : "");
    for (const char *p = path; *p && k + 4 < len; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '%' || c == '?' || c == '#' || c < 0x21 || c > 0x7e) k += (size_t)snprintf(out + k, len - k, "%%%02X", c);
        else out[k++] = (char)c;
    }
    snprintf(out + k, len - k, "?%s", query);
}

static int reopen_readonly(struct st_db *db, char *err, size_t errlen)
{
    char why[SP_ERRLEN];
    snprintf(why, sizeof why, "%s", sqlite3_errmsg(db->h));
    sqlite3_close_v2(db->h);
    db->h = NULL;
    int pending = side_file_pending(db->path, "-journal") || side_file_pending(db->path, "-wal");
    int orc;
    if (!pending) {
        char uri[3400];
        path_uri(db->path, "immutable=1", uri, sizeof uri);
        orc = sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    } else {
        const char *tmp = getenv("TMPDIR");
        char dir[1100], p[1100], side[1100];
        snprintf(dir, sizeof dir, "%s/synprobe-snapshot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            snprintf(err, errlen, "%s: cannot read it without writing (%s), and cannot make a private copy in %s: %s",
                     db->path, why, tmp && *tmp ? tmp : "/tmp", strerror(errno));
            return SP_EIO;
        }
        db->snapshot_dir = sp_xstrdup(dir);
        snprintf(p, sizeof p, "%s/store.db", dir);
        int bad = copy_file(db->path, p);
        static const char *const sfx[] = { "-journal", "-wal" };
        for (int i = 0; !bad && i < 2; i++) {
            char dst[1100];
            snprintf(side, sizeof side, "%s%s", db->path, sfx[i]);
            snprintf(dst, sizeof dst, "%s%s", p, sfx[i]);
            if (copy_file(side, dst) && errno != ENOENT) bad = 1;
        }
        if (bad) {
            snprintf(err, errlen, "%s: cannot read it without writing (%s), and copying it to %s failed: %s",
                     db->path, why, dir, strerror(errno));
            return SP_EIO;
        }
        orc = sqlite3_open_v2(p, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    }
    if (orc != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open store read-only: %s", db->path, db->h ? sqlite3_errmsg(db->h) : why);
        return SP_EIO;
    }
    sqlite3_busy_timeout(db->h, 10000);
    sqlite3_extended_result_codes(db->h, 1);
    return st_exec(db, "PRAGMA query_only = 1", err, errlen);
}

/* SQLite's own busy handler sleeps 1, 2, 5, 10, 15, 20, 25 ... ms between tries, so a write
 * that meets another's lock waits a millisecond or more even when the lock is free again after
 * a few microseconds (the daemon's queue: submits, leases and finishes each hold it that long).
 * This one retries after 50 us, doubling up to 5 ms, for the same 10 s in all. */
static int busy_wait(void *arg, int n)
{
    (void)arg;
    long us = n < 7 ? 50L << n : 5000;            /* 50 us .. 3.2 ms, then 5 ms */
    long total = 0;
    for (int i = 0; i <= n; i++) total += i < 7 ? 50L << i : 5000;
    if (total > 10L * 1000 * 1000) return 0;      /* 10 s: give up, SQLITE_BUSY */
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
    return 1;
}

/* The files SQLite writes beside a store (PATH-wal, PATH-shm, PATH-journal) are opened by name
 * and written in place, a reader's -shm included: one planted there as a symbolic link, or as a
 * hard link to another file, would have that file overwritten (SQLite refuses a symlinked -shm
 * only with "unable to open database file", and writes through a hard link). So each that exists
 * must be a regular file with no other name; else SP_EIO naming it, before SQLite opens any. */
static int side_files_own(const char *path, char *err, size_t errlen)
{
    static const char *const sfx[] = { "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++) {
        char side[4200];
        struct stat sb;
        snprintf(side, sizeof side, "%s%s", path, sfx[i]);
        if (lstat(side, &sb) != 0) continue;
        const char *bad = !S_ISREG(sb.st_mode) ? sp_file_kind(sb.st_mode)
                        : sb.st_nlink > 1 ? "a file with another hard link (a second name for another file)" : NULL;
        if (bad) {
            snprintf(err, errlen, "%s: is %s; the store's side files are written in place, so each must be a regular file of "
                     "its own (not followed; remove it if no process has the store open)", side, bad);
            return SP_EIO;
        }
    }
    return SP_OK;
}

enum { OPEN_KEEP_JOURNAL = 1 << 8 };   /* internal: leave the journal mode as the store has it */

static int open_impl(const char *path, unsigned flags, int target, struct st_db **out, char *err, size_t errlen)
{
    *out = NULL;
    struct st_db *db = sp_xcalloc(1, sizeof *db);
    snprintf(db->path, sizeof db->path, "%s", path);
    db->owner = pthread_self();
    int oflags = (flags & ST_OPEN_READONLY) ? SQLITE_OPEN_READONLY
               : SQLITE_OPEN_READWRITE | ((flags & ST_OPEN_CREATE) ? SQLITE_OPEN_CREATE : 0);
    int src = side_files_own(path, err, errlen);
    if (src) { st_close(db); return src; }
    if (sqlite3_open_v2(path, &db->h, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open store: %s", path, db->h ? sqlite3_errmsg(db->h) : "out of memory");
        st_close(db);
        return SP_EIO;
    }
    sqlite3_busy_handler(db->h, busy_wait, NULL);
    sqlite3_extended_result_codes(db->h, 1);
    /* identity first, by reading only: nothing below may touch a file that is not ours */
    struct st_ident id;
    int rc = read_ident(db, &id, err, errlen);
    if (rc && (flags & ST_OPEN_READONLY) && readonly_needs_write(sqlite3_extended_errcode(db->h))) {
        rc = reopen_readonly(db, err, errlen);
        if (!rc) rc = read_ident(db, &id, err, errlen);
    }
    if (!rc) rc = check_ident(db, &id, err, errlen);
    if (!rc && (flags & ST_OPEN_READONLY) && id.ver < st_schema_versions) {
        snprintf(err, errlen, id.ver == 0 ? "%s: not a synprobe store (an empty SQLite file)"
                                          : "%s: store version %d needs migrating; open it once read-write", path, id.ver);
        rc = SP_EUSAGE;
    }
    /* 16 KiB pages take effect only on a new store (before WAL is on): fewer, larger I/Os for the
     * BLOB-heavy structure rows; mmap serves reads without a syscall per page */
    if (!rc && !(flags & (ST_OPEN_READONLY | OPEN_KEEP_JOURNAL))) {
        rc = st_exec(db, "PRAGMA page_size = 16384", err, errlen);
        /* Leaving a rollback journal for WAL needs the store to ourselves, and SQLite answers
         * "locked" at once (no busy wait) while another process bulk-loads it (st_bulk_begin):
         * then we work in its journal mode, waiting on its locks; it returns the store to WAL
         * when done, or the next command that opens it alone does. */
        char got[16];
        if (!rc && st_set_journal_mode(db, "wal", got, sizeof got)) rc = st_sqlerr(db, "switching to WAL", err, errlen);
        if (!rc) rc = st_exec(db, "PRAGMA synchronous = NORMAL", err, errlen);
    } else if (!rc && (flags & OPEN_KEEP_JOURNAL))
        rc = st_exec(db, "PRAGMA synchronous = NORMAL", err, errlen);
    if (!rc) rc = st_exec(db, "PRAGMA mmap_size = 1073741824", err, errlen);
    if (!rc) rc = st_exec(db, "PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536", err, errlen);
    /* a store already at the target version needs no write lock: opening it stays a read (the
     * daemon's job processes and `submit` open stores hundreds of times a second) */
    if (!rc && !(flags & ST_OPEN_READONLY) && id.ver < target) rc = migrate(db, target, err, errlen);
    if (rc) { st_close(db); return rc; }
    *out = db;
    return SP_OK;
}

int st_open(const char *path, unsigned flags, struct st_db **out, char *err, size_t errlen)
{
    return open_impl(path, flags, st_schema_versions, out, err, errlen);
}

int st_open_at_version(const char *path, int version, struct st_db **out, char *err, size_t errlen)
{
    if (version < 1 || version > st_schema_versions) { snprintf(err, errlen, "no schema version %d", version); return SP_EUSAGE; }
    return open_impl(path, ST_OPEN_CREATE, version, out, err, errlen);
}

int st_open_writer(struct st_db *db, struct st_db **out, char *err, size_t errlen)
{
    int ver = 0;
    *out = NULL;
    if (pragma_int(db, "user_version", &ver)) return st_sqlerr(db, "reading the store version", err, errlen);
    int rc = open_impl(db->path, db->bulk ? OPEN_KEEP_JOURNAL : 0, ver, out, err, errlen);
    if (rc) return rc;
    /* This connection only inserts rows that reference ids its own transaction just created
     * (or read), so enforcing REFERENCES would re-check what is true by construction: a parent
     * lookup per token row, a quarter of the writer's instructions. The user's connection
     * (db) keeps foreign_keys on. A 256 MiB page cache keeps a large file's transaction from
     * spilling pages to the WAL and reading them back before the commit (half the preads). */
    if ((rc = st_exec(*out, "PRAGMA foreign_keys = OFF; PRAGMA cache_size = -262144", err, errlen))) { st_close(*out); *out = NULL; }
    return rc;
}

/* The resulting journal mode of `PRAGMA journal_mode = mode`: SQLite answers with the mode in
 * force, which stays "wal" when another connection keeps the store from leaving WAL. */
int st_set_journal_mode(struct st_db *db, const char *mode, char *got, size_t gotlen)
{
    char sql[48];
    sqlite3_stmt *st;
    snprintf(sql, sizeof sql, "PRAGMA journal_mode = %s", mode);
    got[0] = 0;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) return SP_ESTORE;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(got, gotlen, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return SP_OK;
}

/* A first ingest into a store this process has just created writes every page twice in WAL
 * mode (into the WAL, then the checkpoint copies it into the store) and spends about an
 * eighth of its time on the copy. With a rollback journal, pages past the store's size at
 * the start of a transaction need no journal entry, so the first commit of an empty store
 * writes each page once and stays all-or-nothing under SIGKILL (a hot journal is rolled back
 * on the next open). Later commits modify pages that exist (attaching a .dp to its .mrg
 * updates stored tokens), which a rollback journal copies and fsyncs: slower than WAL, so
 * st_file_sync returns the store to WAL after the first commit. Other processes would wait
 * on our locks instead of reading beside us, which is why this is only for a store nobody
 * else can know yet. */
int st_bulk_begin(struct st_db *db, char *err, size_t errlen)
{
    char got[16];
    if (db->writer) { snprintf(err, errlen, "%s: bulk loading must start before the first write", db->path); return SP_EUSAGE; }
    if (st_set_journal_mode(db, "delete", got, sizeof got)) return st_sqlerr(db, "leaving WAL for the first load", err, errlen);
    db->bulk = !strcmp(got, "delete");   /* someone else has it open: stay in WAL */
    return SP_OK;
}

int st_bulk_active(const struct st_db *db) { return db->bulk; }

int st_bulk_end(struct st_db *db, char *err, size_t errlen)
{
    char got[16];
    if (!db->bulk) return SP_OK;
    st_close(db->writer);                /* WAL needs this connection to be the only one */
    db->writer = NULL;
    db->bulk = 0;
    if (st_set_journal_mode(db, "wal", got, sizeof got)) return st_sqlerr(db, "returning the store to WAL", err, errlen);
    if (strcmp(got, "wal")) {
        snprintf(err, errlen, "%s: could not return the store to WAL mode (journal mode is %s); "
                 "the next synprobe command that writes to it will", db->path, got);
        return SP_ESTORE;
    }
    return SP_OK;
}

void st_close(struct st_db *db)
{
    if (!db) return;
    st_close(db->writer);
    if (db->wcache_free) db->wcache_free(db);
    sqlite3_close_v2(db->h);
    snapshot_remove(db->snapshot_dir);
    free(db);
}


int st_corpus_id(struct st_db *db, const char *name, int create, int64_t *id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    *id = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT corpus_id FROM corpus WHERE name = ?1", -1, &st, NULL) != SQLITE_OK)
        return st_sqlerr(db, "looking up the corpus", err, errlen);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (*id) return SP_OK;
    if (!create) { snprintf(err, errlen, "%s: no corpus named '%s'", db->path, name); return SP_EUSAGE; }
    /* another process may create the same corpus between our look-up and this insert (two
     * ingests into one new store): its row is as good as ours */
    if (st_no_read_open(db, err, errlen)) return SP_ESTORE;
    if (sqlite3_prepare_v2(db->h, "INSERT INTO corpus (name) VALUES (?1) ON CONFLICT (name) DO NOTHING", -1, &st, NULL) != SQLITE_OK)
        return st_sqlerr(db, "creating the corpus", err, errlen);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return st_sqlerr(db, "creating the corpus", err, errlen);
    return st_corpus_id(db, name, 0, id, err, errlen);
}

void st_library_init(void) { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

const char *st_sqlite_version(void) { return sqlite3_libversion(); }
