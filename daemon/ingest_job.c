/* daemon/ingest_job.c — the ingest pipeline over a list of files.
 *
 * DESIGN. The caller's thread (the reader) takes the files in order. A file that fits in one
 * chunk is read once: hashed (SHA-256, SHA-NI where the CPU has it), looked up in the store
 * (unchanged bytes are skipped before parsing) and queued from the same buffer. A larger
 * file is hashed by a thread of its own while the reader already cuts it at sentence
 * boundaries (ing_chunk_end); the writer waits for that hash before it opens the file.
 * Each chunk is queued with a global sequence number, its file and its first line; after a
 * file's last chunk comes an end-of-file marker (also the only entry of a file that fails
 * or is unchanged before parsing). Workers parse chunks and compute every structure
 * (st_derive) into the chunk's own arena. The writer thread takes entries strictly in
 * sequence order: a file's first entry opens it (a savepoint in the writer connection's
 * transaction), its marker ends it, so positions (and thus the pairing of .mrg with .dp)
 * never depend on thread timing. Because the sequence runs across files, the workers parse
 * file k+1 while the writer stores file k. Files are committed alone, or in groups while
 * the writer is the bottleneck (sync_due), and reported in the order given once committed.
 * A rejected sentence in strict mode, a read error or a SQLite failure stops that file
 * only: its remaining chunks are skipped and its savepoint rolls back. Written chunks go
 * back to a pool, so steady state neither mallocs nor page-faults per chunk. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sp.h"
#include "daemon/ingest_job.h"
#include "store/derive.h"

void ingest_opts_default(struct ingest_opts *o)
{
    memset(o, 0, sizeof *o);
    o->workers = 2;
    o->levels = 3;
    o->structures = 1;
    o->chunk_bytes = 1u << 20;
    o->max_messages = 20;
}

/* One input file. Fields written by the reader before its first entry is queued are read
 * by the writer after taking that entry (the queue's mutex orders them). */
struct job {
    int k;
    const char *path;
    enum sp_format fmt;
    char sha[65];
    int pre_done;                  /* reader settled it (failed or unchanged): nothing to write */
    int stop;                      /* the file failed: skip its remaining chunks (under mu) */
    int begun;                     /* writer: st_file_begin was tried */
    struct st_file *file;          /* writer: open transaction, NULL on the dry-run path */
    int position, messages;        /* writer */
    struct sp_buf msgs;            /* writer: rejection messages, printed when the file is reported */
    char read_error[SP_ERRLEN];    /* reader: a read error mid-file (the writer owns r.error) */
    struct pipeline *p;
    pthread_t hasher;              /* a file larger than one chunk is hashed by its own thread */
    int hashing, hash_done, hash_rc;
    char hash_err[SP_ERRLEN];
    const char *mem;               /* reader: the whole file, when the hash pass read it in one block */
    size_t mem_len, mem_off;
    struct ingest_result r;
};

struct chunk {
    long seq;
    struct job *job;
    int eof;                       /* end-of-file marker: no data */
    char *buf;
    size_t len, cap;
    long first_line;
    int bom_ok;
    int chunk_rc;
    char chunk_err[SP_ERRLEN];
    struct ing_batch batch;
    struct st_derived *derived;    /* [batch.n_items], from the batch arena */
    struct chunk *next;
};

struct pipeline {
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_write, cv_space;   /* workers, the writer, the reader wait here */
    pthread_cond_t cv_hash;                       /* a file's hash thread is done */
    struct chunk *todo_head, *todo_tail;     /* FIFO for workers */
    struct chunk *done;                      /* parsed, waiting for the writer (any order) */
    struct chunk *pool;                      /* written chunks, kept for reuse: their buffers and
                                              * arenas are already faulted in, so steady state
                                              * neither mallocs nor page-faults per chunk */
    int in_flight, max_in_flight;
    long next_write;                         /* sequence the writer needs next */
    long n_chunks;                           /* total, known once reading ends (-1 before) */
    int reading_done;

