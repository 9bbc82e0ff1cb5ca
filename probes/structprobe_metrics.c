/* probes/structprobe_metrics.c — structural-probe metrics (docs/spec/probing.md §3.6), see structprobe.h.
 *
 * Plain reference code: sorts and loops, O(n^2 log n) per sentence for the MST, which is
 * nothing next to computing the predictions. Mirrors structural-probes/reporter.py: the
 * pair order for Kruskal, argmin with punctuation skipped, and NaN propagation. */
#include "probes/structprobe_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "treeops/treeops.h"

/* ---- punctuation ---- */

int prb_punct_parse(const char *name, enum prb_punct *out)
{
    if (!strcmp(name, "xpos")) { *out = PRB_PUNCT_XPOS; return 0; }
    if (!strcmp(name, "upos")) { *out = PRB_PUNCT_UPOS; return 0; }
    return -1;
}

int prb_hm_punct_tag(const char *t)
{
    /* reporter.py: ["''", ",", ".", ":", "``", "-LRB-", "-RRB-"] */
    static const char *const tags[] = { "''", ",", ".", ":", "``", "-LRB-", "-RRB-" };
    if (!t) return 0;
    for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++)
        if (!strcmp(t, tags[k])) return 1;
    return 0;
}

void prb_punct_mask(const struct sp_sentence *s, enum prb_punct p, uint8_t *punct)
{
    for (int i = 0; i < s->n; i++) {
        if (p == PRB_PUNCT_UPOS)
            punct[i] = s->col[SP_UPOS] && s->col[SP_UPOS][i] && !strcmp(s->col[SP_UPOS][i], "PUNCT");
        else
            punct[i] = s->col[SP_XPOS] && prb_hm_punct_tag(s->col[SP_XPOS][i]);
    }
}

/* ---- Spearman ---- */

struct vi { double v; int i; };

/* NaN sorts last so the order is total; ties keep index order (stable). */
static int cmp_vi(const void *a, const void *b)
{
    const struct vi *x = a, *y = b;
    int xn = isnan(x->v), yn = isnan(y->v);
    if (xn != yn) return xn - yn;
    if (!xn && x->v < y->v) return -1;
    if (!xn && x->v > y->v) return 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Average ranks (1-based) of x into r; tmp has room for n entries. */
static void avg_ranks(int n, const double *x, double *r, struct vi *tmp)
{
    for (int i = 0; i < n; i++) { tmp[i].v = x[i]; tmp[i].i = i; }
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_vi);
    for (int a = 0; a < n;) {
        int b = a + 1;
        while (b < n && tmp[b].v == tmp[a].v) b++;
        double rank = 0.5 * (a + 1 + b);          /* mean of ranks a+1 .. b */
        for (int k = a; k < b; k++) r[tmp[k].i] = rank;
        a = b;
    }
}

double prb_spearman(int n, const double *x, const double *y)
{
    if (n < 2) return NAN;
    for (int i = 0; i < n; i++)
        if (isnan(x[i]) || isnan(y[i])) return NAN;
    double *rx = sp_xmalloc(2 * (size_t)n * sizeof *rx), *ry = rx + n;
    struct vi *tmp = sp_xmalloc((size_t)n * sizeof *tmp);
    avg_ranks(n, x, rx, tmp);
    avg_ranks(n, y, ry, tmp);
    double mx = 0, my = 0;
    for (int i = 0; i < n; i++) { mx += rx[i]; my += ry[i]; }
    mx /= n; my /= n;
    double sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        double dx = rx[i] - mx, dy = ry[i] - my;
        sxy += dx * dy; sxx += dx * dx; syy += dy * dy;
    }
    free(rx);
    free(tmp);
    if (sxx == 0 || syy == 0) return NAN;        /* constant input: scipy gives NaN (A19) */
    double r = sxy / sqrt(sxx * syy);
    return r > 1 ? 1 : r < -1 ? -1 : r;
}

/* ---- MST ---- */

static int uf_find(int *p, int x)
{
    while (p[x] != x) { p[x] = p[p[x]]; x = p[x]; }
    return x;
}

