/* probes_mst: SplitMix64 checks (docs/spec/models.md M7.1) and trees from attention (M6): TV-M6a-d,
 * and a randomised cross-check of Chu-Liu/Edmonds against brute-force enumeration of every
 * tree for n <= 7 (an independent check: it knows nothing of contractions). */
#include "t_harness.h"

#include <stdint.h>
#include <stdlib.h>

#include "probes/mst.h"
#include "probes/sentsrc.h"
#include "common/sp.h"
#include "probes/structprobe_metrics.h"
#include "treeops/treeops.h"

static void t_splitmix(void)
{
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 0);
    T_CHECK(sp_splitmix_next(&r) == 0xe220a8397b1dcdafULL);
    T_CHECK(sp_splitmix_next(&r) == 0x6e789e6aa1b965f4ULL);
    T_CHECK(sp_splitmix_next(&r) == 0x06c45d188009454fULL);
    sp_splitmix_seed(&r, 1111);
    T_CHECK(sp_splitmix_next(&r) == 0x0fe323b2abddd8a7ULL);
    T_CHECK(sp_splitmix_next(&r) == 0xcb6c7ffab2094263ULL);
    T_CHECK(sp_splitmix_next(&r) == 0xe888cdc3a226411cULL);
    /* below(N) = high word of next() * N: 0xe220... * 13 >> 64 = 11 */
    sp_splitmix_seed(&r, 0);
    T_EQ_INT(sp_splitmix_below(&r, 13), (int)(((unsigned __int128)0xe220a8397b1dcdafULL * 13) >> 64));
    sp_splitmix_seed(&r, 0);
    T_NEAR(sp_splitmix_unif(&r), (double)(0xe220a8397b1dcdafULL >> 11) / 9007199254740992.0, 0);
}

static int heads_eq(int n, const int *a, const int *b)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

static int edges_eq(int ne, const int *e, const int *want)
{
    for (int k = 0; k < 2 * ne; k++)
        if (e[k] != want[k]) return 0;
    return 1;
}

