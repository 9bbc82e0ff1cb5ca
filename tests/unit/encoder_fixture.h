/* tests/unit/encoder_fixture.h — small synthetic sentences for the encoder unit tests: structures
 * from a head array by the definitions of docs/spec/structures.md §3 (naive loops, test-only), phrase ids
 * as contiguous blocks (level t: t+1 blocks), seeded random embeddings. */
#ifndef ENCODER_FIXTURE_H
#define ENCODER_FIXTURE_H
#include "common/sp.h"
#include "encoder/encoder.h"

#include <string.h>

struct fx_sent { struct enc_sentence s; float *emb; int32_t *depth, *dist, *rel, *pid; uint8_t *anc; };

static inline void fx_make(struct fx_sent *f, int n, const int *head, int d_in, uint64_t seed, int T)
{
    memset(f, 0, sizeof *f);
    f->emb = sp_xmalloc(sizeof(float) * (size_t)n * d_in);
    f->depth = sp_xmalloc(sizeof(int32_t) * (size_t)n);
    f->dist = sp_xmalloc(sizeof(int32_t) * (size_t)n * n);
    f->rel = sp_xmalloc(sizeof(int32_t) * (size_t)n * n);
    f->anc = sp_xcalloc((size_t)n * n, 1);
    f->pid = sp_xmalloc(sizeof(int32_t) * (size_t)(T ? T : 1) * n);
    struct sp_rng r;
    sp_rng_seed(&r, seed);
    for (int k = 0; k < n * d_in; k++) f->emb[k] = (float)(2 * sp_rng_uniform(&r) - 1);
    for (int i = 0; i < n; i++) {
        int d = 0;
        for (int k = i; k >= 0; k = head[k]) { f->anc[i * n + k] = 1; if (head[k] >= 0) d++; }
        f->depth[i] = d;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int lca = 0;
            for (int k = 0; k < n; k++) if (f->anc[i * n + k] && f->anc[j * n + k] && f->depth[k] > lca) lca = f->depth[k];
            f->dist[i * n + j] = f->depth[i] + f->depth[j] - 2 * lca;
            f->rel[i * n + j] = i == j ? 0 : (f->anc[i * n + j] || f->anc[j * n + i]) ? f->depth[i] - f->depth[j]
                              : (j > i ? 1 : -1) * (f->depth[i] + f->depth[j]);
        }
    for (int t = 0; t < T; t++)
        for (int i = 0; i < n; i++) f->pid[t * n + i] = (int32_t)((long)i * (t + 2) / n);
    f->s = (struct enc_sentence){ .n = n, .emb = f->emb, .depth = f->depth, .dist = f->dist, .anc = f->anc,
                                  .rel = f->rel, .pid = T ? f->pid : NULL, .n_levels = T };
}

static inline void fx_free(struct fx_sent *f)
{
    free(f->emb); free(f->depth); free(f->dist); free(f->rel); free(f->anc); free(f->pid);
    memset(f, 0, sizeof *f);
}

/* three sentences: TV-5's tree (8 words), a 1-word sentence, a 20-word chain */
#define FX_B 3
static inline void fx_batch(struct fx_sent *f, int d_in, uint64_t seed)
{
    static const int tv5[8] = { 1, 5, 4, 4, 1, -1, 7, 5 };
    static const int one[1] = { -1 };
    int chain[20];
    for (int i = 0; i < 20; i++) chain[i] = i - 1;
    fx_make(&f[0], 8, tv5, d_in, seed, 3);
    fx_make(&f[1], 1, one, d_in, seed + 1, 3);
    fx_make(&f[2], 20, chain, d_in, seed + 2, 3);
}
#endif