    const struct ingest_opts *o;
    struct st_db *db;                        /* NULL on the dry-run path */
    int precheck;                            /* look each file's bytes up before parsing it */
    int64_t corpus_id;
    ingest_done_fn done_fn;
    void *ctx;
    int n_failed;
    char *hash_buf, *head;                   /* reader's buffers, reused across files */

    /* writer: finished files not yet reported. Small files are committed in groups (each
     * still all-or-nothing, see st_file_commit_held): one COMMIT per file rewrote every
     * table's last, partly filled page into the WAL each time, 5x the store's size. A file
     * is reported only once its group is committed. */
    struct job **pending;
    int n_pending, held_files, n_jobs;
    long held_tokens;
};

static int job_stopped(struct pipeline *p, struct job *j)
{
    pthread_mutex_lock(&p->mu);
    int s = j->stop;
    pthread_mutex_unlock(&p->mu);
    return s;
}

static void job_stop(struct pipeline *p, struct job *j)
{
    pthread_mutex_lock(&p->mu);
    j->stop = 1;
    pthread_mutex_unlock(&p->mu);
}

static void *worker_main(void *arg)
{
    struct pipeline *p = arg;
    struct st_derive_scratch sc;
    st_derive_scratch_init(&sc);
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->todo_head && !p->reading_done) pthread_cond_wait(&p->cv_work, &p->mu);
        struct chunk *c = p->todo_head;
        if (!c) { pthread_mutex_unlock(&p->mu); break; }
        p->todo_head = c->next;
        if (!p->todo_head) p->todo_tail = NULL;
        int stopped = c->job->stop;
        pthread_mutex_unlock(&p->mu);

        if (!stopped && !c->eof) {
            c->batch.max_words = p->o->max_words;
            c->chunk_rc = ing_parse_chunk(c->job->fmt, p->o->mode, c->buf, c->len, c->first_line, c->bom_ok,
                                          &c->batch, c->chunk_err, sizeof c->chunk_err);
            if (!c->chunk_rc && p->o->structures) {
                c->derived = sp_arena_alloc(&c->batch.arena, sizeof *c->derived * (size_t)(c->batch.n_items + 1));
                for (int i = 0; i < c->batch.n_items; i++) {
                    struct ing_item *it = &c->batch.item[i];
                    if (!it->error && st_derive(&it->s, p->o->levels, &c->batch.arena, &sc, &c->derived[i]))
                        it->error = "annotation does not form a usable tree";
                }
            }
        }
        pthread_mutex_lock(&p->mu);
        c->next = p->done;
        p->done = c;
        if (c->seq == p->next_write) pthread_cond_signal(&p->cv_write);
        pthread_mutex_unlock(&p->mu);
    }
    st_derive_scratch_free(&sc);
    return NULL;
}

static void chunk_free(struct chunk *c)
{
    ing_batch_free(&c->batch);
    free(c->buf);
    free(c);
}

/* Reader: a chunk from the pool (buffer and arena kept), or a new one. */
static struct chunk *chunk_get(struct pipeline *p)
{
    pthread_mutex_lock(&p->mu);
    struct chunk *c = p->pool;
    if (c) p->pool = c->next;
    pthread_mutex_unlock(&p->mu);
    if (!c) {
        c = sp_xcalloc(1, sizeof *c);
        ing_batch_init(&c->batch);
        return c;
    }
    char *buf = c->buf;
    size_t cap = c->cap;
    struct ing_batch batch = c->batch;
    memset(c, 0, sizeof *c);
    c->buf = buf;
    c->cap = cap;
    c->batch = batch;
    return c;
}

/* Back to the pool; the caller holds mu. */
static void chunk_put_locked(struct pipeline *p, struct chunk *c)
{
    ing_batch_reset(&c->batch);
    c->next = p->pool;
    p->pool = c;
}

/* Wait for a file's hash thread, once; its verdict (message in j->hash_err). */
static int hash_wait(struct pipeline *p, struct job *j)
{
    if (!j->hashing) return j->hash_rc;
    pthread_mutex_lock(&p->mu);
    while (!j->hash_done) pthread_cond_wait(&p->cv_hash, &p->mu);
    pthread_mutex_unlock(&p->mu);
    pthread_join(j->hasher, NULL);
    j->hashing = 0;
    return j->hash_rc;
}

