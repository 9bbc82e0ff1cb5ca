/* stages/erase.h — the erasure stage: remove a word property (UPOS, dependency relation, tree
 * depth) from a corpus run's token vectors, or a sentence task's label from a task run's sentence
 * vectors, with LEACE or INLP (probes/erasers.h), store the erased vectors as a new run, and
 * measure what the erasure did (amnesic probing, Elazar et al. 2021).
 *
 * A sentence task (--property TASK, a task of the store built from corpus C or imported; --run a
 * run of it, `encode --task TASK`): each item is one row, its sentence vector, partitioned by the
 * task's own tr/va/te; its token vectors (if kept, of the same width) go through the same map;
 * there is no other task to watch.
 *
 * The eraser is fitted on the words of the train partition (the corpus's recorded split, else the
 * seeded 80/10/10 split of its sentences, as tokprobe partitions; --fit all: on every labelled
 * word). It is applied to every token vector of the run and to every sentence vector of the same
 * width (a sentence vector of another width is copied as it is; the run manifest says which),
 * and the result is stored as run NAME of the same corpus (an encoder row of kind "erase" whose
 * fingerprint hashes the source encoder's and the eraser's settings), so every probe reads it.
 *
 * The figures (stored as a probe_result of task "erase:token:PROPERTY", classifier = the method,
 * on run NAME, with the manifest): the test accuracy of synprobe's logistic-regression probe
 * (train, early-stopped on dev) on the property before and after erasure and after the control
 * erasure, r random orthonormal directions (seeded) for the r the method removed; the same three
 * for the other token task (UPOS for deprel and depth, deprel for UPOS); the majority baseline
 * (the most frequent training label's share of the test words); the rank removed; with --uuas,
 * the test UUAS of Hewitt & Manning's distance probe (full rank) on the three. */
#ifndef SP_STG_ERASE_H
#define SP_STG_ERASE_H

#include <stdint.h>

#include "stages/stage.h"

struct json_t;

enum stg_erase_method { STG_ERASE_LEACE = 0, STG_ERASE_INLP };

struct stg_erase_opts {
    const char *db, *corpus, *run, *property, *out_run;
    int method;                    /* enum stg_erase_method */
    int fit;                       /* 0 train, 1 all */
    long iterations;               /* INLP */
    int shrinkage;                 /* LEACE */
    int uuas;                      /* also the distance probe's test UUAS before / after / random */
    long seed, split_seed, max_epoch;
    long threads;
    struct sp_strlist command;     /* not in the table: the words that ran it, for the manifest */
};
extern const struct sp_opt stg_erase_options[];

#define STG_ERASE_INLP_MARGIN 5.0  /* points over the majority baseline INLP's erased accuracy may keep */

struct stg_erase_result {
    struct json_t *json;           /* the figures; NULL on failure */
    int64_t result_id;             /* the stored probe_result */
    int rank;                      /* directions removed */
    long n_items;                  /* items of the new run */
    double acc_before, acc_after, acc_random, majority;   /* percent, test words */
};

/* The option rules beyond the table (a job checks them before it runs): --property one of
 * upos|deprel|depth, --out-run not --run. SP_OK or SP_EUSAGE with ctx->err. */
int stg_erase_check(struct stg_ctx *ctx, const struct stg_erase_opts *o);

/* SP_OK; SP_EUSAGE (stg_erase_check); SP_EPARSE (unknown corpus or run, a run of another corpus or without token
 * vectors, a property the corpus lacks, too few labelled words, NAME taken by
 * another run); SP_ESTORE; SP_ESTOPPED. */
int stg_erase(struct stg_ctx *ctx, const struct stg_erase_opts *o, struct stg_erase_result *r);
void stg_erase_result_free(struct stg_erase_result *r);

#endif
