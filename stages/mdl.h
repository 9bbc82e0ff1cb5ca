/* stages/mdl.h — the MDL-probe stage: the online codelength (Voita & Titov 2020; probes/online_code.h)
 * of a task's labels given a run's vectors, and of its control task's labels.
 *
 * Tasks. upos / deprel: every word of the corpus's train partition with its label, as tokprobe
 * reads them (stages/tokprobe.h: the recorded split, else a seeded 80/10/10 re-split), the
 * control task Hewitt & Liang's (a random label per word type, probes/control.h). Any other name:
 * a stored sentence task and run R encoding it, as probe reads them (stages/probe.h), the control
 * task its labels shuffled within each partition (the protocol's control, probes/senteval_protocol.h).
 *
 * The transmission order is a permutation of the training items drawn from the seed; the probes
 * are the logistic regression of probes/classifier.h with its defaults, seeded with the seed,
 * early-stopped on the dev partition's cross-entropy. Codelength selectivity = control codelength
 * − task codelength, in bits (positive: the labels cost fewer bits to send than random ones).
 *
 * Stored as a probe_result with classifier "mdl", task "token:upos" / "token:deprel" / the
 * sentence task, no accuracies, the figures and the manifest in its JSON. */
#ifndef SP_STG_MDL_H
#define SP_STG_MDL_H

#include "stages/stage.h"

struct json_t;

struct stg_mdl_opts {
    const char *db, *corpus, *run, *task;
    int strip_subtype;             /* deprel: nmod:poss -> nmod */
    long seed, control_seed, split_seed, max_epoch;
    long threads;                  /* the classifier's threads (results do not depend on it) */
    int no_control, no_save;
    const char *dump;              /* write every transmitted item's logits here (tests/reference/mdl_ref.py) */
    struct sp_strlist command;     /* not in the table: the words that ran it, for the manifest */
};
extern const struct sp_opt stg_mdl_options[];

struct stg_mdl_result {
    struct json_t *json;           /* the figures; NULL on failure */
    int64_t result_id;             /* the stored row; 0 when not stored */
    double codelength, compression, control_codelength, control_compression;   /* NAN: no control */
};

/* SP_OK; SP_EUSAGE; SP_EPARSE (unknown corpus, run or task, a run without the vectors, too few
 * items); SP_EIO (the dump file); SP_ESTORE; SP_ESTOPPED. */
int stg_mdl(struct stg_ctx *ctx, const struct stg_mdl_opts *o, struct stg_mdl_result *r);
void stg_mdl_result_free(struct stg_mdl_result *r);
/* The rules stg_mdl checks its options against before it reads anything (upos and deprel need
 * --corpus; a sentence task takes neither --corpus nor --strip-subtype): SP_EUSAGE with ctx->err,
 * or SP_OK. A job's steps are checked with it when the job is loaded. */
int stg_mdl_check(struct stg_ctx *ctx, const struct stg_mdl_opts *o);

#endif
