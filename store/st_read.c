/* store/st_read.c — a corpus back out of the store, sentence by sentence, in corpus order.
 * Three cursors walk sentences, tokens and extra lines in lockstep (merge join on sentence_id),
 * so reading a corpus is one pass over each table. */
#include <string.h>

#include "common/sp.h"
#include "store/st_int.h"

struct st_iter {
    struct st_db *db;
    sqlite3_stmt *sent, *tok, *extra;
    int tok_rc, extra_rc;
    unsigned want;
    int64_t corpus_id;
    int64_t last_id;            /* sentence_id of the last row returned (INT64_MIN before the first) */
    int paused;                 /* st_iter_pause reset the cursors; st_iter_next restarts them after last_id */
    struct sp_arena arena;
    struct ing_batch tree_batch;
    struct st_row row;
    char err[SP_ERRLEN];
};

static const char *sql_sent =
    "SELECT s.sentence_id, s.sent_id, s.split, s.text, s.comments, s.n_words, s.doc, s.position, s.warn, "
    "coalesce(s.dep_line, s.const_line), ds.depth, ds.distance, ds.ancestors, ds.rel_pos, "
    "cs.tree, cs.tree_depth, cs.top_const, cs.top_const_class, cs.phrase_levels, cs.phrases, cs.spans, s.warnings "
    "FROM sentence s LEFT JOIN dep_structure ds ON ds.sentence_id = s.sentence_id "
    "LEFT JOIN const_structure cs ON cs.sentence_id = s.sentence_id "
    "WHERE s.corpus_id = ?1 AND s.sentence_id > ?2 ORDER BY s.sentence_id";
static const char *sql_tok =
    "SELECT t.sentence_id, t.i, t.form, t.lemma, t.upos, t.xpos, t.feats, t.head, t.deprel, t.deps, t.misc "
    "FROM sentence s JOIN token t ON t.sentence_id = s.sentence_id WHERE s.corpus_id = ?1 AND s.sentence_id > ?2 ORDER BY t.sentence_id, t.i";
static const char *sql_extra =
    "SELECT x.sentence_id, x.pos, x.kind, x.first, x.last, x.line FROM sentence s "
    "JOIN extra_line x ON x.sentence_id = s.sentence_id WHERE s.corpus_id = ?1 AND s.sentence_id > ?2 ORDER BY x.sentence_id, x.seq";

/* (Re)start the three cursors at the first sentence after last_id. */
static void iter_start(struct st_iter *it)
{
    sqlite3_stmt *q[3] = { it->sent, it->tok, it->extra };
    for (int i = 0; i < 3; i++) {
        if (!q[i]) continue;
        sqlite3_bind_int64(q[i], 1, it->corpus_id);
        sqlite3_bind_int64(q[i], 2, it->last_id);
    }
    it->tok_rc = sqlite3_step(it->tok);
    if (it->extra) it->extra_rc = sqlite3_step(it->extra);
    it->paused = 0;
}

int st_iter_open(struct st_db *db, int64_t corpus_id, unsigned want, struct st_iter **out, char *err, size_t errlen)
{
    struct st_iter *it = sp_xcalloc(1, sizeof *it);
    it->db = db;
    it->want = want;
    sp_arena_init(&it->arena);
    ing_batch_init(&it->tree_batch);
    it->tree_batch.max_words = ING_MAX_WORDS_LIMIT;   /* stored under ingest's --max-words, whatever it was */
    *out = NULL;
    if (sqlite3_prepare_v2(db->h, sql_sent, -1, &it->sent, NULL) ||
        sqlite3_prepare_v2(db->h, sql_tok, -1, &it->tok, NULL) ||
        (want & ST_WANT_EXTRA && sqlite3_prepare_v2(db->h, sql_extra, -1, &it->extra, NULL))) {
        st_sqlerr(db, "reading the corpus", err, errlen);
        st_iter_close(it);
        return SP_ESTORE;
    }
    it->corpus_id = corpus_id;
    it->last_id = INT64_MIN;
    iter_start(it);
    *out = it;
    return SP_OK;
}