/* TV-M6a: "Dogs bark loudly .", gold [1, -1, 1, 1], P = {3} */
static void t_m6a(void)
{
    static const int a32[16] = { 2, 11, 16, 3, 10, 3, 10, 9, 14, 13, 2, 3, 3, 19, 6, 4 };
    double A[16], S[16];
    for (int k = 0; k < 16; k++) A[k] = a32[k] / 32.0;
    const int gold[4] = { 1, -1, 1, 1 };
    const uint8_t punct[4] = { 0, 0, 0, 1 };
    char err[200];
    T_EQ_INT(prb_attn_root(4, A), 1);

    int head[4];
    T_EQ_INT(prb_attn_tree(4, A, PRB_DEP_TO_HEAD, head, err, sizeof err), 0);
    const int want_d[4] = { 2, -1, 1, 1 };
    T_CHECK(heads_eq(4, head, want_d));
    prb_arc_scores(4, A, PRB_DEP_TO_HEAD, S);
    T_NEAR(prb_tree_score(4, S, head), 48.0 / 32, 0);
    struct prb_dep_acc acc;
    struct prb_dep_sent s;
    prb_dep_init(&acc);
    prb_dep_add_directed(&acc, 4, gold, head, punct, &s);
    T_EQ_INT(s.uas_correct, 2); T_EQ_INT(s.uas_total, 3);
    T_EQ_INT(s.uuas_dir_correct, 1); T_EQ_INT(s.uuas_dir_total, 2);

    T_EQ_INT(prb_attn_tree(4, A, PRB_HEAD_TO_DEP, head, err, sizeof err), 0);
    const int want_h[4] = { 1, -1, 0, 1 };
    T_CHECK(heads_eq(4, head, want_h));
    prb_dep_add_directed(&acc, 4, gold, head, punct, &s);
    T_EQ_INT(s.uas_correct, 2); T_EQ_INT(s.uuas_dir_correct, 1);
    T_NEAR(prb_dep_uas(&acc), 100.0 * 4 / 6, 1e-12);
    T_NEAR(prb_dep_uuas_dir(&acc), 50.0, 1e-12);

    /* undirected: {Dogs-loudly, bark-loudly}, UUAS_mst 1/2 */
    int e[6];
    int ne = prb_attn_umst(4, A, punct, e);
    const int want_e[4] = { 0, 2, 1, 2 };
    T_EQ_INT(ne, 2);
    T_CHECK(edges_eq(2, e, want_e));
    T_EQ_INT(prb_dep_add_undirected(&acc, 4, gold, punct, e, ne, &s, err, sizeof err), 0);
    T_EQ_INT(s.uuas_mst_correct, 1); T_EQ_INT(s.uuas_mst_total, 2);

    /* baselines */
    prb_right_chain(4, head);
    const int rc[4] = { -1, 0, 1, 2 };
    T_CHECK(heads_eq(4, head, rc));
    prb_dep_add_directed(&acc, 4, gold, head, punct, &s);
    T_EQ_INT(s.uas_correct, 1); T_EQ_INT(s.uuas_dir_correct, 2); T_EQ_INT(s.uuas_dir_total, 2);
    prb_left_chain(4, head);
    const int lc[4] = { 1, 2, 3, -1 };
    T_CHECK(heads_eq(4, head, lc));
    prb_dep_add_directed(&acc, 4, gold, head, punct, &s);
    T_EQ_INT(s.uas_correct, 1); T_EQ_INT(s.uuas_dir_correct, 2);
    ne = prb_adjacent_edges(4, punct, e);
    const int adj[4] = { 0, 1, 1, 2 };
    T_EQ_INT(ne, 2);
    T_CHECK(edges_eq(2, e, adj));
    prb_dep_add_undirected(&acc, 4, gold, punct, e, ne, &s, err, sizeof err);
    T_EQ_INT(s.uuas_mst_correct, 2);
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 1);
    prb_random_tree(&r, 4, head);
    const int rnd[4] = { 2, 2, 3, -1 };
    T_CHECK(heads_eq(4, head, rnd));
    prb_dep_add_directed(&acc, 4, gold, head, punct, &s);
    T_EQ_INT(s.uas_correct, 0); T_EQ_INT(s.uuas_dir_correct, 1);
    /* the draws themselves: 2, 2 then 3 */
    sp_splitmix_seed(&r, 1);
    T_EQ_INT(sp_splitmix_below(&r, 4), 2);
    T_EQ_INT(sp_splitmix_below(&r, 4), 2);
    T_EQ_INT(sp_splitmix_below(&r, 4), 3);
}

/* TV-M6b: Prüfer m = 6, seed 5: [2, 4, 1, 0], root 1 */
static void t_m6b(void)
{
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 5);
    int seq[4];
    for (int k = 0; k < 4; k++) seq[k] = (int)sp_splitmix_below(&r, 6);
    const int want_seq[4] = { 2, 4, 1, 0 };
    T_CHECK(heads_eq(4, seq, want_seq));
    int e[10];
    T_EQ_INT(prb_prufer_decode(6, seq, e), 5);
    const int want_e[10] = { 2, 3, 2, 4, 1, 4, 0, 1, 0, 5 };
    T_CHECK(edges_eq(5, e, want_e));
    int head[6];
    sp_splitmix_seed(&r, 5);
    prb_random_tree(&r, 6, head);
    const int want_h[6] = { 1, -1, 4, 2, 1, 0 };
    T_CHECK(heads_eq(6, head, want_h));
    /* all 16 sequences for m = 4 decode to 16 distinct trees */
    int seen[16], nd = 0;
    for (int s = 0; s < 16; s++) {
        int a[2] = { s / 4, s % 4 }, ee[6];
        prb_prufer_decode(4, a, ee);
        /* canonical form: sorted pairs as a bitmask over the 6 unordered pairs */
        int mask = 0;
        for (int k = 0; k < 3; k++) {
            int lo = ee[2 * k], hi = ee[2 * k + 1];
            mask |= 1 << (lo * 4 + hi);
        }
        int dup = 0;
        for (int t = 0; t < nd; t++) if (seen[t] == mask) dup = 1;
        if (!dup) seen[nd++] = mask;
    }
    T_EQ_INT(nd, 16);
    /* undirected random tree over the non-punctuation words maps back to word ids */
    const uint8_t punct[5] = { 0, 1, 0, 0, 1 };
    sp_splitmix_seed(&r, 3);
    int ue[8];
    int ne = prb_random_utree(&r, 5, punct, ue);
    T_EQ_INT(ne, 2);
    for (int k = 0; k < 2 * ne; k++) T_CHECK(ue[k] == 0 || ue[k] == 2 || ue[k] == 3);
}

