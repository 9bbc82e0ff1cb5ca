/* treeops/treeops.h — pure functions on one sentence (SPEC-structures §3, §4).
 *
 * No I/O, no global state, no allocation unless a function says so: callers pass output
 * arrays (n or n*n elements, row-major, row = query i, column = key j). Every function is
 * O(n^2) or better. Heads are 0-based with -1 for the root and must form one tree
 * (ingest validates or repairs them before they get here). */
#ifndef TOPS_TREEOPS_H
#define TOPS_TREEOPS_H

#include <stdint.h>

#include "ingest/sentence.h"

#define TOPS_REL_CLIP 16          /* P2's clipping distance: rel buckets 0..32 */

/* ---- dependency structures (§3) ---- */

/* BFS order from the root into order[n] and depth[n] (§3.1). Returns 0, or -1 if head[] is
 * not a single tree. */
int tops_depth(int n, const int *head, int *order, int *depth);

/* All-pairs tree distance D (§3.2), using the BFS order from tops_depth. */
void tops_distance(int n, const int *head, const int *order, int *dist);

/* Ancestor / SDOI matrix (§3.3): anc[i*n+j] = 1 iff j == i or j is a proper ancestor of i. */
void tops_ancestors(int n, const int *head, uint8_t *anc);

/* P2 relative structural positions (§3.5), unclipped: rel[i*n+j]. */
void tops_rel_pos(int n, const int *depth, const uint8_t *anc, int *rel);

static inline int tops_clip(int x, int k) { return x < -k ? -k : x > k ? k : x; }

/* ---- constituency structures (§4) ---- */

/* Unary collapse cu(x) (§4.1): follow single children of phrasal nodes. */
int tops_collapse_unary(const struct sp_ctree *t, int x);

/* SentEval TreeDepth (§4.2): edges from the wrapper to the deepest word leaf. Iterative. */
int tops_tree_depth(const struct sp_ctree *t);

/* SentEval TopConst sequence (§4.3), e.g. "NP_VP_." into buf; returns buf. */
const char *tops_top_const(const struct sp_ctree *t, char *buf, size_t cap);

/* Is seq one of SentEval's 19 frequent TopConst classes? */
int tops_top_const_is_frequent(const char *seq);

/* PSAN phrase division (§4.4): pid[(t-1)*n + i] for levels t = 1..T, minimum divisible
 * length min_len (4). n = number of words. Returns the phrase count of level T. */
int tops_phrases(const struct sp_ctree *t, int n, int T, int min_len, int *pid);

/* Gold brackets (§6.4): spans of all phrasal nodes (wrapper and preterminals excluded;
 * unary chains give repeated spans). Writes up to cap (start, end) pairs in pre-order
 * into span[2*k], span[2*k+1]; returns the count. */
int tops_brackets(const struct sp_ctree *t, int *span, int cap);

#endif
