/* probes/structprobe_metrics.h — Hewitt & Manning structural-probe metrics (docs/spec/probing.md §3.6):
 * UUAS, DSpr, root accuracy, NSpr, from predicted distance matrices and depth vectors.
 *
 * HOW IT WORKS. The caller feeds one sentence at a time (gold heads, a punctuation mask and
 * the predictions) into an accumulator, then reads the corpus figures. Gold distances and
 * depths come from treeops (tops_depth / tops_distance). Nothing here knows where the
 * predictions came from: a trained probe, a .npy file, or the LINEAR baseline below.
 *
 *   UUAS     Kruskal MST over the ordered pairs (i, j) of non-punctuation tokens, stable sort
 *            by value over row-major order, for gold and predicted matrices; micro-average of
 *            |gold ∩ predicted| (unordered pairs) over |gold edges|, all sentences, all lengths.
 *   DSpr     per word, Spearman (average ranks) of predicted vs gold distance row (n values,
 *            self-distance and punctuation included); all rows appended to their sentence
 *            length's list; per-length means; unweighted mean over the lengths 5..50 present.
 *   Root %   gold root = first word with head -1; predicted = argmin predicted depth over
 *            non-punctuation words (first index on ties; plain argmin if all are punctuation).
 *   NSpr     per sentence, Spearman of predicted vs gold depths over all words; per-length
 *            means; unweighted mean over the lengths 5..50 present.
 *
 * A constant row gives a NaN Spearman (scipy's behaviour, docs/spec/probing.md A19); the NaN propagates into
 * its length's mean and from there into DSpr/NSpr if that length is in 5..50. The
 * accumulator counts NaN rows so the caller can warn.
 *
 * LINEAR baseline (§3.7): predicted distance |i - j|, predicted depth i (0-based), so the
 * predicted root is the first non-punctuation word. */
#ifndef PRB_STRUCTPROBE_H
#define PRB_STRUCTPROBE_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/sentence.h"

/* Which column decides punctuation (docs/spec/probing.md A16). */
enum prb_punct {
    PRB_PUNCT_XPOS = 0,       /* H&M list on XPOS: '' , . : `` -LRB- -RRB- */
    PRB_PUNCT_UPOS,           /* UPOS == PUNCT */
};
int prb_punct_parse(const char *name, enum prb_punct *out);   /* "xpos" | "upos"; 0 ok, -1 bad */

/* 1 if tag is in the H&M punctuation list (exact match). */
int prb_hm_punct_tag(const char *xpos);

/* punct[i] = 1 for punctuation words of s under rule p. */
void prb_punct_mask(const struct sp_sentence *s, enum prb_punct p, uint8_t *punct);

/* Spearman rank correlation of x[0..n) and y[0..n) with average ranks for ties; NaN when
 * either vector is constant (or n < 2). */
double prb_spearman(int n, const double *x, const double *y);

/* Minimum spanning tree of the non-punctuation tokens by Kruskal over all ordered pairs in
 * row-major order, stably sorted by m[i*n+j] (docs/spec/probing.md §3.6 tie-breaking). Writes the edges as
 * (a, b) with a < b into edge[2*k], edge[2*k+1] (room for 2*(n-1) ints) in the order they
 * were added; returns the edge count. */
int prb_mst_edges(int n, const double *m, const uint8_t *punct, int *edge);

/* LINEAR baseline predictions for a sentence of n words. */
void prb_linear_distance(int n, double *dist);   /* OUT: (n, n) |i - j| */
void prb_linear_depth(int n, double *depth);     /* OUT: (n) i */

/* One sentence's values (for tests and per-sentence reports). Fields whose prediction was
 * not given are left at -1 / NaN. */
struct prb_sp_sent {
    int uuas_correct, uuas_total;   /* predicted MST edges in the gold MST / gold MST edges */
    double dspr_mean;               /* mean of the n row Spearmans */
    double nspr;                    /* depth Spearman */
    int gold_root, pred_root;       /* 0-based word indices */
};

/* Corpus accumulator. Per-length lists are kept as sums and counts (a mean is all §3.6 needs). */
struct prb_sp_acc {
    long uuas_correct, uuas_total;
    long root_correct, n_root;       /* sentences with a depth prediction */
    long n_sent, n_dist;             /* sentences seen, sentences with a distance prediction */
    int max_len;                     /* per-length arrays hold lengths 0..max_len-1 */
    double *dspr_sum; long *dspr_cnt; long *dspr_nan;   /* [max_len] */
    double *nspr_sum; long *nspr_cnt; long *nspr_nan;   /* [max_len] */
    long n_nan_rows;                 /* NaN Spearmans seen (any length), for the A19 warning */
    /* scratch, grown as sentences get longer */
    int ws_n;
    int *ws_order, *ws_depth, *ws_dist;
    double *ws_gold, *ws_tmp;
    int *ws_edge_g, *ws_edge_p;
};

struct prb_sp_result {
    double uuas;                     /* percent; NaN without distances or gold edges */
    double dspr;                     /* fraction; NaN without distances, no length in 5..50, or A19 */
    double root_acc;                 /* percent; NaN without depths */
    double nspr;                     /* fraction; as dspr */
    long n_sentences;
    long n_nan_rows;                 /* NaN Spearmans, all lengths */
    long n_nan_used;                 /* those at lengths 5..50, which made DSpr/NSpr NaN */
};

void prb_sp_init(struct prb_sp_acc *a);
void prb_sp_free(struct prb_sp_acc *a);

/* Add one sentence: n words, 0-based heads (-1 = root, one tree), punctuation mask, and
 * the predictions (pred_dist (n, n) row-major, pred_depth (n); either may be NULL).
 * out (may be NULL) receives the sentence's own values. Returns 0, or -1 with a message
 * in err when the heads are not one tree (the sentence is then not counted). */
int prb_sp_add(struct prb_sp_acc *a, int n, const int *head, const uint8_t *punct,
               const double *pred_dist, const double *pred_depth,
               struct prb_sp_sent *out, char *err, size_t errlen);

void prb_sp_result(const struct prb_sp_acc *a, struct prb_sp_result *r);

#endif
