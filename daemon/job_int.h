/* daemon/job_int.h — the job parser's state and the helpers the step kinds' entry readers use
 * (daemon/step_<name>.c). Internal to daemon/: daemon/job.h is the public side. */
#ifndef DMN_JOB_INT_H
#define DMN_JOB_INT_H

#include <jansson.h>

#include "daemon/job.h"
#include "daemon/step.h"
#include "stages/layers.h"
#include "stages/splits.h"

/* an encoder run the job makes: what probes, trees and structural / token probes are crossed
 * with (trees want its attention maps, structprobe and tokprobe its token vectors) */
struct dmn_runref { const char *run, *input; int is_task, attention, token_vectors; };

struct dmn_parse {
    struct dmn_job *job;
    char *err;
    size_t errlen;
    const char **corpora, **tasks;        /* the names the job makes, grown as they come (any number) */
    struct stg_split_tally *splits;       /* per corpus: the splits its files give (stages/splits.h) */
    int *corpus_split_given;              /* per corpus: its (first) entry gives "split" */
    const char **doomed;                  /* per task: why its build will skip it for certain, or NULL */
    int n_corpora, n_tasks;
    struct dmn_runref *runs;
    int n_runs;
    struct stg_layer_list lay;            /* the layers of the encoder entry being parsed ("layers") */
    int stoppable;                        /* SIGINT/SIGTERM stop the parse (a command's, not the daemon's) */
};

/* the option name's field of step s's options struct, as a T */
#define DMN_FIELD(s, T, name) ((T *)((char *)(s)->opts + sp_opt_find((s)->table, name)->offset))

/* err = the message; SP_EUSAGE */
int dmn_jp_fail(struct dmn_parse *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "PATH: 'x' is no NOUN of this job; did you mean 'y'? (NOUNs: a, b)"; SP_EUSAGE */
int dmn_jp_fail_name(struct dmn_parse *P, const char *path, const char *name, const char *noun, const char *const *v, int n);
/* A stage's message about step s: "--name: ..." becomes "where.KEY: ..." (KEY the job's key for
 * the flag); any other message is prefixed with where. Then "(synprobe WORDS)". SP_EUSAGE */
int dmn_jp_stage_fail(struct dmn_parse *P, const struct dmn_step *s, const char *where, const char *msg);
void dmn_jp_push_name(const char ***v, int *n, const char *name);   /* grown one at a time */
int dmn_jp_find_name(const char *const *v, int n, const char *name);   /* its index, or -1 */
const char *dmn_jp_resolve(struct dmn_parse *P, const char *base, const char *p);   /* p against folder base */
/* a new step of kind k (its options at their defaults, the job's store), appended; a copy of step i */
struct dmn_step *dmn_jp_new_step(struct dmn_parse *P, enum dmn_step_kind k, const char *where);
struct dmn_step *dmn_jp_dup_step(struct dmn_parse *P, int i);
/* Fill step s from obj (a copy without the job's own keys) through the stage's table, its paths
 * resolved (alias: the job's name for the option "encoder", for messages). */
int dmn_jp_fill(struct dmn_parse *P, struct dmn_step *s, json_t *obj, const char *where, const char *alias);
/* A section entry: an object, copied so job keys can be taken out before the table reads it; NULL
 * (with err) when e is no object. */
json_t *dmn_jp_entry(struct dmn_parse *P, json_t *e, const char *where);
/* obj's string key, taken out of obj into *out (NULL when absent and not required) */
int dmn_jp_want_string(struct dmn_parse *P, json_t *obj, const char *key, const char *where, int required, const char **out);
struct sp_strlist dmn_jp_one(struct dmn_parse *P, const char *name);   /* a list of one name, in the job's arena */
/* The corpus of an entry given "run": the run's input when the job makes that run, else the
 * job's first corpus; NULL when the job has none. */
const char *dmn_jp_run_corpus(struct dmn_parse *P, const char *run);
/* Whether corpus run r is one an entry (of corpus, or of every corpus when NULL) is crossed
 * with: need 'a' wants its attention maps, 't' its token vectors. */
int dmn_jp_crossed(const struct dmn_runref *r, const char *corpus, char need);

#endif
