/* store/st_tasks.h — probing tasks in the store (tables task, task_item of migration 002).
 *
 * Tasks are written whole, several in one transaction (st_tasks_put), and read back item by item in
 * ordinal (= file) order (st_task_items). Texts are stored verbatim, so a task imported from
 * a SentEval file can be written back byte for byte by the caller. */
#ifndef ST_TASKS_H
#define ST_TASKS_H

#include <stdint.h>

#include "store/store.h"

struct st_task_item {
    const char *split;        /* "tr" "va" "te" */
    const char *label;
    const char *text;
    int64_t sentence_id;      /* 0: unknown (NULL) */
    const char *extra;        /* NULL, or the fields between label and sentence, verbatim */
};

struct st_task_info {
    const char *name;
    int64_t corpus_id;        /* 0: none (imported) */
    const char *kind;         /* task name or "imported" */
    int has_seed;
    int64_t seed;
    const char *params;       /* JSON text; NULL means "{}" */
};

/* One task to store: its items get ordinals 1..n_items. */
struct st_task_put {
    struct st_task_info info;
    const struct st_task_item *items;
    int n_items;
};

/* Store n tasks and their items in one transaction: all or none. A task with the same name is
 * replaced when replace != 0, else SP_EEXIST with a message. SP_ESTORE: SQLite failed. */
int st_tasks_put(struct st_db *db, const struct st_task_put *tasks, int n, int replace, char *err, size_t errlen);

/* Task id by name, 0 in *id when absent. */
int st_task_id(struct st_db *db, const char *name, int64_t *id, char *err, size_t errlen);

/* Call fn for each item in ordinal order (strings valid during the call only); a non-zero
 * return of fn stops and is returned. *params (if not NULL) gets a malloc'd copy of the
 * task's params JSON; fn NULL reads only that. SP_EPARSE "no task" when the name is unknown. */
int st_task_items(struct st_db *db, const char *name, char **params,
                  int (*fn)(void *ctx, const struct st_task_item *it), void *ctx, char *err, size_t errlen);

/* One stored task with its item counts per split (st_task_list). */
struct st_task_row { char *name, *kind; int64_t n[3]; /* tr, va, te */ char *params; /* JSON text, or NULL */ };

/* Every stored task, by name (store/st_task_list.c). Free with st_task_rows_free. */
int st_task_list(struct st_db *db, struct st_task_row **rows, int *n, char *err, size_t errlen);
void st_task_rows_free(struct st_task_row *rows, int n);

#endif
