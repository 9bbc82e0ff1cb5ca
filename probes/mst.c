/* probes/mst.c — trees from attention (docs/spec/models.md M6), see mst.h.
 *
 * Plain reference code. CLE follows M6.4 step by step: greedy heads, the first cycle met,
 * contraction into the smallest member's id with enter/leave bookkeeping, recursion, expansion.
 * Each level copies the n×n weight and arc-presence matrices (ids stay in 0..n-1 because a
 * contracted node reuses a member's id), so memory is O(n^3) in the worst case: 4 MB per level
 * at n = 200, at most n/2 levels, freed on the way back up. */
#include "probes/mst.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "probes/structprobe_metrics.h"
#include "treeops/treeops.h"

int prb_arc_dir_parse(const char *name, enum prb_arc_dir *out)
{
    if (!strcmp(name, "dep_to_head")) { *out = PRB_DEP_TO_HEAD; return 0; }
    if (!strcmp(name, "head_to_dep")) { *out = PRB_HEAD_TO_DEP; return 0; }
    return -1;
}

int prb_attn_root(int n, const double *A)
{
    int best = 0;
    double bc = 0.0;
    for (int j = 0; j < n; j++) {
        double c = 0.0;
        for (int i = 0; i < n; i++)
            if (i != j) c += A[(size_t)i * n + j];
        if (j == 0 || c > bc) { bc = c; best = j; }
    }
    return best;
}

void prb_arc_scores(int n, const double *A, enum prb_arc_dir dir, double *S)
{
    for (int h = 0; h < n; h++)
        for (int d = 0; d < n; d++)
            S[(size_t)h * n + d] = dir == PRB_DEP_TO_HEAD ? A[(size_t)d * n + h] : A[(size_t)h * n + d];
}

/* ---- Chu-Liu/Edmonds ---- */

/* 1. greedy heads pi[v] for every v in nodes but r, ties -> smallest u (nodes are increasing, so
 * strict >). -1 when some node has no entering arc. */
static int greedy_heads(int n, const int *nodes, int nn, const double *w, const uint8_t *has, int r, int *pi)
{
    for (int a = 0; a < nn; a++) {
        int v = nodes[a];
        pi[v] = -1;
        if (v == r) continue;
        double best = 0.0;
        for (int b = 0; b < nn; b++) {
            int u = nodes[b];
            if (u == v || !has[(size_t)u * n + v]) continue;
            double x = w[(size_t)u * n + v];
            if (pi[v] < 0 || x > best) { best = x; pi[v] = u; }
        }
        if (pi[v] < 0) return -1;
    }
    return 0;
}

/* 2. the first cycle met, following pi from each node in increasing id order: a node on it, or
 * -1. mark: n ints of scratch. */
static int first_cycle(const int *nodes, int nn, int r, const int *pi, int *mark)
{
    for (int a = 0; a < nn; a++) mark[nodes[a]] = -1;
    int cyc = -1;
    for (int a = 0; a < nn && cyc < 0; a++) {
        int v = nodes[a];
        while (v != r && mark[v] < 0) { mark[v] = a; v = pi[v]; }
        if (v != r && mark[v] == a) cyc = v;
    }
    return cyc;
}

/* One contraction of a cycle C into its smallest member c: the graph one level down */
struct cle_contraction {
    uint8_t *inC;                /* [n] member of C */
    int c;
    double *w2;                  /* [n*n] the weights with c for C */
    uint8_t *has2;               /* [n*n] */
    int *enter, *leave;          /* [n] per outside u: the member of C that u -> c enters / c -> u leaves */
    int *nodes2, nn2;            /* the nodes outside C, and c */
};

/* entering arc u -> c: max over v in C (increasing) of w(u,v) - w(pi(v),v); its score in *best */
static int best_entering(int n, const int *nodes, int nn, const double *w, const uint8_t *has, const int *pi,
                         const uint8_t *inC, int u, double *best)
{
    int e = -1;
    double be = 0.0;
    for (int b = 0; b < nn; b++) {
        int v = nodes[b];
        if (!inC[v] || !has[(size_t)u * n + v]) continue;
        double x = w[(size_t)u * n + v] - w[(size_t)pi[v] * n + v];
        if (e < 0 || x > be) { be = x; e = v; }
    }
    *best = be;
    return e;
}