/* TV-M6c (ties inside a contraction) and TV-M6d (all equal) */
static void t_m6cd(void)
{
    const double A[16] = { 0, 0, 1, 0, 0, 0, 2, 2, 1, 1, 0, 1, 0, 3, 0, 0 };
    double S[16];
    int head[4];
    char err[200];
    T_EQ_INT(prb_attn_root(4, A), 1);
    T_EQ_INT(prb_attn_tree(4, A, PRB_DEP_TO_HEAD, head, err, sizeof err), 0);
    const int want[4] = { 2, -1, 1, 1 };
    T_CHECK(heads_eq(4, head, want));
    prb_arc_scores(4, A, PRB_DEP_TO_HEAD, S);
    T_NEAR(prb_tree_score(4, S, head), 5, 0);
    const int other[4] = { 2, -1, 3, 1 };
    T_NEAR(prb_tree_score(4, S, other), 5, 0);

    double B[16];
    for (int k = 0; k < 16; k++) B[k] = 0.25;
    T_EQ_INT(prb_attn_root(4, B), 0);
    T_EQ_INT(prb_attn_tree(4, B, PRB_DEP_TO_HEAD, head, err, sizeof err), 0);
    const int want_d[4] = { -1, 0, 0, 0 };
    T_CHECK(heads_eq(4, head, want_d));
}

/* Brute force: every head vector with head[root] = -1 that is a tree; best total score. */
static int is_tree(int n, const int *head, int root)
{
    for (int v = 0; v < n; v++) {
        int u = v, steps = 0;
        while (u != root && steps <= n) { u = head[u]; steps++; }
        if (u != root) return 0;
    }
    return 1;
}

static double brute_best(int n, const double *S, int root)
{
    int head[8];
    double best = -1e300;
    long total = 1;
    for (int i = 0; i < n - 1; i++) total *= n - 1;
    for (long code = 0; code < total; code++) {
        long c = code;
        for (int v = 0; v < n; v++) {
            if (v == root) { head[v] = -1; continue; }
            int h = (int)(c % (n - 1));      /* a head among the n-1 words other than v */
            c /= n - 1;
            head[v] = h >= v ? h + 1 : h;
        }
        if (!is_tree(n, head, root)) continue;
        double s = prb_tree_score(n, S, head);
        if (s > best) best = s;
    }
    return best;
}

static void t_brute(void)
{
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 20261125);
    int bad = 0, runs = 0;
    char err[200];
    for (int n = 2; n <= 7; n++) {
        int reps = n <= 5 ? 300 : n == 6 ? 100 : 25;
        for (int rep = 0; rep < reps; rep++) {
            double A[49], S[49];
            int integers = rep % 2;   /* small integers: many ties, exact sums */
            for (int k = 0; k < n * n; k++)
                A[k] = integers ? (double)sp_splitmix_below(&r, 4) : sp_splitmix_unif(&r);
            int head[7];
            enum prb_arc_dir dir = rep % 4 < 2 ? PRB_DEP_TO_HEAD : PRB_HEAD_TO_DEP;
            if (prb_attn_tree(n, A, dir, head, err, sizeof err) != 0) { bad++; continue; }
            int root = prb_attn_root(n, A);
            prb_arc_scores(n, A, dir, S);
            if (head[root] != -1 || !is_tree(n, head, root)) { bad++; continue; }
            double got = prb_tree_score(n, S, head), want = brute_best(n, S, root);
            if (fabs(got - want) > 1e-12) {
                bad++;
                fprintf(stderr, "n=%d rep=%d: CLE %.17g, brute force %.17g\n", n, rep, got, want);
            }
            runs++;
        }
    }
    T_EQ_INT(bad, 0);
    T_CHECK(runs > 1000);
}

/* Directed tree from distance-probe predictions (TV-M4a's D^), and the baseline runner on
 * TV-M6a's sentence. */
