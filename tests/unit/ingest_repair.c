/* tests/unit/ingest_repair.c — HEAD validation and the deterministic repair of docs/spec/structures.md §2.1:
 * TV-3, TV-3b, hand-worked cases, and random head arrays checked against a naive
 * transcription of the spec's three steps written here (O(n^2), no colouring). */
#include "tests/unit/t_harness.h"

#include "common/sp.h"
#include "ingest/readers.h"

static int same(int n, const int *a, const int *b)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

static void check(int n, const int *in, const int *want, unsigned wbits)
{
    int h[64];
    memcpy(h, in, (size_t)n * sizeof *h);
    unsigned w = ing_repair_heads(n, h);
    T_EQ_INT(w, wbits);
    T_CHECK(same(n, h, want));
    if (!same(n, h, want)) {
        fprintf(stderr, "  got");
        for (int i = 0; i < n; i++) fprintf(stderr, " %d", h[i]);
        fprintf(stderr, "\n");
    }
    T_CHECK(ing_heads_valid(n, h, NULL));
}

/* the spec's steps, literally: follow each chain for n+1 steps to see whether it reaches 0 */
static unsigned ref_repair(int n, int *h)
{
    unsigned w = 0;
    for (int k = 1; k <= n; k++)
        if (h[k - 1] < 0 || h[k - 1] > n || h[k - 1] == k) { h[k - 1] = 0; w |= SP_W_BADHEAD; }
    int rstar = 0;
    for (int k = 1; k <= n; k++)
        if (h[k - 1] == 0) {
            if (!rstar) rstar = k;
            else { h[k - 1] = rstar; w |= SP_W_MULTIROOT; }
        }
    for (int k = 1; k <= n; k++) {
        int x = k;
        for (int s = 0; s <= n && x != 0; s++) x = h[x - 1];
        if (x == 0) continue;
        int c = x;
        for (int y = h[x - 1]; y != x; y = h[y - 1])
            if (y < c) c = y;
        if (rstar) h[c - 1] = rstar;
        else { h[c - 1] = 0; rstar = c; }
        w |= SP_W_CYCLE;
    }
    return w;
}

int main(void)
{
    /* TV-3 */
    check(6, (int[]){ 2, 3, 2, 0, 0, 9 }, (int[]){ 2, 4, 2, 0, 4, 4 }, SP_W_BADHEAD | SP_W_MULTIROOT | SP_W_CYCLE);
    /* TV-3b */
    check(5, (int[]){ 4, 3, 2, 5, 4 }, (int[]){ 4, 4, 2, 0, 4 }, SP_W_CYCLE);
    /* already a tree: unchanged */
    check(4, (int[]){ 2, 0, 2, 3 }, (int[]){ 2, 0, 2, 3 }, 0);
    /* non-integers (< 0) and a self loop */
    check(3, (int[]){ -1, 0, 3 }, (int[]){ 0, 1, 1 }, SP_W_BADHEAD | SP_W_MULTIROOT);
    /* two cycles with a root present: both hang from it */
    check(5, (int[]){ 0, 3, 2, 5, 4 }, (int[]){ 0, 1, 2, 1, 4 }, SP_W_CYCLE);
    /* a chain that enters cycle 4->5->3->6->4 at 4 while its smallest word is 3: the cycle words
     * the chain does not pass (6) must not be taken for a second cycle later */
    check(6, (int[]){ 4, 0, 6, 5, 3, 4 }, (int[]){ 4, 0, 2, 5, 3, 4 }, SP_W_CYCLE);
    /* all roots */
    check(3, (int[]){ 0, 0, 0 }, (int[]){ 0, 1, 1 }, SP_W_MULTIROOT);
    /* n = 1 self loop */
    check(1, (int[]){ 1 }, (int[]){ 0 }, SP_W_BADHEAD);
    T_EQ_INT(ing_repair_heads(0, NULL), 0);

    /* one long cycle 1->2->...->n->1 (the colouring must be O(n), scratch on the heap) */
    int n = 5000;
    int *h = malloc((size_t)n * sizeof *h);
    for (int k = 1; k <= n; k++) h[k - 1] = k % n + 1;
    const char *why = NULL;
    T_CHECK(!ing_heads_valid(n, h, &why));
    T_EQ_STR(why, "no root");
    T_EQ_INT(ing_repair_heads(n, h), SP_W_CYCLE);
    T_EQ_INT(h[0], 0);
    T_EQ_INT(h[n - 1], 1);
    T_CHECK(ing_heads_valid(n, h, &why));
    T_CHECK(why == NULL);
    h[9] = 0;                                   /* a second root */
    T_CHECK(!ing_heads_valid(n, h, &why));
    T_EQ_STR(why, "multiple roots");
    free(h);

    /* ing_heads_valid reasons */
    T_CHECK(!ing_heads_valid(2, (int[]){ 0, 5 }, &why)); T_EQ_STR(why, "HEAD out of range");
    T_CHECK(!ing_heads_valid(2, (int[]){ 0, -1 }, &why)); T_EQ_STR(why, "HEAD out of range");
    T_CHECK(!ing_heads_valid(2, (int[]){ 0, 2 }, &why)); T_EQ_STR(why, "self-loop");
    T_CHECK(!ing_heads_valid(3, (int[]){ 0, 3, 2 }, &why)); T_EQ_STR(why, "cycle");
    T_CHECK(ing_heads_valid(3, (int[]){ 0, 1, 1 }, &why));

    /* random arrays against the literal transcription */
    struct sp_rng r;
    sp_rng_seed(&r, 12345);
    int mism = 0;
    for (int t = 0; t < 50000; t++) {
        int m = 1 + (int)sp_rng_below(&r, 14);
        int a[16], b[16];
        for (int k = 0; k < m; k++) {
            int v = (int)sp_rng_below(&r, (uint64_t)m + 3) - 1;    /* -1 .. m+1 */
            a[k] = b[k] = v;
        }
        unsigned wa = ing_repair_heads(m, a), wb = ref_repair(m, b);
        if (wa != wb || !same(m, a, b) || !ing_heads_valid(m, a, NULL)) mism++;
    }
    T_EQ_INT(mism, 0);
    return T_DONE();
}
