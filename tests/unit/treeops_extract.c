/* Unit tests for treeops/extract.c: tree extraction from attention (docs/spec/structures.md §6,
 * docs/spec/probing.md §5.1). TV-20 (sum score), TV-21 (mean vs sum), row renormalisation,
 * ties (smallest k) and a 3,000-word right-branching tree (explicit stack). */
#include <stdlib.h>

#include "common/sp.h"
#include "treeops/treeops.h"
#include "t_harness.h"

/* brackets equal to the expected pre-order list? */
static int same_spans(const int *got, int cnt, const int *want, int nwant)
{
    if (cnt != nwant) return 0;
    for (int k = 0; k < 2 * cnt; k++)
        if (got[k] != want[k]) return 0;
    return 1;
}

static void tv20(void)
{
    const float A[25] = {
        0.40f, 0.40f, 0.10f, 0.05f, 0.05f,
        0.35f, 0.45f, 0.10f, 0.05f, 0.05f,
        0.05f, 0.05f, 0.40f, 0.40f, 0.10f,
        0.05f, 0.05f, 0.40f, 0.40f, 0.10f,
        0.05f, 0.05f, 0.20f, 0.20f, 0.50f,
    };
    int span[8];
    int cnt = tops_extract_tree(5, A, TOPS_SPAN_SUM, 0, NULL, span);
    const int want[8] = {0, 4, 0, 1, 2, 4, 2, 3};      /* pre-order, §6.3 worked example */
    T_EQ_INT(cnt, 4);
    T_CHECK(same_spans(span, cnt, want, 4));

    /* §6.4 scoring of TV-20 by hand: gold {[0,4],[0,1],[2,4],[3,4],[4,4]}; each gold bracket
     * matches at most one predicted bracket with the same span */
    const int gold[10] = {0, 4, 0, 1, 2, 4, 3, 4, 4, 4};
    int used[4] = {0}, matched = 0;
    for (int g = 0; g < 5; g++)
        for (int p = 0; p < cnt; p++)
            if (!used[p] && span[2 * p] == gold[2 * g] && span[2 * p + 1] == gold[2 * g + 1]) {
                used[p] = 1;
                matched++;
                break;
            }
    T_EQ_INT(matched, 3);
    double P = matched / 4.0, R = matched / 5.0;
    T_NEAR(P, 0.75, 1e-12);
    T_NEAR(R, 0.60, 1e-12);
    T_NEAR(2 * P * R / (P + R), 0.666667, 1e-6);

    /* the same with caller scratch and row renormalisation (rows already sum to 1) */
    void *scratch = sp_xmalloc(tops_extract_scratch_bytes(5));
    cnt = tops_extract_tree(5, A, TOPS_SPAN_SUM, 1, scratch, span);
    T_CHECK(same_spans(span, cnt, want, 4));
    free(scratch);
}

static void tv21(void)
{
    const float A[16] = {
        .15f, .35f, .4f, .1f,
        .25f, .1f, .35f, .3f,
        .25f, .25f, .25f, .25f,
        .55f, .1f, .05f, .3f,
    };
    int span[6];
    const int want_sum[6] = {0, 3, 0, 1, 2, 3};
    const int want_mean[6] = {0, 3, 0, 2, 0, 1};
    int cnt = tops_extract_tree(4, A, TOPS_SPAN_SUM, 0, NULL, span);
    T_EQ_INT(cnt, 3);
    T_CHECK(same_spans(span, cnt, want_sum, 3));
    cnt = tops_extract_tree(4, A, TOPS_SPAN_MEAN, 0, NULL, span);
    T_EQ_INT(cnt, 3);
    T_CHECK(same_spans(span, cnt, want_mean, 3));

    /* rows scaled by 1, 2, 3, 4: renormalising gives TV-21 back; without it the mean
     * score sees a different matrix (row 3 now dominates) */
    float B[16];
    for (int x = 0; x < 4; x++)
        for (int y = 0; y < 4; y++) B[x * 4 + y] = A[x * 4 + y] * (float)(x + 1);
    cnt = tops_extract_tree(4, B, TOPS_SPAN_MEAN, 1, NULL, span);
    T_CHECK(same_spans(span, cnt, want_mean, 3));
    cnt = tops_extract_tree(4, B, TOPS_SPAN_SUM, 1, NULL, span);
    T_CHECK(same_spans(span, cnt, want_sum, 3));
}

