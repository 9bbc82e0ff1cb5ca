/* daemon/ingest_job.c — the ingest pipeline for one file.
 *
 * DESIGN. The caller's thread reads the file in blocks, cuts each block at the last
 * sentence boundary (ing_chunk_end) and queues the chunk with its sequence number and
 * first line. Workers parse chunks and compute every structure (st_derive) into the
 * chunk's own arena. The writer thread takes finished chunks strictly in sequence order
 * and writes them inside the file's single transaction, so positions (and thus the
 * pairing of .mrg with .dp) never depend on thread timing. A rejected sentence in strict
 * mode, or a SQLite failure, sets `stop`; everyone drains and the transaction rolls back. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

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

struct chunk {
    long seq;
    char *buf;
    size_t len;
    long first_line;
    int bom_ok;
    int parsed;                    /* set by the worker */
    int chunk_rc;
    char chunk_err[SP_ERRLEN];
    struct ing_batch batch;
    struct st_derived *derived;    /* [batch.n_items], from the batch arena */
    struct chunk *next;
};

struct pipeline {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct chunk *todo_head, *todo_tail;     /* FIFO for workers */
    struct chunk *done;                      /* parsed, waiting for the writer (any order) */
    int in_flight, max_in_flight;
    long next_write;                         /* sequence the writer needs next */
    long n_chunks;                           /* total, known once reading ends (-1 before) */
    int stop;                                /* strict-mode rejection or store failure */
    int reading_done;

    const struct ingest_opts *o;
    enum sp_format fmt;
    struct st_file *file;                    /* NULL on the dry-run path */
    const char *path;
    int position;                            /* items written so far */
    int messages;
    struct ingest_result *r;
};

