/* report/rows.h — the results model: a store's probe results and tree evaluations as one table of
 * typed rows, read and parsed once (rpt_table_load), which the outputs format without reading JSON.
 *
 * A row is one of:
 *   - a probe aggregate (kind RPT_K_PROBE, or RPT_K_TOKEN for tasks token:*): the results of one
 *     (encoder, task, classifier) over their seeds, as report/agg.h aggregates them: value = the
 *     mean test accuracy, sd, the 95% bootstrap interval, n test items, the seeds, the baselines'
 *     means and the flags; id 0, seed -1;
 *   - one stored probe result (RPT_K_PROBE or RPT_K_TOKEN with RPT_F_SEED): one seed, value = its
 *     test accuracy, dev = its dev accuracy, the baselines of that result, its per-item record
 *     (the aggregates' intervals and the comparisons are computed from it) and the rest of the
 *     result (detail: classes, confusion, grid); an MDL probe's result (rpt_is_mdl) has its
 *     compression instead of an accuracy and its codes in detail->mdl, and is in no aggregate;
 *   - one tree evaluation: a structural probe (RPT_K_STRUCTPROBE: value = UUAS), trees from
 *     attention (RPT_K_DEP: UAS; RPT_K_CONST: EVALB F1, Protocol A, all lengths), or a baseline of
 *     either (RPT_F_BASELINE, baseline = "right", "left", "random", "adjacent" or "gold"); every
 *     figure of the evaluation in fig[RPT_T_*] and Protocol B's F1 by length in bins.
 * Results and tree evaluations also carry what their manifest says (partition, job, command line,
 * the manifest as text). The table holds the comparisons `report --compare` asks for too (cmp).
 * Rows come in the store's order (oldest first): aggregates, then the probe results, then the tree
 * evaluations. Percentages are 0..100; a missing number is NAN, a missing count -1.
 *
 * rows.c is the one place that reads the stored results' JSON; `report --format json` prints the
 * collected JSON whole (the store boundary), its aggregates and comparisons made from the rows. */
#ifndef SP_RPT_ROWS_H
#define SP_RPT_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "stages/stage.h"

enum rpt_kind { RPT_K_PROBE, RPT_K_TOKEN, RPT_K_STRUCTPROBE, RPT_K_DEP, RPT_K_CONST };

enum {
    RPT_F_SMALL = 1,        /* fewer than RPT_SMALL_TEST test items (report/agg.h) */
    RPT_F_WIDE = 2,         /* the interval is wide (report/agg.h) */
    RPT_F_NOCI = 4,         /* no interval: the seeds were scored on different items, or none recorded */
    RPT_F_SEED = 8,         /* one stored probe result, not an aggregate */
    RPT_F_BASELINE = 16,    /* a tree baseline */
    RPT_F_LINEAR = 32,      /* a structural probe's result holds the linear baseline on its test sentences */
    RPT_F_BINS = 64,        /* a constituency result holds Protocol B's F1 by sentence length (bins, n_bins) */
    RPT_F_RESPLIT = 128,    /* trained and scored on a seeded re-split of a corpus, not its own partition */
    RPT_F_COMMAND = 256,    /* the manifest records the command line (command, n_command) */
};

/* A tree evaluation's figures, fig[RPT_T_*] (NAN where its result has none): percentages 0..100,
 * correlations -1..1, counts as numbers. */
enum rpt_tfig {
    RPT_T_NSENT,                                           /* sentences evaluated */
    RPT_T_UUAS, RPT_T_DSPR, RPT_T_ROOT, RPT_T_NSPR,        /* structural probes */
    RPT_T_LIN_NSENT, RPT_T_LIN_UUAS, RPT_T_LIN_DSPR,       /* their linear baseline on the same test sentences */
    RPT_T_LIN_ROOT, RPT_T_LIN_NSPR,
    RPT_T_UAS, RPT_T_UUAS_DIR, RPT_T_UUAS_MST,             /* dependency trees: UAS, UUAS of the arcs, of the MST */
    RPT_T_A_R, RPT_T_A_P, RPT_T_A_F,                       /* Protocol A (EVALB): recall, precision, F1, all lengths */
    RPT_T_A_R40, RPT_T_A_P40, RPT_T_A_F40,                 /* ... sentences of at most 40 words */
    RPT_T_B_SENT, RPT_T_B_SENT40, RPT_T_B_SENT10,          /* Protocol B: sentence-level span F1, all, <= 40, <= 10 */
    RPT_T_B_CORP, RPT_T_B_CORP40, RPT_T_B_CORP10,          /* ... corpus-level */
    RPT_T_COUNT
};