static void ties_and_edges(void)
{
    int span[8] = {-7, -7, -7, -7, -7, -7, -7, -7};
    /* n < 2: no internal node, nothing written */
    const float one[1] = {1.0f};
    T_EQ_INT(tops_extract_tree(1, one, TOPS_SPAN_MEAN, 1, NULL, span), 0);
    T_EQ_INT(tops_extract_tree(0, one, TOPS_SPAN_MEAN, 1, NULL, span), 0);
    T_EQ_INT(span[0], -7);
    /* two words: the only bracket is the sentence */
    const float two[4] = {0.5f, 0.5f, 0.5f, 0.5f};
    T_EQ_INT(tops_extract_tree(2, two, TOPS_SPAN_MEAN, 0, NULL, span), 1);
    T_EQ_INT(span[0], 0);
    T_EQ_INT(span[1], 1);
    /* constant 0.25 over 3 words: sum products k=0: 0.25·1.0, k=1: 1.0·0.25 (exact tie)
     * -> smallest k -> [0,2] then [1,2]; mean: (0.25)(0.5) vs (0.5)(0.25), same tie */
    float c3[9];
    for (int k = 0; k < 9; k++) c3[k] = 0.25f;
    const int want3[4] = {0, 2, 1, 2};
    T_CHECK(same_spans(span, tops_extract_tree(3, c3, TOPS_SPAN_SUM, 0, NULL, span), want3, 2));
    T_CHECK(same_spans(span, tops_extract_tree(3, c3, TOPS_SPAN_MEAN, 0, NULL, span), want3, 2));
    /* constant over 4 words: sum products 1·9, 4·4, 9·1 (times 1/16²) -> k = 1 */
    float c4[16];
    for (int k = 0; k < 16; k++) c4[k] = 0.25f;
    const int want4[6] = {0, 3, 0, 1, 2, 3};
    T_CHECK(same_spans(span, tops_extract_tree(4, c4, TOPS_SPAN_SUM, 0, NULL, span), want4, 3));
}

static void deep(void)
{
    /* all-zero attention (renormalisation leaves zero rows at zero): every product is 0,
     * the smallest k always wins, so the tree is right-branching: [i, n-1] for i = 0..n-2 */
    int n = 3000;
    float *A = sp_xcalloc((size_t)n * n, sizeof(float));
    int *span = sp_xmalloc((size_t)2 * (n - 1) * sizeof(int));
    void *scratch = sp_xmalloc(tops_extract_scratch_bytes(n));
    int cnt = tops_extract_tree(n, A, TOPS_SPAN_MEAN, 1, scratch, span);
    T_EQ_INT(cnt, n - 1);
    int bad = 0;
    for (int k = 0; k < cnt; k++) bad += span[2 * k] != k || span[2 * k + 1] != n - 1;
    T_EQ_INT(bad, 0);

    /* diagonal attention with the sum score: score(i,j) = j - i + 1, product (k-i+1)(j-k)
     * is largest in the middle: a balanced tree; check it is a proper binary bracketing
     * (n-1 brackets, every bracket splits into two children that are brackets or words) */
    for (int i = 0; i < n; i++) A[(size_t)i * n + i] = 1.0f;
    cnt = tops_extract_tree(n, A, TOPS_SPAN_SUM, 0, scratch, span);
    T_EQ_INT(cnt, n - 1);
    T_CHECK(span[0] == 0 && span[1] == n - 1);
    /* first split of [0, n-1]: the product (k+1)(n-1-k) peaks at k = n/2 - 1 (n even) */
    T_EQ_INT(span[3], n / 2 - 1);
    free(A); free(span); free(scratch);
}

int main(void)
{
    tv20();
    tv21();
    ties_and_edges();
    deep();
    return T_DONE();
}
