/* Unit tests for treeops/dep.c: docs/spec/structures.md §3 test vectors TV-5, TV-6, TV-7, TV-9,
 * invalid head arrays, 10,000-deep chains, and random trees checked against brute force
 * (lowest common ancestor by walking head chains) and against the spec's properties. */
#include <stdint.h>
#include <stdlib.h>

#include "common/sp.h"
#include "treeops/treeops.h"
#include "t_harness.h"

/* 1-based file heads -> 0-based */
static void heads0(int n, const int *h1, int *h0)
{
    for (int i = 0; i < n; i++) h0[i] = h1[i] - 1;
}

/* every structure by both paths; returns 0 and checks they agree */
struct deps {
    int n;
    int *depth, *order, *dist, *rel;
    uint8_t *anc;
};

static void deps_free(struct deps *d)
{
    free(d->depth); free(d->order); free(d->dist); free(d->rel); free(d->anc);
}

static int deps_compute(int n, const int *head, struct deps *d)
{
    d->n = n;
    d->depth = sp_xcalloc((size_t)n + 1, sizeof(int));
    d->order = sp_xcalloc((size_t)n + 1, sizeof(int));
    d->dist = sp_xcalloc((size_t)n * n + 1, sizeof(int));
    d->rel = sp_xcalloc((size_t)n * n + 1, sizeof(int));
    d->anc = sp_xcalloc((size_t)n * n + 1, 1);
    if (tops_depth(n, head, d->order, d->depth) != 0) return -1;
    /* order: a permutation, root first, every word after its head */
    char *seen = sp_xcalloc((size_t)n, 1);
    long bad_order = head[d->order[0]] != -1;
    for (int k = 0; k < n; k++) {
        int v = d->order[k];
        bad_order += v < 0 || v >= n || seen[v] || (head[v] >= 0 && !seen[head[v]]);
        if (v >= 0 && v < n) seen[v] = 1;
    }
    free(seen);
    T_EQ_INT(bad_order, 0);
    tops_distance(n, head, d->order, d->dist);
    tops_ancestors(n, head, d->anc);
    tops_rel_pos(n, d->depth, d->anc, d->rel);

    /* the hot path must give the same numbers, whichever outputs are asked for */
    int *depth2 = sp_xcalloc((size_t)n + 1, sizeof(int));
    int *dist2 = sp_xcalloc((size_t)n * n + 1, sizeof(int));
    int *rel2 = sp_xcalloc((size_t)n * n + 1, sizeof(int));
    uint8_t *anc2 = sp_xcalloc((size_t)n * n + 1, 1);
    void *scratch = sp_xmalloc(tops_dep_scratch_bytes(n) + 1);
    T_EQ_INT(tops_dep_all(n, head, depth2, dist2, anc2, rel2, scratch), 0);
    T_CHECK(memcmp(depth2, d->depth, (size_t)n * sizeof(int)) == 0);
    T_CHECK(memcmp(dist2, d->dist, (size_t)n * n * sizeof(int)) == 0);
    T_CHECK(memcmp(anc2, d->anc, (size_t)n * n) == 0);
    T_CHECK(memcmp(rel2, d->rel, (size_t)n * n * sizeof(int)) == 0);
    /* every other combination of wanted outputs: rel alone (from head chains), rel with
     * Anc, D alone, depth alone */
    memset(rel2, 0x55, (size_t)n * n * sizeof(int));
    T_EQ_INT(tops_dep_all(n, head, depth2, NULL, NULL, rel2, scratch), 0);
    T_CHECK(memcmp(rel2, d->rel, (size_t)n * n * sizeof(int)) == 0);
    memset(rel2, 0x55, (size_t)n * n * sizeof(int));
    memset(anc2, 0x55, (size_t)n * n);
    T_EQ_INT(tops_dep_all(n, head, depth2, NULL, anc2, rel2, scratch), 0);
    T_CHECK(memcmp(rel2, d->rel, (size_t)n * n * sizeof(int)) == 0);
    T_CHECK(memcmp(anc2, d->anc, (size_t)n * n) == 0);
    memset(dist2, 0x55, (size_t)n * n * sizeof(int));
    T_EQ_INT(tops_dep_all(n, head, depth2, dist2, NULL, NULL, scratch), 0);
    T_CHECK(memcmp(dist2, d->dist, (size_t)n * n * sizeof(int)) == 0);
    T_EQ_INT(tops_dep_all(n, head, depth2, NULL, NULL, NULL, scratch), 0);
    T_CHECK(memcmp(depth2, d->depth, (size_t)n * sizeof(int)) == 0);
    free(depth2); free(dist2); free(rel2); free(anc2); free(scratch);
    return 0;
}

