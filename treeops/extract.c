/* treeops/extract.c — binary constituency tree from a word-level attention matrix
 * (docs/spec/structures.md §6.1–6.3, normative score from docs/spec/probing.md §5.1).
 *
 * score(i,j) = Σ_{x=i..j} Σ_{y=i..j} A[x][y]            (TOPS_SPAN_SUM)
 *            = that sum / (j − i + 1)                    (TOPS_SPAN_MEAN, normative)
 * read from a float64 2-D prefix sum Ps[a][b] = Σ_{x<a, y<b} A[x][y]. Split [i,j] at the
 * smallest k maximising score(i,k)·score(k+1,j) (scan k upward, replace only on a strictly
 * greater product). Top-down with an explicit stack, so deep (e.g. right-branching) trees
 * never recurse. O(n²) for the prefix sums, O(n²) worst case for the splits. */
#include <stdlib.h>

#include "treeops/treeops.h"

size_t tops_extract_scratch_bytes(int n)
{
    if (n < 1) return 0;
    return (size_t)(n + 1) * (n + 1) * sizeof(double) + (size_t)2 * n * sizeof(int);
}

/* in-span mass of [i,j] (inclusive) from the (n+1)×(n+1) prefix table */
static inline double span_mass(const double *ps, int n1, int i, int j)
{
    return ps[(size_t)(j + 1) * n1 + (j + 1)] - ps[(size_t)i * n1 + (j + 1)]
         - ps[(size_t)(j + 1) * n1 + i] + ps[(size_t)i * n1 + i];
}

static inline double span_score(const double *ps, int n1, int i, int j, int mean)
{
    double m = span_mass(ps, n1, i, j);
    return mean ? m / (double)(j - i + 1) : m;
}

int tops_extract_tree(int n, const float *attn, enum tops_span_score score, int renorm,
                      void *scratch, int *span)
{
    if (n < 2) return 0;
    void *own = NULL;
    if (!scratch) {
        scratch = own = malloc(tops_extract_scratch_bytes(n));
        if (!own) return -1;
    }
    const int n1 = n + 1;
    const int mean = score == TOPS_SPAN_MEAN;
    double *ps = scratch;
    int *stack = (int *)(ps + (size_t)n1 * n1);

    /* prefix sums: row 0 and column 0 are zero; row x+1 = row x + running sum of A[x] */
    for (int b = 0; b < n1; b++) ps[b] = 0.0;
    for (int x = 0; x < n; x++) {
        const float *ax = attn + (size_t)x * n;
        double scale = 1.0;
        if (renorm) {
            double rs = 0.0;
            for (int y = 0; y < n; y++) rs += ax[y];
            scale = rs > 0.0 ? 1.0 / rs : 1.0;     /* an all-zero row stays zero */
        }
        const double *up = ps + (size_t)x * n1;
        double *cur = ps + (size_t)(x + 1) * n1;
        double run = 0.0;
        cur[0] = 0.0;
        for (int y = 0; y < n; y++) {
            run += renorm ? (double)ax[y] * scale : (double)ax[y];
            cur[y + 1] = up[y + 1] + run;
        }
    }

    /* pre-order: pop a span, emit it, push right then left so the left is split first.
     * The stack only holds disjoint spans of >= 2 words: at most n/2 pairs. */
    int sp = 0, cnt = 0;
    stack[sp++] = 0;
    stack[sp++] = n - 1;
    while (sp > 0) {
        int j = stack[--sp], i = stack[--sp];
        span[2 * cnt] = i;
        span[2 * cnt + 1] = j;
        cnt++;
        int best_k = i;
        double best = -1.0;
        for (int k = i; k < j; k++) {
            double p = span_score(ps, n1, i, k, mean) * span_score(ps, n1, k + 1, j, mean);
            if (k == i || p > best) {
                best = p;
                best_k = k;
            }
        }
        if (j - (best_k + 1) + 1 >= 2) {
            stack[sp++] = best_k + 1;
            stack[sp++] = j;
        }
        if (best_k - i + 1 >= 2) {
            stack[sp++] = i;
            stack[sp++] = best_k;
        }
    }
    free(own);
    return cnt;
}
