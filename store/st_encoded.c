/* store/st_encoded.c — the reads of store/st_encoded.h (the encode stage's vocabulary, corpus sizes). */
#include <string.h>

#include "store/st_encoded.h"
#include "store/st_int.h"

/* fn for the text column of every row of sql (one int64 parameter). */
static int each_text(struct st_db *db, const char *sql, const char *what, int64_t id,
                     int (*fn)(void *ctx, const char *s), void *ctx, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, what, err, errlen);
    sqlite3_bind_int64(q, 1, id);
    int rc, frc = 0;
    while (!frc && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(q, 0);
        if (t) frc = fn(ctx, t);
    }
    if (frc) { sqlite3_finalize(q); return frc; }
    if (rc != SQLITE_DONE) rc = st_sqlerr(db, what, err, errlen);
    else rc = SP_OK;
    sqlite3_finalize(q);
    return rc;
}

int st_corpus_forms(struct st_db *db, int64_t corpus_id, int (*fn)(void *ctx, const char *form), void *ctx,
                    char *err, size_t errlen)
{
    return each_text(db, "SELECT DISTINCT t.form FROM token t JOIN sentence s USING (sentence_id) WHERE s.corpus_id = ?1",
                     "vocabulary", corpus_id, fn, ctx, err, errlen);
}

int st_task_texts(struct st_db *db, int64_t task_id, int (*fn)(void *ctx, const char *text), void *ctx,
                  char *err, size_t errlen)
{
    return each_text(db, "SELECT text FROM task_item WHERE task_id = ?1", "vocabulary", task_id, fn, ctx, err, errlen);
}

int st_corpus_sentence_count(struct st_db *db, int64_t corpus_id, int64_t *n, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    *n = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM sentence WHERE corpus_id = ?1", -1, &q, NULL) != SQLITE_OK)
        return st_sqlerr(db, "sentence count", err, errlen);
    sqlite3_bind_int64(q, 1, corpus_id);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) *n = sqlite3_column_int64(q, 0);
    rc = rc == SQLITE_ROW ? SP_OK : st_sqlerr(db, "sentence count", err, errlen);
    sqlite3_finalize(q);
    return rc;
}