/* leaving arc c -> u: max over v in C of w(v,u); its score in *best */
static int best_leaving(int n, const int *nodes, int nn, const double *w, const uint8_t *has, const uint8_t *inC,
                        int u, double *best)
{
    int l = -1;
    double bl = 0.0;
    for (int b = 0; b < nn; b++) {
        int v = nodes[b];
        if (!inC[v] || !has[(size_t)v * n + u]) continue;
        double x = w[(size_t)v * n + u];
        if (l < 0 || x > bl) { bl = x; l = v; }
    }
    *best = bl;
    return l;
}

/* 3. contract the cycle through cyc into c = min(C) */
static void contract(int n, const int *nodes, int nn, const double *w, const uint8_t *has, const int *pi, int cyc,
                     struct cle_contraction *K)
{
    K->inC = sp_xcalloc((size_t)n, 1);
    K->c = cyc;
    for (int v = cyc;;) {
        K->inC[v] = 1;
        if (v < K->c) K->c = v;
        v = pi[v];
        if (v == cyc) break;
    }
    int c = K->c;
    K->w2 = sp_xmalloc((size_t)n * n * sizeof *K->w2);
    K->has2 = sp_xmalloc((size_t)n * n);
    memcpy(K->w2, w, (size_t)n * n * sizeof *K->w2);
    memcpy(K->has2, has, (size_t)n * n);
    K->enter = sp_xmalloc((size_t)n * sizeof *K->enter);
    K->leave = sp_xmalloc((size_t)n * sizeof *K->leave);
    K->nodes2 = sp_xmalloc((size_t)nn * sizeof *K->nodes2);
    K->nn2 = 0;
    for (int a = 0; a < nn; a++) {
        int v = nodes[a];
        if (!K->inC[v] || v == c) K->nodes2[K->nn2++] = v;
    }
    for (int a = 0; a < nn; a++) {
        int u = nodes[a];
        if (K->inC[u]) continue;
        double be, bl;
        K->enter[u] = best_entering(n, nodes, nn, w, has, pi, K->inC, u, &be);
        K->has2[(size_t)u * n + c] = K->enter[u] >= 0;
        K->w2[(size_t)u * n + c] = be;
        K->leave[u] = best_leaving(n, nodes, nn, w, has, K->inC, u, &bl);
        K->has2[(size_t)c * n + u] = K->leave[u] >= 0;
        K->w2[(size_t)c * n + u] = bl;
    }
    K->has2[(size_t)c * n + c] = 0;
}

static void contraction_free(struct cle_contraction *K)
{
    free(K->nodes2); free(K->leave); free(K->enter); free(K->has2); free(K->w2); free(K->inC);
}

/* 5. expand: the cycle keeps its greedy heads but for the member the chosen entering arc
 * enters; arcs from c leave from their member */
static void expand(const int *nodes, int nn, int r, const int *pi, const struct cle_contraction *K, const int *head2,
                   int *head)
{
    for (int a = 0; a < nn; a++) {
        int v = nodes[a];
        if (v == r) continue;
        if (K->inC[v]) head[v] = pi[v];
        else head[v] = head2[v] == K->c ? K->leave[v] : head2[v];
    }
    int u = head2[K->c];
    head[K->enter[u]] = u;
}

/* One level of M6.4. nodes[0..nn) increasing; w/has are n×n (row = head, column = dependent).
 * Writes head[v] for every v in nodes (head[r] untouched). Returns 0 or -1 (no entering arc). */
static int cle_rec(int n, const int *nodes, int nn, const double *w, const uint8_t *has, int r, int *head)
{
    int *pi = sp_xmalloc((size_t)n * sizeof *pi);
    int *mark = sp_xmalloc((size_t)n * sizeof *mark);
    int rc = greedy_heads(n, nodes, nn, w, has, r, pi);
    int cyc = rc ? -1 : first_cycle(nodes, nn, r, pi, mark);
    if (rc == 0 && cyc < 0) {
        for (int a = 0; a < nn; a++)
            if (nodes[a] != r) head[nodes[a]] = pi[nodes[a]];
    } else if (rc == 0) {
        struct cle_contraction K;
        contract(n, nodes, nn, w, has, pi, cyc, &K);
        /* 4. recurse, 5. expand */
        int *head2 = sp_xmalloc((size_t)n * sizeof *head2);
        rc = cle_rec(n, K.nodes2, K.nn2, K.w2, K.has2, r, head2);
        if (rc == 0) expand(nodes, nn, r, pi, &K, head2, head);
        free(head2);
        contraction_free(&K);
    }
    free(mark);
    free(pi);
    return rc;
}

