/* treeops/const.c — constituency structures of one normalised tree (docs/spec/structures.md §4, §6.4).
 *
 * Trees arrive in pre-order (struct sp_ctree: a parent precedes its children, node 0 is the
 * wrapper), which lets every function here run as a flat loop over the node array: no
 * recursion (PTB-style trees can be thousands of levels deep in fuzzed input), no scratch. */
#include <string.h>

#include "ingest/readers.h"
#include "treeops/treeops.h"

static int is_phrasal(const struct sp_cnode *x) { return x->first_child >= 0; }

int tops_collapse_unary(const struct sp_ctree *t, int x)
{
    while (x >= 0 && is_phrasal(&t->node[x]) && t->node[x].n_children == 1)
        x = t->node[x].first_child;
    return x;
}

int tops_tree_depth(const struct sp_ctree *t)
{
    /* Running depth along the pre-order: node k+1's parent is node k or one of k's
     * ancestors, so we climb from k to that parent. Every climb undoes an earlier descent,
     * hence O(n_nodes) in total. A preterminal at depth d puts its word at depth d + 1. */
    const struct sp_cnode *nd = t->node;
    int best = 0, d = 0;
    for (int k = 1; k < t->n_nodes; k++) {
        int p = nd[k].parent, a = k - 1;
        while (a >= 0 && a != p) {
            a = nd[a].parent;
            d--;
        }
        if (a < 0) return -1;                    /* not pre-order: parent is no ancestor */
        d++;                                     /* d = depth of node k */
        if (!is_phrasal(&nd[k]) && d + 1 > best) best = d + 1;
    }
    return best;
}

/* strcat that stops at cap - 1 bytes and keeps buf NUL-terminated; returns the new length */
static size_t append(char *buf, size_t cap, size_t len, const char *s)
{
    size_t l = strlen(s);
    if (l > cap - 1 - len) l = cap - 1 - len;
    memcpy(buf + len, s, l);
    buf[len + l] = '\0';
    return len + l;
}

const char *tops_top_const(const struct sp_ctree *t, char *buf, size_t cap)
{
    if (cap == 0) return buf;
    buf[0] = '\0';
    if (t->n_nodes < 2) return buf;
    int top = t->node[0].first_child;
    if (top < 0 || !is_phrasal(&t->node[top])) return buf;
    size_t len = 0;
    char lab[256];
    for (int c = t->node[top].first_child; c >= 0; c = t->node[c].next_sibling) {
        ing_base_label(t->node[c].label, lab, sizeof lab);
        if (c != t->node[top].first_child) len = append(buf, cap, len, "_");
        len = append(buf, cap, len, lab);
    }
    return buf;
}

int tops_top_const_is_frequent(const char *seq)
{
    /* SentEval's 19 TopConst classes (docs/spec/structures.md §4.3) */
    static const char *const frequent[] = {
        "ADVP_NP_VP_.", "CC_ADVP_NP_VP_.", "CC_NP_VP_.", "IN_NP_VP_.", "NP_ADVP_VP_.",
        "NP_NP_VP_.", "NP_PP_.", "NP_VP_.", "PP_NP_VP_.", "RB_NP_VP_.", "SBAR_NP_VP_.",
        "SBAR_VP_.", "S_CC_S_.", "S_NP_VP_.", "S_VP_.", "VBD_NP_VP_.", "VP_.",
        "WHADVP_SQ_.", "WHNP_SQ_.",
    };
    if (!seq) return 0;
    for (size_t k = 0; k < sizeof frequent / sizeof frequent[0]; k++)
        if (strcmp(seq, frequent[k]) == 0) return 1;
    return 0;
}

int tops_phrases(const struct sp_ctree *t, int n, int T, int min_len, int *pid)
{
    if (T < 1 || n < 1 || t->n_nodes < 2) return -1;
    const struct sp_cnode *nd = t->node;
    int top = nd[0].first_child;
    if (top < 0) return -1;
    int root = tops_collapse_unary(t, top);
    if (nd[root].start != 0 || nd[root].end != n - 1) return -1;

    /* Pass 1: row t-1 of pid holds, for every word, the node of its phrase at level t.
     * A phrase's span is its node's span (unary collapsing keeps spans), so a level is
     * read back phrase by phrase as runs [i, end(node)]. */
    for (int lv = 0; lv < T; lv++) {
        int *row = pid + (size_t)lv * n;
        const int *prev = lv ? pid + (size_t)(lv - 1) * n : NULL;
        for (int i = 0; i < n;) {
            int x = prev ? prev[i] : root;
            int e = nd[x].end;
            if (e < i || e >= n) return -1;
            if (e - i + 1 >= min_len && is_phrasal(&nd[x])) {
                int next = i;                    /* children must tile [i, e] */
                for (int c = nd[x].first_child; c >= 0; c = nd[c].next_sibling) {
                    int y = tops_collapse_unary(t, c);
                    int cs = nd[c].start, ce = nd[c].end;
                    if (cs != next || ce < cs || ce > e) return -1;
                    for (int w = cs; w <= ce; w++) row[w] = y;
                    next = ce + 1;
                }
                if (next != e + 1) return -1;
            } else {
                for (int w = i; w <= e; w++) row[w] = x;
            }
            i = e + 1;
        }
    }
    /* Pass 2: node ids -> 0-based phrase indices, left to right */
    int count = 0;
    for (int lv = 0; lv < T; lv++) {
        int *row = pid + (size_t)lv * n;
        count = 0;
        for (int i = 0; i < n;) {
            int e = nd[row[i]].end;
            for (int w = i; w <= e; w++) row[w] = count;
            count++;
            i = e + 1;
        }
    }
    return count;
}

int tops_brackets(const struct sp_ctree *t, int *span, int cap)
{
    int cnt = 0;
    for (int k = 1; k < t->n_nodes; k++) {
        if (!is_phrasal(&t->node[k])) continue;
        if (cnt < cap) {
            span[2 * cnt] = t->node[k].start;
            span[2 * cnt + 1] = t->node[k].end;
        }
        cnt++;
    }
    return cnt;
}