int prb_mst_edges(int n, const double *m, const uint8_t *punct, int *edge)
{
    if (n < 2) return 0;
    /* candidate pairs in row-major order; the index tie-break makes qsort a stable sort */
    struct vi *pairs = sp_xmalloc((size_t)n * (size_t)n * sizeof *pairs);
    int np = 0;
    for (int i = 0; i < n; i++) {
        if (punct && punct[i]) continue;
        for (int j = 0; j < n; j++) {
            if (punct && punct[j]) continue;
            pairs[np].v = m[(size_t)i * n + j];
            pairs[np].i = i * n + j;
            np++;
        }
    }
    qsort(pairs, (size_t)np, sizeof *pairs, cmp_vi);
    int *parent = sp_xmalloc((size_t)n * sizeof *parent);
    for (int i = 0; i < n; i++) parent[i] = i;
    int ne = 0;
    for (int k = 0; k < np; k++) {
        int i = pairs[k].i / n, j = pairs[k].i % n;
        int ri = uf_find(parent, i), rj = uf_find(parent, j);
        if (ri == rj) continue;
        parent[ri] = rj;
        edge[2 * ne] = i < j ? i : j;
        edge[2 * ne + 1] = i < j ? j : i;
        ne++;
    }
    free(parent);
    free(pairs);
    return ne;
}

/* ---- LINEAR baseline ---- */

void prb_linear_distance(int n, double *dist)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) dist[(size_t)i * n + j] = abs(i - j);
}

void prb_linear_depth(int n, double *depth)
{
    for (int i = 0; i < n; i++) depth[i] = i;
}

/* ---- accumulator ---- */

void prb_sp_init(struct prb_sp_acc *a)
{
    memset(a, 0, sizeof *a);
}

void prb_sp_free(struct prb_sp_acc *a)
{
    free(a->dspr_sum); free(a->dspr_cnt); free(a->dspr_nan);
    free(a->nspr_sum); free(a->nspr_cnt); free(a->nspr_nan);
    free(a->ws_order); free(a->ws_depth); free(a->ws_dist);
    free(a->ws_gold); free(a->ws_tmp); free(a->ws_edge_g); free(a->ws_edge_p);
    memset(a, 0, sizeof *a);
}

static void grow_lengths(struct prb_sp_acc *a, int n)
{
    if (n < a->max_len) return;
    int cap = a->max_len ? a->max_len : 64;
    while (cap <= n) cap *= 2;
#define GROW(p) do { p = sp_xrealloc(p, (size_t)cap * sizeof *p); \
        memset(p + a->max_len, 0, (size_t)(cap - a->max_len) * sizeof *p); } while (0)
    GROW(a->dspr_sum); GROW(a->dspr_cnt); GROW(a->dspr_nan);
    GROW(a->nspr_sum); GROW(a->nspr_cnt); GROW(a->nspr_nan);
#undef GROW
    a->max_len = cap;
}

static void grow_scratch(struct prb_sp_acc *a, int n)
{
    if (n <= a->ws_n) return;
    size_t nn = (size_t)n * (size_t)n;
    a->ws_order = sp_xrealloc(a->ws_order, (size_t)n * sizeof(int));
    a->ws_depth = sp_xrealloc(a->ws_depth, (size_t)n * sizeof(int));
    a->ws_dist = sp_xrealloc(a->ws_dist, nn * sizeof(int));
    a->ws_gold = sp_xrealloc(a->ws_gold, nn * sizeof(double));
    a->ws_tmp = sp_xrealloc(a->ws_tmp, (size_t)n * sizeof(double));
    a->ws_edge_g = sp_xrealloc(a->ws_edge_g, 2 * (size_t)n * sizeof(int));
    a->ws_edge_p = sp_xrealloc(a->ws_edge_p, 2 * (size_t)n * sizeof(int));
    a->ws_n = n;
}

/* |edges a ∩ edges b|; both lists hold normalised (lo, hi) pairs without repeats. */
static int edge_overlap(int na, const int *ea, int nb, const int *eb)
{
    int c = 0;
    for (int x = 0; x < na; x++)
        for (int y = 0; y < nb; y++)
            if (ea[2 * x] == eb[2 * y] && ea[2 * x + 1] == eb[2 * y + 1]) { c++; break; }
    return c;
}

