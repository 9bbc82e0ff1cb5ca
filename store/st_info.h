/* store/st_info.h — what a store holds, as numbers (store/st_info.c): the summary `synprobe info`
 * and the demo print. Every figure is a plain SQL aggregate; the caller formats them. */
#ifndef ST_INFO_H
#define ST_INFO_H

#include <stdint.h>

#include "store/store.h"

/* The per-corpus figures, in the order `info --json` writes them (after the name). */
enum st_info_col {
    ST_INFO_FILES, ST_INFO_SENTENCES, ST_INFO_WORDS, ST_INFO_DEP_TREES, ST_INFO_CONST_TREES, ST_INFO_BOTH,
    ST_INFO_QUARANTINED, ST_INFO_MAX_DEPTH, ST_INFO_NON_PROJECTIVE, ST_INFO_TREE_DEPTH_MIN, ST_INFO_TREE_DEPTH_MAX,
    ST_INFO_MAX_LENGTH, ST_INFO_REPAIRED, ST_INFO_NCOLS
};

struct st_info_corpus {
    char *name;
    int64_t v[ST_INFO_NCOLS];
    unsigned char null[ST_INFO_NCOLS];   /* 1: SQL NULL (a min/max over no rows); v is then 0 */
};

struct st_info_run {
    char *name, *encoder, *source, *device, *created;   /* source: "corpus X" or "task T" */
    int64_t items;
};

/* One table's share of the file: its b-tree and its indexes' (SQLite's dbstat). */
struct st_info_table {
    char *name;
    int64_t bytes;                    /* pages x page size */
};

/* The cached encoder outputs of one element type and width: every encoder is one layer (a
 * --layers pass makes an encoder per layer), so bytes per token per layer = tok_bytes / tokens. */
struct st_info_vectors {
    char dtype[8];                    /* encoder.store_dtype */
    int dim;                          /* encoder.dim */
    int64_t encoders, sentences, vec_bytes;    /* sentence vectors: rows, bytes */
    int64_t tokens, tok_bytes;        /* token vectors: rows (tokens, over all encoders), bytes */
    int64_t attn_bytes;               /* attention maps (averaged and per head) */
};

/* The file's size: per table from SQLite's dbstat virtual table when the linked SQLite has it
 * (SQLITE_ENABLE_DBSTAT_VTAB); page_size x (pages - free_pages) = the sum of the tables. */
struct st_info_sizes {
    int dbstat;                       /* 1: table[] from dbstat; 0: this SQLite lacks it, table[] empty */
    int64_t page_size, pages, free_pages;
    struct st_info_table *table;      /* by bytes, largest first */
    int n_tables;
    struct st_info_vectors *vec;      /* by type, then width */
    int n_vec;
};

struct st_info {
    struct st_info_corpus *corpora;   /* in creation order */
    int n_corpora;
    int64_t tasks, runs, probe_results, tree_evals;
    struct st_info_run *run;          /* n_runs, in creation order */
    int n_runs;
    struct st_info_sizes sizes;       /* with work only */
};

/* The corpora (only the one named corpus, when not NULL) and, with work != 0, the task/run/result
 * counts, the run list and the sizes. SP_ESTORE with err on failure. Free with st_info_free. */
int st_info_summary(struct st_db *db, const char *corpus, int work, struct st_info *out, char *err, size_t errlen);
void st_info_free(struct st_info *in);

/* A histogram of one corpus's sentences: counts[v] = sentences whose length in words
 * (ST_HIST_LENGTH) or maximum dependency depth (ST_HIST_DEPTH; sentences with a dependency tree)
 * is v, for v in 0..n_bins-1; the last bin also holds every larger value. */
enum st_hist { ST_HIST_LENGTH, ST_HIST_DEPTH };
int st_info_histogram(struct st_db *db, const char *corpus, enum st_hist h, int64_t *counts, int n_bins, char *err,
                      size_t errlen);

#endif
