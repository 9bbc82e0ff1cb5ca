/* stages/ingest.c — the ingest stage: the pipeline over a list of files.
 *
 * DESIGN. The caller's thread (the reader) takes the files in order. Every input is read
 * exactly once, as a stream: a regular file, a pipe or FIFO, standard input ("-") or a
 * gzip file (".gz", through zlib; stdin is gunzipped when it is gzip). The SHA-256 recorded
 * for a file is that of exactly the bytes read and parsed (decompressed, for gzip), hashed
 * as they are read, so a file that changes while it is read is stored under the hash of
 * what was actually parsed, and a later ingest of the whole file is not mistaken for it.
 * A file that fits in one chunk is looked up in the store before parsing (unchanged bytes
 * are skipped); for a larger one the hash is known only at its end, so the writer records
 * it when the file ends and rolls the file back there if the corpus already has it.
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
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <dirent.h>

#include "common/sp.h"
#include "stages/ingest.h"
#include "store/st_derive.h"

/* The pipeline's settings, from the stage's options. */
struct ingest_opts {
    enum sp_format fmt;       /* SP_FMT_AUTO: detect per file */
    enum sp_mode mode;
    const char *split;
    int workers;              /* parse/structure threads, >= 1 */
    int levels;               /* PSAN division levels T */
    int structures;           /* compute structures (off only for benchmarks) */
    size_t chunk_bytes;       /* read size; a chunk holds whole sentences */
    int max_messages;         /* rejection messages logged per file (all go to the quarantine) */
    int max_words;            /* longer sentences are rejected (0: ING_MAX_WORDS_DEFAULT) */
    const char *stdin_name;   /* the name "-" (standard input) is recorded and reported under */
    long shard_k, shard_n;    /* store only shard k of n (stg_shard_of); shard_n 0: everything */
};

enum ingest_status { INGEST_DONE = STG_INGEST_DONE, INGEST_UNCHANGED = STG_INGEST_UNCHANGED, INGEST_FAILED = STG_INGEST_FAILED };

struct ingest_result {
    enum ingest_status status;
    enum sp_format fmt;
    struct st_file_summary sum;
    struct st_file_summary recorded;   /* INGEST_UNCHANGED: what the first ingest of these bytes stored */
    long tokens_parsed;       /* words of every parsed sentence (accepted or not) */
    int sentences_parsed;
    int repaired;             /* sentences stored with --repair warnings (a dropped line is named there) */
    long skipped_lines;       /* comment lines with no word line after them: not a sentence (docs/spec/structures.md §2.1) */
    char error[SP_ERRLEN];    /* INGEST_FAILED: why */
};

typedef void (*ingest_done_fn)(int k, const char *path, const struct ingest_result *r, void *ctx);

/* One input file. Fields written by the reader before its first entry is queued are read
 * by the writer after taking that entry (the queue's mutex orders them). */
