/* stages/partition.c — see stages/partition.h. */
#include "stages/partition.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "store/st_runs.h"

int stg_corpus_run_check(struct stg_ctx *ctx, struct st_db *db, const char *run, int64_t cid, const char *corpus,
                         const char *who)
{
    struct st_run_info ri;
    int rc = st_run_info(db, run, &ri, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) return rc;
    if (ri.corpus_id != cid)
        rc = stg_fail(ctx, SP_EPARSE, "run '%s' encodes %s '%s', not corpus '%s' (%s takes a corpus run)", run,
                      ri.corpus ? "corpus" : "task", ri.corpus ? ri.corpus : ri.task ? ri.task : "?", corpus, who);
    else if (!ri.token_vectors)
        rc = stg_fail(ctx, SP_EPARSE, "run '%s' has no token vectors: encode the corpus again with --token-vectors", run);
    st_run_info_free(&ri);
    return rc;
}

void stg_partition(int n, const char *const *split, const uint8_t *usable, uint64_t seed, int *part, char *how,
                   size_t how_len)
{
    static const char *const names[3] = { "train", "dev", "test" };
    int have[3] = { 0, 0, 0 }, other = 0;
    for (int k = 0; k < n; k++) {
        part[k] = -1;
        if (!usable[k]) continue;
        for (int j = 0; j < 3; j++) if (split[k] && !strcmp(split[k], names[j])) part[k] = j;
        if (part[k] >= 0) have[part[k]]++; else other++;
    }
    if (have[0] && have[1] && have[2] && !other) {
        snprintf(how, how_len, "official: the recorded split (train %d, dev %d, test %d sentences)", have[0], have[1], have[2]);
        return;
    }
    int m = 0, *idx = sp_xmalloc(sizeof *idx * (size_t)(n + 1));
    for (int k = 0; k < n; k++) if (usable[k]) idx[m++] = k;
    struct sp_splitmix r;
    sp_splitmix_seed(&r, seed);
    for (int i = m - 1; i > 0; i--) {
        int j = (int)sp_splitmix_below(&r, (uint64_t)i + 1), x = idx[i];
        idx[i] = idx[j]; idx[j] = x;
    }
    int ntr = (int)floor(0.8 * m + 0.5), nva = (int)floor(0.1 * m + 0.5);
    for (int i = 0; i < m; i++) part[idx[i]] = i < ntr ? 0 : i < ntr + nva ? 1 : 2;
    free(idx);
    snprintf(how, how_len, "re-split 80/10/10 by sentence, seed %llu (%s)", (unsigned long long)seed,
             other ? "the corpus has no recorded train/dev/test split for every sentence" : "the corpus lacks a partition");
}