int prb_cle(int n, const double *S, int root, int *head, char *err, size_t errlen)
{
    if (n == 0) return 0;
    if (n < 0 || root < 0 || root >= n) {
        snprintf(err, errlen, "maximum spanning tree: root %d outside 0..%d", root, n - 1);
        return -1;
    }
    for (size_t k = 0; k < (size_t)n * n; k++)
        if (isnan(S[k]) && k / n != k % n) {
            snprintf(err, errlen, "maximum spanning tree: score [%zu][%zu] is NaN, expected a number",
                     k / n, k % n);
            return -1;
        }
    uint8_t *has = sp_xmalloc((size_t)n * n);
    int *nodes = sp_xmalloc((size_t)n * sizeof *nodes);
    for (int h = 0; h < n; h++) {
        nodes[h] = h;
        for (int d = 0; d < n; d++) has[(size_t)h * n + d] = h != d && d != root;
    }
    int rc = cle_rec(n, nodes, n, S, has, root, head);
    head[root] = -1;
    free(nodes);
    free(has);
    if (rc != 0) snprintf(err, errlen, "maximum spanning tree: a word has no entering arc");
    return rc;
}

int prb_attn_tree(int n, const double *A, enum prb_arc_dir dir, int *head, char *err, size_t errlen)
{
    if (n <= 0) return 0;
    double *S = sp_xmalloc((size_t)n * n * sizeof *S);
    prb_arc_scores(n, A, dir, S);
    int rc = prb_cle(n, S, prb_attn_root(n, A), head, err, errlen);
    free(S);
    return rc;
}

double prb_tree_score(int n, const double *S, const int *head)
{
    double t = 0.0;
    for (int d = 0; d < n; d++)
        if (head[d] >= 0) t += S[(size_t)head[d] * n + d];
    return t;
}

int prb_attn_umst(int n, const double *A, const uint8_t *punct, int *edge)
{
    if (n < 2) return 0;
    double *m = sp_xmalloc((size_t)n * n * sizeof *m);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            m[(size_t)i * n + j] = -((A[(size_t)i * n + j] + A[(size_t)j * n + i]) / 2);
    int ne = prb_mst_edges(n, m, punct, edge);
    free(m);
    return ne;
}

/* ---- baselines ---- */

void prb_right_chain(int n, int *head)
{
    for (int i = 0; i < n; i++) head[i] = i - 1;
}

void prb_left_chain(int n, int *head)
{
    for (int i = 0; i < n; i++) head[i] = i == n - 1 ? -1 : i + 1;
}

int prb_adjacent_edges(int n, const uint8_t *punct, int *edge)
{
    int ne = 0, prev = -1;
    for (int i = 0; i < n; i++) {
        if (punct && punct[i]) continue;
        if (prev >= 0) { edge[2 * ne] = prev; edge[2 * ne + 1] = i; ne++; }
        prev = i;
    }
    return ne;
}

int prb_prufer_decode(int m, const int *a, int *edge)
{
    if (m < 2) return 0;
    int *deg = sp_xmalloc((size_t)m * sizeof *deg);
    for (int x = 0; x < m; x++) deg[x] = 1;
    for (int k = 0; k < m - 2; k++) deg[a[k]]++;
    int ne = 0;
    for (int k = 0; k < m - 2; k++) {
        int x = 0;
        while (deg[x] != 1) x++;
        edge[2 * ne] = x < a[k] ? x : a[k];
        edge[2 * ne + 1] = x < a[k] ? a[k] : x;
        ne++;
        deg[x]--;
        deg[a[k]]--;
    }
    int u = -1, v = -1;
    for (int x = 0; x < m; x++)
        if (deg[x] == 1) { if (u < 0) u = x; else if (v < 0) v = x; }
    edge[2 * ne] = u;
    edge[2 * ne + 1] = v;
    ne++;
    free(deg);
    return ne;
}

/* Prüfer sequence for m nodes from the stream, decoded. */
static int draw_tree(struct sp_splitmix *rng, int m, int *edge)
{
    if (m < 2) return 0;
    int *a = sp_xmalloc((size_t)(m > 2 ? m - 2 : 1) * sizeof *a);
    for (int k = 0; k < m - 2; k++) a[k] = (int)sp_splitmix_below(rng, (uint64_t)m);
    int ne = prb_prufer_decode(m, a, edge);
    free(a);
    return ne;
}