static void t_dist_and_baselines(void)
{
    static const double D[16] = { 0, 3.25, 4.25, 2.5, 3.25, 0, 0.5, 0.25, 4.25, 0.5, 0, 0.25, 2.5, 0.25, 0.25, 0 };
    const int gold[4] = { 1, -1, 1, 1 };
    const uint8_t punct[4] = { 0, 0, 0, 1 };
    int head[4];
    /* MST over all words: (1,3) .25, (2,3) .25, (0,3) 2.5; oriented from bark */
    prb_dist_tree(4, D, 1, head);
    const int want[4] = { 3, -1, 3, 1 };
    T_CHECK(heads_eq(4, head, want));
    struct prb_dep_acc acc;
    struct prb_dep_sent s;
    prb_dep_init(&acc);
    prb_dep_add_directed(&acc, 4, gold, head, punct, &s);
    T_EQ_INT(s.uas_correct, 1);
    T_EQ_INT(s.uas_total, 3);

    const int len[1] = { 4 };
    const int *golds[1] = { gold };
    const uint8_t *puncts[1] = { punct };
    const uint64_t seeds[2] = { 1, 2 };
    struct prb_dep_baselines b;
    char err[200];
    T_EQ_INT(prb_dep_baselines_run(&b, 1, len, golds, puncts, seeds, 2, err, sizeof err), 0);
    T_EQ_INT(b.right.uas_correct, 1); T_EQ_INT(b.right.uas_total, 3);
    T_EQ_INT(b.right.uuas_dir_correct, 2); T_EQ_INT(b.right.uuas_dir_total, 2);
    T_EQ_INT(b.left.uas_correct, 1); T_EQ_INT(b.left.uuas_dir_correct, 2);
    T_EQ_INT(b.adjacent.uuas_mst_correct, 2); T_EQ_INT(b.adjacent.uuas_mst_total, 2);
    T_EQ_INT(b.random_dir[0].uas_correct, 0); T_EQ_INT(b.random_dir[0].uuas_dir_correct, 1);
    /* the undirected random tree of seed 1 is its own stream's first tree over {0, 1, 2} */
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 1);
    int e[4];
    int ne = prb_random_utree(&r, 4, punct, e);
    int hit = 0;
    for (int k = 0; k < ne; k++) hit += (e[2 * k] == 0 && e[2 * k + 1] == 1) || (e[2 * k] == 1 && e[2 * k + 1] == 2);
    T_EQ_INT(b.random_und[0].uuas_mst_correct, hit);
    T_EQ_INT(b.random_und[0].uuas_mst_total, 2);
    prb_dep_baselines_free(&b);
    /* bad gold heads are named */
    const int cyc[4] = { 1, 0, -1, 2 };
    const int *gc[1] = { cyc };
    T_EQ_INT(prb_dep_baselines_run(&b, 1, len, gc, puncts, seeds, 2, err, sizeof err), -1);
    T_CHECK(strstr(err, "sentence 1") != NULL);
    prb_dep_baselines_free(&b);
}

/* The random rooted tree is uniform over the n^(n-1) rooted trees: n = 3 has 9; 18,000 draws
 * give each about 2,000 (binomial sd 42; the bound is 6 sd). */
static void t_uniform(void)
{
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 4242);
    int count[64] = { 0 };
    for (int k = 0; k < 18000; k++) {
        int h[3];
        prb_random_tree(&r, 3, h);
        count[(h[0] + 1) * 16 + (h[1] + 1) * 4 + (h[2] + 1)]++;
    }
    int distinct = 0, bad = 0;
    for (int c = 0; c < 64; c++)
        if (count[c]) { distinct++; if (abs(count[c] - 2000) > 252) bad++; }
    T_EQ_INT(distinct, 9);
    T_EQ_INT(bad, 0);
}

/* Real treebanks: on every sentence, (1) CLE from the gold root over scores where each gold arc
 * beats every other arc entering its dependent returns the gold tree; (2) the MST of the gold
 * distances oriented from the gold root is the gold tree; (3) the two chains have the same
 * UUAS_dir (M6.7) and the baseline runner accepts the split. */
struct real { long n_sent, bad_cle, bad_dist; struct prb_dep_acc right, left, adj; struct sp_splitmix rng; };

