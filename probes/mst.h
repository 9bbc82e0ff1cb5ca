/* probes/mst.h — dependency trees from attention and from probe distances (docs/spec/models.md M6).
 *
 * HOW IT WORKS. Input is a word-level matrix A (n×n, row = query, column = key; M2.4), as
 * float64. Nothing here knows where A came from (an attention head, a layer mean, or a
 * distance probe's predicted distances).
 *
 *   root (M6.3)     r = argmax_j sum_{i != j} A[i][j] (float64, increasing i), ties -> lowest j.
 *   arcs (M6.2)     S[h][d] = A[d][h] (dep_to_head, default: the dependent attends to its head)
 *                   or A[h][d] (head_to_dep). Self-arcs never; no arc enters r.
 *   CLE  (M6.4)     Chu-Liu/Edmonds maximum spanning arborescence rooted at r, exact float64
 *                   comparisons, ties -> smallest node id, cycle = first met following the
 *                   greedy heads from the nodes in increasing id order, contracted node keeps
 *                   the smallest member's id. Recursive with explicit node lists, O(n^3).
 *   undirected      M6.5: punctuation removed, s(i,j) = (A[i][j] + A[j][i])/2, Kruskal by s
 *                   descending, ties -> smallest (i, j): exactly prb_mst_edges (structprobe.h)
 *                   on -s. For a distance probe the H&M tree is prb_mst_edges on D^ itself.
 *   metrics (M6.6)  UAS, UUAS_dir, UUAS_mst, micro-averaged in prb_dep_acc.
 *   baselines       right-chain, left-chain, adjacent, and random trees drawn by Prüfer
 *   (M6.7)          sequence from a SplitMix64 stream (sp_splitmix, common/sp.h): sequence a_1..a_{m-2}
 *                   (each below(m)) when m >= 3, then (directed only) the root below(m) when
 *                   m >= 2; decoded smallest-leaf-first.
 *
 * Heads are 0-based, -1 = root, as everywhere in synprobe. Edge lists are pairs (a, b) with
 * a < b in edge[2k], edge[2k+1]; room for 2*(n-1) ints. */
#ifndef PRB_MST_H
#define PRB_MST_H

#include <stddef.h>
#include <stdint.h>

#include "common/sp.h"

enum prb_arc_dir {
    PRB_DEP_TO_HEAD = 0,      /* S[h][d] = A[d][h] (D10 default) */
    PRB_HEAD_TO_DEP,          /* S[h][d] = A[h][d] */
};
int prb_arc_dir_parse(const char *name, enum prb_arc_dir *out);  /* "dep_to_head" | "head_to_dep" */

/* M6.3: the word receiving the most attention from the others; n >= 1. */
int prb_attn_root(int n, const double *A);

/* M6.2: S[h*n+d] from A (diagonal copied but never used). */
void prb_arc_scores(int n, const double *A, enum prb_arc_dir dir, double *S);

/* M6.4: maximum spanning arborescence over arcs S[h*n+d] (h != d, d != root), rooted at root.
 * head[root] = -1. Returns 0, or -1 (message in err) on allocation failure or a NaN score. */
int prb_cle(int n, const double *S, int root, int *head, char *err, size_t errlen);

/* M6.2-M6.4 in one call: root rule, arc direction, CLE. */
int prb_attn_tree(int n, const double *A, enum prb_arc_dir dir, int *head, char *err, size_t errlen);

/* Sum of S over the arcs of a tree (heads -1 skipped), in increasing dependent order. */
double prb_tree_score(int n, const double *S, const int *head);

/* M6.5: undirected maximum spanning tree of the non-punctuation words; returns the edge count.
 * Returns -1 on allocation failure. */
int prb_attn_umst(int n, const double *A, const uint8_t *punct, int *edge);

/* A directed tree from a distance probe's predicted distances D (n×n): the minimum spanning
 * tree of M4.5 over all n words (punctuation included; ordered pairs in row-major order,
 * stable by value), oriented away from root (the depth probe's predicted root, or the gold
 * root). Our rule [rec]: M6 defines no directed tree for distances. Scored with
 * prb_dep_add_directed; its undirected UUAS is structprobe.c's. */
