/* Unit tests for treeops/const.c: docs/spec/structures.md §4 and §6.4 on hand-written trees
 * (TV-4, TV-8, the SentEval examples of §4.2/§4.3), TV-10/TV-11 on wsj_0001 (read from
 * ../shared/data at run time, skipped visibly without it), unary chains, and trees
 * 10,000 levels deep. Trees come from the test-local reader t_ptb.h, not from ingest/. */
#include <stdlib.h>

#include "common/sp.h"
#include "treeops/treeops.h"
#include "t_harness.h"
#include "t_ptb.h"

static int tree_depth_of(const char *s)
{
    struct t_ptb p = t_ptb_one(s);
    int d = tops_tree_depth(&p.tree);
    t_ptb_free(&p);
    return d;
}

static const char *top_const_of(const char *s, char *buf, size_t cap)
{
    struct t_ptb p = t_ptb_one(s);
    tops_top_const(&p.tree, buf, cap);
    t_ptb_free(&p);
    return buf;
}

static const char *TV4 =
    "( (S-HLN (NP-SBJ-1 (NN ABORTION) (NN RULING)) (VP (VBN UPHELD) (NP (-NONE- *-1))) (: :)))";

static void tree_depth(void)
{
    T_EQ_INT(tree_depth_of("(ROOT (S (NP (NN a)) (VP (VBD b)) (. .)))"), 4);
    T_EQ_INT(tree_depth_of("(ROOT (S (NP (NN Surprise) (CC and) (NN joy)) (VP (VBD filled) "
                           "(NP (PRP$ his) (NN face))) (. .)))"), 5);
    T_EQ_INT(tree_depth_of("(ROOT (S (NP (PRP She)) (VP (VBD had) (S (VP (TO to) (VP (VB do) "
                           "(NP (NN something)))))) (. .)))"), 8);
    T_EQ_INT(tree_depth_of(TV4), 4);
    T_EQ_INT(tree_depth_of("( (S (NP-SBJ-68 (DT An) (NN appeal)) (VP (VBZ is) (VP (VBN expected) "
                           "(NP (-NONE- *-68)))) (. .)))"), 5);
    /* no wrapper in the input: the reader adds one, the depth counts from it */
    T_EQ_INT(tree_depth_of("(S (NP (NN a)) (VP (VBD b)))"), 4);
    T_EQ_INT(tree_depth_of("( (NN Hello) )"), 2);
}

static void top_const(void)
{
    char buf[64];
    T_EQ_STR(top_const_of(TV4, buf, sizeof buf), "NP_VP_:");
    T_EQ_STR(top_const_of("( (S (`` ``) (NP-SBJ (-NONE- *)) (VP (VB Consider) (NP (NNP Jim) "
                          "(NNP Courter))) (. .) ('' '')))", buf, sizeof buf), "``_VP_._''");
    T_EQ_STR(top_const_of("( (S (NP-SBJ-68 (DT An) (NN appeal)) (VP (VBZ is)) (. .)))", buf,
                          sizeof buf), "NP_VP_.");
    T_EQ_STR(top_const_of("(ROOT (SBARQ (WHNP (WP Who)) (SQ (VBD knew)) (. ?)))", buf, sizeof buf),
             "WHNP_SQ_.");
    T_EQ_STR(top_const_of("( (S (ADVP|PRT (RB up)) (NP=2 (PRP it)) (VP-TPC-1 (VBZ is)) (. .)))",
                          buf, sizeof buf), "ADVP_NP_VP_.");
    /* -LRB- keeps its dashes */
    T_EQ_STR(top_const_of("( (FRAG (-LRB- -LRB-) (NP (NN x)) (-RRB- -RRB-)))", buf, sizeof buf),
             "-LRB-_NP_-RRB-");
    /* top is a preterminal: no children, empty sequence */
    T_EQ_STR(top_const_of("( (NN Hello) )", buf, sizeof buf), "");
    /* truncation keeps a NUL inside cap */
    char small[5];
    memset(small, 'x', sizeof small);
    T_EQ_STR(top_const_of(TV4, small, sizeof small), "NP_V");

    T_CHECK(tops_top_const_is_frequent("NP_VP_."));
    T_CHECK(tops_top_const_is_frequent("WHNP_SQ_."));
    T_CHECK(tops_top_const_is_frequent("S_CC_S_."));
    T_CHECK(tops_top_const_is_frequent("VP_."));
    T_CHECK(!tops_top_const_is_frequent("NP_VP_:"));
    T_CHECK(!tops_top_const_is_frequent("PP_,_NP_VP_."));
    T_CHECK(!tops_top_const_is_frequent("OTHER"));
    T_CHECK(!tops_top_const_is_frequent(""));
    int n = 0;
    const char *all[] = {"ADVP_NP_VP_.", "CC_ADVP_NP_VP_.", "CC_NP_VP_.", "IN_NP_VP_.",
        "NP_ADVP_VP_.", "NP_NP_VP_.", "NP_PP_.", "NP_VP_.", "PP_NP_VP_.", "RB_NP_VP_.",
        "SBAR_NP_VP_.", "SBAR_VP_.", "S_CC_S_.", "S_NP_VP_.", "S_VP_.", "VBD_NP_VP_.", "VP_.",
        "WHADVP_SQ_.", "WHNP_SQ_."};
    for (int k = 0; k < 19; k++) n += tops_top_const_is_frequent(all[k]);
    T_EQ_INT(n, 19);
}

