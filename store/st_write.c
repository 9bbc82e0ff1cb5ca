/* store/st_write.c — one ingested file = one transaction.
 *
 * Sentences pair up across files by (corpus, doc, position): a PTB tree and a dependency
 * tree of the same sentence (wsj_0001.mrg and wsj_0001.dp, or a .conllu and a .mrg with the
 * same stem) attach to one sentence row. A sentence that conflicts with what the corpus
 * holds is quarantined with a message naming both files.
 *
 * A file's doc (source.stem, sentence.doc, and the default sent_id "<doc>.<position>") is
 * chosen when the file begins (file_doc): its name without folder and extension ("dev" for
 * "en/dev.conllu" or "en/dev.conllu.gz") unless a file of the same annotation kind
 * (dependency: .conllu/.dp; constituency: .mrg) from another path already holds that doc;
 * then the name is qualified by as many of its folders as it takes ("de/dev"). A file pairs
 * first with the other kind's file of its own folder (a.mrg with a.dp beside it), otherwise
 * with the other kind's file of the same name. A new version of the same path keeps the
 * path's doc: its new positions are added, the positions already stored are conflicts. */
#include <string.h>

#include "common/sp.h"
#include "store/st_int.h"

enum {
    Q_SOURCE_INS, Q_SOURCE_UPD, Q_BY_POS, Q_BY_SENT_ID, Q_SENT_INS, Q_TOKEN_INS, Q_EXTRA_INS,
    Q_DEP_INS, Q_CONST_INS, Q_QUAR_INS, Q_WORDS, Q_ATTACH_DEP_TOK, Q_ATTACH_DEP_SENT,
    Q_ATTACH_CONST_TOK, Q_ATTACH_CONST_SENT, Q_DOC_SEEN, Q_COUNT
};