void st_iter_pause(struct st_iter *it)
{
    if (!it || it->paused) return;
    sqlite3_reset(it->sent);
    sqlite3_reset(it->tok);
    if (it->extra) sqlite3_reset(it->extra);
    it->paused = 1;
}

static const char *col_text(struct st_iter *it, sqlite3_stmt *q, int c)
{
    if (sqlite3_column_type(q, c) == SQLITE_NULL) return NULL;
    return sp_arena_strndup(&it->arena, (const char *)sqlite3_column_text(q, c), (size_t)sqlite3_column_bytes(q, c));
}

static struct st_blobref col_blob(struct st_iter *it, sqlite3_stmt *q, int c)
{
    struct st_blobref b = { NULL, 0 };
    if (sqlite3_column_type(q, c) == SQLITE_NULL) return b;
    b.n = (size_t)sqlite3_column_bytes(q, c);
    uint8_t *p = sp_arena_alloc(&it->arena, b.n);
    memcpy(p, sqlite3_column_blob(q, c), b.n);
    b.p = p;
    return b;
}

/* The sentence row's own columns (not its tokens, extra lines or structures) */
static void read_sentence_row(struct st_iter *it, sqlite3_stmt *q, struct st_row *r)
{
    memset(r, 0, sizeof *r);
    r->sentence_id = it->last_id = sqlite3_column_int64(q, 0);
    struct sp_sentence *s = &r->s;
    s->sent_id = col_text(it, q, 1);
    r->split = col_text(it, q, 2);
    s->text = col_text(it, q, 3);
    s->comments = col_text(it, q, 4);
    s->n = sqlite3_column_int(q, 5);
    r->doc = col_text(it, q, 6);
    r->position = sqlite3_column_int(q, 7);
    s->warn = (unsigned)sqlite3_column_int(q, 8);
    s->line = (long)sqlite3_column_int64(q, 9);
    s->warnings = col_text(it, q, 21);
}

/* The sentence's token rows into its columns and heads (NULL when every HEAD is NULL);
 * -1 when there are not exactly n of them */
static int read_tokens(struct st_iter *it, struct st_row *r)
{
    struct sp_sentence *s = &r->s;
    int n = s->n;
    for (int c = 0; c < SP_NCOLS; c++) s->col[c] = sp_arena_alloc(&it->arena, sizeof(char *) * (size_t)(n ? n : 1));
    int *head = sp_arena_alloc(&it->arena, sizeof(int) * (size_t)(n ? n : 1));
    int have_head = 0, k = 0;
    static const int tok_col[SP_NCOLS] = { [SP_FORM] = 2, [SP_LEMMA] = 3, [SP_UPOS] = 4, [SP_XPOS] = 5,
                                           [SP_FEATS] = 6, [SP_DEPREL] = 8, [SP_DEPS] = 9, [SP_MISC] = 10 };
    while (it->tok_rc == SQLITE_ROW && sqlite3_column_int64(it->tok, 0) == r->sentence_id) {
        if (k < n) {
            for (int c = 0; c < SP_NCOLS; c++) s->col[c][k] = col_text(it, it->tok, tok_col[c]);
            if (sqlite3_column_type(it->tok, 7) != SQLITE_NULL) { head[k] = sqlite3_column_int(it->tok, 7); have_head = 1; }
        }
        k++;
        it->tok_rc = sqlite3_step(it->tok);
    }
    if (k != n) {
        snprintf(it->err, sizeof it->err, "%s: sentence %lld has %d token rows, expected %d",
                 it->db->path, (long long)r->sentence_id, k, n);
        return -1;
    }
    s->head = have_head ? head : NULL;
    return 0;
}