void prb_edges_orient(int n, const int *edge, int ne, int root, int *head)
{
    /* breadth-first from the root over an adjacency list built from the edges */
    int *deg = sp_xcalloc((size_t)n + 1, sizeof *deg);
    int *adj = sp_xmalloc((size_t)(2 * ne > 0 ? 2 * ne : 1) * sizeof *adj);
    int *queue = sp_xmalloc((size_t)n * sizeof *queue);
    for (int k = 0; k < 2 * ne; k++) deg[edge[k] + 1]++;
    for (int v = 0; v < n; v++) deg[v + 1] += deg[v];
    int *fill = sp_xmalloc((size_t)n * sizeof *fill);
    memcpy(fill, deg, (size_t)n * sizeof *fill);
    for (int k = 0; k < ne; k++) {
        int a = edge[2 * k], b = edge[2 * k + 1];
        adj[fill[a]++] = b;
        adj[fill[b]++] = a;
    }
    for (int v = 0; v < n; v++) head[v] = -2;
    head[root] = -1;
    int qh = 0, qt = 0;
    queue[qt++] = root;
    while (qh < qt) {
        int u = queue[qh++];
        for (int k = deg[u]; k < deg[u + 1]; k++)
            if (head[adj[k]] == -2) { head[adj[k]] = u; queue[qt++] = adj[k]; }
    }
    free(fill); free(queue); free(adj); free(deg);
}

void prb_dist_tree(int n, const double *D, int root, int *head)
{
    if (n < 1) return;
    int *edge = sp_xmalloc((size_t)(n > 1 ? 2 * (n - 1) : 1) * sizeof *edge);
    int ne = prb_mst_edges(n, D, NULL, edge);
    prb_edges_orient(n, edge, ne, root, head);
    free(edge);
}

int prb_random_tree(struct sp_splitmix *rng, int n, int *head)
{
    if (n < 1) return 0;
    if (n == 1) { head[0] = -1; return 0; }
    int *edge = sp_xmalloc((size_t)2 * (n - 1) * sizeof *edge);
    int ne = draw_tree(rng, n, edge);
    int root = (int)sp_splitmix_below(rng, (uint64_t)n);
    prb_edges_orient(n, edge, ne, root, head);
    free(edge);
    return 0;
}

int prb_random_utree(struct sp_splitmix *rng, int n, const uint8_t *punct, int *edge)
{
    int *map = sp_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *map);
    int q = 0;
    for (int i = 0; i < n; i++)
        if (!(punct && punct[i])) map[q++] = i;
    int ne = draw_tree(rng, q, edge);
    for (int k = 0; k < 2 * ne; k++) edge[k] = map[edge[k]];
    free(map);
    return ne;
}

/* ---- metrics ---- */

void prb_dep_init(struct prb_dep_acc *a) { memset(a, 0, sizeof *a); }

static int edge_in(int a, int b, const int *edge, int ne)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    for (int k = 0; k < ne; k++)
        if (edge[2 * k] == lo && edge[2 * k + 1] == hi) return 1;
    return 0;
}

void prb_dep_add_directed(struct prb_dep_acc *a, int n, const int *gold_head, const int *pred_head,
                          const uint8_t *punct, struct prb_dep_sent *out)
{
    struct prb_dep_sent s;
    memset(&s, 0, sizeof s);
    /* predicted edges as an unordered list */
    int *pe = sp_xmalloc((size_t)2 * (n > 0 ? n : 1) * sizeof *pe);
    int np = 0;
    for (int d = 0; d < n; d++)
        if (pred_head[d] >= 0) {
            pe[2 * np] = d < pred_head[d] ? d : pred_head[d];
            pe[2 * np + 1] = d < pred_head[d] ? pred_head[d] : d;
            np++;
        }
    for (int d = 0; d < n; d++) {
        if (punct && punct[d]) continue;
        s.uas_total++;
        if (pred_head[d] == gold_head[d]) s.uas_correct++;
        if (gold_head[d] < 0) continue;
        s.uuas_dir_total++;
        if (edge_in(d, gold_head[d], pe, np)) s.uuas_dir_correct++;
    }
    free(pe);
    a->uas_correct += s.uas_correct; a->uas_total += s.uas_total;
    a->uuas_dir_correct += s.uuas_dir_correct; a->uuas_dir_total += s.uuas_dir_total;
    a->n_sent++;
    if (out) *out = s;
}