static const char *const sql_text[Q_COUNT] = {
    [Q_SOURCE_INS] = "INSERT INTO source (corpus_id, path, stem, sha256, format, mode) VALUES (?1, ?2, ?3, "
                     "coalesce(?4, 'pending:' || (SELECT coalesce(max(source_id), 0) + 1 FROM source)), ?5, ?6)",
    [Q_SOURCE_UPD] = "UPDATE source SET n_sentences = ?2, n_rejected = ?3, n_words = ?4 WHERE source_id = ?1",
    [Q_BY_POS] = "SELECT s.sentence_id, s.sent_id, s.dep_source_id, s.const_source_id, s.n_words, "
                 "coalesce(d.path, c.path), coalesce(s.dep_line, s.const_line), d.path, c.path "
                 "FROM sentence s LEFT JOIN source d ON d.source_id = s.dep_source_id "
                 "LEFT JOIN source c ON c.source_id = s.const_source_id "
                 "WHERE s.corpus_id = ?1 AND s.doc = ?2 AND s.position = ?3",
    [Q_BY_SENT_ID] = "SELECT coalesce(d.path, c.path), coalesce(s.dep_line, s.const_line) "
                     "FROM sentence s LEFT JOIN source d ON d.source_id = s.dep_source_id "
                     "LEFT JOIN source c ON c.source_id = s.const_source_id "
                     "WHERE s.corpus_id = ?1 AND s.sent_id = ?2",
    [Q_SENT_INS] = "INSERT INTO sentence (corpus_id, sent_id, doc, position, split, text, comments, n_words, "
                   "dep_source_id, dep_line, const_source_id, const_line, warn, warnings) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    [Q_TOKEN_INS] = "INSERT INTO token VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    [Q_EXTRA_INS] = "INSERT INTO extra_line VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [Q_DEP_INS] = ("INSERT INTO dep_structure (sentence_id, n, root, max_depth, projective, depth, distance, "
                   "ancestors, rel_pos) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
    [Q_CONST_INS] = "INSERT INTO const_structure VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [Q_QUAR_INS] = "INSERT INTO quarantine (source_id, line, position, sent_id, reason, raw) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [Q_WORDS] = "SELECT form, xpos = '_' FROM token WHERE sentence_id = ?1 ORDER BY i",
    [Q_ATTACH_DEP_TOK] = "UPDATE token SET head = ?3, deprel = ?4 WHERE sentence_id = ?1 AND i = ?2",
    [Q_ATTACH_DEP_SENT] = "UPDATE sentence SET dep_source_id = ?2, dep_line = ?3 WHERE sentence_id = ?1",
    [Q_ATTACH_CONST_TOK] = "UPDATE token SET xpos = ?3 WHERE sentence_id = ?1 AND i = ?2 AND xpos = '_'",
    [Q_ATTACH_CONST_SENT] = "UPDATE sentence SET const_source_id = ?2, const_line = ?3 WHERE sentence_id = ?1",
    [Q_DOC_SEEN] = "SELECT EXISTS (SELECT 1 FROM sentence WHERE corpus_id = ?1 AND doc = ?2)",
};

/* Token rows dominate the store (one per word). They are buffered across sentences and go in
 * multi-row INSERTs of TOKEN_BATCH rows (one VDBE run per batch instead of per token); the
 * last few rows of a file go in batches of 16, 4 and 1 rows. */
#define TOKEN_BATCH 64
#define TOKEN_COLS 11
#define N_TOKSTMT 4
static const int tok_stmt_rows[N_TOKSTMT] = { TOKEN_BATCH, 16, 4, 1 };

/* A buffered token row: text columns are copied into st_file.tokbuf (the sentence's memory
 * belongs to the caller and may be gone by the time the batch is written). */
struct tok_row {
    int64_t sid;
    int i, head, has_head;
    uint32_t off[SP_NCOLS], len[SP_NCOLS];
};

/* Statements of one connection, prepared on its first file and kept until st_close:
 * a PTB-style corpus is thousands of small files, and preparing ~20 statements per file
 * cost more than writing the file's rows. */
struct st_write_cache {
    sqlite3_stmt *q[Q_COUNT];
    sqlite3_stmt *tok_stmt[N_TOKSTMT];
    int txn_open;             /* BEGIN done, COMMIT not yet */
    int held;                 /* files released into the open transaction (st_file_commit_held) */
};

static void write_cache_free(struct st_db *db)
{
    struct st_write_cache *c = db->wcache;
    if (!c) return;
    for (int i = 0; i < Q_COUNT; i++) sqlite3_finalize(c->q[i]);
    for (int i = 0; i < N_TOKSTMT; i++) sqlite3_finalize(c->tok_stmt[i]);
    free(c);
    db->wcache = NULL;
}

static int write_cache(struct st_db *db, char *err, size_t errlen)
{
    if (db->wcache) return SP_OK;
    struct st_write_cache *c = sp_xcalloc(1, sizeof *c);
    db->wcache = c;
    db->wcache_free = write_cache_free;
    for (int i = 0; i < Q_COUNT; i++)
        if (sqlite3_prepare_v3(db->h, sql_text[i], -1, SQLITE_PREPARE_PERSISTENT, &c->q[i], NULL) != SQLITE_OK)
            goto fail;
    for (int k = 0; k < N_TOKSTMT; k++) {
        struct sp_buf b = { 0 };
        /* OR FAIL: a multi-row INSERT with the default ABORT keeps a statement journal so it
         * can undo its own earlier rows, a copy of every page it touches (a tenth of the
         * writer's work). No row here can violate a constraint, and any error rolls the
         * whole file back anyway, so there is nothing for that journal to do. */
        sp_buf_puts(&b, "INSERT OR FAIL INTO token VALUES ");
        for (int r = 0; r < tok_stmt_rows[k]; r++) sp_buf_puts(&b, r ? ",(?,?,?,?,?,?,?,?,?,?,?)" : "(?,?,?,?,?,?,?,?,?,?,?)");
        int prc = sqlite3_prepare_v3(db->h, b.p, -1, SQLITE_PREPARE_PERSISTENT, &c->tok_stmt[k], NULL);
        sp_buf_free(&b);
        if (prc != SQLITE_OK) goto fail;
    }
    return SP_OK;
fail:
    st_sqlerr(db, "preparing statements", err, errlen);
    write_cache_free(db);
    return SP_ESTORE;
}

/* The connection ingest writes through: the store's own second connection (foreign-key
 * checks off, see st_open_writer), or db itself for an in-memory store, which a second
 * connection would not see. */
static struct st_db *writer_db(struct st_db *db, char *err, size_t errlen)
{
    if (!st_file_writer_separate(db)) return db;
    if (!db->writer && !pthread_equal(db->owner, pthread_self())) {
        /* opening it reads db's version through db's own connection, which its owner may be
         * using right now (connections are NOMUTEX): a race, so refuse it outright */
        snprintf(err, errlen, "%s: the ingest writer's connection must be opened (st_file_writer_open) "
                 "by the thread that opened the store", db->path);
        return NULL;
    }
    if (!db->writer && st_open_writer(db, &db->writer, err, errlen)) return NULL;
    return db->writer;
}

int st_file_writer_separate(const struct st_db *db) { return strcmp(db->path, ":memory:") && db->path[0]; }

int st_file_writer_open(struct st_db *db, char *err, size_t errlen)
{
    struct st_db *w = writer_db(db, err, errlen);
    return !w || write_cache(w, err, errlen) ? SP_ESTORE : SP_OK;
}

struct st_file {
    struct st_db *db;         /* the writer connection */
    sqlite3_stmt **q;         /* [Q_COUNT], from the connection's cache */
    sqlite3_stmt **tok_stmt;  /* [N_TOKSTMT] */
    int64_t corpus_id, source_id;
    char *path, *stem, *split;
    enum sp_format fmt;
    enum sp_mode mode;
    struct st_file_summary sum;
    struct sp_buf scratch;
    struct tok_row tok[TOKEN_BATCH];
    int n_tok;
    struct sp_buf tokbuf;
    int doc_seen;             /* the corpus already had sentences of this stem: look for pairs */
    int in_savepoint;
};

static const char *mode_name(enum sp_mode m)
{
    return m == SP_MODE_STRICT ? "strict" : m == SP_MODE_REPAIR ? "repair" : "default";
}

/* "./dir/wsj_0001.mrg" -> "dir/wsj_0001"; "en/dev.conllu.gz" -> "en/dev": the path without
 * its extension (and ".gz"), leading "./" dropped. */
static char *path_stem(const char *path)
{
    while (path[0] == '.' && path[1] == '/') path += 2;
    size_t n = strlen(path);
    if (n > 3 && !strcmp(path + n - 3, ".gz")) n -= 3;
    const char *slash = NULL;
    for (size_t i = 0; i < n; i++) if (path[i] == '/') slash = path + i;
    const char *base = slash ? slash + 1 : path;
    const char *dot = NULL;
    for (const char *q = base; q < path + n; q++) if (*q == '.') dot = q;
    if (dot && dot != base) n = (size_t)(dot - path);
    char *s = sp_xmalloc(n + 1);
    memcpy(s, path, n);
    s[n] = 0;
    return s;
}

/* The suffix of stem made of its last k+1 components ("a/b/c", 1 -> "b/c"); NULL if it has fewer. */
static const char *stem_suffix(const char *stem, int k)
{
    const char *p = stem + strlen(stem);
    for (int seen = 0; p > stem; p--)
        if (p[-1] == '/' && seen++ == k) return p;
    return NULL;
}

/* Which path holds doc for annotation kind is_const in this corpus: 0 none, 1 only (earlier
 * versions of) this path stem, 2 another file. */
static int doc_holder(struct st_db *db, int64_t corpus_id, const char *doc, int is_const, const char *pstem, int *rc)
{
    sqlite3_stmt *q;
    int held = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT path FROM source WHERE corpus_id = ?1 AND stem = ?2 AND (format = 'ptb') = ?3",
                           -1, &q, NULL)) { *rc = SP_ESTORE; return 2; }
    sqlite3_bind_int64(q, 1, corpus_id);
    sqlite3_bind_text(q, 2, doc, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 3, is_const);
    while (held < 2 && sqlite3_step(q) == SQLITE_ROW) {
        char *other = path_stem((const char *)sqlite3_column_text(q, 0));
        held = strcmp(other, pstem) ? 2 : 1;
        free(other);
    }
    sqlite3_finalize(q);
    return held;
}

