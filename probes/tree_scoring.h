/* probes/tree_scoring.h — binary trees over a sentence (baselines, attention trees) scored against
 * the gold constituency tree with the two protocols of docs/spec/probing.md §5.
 *
 * HOW IT WORKS. A predicted tree is a list of brackets: (start, end) word spans, inclusive,
 * over all tokens of the normalised gold tree (punctuation included, -NONE- removed), one per
 * internal node. Baselines and tops_extract_tree (treeops) produce such lists. Each sentence
 * is then scored twice:
 *   Protocol A (§5.2)  the tree is written as "(TOP (X … (TAG word) …))" with the gold words
 *                      and tags, the gold tree as its normalised bracketing with the wrapper
 *                      renamed TOP (A25), and both go through the EVALB core (probes/evalb.h)
 *                      with COLLINS.prm deletions and LABELED 0: recall/precision/F of the
 *                      "All" and "len<=40" blocks.
 *   Protocol B (§5.3)  punctuation (, . : `` '' -LRB- -RRB- # $) removed, every span projected
 *                      onto the remaining m words, duplicates collapsed, single-word and
 *                      whole-sentence spans dropped; sentences with m < 3 skipped; sentence-F1
 *                      = 2|P∩G|/(|P|+|G|) averaged, and corpus-F1 from summed counts, for the
 *                      subsets all, m <= 40, m <= 10.
 * The accumulator does both; results are percentages. */
#ifndef PRB_TREES_H
#define PRB_TREES_H

#include <stddef.h>
#include <stdint.h>

#include "common/sp.h"
#include "ingest/sentence.h"

/* ---- predicted trees: every function writes at most n-1 brackets (2*(n-1) ints) ---- */

/* Right-branching: (i, n-1) for i = 0..n-2. Returns n-1 (0 when n < 2). */
int prb_tree_right(int n, int *span);
/* Left-branching: (0, j) for j = n-1 down to 1. */
int prb_tree_left(int n, int *span);
/* Random (§5.4): top-down, split [i,j] at k drawn uniformly from {i..j-1} with
 * sp_rng_below(r, j-i), whole sentence first, then left subtree, then right (pre-order). */
int prb_tree_random(int n, struct sp_rng *r, int *span);
/* Random over the words that Protocol B keeps (tag[i] not prb_protb_punct_tag), written as
 * token spans (word span [a,b] -> tokens [pos a, pos b]), so that its Protocol-B projection is
 * exactly the random tree over those m words. Returns m-1 (0 when m < 2). This is how §5.4's
 * Protocol-B random row was made: trees over all tokens projected onto the words give
 * 18.96 / 17.10 (sentence / corpus F1, seeds 1..5), trees over the words 17.29 / 15.41,
 * against the spec's 17.30 / 15.46; its Protocol-A random F (20.66) is that of trees over all
 * tokens (20.64 here). The random baseline therefore scores A and B on separate draws. */
int prb_tree_random_words(int n, const char *const *tag, struct sp_rng *r, int *span);
/* Binarised gold (§5.4 upper bound): unary chains collapsed, single-word constituents dropped,
 * an n-ary node c1..ck right-factored as (c1 (c2 (… ck))). t must cover words 0..n-1. */
int prb_tree_gold(const struct sp_ctree *t, int n, int *span);

/* ---- bracket lines for EVALB ---- */

/* Gold tag of every word (its preterminal's label) into tag[n]; -1 if the tree does not
 * cover words 0..n-1 exactly once. */
int prb_gold_tags(const struct sp_sentence *s, const char **tag);
/* "(TOP (X …))" over the words of s with gold tags; appended to out (no newline). */
void prb_tree_line(const struct sp_sentence *s, const char *const *tag, int n_span, const int *span,
                   struct sp_buf *out);
/* The gold tree on one line, wrapper label "" written as TOP; appended to out. */
void prb_gold_line(const struct sp_sentence *s, struct sp_buf *out);

/* ---- Protocol B, one sentence ---- */

int prb_protb_punct_tag(const char *tag);      /* , . : `` '' -LRB- -RRB- # $ */

struct prb_protb_sent {
    int m;                        /* words left after punctuation removal */
    int scored;                   /* m >= 3 */
    int n_pred, n_gold, n_match;  /* span-set sizes after projection and filtering */
    double f1;                    /* 2|P∩G|/(|P|+|G|), fraction; 0 when the intersection is empty */
};
void prb_protb_sentence(int n, const char *const *tag, const struct sp_ctree *gold,
                        int n_span, const int *span, struct prb_protb_sent *out);

/* ---- corpus accumulator (both protocols) ---- */

enum { PRB_SUB_ALL = 0, PRB_SUB_LE40, PRB_SUB_LE10, PRB_N_SUB };

struct prb_prf { double recall, precision, fmeasure; long n_valid; };

/* Protocol B sentence F1 by length (words left after punctuation removal, as the le40/le10
 * subsets count them): bins 3-10, 11-20, 21-30, 31-40, 41-50, 51+ (shorter ones are not scored). */
#define PRB_N_LENBIN 6
int prb_lenbin(int m);                          /* the bin of m words, -1 below 3 */
int prb_lenbin_lo(int bin);                     /* 3, 11, 21, ...: the bin's shortest length */

struct prb_trees_result {
    struct prb_prf a_all, a_le40;           /* Protocol A, percent (NaN when nothing valid) */
    double b_sent_f1[PRB_N_SUB];            /* Protocol B sentence-level mean F1, percent */
    double b_corpus_f1[PRB_N_SUB];          /* Protocol B corpus-level F1, percent */
    long b_n[PRB_N_SUB];                    /* sentences scored per subset */
    double b_bin_f1[PRB_N_LENBIN];          /* Protocol B sentence-level mean F1 by length bin, percent */
    long b_bin_n[PRB_N_LENBIN];             /* sentences scored per bin */
    long n_sentences;                       /* sentences given to prb_trees_add */
    long a_skipped_long;                    /* left out of Protocol A by a_max_words */
};

struct prb_trees_acc;

/* a_max_words > 0: leave sentences with more gold words (EVALB length) out of Protocol A,
 * to compare with the reference binary, which dies on sentences over 200 words (§4.7). */
struct prb_trees_acc *prb_trees_new(int a_max_words);
void prb_trees_delete(struct prb_trees_acc *a);

/* Score one predicted tree against s (which must carry a tree). Returns 0, or -1 with a
 * message when the sentence cannot be scored (no tree, words not covered). */
int prb_trees_add(struct prb_trees_acc *a, const struct sp_sentence *s, int n_span, const int *span,
                  char *err, size_t errlen);
/* The same with a different tree for each protocol (the random baseline, see
 * prb_tree_random_words): span_a is scored by Protocol A, span_b by Protocol B. */
int prb_trees_add_ab(struct prb_trees_acc *a, const struct sp_sentence *s, int n_a, const int *span_a,
                     int n_b, const int *span_b, char *err, size_t errlen);
void prb_trees_result(const struct prb_trees_acc *a, struct prb_trees_result *r);

#endif