int prb_sp_add(struct prb_sp_acc *a, int n, const int *head, const uint8_t *punct,
               const double *pred_dist, const double *pred_depth,
               struct prb_sp_sent *out, char *err, size_t errlen)
{
    struct prb_sp_sent s = { -1, -1, NAN, NAN, -1, -1 };
    if (n <= 0) {
        snprintf(err, errlen, "empty sentence");
        return -1;
    }
    grow_scratch(a, n);
    grow_lengths(a, n);
    if (tops_depth(n, head, a->ws_order, a->ws_depth) != 0) {
        snprintf(err, errlen, "heads do not form one tree");
        return -1;
    }
    a->n_sent++;

    if (pred_dist) {
        tops_distance(n, head, a->ws_order, a->ws_dist);
        double *gold = a->ws_gold;
        for (size_t k = 0; k < (size_t)n * n; k++) gold[k] = a->ws_dist[k];
        /* UUAS: gold MST (from the gold distances, as H&M do) vs predicted MST */
        int ng = prb_mst_edges(n, gold, punct, a->ws_edge_g);
        int npred = prb_mst_edges(n, pred_dist, punct, a->ws_edge_p);
        s.uuas_total = ng;
        s.uuas_correct = edge_overlap(ng, a->ws_edge_g, npred, a->ws_edge_p);
        a->uuas_correct += s.uuas_correct;
        a->uuas_total += s.uuas_total;
        /* DSpr: every row of this sentence goes to the list of length n */
        double sum = 0;
        for (int i = 0; i < n; i++) {
            double r = prb_spearman(n, pred_dist + (size_t)i * n, gold + (size_t)i * n);
            if (isnan(r)) { a->dspr_nan[n]++; a->n_nan_rows++; }
            else a->dspr_sum[n] += r;
            a->dspr_cnt[n]++;
            sum += r;
        }
        s.dspr_mean = sum / n;
        a->n_dist++;
    }

    if (pred_depth) {
        /* gold root: first word attached to ROOT */
        for (int i = 0; i < n && s.gold_root < 0; i++)
            if (head[i] < 0) s.gold_root = i;
        int best = -1;
        for (int i = 0; i < n; i++) {
            if (punct && punct[i]) continue;
            if (best < 0 || pred_depth[i] < pred_depth[best]) best = i;
        }
        if (best < 0)                       /* all punctuation: plain argmin */
            for (int i = 0; i < n; i++)
                if (best < 0 || pred_depth[i] < pred_depth[best]) best = i;
        s.pred_root = best;
        a->root_correct += best == s.gold_root;
        a->n_root++;
        for (int i = 0; i < n; i++) a->ws_tmp[i] = a->ws_depth[i];
        s.nspr = prb_spearman(n, pred_depth, a->ws_tmp);
        if (isnan(s.nspr)) { a->nspr_nan[n]++; a->n_nan_rows++; }
        else a->nspr_sum[n] += s.nspr;
        a->nspr_cnt[n]++;
    }
    if (out) *out = s;
    return 0;
}

/* Unweighted mean over the lengths 5..50 present of the per-length means; NaN if a used
 * length holds a NaN (np.mean propagates it) or no length in range occurs. */
static double length_mean(const struct prb_sp_acc *a, const double *sum, const long *cnt,
                          const long *nan_cnt)
{
    double total = 0;
    int used = 0;
    for (int len = 5; len <= 50 && len < a->max_len; len++) {
        if (!cnt[len]) continue;
        if (nan_cnt[len]) return NAN;
        total += sum[len] / cnt[len];
        used++;
    }
    return used ? total / used : NAN;
}

void prb_sp_result(const struct prb_sp_acc *a, struct prb_sp_result *r)
{
    r->n_sentences = a->n_sent;
    r->n_nan_rows = a->n_nan_rows;
    r->n_nan_used = 0;
    for (int len = 5; len <= 50 && len < a->max_len; len++) r->n_nan_used += a->dspr_nan[len] + a->nspr_nan[len];
    r->uuas = a->n_dist && a->uuas_total ? 100.0 * a->uuas_correct / a->uuas_total : NAN;
    r->dspr = a->n_dist ? length_mean(a, a->dspr_sum, a->dspr_cnt, a->dspr_nan) : NAN;
    r->root_acc = a->n_root ? 100.0 * a->root_correct / a->n_root : NAN;
    r->nspr = a->n_root ? length_mean(a, a->nspr_sum, a->nspr_cnt, a->nspr_nan) : NAN;
}
