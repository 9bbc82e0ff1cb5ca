/* store/st_derive.c — every cached structure of one sentence, computed with treeops and
 * encoded as store BLOBs. Runs on the ingest worker threads, so it allocates only from
 * the batch arena and the caller's reusable scratch. */
#include <string.h>

#include "common/sp.h"
#include "store/st_derive.h"
#include "treeops/treeops.h"

void st_derive_scratch_init(struct st_derive_scratch *sc) { memset(sc, 0, sizeof *sc); }

void st_derive_scratch_free(struct st_derive_scratch *sc)
{
    free(sc->mem);
    sp_buf_free(&sc->text);
    memset(sc, 0, sizeof *sc);
}

static void *scratch_get(struct st_derive_scratch *sc, size_t need)
{
    if (sc->cap < need) {
        free(sc->mem);
        sc->cap = need * 2;
        sc->mem = sp_xmalloc(sc->cap);
    }
    return sc->mem;
}

int st_derive(const struct sp_sentence *s, int levels, struct sp_arena *a, struct st_derive_scratch *sc,
              struct st_derived *d)
{
    memset(d, 0, sizeof *d);
    int n = s->n;
    if (n <= 0 || n > ST_BLOB_MAX_WORDS) return -1;
    size_t nn = (size_t)n * (size_t)n;

    if (s->head) {
        size_t tops_bytes = tops_dep_scratch_bytes(n);
        char *mem = scratch_get(sc, tops_bytes + nn * (2 * sizeof(int) + 1) + (size_t)n * sizeof(int) + 64);
        int *depth = (int *)mem, *dist = depth + n, *rel = dist + nn;
        uint8_t *anc = (uint8_t *)(rel + nn);
        void *tops_scratch = anc + nn + (16 - ((uintptr_t)(anc + nn) & 15));
        if (tops_dep_all(n, s->head, depth, dist, anc, rel, tops_scratch)) return -1;
        d->has_dep = 1;
        d->max_depth = 0;
        for (int i = 0; i < n; i++) {
            if (s->head[i] < 0) d->root = i;
            if (depth[i] > d->max_depth) d->max_depth = depth[i];
        }
        d->projective = tops_is_projective(n, s->head, anc);
        uint8_t *p;
        p = sp_arena_alloc(a, st_blob_size(ST_BLOB_DEPTH, n, 1));
        d->depth = (struct st_blobref){ p, st_blob_put_depth(p, n, depth) };
        p = sp_arena_alloc(a, st_blob_size(ST_BLOB_DISTANCE, n, 1));
        d->distance = (struct st_blobref){ p, st_blob_put_distance(p, n, dist) };
        p = sp_arena_alloc(a, st_blob_size(ST_BLOB_ANCESTORS, n, 1));
        d->ancestors = (struct st_blobref){ p, st_blob_put_ancestors(p, n, anc) };
        p = sp_arena_alloc(a, st_blob_size(ST_BLOB_RELPOS, n, 1));
        d->relpos = (struct st_blobref){ p, st_blob_put_relpos(p, n, rel) };
    }

    if (s->tree) {
        const struct sp_ctree *t = s->tree;
        int *pid = sp_arena_alloc(a, sizeof(int) * (size_t)n * (size_t)levels);
        if (tops_phrases(t, n, levels, 4, pid) < 0) return -1;
        d->has_const = 1;
        d->levels = levels;
        uint8_t *p = sp_arena_alloc(a, st_blob_size(ST_BLOB_PHRASES, n, levels));
        d->phrases = (struct st_blobref){ p, st_blob_put_phrases(p, n, levels, pid) };
        /* phrase counts per level: ids are 0..count-1 left to right, so count = last id + 1 */
        sc->text.len = 0;
        for (int l = 0; l < levels; l++)
            sp_buf_printf(&sc->text, "%s%d", l ? "," : "", pid[(size_t)l * n + n - 1] + 1);
        d->n_phrases = sp_arena_strndup(a, sc->text.p, sc->text.len);

        int m = tops_brackets(t, NULL, 0);
        int *span = sp_arena_alloc(a, sizeof(int) * 2 * (size_t)(m ? m : 1));
        tops_brackets(t, span, m);
        p = sp_arena_alloc(a, st_blob_size(ST_BLOB_SPANS, n, m));
        d->spans = (struct st_blobref){ p, st_blob_put_spans(p, n, m, span) };

        d->tree_depth = tops_tree_depth(t);
        char tc[1024];
        tops_top_const(t, tc, sizeof tc);
        d->top_const = sp_arena_strdup(a, tc);
        d->top_const_class = tops_top_const_is_frequent(tc) ? d->top_const : "OTHER";
        sc->text.len = 0;
        tops_tree_format(t, s->col[SP_FORM], &sc->text);
        d->tree = sp_arena_strndup(a, sc->text.p, sc->text.len);
    }
    return 0;
}
