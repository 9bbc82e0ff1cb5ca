/* store/st_task_list.c — the stored tasks with items per split (`synprobe tasks list`). */
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "store/st_int.h"
#include "store/st_tasks.h"

int st_task_list(struct st_db *db, struct st_task_row **rows, int *n, char *err, size_t errlen)
{
    static const char *const sql =
        "SELECT t.name, t.kind,"
        " (SELECT count(*) FROM task_item i WHERE i.task_id = t.task_id AND i.split = 'tr'),"
        " (SELECT count(*) FROM task_item i WHERE i.task_id = t.task_id AND i.split = 'va'),"
        " (SELECT count(*) FROM task_item i WHERE i.task_id = t.task_id AND i.split = 'te'), t.params"
        " FROM task t ORDER BY t.name";
    *rows = NULL;
    *n = 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, "task list", err, errlen);
    int r, cap = 0;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        if (*n == cap) { cap = cap ? 2 * cap : 16; *rows = sp_xrealloc(*rows, sizeof **rows * (size_t)cap); }
        const char *name = (const char *)sqlite3_column_text(q, 0), *kind = (const char *)sqlite3_column_text(q, 1);
        (*rows)[(*n)++] = (struct st_task_row){ sp_xstrdup(name ? name : ""), sp_xstrdup(kind ? kind : ""),
                                                { sqlite3_column_int64(q, 2), sqlite3_column_int64(q, 3),
                                                  sqlite3_column_int64(q, 4) },
                                                sqlite3_column_type(q, 5) == SQLITE_NULL ? NULL
                                                    : sp_xstrdup((const char *)sqlite3_column_text(q, 5)) };
    }
    sqlite3_finalize(q);
    if (r != SQLITE_DONE) {
        st_task_rows_free(*rows, *n);
        *rows = NULL;
        *n = 0;
        return st_sqlerr(db, "task list", err, errlen);
    }
    return SP_OK;
}

void st_task_rows_free(struct st_task_row *rows, int n)
{
    for (int i = 0; i < n; i++) { free(rows[i].name); free(rows[i].kind); free(rows[i].params); }
    free(rows);
}