int prb_dep_add_undirected(struct prb_dep_acc *a, int n, const int *gold_head, const uint8_t *punct,
                           const int *edge, int np, struct prb_dep_sent *out, char *err, size_t errlen)
{
    struct prb_dep_sent s;
    memset(&s, 0, sizeof s);
    if (n > 0) {
        int *order = sp_xmalloc((size_t)n * sizeof *order);
        int *depth = sp_xmalloc((size_t)n * sizeof *depth);
        int *dist = sp_xmalloc((size_t)n * n * sizeof *dist);
        double *gd = sp_xmalloc((size_t)n * n * sizeof *gd);
        int *ge = sp_xmalloc((size_t)2 * n * sizeof *ge);
        int rc = tops_depth(n, gold_head, order, depth);
        if (rc == 0) {
            tops_distance(n, gold_head, order, dist);
            for (size_t k = 0; k < (size_t)n * n; k++) gd[k] = dist[k];
            int ng = prb_mst_edges(n, gd, punct, ge);
            s.uuas_mst_total = ng;
            for (int k = 0; k < ng; k++)
                if (edge_in(ge[2 * k], ge[2 * k + 1], edge, np)) s.uuas_mst_correct++;
        }
        free(ge); free(gd); free(dist); free(depth); free(order);
        if (rc != 0) {
            snprintf(err, errlen, "gold heads of a %d-word sentence are not one tree", n);
            return -1;
        }
    }
    a->uuas_mst_correct += s.uuas_mst_correct;
    a->uuas_mst_total += s.uuas_mst_total;
    a->n_sent++;
    if (out) *out = s;
    return 0;
}

int prb_dep_baselines_run(struct prb_dep_baselines *b, int n_sent, const int *len, const int *const *gold,
                          const uint8_t *const *punct, const uint64_t *seeds, int n_seeds,
                          char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    prb_dep_init(&b->right);
    prb_dep_init(&b->left);
    prb_dep_init(&b->adjacent);
    b->n_seeds = n_seeds;
    b->random_dir = sp_xcalloc((size_t)(n_seeds > 0 ? n_seeds : 1), sizeof *b->random_dir);
    b->random_und = sp_xcalloc((size_t)(n_seeds > 0 ? n_seeds : 1), sizeof *b->random_und);
    int maxn = 1;
    for (int s = 0; s < n_sent; s++) if (len[s] > maxn) maxn = len[s];
    int *head = sp_xmalloc((size_t)maxn * sizeof *head);
    int *edge = sp_xmalloc((size_t)2 * maxn * sizeof *edge);
    struct sp_splitmix *rd = sp_xmalloc((size_t)(n_seeds > 0 ? n_seeds : 1) * sizeof *rd);
    struct sp_splitmix *ru = sp_xmalloc((size_t)(n_seeds > 0 ? n_seeds : 1) * sizeof *ru);
    for (int k = 0; k < n_seeds; k++) { sp_splitmix_seed(&rd[k], seeds[k]); sp_splitmix_seed(&ru[k], seeds[k]); }
    char e2[200];
    int rc = 0;
    for (int s = 0; s < n_sent && rc == 0; s++) {
        int n = len[s];
        if (n <= 0) continue;
        prb_right_chain(n, head);
        prb_dep_add_directed(&b->right, n, gold[s], head, punct[s], NULL);
        prb_left_chain(n, head);
        prb_dep_add_directed(&b->left, n, gold[s], head, punct[s], NULL);
        int ne = prb_adjacent_edges(n, punct[s], edge);
        if (prb_dep_add_undirected(&b->adjacent, n, gold[s], punct[s], edge, ne, NULL, e2, sizeof e2) != 0) {
            snprintf(err, errlen, "sentence %d: %s", s + 1, e2);
            rc = -1;
            break;
        }
        for (int k = 0; k < n_seeds; k++) {
            prb_random_tree(&rd[k], n, head);
            prb_dep_add_directed(&b->random_dir[k], n, gold[s], head, punct[s], NULL);
            ne = prb_random_utree(&ru[k], n, punct[s], edge);
            prb_dep_add_undirected(&b->random_und[k], n, gold[s], punct[s], edge, ne, NULL, e2, sizeof e2);
        }
    }
    free(ru); free(rd); free(edge); free(head);
    return rc;
}

void prb_dep_baselines_free(struct prb_dep_baselines *b)
{
    free(b->random_dir);
    free(b->random_und);
    memset(b, 0, sizeof *b);
}

static double pct(long c, long t) { return t > 0 ? 100.0 * (double)c / (double)t : NAN; }
double prb_dep_uas(const struct prb_dep_acc *a) { return pct(a->uas_correct, a->uas_total); }
double prb_dep_uuas_dir(const struct prb_dep_acc *a) { return pct(a->uuas_dir_correct, a->uuas_dir_total); }
double prb_dep_uuas_mst(const struct prb_dep_acc *a) { return pct(a->uuas_mst_correct, a->uuas_mst_total); }
