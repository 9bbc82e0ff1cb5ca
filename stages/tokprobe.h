/* stages/tokprobe.h — the token-probe stage: UPOS or dependency-relation labels of every word
 * probed from a corpus run's token vectors (`encode --token-vectors`), with Hewitt & Liang's
 * control task (docs/spec/models.md M5; probes/control.h): the same probe trained on a random label per
 * word type with the training label distribution, and selectivity = task − control accuracy.
 *
 * Partitions: the corpus's recorded train/dev/test split, else a seeded 80/10/10 split of its
 * sentences (stages/partition.h). Stored as a probe_result (task "token:upos" / "token:deprel",
 * run R, classifier, seed) with the control, unseen-type and no-punctuation accuracies and the
 * manifest, so `report` aggregates it over seeds like any probe. */
#ifndef SP_STG_TOKPROBE_H
#define SP_STG_TOKPROBE_H

#include <stdint.h>

#include "probes/control.h"
#include "stages/stage.h"

struct json_t;

struct stg_tokprobe_opts {
    const char *db, *corpus, *run;
    int task;                      /* enum prb_tok_task */
    int strip_subtype;             /* deprel: nmod:poss -> nmod */
    int classifier;                /* 0 logreg, 1 mlp */
    long nhid, seed, control_seed, split_seed, max_epoch;
    long threads;                  /* the classifier's threads (results do not depend on it) */
    int no_save;
    struct sp_strlist command;     /* not in the table: the words that ran it, for the manifest */
};
extern const struct sp_opt stg_tokprobe_options[];

struct stg_tokprobe_result {
    struct json_t *json;           /* the figures; NULL on failure */
    int64_t result_id;             /* the stored row; 0 when not stored */
    double acc_task, acc_control, selectivity;
};

/* SP_OK; SP_EUSAGE; SP_EPARSE (unknown corpus or run, a run of another corpus or without token
 * vectors, a corpus without the labels); SP_ESTORE; SP_ESTOPPED. */
int stg_tokprobe(struct stg_ctx *ctx, const struct stg_tokprobe_opts *o, struct stg_tokprobe_result *r);
void stg_tokprobe_result_free(struct stg_tokprobe_result *r);

/* The words of a corpus run as stg_tokprobe reads them (o: corpus, run, task, strip_subtype,
 * split_seed; cid the corpus's id), for the stages that probe them otherwise (stages/mdl.c). */
struct st_db;
struct stg_tokset {
    const float *X;                /* every corpus word's vector (d floats a row), corpus order */
    int d;
    const int *xrow;               /* [n[0] + n[1] + n[2]] each token's row in X: train, then dev, then test */
    struct prb_tok_split s[3];     /* train, dev, test: forms, labels, punctuation */
    long n[3];
    char how[256];                 /* the partition rule, for the manifest */
    void *priv;
};
/* SP_OK, or the errors of stg_tokprobe; ts is freed by stg_tokset_free in every case. */
int stg_tokset_load(struct stg_ctx *ctx, struct st_db *db, const struct stg_tokprobe_opts *o, int64_t cid,
                    struct stg_tokset *ts);
void stg_tokset_free(struct stg_tokset *ts);

#endif