static void brackets_and_unary(void)
{
    /* TV-4: phrasal spans S[0,3] NP[0,1] VP[2,2] in pre-order; the wrapper is no bracket */
    struct t_ptb p = t_ptb_one(TV4);
    T_EQ_INT(p.n_words, 4);
    int span[16];
    int cnt = tops_brackets(&p.tree, span, 8);
    T_EQ_INT(cnt, 3);
    const int want[6] = {0, 3, 0, 1, 2, 2};
    for (int k = 0; k < 6; k++) T_EQ_INT(span[k], want[k]);
    /* cap smaller than the count: the count is still the total, only cap are written */
    span[2] = -9;
    T_EQ_INT(tops_brackets(&p.tree, span, 1), 3);
    T_EQ_INT(span[2], -9);
    t_ptb_free(&p);

    /* unary chains give repeated spans (§6.4) */
    p = t_ptb_one("( (S (NP (NP (PRP it))) (VP (VBZ is))))");
    cnt = tops_brackets(&p.tree, span, 8);
    T_EQ_INT(cnt, 4);
    const int want2[8] = {0, 1, 0, 0, 0, 0, 1, 1};
    for (int k = 0; k < 8; k++) T_EQ_INT(span[k], want2[k]);
    /* cu: the wrapper's child S has two children (fixed point); NP -> NP -> PRP */
    T_EQ_INT(tops_collapse_unary(&p.tree, 1), 1);
    int np = p.tree.node[1].first_child;
    int prp = tops_collapse_unary(&p.tree, np);
    T_EQ_STR(p.tree.node[prp].label, "PRP");
    T_EQ_INT(p.tree.node[prp].first_child, -1);
    T_EQ_INT(tops_collapse_unary(&p.tree, prp), prp);  /* a preterminal is a fixed point */
    T_EQ_INT(tops_collapse_unary(&p.tree, 0), 1);      /* wrapper -> S */
    t_ptb_free(&p);
}

static int pid_row_is(const int *row, int n, const int *want)
{
    for (int i = 0; i < n; i++)
        if (row[i] != want[i]) return 0;
    return 1;
}

