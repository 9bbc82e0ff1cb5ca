/* daemon/shard.h — one job split over machines: shard jobs and the Slurm scripts that run them.
 *
 * `synprobe run --shard K/N JOB.json` runs the job's heavy steps on shard K of N: each ingest
 * step stores only the sentences of shard K (stages/ingest.h, stg_shard_of: SHA-256 of the
 * file's base name and the sentence's position, mod N), and each encode step over a corpus
 * encodes them. Tasks are drawn from every shard's sentences, so task encodes, like tasks,
 * probes, trees, structural probes and reports, are left to the run on the merged store (a task
 * item equal to a corpus sentence finds its vector cached there when the job also encodes that
 * corpus with the same encoder: the input hash is the same, stages/encode_batch.c). The shard's
 * store is the job's store name with ".shard-K-of-N" before its extension, in the job's
 * output folder (out/store.db -> out/store.shard-2-of-8.db).
 *
 * `synprobe merge STORE SHARD...` (store/st_shards.h) combines them; `synprobe run JOB.json`
 * then finds ingest and encode done (the same files, every vector cached) and runs the rest. */
#ifndef DMN_SHARD_H
#define DMN_SHARD_H

#include <stddef.h>

#include "daemon/job.h"

/* "K/N" with 0 <= K < N, 1 <= N <= 10000. */
int dmn_shard_parse(const char *s, int *k, int *n, char *err, size_t errlen);

/* The shard store's path: out/<store base, extension cut>.shard-K-of-N<extension>, into buf. */
void dmn_shard_path(const struct dmn_job *job, int k, int n, char *buf, size_t cap);

/* The same, in the job's arena. */
const char *dmn_shard_store(struct dmn_job *job, int k, int n);

/* Turn a loaded job into its shard K of N: the store becomes the shard store and the steps
 * the ones described above. */
int dmn_job_shard(struct dmn_job *job, int k, int n, char *err, size_t errlen);

struct dmn_slurm_opts {
    int shards;                   /* N */
    long gpus;                    /* GPUs per shard task (--gres=gpu:G); 0: none */
    const char *partition;        /* NULL: the cluster's default */
    const char *time;             /* --time of each job; NULL: the partition's default */
    const char *dir;              /* where the scripts go */
    const char *synprobe;         /* the binary the scripts call (absolute) */
};

/* Write DIR/shards.sbatch (the array), DIR/shards.list (the N shard stores, one absolute path a
 * line), DIR/final.sbatch (`merge STORE --from-list DIR/shards.list`, then the whole job on the
 * merged store: its size does not grow with N) and DIR/submit.sh (submits both, the second with
 * --dependency=afterok on the first); the scripts name absolute paths. SP_OK or SP_EIO with err. */
int dmn_slurm_write(const struct dmn_job *job, const struct dmn_slurm_opts *o, char *err, size_t errlen);

#endif
