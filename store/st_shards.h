/* store/st_shards.h — shard stores and their merge (schemas/migrations/008-shards.sql).
 *
 * `synprobe run --shard K/N JOB.json` writes a store that holds only the sentences of shard K
 * (stages/ingest.h, stg_shard_of) and their vectors: st_shard_mark makes it say so.
 * st_merge combines shard stores into one: corpora, sources, sentences with their tokens,
 * extra lines and structures, quarantined sentences, encoders, vectors and attention maps.
 * Sentences are matched by (corpus, document, position), sources by (corpus, SHA-256),
 * encoders by fingerprint, vectors by (encoder, input hash), so merging a shard twice, or
 * merging again, adds nothing. The merged sentences are then numbered as a one-machine ingest
 * numbers them: by the source that created each (the first of its annotations' files) and
 * position. Runs, tasks, results and job ledgers of shard stores are not merged: the job's
 * later steps make them on the merged store (every vector they need is cached there).
 *
 * Refused, with both stores named: a shard store that is not one (no 'self' row), shards of
 * different N, stores whose sources (corpus, file, SHA-256, format, mode) or encoder
 * fingerprints differ, two stores that hold different sentences at one place or one sent_id
 * at two places, a target that is itself a shard, and new sentences into a target that already
 * holds tasks or runs (their sentence ids would change). Up to 9 shards are merged in one
 * transaction (SQLite attaches at most 10 databases); more are merged 9 at a time, each group
 * all-or-nothing, so an interrupted merge is finished by running it again. Each transaction
 * ends with PRAGMA foreign_key_check and integrity_check. Each shard must pass SQLite's
 * integrity_check before anything is read from it (a damaged shard is refused, named with the
 * check's first message, and nothing is merged). */
#ifndef ST_SHARDS_H
#define ST_SHARDS_H

#include <stddef.h>

#include "store/store.h"

/* Record that db is shard k of n. SP_OK when it is (already, or now: a store without
 * sentences); SP_EUSAGE with err when it is another shard, a merged store, or a store with
 * sentences that is no shard. */
int st_shard_mark(struct st_db *db, int k, int n, char *err, size_t errlen);

/* The shard a store says it is: *k, *n; *n = 0 when it is none. */
int st_shard_self(struct st_db *db, int *k, int *n, char *err, size_t errlen);

/* The shards of a merged store that no merge put there yet: *n the N its merged shards split the
 * job into (0: no merge put anything there, or it is no merged store), *ks (malloc'd, free it;
 * NULL when none) the numbers K of those missing, ascending, *n_missing how many. A job's later
 * steps (tasks, encodes, probes, trees, reports) on such a store would see part of its corpus:
 * `run` and every stage that writes to a store refuse it while *n_missing > 0. */
int st_shards_unmerged(struct st_db *db, int *n, int **ks, int *n_missing, char *err, size_t errlen);

struct st_merge_shard {
    const char *path;                    /* as given (messages) */
    char real[4096];                     /* its real path (recorded in the target) */
    int k, n;
    long sentences, new_sentences;       /* the shard's; those not in the target before */
    long vectors, new_vectors, new_attention, new_quarantined;
    long differing_vectors;              /* same encoder and input, other bits: the target's kept */
};

struct st_merge_result {
    int n;                               /* shards given */
    struct st_merge_shard *shard;        /* [n] */
    int shard_n;                         /* N */
    int n_merged;                        /* distinct shards the target now holds */
    long sentences, vectors;             /* the target's, after */
    int renumbered;                      /* sentence ids were put in one-machine order */
};

/* Merge the shard stores paths[0..n) into out (created if missing). SP_OK; SP_EUSAGE for a
 * refusal (err names both stores and what differs); SP_ESTORE/SP_EIO. r is filled as far as
 * it got; free with st_merge_result_free. One file named twice, or the target among the shards,
 * is refused first (st_merge_distinct): nothing is opened or created. */
int st_merge(const char *out, const char **paths, int n, struct st_merge_result *r, char *err, size_t errlen);
/* Whether the shards paths[0..n) are n files, none of them out, by identity (device and inode,
 * a symlink followed: a hard link, a symlink, "./x" and "x" twice all count). Opens nothing;
 * a path that does not exist is left to the open that follows. SP_OK, or SP_EUSAGE with err
 * naming both paths. */
int st_merge_distinct(const char *out, const char *const *paths, int n, char *err, size_t errlen);
void st_merge_result_free(struct st_merge_result *r);

#endif