/* The doc file path (of kind is_const) writes its sentences under; see the header comment. */
static char *file_doc(struct st_db *db, int64_t corpus_id, const char *path, int is_const, int *rc)
{
    char *pstem = path_stem(path), *doc = NULL;
    const char *base = strrchr(pstem, '/');
    base = base ? base + 1 : pstem;
    *rc = SP_OK;
    /* the other kind's file of this very folder (same path stem), if its doc has room */
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, "SELECT path, stem FROM source WHERE corpus_id = ?1 AND (format = 'ptb') != ?2 "
                           "AND replace(stem, rtrim(stem, replace(stem, '/', '')), '') = ?3"   /* index source_by_base */, -1, &q, NULL)) {
        *rc = SP_ESTORE;
        free(pstem);
        return NULL;
    }
    sqlite3_bind_int64(q, 1, corpus_id);
    sqlite3_bind_int(q, 2, is_const);
    sqlite3_bind_text(q, 3, base, -1, SQLITE_STATIC);
    while (!doc && sqlite3_step(q) == SQLITE_ROW) {
        char *other = path_stem((const char *)sqlite3_column_text(q, 0));
        const char *odoc = (const char *)sqlite3_column_text(q, 1);
        if (!strcmp(other, pstem) && doc_holder(db, corpus_id, odoc, is_const, pstem, rc) < 2) doc = sp_xstrdup(odoc);
        free(other);
    }
    sqlite3_finalize(q);
    /* else the name, qualified by as many folders as it takes to be free for this kind */
    for (int k = 0; !doc && !*rc; k++) {
        const char *cand = k == 0 ? base : stem_suffix(pstem, k);
        if (!cand) cand = pstem;
        if (doc_holder(db, corpus_id, cand, is_const, pstem, rc) < 2 || cand == pstem) doc = sp_xstrdup(cand);
    }
    free(pstem);
    return doc;
}

int st_source_find(struct st_db *db, int64_t corpus_id, const char *sha256, int64_t *found)
{
    sqlite3_stmt *st;
    *found = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT source_id FROM source WHERE corpus_id = ?1 AND sha256 = ?2", -1, &st, NULL))
        return SP_ESTORE;
    sqlite3_bind_int64(st, 1, corpus_id);
    sqlite3_bind_text(st, 2, sha256, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) *found = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return SP_OK;
}