void prb_dist_tree(int n, const double *D, int root, int *head);

/* Orient the n-1 edges of a spanning tree away from root: head[root] = -1. */
void prb_edges_orient(int n, const int *edge, int ne, int root, int *head);

/* ---- baselines (M6.7) ---- */
void prb_right_chain(int n, int *head);       /* root 0, head[i] = i-1 */
void prb_left_chain(int n, int *head);        /* root n-1, head[i] = i+1 */
int  prb_adjacent_edges(int n, const uint8_t *punct, int *edge);   /* {m_k, m_k+1}; edge count */

/* Decode a Prüfer sequence a[0..m-3] over nodes 0..m-1 into m-1 edges (a < b within a pair, in
 * decode order). m >= 1. Returns the edge count, or -1 on allocation failure. */
int prb_prufer_decode(int m, const int *a, int *edge);

/* Random rooted tree over n words: sequence, root, edges oriented away from the root. */
int prb_random_tree(struct sp_splitmix *rng, int n, int *head);
/* Random unrooted tree over the non-punctuation words (no root drawn); edge count or -1. */
int prb_random_utree(struct sp_splitmix *rng, int n, const uint8_t *punct, int *edge);

/* ---- metrics (M6.6), micro-averaged over the sentences of a split ---- */
struct prb_dep_acc {
    long uas_correct, uas_total;              /* directed trees */
    long uuas_dir_correct, uuas_dir_total;    /* directed trees read as undirected */
    long uuas_mst_correct, uuas_mst_total;    /* undirected trees vs the gold-distance MST */
    long n_sent;
};
struct prb_dep_sent {
    int uas_correct, uas_total, uuas_dir_correct, uuas_dir_total, uuas_mst_correct, uuas_mst_total;
};
void prb_dep_init(struct prb_dep_acc *a);

/* Add a directed prediction (pred_head) against gold (gold_head); punctuation excluded. */
void prb_dep_add_directed(struct prb_dep_acc *a, int n, const int *gold_head, const int *pred_head,
                          const uint8_t *punct, struct prb_dep_sent *out);

/* Add an undirected prediction (np edges) against the MST of gold distances over the
 * non-punctuation words (M4.5). Returns 0, or -1 (message in err) when gold is not a tree. */
int prb_dep_add_undirected(struct prb_dep_acc *a, int n, const int *gold_head, const uint8_t *punct,
                           const int *edge, int np, struct prb_dep_sent *out, char *err, size_t errlen);

/* Every baseline of M6.7 over a split: sentence s has len[s] words, gold heads gold[s] and
 * punctuation mask punct[s]. Random trees: for each seed in seeds[0..n_seeds) one SplitMix64
 * stream over the split in corpus order (directed: sequence then root; the undirected family
 * draws from its own stream with the same seed); the result holds each seed's accumulators,
 * the caller averages the percentages (M6.7: seeds 1-5). Returns 0, or -1 with a message
 * naming the sentence whose gold heads are not one tree. */
struct prb_dep_baselines {
    struct prb_dep_acc right, left;           /* directed: UAS, UUAS_dir */
    struct prb_dep_acc adjacent;              /* undirected: UUAS_mst */
    int n_seeds;
    struct prb_dep_acc *random_dir;           /* [n_seeds] directed random trees */
    struct prb_dep_acc *random_und;           /* [n_seeds] undirected random trees */
};
int  prb_dep_baselines_run(struct prb_dep_baselines *b, int n_sent, const int *len, const int *const *gold,
                           const uint8_t *const *punct, const uint64_t *seeds, int n_seeds,
                           char *err, size_t errlen);
void prb_dep_baselines_free(struct prb_dep_baselines *b);

/* Percentages; NaN when the denominator is 0. */
double prb_dep_uas(const struct prb_dep_acc *a);
double prb_dep_uuas_dir(const struct prb_dep_acc *a);
double prb_dep_uuas_mst(const struct prb_dep_acc *a);

#endif
