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

struct st_info {
    struct st_info_corpus *corpora;   /* in creation order */
    int n_corpora;
    int64_t tasks, runs, probe_results, tree_evals;
    struct st_info_run *run;          /* n_runs, in creation order */
    int n_runs;
};

/* The corpora (only the one named corpus, when not NULL) and, with work != 0, the task/run/result
 * counts and the run list. SP_ESTORE with err on failure. Free with st_info_free. */
int st_info_summary(struct st_db *db, const char *corpus, int work, struct st_info *out, char *err, size_t errlen);
void st_info_free(struct st_info *in);

/* A histogram of one corpus's sentences: counts[v] = sentences whose length in words
 * (ST_HIST_LENGTH) or maximum dependency depth (ST_HIST_DEPTH; sentences with a dependency tree)
 * is v, for v in 0..n_bins-1; the last bin also holds every larger value. */
enum st_hist { ST_HIST_LENGTH, ST_HIST_DEPTH };
int st_info_histogram(struct st_db *db, const char *corpus, enum st_hist h, int64_t *counts, int n_bins, char *err,
                      size_t errlen);

#endif
