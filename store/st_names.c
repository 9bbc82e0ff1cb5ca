/* store/st_names.c — the names a store holds (corpora, tasks, runs, encoders), for messages that
 * list what exists and suggest the nearest name to a typo. */
#include <string.h>

#include "common/sp.h"
#include "store/st_int.h"

static int list_names(struct st_db *db, const char *sql, struct st_names *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "listing names: %s", sqlite3_errmsg(db->h));
        return SP_ESTORE;
    }
    int rc, cap = 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 16;
            out->v = sp_xrealloc(out->v, sizeof *out->v * (size_t)(cap + 1));
        }
        const char *s = (const char *)sqlite3_column_text(q, 0);
        out->v[out->n++] = sp_xstrdup(s ? s : "");
    }
    if (out->v) out->v[out->n] = NULL;
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "listing names: %s", sqlite3_errmsg(db->h));
        st_names_free(out);
        return SP_ESTORE;
    }
    return SP_OK;
}

int st_corpus_names(struct st_db *db, struct st_names *out, char *err, size_t errlen)
{
    return list_names(db, "SELECT name FROM corpus ORDER BY name", out, err, errlen);
}

int st_task_names(struct st_db *db, struct st_names *out, char *err, size_t errlen)
{
    return list_names(db, "SELECT name FROM task ORDER BY name", out, err, errlen);
}

int st_run_names(struct st_db *db, struct st_names *out, char *err, size_t errlen)
{
    return list_names(db, "SELECT name FROM run ORDER BY name", out, err, errlen);
}

void st_names_free(struct st_names *names)
{
    for (int i = 0; i < names->n; i++) free(names->v[i]);
    free(names->v);
    memset(names, 0, sizeof *names);
}