/* Writer: open the file's transaction on its first entry. */
static void job_begin(struct pipeline *p, struct job *j)
{
    j->begun = 1;
    struct ingest_result *r = &j->r;
    if (hash_wait(p, j)) {              /* binary, unreadable: the file fails before any sentence */
        snprintf(r->error, sizeof r->error, "%s", j->hash_err);
        job_stop(p, j);
        return;
    }
    if (!p->db) return;
    int rc = st_file_begin(p->db, p->corpus_id, j->path, j->sha, j->fmt, p->o->mode, p->o->split, &j->file,
                           r->error, sizeof r->error);
    if (rc == SP_EEXIST) {           /* the same bytes earlier in this run */
        r->status = INGEST_UNCHANGED;
        r->error[0] = 0;
        j->pre_done = 1;
    }
    if (rc) job_stop(p, j);
}

/* Writer: store one parsed chunk; a failure stops the file. */
static void write_chunk(struct pipeline *p, struct job *j, struct chunk *c)
{
    struct ingest_result *r = &j->r;
    if (c->chunk_rc) {
        snprintf(r->error, sizeof r->error, "%s:%ld: %s", j->path, c->first_line, c->chunk_err);
        job_stop(p, j);
        return;
    }
    for (int i = 0; i < c->batch.n_items; i++) {
        struct ing_item *it = &c->batch.item[i];
        j->position++;
        r->sentences_parsed++;
        r->tokens_parsed += it->error ? 0 : it->s.n;
        if (!j->file) {                    /* dry run: count only */
            if (it->error) r->sum.n_rejected++;
            else { r->sum.n_sentences++; r->sum.n_words += it->s.n; }
            continue;
        }
        char err[SP_ERRLEN];
        int rc = st_file_put(j->file, j->position, it, c->derived ? &c->derived[i] : NULL, err, sizeof err);
        if (rc == SP_EPARSE) {
            if (p->o->mode == SP_MODE_STRICT) {
                snprintf(r->error, sizeof r->error, "%s (--strict: nothing from this file was kept)", err);
                job_stop(p, j);
                return;
            } else if (!p->o->quiet && j->messages++ < p->o->max_messages) {
                sp_buf_printf(&j->msgs, "%s\n", err);
            }
        } else if (rc) {
            snprintf(r->error, sizeof r->error, "%s", err);
            job_stop(p, j);
            return;
        }
    }
}

/* Writer: commit the files held (if any), then report every finished file in order. */
static void sync_and_report(struct pipeline *p)
{
    if (p->db && p->held_files) {
        char err[SP_ERRLEN];
        if (st_file_sync(p->db, err, sizeof err))
            for (int i = 0; i < p->n_pending; i++) {
                struct ingest_result *r = &p->pending[i]->r;
                if (r->status != INGEST_DONE) continue;
                r->status = INGEST_FAILED;
                r->sum = (struct st_file_summary){ 0 };
                snprintf(r->error, sizeof r->error, "%s", err);
            }
    }
    p->held_files = 0;
    p->held_tokens = 0;
    for (int i = 0; i < p->n_pending; i++) {
        struct job *j = p->pending[i];
        if (j->msgs.len) fwrite(j->msgs.p, 1, j->msgs.len, stderr);
        sp_buf_free(&j->msgs);
        if (j->r.status == INGEST_FAILED) p->n_failed++;
        if (p->done_fn) p->done_fn(j->k, j->path, &j->r, p->ctx);
    }
    p->n_pending = 0;
}

/* Commit now unless the next entry is already waiting (then the writer is the bottleneck and
 * grouping pays) and the group is still small. */
static int sync_due(struct pipeline *p, const struct job *j)
{
    if (!p->held_files || j->k == p->n_jobs - 1 || p->held_files >= 256 || p->held_tokens >= (1L << 20)) return 1;
    pthread_mutex_lock(&p->mu);
    int ready = 0;
    for (struct chunk *c = p->done; c && !ready; c = c->next) ready = c->seq == p->next_write + 1;
    pthread_mutex_unlock(&p->mu);
    return !ready;
}