int st_source_check_mode(struct st_db *db, int64_t found, const char *path, enum sp_mode mode,
                         struct st_file_summary *recorded, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (recorded) *recorded = (struct st_file_summary){ 0 };
    if (sqlite3_prepare_v2(db->h, "SELECT mode, path, n_rejected, n_sentences, n_words FROM source WHERE source_id = ?1", -1,
                           &st, NULL))
        return st_sqlerr(db, "looking up the source", err, errlen);
    sqlite3_bind_int64(st, 1, found);
    int rc = SP_EEXIST;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *had = (const char *)sqlite3_column_text(st, 0), *want = mode_name(mode);
        if (had && strcmp(had, want) != 0 && strcmp(had, "strict") != 0 &&
            !(strcmp(had, "default") == 0 && mode == SP_MODE_STRICT && sqlite3_column_int64(st, 2) == 0)) {
            snprintf(err, errlen, "%s: these bytes were already ingested in %s mode (as %s); in %s mode they would be "
                     "stored differently, so nothing was done: to ingest them %s, use another --corpus or a new store",
                     path, had, (const char *)sqlite3_column_text(st, 1), want,
                     mode == SP_MODE_STRICT ? "with --strict" : mode == SP_MODE_REPAIR ? "with --repair" : "without --strict or --repair");
            rc = SP_EPARSE;
        } else if (recorded) {
            recorded->n_rejected = sqlite3_column_int(st, 2);
            recorded->n_sentences = sqlite3_column_int(st, 3);
            recorded->n_words = (long)sqlite3_column_int64(st, 4);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

static void file_free(struct st_file *f)
{
    sp_buf_free(&f->tokbuf);
    free(f->path);
    free(f->stem);
    free(f->split);
    sp_buf_free(&f->scratch);
    free(f);
}

/* Undo this file: back to its savepoint; the transaction itself ends too unless it holds
 * files released before this one. Frees f. */
static void file_undo(struct st_file *f)
{
    struct st_write_cache *c = f->db->wcache;
    if (f->in_savepoint) sqlite3_exec(f->db->h, "ROLLBACK TO st_file; RELEASE st_file", 0, 0, 0);
    if (c->txn_open && !c->held) {
        sqlite3_exec(f->db->h, "ROLLBACK", 0, 0, 0);
        c->txn_open = 0;
    }
    file_free(f);
}

int st_file_begin(struct st_db *db, int64_t corpus_id, const char *path, const char *sha256,
                  enum sp_format fmt, enum sp_mode mode, const char *split,
                  struct st_file **out, char *err, size_t errlen)
{
    *out = NULL;
    struct st_db *w = writer_db(db, err, errlen);
    if (!w || write_cache(w, err, errlen)) return SP_ESTORE;
    db = w;
    struct st_file *f = sp_xcalloc(1, sizeof *f);
    f->db = db;
    f->q = db->wcache->q;
    f->tok_stmt = db->wcache->tok_stmt;
    f->corpus_id = corpus_id;
    f->path = sp_xstrdup(path);
    f->split = split ? sp_xstrdup(split) : NULL;
    f->fmt = fmt;
    f->mode = mode;
    /* Each file is a savepoint inside the connection's transaction, so it is all-or-nothing
     * whether it commits alone (st_file_commit) or with the files held before it. */
    struct st_write_cache *c = db->wcache;
    if (!c->txn_open) {
        if (st_begin_write(db, err, errlen)) { file_free(f); return SP_ESTORE; }
        c->txn_open = 1;
    }
    if (st_exec(db, "SAVEPOINT st_file", err, errlen)) { f->in_savepoint = 0; file_undo(f); return SP_ESTORE; }
    f->in_savepoint = 1;
    /* The caller looked the bytes up before parsing, but an ingest of several files commits
     * file k while file k+1 is being parsed: the same bytes twice in one run are caught
     * here, inside the transaction. SP_EEXIST: already in the corpus, nothing written. */
    int64_t found = 0;
    if (sha256 && (st_source_find(db, corpus_id, sha256, &found) || found)) {
        int rc = found ? st_source_check_mode(db, found, path, mode, NULL, err, errlen)
                       : st_sqlerr(db, "looking up the source", err, errlen);
        file_undo(f);
        return rc;
    }
    int drc;
    f->stem = file_doc(db, corpus_id, path, fmt == SP_FMT_PTB, &drc);
    if (drc) {
        int rc = st_sqlerr(db, "choosing the file's document name", err, errlen);
        file_undo(f);
        return rc;
    }
    sqlite3_stmt *seen = f->q[Q_DOC_SEEN];
    sqlite3_bind_int64(seen, 1, corpus_id);
    sqlite3_bind_text(seen, 2, f->stem, -1, SQLITE_STATIC);
    f->doc_seen = sqlite3_step(seen) == SQLITE_ROW && sqlite3_column_int(seen, 0);
    sqlite3_reset(seen);
    sqlite3_stmt *q = f->q[Q_SOURCE_INS];
    sqlite3_bind_int64(q, 1, corpus_id);
    sqlite3_bind_text(q, 2, path, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, f->stem, -1, SQLITE_STATIC);
    if (sha256) sqlite3_bind_text(q, 4, sha256, -1, SQLITE_STATIC);
    else sqlite3_bind_null(q, 4);
    sqlite3_bind_text(q, 5, ing_format_name(fmt), -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 6, mode_name(mode), -1, SQLITE_STATIC);
    if (sqlite3_step(q) != SQLITE_DONE) {
        st_sqlerr(db, "recording the source file", err, errlen);
        sqlite3_reset(q);
        file_undo(f);
        return SP_ESTORE;
    }
    sqlite3_reset(q);
    f->source_id = sqlite3_last_insert_rowid(db->h);
    *out = f;
    return SP_OK;
}

static int step_done(struct st_file *f, sqlite3_stmt *q, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    if (rc == SQLITE_DONE) return SP_OK;
    return st_sqlerr(f->db, what, err, errlen);
}

static void bind_blob(sqlite3_stmt *q, int k, struct st_blobref b)
{
    sqlite3_bind_blob(q, k, b.p, (int)b.n, SQLITE_STATIC);
}

static int quarantine(struct st_file *f, int position, long line, const char *sent_id, const char *reason,
                      const char *raw, size_t raw_len, char *err, size_t errlen)
{
    sqlite3_stmt *q = f->q[Q_QUAR_INS];
    sqlite3_bind_int64(q, 1, f->source_id);
    sqlite3_bind_int64(q, 2, line);
    sqlite3_bind_int(q, 3, position);
    sqlite3_bind_text(q, 4, sent_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 5, reason, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 6, raw ? raw : "", raw ? (int)raw_len : 0, SQLITE_STATIC);
    int rc = step_done(f, q, "quarantining a sentence", err, errlen);
    if (rc) return rc;
    f->sum.n_rejected++;
    return SP_OK;
}

/* Reject: quarantine it and hand back "file:line: sent_id: reason" as SP_EPARSE. */
static int reject(struct st_file *f, int position, long line, const char *sent_id, const char *reason,
                  const struct ing_item *it, char *err, size_t errlen)
{
    char msg[SP_ERRLEN];
    snprintf(msg, sizeof msg, "%s:%ld: %s: %s", f->path, line, sent_id, reason);
    int rc = quarantine(f, position, line, sent_id, msg, it->raw, it->raw_len, err, errlen);
    if (rc) return rc;
    snprintf(err, errlen, "%s", msg);
    return SP_EPARSE;
}

/* Write `rows` buffered token rows starting at tok[from] with the statement for that many rows.
 * Every parameter is bound each time, so the statement needs no clear_bindings. */
static int token_write(struct st_file *f, sqlite3_stmt *q, int from, int rows, char *err, size_t errlen)
{
    static const int col_param[SP_NCOLS] = { [SP_FORM] = 3, [SP_LEMMA] = 4, [SP_UPOS] = 5, [SP_XPOS] = 6,
                                             [SP_FEATS] = 7, [SP_DEPREL] = 9, [SP_DEPS] = 10, [SP_MISC] = 11 };
    const char *base = f->tokbuf.p;
    for (int r = 0; r < rows; r++) {
        const struct tok_row *t = &f->tok[from + r];
        int p = r * TOKEN_COLS;
        sqlite3_bind_int64(q, p + 1, t->sid);
        sqlite3_bind_int(q, p + 2, t->i);
        for (int c = 0; c < SP_NCOLS; c++)
            sqlite3_bind_text(q, p + col_param[c], base + t->off[c], (int)t->len[c], SQLITE_STATIC);
        if (t->has_head) sqlite3_bind_int(q, p + 8, t->head);
        else sqlite3_bind_null(q, p + 8);
    }
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    return rc == SQLITE_DONE ? SP_OK : st_sqlerr(f->db, "storing tokens", err, errlen);
}

/* Write every buffered token row: whole batches, then the remainder in 16-, 4- and 1-row steps. */
static int token_flush(struct st_file *f, char *err, size_t errlen)
{
    int done = 0, rc;
    for (int k = 0; k < N_TOKSTMT; k++)
        for (; f->n_tok - done >= tok_stmt_rows[k]; done += tok_stmt_rows[k])
            if ((rc = token_write(f, f->tok_stmt[k], done, tok_stmt_rows[k], err, errlen))) return rc;
    f->n_tok = 0;
    f->tokbuf.len = 0;
    return SP_OK;
}

static int token_add(struct st_file *f, int64_t sid, const struct sp_sentence *s, int i, char *err, size_t errlen)
{
    struct tok_row *t = &f->tok[f->n_tok];
    t->sid = sid;
    t->i = i;
    t->has_head = s->head != NULL;
    t->head = s->head ? s->head[i] : 0;
    const char *v[SP_NCOLS];
    size_t total = 0;
    for (int c = 0; c < SP_NCOLS; c++) {
        v[c] = s->col[c] ? s->col[c][i] : "_";
        t->len[c] = (uint32_t)strlen(v[c]);
        total += t->len[c];
    }
    struct sp_buf *b = &f->tokbuf;
    if (b->cap - b->len < total) {           /* one growth check per row, not per column */
        b->cap = (b->len + total) * 2 + 4096;
        b->p = sp_xrealloc(b->p, b->cap);
    }
    for (int c = 0; c < SP_NCOLS; c++) {
        t->off[c] = (uint32_t)b->len;
        memcpy(b->p + b->len, v[c], t->len[c]);
        b->len += t->len[c];
    }
    return ++f->n_tok == TOKEN_BATCH ? token_flush(f, err, errlen) : SP_OK;
}

static int insert_structures(struct st_file *f, int64_t sid, const struct sp_sentence *s, const struct st_derived *d,
                             char *err, size_t errlen)
{
    int rc = SP_OK;
    if (d && d->has_dep && s->head) {
        sqlite3_stmt *q = f->q[Q_DEP_INS];
        sqlite3_bind_int64(q, 1, sid);
        sqlite3_bind_int(q, 2, s->n);
        sqlite3_bind_int(q, 3, d->root);
        sqlite3_bind_int(q, 4, d->max_depth);
        sqlite3_bind_int(q, 5, d->projective);
        bind_blob(q, 6, d->depth);
        bind_blob(q, 7, d->distance);
        bind_blob(q, 8, d->ancestors);
        bind_blob(q, 9, d->relpos);
        rc = step_done(f, q, "storing dependency structures", err, errlen);
    }
    if (!rc && d && d->has_const && s->tree) {
        sqlite3_stmt *q = f->q[Q_CONST_INS];
        sqlite3_bind_int64(q, 1, sid);
        sqlite3_bind_text(q, 2, d->tree, -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 3, d->tree_depth);
        sqlite3_bind_text(q, 4, d->top_const, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 5, d->top_const_class, -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 6, d->levels);
        bind_blob(q, 7, d->phrases);
        sqlite3_bind_text(q, 8, d->n_phrases, -1, SQLITE_STATIC);
        bind_blob(q, 9, d->spans);
        rc = step_done(f, q, "storing constituency structures", err, errlen);
    }
    return rc;
}

static const char *sentence_text(struct st_file *f, const struct sp_sentence *s)
{
    if (s->text) return s->text;
    f->scratch.len = 0;
    for (int i = 0; i < s->n; i++) {
        if (i) sp_buf_put(&f->scratch, " ", 1);
        sp_buf_puts(&f->scratch, s->col[SP_FORM][i]);
    }
    return f->scratch.p ? f->scratch.p : "";
}

static int insert_sentence(struct st_file *f, int position, const char *sent_id, const struct sp_sentence *s,
                           const struct st_derived *d, char *err, size_t errlen)
{
    int is_dep = s->head != NULL, is_const = s->tree != NULL;
    sqlite3_stmt *q = f->q[Q_SENT_INS];
    sqlite3_bind_int64(q, 1, f->corpus_id);
    sqlite3_bind_text(q, 2, sent_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, f->stem, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 4, position);
    if (f->split) sqlite3_bind_text(q, 5, f->split, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 6, sentence_text(f, s), -1, SQLITE_STATIC);   /* stepped before scratch changes */
    if (s->comments) sqlite3_bind_text(q, 7, s->comments, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 8, s->n);
    /* a CoNLL-U file without heads still owns the words: record it as the dependency source */
    if (is_dep || f->fmt != SP_FMT_PTB) { sqlite3_bind_int64(q, 9, f->source_id); sqlite3_bind_int64(q, 10, s->line); }
    if (is_const) { sqlite3_bind_int64(q, 11, f->source_id); sqlite3_bind_int64(q, 12, s->line); }
    sqlite3_bind_int(q, 13, (int)s->warn);
    if (s->warnings) sqlite3_bind_text(q, 14, s->warnings, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    if (rc == SQLITE_CONSTRAINT_UNIQUE) return SP_EEXIST;   /* sent_id taken: the caller explains */
    if (rc != SQLITE_DONE) return st_sqlerr(f->db, "storing a sentence", err, errlen);
    int64_t sid = sqlite3_last_insert_rowid(f->db->h);

    for (int i = 0; i < s->n; i++)
        if ((rc = token_add(f, sid, s, i, err, errlen))) return rc;
    q = f->q[Q_EXTRA_INS];
    for (int k = 0; k < s->n_extra; k++) {
        const struct sp_extra *x = &s->extra[k];
        sqlite3_bind_int64(q, 1, sid);
        sqlite3_bind_int(q, 2, k);
        sqlite3_bind_int(q, 3, x->pos);
        sqlite3_bind_text(q, 4, x->kind == SP_EXTRA_MWT ? "mwt" : "empty", -1, SQLITE_STATIC);
        if (x->kind == SP_EXTRA_MWT) { sqlite3_bind_int(q, 5, x->first); sqlite3_bind_int(q, 6, x->last); }
        sqlite3_bind_text(q, 7, x->line, -1, SQLITE_STATIC);
        if ((rc = step_done(f, q, "storing a multiword/empty-node line", err, errlen))) return rc;
    }
    return insert_structures(f, sid, s, d, err, errlen);
}

/* The other annotation of this sentence is already stored: check the words, then add ours. */
static int attach(struct st_file *f, int position, int64_t sid, const char *sent_id, const char *other_path,
                  long other_line, const struct ing_item *it, const struct st_derived *d, char *err, size_t errlen)
{
    const struct sp_sentence *s = &it->s;
    int rc;
    if ((rc = token_flush(f, err, errlen))) return rc;   /* the statements below read and update tokens */
    sqlite3_stmt *q = f->q[Q_WORDS];
    sqlite3_bind_int64(q, 1, sid);
    int i = 0, mismatch = -1;
    /* which stored words still lack an XPOS: only those need the constituency file's tag,
     * so a .mrg attaching to a .dp/.conllu that has tags costs no per-word UPDATE */
    f->scratch.len = 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *w = (const char *)sqlite3_column_text(q, 0);
        if (mismatch < 0 && (i >= s->n || strcmp(w, s->col[SP_FORM][i]))) mismatch = i;
        char no_xpos = (char)sqlite3_column_int(q, 1);
        sp_buf_put(&f->scratch, &no_xpos, 1);
        i++;
    }
    sqlite3_reset(q);
    if (rc != SQLITE_DONE) return st_sqlerr(f->db, "reading stored words", err, errlen);
    if (mismatch < 0 && i != s->n) mismatch = i < s->n ? i : s->n;
    if (mismatch >= 0) {
        char reason[SP_ERRLEN];
        snprintf(reason, sizeof reason, "words differ from %s:%ld (same stem, position %d): first difference at word %d",
                 other_path, other_line, position, mismatch + 1);
        return reject(f, position, s->line, sent_id, reason, it, err, errlen);
    }
    int is_dep = s->head != NULL;
    for (i = 0; i < s->n; i++) {
        if (!is_dep && !f->scratch.p[i]) continue;   /* has an XPOS: the UPDATE's WHERE would skip it */
        q = f->q[is_dep ? Q_ATTACH_DEP_TOK : Q_ATTACH_CONST_TOK];
        sqlite3_bind_int64(q, 1, sid);
        sqlite3_bind_int(q, 2, i);
        if (is_dep) {
            sqlite3_bind_int(q, 3, s->head[i]);
            sqlite3_bind_text(q, 4, s->col[SP_DEPREL] ? s->col[SP_DEPREL][i] : "_", -1, SQLITE_STATIC);
        } else {
            sqlite3_bind_text(q, 3, s->col[SP_XPOS][i], -1, SQLITE_STATIC);
        }
        if ((rc = step_done(f, q, "attaching an annotation", err, errlen))) return rc;
    }
    q = f->q[is_dep ? Q_ATTACH_DEP_SENT : Q_ATTACH_CONST_SENT];
    sqlite3_bind_int64(q, 1, sid);
    sqlite3_bind_int64(q, 2, f->source_id);
    sqlite3_bind_int64(q, 3, s->line);
    if ((rc = step_done(f, q, "attaching an annotation", err, errlen))) return rc;
    f->sum.n_attached++;
    f->sum.n_words += s->n;
    return insert_structures(f, sid, s, d, err, errlen);
}

/* 1 if stored sentence sid already holds exactly this annotation (sent_id, every token column and
 * head for a dependency file; the normalised tree for a constituency file): a new version of a
 * file re-delivering a sentence its earlier version stored. */
static int same_as_stored(struct st_file *f, int64_t sid, const char *sent_id, const char *have_id,
                          const struct sp_sentence *s, const struct st_derived *d)
{
    if ((s->sent_id || f->fmt != SP_FMT_PTB) && strcmp(sent_id, have_id)) return 0;
    sqlite3_stmt *q;
    int same = 1, i = 0;
    if (f->fmt == SP_FMT_PTB) {
        if (!d || !d->tree) return 0;
        if (sqlite3_prepare_v2(f->db->h, "SELECT tree FROM const_structure WHERE sentence_id = ?1", -1, &q, NULL)) return 0;
        sqlite3_bind_int64(q, 1, sid);
        same = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0) &&
               !strcmp((const char *)sqlite3_column_text(q, 0), d->tree);
        sqlite3_finalize(q);
        return same;
    }
    char ferr[SP_ERRLEN];
    if (token_flush(f, ferr, sizeof ferr)) return 0;
    if (sqlite3_prepare_v2(f->db->h, "SELECT form, lemma, upos, xpos, feats, deprel, deps, misc, head FROM token "
                           "WHERE sentence_id = ?1 ORDER BY i", -1, &q, NULL)) return 0;
    sqlite3_bind_int64(q, 1, sid);
    static const int cols[8] = { SP_FORM, SP_LEMMA, SP_UPOS, SP_XPOS, SP_FEATS, SP_DEPREL, SP_DEPS, SP_MISC };
    while (same && sqlite3_step(q) == SQLITE_ROW) {
        if (i >= s->n) { same = 0; break; }
        for (int k = 0; k < 8 && same; k++) {
            const char *v = s->col[cols[k]] ? s->col[cols[k]][i] : "_";
            const char *w = (const char *)sqlite3_column_text(q, k);
            same = w && !strcmp(v, w);
        }
        if (same) same = s->head ? sqlite3_column_type(q, 8) != SQLITE_NULL && sqlite3_column_int(q, 8) == s->head[i]
                                 : sqlite3_column_type(q, 8) == SQLITE_NULL;
        i++;
    }
    sqlite3_finalize(q);
    return same && i == s->n;
}

/* The sentence stored at (this file's stem, position), as st_file_put compares with it */
struct stored_at {
    int64_t sid;
    char have_id[256], other[1024];  /* its sent_id; the file (path) it came from */
    long other_line;
    int has_dep, has_const;          /* which annotations it holds */
    int same_path;                   /* this file's kind of annotation came from a file of this path's stem */
};

/* Looks up the sentence at (f->stem, position): SQLITE_ROW with *at filled, SQLITE_DONE, or an
 * error code */
static int stored_at_position(struct st_file *f, int position, struct stored_at *at)
{
    sqlite3_stmt *q = f->q[Q_BY_POS];
    sqlite3_bind_int64(q, 1, f->corpus_id);
    sqlite3_bind_text(q, 2, f->stem, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 3, position);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        at->sid = sqlite3_column_int64(q, 0);
        snprintf(at->have_id, sizeof at->have_id, "%s", (const char *)sqlite3_column_text(q, 1));
        at->has_dep = sqlite3_column_type(q, 2) != SQLITE_NULL;
        at->has_const = sqlite3_column_type(q, 3) != SQLITE_NULL;
        snprintf(at->other, sizeof at->other, "%s", sqlite3_column_type(q, 5) == SQLITE_NULL ? "?" : (const char *)sqlite3_column_text(q, 5));
        at->other_line = (long)sqlite3_column_int64(q, 6);
        int col_mine = f->fmt != SP_FMT_PTB ? 7 : 8;
        at->same_path = 0;
        if (sqlite3_column_type(q, col_mine) != SQLITE_NULL) {
            char *a = path_stem((const char *)sqlite3_column_text(q, col_mine)), *b = path_stem(f->path);
            at->same_path = !strcmp(a, b);
            free(a);
            free(b);
        }
    }
    sqlite3_reset(q);
    return rc;
}