/* The extra lines (multiword tokens, empty nodes) of sentence sid, in their order */
static void read_extras(struct st_iter *it, struct sp_sentence *s, int64_t sid)
{
    int cap = 0;
    while (it->extra_rc == SQLITE_ROW && sqlite3_column_int64(it->extra, 0) < sid)
        it->extra_rc = sqlite3_step(it->extra);
    while (it->extra_rc == SQLITE_ROW && sqlite3_column_int64(it->extra, 0) == sid) {
        if (s->n_extra == cap) {
            cap = cap ? 2 * cap : 8;
            struct sp_extra *nx = sp_arena_alloc(&it->arena, sizeof *nx * (size_t)cap);
            if (s->n_extra) memcpy(nx, s->extra, sizeof *nx * (size_t)s->n_extra);
            s->extra = nx;
        }
        struct sp_extra *x = &s->extra[s->n_extra++];
        sqlite3_stmt *e = it->extra;
        x->pos = sqlite3_column_int(e, 1);
        x->kind = !strcmp((const char *)sqlite3_column_text(e, 2), "mwt") ? SP_EXTRA_MWT : SP_EXTRA_EMPTY;
        x->first = sqlite3_column_type(e, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(e, 3);
        x->last = sqlite3_column_type(e, 4) == SQLITE_NULL ? -1 : sqlite3_column_int(e, 4);
        x->line = col_text(it, e, 5);
        it->extra_rc = sqlite3_step(it->extra);
    }
}

static void read_dep_structures(struct st_iter *it, sqlite3_stmt *q, struct st_row *r)
{
    r->has_dep = 1;
    r->depth = col_blob(it, q, 10);
    r->distance = col_blob(it, q, 11);
    r->ancestors = col_blob(it, q, 12);
    r->relpos = col_blob(it, q, 13);
}

/* The constituency structures, and the tree parsed back through the reader that ingested it;
 * -1 when it does not parse */
static int read_const_structures(struct st_iter *it, sqlite3_stmt *q, struct st_row *r)
{
    r->has_const = 1;
    r->tree_text = col_text(it, q, 14);
    r->tree_depth = sqlite3_column_int(q, 15);
    r->top_const = col_text(it, q, 16);
    r->top_const_class = col_text(it, q, 17);
    r->levels = sqlite3_column_int(q, 18);
    r->phrases = col_blob(it, q, 19);
    r->spans = col_blob(it, q, 20);
    char perr[SP_ERRLEN];
    if (ing_parse_chunk(SP_FMT_PTB, SP_MODE_STRICT, r->tree_text, strlen(r->tree_text), 1, 0,
                        &it->tree_batch, perr, sizeof perr) ||
        it->tree_batch.n_items != 1 || it->tree_batch.item[0].error) {
        snprintf(it->err, sizeof it->err, "%s: stored tree of sentence %lld does not parse", it->db->path,
                 (long long)r->sentence_id);
        return -1;
    }
    r->s.tree = it->tree_batch.item[0].s.tree;
    return 0;
}

int st_iter_next(struct st_iter *it, const struct st_row **out)
{
    sp_arena_reset(&it->arena);
    ing_batch_reset(&it->tree_batch);
    if (it->paused) iter_start(it);
    int rc = sqlite3_step(it->sent);
    if (rc == SQLITE_DONE) return 0;
    if (rc != SQLITE_ROW) { st_sqlerr(it->db, "reading sentences", it->err, sizeof it->err); return -1; }

    sqlite3_stmt *q = it->sent;
    struct st_row *r = &it->row;
    read_sentence_row(it, q, r);
    if (read_tokens(it, r)) return -1;
    if (it->extra) read_extras(it, &r->s, r->sentence_id);
    if ((it->want & ST_WANT_DEP) && sqlite3_column_type(q, 10) != SQLITE_NULL) read_dep_structures(it, q, r);
    if ((it->want & ST_WANT_CONST) && sqlite3_column_type(q, 14) != SQLITE_NULL && read_const_structures(it, q, r))
        return -1;
    *out = r;
    return 1;
}

const char *st_iter_error(struct st_iter *it) { return it->err; }

void st_iter_close(struct st_iter *it)
{
    if (!it) return;
    sqlite3_finalize(it->sent);
    sqlite3_finalize(it->tok);
    sqlite3_finalize(it->extra);
    sp_arena_free(&it->arena);
    ing_batch_free(&it->tree_batch);
    free(it);
}