/* Writer: the file's end-of-file marker: end its savepoint (or roll it back), report it. */
static void job_finish(struct pipeline *p, struct job *j)
{
    struct ingest_result *r = &j->r;
    hash_wait(p, j);
    if (!j->pre_done) {
        if (!j->stop && !j->hash_rc && j->position == 0) {
            /* whitespace, CRs or comments only: nothing in it is a sentence */
            snprintf(r->error, sizeof r->error, "%s: empty file (only blank lines or comments); expected at least one sentence",
                     j->path);
            job_stop(p, j);
        }
        if (!j->begun && !j->stop) job_begin(p, j);      /* a file without a single sentence */
        if (j->pre_done) {
            /* unchanged, found by job_begin */
        } else if (j->stop) {
            if (j->read_error[0]) snprintf(r->error, sizeof r->error, "%s", j->read_error);
            st_file_abort(j->file);
            r->sum = (struct st_file_summary){ 0 };
            if (!r->error[0]) snprintf(r->error, sizeof r->error, "%s: store failure", j->path);
        } else {
            if (j->file) {
                if (!st_file_commit_held(j->file, &r->sum, r->error, sizeof r->error)) {
                    r->status = INGEST_DONE;
                    p->held_files++;
                    p->held_tokens += r->tokens_parsed;
                    if (j->messages > p->o->max_messages && !p->o->quiet)
                        sp_buf_printf(&j->msgs, "%s: %d more rejected sentences (see the quarantine table)\n",
                                      j->path, j->messages - p->o->max_messages);
                }
            } else {
                r->status = INGEST_DONE;
            }
        }
        j->file = NULL;
    }
    p->pending[p->n_pending++] = j;
    if (sync_due(p, j)) sync_and_report(p);
}

static void *writer_main(void *arg)
{
    struct pipeline *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->n_chunks >= 0 && p->next_write >= p->n_chunks) break;
        struct chunk **pc = &p->done, *c = NULL;
        for (; *pc; pc = &(*pc)->next)
            if ((*pc)->seq == p->next_write) { c = *pc; *pc = c->next; break; }
        if (!c) { pthread_cond_wait(&p->cv_write, &p->mu); continue; }
        struct job *j = c->job;
        int stopped = j->stop;
        pthread_mutex_unlock(&p->mu);
        if (c->eof) {
            job_finish(p, j);
        } else if (!stopped && !j->pre_done) {
            if (!j->begun) job_begin(p, j);
            if (!job_stopped(p, j)) write_chunk(p, j, c);
        }
        pthread_mutex_lock(&p->mu);
        chunk_put_locked(p, c);
        p->next_write++;
        p->in_flight--;
        pthread_cond_signal(&p->cv_space);
    }
    pthread_mutex_unlock(&p->mu);
    sync_and_report(p);                      /* nothing is left here unless a file was cut short */
    return NULL;
}

