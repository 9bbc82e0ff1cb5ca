/* store/st_results.h — probing results and tree evaluations in the store (tables probe_result and
 * tree_eval of migration 002).
 *
 * A result is a row of summary columns plus `result`, the full JSON written by the command
 * (metrics, baselines and the run manifest); the store does not interpret that JSON. Every call
 * to a *_put function writes all its rows in one transaction, so a killed process leaves either
 * all of them or none.
 *
 * Replace rule: none. Each put adds rows; two probe runs with the same task, classifier, seed
 * and data hash are two rows (ids and `created` tell them apart). Readers that want "the latest"
 * order by id.
 *
 * Listing: rows in id order through a callback; strings are valid during the call only. */
#ifndef ST_RESULTS_H
#define ST_RESULTS_H

#include <stdint.h>

#include "store/store.h"

struct st_probe_result {
    const char *run;          /* run name (table run), NULL: vectors not from a stored run */
    int64_t task_id;          /* 0: NULL (the task came from a file) */
    const char *task_name;
    const char *classifier;
    int64_t seed;
    int has_dev, has_test;    /* 0: the column is NULL */
    double dev_acc, test_acc; /* percent */
    const char *result;       /* JSON text */
};

struct st_tree_eval {
    const char *run;          /* run name, NULL: none (baselines, attention from a file) */
    int64_t corpus_id;        /* 0: NULL */
    const char *method;       /* "right", "random", "attention:<source>:<score>", ... */
    const char *result;       /* JSON text */
};

/* Insert n rows in one transaction; ids[i] (if ids != NULL) gets the new result_id / eval_id.
 * An unknown run name is SP_EPARSE "no run 'R'" and nothing is written; SQLite failure SP_ESTORE. */
int st_probe_results_put(struct st_db *db, const struct st_probe_result *r, int n, int64_t *ids,
                         char *err, size_t errlen);
int st_tree_evals_put(struct st_db *db, const struct st_tree_eval *e, int n, int64_t *ids,
                      char *err, size_t errlen);

/* Filters: NULL members match everything. `run` is a run name; `task` and `classifier` apply to
 * probe results, `method` and `corpus` (a corpus name) to tree evaluations. */
struct st_result_filter {
    const char *run, *task, *classifier, *method, *corpus;
};

struct st_probe_row {
    int64_t id;
    const char *run;          /* NULL when none */
    const char *task_name, *classifier;
    int64_t seed;
    int has_dev, has_test;
    double dev_acc, test_acc;
    const char *result, *created;
};

struct st_tree_row {
    int64_t id;
    const char *run;          /* NULL when none */
    const char *corpus;       /* NULL when none */
    const char *method, *result, *created;
};

/* Call fn for each matching row in id order; a non-zero return of fn stops and is returned. */
int st_probe_results_each(struct st_db *db, const struct st_result_filter *f,
                          int (*fn)(void *ctx, const struct st_probe_row *r), void *ctx,
                          char *err, size_t errlen);
int st_tree_evals_each(struct st_db *db, const struct st_result_filter *f,
                       int (*fn)(void *ctx, const struct st_tree_row *r), void *ctx,
                       char *err, size_t errlen);

/* What a probe result records about a stored task: id, kind, seed, params (malloc'd JSON text,
 * free() it). SP_EPARSE "no task 'T'" when the name is unknown. */
struct st_task_meta { int64_t id; char kind[64]; int has_seed; int64_t seed; char *params; };
int st_result_task_meta(struct st_db *db, const char *name, struct st_task_meta *m, char *err, size_t errlen);

#endif
