/* stages/partition.h — train/dev/test partitions of a corpus's sentences for the probes trained
 * on one corpus run (structprobe --run, tokprobe): the corpus's recorded split when every usable
 * sentence has train, dev or test and all three occur, else a seeded 80/10/10 split of the
 * usable sentences (a SplitMix64 Fisher-Yates permutation, the first 80% train, the next 10% dev). */
#ifndef SP_STG_PARTITION_H
#define SP_STG_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "stages/stage.h"

struct st_db;

/* The run these probes read: it must encode corpus cid (named corpus) with token vectors; else
 * SP_EPARSE with ctx->err naming the run and what it lacks ("(WHO takes a corpus run)"). */
int stg_corpus_run_check(struct stg_ctx *ctx, struct st_db *db, const char *run, int64_t cid, const char *corpus,
                         const char *who);

/* split[k]: the sentence's recorded split or NULL; usable[k]: 0 leaves it out (part -1).
 * part[k] = 0 train, 1 dev, 2 test, -1 out. how: the partition in words, for the manifest. */
void stg_partition(int n, const char *const *split, const uint8_t *usable, uint64_t seed, int *part, char *how,
                   size_t how_len);

#endif