/* Protocol B's sentence-level F1 of the sentences of lo..hi words (hi NAN: lo and longer), n of them
 * (-1: unknown). */
struct rpt_len_bin { double lo, hi, f1; long n; };

struct rpt_baselines {
    double majority, length;      /* probe: the majority class, sentence length alone */
    double control, selectivity;  /* probe: the control task's accuracy, the selectivity against it */
    double selectivity_sd;        /* probe aggregates: the selectivity's sd over seeds */
    double linear;                /* structural probe: the linear baseline's UUAS on the same test sentences */
    double uuas_mst;              /* dependency trees: the UUAS of the maximum spanning tree */
};

/* One stored probe result's per-item record (report/agg.h: the intervals and paired comparisons
 * resample it): rows, the test item rows as one string (two results were scored on the same items
 * when their strings are equal); per item its correct count and its size (num[i], den[i]). n = -1:
 * no usable record (none stored, not of the test split, or malformed). */
struct rpt_items { const char *rows; long n; double *num, *den; };

/* An MDL probe's online code (stages/mdl.h), or its control task's: the labels, the training items'
 * codelength and uniform codelength in bits, compression = uniform / codelength, and per block its
 * size (items) and bits (NAN where the result has none). */
struct rpt_mdl_block { double size, bits; };
struct rpt_mdl_code {
    double labels, codelength_bits, uniform_bits, compression;
    struct rpt_mdl_block *blocks;             /* n_blocks of them */
    size_t n_blocks;
};
/* code[0]: the task's labels; code[1]: the control task's (has_control: the result has one);
 * selectivity_bits: the control's codelength minus the task's (NAN: none). */
struct rpt_mdl {
    struct rpt_mdl_code code[2];
    int has_control;
    double selectivity_bits;
};

/* What one stored probe result says beyond its accuracies (the CSV's and the text report's per-seed
 * rows): numbers NAN, counts NAN, strings NULL where the result has none. */
struct rpt_class_score { const char *name; double precision, recall, f1, support; };
struct rpt_grid_point { long long nhid; double dropout, l2reg, devacc; };   /* nhid 0: not an integer */
struct rpt_probe_detail {
    double ntrain, ndev;                      /* training and dev items (test: the row's n) */
    double majority_dev, length_dev, control_dev;   /* the baselines' dev accuracies */
    int has_length, has_control;              /* the result has the length and the control baseline */
    const char *split;                        /* the split its metrics are of ("" when none) */
    double macro_f1;
    struct rpt_class_score *cls;              /* per class: n_cls */
    size_t n_cls;
    const char **classes;                     /* the class names (NULL: not a string), n_classes */
    size_t n_classes;
    double *cm;                               /* the confusion matrix: row i has cm_len[i] cells from cm + cm_at[i] */
    size_t *cm_len, *cm_at, cm_rows;
    double chosen_nhid, chosen_dropout, chosen_l2reg;   /* the hyper-parameters model selection chose */
    struct rpt_grid_point *grid;              /* the grid it searched, n_grid points */
    size_t n_grid;
    struct rpt_mdl *mdl;                      /* an MDL probe's codes (rpt_is_mdl); NULL for other probes */
};

struct rpt_row {
    int kind;                     /* enum rpt_kind */
    int flags;                    /* RPT_F_* */
    int64_t id;                   /* the stored result's id; 0 for an aggregate */
    const char *corpus;           /* tree rows: the corpus ("" when none); probe rows: "" */
    const char *encoder;          /* the encoder label (report/agg.h: tree rows: the run less its -CORPUS), "" without a run */
    const char *run;              /* the run, NULL when the result has none (vectors or attention of a file) */
    const char *model;            /* the run's encoder kind (runs.kind), NULL when unknown */
    int layer;                    /* encoder NAME-L<k>: k; else -1 */
    const char *task;             /* probe rows: the task; tree rows: "structprobe", "dep" or "const" */
    const char *method;           /* probe rows: the classifier; tree rows: the method */
    const char *baseline;         /* RPT_F_BASELINE: its name; else NULL */
    const char *metric;           /* the value's name: "acc", "UUAS", "UAS", "F1" */
    double value, sd;             /* the value (mean over seeds), its sd over seeds (NAN: one seed) */
    double lo, hi;                /* its 95% interval; NAN: none */
    double dev;                   /* probe rows: the dev accuracy (mean over seeds) */
    double dspr, root_acc;        /* structural probes: DSpr, root accuracy */
    double span_f1;               /* constituency trees: sentence-level span F1 (Protocol B, all lengths) */
    struct rpt_baselines base;
    long n;                       /* test items (sentences for tree rows); -1: unknown */
    int n_seeds, seed;            /* aggregates: seeds and -1; one result: 1 and its seed */
    const char *vectors;          /* probe results: the run, else the vectors file ("" when neither) */
    /* results (not aggregates): from the result's manifest */
    const char *partition;        /* the partition it was trained and scored on, in words ("" when none) */
    const char *job_file, *job_sha256;   /* the job that made it ("" where missing); job_file NULL: none recorded */
    const char **command;         /* RPT_F_COMMAND: its command line, n_command words (NULL: not a string; owned) */
    size_t n_command;
    const char *manifest;         /* the manifest as JSON text, indented one space a level; NULL when none */
    double fig[RPT_T_COUNT];      /* tree rows: the figures of the evaluation (enum rpt_tfig) */
    struct rpt_len_bin *bins;     /* RPT_F_BINS: n_bins of them (owned by the table) */
    size_t n_bins;
    struct rpt_items items;       /* probe results: the per-item record (owned by the table) */
    struct rpt_probe_detail *detail;   /* probe results: the rest of the result (owned by the table); else NULL */
};