/* A sentence at a position that already holds one: kept when an earlier version of this file
 * stored the same; rejected when it holds this kind of annotation already; else attached as
 * the other annotation */
static int put_at_stored(struct st_file *f, int position, const char *sent_id, const struct ing_item *it,
                         const struct st_derived *d, const struct stored_at *at, char *err, size_t errlen)
{
    const struct sp_sentence *s = &it->s;
    int mine_dep = f->fmt != SP_FMT_PTB;
    if (at->same_path && same_as_stored(f, at->sid, sent_id, at->have_id, s, d)) {
        f->sum.n_kept++;           /* an earlier version of this file stored it already */
        return SP_OK;
    }
    if ((mine_dep && at->has_dep) || (!mine_dep && at->has_const)) {
        char reason[SP_ERRLEN];
        if (at->same_path)
            snprintf(reason, sizeof reason, "position %d of '%s' differs from the sentence an earlier version "
                     "of this file stored there (%s:%ld)", position, f->stem, at->other, at->other_line);
        else
            snprintf(reason, sizeof reason, "position %d of '%s' already holds a %s annotation from %s:%ld",
                     position, f->stem, mine_dep ? "dependency" : "constituency", at->other, at->other_line);
        return reject(f, position, s->line, sent_id, reason, it, err, errlen);
    }
    return attach(f, position, at->sid, it->s.sent_id ? it->s.sent_id : at->have_id, at->other, at->other_line, it, d,
                  err, errlen);
}