static void phrases_small(void)
{
    int pid[3 * 64];
    /* fewer than 4 words: P1 = the whole sentence */
    struct t_ptb p = t_ptb_one("( (S (NP (PRP It)) (VP (VBZ works)) (. .)))");
    T_EQ_INT(tops_phrases(&p.tree, 3, 3, 4, pid), 1);
    const int zero[3] = {0, 0, 0};
    for (int t = 0; t < 3; t++) T_CHECK(pid_row_is(pid + 3 * t, 3, zero));
    /* a wrong word count is refused */
    T_EQ_INT(tops_phrases(&p.tree, 4, 3, 4, pid), -1);
    T_EQ_INT(tops_phrases(&p.tree, 3, 0, 4, pid), -1);
    t_ptb_free(&p);

    /* unary (SBAR (S ...)) is replaced by S before its children are taken; the 2-word NP
     * is never divided; single words stay single */
    p = t_ptb_one("( (S (NP (DT The) (NN man)) (VP (VBD said) (SBAR (S (NP (PRP he)) "
                  "(VP (VBD left) (NP (DT the) (NN house)))))) (. .)))");
    T_EQ_INT(p.n_words, 8);
    T_EQ_INT(tops_phrases(&p.tree, 8, 3, 4, pid), 5);
    const int l1[8] = {0, 0, 1, 1, 1, 1, 1, 2};       /* [The man] [said … house] [.] */
    const int l2[8] = {0, 0, 1, 2, 2, 2, 2, 3};       /* [said] [he left the house] */
    const int l3[8] = {0, 0, 1, 2, 3, 3, 3, 4};       /* [he] [left the house] */
    T_CHECK(pid_row_is(pid, 8, l1));
    T_CHECK(pid_row_is(pid + 8, 8, l2));
    T_CHECK(pid_row_is(pid + 16, 8, l3));
    /* min_len 3 also divides [left the house] at level 4; [The man] stays whole */
    T_EQ_INT(tops_phrases(&p.tree, 8, 4, 3, pid), 6);
    const int l4[8] = {0, 0, 1, 2, 3, 4, 4, 5};
    T_CHECK(pid_row_is(pid + 16, 8, l3));
    T_CHECK(pid_row_is(pid + 24, 8, l4));
    t_ptb_free(&p);
}

/* read the first two trees of wsj_0001.mrg (TV-8, TV-10, TV-11) */
static void wsj_0001(void)
{
    const char *dir = t_data_dir();
    if (!dir) { T_SKIP("../shared/data absent: TV-8 wsj_0001, TV-10, TV-11 not run"); return; }
    char path[512];
    snprintf(path, sizeof path, "%s/ptb-sample/combined/wsj_0001.mrg", dir);
    FILE *f = fopen(path, "rb");
    T_CHECK(f != NULL);
    if (!f) return;
    static char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    struct t_ptb s1, s2;
    long used = t_ptb_parse(buf, len, &s1);
    T_CHECK(used > 0);
    T_CHECK(t_ptb_parse(buf + used, len - (size_t)used, &s2) > 0);
    T_EQ_INT(s1.n_words, 18);
    T_EQ_INT(s2.n_words, 13);

    /* TV-8 */
    char tc[64];
    T_EQ_INT(tops_tree_depth(&s1.tree), 7);
    T_EQ_INT(tops_tree_depth(&s2.tree), 8);
    T_EQ_STR(tops_top_const(&s1.tree, tc, sizeof tc), "NP_VP_.");
    T_EQ_STR(tops_top_const(&s2.tree, tc, sizeof tc), "NP_VP_.");

    /* TV-10 (s2, T = 3) */
    int pid[3 * 18];
    T_EQ_INT(tops_phrases(&s2.tree, 13, 3, 4, pid), 5);
    const int a1[13] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2};
    const int a2[13] = {0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3};
    const int a3[13] = {0, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 4};
    T_CHECK(pid_row_is(pid, 13, a1));
    T_CHECK(pid_row_is(pid + 13, 13, a2));
    T_CHECK(pid_row_is(pid + 26, 13, a3));

    /* TV-11 (s1): level 1 [0-6] [7-16] [17]; level 2 [0-1] [2] [3-5] [6] [7] [8-16] [17];
     * level 3 [0-1] [2] [3-5] [6] [7] [8] [9-10] [11-14] [15-16] [17] */
    T_EQ_INT(tops_phrases(&s1.tree, 18, 3, 4, pid), 10);
    const int b1[18] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2};
    const int b2[18] = {0, 0, 1, 2, 2, 2, 3, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6};
    const int b3[18] = {0, 0, 1, 2, 2, 2, 3, 4, 5, 6, 6, 7, 7, 7, 7, 8, 8, 9};
    T_CHECK(pid_row_is(pid, 18, b1));
    T_CHECK(pid_row_is(pid + 18, 18, b2));
    T_CHECK(pid_row_is(pid + 36, 18, b3));
    t_ptb_free(&s1);
    t_ptb_free(&s2);
}