struct job {
    int k;
    const char *path;              /* as reported and stored ("-" becomes o->stdin_name) */
    const char *arg;               /* as given: "-" is standard input */
    enum sp_format fmt;
    char sha[65];                  /* of the bytes read; written by the reader before the
                                    * end-of-file marker is queued, read by the writer after */
    int pre_done;                  /* reader settled it (failed or unchanged): nothing to write */
    int stop;                      /* the file failed: skip its remaining chunks (under mu);
                                    * STOP_HASH: but read (and hash) it to the end */
    int begun;                     /* writer: st_file_begin was tried */
    struct st_file *file;          /* writer: open transaction, NULL on the dry-run path */
    int position, messages;        /* writer */
    int skip_messages;             /* writer: skipped comment blocks named so far */
    struct sp_buf msgs;            /* writer: rejection messages, printed when the file is reported */
    char read_error[SP_ERRLEN];    /* reader: a read error mid-file (the writer owns r.error) */
    struct pipeline *p;
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
    struct stg_ctx *stg;                     /* log and stop flag */
    struct st_db *db;                        /* NULL on the dry-run path */
    int precheck;                            /* look each file's bytes up before parsing it */
    int64_t corpus_id;
    ingest_done_fn done_fn;
    void *ctx;
    int n_failed;

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

/* A --strict rejection fails the file unless its bytes turn out to be in the corpus already
 * (then it is unchanged, as a file that fits in one chunk is found before parsing): nothing
 * more is parsed or written, but the reader reads it to the end for its hash. */
enum { STOP_HASH = 2 };
static void job_stop_hash(struct pipeline *p, struct job *j)
{
    pthread_mutex_lock(&p->mu);
    if (!j->stop) j->stop = STOP_HASH;
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
            c->batch.max_words_option = "--max-words";
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

/* Writer: open the file's transaction on its first entry. */
static void job_begin(struct pipeline *p, struct job *j)
{
    j->begun = 1;
    struct ingest_result *r = &j->r;
    if (!p->db) return;
    /* the hash is not known yet (the reader is still reading): st_file_hash sets it at the end */
    int rc = st_file_begin(p->db, p->corpus_id, j->path, NULL, j->fmt, p->o->mode, p->o->split, &j->file,
                           r->error, sizeof r->error);
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
    /* every shard reads the whole file: shard 0 alone reports the skipped lines, so that the
     * shards' counts add up to a one-machine run's */
    for (int i = 0; p->o->shard_k == 0 && i < c->batch.n_skip; i++) {
        const struct ing_skip *k = &c->batch.skip[i];
        r->skipped_lines += k->n_lines;
        if (j->skip_messages++ < p->o->max_messages)
            sp_buf_printf(&j->msgs, "%s:%ld: %d comment line%s with no word line after %s skipped (not a sentence)\n",
                          j->path, k->line, k->n_lines, k->n_lines > 1 ? "s" : "", k->n_lines > 1 ? "them" : "it");
    }
    for (int i = 0; i < c->batch.n_items; i++) {
        struct ing_item *it = &c->batch.item[i];
        j->position++;
        /* another shard's sentence: skipped, but its position counts. Under --strict a rejected
         * sentence fails the file in every shard, as it fails it in a one-machine run. */
        if (p->o->shard_n > 1 && stg_shard_of(j->path, j->position, p->o->shard_n) != p->o->shard_k &&
            !(it->error && p->o->mode == SP_MODE_STRICT))
            continue;
        r->sentences_parsed++;
        r->tokens_parsed += it->error ? 0 : it->s.n;
        if (!j->file) {                    /* dry run: count only */
            if (it->error) r->sum.n_rejected++;
            else { r->sum.n_sentences++; r->sum.n_words += it->s.n; r->repaired += it->s.warn != 0; }
            continue;
        }
        char err[SP_ERRLEN];
        int rc = st_file_put(j->file, j->position, it, c->derived ? &c->derived[i] : NULL, err, sizeof err);
        if (rc == SP_EPARSE) {
            if (p->o->mode == SP_MODE_STRICT) {
                snprintf(r->error, sizeof r->error, "%s (--strict: nothing from this file was kept)", err);
                job_stop_hash(p, j);
                return;
            } else if (j->messages++ < p->o->max_messages) {
                sp_buf_printf(&j->msgs, "%s\n", err);
            }
        } else if (rc) {
            snprintf(r->error, sizeof r->error, "%s", err);
            job_stop(p, j);
            return;
        } else {
            r->repaired += it->s.warn != 0;
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
                r->repaired = 0;
                r->skipped_lines = 0;
                snprintf(r->error, sizeof r->error, "%s", err);
            }
    }
    p->held_files = 0;
    p->held_tokens = 0;
    for (int i = 0; i < p->n_pending; i++) {
        struct job *j = p->pending[i];
        /* rejections, one line each, logged with their file (not while other files parse); INFO,
         * as before: --quiet leaves them to the quarantine table and the summary's count */
        for (char *line = j->msgs.p, *nl; line && line < j->msgs.p + j->msgs.len; line = nl + 1) {
            nl = memchr(line, '\n', (size_t)(j->msgs.p + j->msgs.len - line));
            if (!nl) break;
            *nl = 0;
            sp_log(p->stg->log, SP_LOG_INFO, "%s", line);
        }
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
    if (!p->held_files || p->held_files >= 256 || p->held_tokens >= (1L << 20)) return 1;
    pthread_mutex_lock(&p->mu);
    int last = j->k == p->n_jobs - 1, ready = 0;   /* n_jobs drops under mu if reading stops early */
    for (struct chunk *c = p->done; c && !ready && !last; c = c->next) ready = c->seq == p->next_write + 1;
    pthread_mutex_unlock(&p->mu);
    return last || !ready;
}

/* Writer: the file's end-of-file marker: end its savepoint (or roll it back), report it. */
static void job_finish(struct pipeline *p, struct job *j)
{
    struct ingest_result *r = &j->r;
    if (!j->pre_done) {
        if (!j->stop && j->position == 0) {
            /* whitespace, CRs or comments only: nothing in it is a sentence */
            snprintf(r->error, sizeof r->error, "%s: empty file (only blank lines or comments); expected at least one sentence",
                     j->path);
            job_stop(p, j);
        }
        if (!j->begun && !j->stop) job_begin(p, j);      /* a file without a single sentence */
        int hrc = SP_OK;
        if (j->file && (!j->stop || (j->stop == STOP_HASH && j->sha[0]))) {
            char herr[SP_ERRLEN];
            hrc = st_file_hash(j->file, j->sha, &r->recorded, herr, sizeof herr);
            if (hrc && hrc != SP_EEXIST) snprintf(r->error, sizeof r->error, "%s", herr);
        }
        if (hrc == SP_EEXIST) {          /* these bytes are in the corpus already (or earlier in this run) */
            st_file_abort(j->file);
            r->sum = (struct st_file_summary){ 0 };
            r->repaired = 0;
            r->skipped_lines = 0;
            r->status = INGEST_UNCHANGED;
            r->error[0] = 0;
            r->sentences_parsed = 0;
            r->tokens_parsed = 0;
            sp_buf_free(&j->msgs);
        } else if (hrc || j->stop) {
            if (j->read_error[0]) snprintf(r->error, sizeof r->error, "%s", j->read_error);
            if (j->file) st_file_abort(j->file);
            r->sum = (struct st_file_summary){ 0 };
            r->repaired = 0;
            r->skipped_lines = 0;
            if (!r->error[0]) snprintf(r->error, sizeof r->error, "%s: store failure", j->path);
        } else {
            if (j->file) {
                if (!st_file_commit_held(j->file, &r->sum, r->error, sizeof r->error)) {
                    r->status = INGEST_DONE;
                    p->held_files++;
                    p->held_tokens += r->tokens_parsed;
                    if (j->messages > p->o->max_messages)
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

/* One input, read once from start to end. */
struct src {
    FILE *fp;                      /* a plain file, FIFO or pipe */
    gzFile gz;                     /* a .gz file, or standard input (zlib reads plain data as is) */
    char err[SP_ERRLEN];
};

static int has_gz_suffix(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && !strcmp(path + n - 3, ".gz");
}

static int src_open(struct src *s, const struct job *j, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (!strcmp(j->arg, "-")) {
        int fd = dup(0);
        if (fd < 0 || !(s->gz = gzdopen(fd, "rb"))) {
            if (fd >= 0) close(fd);
            snprintf(err, errlen, "%s: cannot read standard input: %s", j->path, strerror(errno));
            return SP_EIO;
        }
        gzbuffer(s->gz, 1u << 17);
        return SP_OK;
    }
    /* a regular file, FIFO or pipe: streams are read once, as they come (a device or a
     * directory is refused, naming what it is) */
    int fd = sp_open_input(j->arg, 1, err, errlen);
    if (fd < 0) return SP_EIO;
    if (has_gz_suffix(j->arg)) s->gz = gzdopen(fd, "rb");
    else s->fp = fdopen(fd, "rb");
    if (!s->gz && !s->fp) { snprintf(err, errlen, "%s: cannot read: %s", j->path, strerror(errno)); close(fd); return SP_EIO; }
    if (s->gz) gzbuffer(s->gz, 1u << 17);
    return SP_OK;
}

/* Read up to n bytes (fewer only at the end of the input). Returns -1 on a read error,
 * with the reason in s->err. */
static long src_read(struct src *s, char *dst, size_t n)
{
    if (s->fp) {
        size_t k = fread(dst, 1, n, s->fp);
        if (ferror(s->fp)) { snprintf(s->err, sizeof s->err, "read error: %s", strerror(errno)); return -1; }
        return (long)k;
    }
    size_t got = 0;
    while (got < n) {
        size_t want = n - got < (1u << 30) ? n - got : (1u << 30);
        int k = gzread(s->gz, dst + got, (unsigned)want);
        if (k < 0) {
            int zrc;
            const char *m = gzerror(s->gz, &zrc);
            snprintf(s->err, sizeof s->err, "read error: %s", zrc == Z_ERRNO ? strerror(errno) : m);
            return -1;
        }
        if (k == 0) {
            int zrc;
            const char *m = gzerror(s->gz, &zrc);
            if (zrc != Z_OK && zrc != Z_STREAM_END) {   /* e.g. a truncated gzip stream */
                snprintf(s->err, sizeof s->err, "read error: %s", m);
                return -1;
            }
            break;
        }
        got += (size_t)k;
    }
    return (long)got;
}

static void src_close(struct src *s)
{
    if (s->fp) fclose(s->fp);
    if (s->gz) gzclose(s->gz);
    memset(s, 0, sizeof *s);
}

/* The name that decides the format by extension: the path without ".gz". */
static void detect_name(const char *path, char *out, size_t cap)
{
    snprintf(out, cap, "%s", path);
    size_t n = strlen(out);
    if (n > 3 && !strcmp(out + n - 3, ".gz")) out[n - 3] = 0;
}

/* Reader: the first bytes of a file are in: check them, decide the format. 0 or an error in r. */
static int job_first_block(struct pipeline *p, struct job *j, const char *buf, size_t len, int eof)
{
    struct ingest_result *r = &j->r;
    if (len == 0 && eof) {
        snprintf(r->error, sizeof r->error, "%s: empty file; expected at least one sentence", j->path);
        return SP_EPARSE;
    }
    enum sp_format fmt = p->o->fmt;
    if (fmt == SP_FMT_AUTO) {
        char name[4096];
        detect_name(j->path, name, sizeof name);
        fmt = ing_detect_format(name, buf, len < 65536 ? len : 65536);
        if (fmt == SP_FMT_AUTO) {
            snprintf(r->error, sizeof r->error, "%s: unknown format: expected CoNLL-U (10 tab-separated columns), "
                     "PTB brackets '( (S ...) )' or 'word TAB POS TAB head' lines; use --format to say which", j->path);
            return SP_EPARSE;
        }
    }
    r->fmt = j->fmt = fmt;
    return SP_OK;
}

/* Reader: queue file j's chunks (whole sentences each), then its end-of-file marker. Every
 * byte read is checked (no NUL), hashed, and parsed, once. */
static void job_read(struct pipeline *p, struct job *j, long *seq)
{
    struct ingest_result *r = &j->r;
    struct src in;
    if (src_open(&in, j, r->error, sizeof r->error)) {
        j->pre_done = 1;
    } else {
        const struct ingest_opts *o = p->o;
        size_t cap = o->chunk_bytes ? o->chunk_bytes : (1u << 20), carry = 0, total = 0;
        char *carry_buf = NULL;
        long line = 1;
        int eof = 0, first = 1, checked = 0;   /* first: no chunk queued yet; checked: first bytes seen */
        struct chunk *c = NULL;
        struct sp_sha256 h;
        sp_sha256_init(&h);
        while (!eof && job_stopped(p, j) != 1) {
            if (stg_stopping(p->stg)) {      /* a safe point: the file rolls back whole */
                snprintf(j->read_error, sizeof j->read_error, "%s: stopped before its end; nothing from it was kept", j->path);
                if (!checked) { snprintf(r->error, sizeof r->error, "%s", j->read_error); j->pre_done = 1; }
                else job_stop(p, j);
                break;
            }
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
            long got = src_read(&in, buf + carry, want - carry);
            if (got < 0) {
                snprintf(j->read_error, sizeof j->read_error, "%s: %s", j->path, in.err);
                if (!checked) { snprintf(r->error, sizeof r->error, "%s", j->read_error); j->pre_done = 1; }
                else job_stop(p, j);
                break;
            }
            const char *nul = memchr(buf + carry, 0, (size_t)got);
            if (nul) {
                snprintf(j->read_error, sizeof j->read_error, "%s: binary data (NUL byte at offset %zu); "
                         "expected a text treebank", j->path, total + (size_t)(nul - (buf + carry)));
                if (!checked) { snprintf(r->error, sizeof r->error, "%s", j->read_error); j->pre_done = 1; }
                else job_stop(p, j);
                break;
            }
            sp_sha256_update(&h, buf + carry, (size_t)got);
            total += (size_t)got;
            size_t len = carry + (size_t)got;
            eof = len < want;
            if (!checked) {
                checked = 1;
                if (job_first_block(p, j, buf, len, eof)) { j->pre_done = 1; break; }
                if (eof) {
                    /* the whole file is in this buffer: its hash is known before parsing, so
                     * bytes already in the corpus are skipped here */
                    sp_sha256_hex(&h, j->sha);
                    if (p->db && p->precheck) {
                        int64_t found;
                        if (st_source_find(p->db, p->corpus_id, j->sha, &found)) {
                            snprintf(r->error, sizeof r->error, "%s: store lookup failed", j->path);
                            j->pre_done = 1;
                            break;
                        } else if (found) {
                            /* the same bytes: unchanged, unless ingested in a mode that would
                             * store them differently (then r->error says so) */
                            if (st_source_check_mode(p->db, found, j->path, p->o->mode, &r->recorded, r->error, sizeof r->error) ==
                                SP_EEXIST)
                                r->status = INGEST_UNCHANGED;
                            j->pre_done = 1;
                            break;
                        }
                    }
                }
            }
            size_t end = ing_chunk_end(j->fmt, buf, len, eof, first);
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
        if (eof && !j->pre_done && !j->sha[0]) sp_sha256_hex(&h, j->sha);   /* before the marker is queued */
        if (c) {
            pthread_mutex_lock(&p->mu);
            chunk_put_locked(p, c);
            pthread_mutex_unlock(&p->mu);
        }
        free(carry_buf);
        src_close(&in);
    }
    struct chunk *m = chunk_get(p);
    m->seq = (*seq)++;
    m->job = j;
    m->eof = 1;
    submit(p, m);
}

/* Several files through one pipeline: file k+1 is read and parsed while file k is written,
 * each still in its own transaction. done(k, paths[k], result, ctx) runs once per file, in
 * file order, on the writer thread, as soon as the file is committed (or failed, or found
 * unchanged). Files after a stop request are not read (and not reported). db == NULL: parse
 * (and compute structures) without storing: the benchmark path. Returns the files read. */
static int ingest_files(struct stg_ctx *stg, struct st_db *db, int64_t corpus_id, char *const *paths, int n,
                        const struct ingest_opts *o, ingest_done_fn done, void *ctx)
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
    p.stg = stg;
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
    p.n_jobs = n;   /* lowered if a stop request ends the reading early */
    p.pending = sp_xcalloc((size_t)(n ? n : 1), sizeof *p.pending);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv_work, NULL);
    pthread_cond_init(&p.cv_write, NULL);
    pthread_cond_init(&p.cv_space, NULL);
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
    int n_read = 0;
    for (int k = 0; k < n && !stg_stopping(stg); k++, n_read++) {
        struct job *j = &jobs[k];
        j->k = k;
        j->arg = paths[k];
        j->path = strcmp(paths[k], "-") ? paths[k] : o->stdin_name ? o->stdin_name : "<stdin>";
        j->p = &p;
        j->r.status = INGEST_FAILED;
        job_read(&p, j, &seq);
    }

    pthread_mutex_lock(&p.mu);
    p.n_jobs = n_read;
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
    free(p.pending);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv_work);
    pthread_cond_destroy(&p.cv_write);
    pthread_cond_destroy(&p.cv_space);
    return n_read;
}


/* ---- the stage ---- */

const struct sp_opt stg_ingest_options[] = {
#define O(f) offsetof(struct stg_ingest_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store (created if missing)" },
    { "corpus", SP_OPT_STR, O(corpus), "main", .metavar = "NAME", .help = "corpus to add to" },
    { "split", SP_OPT_STR, O(split), .metavar = "S", .help = "split recorded on every sentence (train, dev, test, ...)" },
    { "format", SP_OPT_CHOICE, O(format), "auto", .choices = "auto|conllu/conll|ptb/mrg|dep/dp",
      .help = "override format detection for every file" },
    { "workers", SP_OPT_INT, O(workers), "2", .lo = 1, .hi = 256, .metavar = "N", .help = "parse/structure threads; one writer thread writes SQLite" },
    { "levels", SP_OPT_INT, O(levels), "3", .lo = 1, .hi = 16, .metavar = "T", .help = "PSAN phrase-division levels" },
    { "max-words", SP_OPT_INT, O(max_words), "2048", .lo = 1, .hi = ING_MAX_WORDS_LIMIT, .metavar = "N", .help =
      "longer sentences go to the quarantine: the cached structures of an n-word sentence take about 11*n^2 bytes "
      "of a worker's memory" },
    { "chunk-kb", SP_OPT_INT, O(chunk_kb), "1024", .lo = 1, .hi = 1 << 20, .metavar = "KB", .help = "read size (a chunk holds whole sentences)" },
    { "strict", SP_OPT_FLAG, O(mode), .flag_value = SP_MODE_STRICT,
      .help = "the first malformed sentence aborts its file; nothing from it is kept" },
    { "repair", SP_OPT_FLAG, O(mode), .flag_value = SP_MODE_REPAIR,
      .help = "repair heads deterministically (docs/spec/structures.md §2.1), recording warnings "
              "(default: malformed sentences go to the quarantine table with file:line and reason)" },
    { "dry-run", SP_OPT_FLAG, O(dry_run), .help = "parse and compute without a store (benchmarks)" },
    { "no-structures", SP_OPT_FLAG, O(no_structures), .help = "parse only (benchmarks)" },
    { "stdin-name", SP_OPT_STR, O(stdin_name), .metavar = "NAME",
      .help = "the name '-' (standard input) is stored under (default <stdin>); its extension decides the format, "
              "its stem the sentences' document" },
    { "inputs", SP_OPT_PATHS, O(inputs), .metavar = "FILE", .help = "files, folders or '-' (also given as operands)" },
#undef O
    { 0 },
};

int stg_shard_of(const char *path, long position, long n)
{
    if (n <= 1) return 0;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t len = strlen(base);
    if (len > 3 && !strcmp(base + len - 3, ".gz")) len -= 3;
    for (size_t i = len; i > 1; i--)
        if (base[i - 1] == '.') { len = i - 1; break; }
    char pos[32];
    int m = snprintf(pos, sizeof pos, "\n%ld", position);
    struct sp_sha256 h;
    char hex[65];
    sp_sha256_init(&h);
    sp_sha256_update(&h, "synprobe-shard-1\n", 17);
    sp_sha256_update(&h, base, len);
    sp_sha256_update(&h, pos, (size_t)m);
    sp_sha256_hex(&h, hex);
    hex[16] = 0;
    uint64_t x = strtoull(hex, NULL, 16);
    return (int)(x % (uint64_t)n);
}

int stg_ingest_is_treebank_name(const char *name)
{
    size_t n = strlen(name);
    if (n > 3 && !strcmp(name + n - 3, ".gz")) {   /* dev.conllu.gz: judge by the name inside */
        char inner[1024];
        snprintf(inner, sizeof inner, "%.*s", (int)(n - 3), name);
        return n - 3 < sizeof inner && stg_ingest_is_treebank_name(inner);
    }
    const char *dot = strrchr(name, '.');
    if (!dot) return 0;
    return !strcmp(dot, ".conllu") || !strcmp(dot, ".conll") || !strcmp(dot, ".mrg") ||
           !strcmp(dot, ".dp") || !strcmp(dot, ".dep") || !strcmp(dot, ".ptb");
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* FILE stays as given; DIR expands to its treebank files in name order. */
static void expand_arg(const char *arg, char ***list, int *n, int *cap)
{
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(arg);
        if (d) {
            int start = *n;
            struct dirent *e;
            while ((e = readdir(d))) {
                if (!stg_ingest_is_treebank_name(e->d_name)) continue;
                if (*n == *cap) { *cap = *cap ? 2 * *cap : 64; *list = sp_xrealloc(*list, sizeof **list * (size_t)*cap); }
                size_t len = strlen(arg) + strlen(e->d_name) + 2;
                char *p = sp_xmalloc(len);
                snprintf(p, len, "%s/%s", arg, e->d_name);
                (*list)[(*n)++] = p;
            }
            closedir(d);
            qsort(*list + start, (size_t)(*n - start), sizeof **list, cmp_str);
            return;
        }
    }
    if (*n == *cap) { *cap = *cap ? 2 * *cap : 64; *list = sp_xrealloc(*list, sizeof **list * (size_t)*cap); }
    (*list)[(*n)++] = sp_xstrdup(arg);
}

struct stage_run {
    struct stg_ctx *ctx;
    struct stg_ingest_result *r;
    int log_files;             /* a line per file (a few files only) */
};

/* Writer thread, file order: keep the file's result, log it, report progress. */
static void file_done(int k, const char *path, const struct ingest_result *fr, void *arg)
{
    struct stage_run *s = arg;
    struct stg_ingest_result *r = s->r;
    struct stg_ingest_file *f = &r->files[k];
    f->path = sp_xstrdup(path);
    f->status = (enum stg_ingest_status)fr->status;
    f->fmt = fr->fmt;
    f->sum = fr->sum;
    f->tokens_parsed = fr->tokens_parsed;
    f->repaired = fr->repaired;
    f->skipped_lines = fr->skipped_lines;
    snprintf(f->error, sizeof f->error, "%s", fr->error);
    if (fr->status == INGEST_FAILED) { r->n_failed++; sp_log(s->ctx->log, SP_LOG_ERROR, "%s", fr->error); }
    else if (fr->status == INGEST_UNCHANGED) { r->n_unchanged++; r->unchanged_sentences += fr->recorded.n_sentences; }
    else r->n_done++;
    r->sentences += fr->sum.n_sentences - fr->sum.n_attached;
    r->attached += fr->sum.n_attached;
    r->rejected += fr->sum.n_rejected;
    r->repaired += fr->repaired;
    r->skipped_lines += fr->skipped_lines;
    r->kept += fr->sum.n_kept;
    r->words += fr->sum.n_words;
    r->tokens += fr->tokens_parsed;
    if (s->log_files && fr->status == INGEST_UNCHANGED) {
        sp_log(s->ctx->log, SP_LOG_INFO, "%s: unchanged [%s] (as ingested before: %d sentences, %d rejected, %ld words)", path,
               ing_format_name(fr->fmt), fr->recorded.n_sentences, fr->recorded.n_rejected, fr->recorded.n_words);
    } else if (s->log_files && fr->status != INGEST_FAILED) {
        char kept[128] = "";
        if (fr->sum.n_kept)
            snprintf(kept, sizeof kept, "; %d kept: stored identically by an earlier version of this file", fr->sum.n_kept);
        char repaired[96] = "", skipped[96] = "";
        if (fr->repaired)
            snprintf(repaired, sizeof repaired, ", %d repaired (their warnings are stored on them)", fr->repaired);
        if (fr->skipped_lines)
            snprintf(skipped, sizeof skipped, "; %ld comment line%s without a sentence skipped", fr->skipped_lines,
                     fr->skipped_lines > 1 ? "s" : "");
        sp_log(s->ctx->log, SP_LOG_INFO, "%s: %s [%s] %d sentences%s, %d rejected%s, %ld words%s%s", path,
               "ingested", ing_format_name(fr->fmt), fr->sum.n_sentences,
               fr->sum.n_attached ? " (attached to existing)" : "", fr->sum.n_rejected, repaired, fr->sum.n_words, kept,
               skipped);
    }
    stg_progress(s->ctx, "files", (uint64_t)k + 1, (uint64_t)r->n_files);
}

int stg_ingest_check(struct stg_ctx *ctx, const struct stg_ingest_opts *o)
{
    if (!o->db && !o->dry_run) return stg_fail(ctx, SP_EUSAGE, "--db is required");
    if (!o->inputs.n) return stg_fail(ctx, SP_EUSAGE, "no input files");
    if (!o->corpus || !o->corpus[0]) return stg_fail(ctx, SP_EUSAGE, "--corpus: expected a name, got an empty string");
    if (o->stdin_name && !strcmp(o->stdin_name, "-"))
        return stg_fail(ctx, SP_EUSAGE, "--stdin-name: expected a file name, got '-'");
    return SP_OK;
}

int stg_ingest(struct stg_ctx *ctx, const struct stg_ingest_opts *o, struct stg_ingest_result *r)
{
    memset(r, 0, sizeof *r);
    int rc0 = stg_ingest_check(ctx, o);
    if (rc0) return rc0;

    char **files = NULL;
    int n = 0, cap = 0;
    for (int i = 0; i < o->inputs.n; i++) expand_arg(o->inputs.v[i], &files, &n, &cap);
    r->n_files = n;
    r->files = sp_xcalloc((size_t)(n ? n : 1), sizeof *r->files);

    struct st_db *db = NULL;
    int64_t corpus_id = 0;
    if (!o->dry_run) {
        struct stat sb;
        int fresh = stat(o->db, &sb) != 0 || sb.st_size == 0;   /* created by this run: load in bulk */
        int rc;
        if ((rc = st_open(o->db, ST_OPEN_CREATE, &db, ctx->err, sizeof ctx->err)) ||
            (fresh && (rc = st_bulk_begin(db, ctx->err, sizeof ctx->err))) ||
            (rc = st_corpus_id(db, o->corpus, 1, &corpus_id, ctx->err, sizeof ctx->err))) {
            st_close(db);
            for (int i = 0; i < n; i++) free(files[i]);
            free(files);
            return rc == SP_EUSAGE ? SP_ESTORE : rc;   /* a store that is not ours is bad input, not usage */
        }
    }
    struct ingest_opts po = {
        .fmt = (enum sp_format)o->format, .mode = (enum sp_mode)o->mode, .split = o->split, .workers = (int)o->workers,
        .levels = (int)o->levels, .structures = !o->no_structures, .chunk_bytes = (size_t)o->chunk_kb * 1024,
        .max_messages = 20, .max_words = (int)o->max_words, .stdin_name = o->stdin_name,
        .shard_k = o->shard_k, .shard_n = o->shard_n,
    };
    struct stage_run s = { ctx, r, n <= 20 };
    double t0 = sp_now();
    int n_read = ingest_files(ctx, db, corpus_id, files, n, &po, file_done, &s);
    char err[SP_ERRLEN];
    if (db && st_bulk_end(db, err, sizeof err)) sp_log(ctx->log, SP_LOG_WARN, "%s", err);
    r->seconds = sp_now() - t0;
    st_close(db);
    for (int k = n_read; k < n; k++) {        /* never read: a stop request came first */
        r->files[k].status = STG_INGEST_FAILED;
        r->files[k].path = sp_xstrdup(files[k]);
        snprintf(r->files[k].error, sizeof r->files[k].error, "not read: stopped before it");
    }
    for (int i = 0; i < n; i++) free(files[i]);
    free(files);
    sp_log(ctx->log, SP_LOG_DEBUG, "ingest: %d files (%d ingested, %d unchanged, %d failed), %ld tokens in %.2fs (%.0f tokens/s)",
           n, r->n_done, r->n_unchanged, r->n_failed, r->tokens, r->seconds, r->seconds > 0 ? r->tokens / r->seconds : 0.0);
    if (n_read < n || stg_stopping(ctx)) return stg_stopped(ctx);
    /* an unchanged file counts by what it gave when it was ingested: a file whose every sentence
     * was rejected fails again when given again, as it did the first time */
    int ingested_any = r->sentences + r->attached + r->kept + r->unchanged_sentences > 0;
    if (r->n_failed) return stg_fail(ctx, SP_EPARSE, "%d of %d files failed", r->n_failed, n);
    if (!ingested_any && o->shard_n <= 1) return stg_fail(ctx, SP_EPARSE, "nothing was ingested");
    return SP_OK;
}

void stg_ingest_result_free(struct stg_ingest_result *r)
{
    for (int i = 0; r->files && i < r->n_files; i++) free((char *)r->files[i].path);
    free(r->files);
    r->files = NULL;
}