static void submit(struct pipeline *p, struct chunk *c)
{
    pthread_mutex_lock(&p->mu);
    while (p->in_flight >= p->max_in_flight) pthread_cond_wait(&p->cv_space, &p->mu);
    p->in_flight++;
    c->next = NULL;
    if (p->todo_tail) p->todo_tail->next = c; else p->todo_head = c;
    p->todo_tail = c;
    pthread_cond_signal(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
}

static long count_lines(const char *s, size_t n)
{
    long k = 0;
    for (const char *e = s + n; (s = memchr(s, '\n', (size_t)(e - s))); s++) k++;
    return k;
}

/* First pass: content hash, plus the checks that decide whether the file is readable at all. */
static int hash_file(FILE *fp, const char *path, char *buf, char sha[65], char *head, size_t *head_len,
                     size_t *whole, char *err, size_t errlen)
{
    struct sp_sha256 h;
    sp_sha256_init(&h);
    size_t n, total = 0, reads = 0;
    *head_len = 0;
    int rc = SP_OK;
    while ((n = fread(buf, 1, 1u << 20, fp)) > 0) {
        if (total == 0 && head) { *head_len = n < 65536 ? n : 65536; memcpy(head, buf, *head_len); }
        const char *nul = memchr(buf, 0, n);
        if (nul) {
            snprintf(err, errlen, "%s: binary data (NUL byte at offset %zu); expected a text treebank", path,
                     total + (size_t)(nul - buf));
            rc = SP_EPARSE;
            break;
        }
        sp_sha256_update(&h, buf, n);
        total += n;
        reads++;
    }
    *whole = reads == 1 ? total : 0;    /* buf holds the whole file: no second read needed */
    if (!rc && ferror(fp)) { snprintf(err, errlen, "%s: read error: %s", path, strerror(errno)); rc = SP_EIO; }
    if (!rc && total == 0) { snprintf(err, errlen, "%s: empty file; expected at least one sentence", path); rc = SP_EPARSE; }
    if (!rc) sp_sha256_hex(&h, sha);
    return rc;
}

static void *hash_main(void *arg)
{
    struct job *j = arg;
    struct pipeline *p = j->p;
    char *buf = sp_xmalloc(1u << 20);
    size_t head_len, whole;
    int rc;
    FILE *fp = fopen(j->path, "rb");
    if (!fp) {
        snprintf(j->hash_err, sizeof j->hash_err, "%s: cannot read: %s", j->path, strerror(errno));
        rc = SP_EIO;
    } else {
        rc = hash_file(fp, j->path, buf, j->sha, NULL, &head_len, &whole, j->hash_err, sizeof j->hash_err);
        fclose(fp);
    }
    free(buf);
    pthread_mutex_lock(&p->mu);
    j->hash_rc = rc;
    j->hash_done = 1;
    pthread_cond_broadcast(&p->cv_hash);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Reader: everything before parsing. Returns an open stream, or NULL with the file settled
 * (failed or unchanged) in j->r. */
static FILE *job_open(struct pipeline *p, struct job *j)
{
    struct ingest_result *r = &j->r;
    const char *path = j->path;
    struct stat st;
    if (stat(path, &st) != 0) { snprintf(r->error, sizeof r->error, "%s: cannot read: %s", path, strerror(errno)); return NULL; }
    if (S_ISDIR(st.st_mode)) { snprintf(r->error, sizeof r->error, "%s: is a directory; expected a treebank file", path); return NULL; }
    FILE *fp = fopen(path, "rb");
    if (!fp) { snprintf(r->error, sizeof r->error, "%s: cannot read: %s", path, strerror(errno)); return NULL; }

    char *head = p->head;
    size_t head_len;
    size_t whole;
    size_t chunk = p->o->chunk_bytes ? p->o->chunk_bytes : (1u << 20);
    if (S_ISREG(st.st_mode) && (size_t)st.st_size > chunk) {
        /* Larger than one chunk: hash on a thread of its own while this thread already cuts
         * and queues chunks, so parsing starts at once; the writer waits for the hash before
         * it opens the file (job_begin), where bytes already in the corpus are found. */
        ssize_t got = pread(fileno(fp), head, 65536, 0);
        head_len = got > 0 ? (size_t)got : 0;
        j->hashing = 1;
        pthread_create(&j->hasher, NULL, hash_main, j);
        enum sp_format fmt = p->o->fmt;
        if (fmt == SP_FMT_AUTO) fmt = ing_detect_format(path, head, head_len);
        r->fmt = j->fmt = fmt;
        if (fmt == SP_FMT_AUTO) {
            if (hash_wait(p, j)) snprintf(r->error, sizeof r->error, "%s", j->hash_err);   /* say "binary" first */
            else snprintf(r->error, sizeof r->error, "%s: unknown format: expected CoNLL-U (10 tab-separated columns), "
                          "PTB brackets '( (S ...) )' or 'word TAB POS TAB head' lines; use --format to say which", path);
            fclose(fp);
            return NULL;
        }
        return fp;
    }
    int rc = hash_file(fp, path, p->hash_buf, j->sha, head, &head_len, &whole, r->error, sizeof r->error);
    enum sp_format fmt = p->o->fmt;
    if (!rc && fmt == SP_FMT_AUTO) {
        fmt = ing_detect_format(path, head, head_len);
        if (fmt == SP_FMT_AUTO) {
            snprintf(r->error, sizeof r->error, "%s: unknown format: expected CoNLL-U (10 tab-separated columns), "
                     "PTB brackets '( (S ...) )' or 'word TAB POS TAB head' lines; use --format to say which", path);
            rc = SP_EPARSE;
        }
    }
    r->fmt = j->fmt = fmt;
    if (!rc && p->db && p->precheck) {
        int64_t found;
        if (st_source_find(p->db, p->corpus_id, j->sha, &found)) {
            snprintf(r->error, sizeof r->error, "%s: store lookup failed", path);
            rc = SP_ESTORE;
        } else if (found && (rc = st_source_check_mode(p->db, found, path, p->o->mode, r->error, sizeof r->error)) == SP_EEXIST) {
            r->status = INGEST_UNCHANGED;
        }
    }
    if (rc) { fclose(fp); return NULL; }
    if (whole) { j->mem = p->hash_buf; j->mem_len = whole; }
    else rewind(fp);
    return fp;
}

static size_t src_read(struct job *j, FILE *fp, char *dst, size_t n)
{
    if (!j->mem) return fread(dst, 1, n, fp);
    size_t k = j->mem_len - j->mem_off < n ? j->mem_len - j->mem_off : n;
    memcpy(dst, j->mem + j->mem_off, k);
    j->mem_off += k;
    return k;
}

/* Reader: queue file j's chunks (whole sentences each), then its end-of-file marker. */
static void job_read(struct pipeline *p, struct job *j, long *seq)
{
    FILE *fp = job_open(p, j);
    if (fp) {
        const struct ingest_opts *o = p->o;
        size_t cap = o->chunk_bytes ? o->chunk_bytes : (1u << 20), carry = 0;
        char *carry_buf = NULL;
        long line = 1;
        int eof = 0, first = 1;
        struct chunk *c = NULL;
        while (!eof && !job_stopped(p, j)) {
            size_t want = cap > carry ? cap : carry * 2;
            if (!c) c = chunk_get(p);
            if (c->cap < want + 1) {
                free(c->buf);
                c->cap = want + 1;
                c->buf = sp_xmalloc(c->cap);
            }
            char *buf = c->buf;
            if (carry) memcpy(buf, carry_buf, carry);
            free(carry_buf);
            carry_buf = NULL;
            size_t len = carry + src_read(j, fp, buf + carry, want - carry);
            eof = len < want;
            if (ferror(fp)) {
                snprintf(j->read_error, sizeof j->read_error, "%s: read error: %s", j->path, strerror(errno));
                job_stop(p, j);
                break;
            }
            size_t end = ing_chunk_end(j->fmt, buf, len, eof);
            if (end == 0 && !eof) {           /* one sentence longer than the buffer: read more */
                carry = len;
                carry_buf = sp_xmalloc(len);
                memcpy(carry_buf, buf, len);
                cap = want * 2;
                continue;
            }
            carry = len - end;
            if (carry) { carry_buf = sp_xmalloc(carry); memcpy(carry_buf, buf + end, carry); }
            if (end == 0) continue;
            c->seq = (*seq)++;
            c->job = j;
            c->len = end;
            c->first_line = line;
            c->bom_ok = first;
            first = 0;
            line += count_lines(buf, end);
            submit(p, c);
            c = NULL;
            cap = o->chunk_bytes ? o->chunk_bytes : (1u << 20);
        }
        if (c) {
            pthread_mutex_lock(&p->mu);
            chunk_put_locked(p, c);
            pthread_mutex_unlock(&p->mu);
        }
        free(carry_buf);
        fclose(fp);
    } else {
        j->pre_done = 1;
    }
    struct chunk *m = chunk_get(p);
    m->seq = (*seq)++;
    m->job = j;
    m->eof = 1;
    submit(p, m);
}

int ingest_files(struct st_db *db, int64_t corpus_id, char *const *paths, int n, const struct ingest_opts *o,
                 ingest_done_fn done, void *ctx)
{
    /* the writer thread must never need db's own connection, which this thread keeps using */
    char werr[SP_ERRLEN];
    if (db && st_file_writer_open(db, werr, sizeof werr)) {
        for (int k = 0; k < n; k++) {
            struct ingest_result r = { .status = INGEST_FAILED };
            snprintf(r.error, sizeof r.error, "%s", werr);
            if (done) done(k, paths[k], &r, ctx);
        }
        return n;
    }
    struct pipeline p;
    memset(&p, 0, sizeof p);
    p.o = o;
    p.db = db;
    /* A store being bulk-loaded was empty when this run began, so no file can be in it yet
     * (the same bytes twice in this run are still caught by the writer, inside its
     * transaction), and under a rollback journal every read here would contend for the lock
     * the writer's first commit needs. An in-memory store is written through db's own
     * connection, which this thread must then leave to the writer. */
    p.precheck = db && !st_bulk_active(db) && st_file_writer_separate(db);
    p.corpus_id = corpus_id;
    p.done_fn = done;
    p.ctx = ctx;
    p.n_chunks = -1;
    p.max_in_flight = 2 * o->workers + 2;
    p.n_jobs = n;
    p.pending = sp_xcalloc((size_t)(n ? n : 1), sizeof *p.pending);
    p.hash_buf = sp_xmalloc(1u << 20);
    p.head = sp_xmalloc(65536);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv_work, NULL);
    pthread_cond_init(&p.cv_write, NULL);
    pthread_cond_init(&p.cv_space, NULL);
    pthread_cond_init(&p.cv_hash, NULL);
    int nw = o->workers < 1 ? 1 : o->workers;
    pthread_t *workers = sp_xcalloc((size_t)nw, sizeof *workers), writer;
    for (int i = 0; i < nw; i++) {
        pthread_create(&workers[i], NULL, worker_main, &p);
        pthread_setname_np(workers[i], "sp-ingest-work");   /* names show in top -H and perf */
    }
    pthread_create(&writer, NULL, writer_main, &p);
    pthread_setname_np(writer, "sp-ingest-write");

    /* jobs live until the writer has reported them; at most in-flight ones matter, but a
     * list of paths is small next to the chunks, so keep them all */
    struct job *jobs = sp_xcalloc((size_t)(n ? n : 1), sizeof *jobs);
    long seq = 0;
    for (int k = 0; k < n; k++) {
        struct job *j = &jobs[k];
        j->k = k;
        j->path = paths[k];
        j->p = &p;
        j->r.status = INGEST_FAILED;
        job_read(&p, j, &seq);
    }

    pthread_mutex_lock(&p.mu);
    p.reading_done = 1;
    p.n_chunks = seq;
    pthread_cond_broadcast(&p.cv_work);
    pthread_cond_signal(&p.cv_write);
    pthread_mutex_unlock(&p.mu);
    for (int i = 0; i < nw; i++) pthread_join(workers[i], NULL);
    pthread_join(writer, NULL);
    free(workers);
    free(jobs);
    while (p.pool) { struct chunk *c = p.pool; p.pool = c->next; chunk_free(c); }
    free(p.hash_buf);
    free(p.head);
    free(p.pending);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv_work);
    pthread_cond_destroy(&p.cv_write);
    pthread_cond_destroy(&p.cv_space);
    pthread_cond_destroy(&p.cv_hash);
    return p.n_failed;
}

static void copy_result(int k, const char *path, const struct ingest_result *r, void *ctx)
{
    (void)k;
    (void)path;
    *(struct ingest_result *)ctx = *r;
}

int ingest_file(struct st_db *db, int64_t corpus_id, const char *path, const struct ingest_opts *o,
                struct ingest_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = INGEST_FAILED;
    char *paths[1] = { (char *)path };
    ingest_files(db, corpus_id, paths, 1, o, copy_result, r);
    if (r->status != INGEST_FAILED) return SP_OK;
    return r->error[0] ? SP_EPARSE : SP_ESTORE;
}
