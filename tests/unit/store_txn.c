/* tests/unit/store_txn.c — write transactions and open reads on one connection (issue 10,
 * item 12): st_begin_write refuses while a statement of the connection is still reading (such
 * a transaction cannot wait for other writers, and fails with SQLITE_BUSY_SNAPSHOT once another
 * connection has committed); st_iter_pause ends the iterator's read, after which the write
 * begins even though another connection committed meanwhile, and the iterator resumes after the
 * last sentence it returned, seeing sentences committed since. Expected ids and forms are the
 * rows inserted here. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sp.h"
#include "store/store.h"
#include "t_harness.h"

static void add_sentence(struct st_db *db, int64_t corpus, int id)
{
    char sql[512], err[SP_ERRLEN];
    snprintf(sql, sizeof sql,
             "INSERT INTO sentence (sentence_id, corpus_id, sent_id, doc, position, text, n_words) "
             "VALUES (%d, %lld, 's%d', 'd', %d, 'w%d', 1); "
             "INSERT INTO token (sentence_id, i, form, lemma, upos, xpos, feats, head, deprel, deps, misc) "
             "VALUES (%d, 0, 'w%d', '_', 'X', '_', '_', -1, 'root', '_', '_')",
             id, (long long)corpus, id, id, id, id, id);
    T_EQ_INT(st_exec(db, sql, err, sizeof err), SP_OK);
}

int main(void)
{
    char path[] = "/tmp/sp-store-txn-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    char err[SP_ERRLEN], form[16];
    struct st_db *db, *other;
    int64_t corpus;
    T_EQ_INT(st_open(path, ST_OPEN_CREATE, &db, err, sizeof err), SP_OK);
    T_EQ_INT(st_open(path, 0, &other, err, sizeof err), SP_OK);
    T_EQ_INT(st_corpus_id(db, "c", 1, &corpus, err, sizeof err), SP_OK);
    for (int id = 1; id <= 4; id++) add_sentence(db, corpus, id);

    struct st_iter *it;
    const struct st_row *r;
    T_EQ_INT(st_iter_open(db, corpus, 0, &it, err, sizeof err), SP_OK);
    T_EQ_INT(st_iter_next(it, &r), 1);
    T_EQ_INT(r->sentence_id, 1);
    T_EQ_INT(st_iter_next(it, &r), 1);
    T_EQ_INT(r->sentence_id, 2);

    /* a write begun across the open read is refused, whatever other connections do; so is a
     * single-statement write (creating a corpus) */
    T_EQ_INT(st_begin_write(db, err, sizeof err), SP_ESTORE);
    T_CHECK(strstr(err, "internal error") && strstr(err, "read is open"));
    int64_t d;
    T_EQ_INT(st_corpus_id(db, "d", 1, &d, err, sizeof err), SP_ESTORE);
    T_CHECK(strstr(err, "internal error") != NULL);
    T_EQ_INT(st_corpus_id(db, "c", 0, &d, err, sizeof err), SP_OK);     /* reading beside it is fine */
    T_EQ_INT(d, corpus);

    /* another process commits while the read is open: sentence 5 */
    add_sentence(other, corpus, 5);

    /* paused: the row stays valid, and the write begins (it would fail with the read kept open:
     * the read's snapshot predates sentence 5) */
    st_iter_pause(it);
    T_EQ_INT(r->sentence_id, 2);
    T_EQ_STR(r->s.col[SP_FORM][0], "w2");
    T_EQ_INT(st_begin_write(db, err, sizeof err), SP_OK);
    add_sentence(db, corpus, 6);
    T_EQ_INT(st_exec(db, "COMMIT", err, sizeof err), SP_OK);

    /* resumed after sentence 2: 3, 4, then 5 and 6, committed since the iterator opened */
    for (int want = 3; want <= 6; want++) {
        T_EQ_INT(st_iter_next(it, &r), 1);
        T_EQ_INT(r->sentence_id, want);
        snprintf(form, sizeof form, "w%d", want);
        T_EQ_STR(r->s.col[SP_FORM][0], form);
        T_EQ_INT(r->s.n, 1);
    }
    T_EQ_INT(st_iter_next(it, &r), 0);
    st_iter_pause(it);                 /* pausing at the end, twice, is harmless */
    st_iter_pause(it);
    T_EQ_INT(st_iter_next(it, &r), 0);
    st_iter_close(it);
    T_EQ_INT(st_begin_write(db, err, sizeof err), SP_OK);
    T_EQ_INT(st_exec(db, "ROLLBACK", err, sizeof err), SP_OK);

    st_close(other);
    st_close(db);
    char side[64];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return T_DONE();
}