/* check that anc row i is exactly the set given (-1 terminated) */
static int row_is_set(const uint8_t *anc, int n, int i, const int *set)
{
    uint8_t want[64] = {0};
    for (int k = 0; set[k] >= 0; k++) want[set[k]] = 1;
    for (int j = 0; j < n; j++)
        if (anc[i * n + j] != want[j]) return 0;
    return 1;
}

static void tv5(void)
{
    /* docs/spec/structures.md §3.7: "Two kids at a ballgame wash their hands" */
    const int h1[8] = {2, 6, 5, 5, 2, 0, 8, 6};
    const int depth[8] = {2, 1, 3, 3, 2, 0, 2, 1};
    const int anc[8][8] = {
        {1, 1, 0, 0, 0, 1, 0, 0}, {0, 1, 0, 0, 0, 1, 0, 0}, {0, 1, 1, 0, 1, 1, 0, 0},
        {0, 1, 0, 1, 1, 1, 0, 0}, {0, 1, 0, 0, 1, 1, 0, 0}, {0, 0, 0, 0, 0, 1, 0, 0},
        {0, 0, 0, 0, 0, 1, 1, 1}, {0, 0, 0, 0, 0, 1, 0, 1},
    };
    const int D[8][8] = {
        {0, 1, 3, 3, 2, 2, 4, 3}, {1, 0, 2, 2, 1, 1, 3, 2}, {3, 2, 0, 2, 1, 3, 5, 4},
        {3, 2, 2, 0, 1, 3, 5, 4}, {2, 1, 1, 1, 0, 2, 4, 3}, {2, 1, 3, 3, 2, 0, 2, 1},
        {4, 3, 5, 5, 4, 2, 0, 1}, {3, 2, 4, 4, 3, 1, 1, 0},
    };
    const int rel[8][8] = {
        {0, 1, 5, 5, 4, 2, 4, 3},        {-1, 0, -2, -2, -1, 1, 3, 2},
        {-5, 2, 0, 6, 1, 3, 5, 4},       {-5, 2, -6, 0, 1, 3, 5, 4},
        {-4, 1, -1, -1, 0, 2, 4, 3},     {-2, -1, -3, -3, -2, 0, -2, -1},
        {-4, -3, -5, -5, -4, 2, 0, 1},   {-3, -2, -4, -4, -3, 1, -1, 0},
    };
    int head[8];
    heads0(8, h1, head);
    struct deps d;
    T_EQ_INT(deps_compute(8, head, &d), 0);
    int bad_depth = 0, bad_anc = 0, bad_d = 0, bad_rel = 0;
    for (int i = 0; i < 8; i++) {
        bad_depth += d.depth[i] != depth[i];
        for (int j = 0; j < 8; j++) {
            bad_anc += d.anc[i * 8 + j] != anc[i][j];
            bad_d += d.dist[i * 8 + j] != D[i][j];
            bad_rel += d.rel[i * 8 + j] != rel[i][j];
        }
    }
    T_EQ_INT(bad_depth, 0);
    T_EQ_INT(bad_anc, 0);
    T_EQ_INT(bad_d, 0);
    T_EQ_INT(bad_rel, 0);
    /* order: root first, every word after its head, each word once */
    T_EQ_INT(d.order[0], 5);
    int seen[8] = {0};
    for (int k = 0; k < 8; k++) {
        int v = d.order[k];
        T_CHECK(head[v] < 0 || seen[head[v]]);
        T_EQ_INT(seen[v], 0);
        seen[v] = 1;
    }
    /* W row 5 and the EOS depth of §3.7 are trivial; P2 bucket examples of §3.5 */
    T_EQ_INT(tops_clip(-20, TOPS_REL_CLIP) + TOPS_REL_CLIP, 0);
    T_EQ_INT(tops_clip(5, TOPS_REL_CLIP) + TOPS_REL_CLIP, 21);
    T_EQ_INT(tops_clip(16, TOPS_REL_CLIP) + TOPS_REL_CLIP, 32);
    T_EQ_INT(tops_clip(17, TOPS_REL_CLIP) + TOPS_REL_CLIP, 32);
    deps_free(&d);
}