struct rpt_skipped { const char *task, *why; };

/* One paired comparison of encoders a and b (as --compare names them) on a task and classifier
 * (report/agg.h: rpt_compare): the difference of test accuracy a − b, its 95% paired bootstrap
 * interval and p-value, se and mdd80 (points; NAN where undefined, p_floor NAN unless p is at the
 * bootstrap's floor); error: why there is none (NULL when there is). */
struct rpt_cmp {
    const char *task, *classifier, *a, *b;
    const char **enc_a, **enc_b;  /* the encoder labels each side pooled (owned by the table) */
    size_t n_enc_a, n_enc_b;
    int n_seeds_a, n_seeds_b;
    const char *error;
    long n_test, n_invalid;
    double delta, lo, hi, p, p_floor, se, mdd80;
};

struct rpt_table {
    struct rpt_row *v;
    size_t n;
    struct rpt_skipped *skipped;  /* the tasks a job skipped (the protocol cannot run on them), and why */
    size_t n_skipped;
    struct rpt_cmp *cmp;          /* the comparisons asked for (rpt_compare), pair by pair */
    size_t n_cmp;
    char **strs;                  /* the strings the rows point into (owned) */
    size_t n_str, cap_str;
};

/* Every result of store db as rows. SP_OK; SP_ESTORE with ctx->err (t is empty then). */
int rpt_table_load(struct stg_ctx *ctx, const char *db, struct rpt_table *t);
void rpt_table_free(struct rpt_table *t);
/* s (NULL stays NULL) copied for the table's lifetime. */
const char *rpt_table_keep(struct rpt_table *t, const char *s);
/* The rows of results already read (the report's collected rows: report/report.h), their
 * aggregates over seeds (report/agg.h) first, without the skipped tasks; db (NULL: none) names the
 * runs' kinds. aggs (NULL: not wanted): the aggregates as `report --format json` prints them, a new
 * array. */
struct json_t;
struct st_db;
void rpt_table_from(struct rpt_table *t, struct json_t *probes, struct json_t *trees, struct st_db *db, struct json_t **aggs);

/* Whether a probe result is an MDL probe's (stages/mdl.h: classifier "mdl"): no accuracy, no
 * aggregate, no comparison; its row has metric "compression", value = the compression, n = the
 * training items, base.control = the control task's compression, base.selectivity = the
 * codelength selectivity in bits (control codelength - task codelength), detail->mdl its codes. */
static inline int rpt_is_mdl(const char *classifier) { return classifier && !strcmp(classifier, "mdl"); }

/* Whether a row is a probe row (aggregate or result) of a sentence or token task; an aggregate. */
static inline int rpt_is_probe(const struct rpt_row *r) { return r->kind == RPT_K_PROBE || r->kind == RPT_K_TOKEN; }
static inline int rpt_is_agg(const struct rpt_row *r) { return rpt_is_probe(r) && !(r->flags & RPT_F_SEED); }

/* The distinct values of field over the rows of t that keep(row, arg) holds, in first-appearance
 * order (v points into the rows; the caller frees v). */
struct rpt_names { const char **v; size_t n; };
struct rpt_names rpt_rows_distinct(const struct rpt_table *t, const char *(*field)(const struct rpt_row *),
                                   int (*keep)(const struct rpt_row *, const char *), const char *arg);
/* The aggregate of (encoder, task, classifier), or NULL. */
const struct rpt_row *rpt_find_agg(const struct rpt_table *t, const char *enc, const char *task, const char *clf);

#endif