static void *worker_main(void *arg)
{
    struct pipeline *p = arg;
    struct st_derive_scratch sc;
    st_derive_scratch_init(&sc);
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->todo_head && !(p->reading_done && !p->todo_head)) pthread_cond_wait(&p->cv, &p->mu);
        struct chunk *c = p->todo_head;
        if (!c) { pthread_mutex_unlock(&p->mu); break; }
        p->todo_head = c->next;
        if (!p->todo_head) p->todo_tail = NULL;
        int stopped = p->stop;
        pthread_mutex_unlock(&p->mu);

        if (!stopped) {
            c->chunk_rc = ing_parse_chunk(p->fmt, p->o->mode, c->buf, c->len, c->first_line, c->bom_ok,
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
        c->parsed = 1;
        c->next = p->done;
        p->done = c;
        pthread_cond_broadcast(&p->cv);
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

/* Write one parsed chunk (writer thread, outside the lock). Returns 0 or sets p->stop. */
static void write_chunk(struct pipeline *p, struct chunk *c)
{
    struct ingest_result *r = p->r;
    if (c->chunk_rc) {
        snprintf(r->error, sizeof r->error, "%s:%ld: %s", p->path, c->first_line, c->chunk_err);
        p->stop = 1;
        return;
    }
    for (int i = 0; i < c->batch.n_items && !p->stop; i++) {
        struct ing_item *it = &c->batch.item[i];
        p->position++;
        r->sentences_parsed++;
        r->tokens_parsed += it->error ? 0 : it->s.n;
        if (!p->file) {                    /* dry run: count only */
            if (it->error) r->sum.n_rejected++;
            else { r->sum.n_sentences++; r->sum.n_words += it->s.n; }
            continue;
        }
        char err[SP_ERRLEN];
        int rc = st_file_put(p->file, p->position, it, c->derived ? &c->derived[i] : NULL, err, sizeof err);
        if (rc == SP_EPARSE) {
            if (p->o->mode == SP_MODE_STRICT) {
                snprintf(r->error, sizeof r->error, "%s (--strict: nothing from this file was kept)", err);
                p->stop = 1;
            } else if (!p->o->quiet && p->messages++ < p->o->max_messages) {
                fprintf(stderr, "%s\n", err);
            }
        } else if (rc) {
            snprintf(r->error, sizeof r->error, "%s", err);
            p->stop = 1;
        }
    }
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
        if (!c) { pthread_cond_wait(&p->cv, &p->mu); continue; }
        int stopped = p->stop;
        pthread_mutex_unlock(&p->mu);
        if (!stopped) write_chunk(p, c);
        chunk_free(c);
        pthread_mutex_lock(&p->mu);
        p->next_write++;
        p->in_flight--;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void submit(struct pipeline *p, struct chunk *c)
{
    pthread_mutex_lock(&p->mu);
    while (p->in_flight >= p->max_in_flight && !p->stop) pthread_cond_wait(&p->cv, &p->mu);
    p->in_flight++;
    c->next = NULL;
    if (p->todo_tail) p->todo_tail->next = c; else p->todo_head = c;
    p->todo_tail = c;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static long count_lines(const char *s, size_t n)
{
    long k = 0;
    for (const char *e = s + n; (s = memchr(s, '\n', (size_t)(e - s))); s++) k++;
    return k;
}

/* First pass: content hash, plus the checks that decide whether the file is readable at all. */
static int hash_file(FILE *fp, const char *path, char sha[65], char *head, size_t *head_len, char *err, size_t errlen)
{
    struct sp_sha256 h;
    sp_sha256_init(&h);
    char *buf = sp_xmalloc(1u << 20);
    size_t n, total = 0;
    *head_len = 0;
    int rc = SP_OK;
    while ((n = fread(buf, 1, 1u << 20, fp)) > 0) {
        if (total == 0) { *head_len = n < 65536 ? n : 65536; memcpy(head, buf, *head_len); }
        const char *nul = memchr(buf, 0, n);
        if (nul) {
            snprintf(err, errlen, "%s: binary data (NUL byte at offset %zu); expected a text treebank", path,
                     total + (size_t)(nul - buf));
            rc = SP_EPARSE;
            break;
        }
        sp_sha256_update(&h, buf, n);
        total += n;
    }
    if (!rc && ferror(fp)) { snprintf(err, errlen, "%s: read error: %s", path, strerror(errno)); rc = SP_EIO; }
    if (!rc && total == 0) { snprintf(err, errlen, "%s: empty file; expected at least one sentence", path); rc = SP_EPARSE; }
    free(buf);
    if (!rc) sp_sha256_hex(&h, sha);
    return rc;
}

int ingest_file(struct st_db *db, int64_t corpus_id, const char *path, const struct ingest_opts *o,
                struct ingest_result *r)
{
    memset(r, 0, sizeof *r);
    r->status = INGEST_FAILED;
    struct stat st;
    if (stat(path, &st) != 0) { snprintf(r->error, sizeof r->error, "%s: cannot read: %s", path, strerror(errno)); return SP_EIO; }
    if (S_ISDIR(st.st_mode)) { snprintf(r->error, sizeof r->error, "%s: is a directory; expected a treebank file", path); return SP_EIO; }
    FILE *fp = fopen(path, "rb");
    if (!fp) { snprintf(r->error, sizeof r->error, "%s: cannot read: %s", path, strerror(errno)); return SP_EIO; }

    char sha[65], *head = sp_xmalloc(65536);
    size_t head_len;
    int rc = hash_file(fp, path, sha, head, &head_len, r->error, sizeof r->error);
    enum sp_format fmt = o->fmt;
    if (!rc && fmt == SP_FMT_AUTO) {
        fmt = ing_detect_format(path, head, head_len);
        if (fmt == SP_FMT_AUTO) {
            snprintf(r->error, sizeof r->error, "%s: unknown format: expected CoNLL-U (10 tab-separated columns), "
                     "PTB brackets '( (S ...) )' or 'word TAB POS TAB head' lines; use --format to say which", path);
            rc = SP_EPARSE;
        }
    }
    free(head);
    r->fmt = fmt;
    if (rc) { fclose(fp); return rc; }

    struct pipeline p;
    memset(&p, 0, sizeof p);
    p.o = o;
    p.fmt = fmt;
    p.path = path;
    p.r = r;
    p.n_chunks = -1;
    p.max_in_flight = 2 * o->workers + 2;
    if (db) {
        int64_t found;
        if (st_source_find(db, corpus_id, sha, &found)) { snprintf(r->error, sizeof r->error, "%s: store lookup failed", path); fclose(fp); return SP_ESTORE; }
        if (found) { r->status = INGEST_UNCHANGED; fclose(fp); return SP_OK; }
        if ((rc = st_file_begin(db, corpus_id, path, sha, fmt, o->mode, o->split, &p.file, r->error, sizeof r->error))) {
            fclose(fp);
            return rc;
        }
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    int nw = o->workers < 1 ? 1 : o->workers;
    pthread_t *workers = sp_xcalloc((size_t)nw, sizeof *workers), writer;
    for (int i = 0; i < nw; i++) pthread_create(&workers[i], NULL, worker_main, &p);
    pthread_create(&writer, NULL, writer_main, &p);

    /* read: carry the tail after the last boundary over into the next chunk */
    rewind(fp);
    size_t cap = o->chunk_bytes ? o->chunk_bytes : (1u << 20), carry = 0;
    char *carry_buf = NULL;
    long seq = 0, line = 1;
    int eof = 0, first = 1;
    while (!eof) {
        pthread_mutex_lock(&p.mu);
        int stopped = p.stop;
        pthread_mutex_unlock(&p.mu);
        if (stopped) break;
        size_t want = cap > carry ? cap : carry * 2;
        char *buf = sp_xmalloc(want + 1);
        if (carry) memcpy(buf, carry_buf, carry);
        free(carry_buf);
        carry_buf = NULL;
        size_t len = carry + fread(buf + carry, 1, want - carry, fp);
        eof = len < want;
        if (ferror(fp)) {
            snprintf(r->error, sizeof r->error, "%s: read error: %s", path, strerror(errno));
            pthread_mutex_lock(&p.mu); p.stop = 1; pthread_mutex_unlock(&p.mu);
            free(buf);
            break;
        }
        size_t end = ing_chunk_end(fmt, buf, len, eof);
        if (end == 0 && !eof) {           /* one sentence longer than the buffer: read more */
            carry = len;
            carry_buf = buf;
            cap = want * 2;
            continue;
        }
        carry = len - end;
        if (carry) { carry_buf = sp_xmalloc(carry); memcpy(carry_buf, buf + end, carry); }
        if (end == 0) { free(buf); continue; }
        struct chunk *c = sp_xcalloc(1, sizeof *c);
        c->seq = seq++;
        c->buf = buf;
        c->len = end;
        c->first_line = line;
        c->bom_ok = first;
        ing_batch_init(&c->batch);
        first = 0;
        line += count_lines(buf, end);
        submit(&p, c);
        cap = o->chunk_bytes ? o->chunk_bytes : (1u << 20);
    }
    free(carry_buf);
    fclose(fp);

    pthread_mutex_lock(&p.mu);
    p.reading_done = 1;
    p.n_chunks = seq;
    pthread_cond_broadcast(&p.cv);
    pthread_mutex_unlock(&p.mu);
    for (int i = 0; i < nw; i++) pthread_join(workers[i], NULL);
    pthread_join(writer, NULL);
    free(workers);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);

    if (p.stop) {
        st_file_abort(p.file);
        r->sum = (struct st_file_summary){ 0 };
        return r->error[0] ? SP_EPARSE : SP_ESTORE;
    }
    if (p.file) {
        if ((rc = st_file_commit(p.file, &r->sum, r->error, sizeof r->error))) return rc;
        if (p.messages > o->max_messages && !o->quiet)
            fprintf(stderr, "%s: %d more rejected sentences (see the quarantine table)\n", path, p.messages - o->max_messages);
    }
    r->status = INGEST_DONE;
    return SP_OK;
}