static void tv6(void)
{
    /* wsj_0001 s2: Mr. Vinken is chairman of Elsevier N.V. , the Dutch publishing group . */
    const int h1[13] = {2, 3, 0, 3, 4, 7, 12, 12, 12, 12, 12, 5, 3};
    const int depth[13] = {2, 1, 0, 1, 2, 5, 4, 4, 4, 4, 4, 3, 1};
    const int d_group[13] = {5, 4, 3, 2, 1, 2, 1, 1, 1, 1, 1, 0, 4};
    const int rel_chairman[13] = {-3, -2, 1, 0, -1, -4, -3, -3, -3, -3, -3, -2, 2};
    const int sdoi_group[] = {2, 3, 4, 11, -1};
    const int sdoi_elsevier[] = {2, 3, 4, 5, 6, 11, -1};
    int head[13];
    heads0(13, h1, head);
    struct deps d;
    T_EQ_INT(deps_compute(13, head, &d), 0);
    for (int i = 0; i < 13; i++) {
        T_EQ_INT(d.depth[i], depth[i]);
        T_EQ_INT(d.dist[2 * 13 + i], depth[i]);      /* D row of the root "is" = depth */
        T_EQ_INT(d.dist[11 * 13 + i], d_group[i]);
        T_EQ_INT(d.rel[3 * 13 + i], rel_chairman[i]);
    }
    T_CHECK(row_is_set(d.anc, 13, 11, sdoi_group));
    T_CHECK(row_is_set(d.anc, 13, 5, sdoi_elsevier));
    deps_free(&d);
}

static void tv7(void)
{
    const int head[3] = {2, 2, -1};                  /* I 'm in (TV-1) */
    const int depth[3] = {1, 1, 0};
    const int D[9] = {0, 2, 1, 2, 0, 1, 1, 1, 0};
    struct deps d;
    T_EQ_INT(deps_compute(3, head, &d), 0);
    for (int i = 0; i < 3; i++) T_EQ_INT(d.depth[i], depth[i]);
    for (int i = 0; i < 9; i++) T_EQ_INT(d.dist[i], D[i]);
    const int r0[] = {0, 2, -1}, r1[] = {1, 2, -1}, r2[] = {2, -1};
    T_CHECK(row_is_set(d.anc, 3, 0, r0));
    T_CHECK(row_is_set(d.anc, 3, 1, r1));
    T_CHECK(row_is_set(d.anc, 3, 2, r2));
    deps_free(&d);
}

static void tv9(void)
{
    /* EWT reviews-249889-0002, non-projective:
     * great knowledge and prices compared to anyone in the industry . */
    const int h1[11] = {2, 0, 4, 2, 1, 7, 5, 10, 10, 7, 2};
    int head[11];
    heads0(11, h1, head);
    struct deps d;
    T_EQ_INT(deps_compute(11, head, &d), 0);
    const int prices[] = {1, 3, -1}, in[] = {0, 1, 4, 6, 7, 9, -1}, dot[] = {1, 10, -1};
    T_CHECK(row_is_set(d.anc, 11, 3, prices));
    T_CHECK(row_is_set(d.anc, 11, 7, in));
    T_CHECK(row_is_set(d.anc, 11, 10, dot));
    T_EQ_INT(d.anc[3 * 11 + 0], 0);                  /* the span-based SG-Net mask would say 1 */
    deps_free(&d);
}

static void invalid(void)
{
    int order[8], depth[8];
    unsigned char scratch[512];
    const int two_roots[4] = {-1, 0, -1, 2};
    const int cycle[4] = {-1, 2, 3, 1};               /* 1 -> 2 -> 3 -> 1 never reaches 0 */
    const int self[3] = {-1, 1, 0};
    const int range[3] = {-1, 3, 0};
    const int neg[3] = {-1, -2, 0};
    const int noroot[2] = {1, 0};
    T_EQ_INT(tops_depth(4, two_roots, order, depth), -1);
    T_EQ_INT(tops_depth(4, cycle, order, depth), -1);
    T_EQ_INT(tops_depth(3, self, order, depth), -1);
    T_EQ_INT(tops_depth(3, range, order, depth), -1);
    T_EQ_INT(tops_depth(3, neg, order, depth), -1);
    T_EQ_INT(tops_depth(2, noroot, order, depth), -1);
    T_EQ_INT(tops_dep_all(4, two_roots, depth, NULL, NULL, NULL, scratch), -1);
    T_EQ_INT(tops_dep_all(4, cycle, depth, NULL, NULL, NULL, scratch), -1);
    T_EQ_INT(tops_dep_all(3, self, depth, NULL, NULL, NULL, scratch), -1);
    T_EQ_INT(tops_dep_all(2, noroot, depth, NULL, NULL, NULL, scratch), -1);
    /* one word, and the empty sentence */
    const int one[1] = {-1};
    int dist1[1] = {7}, rel1[1] = {7};
    uint8_t anc1[1] = {7};
    T_EQ_INT(tops_dep_all(1, one, depth, dist1, anc1, rel1, scratch), 0);
    T_EQ_INT(depth[0], 0);
    T_EQ_INT(dist1[0], 0);
    T_EQ_INT(anc1[0], 1);
    T_EQ_INT(rel1[0], 0);
    T_EQ_INT(tops_depth(0, one, order, depth), 0);
    T_EQ_INT(tops_dep_all(0, one, depth, NULL, NULL, NULL, scratch), 0);
}