static int real_add(const struct sp_sentence *s, long k, void *vctx)
{
    struct real *c = vctx;
    int n = s->n;
    if (!s->head || n < 1 || n > 400) return 0;
    double *S = malloc((size_t)n * n * sizeof *S), *D = malloc((size_t)n * n * sizeof *D);
    int *head = malloc((size_t)n * sizeof *head), *order = malloc((size_t)n * sizeof *order);
    int *depth = malloc((size_t)n * sizeof *depth), *dist = malloc((size_t)n * n * sizeof *dist);
    int *edge = malloc((size_t)2 * n * sizeof *edge);
    uint8_t *punct = malloc((size_t)n);
    int root = 0;
    for (int d = 0; d < n; d++) if (s->head[d] < 0) root = d;
    for (int h = 0; h < n; h++)
        for (int d = 0; d < n; d++)
            S[(size_t)h * n + d] = s->head[d] == h ? 1.0 + sp_splitmix_unif(&c->rng) : sp_splitmix_unif(&c->rng);
    char err[200];
    if (prb_cle(n, S, root, head, err, sizeof err) != 0) c->bad_cle++;
    else for (int d = 0; d < n; d++) if (head[d] != s->head[d]) { c->bad_cle++; break; }
    tops_depth(n, s->head, order, depth);
    tops_distance(n, s->head, order, dist);
    for (size_t e = 0; e < (size_t)n * n; e++) D[e] = dist[e];
    prb_dist_tree(n, D, root, head);
    for (int d = 0; d < n; d++) if (head[d] != s->head[d]) { c->bad_dist++; break; }
    prb_punct_mask(s, PRB_PUNCT_XPOS, punct);
    prb_right_chain(n, head);
    prb_dep_add_directed(&c->right, n, s->head, head, punct, NULL);
    prb_left_chain(n, head);
    prb_dep_add_directed(&c->left, n, s->head, head, punct, NULL);
    int ne = prb_adjacent_edges(n, punct, edge);
    prb_dep_add_undirected(&c->adj, n, s->head, punct, edge, ne, NULL, err, sizeof err);
    c->n_sent++;
    free(S); free(D); free(head); free(order); free(depth); free(dist); free(edge); free(punct);
    return 0;
}

static void t_real(void)
{
    const char *data = t_data_dir();
    if (!data) { T_SKIP("../shared/data absent: CLE on real trees not checked"); return; }
    char ewt[1024], ptb[1024];
    snprintf(ewt, sizeof ewt, "%s/ud-ewt/en_ewt-ud-dev.conllu", data);
    snprintf(ptb, sizeof ptb, "%s/ptb-sample/dependency", data);
    const char *paths[2] = { ewt, ptb };
    enum sp_format fmt[2] = { SP_FMT_CONLLU, SP_FMT_DEP };
    for (int f = 0; f < 2; f++) {
        struct real c;
        memset(&c, 0, sizeof c);
        sp_splitmix_seed(&c.rng, 31);
        const char *one[1] = { paths[f] };
        struct prb_source src = { .fmt = fmt[f], .n_paths = 1, .paths = one };
        char err[512];
        T_EQ_INT(prb_source_each(&src, real_add, &c, err, sizeof err), 0);
        T_CHECK(c.n_sent > 1000);
        T_EQ_INT(c.bad_cle, 0);
        T_EQ_INT(c.bad_dist, 0);
        T_EQ_INT(c.right.uuas_dir_correct, c.left.uuas_dir_correct);
        /* adjacent over the non-punctuation words is the MST of LINEAR's |i - j|, so its UUAS is
         * docs/spec/probing.md §3.8's LINEAR UUAS row (xpos punctuation): 42.97 EWT dev, 52.76 PTB sample */
        T_NEAR(prb_dep_uuas_mst(&c.adj), f == 0 ? 42.97 : 52.76, 0.005);
        printf("# %s: %ld sentences; right-chain UAS %.2f, left-chain UAS %.2f, UUAS_dir %.2f, adjacent UUAS_mst %.2f\n",
               paths[f], c.n_sent, prb_dep_uas(&c.right), prb_dep_uas(&c.left), prb_dep_uuas_dir(&c.right),
               prb_dep_uuas_mst(&c.adj));
    }
}

int main(void)
{
    t_real();
    t_dist_and_baselines();
    t_uniform();
    t_splitmix();
    t_m6a();
    t_m6b();
    t_m6cd();
    t_brute();
    return T_DONE();
}
