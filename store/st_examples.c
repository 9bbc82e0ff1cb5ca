/* store/st_examples.c — example queries (docs/sql.md shows them with more) that the demo runs, so that the demo
 * prints real answers and the SQL stays in store/. */
#include "common/sp.h"
#include "store/st_int.h"

const struct st_example st_examples[] = {
    { "Deepest dependency trees (sent_id, max depth, text):",
      "SELECT s.sent_id, d.max_depth, s.text FROM sentence s JOIN dep_structure d USING (sentence_id) "
      "ORDER BY d.max_depth DESC, s.sentence_id LIMIT 3" },
    { "TopConst classes of the constituency trees:",
      "SELECT top_const_class, count(*) FROM const_structure GROUP BY 1 ORDER BY 2 DESC, 1" },
    { "Mean dependency length (|head - dependent|) by UPOS, top 5:",
      "SELECT upos, printf('%.2f', avg(abs(head - i))), count(*) FROM token WHERE head >= 0 "
      "GROUP BY upos ORDER BY 3 DESC LIMIT 5" },
    { NULL, NULL },
};

int st_example_run(struct st_db *db, const struct st_example *ex, st_row_fn row, void *arg, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, ex->sql, -1, &q, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db->h));
        return SP_ESTORE;
    }
    int rc, n = sqlite3_column_count(q);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *cols[16];
        for (int c = 0; c < n && c < 16; c++) cols[c] = (const char *)sqlite3_column_text(q, c);
        row(arg, n < 16 ? n : 16, cols);
    }
    if (rc != SQLITE_DONE) snprintf(err, errlen, "%s", sqlite3_errmsg(db->h));
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? SP_OK : SP_ESTORE;
}
