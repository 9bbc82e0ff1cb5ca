/* stages/tasks.h — the probing-task stages: build the SentEval tasks (docs/spec/probing.md §2) from
 * treebank files or store corpora, and move SentEval files into and out of the store.
 *
 * build: sentences (files, or one or more store corpora in the order given) → one task at a
 * time through probes/task_derive.c (a pure function of sentences + seed; each task has its own
 * random stream, so building them one by one gives what building them together gives) → with
 * --db every built task stored, with --out one SentEval file per task plus tasks.json. A stop
 * request is honoured between files, corpora and tasks, and before anything is stored or
 * written: what is stored is whole tasks, what is written is whole files.
 *
 * import/export keep a SentEval file byte for byte: what the reader keeps beyond the items
 * (BOM, trailing whitespace, a missing final newline) goes into the task's params JSON, the
 * fields between label and sentence into task_item.extra. */
#ifndef SP_STG_TASKS_H
#define SP_STG_TASKS_H

#include <stdio.h>

#include "probes/task_derive.h"
#include "stages/stage.h"
#include "store/st_tasks.h"

struct json_t;

struct stg_tasks_build_opts {
    struct sp_strlist corpus_files;  /* .mrg/.conllu/.dp files or folders */
    const char *db;                  /* read corpora from (and store the built tasks in) this store */
    struct sp_strlist corpus;        /* with db: the corpora, their sentences concatenated in this order */
    int format;                      /* enum sp_format for every file; SP_FMT_AUTO detects */
    struct sp_strlist tasks;         /* task names, "all" (or none) for every task */
    long seed;
    const char *out;                 /* folder for the SentEval files and tasks.json; NULL: none */
    const char *prefix;              /* with db: stored name = prefix + task name */
    int replace;                     /* with db: replace stored tasks of the same name */
    long min_len, max_len, cap, wc_k, wc_rank, topconst_min;
    const char *depth;               /* "LO-HI" */
    int topconst_nopunct;
    int split;                       /* enum stg_tasks_split */
    int listed;                      /* not in the table: the caller prints every task's line (skips are not logged) */
};
extern const struct sp_opt stg_tasks_build_options[];

/* Where the train/dev/test partitions come from (stages/splits.h). official (the default; "auto"
 * is its old name, kept for old job files, and no longer re-splits): the corpus's own — the split
 * recorded on every sentence (UD file names *-ud-train|dev|test.conllu, in a job or read with
 * --corpus-files; ingest --split), else PTB WSJ sections by the parsing convention (02-21 train,
 * 22 dev, 23 test, other sections left out) — and without them the build stops (SP_EPARSE, naming
 * the corpus, the splits it has and the opt-in). resplit: the seeded 80/10/10 re-split of
 * docs/spec/probing.md §2.1, logged as a warning and stored ("partition" in every task's params). */
enum stg_tasks_split { STG_SPLIT_OFFICIAL, STG_SPLIT_RESPLIT };

struct stg_tasks_build_result {
    struct prb_taskset ts;                  /* every requested task (task[id] points into part[id]) */
    struct prb_taskset part[PRB_NTASKS];    /* one build per task: they own the items */
    struct json_t *summary;                 /* what tasks.json holds (and --json prints) */
    int n_rejected;                         /* malformed sentences left out of the files */
    int n_built, n_stored;
    double seconds;
    char partition[768];                    /* where the partitions came from, in words */
    int resplit;                            /* 1: the §2.1 re-split (asked for), 0: the corpus's own */
};

/* SP_OK (skipped tasks included: each says why); SP_EUSAGE for options that do not fit
 * together or an unknown task name; SP_EPARSE/SP_EIO for unreadable files or an unknown
 * corpus; SP_EEXIST when a stored task has the name (nothing is stored then); SP_ESTOPPED. */
int stg_tasks_build(struct stg_ctx *ctx, const struct stg_tasks_build_opts *o, struct stg_tasks_build_result *r);
/* The rules stg_tasks_build checks its options against before it reads anything (options that go together
 * or exclude each other; --depth, --tasks names): SP_EUSAGE with ctx->err, or SP_OK. A job file's steps are checked
 * with it when the job is loaded, so `run --check` refuses what the run would. */
int stg_tasks_build_check(struct stg_ctx *ctx, const struct stg_tasks_build_opts *o);

void stg_tasks_build_result_free(struct stg_tasks_build_result *r);

struct stg_tasks_import_opts {
    const char *db;                  /* created if missing */
    const char *name;                /* the stored task's name */
    const char *file;                /* the SentEval file */
};
extern const struct sp_opt stg_tasks_import_options[];

struct stg_tasks_import_result { int n_items; };

int stg_tasks_import(struct stg_ctx *ctx, const struct stg_tasks_import_opts *o, struct stg_tasks_import_result *r);
/* The rules stg_tasks_import checks its options against before it reads anything (options that go together
 * or exclude each other): SP_EUSAGE with ctx->err, or SP_OK. A job file's steps are checked
 * with it when the job is loaded, so `run --check` refuses what the run would. */
int stg_tasks_import_check(struct stg_ctx *ctx, const struct stg_tasks_import_opts *o);


struct stg_tasks_export_opts {
    const char *db;
    const char *name;
    int format;                      /* 0: senteval (the only one) */
    const char *out;                 /* NULL: to_stdout */
    FILE *to_stdout;                 /* not in the table: where the file goes without --out */
};
extern const struct sp_opt stg_tasks_export_options[];

struct stg_tasks_export_result { int n_items; };

/* SP_EPARSE with "no such task 'X' in DB; did you mean ...; the store has: ..." for an unknown name. */
int stg_tasks_export(struct stg_ctx *ctx, const struct stg_tasks_export_opts *o, struct stg_tasks_export_result *r);

struct stg_tasks_list_opts { const char *db; };
extern const struct sp_opt stg_tasks_list_options[];

struct stg_tasks_list_result { struct st_task_row *rows; int n; };

int stg_tasks_list(struct stg_ctx *ctx, const struct stg_tasks_list_opts *o, struct stg_tasks_list_result *r);
void stg_tasks_list_result_free(struct stg_tasks_list_result *r);

#endif