/* The UNIQUE (corpus, sent_id) constraint fired: the rejection says where the sent_id is taken */
static int reject_taken_sent_id(struct st_file *f, int position, const char *sent_id, const struct ing_item *it,
                                char *err, size_t errlen)
{
    sqlite3_stmt *q = f->q[Q_BY_SENT_ID];
    sqlite3_bind_int64(q, 1, f->corpus_id);
    sqlite3_bind_text(q, 2, sent_id, -1, SQLITE_STATIC);
    char reason[SP_ERRLEN];
    if (sqlite3_step(q) == SQLITE_ROW)
        snprintf(reason, sizeof reason, "sent_id already used in this corpus by %s:%lld",
                 sqlite3_column_type(q, 0) == SQLITE_NULL ? "?" : (const char *)sqlite3_column_text(q, 0),
                 (long long)sqlite3_column_int64(q, 1));
    else
        snprintf(reason, sizeof reason, "sent_id already used in this corpus");
    sqlite3_reset(q);
    return reject(f, position, it->s.line, sent_id, reason, it, err, errlen);
}

int st_file_put(struct st_file *f, int position, const struct ing_item *it, const struct st_derived *d,
                char *err, size_t errlen)
{
    char own_id[256];
    const char *sent_id = it->s.sent_id;
    if (!sent_id) { snprintf(own_id, sizeof own_id, "%s.%d", f->stem, position); sent_id = own_id; }
    if (it->error) return reject(f, position, it->error_line ? it->error_line : it->s.line, sent_id, it->error, it, err, errlen);

    const struct sp_sentence *s = &it->s;
    if (s->n > ST_BLOB_MAX_WORDS)
        return reject(f, position, s->line, sent_id, "sentence longer than 65535 words", it, err, errlen);

    /* same stem and position already stored? then this is the other annotation of it */
    int rc;
    if (f->doc_seen) {
        struct stored_at at;
        rc = stored_at_position(f, position, &at);
        if (rc == SQLITE_ROW) return put_at_stored(f, position, sent_id, it, d, &at, err, errlen);
        if (rc != SQLITE_DONE) return st_sqlerr(f->db, "looking up the sentence", err, errlen);
    }

    rc = insert_sentence(f, position, sent_id, s, d, err, errlen);
    if (rc == SP_EEXIST) return reject_taken_sent_id(f, position, sent_id, it, err, errlen);
    if (rc) return rc;
    f->sum.n_sentences++;
    f->sum.n_words += s->n;
    return SP_OK;
}

