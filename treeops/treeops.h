/* treeops/treeops.h — pure functions on one sentence (docs/spec/structures.md §3, §4).
 *
 * No I/O, no global state, no allocation unless a function says so: callers pass output
 * arrays (n or n*n elements, row-major, row = query i, column = key j). Every function is
 * O(n^2) or better. Heads are 0-based with -1 for the root and must form one tree
 * (ingest validates or repairs them before they get here). */
#ifndef TOPS_TREEOPS_H
#define TOPS_TREEOPS_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/sentence.h"

#define TOPS_REL_CLIP 16          /* P2's clipping distance: rel buckets 0..32 */

/* ---- dependency structures (§3) ---- */

/* depth[n] (§3.1) and a traversal order[n]: the root first, every word after its head (what
 * §3.2's BFS order is used for; not level by level). O(n), no scratch, 10,000-deep chains
 * fine. Returns 0, or -1 if head[] is not a single tree. */
int tops_depth(int n, const int *head, int *order, int *depth);

/* All-pairs tree distance D (§3.2), using the order from tops_depth. */
void tops_distance(int n, const int *head, const int *order, int *dist);

/* Ancestor / SDOI matrix (§3.3): anc[i*n+j] = 1 iff j == i or j is a proper ancestor of i. */
void tops_ancestors(int n, const int *head, uint8_t *anc);

/* 1 if the tree is projective, 0 if not: every arc h -> d has each word strictly between h
 * and d descending from h (anc from tops_ancestors). An arc that spans the root is never
 * projective, since the root descends from no other word. */
int tops_is_projective(int n, const int *head, const uint8_t *anc);

/* Q12: rule 2 of P2 is f·(abs_i + abs_j) with f = TOPS_REL_SIGN·sign(j − i). The spec's
 * choice is +1; build with -DTOPS_REL_SIGN=-1 for the other reading. */
#ifndef TOPS_REL_SIGN
#define TOPS_REL_SIGN 1
#endif

/* P2 relative structural positions (§3.5), unclipped: rel[i*n+j]. */
void tops_rel_pos(int n, const int *depth, const uint8_t *anc, int *rel);

static inline int tops_clip(int x, int k) { return x < -k ? -k : x > k ? k : x; }

/* All dependency structures of one sentence in one call (the ingest hot path). Any of
 * dist / anc / rel may be NULL (not wanted); depth[n] is always filled. `scratch` holds
 * tops_dep_scratch_bytes(n) bytes (4n ints; caller-owned, reusable across sentences).
 * Same values as tops_depth + tops_distance + tops_ancestors + tops_rel_pos, in one pass
 * (O(n^2), no allocation). rel is cheapest together with dist (it is read off D).
 * Returns 0, or -1 if head[] is not a single tree (outputs then undefined). */
size_t tops_dep_scratch_bytes(int n);
int tops_dep_all(int n, const int *head, int *depth, int *dist, uint8_t *anc, int *rel,
                 void *scratch);

/* ---- constituency structures (§4) ---- */

/* Unary collapse cu(x) (§4.1): follow single children of phrasal nodes. */
int tops_collapse_unary(const struct sp_ctree *t, int x);

/* SentEval TreeDepth (§4.2): edges from the wrapper to the deepest word leaf. Iterative. */
int tops_tree_depth(const struct sp_ctree *t);

/* SentEval TopConst sequence (§4.3), e.g. "NP_VP_." into buf; returns buf. Base labels
 * (ing_base_label) of the children of the wrapper's child; "" when that child is a
 * preterminal. Truncated (still NUL-terminated) when cap is too small. */
const char *tops_top_const(const struct sp_ctree *t, char *buf, size_t cap);

/* Is seq one of SentEval's 19 frequent TopConst classes? */
int tops_top_const_is_frequent(const char *seq);

/* PSAN phrase division (§4.4): pid[(t-1)*n + i] for levels t = 1..T, minimum divisible
 * length min_len (4). n = number of words. Returns the phrase count of level T, or -1
 * when the tree does not cover exactly words 0..n-1 or T < 1. Iterative, no scratch:
 * the rows of pid hold node ids until the last step turns them into phrase indices. */
int tops_phrases(const struct sp_ctree *t, int n, int T, int min_len, int *pid);

/* Gold brackets (§6.4): spans of all phrasal nodes (wrapper and preterminals excluded;
 * unary chains give repeated spans). Writes up to cap (start, end) pairs in pre-order
 * into span[2*k], span[2*k+1]; returns the number of brackets of the tree, which may
 * exceed cap (then only the first cap were written). */
int tops_brackets(const struct sp_ctree *t, int *span, int cap);

/* The tree as one bracketed line, e.g. "( (S (NP (NN a)) (VP (VBZ b))) )" for the PTB
 * wrapper; words[i] is the form of word i. Appends to out. */
#include "common/sp.h"
void tops_tree_format(const struct sp_ctree *t, const char *const *words, struct sp_buf *out);

/* ---- tree extraction from attention (docs/spec/structures.md §6, docs/spec/probing.md §5.1) ---- */

enum tops_span_score {
    TOPS_SPAN_MEAN = 0,   /* normative: in-span attention mass / span length */
    TOPS_SPAN_SUM  = 1,   /* --span-score sum: the unnormalised mass (TV-20) */
};

/* Scratch for tops_extract_tree: float64 prefix sums (n+1)^2 plus an explicit stack. */
size_t tops_extract_scratch_bytes(int n);

/* Top-down binary split of words 0..n-1 on the word-level attention attn[n*n] (row = query):
 * split [i,j] at the smallest k maximising score(i,k)·score(k+1,j), float64 prefix sums.
 * renorm != 0 first rescales every row to sum 1 (rows summing to 0 stay 0).
 * Writes the n-1 predicted brackets (every internal node, length >= 2, the whole sentence
 * first) in pre-order (left before right) as span[2k] = start, span[2k+1] = end (inclusive);
 * span needs 2*(n-1) ints. scratch: tops_extract_scratch_bytes(n) bytes, or NULL to have
 * the function malloc and free it itself. Returns the bracket count (0 when n < 2),
 * or -1 when scratch is NULL and malloc fails. */
int tops_extract_tree(int n, const float *attn, enum tops_span_score score, int renorm,
                      void *scratch, int *span);

#endif