/* trees 10,000 levels deep, built directly as node arrays (no reader involved) */
static void deep_trees(void)
{
    /* unary chain: wrapper, X_1 … X_m, (NN w): depth m + 2, one word, m brackets */
    int m = 10000;
    struct sp_cnode *nd = calloc((size_t)m + 2, sizeof *nd);
    for (int k = 0; k <= m + 1; k++) {
        nd[k] = (struct sp_cnode){ k == 0 ? "" : k == m + 1 ? "NN" : "X-1", k - 1,
                                   k <= m ? k + 1 : -1, -1, k <= m ? 1 : 0, 0, 0, k == m + 1 ? 0 : -1 };
    }
    struct sp_ctree t = { m + 2, nd };
    T_EQ_INT(tops_tree_depth(&t), m + 2);
    T_EQ_INT(tops_collapse_unary(&t, 1), m + 1);
    char tc[16];
    T_EQ_STR(tops_top_const(&t, tc, sizeof tc), "X");
    int pid[3];
    T_EQ_INT(tops_phrases(&t, 1, 3, 4, pid), 1);
    T_CHECK(pid[0] == 0 && pid[1] == 0 && pid[2] == 0);
    int *span = malloc((size_t)2 * m * sizeof(int));
    T_EQ_INT(tops_brackets(&t, span, m), m);
    free(span);
    free(nd);

    /* right-branching: X_k = (X (NN w_{k-1}) X_{k+1}), X_m = (X (NN w_{m-1}) (NN w_m)).
     * Pre-order: wrapper 0, then X_k at 2k-1, its NN at 2k; the last NN at 2m+1. */
    int nn = 2 * m + 2, nw = m + 1;
    nd = calloc((size_t)nn, sizeof *nd);
    nd[0] = (struct sp_cnode){ "", -1, 1, -1, 1, 0, nw - 1, -1 };
    for (int k = 1; k <= m; k++) {
        int x = 2 * k - 1, pre = 2 * k;
        int next = k < m ? 2 * k + 1 : 2 * m + 1;
        nd[x] = (struct sp_cnode){ "X", k == 1 ? 0 : 2 * k - 3, pre, -1, 2, k - 1, nw - 1, -1 };
        nd[pre] = (struct sp_cnode){ "NN", x, -1, next, 0, k - 1, k - 1, k - 1 };
        if (k == m) nd[next] = (struct sp_cnode){ "NN", x, -1, -1, 0, m, m, m };
    }
    t = (struct sp_ctree){ nn, nd };
    T_EQ_INT(tops_tree_depth(&t), m + 2);
    T_EQ_STR(tops_top_const(&t, tc, sizeof tc), "NN_X");
    int *pids = malloc((size_t)3 * nw * sizeof(int));
    T_EQ_INT(tops_phrases(&t, nw, 3, 4, pids), 4);
    T_CHECK(pids[0] == 0 && pids[1] == 1 && pids[nw - 1] == 1);
    T_CHECK(pids[nw] == 0 && pids[nw + 1] == 1 && pids[nw + 2] == 2 && pids[2 * nw - 1] == 2);
    T_CHECK(pids[2 * nw + 2] == 2 && pids[2 * nw + 3] == 3 && pids[3 * nw - 1] == 3);
    free(pids);
    free(nd);
}

int main(void)
{
    tree_depth();
    top_const();
    brackets_and_unary();
    phrases_small();
    wsj_0001();
    deep_trees();
    return T_DONE();
}