int st_file_hash(struct st_file *f, const char *sha256, struct st_file_summary *recorded, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(f->db->h, "SELECT source_id FROM source WHERE corpus_id = ?1 AND sha256 = ?2 AND source_id != ?3",
                           -1, &q, NULL))
        return st_sqlerr(f->db, "looking up the source", err, errlen);
    sqlite3_bind_int64(q, 1, f->corpus_id);
    sqlite3_bind_text(q, 2, sha256, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 3, f->source_id);
    int rc = sqlite3_step(q);
    int64_t found = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
    sqlite3_finalize(q);
    /* the same bytes: unchanged, unless ingested in a mode that would store them differently */
    if (rc == SQLITE_ROW) return st_source_check_mode(f->db, found, f->path, f->mode, recorded, err, errlen);
    if (rc != SQLITE_DONE) return st_sqlerr(f->db, "looking up the source", err, errlen);
    if (sqlite3_prepare_v2(f->db->h, "UPDATE source SET sha256 = ?2 WHERE source_id = ?1", -1, &q, NULL))
        return st_sqlerr(f->db, "recording the file's SHA-256", err, errlen);
    sqlite3_bind_int64(q, 1, f->source_id);
    sqlite3_bind_text(q, 2, sha256, -1, SQLITE_STATIC);
    rc = sqlite3_step(q);
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? SP_OK : st_sqlerr(f->db, "recording the file's SHA-256", err, errlen);
}