static void deep_chains(void)
{
    /* a 100,000-word chain: word i depends on word i+1, the last word is the root */
    int n = 100000;
    int *head = sp_xmalloc((size_t)n * sizeof(int));
    int *order = sp_xmalloc((size_t)n * sizeof(int));
    int *depth = sp_xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) head[i] = i + 1 < n ? i + 1 : -1;
    T_EQ_INT(tops_depth(n, head, order, depth), 0);
    T_EQ_INT(depth[0], n - 1);
    T_EQ_INT(order[0], n - 1);
    T_EQ_INT(order[n - 1], 0);
    /* the same chain closed into a cycle at the far end is rejected */
    head[n - 1] = 0;
    T_EQ_INT(tops_depth(n, head, order, depth), -1);
    free(head); free(order); free(depth);

    /* every matrix on a 3,000-deep chain (reverse direction): D[i][j] = |i - j| */
    n = 3000;
    head = sp_xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) head[i] = i - 1;
    struct deps d;
    T_EQ_INT(deps_compute(n, head, &d), 0);
    long bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            bad += d.dist[(size_t)i * n + j] != abs(i - j);
            bad += d.anc[(size_t)i * n + j] != (j <= i);
            bad += d.rel[(size_t)i * n + j] != i - j;     /* every pair is vertical */
        }
    T_EQ_INT(bad, 0);
    deps_free(&d);
    free(head);
}

/* brute force: depth of the lowest common ancestor by walking both chains */
static int lca(const int *head, const int *depth, int i, int j)
{
    while (depth[i] > depth[j]) i = head[i];
    while (depth[j] > depth[i]) j = head[j];
    while (i != j) { i = head[i]; j = head[j]; }
    return i;
}

/* properties of §3.2/§3.3/§3.5 on one tree; exported to the data test by copy */
static long check_props(int n, const int *head, const struct deps *d)
{
    long bad = 0;
    int root = -1;
    for (int i = 0; i < n; i++) if (head[i] < 0) root = i;
    for (int i = 0; i < n; i++) {
        int ones = 0;
        for (int j = 0; j < n; j++) {
            size_t ij = (size_t)i * n + j, ji = (size_t)j * n + i;
            int l = lca(head, d->depth, i, j);
            int D = d->dist[ij];
            bad += D != d->depth[i] + d->depth[j] - 2 * d->depth[l];
            bad += D != d->dist[ji];
            bad += d->anc[ij] != (l == j);           /* j is i or an ancestor of i */
            ones += d->anc[ij];
            bad += d->rel[ij] != -d->rel[ji];
            int r = abs(d->rel[ij]);
            bad += r < D;
            int vertical = l == i || l == j;
            bad += (r == D) != (vertical || l == root);
        }
        bad += ones != d->depth[i] + 1;
    }
    return bad;
}

static void random_trees(void)
{
    struct sp_rng rng;
    sp_rng_seed(&rng, 20240611);
    long bad = 0;
    for (int it = 0; it < 400; it++) {
        int n = 1 + (int)sp_rng_below(&rng, it < 300 ? 40 : 200);
        int *perm = sp_xmalloc((size_t)n * sizeof(int));
        int *head = sp_xmalloc((size_t)n * sizeof(int));
        for (int i = 0; i < n; i++) perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int k = (int)sp_rng_below(&rng, (uint64_t)i + 1), t = perm[i];
            perm[i] = perm[k]; perm[k] = t;
        }
        /* word perm[k] attaches to a word placed earlier (any shape, non-projective too);
         * bias towards recent words for some iterations to get deep trees */
        head[perm[0]] = -1;
        for (int k = 1; k < n; k++) {
            int back = it % 3 == 0 ? (int)sp_rng_below(&rng, k < 3 ? (uint64_t)k : 3) + 1
                                   : (int)sp_rng_below(&rng, (uint64_t)k) + 1;
            head[perm[k]] = perm[k - back];
        }
        struct deps d;
        T_EQ_INT(deps_compute(n, head, &d), 0);
        bad += check_props(n, head, &d);
        deps_free(&d);
        free(perm); free(head);
    }
    T_EQ_INT(bad, 0);
}

int main(void)
{
    tv5();
    tv6();
    tv7();
    tv9();
    invalid();
    deep_chains();
    random_trees();
    return T_DONE();
}