int st_file_commit_held(struct st_file *f, struct st_file_summary *sum, char *err, size_t errlen)
{
    f->sum.n_sentences += f->sum.n_attached;
    int rc = token_flush(f, err, errlen);
    if (!rc) {
        sqlite3_stmt *q = f->q[Q_SOURCE_UPD];
        sqlite3_bind_int64(q, 1, f->source_id);
        sqlite3_bind_int(q, 2, f->sum.n_sentences);
        sqlite3_bind_int(q, 3, f->sum.n_rejected);
        sqlite3_bind_int64(q, 4, f->sum.n_words);
        rc = step_done(f, q, "updating the source", err, errlen);
    }
    if (!rc) rc = st_exec(f->db, "RELEASE st_file", err, errlen);
    if (rc) { file_undo(f); return rc; }
    if (sum) *sum = f->sum;
    f->db->wcache->held++;
    file_free(f);
    return SP_OK;
}

int st_file_sync(struct st_db *db, char *err, size_t errlen)
{
    struct st_db *w = st_file_writer_separate(db) ? db->writer : db;
    struct st_write_cache *c = w ? w->wcache : NULL;
    if (!c || !c->txn_open) return SP_OK;
    int rc = st_exec(w, "COMMIT", err, errlen);
    if (rc) sqlite3_exec(w->h, "ROLLBACK", 0, 0, 0);
    c->txn_open = 0;
    c->held = 0;
    if (!rc && db->bulk && w != db) {   /* the first commit is in: WAL from here on (st_bulk_begin) */
        char got[16];
        if (!st_set_journal_mode(w, "wal", got, sizeof got) && !strcmp(got, "wal")) db->bulk = 0;
    }
    return rc;
}

int st_file_commit(struct st_file *f, struct st_file_summary *sum, char *err, size_t errlen)
{
    struct st_db *w = f->db;
    int rc = st_file_commit_held(f, sum, err, errlen);
    if (!rc) rc = st_file_sync(w, err, errlen);
    return rc;
}

void st_file_abort(struct st_file *f)
{
    if (f) file_undo(f);
}
