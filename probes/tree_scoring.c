/* probes/tree_scoring.c — baseline trees and Protocol A/B scoring (docs/spec/probing.md §5), see trees.h.
 *
 * Protocol A does not re-implement EVALB: it writes the bracket lines EVALB would read and
 * hands them to the EVALB core of probes/evalb.h with COLLINS.prm settings and LABELED 0, so
 * the two can never drift apart. Protocol B is the standard unsupervised-parsing scoring,
 * done here on span sets. */
#include "probes/tree_scoring.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probes/evalb.h"
#include "treeops/treeops.h"

/* ---- baselines ---- */

int prb_tree_right(int n, int *span)
{
    int k = 0;
    for (int i = 0; i + 1 < n; i++, k++) { span[2 * k] = i; span[2 * k + 1] = n - 1; }
    return k;
}

int prb_tree_left(int n, int *span)
{
    int k = 0;
    for (int j = n - 1; j >= 1; j--, k++) { span[2 * k] = 0; span[2 * k + 1] = j; }
    return k;
}

int prb_tree_random(int n, struct sp_rng *r, int *span)
{
    if (n < 2) return 0;
    /* explicit stack of pending spans; pushing right before left visits in pre-order, so
     * the draws happen in the order a recursive top-down split would make them */
    int *stack = sp_xmalloc(2 * (size_t)n * sizeof *stack);
    int top = 0, k = 0;
    stack[top++] = 0; stack[top++] = n - 1;
    while (top) {
        int j = stack[--top], i = stack[--top];
        if (j <= i) continue;
        span[2 * k] = i; span[2 * k + 1] = j; k++;
        int split = i + (int)sp_rng_below(r, (uint64_t)(j - i));
        stack[top++] = split + 1; stack[top++] = j;     /* right, popped second */
        stack[top++] = i; stack[top++] = split;         /* left, popped first */
    }
    free(stack);
    return k;
}

int prb_tree_random_words(int n, const char *const *tag, struct sp_rng *r, int *span)
{
    int *pos = sp_xmalloc(((size_t)n + 1) * sizeof *pos);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!prb_protb_punct_tag(tag[i])) pos[m++] = i;
    int k = prb_tree_random(m, r, span);
    for (int x = 0; x < 2 * k; x++) span[x] = pos[span[x]];
    free(pos);
    return k;
}

/* Gold spans, right-factored, unary chains collapsed. An iterative pre-order walk over the
 * parent/first_child/next_sibling links: tree depth is input-controlled (a 150,000-deep
 * unary chain is a valid .mrg), so no recursion. */
int prb_tree_gold(const struct sp_ctree *t, int n, int *span)
{
    if (n < 2 || !t || t->n_nodes == 0) return 0;
    int k = 0, x = 0;
    for (;;) {
        const struct sp_cnode *nd = &t->node[x];
        int p = nd->parent;
        /* right factoring: before child 2..k-1, the node over it and everything after it */
        if (x != 0 && p >= 0 && t->node[p].first_child != x && nd->next_sibling >= 0) {
            span[2 * k] = nd->start; span[2 * k + 1] = t->node[p].end; k++;
        }
        if (nd->first_child >= 0 && nd->start < nd->end) {       /* not preterminal / one word */
            if (nd->n_children != 1) {                           /* unary chains collapse */
                span[2 * k] = nd->start; span[2 * k + 1] = nd->end; k++;
            }
            x = nd->first_child;
            continue;
        }
        /* subtree done: climb while we are the last child */
        for (;;) {
            if (x == 0) return k;
            if (t->node[x].next_sibling >= 0) { x = t->node[x].next_sibling; break; }
            x = t->node[x].parent;
            if (x < 0) return k;
        }
    }
}

/* ---- bracket lines ---- */

int prb_gold_tags(const struct sp_sentence *s, const char **tag)
{
    if (!s->tree) return -1;
    for (int i = 0; i < s->n; i++) tag[i] = NULL;
    for (int x = 0; x < s->tree->n_nodes; x++) {
        const struct sp_cnode *nd = &s->tree->node[x];
        if (nd->word < 0) continue;
        if (nd->word >= s->n || tag[nd->word]) return -1;
        tag[nd->word] = nd->label;
    }
    for (int i = 0; i < s->n; i++)
        if (!tag[i]) return -1;
    return 0;
}

static int cmp_span_outer_first(const void *a, const void *b)
{
    const int *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] < y[1]) - (x[1] > y[1]);          /* longer first */
}

void prb_tree_line(const struct sp_sentence *s, const char *const *tag, int n_span, const int *span,
                   struct sp_buf *out)
{
    int *sp = sp_xmalloc(2 * (size_t)(n_span + 1) * sizeof *sp);
    memcpy(sp, span, 2 * (size_t)n_span * sizeof *sp);
    qsort(sp, (size_t)n_span, 2 * sizeof *sp, cmp_span_outer_first);
    /* closers[i]: brackets that end at word i */
    int *closers = sp_xcalloc((size_t)s->n + 1, sizeof *closers);
    for (int k = 0; k < n_span; k++) closers[sp[2 * k + 1]]++;
    sp_buf_puts(out, "(TOP");
    int k = 0;
    for (int i = 0; i < s->n; i++) {
        for (; k < n_span && sp[2 * k] == i; k++) sp_buf_puts(out, " (X");
        sp_buf_printf(out, " (%s %s)", tag[i], s->col[SP_FORM][i]);
        for (int c = 0; c < closers[i]; c++) sp_buf_puts(out, ")");
    }
    sp_buf_puts(out, ")");
    free(closers);
    free(sp);
}

/* Iterative pre-order walk (no recursion on input-controlled depth), as tops_tree_format. */
void prb_gold_line(const struct sp_sentence *s, struct sp_buf *out)
{
    const struct sp_ctree *t = s->tree;
    if (!t || t->n_nodes <= 0) return;
    int x = 0;
    for (;;) {
        const struct sp_cnode *nd = &t->node[x];
        const char *label = x == 0 && (!nd->label || !*nd->label) ? "TOP" : nd->label;   /* A25 */
        if (nd->word >= 0) {
            sp_buf_printf(out, "(%s %s)", label, s->col[SP_FORM][nd->word]);
        } else {
            sp_buf_printf(out, "(%s", label);
            if (nd->first_child >= 0) { sp_buf_puts(out, " "); x = nd->first_child; continue; }
            sp_buf_puts(out, ")");
        }
        /* x is closed: climb, closing each parent whose last child it was */
        for (;;) {
            if (x == 0) return;
            if (t->node[x].next_sibling >= 0) { sp_buf_puts(out, " "); x = t->node[x].next_sibling; break; }
            x = t->node[x].parent;
            if (x < 0) return;
            sp_buf_puts(out, ")");
        }
    }
}

/* ---- Protocol B ---- */

int prb_protb_punct_tag(const char *t)
{
    static const char *const tags[] = { ",", ".", ":", "``", "''", "-LRB-", "-RRB-", "#", "$" };
    for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++)
        if (!strcmp(t, tags[k])) return 1;
    return 0;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Project spans over all tokens onto the m kept words (before[i] = kept words before token
 * i), drop single-word and whole-sentence spans, encode as a*m+b, sort, deduplicate. */
static int project(int n_span, const int *span, const int *before, int m, long *code)
{
    int k = 0;
    for (int x = 0; x < n_span; x++) {
        int a = before[span[2 * x]], b = before[span[2 * x + 1] + 1] - 1;
        if (b - a + 1 < 2 || b - a + 1 == m) continue;
        code[k++] = (long)a * m + b;
    }
    qsort(code, (size_t)k, sizeof *code, cmp_long);
    int u = 0;
    for (int x = 0; x < k; x++)
        if (!u || code[u - 1] != code[x]) code[u++] = code[x];
    return u;
}

void prb_protb_sentence(int n, const char *const *tag, const struct sp_ctree *gold,
                        int n_span, const int *span, struct prb_protb_sent *out)
{
    memset(out, 0, sizeof *out);
    int *before = sp_xmalloc(((size_t)n + 1) * sizeof *before);
    before[0] = 0;
    for (int i = 0; i < n; i++) before[i + 1] = before[i] + !prb_protb_punct_tag(tag[i]);
    int m = out->m = before[n];
    if (m >= 3) {
        out->scored = 1;
        int ng = tops_brackets(gold, NULL, 0);
        int *gspan = sp_xmalloc(2 * (size_t)(ng + 1) * sizeof *gspan);
        tops_brackets(gold, gspan, ng);
        long *pc = sp_xmalloc((size_t)(n_span + 1) * sizeof *pc);
        long *gc = sp_xmalloc((size_t)(ng + 1) * sizeof *gc);
        int np = project(n_span, span, before, m, pc);
        int ngs = project(ng, gspan, before, m, gc);
        int match = 0;
        for (int x = 0, y = 0; x < np && y < ngs;) {
            if (pc[x] == gc[y]) { match++; x++; y++; }
            else if (pc[x] < gc[y]) x++;
            else y++;
        }
        out->n_pred = np; out->n_gold = ngs; out->n_match = match;
        out->f1 = match ? 2.0 * match / (np + ngs) : 0.0;
        free(gc); free(pc); free(gspan);
    }
    free(before);
}

/* ---- Protocol A: EVALB core, COLLINS.prm with LABELED 0 ---- */

/* The gold tree into the EVALB core: an iterative pre-order walk (no recursion on depth). */
static void evalb_gold(struct prb_evalb_tree *et, const struct prb_evalb_params *p,
                       const struct sp_sentence *s)
{
    const struct sp_ctree *t = s->tree;
    int x = 0;
    for (;;) {
        const struct sp_cnode *nd = &t->node[x];
        if (nd->word >= 0) {
            const char *w = s->col[SP_FORM][nd->word];
            prb_evalb_tree_term(et, p, nd->label, strlen(nd->label), w, strlen(w));
        } else {
            const char *label = x == 0 && !*nd->label ? "TOP" : nd->label;   /* A25 */
            prb_evalb_tree_open(et, label, strlen(label));
            if (nd->first_child >= 0) { x = nd->first_child; continue; }
            prb_evalb_tree_close(et);
        }
        for (;;) {
            if (x == 0) return;
            if (t->node[x].next_sibling >= 0) { x = t->node[x].next_sibling; break; }
            x = t->node[x].parent;
            if (x < 0) return;
            prb_evalb_tree_close(et);
        }
    }
}

/* The test tree of prb_tree_line, built without going through text. */
static void evalb_test(struct prb_evalb_tree *et, const struct prb_evalb_params *p,
                       const struct sp_sentence *s, const char *const *tag, int n_span, int *sp,
                       int *closers)
{
    qsort(sp, (size_t)n_span, 2 * sizeof *sp, cmp_span_outer_first);
    memset(closers, 0, (size_t)s->n * sizeof *closers);
    for (int k = 0; k < n_span; k++) closers[sp[2 * k + 1]]++;
    prb_evalb_tree_open(et, "TOP", 3);
    int k = 0;
    for (int i = 0; i < s->n; i++) {
        for (; k < n_span && sp[2 * k] == i; k++) prb_evalb_tree_open(et, "X", 1);
        const char *w = s->col[SP_FORM][i];
        prb_evalb_tree_term(et, p, tag[i], strlen(tag[i]), w, strlen(w));
        for (int c = 0; c < closers[i]; c++) prb_evalb_tree_close(et);
    }
    prb_evalb_tree_close(et);
}

/* ---- accumulator ---- */

struct prb_trees_acc {
    int a_max_words;
    struct prb_evalb_params params;
    struct prb_evalb_tree gold, test;
    struct prb_evalb_work work;
    struct prb_evalb_acc evalb;
    long a_skipped_long;
    /* Protocol B per subset: sum of sentence F1, sentences, summed set sizes */
    double b_f1_sum[PRB_N_SUB];
    double b_bin_sum[PRB_N_LENBIN];
    long b_bin_n[PRB_N_LENBIN];
    long b_n[PRB_N_SUB], b_match[PRB_N_SUB], b_pred[PRB_N_SUB], b_gold[PRB_N_SUB];
    long n_sentences;
    /* scratch */
    int cap;
    const char **tag;
    int *sp, *closers;
};

struct prb_trees_acc *prb_trees_new(int a_max_words)
{
    struct prb_trees_acc *a = sp_xcalloc(1, sizeof *a);
    a->a_max_words = a_max_words;
    prb_evalb_params_init(&a->params);
    prb_evalb_params_collins(&a->params);
    a->params.labeled = 0;
    prb_evalb_tree_init(&a->gold);
    prb_evalb_tree_init(&a->test);
    prb_evalb_work_init(&a->work);
    prb_evalb_acc_init(&a->evalb, a->params.cutoff_len);
    return a;
}

void prb_trees_delete(struct prb_trees_acc *a)
{
    if (!a) return;
    prb_evalb_params_free(&a->params);
    prb_evalb_tree_free(&a->gold);
    prb_evalb_tree_free(&a->test);
    prb_evalb_work_free(&a->work);
    free(a->tag);
    free(a->sp);
    free(a->closers);
    free(a);
}

int prb_trees_add(struct prb_trees_acc *a, const struct sp_sentence *s, int n_span, const int *span,
                  char *err, size_t errlen)
{
    return prb_trees_add_ab(a, s, n_span, span, n_span, span, err, errlen);
}

static int spans_ok(int n, int n_span, const int *span, char *err, size_t errlen)
{
    for (int k = 0; k < n_span; k++)
        if (span[2 * k] < 0 || span[2 * k] > span[2 * k + 1] || span[2 * k + 1] >= n) {
            snprintf(err, errlen, "bracket (%d, %d) outside the %d words", span[2 * k], span[2 * k + 1], n);
            return 0;
        }
    return 1;
}

int prb_trees_add_ab(struct prb_trees_acc *a, const struct sp_sentence *s, int n_a, const int *span_a,
                     int n_b, const int *span_b, char *err, size_t errlen)
{
    int n_span = n_a > n_b ? n_a : n_b;
    if (!s->tree || s->tree->n_nodes == 0 || s->n <= 0) {
        snprintf(err, errlen, "sentence has no constituency tree");
        return -1;
    }
    if (s->n > a->cap || n_span > a->cap) {
        a->cap = s->n > n_span ? s->n : n_span;
        a->tag = sp_xrealloc(a->tag, (size_t)a->cap * sizeof *a->tag);
        a->sp = sp_xrealloc(a->sp, 2 * (size_t)a->cap * sizeof *a->sp);
        a->closers = sp_xrealloc(a->closers, (size_t)a->cap * sizeof *a->closers);
    }
    if (prb_gold_tags(s, a->tag) != 0) {
        snprintf(err, errlen, "constituency tree does not cover the %d words once each", s->n);
        return -1;
    }
    if (!spans_ok(s->n, n_a, span_a, err, errlen) || !spans_ok(s->n, n_b, span_b, err, errlen)) return -1;
    a->n_sentences++;

    /* Protocol A */
    prb_evalb_tree_reset(&a->gold);
    prb_evalb_tree_reset(&a->test);
    evalb_gold(&a->gold, &a->params, s);
    if (a->a_max_words > 0 && a->gold.length > a->a_max_words) {
        a->a_skipped_long++;
    } else {
        memcpy(a->sp, span_a, 2 * (size_t)n_a * sizeof *span_a);
        evalb_test(&a->test, &a->params, s, a->tag, n_a, a->sp, a->closers);
        struct prb_evalb_sent es;
        prb_evalb_score(&a->params, &a->gold, &a->test, &a->work, &es);
        prb_evalb_acc_add(&a->evalb, &es);
    }

    /* Protocol B */
    struct prb_protb_sent b;
    prb_protb_sentence(s->n, a->tag, s->tree, n_b, span_b, &b);
    if (b.scored) {
        int bin = prb_lenbin(b.m);
        if (bin >= 0) { a->b_bin_sum[bin] += b.f1; a->b_bin_n[bin]++; }
        for (int sub = 0; sub < PRB_N_SUB; sub++) {
            if ((sub == PRB_SUB_LE40 && b.m > 40) || (sub == PRB_SUB_LE10 && b.m > 10)) continue;
            a->b_f1_sum[sub] += b.f1;
            a->b_n[sub]++;
            a->b_match[sub] += b.n_match;
            a->b_pred[sub] += b.n_pred;
            a->b_gold[sub] += b.n_gold;
        }
    }
    return 0;
}

static void prf_from(const struct prb_evalb_totals *t, struct prb_prf *out)
{
    struct prb_evalb_summary s;
    prb_evalb_summarize(t, &s);
    out->n_valid = s.n_valid;
    out->recall = s.n_valid ? s.recall : NAN;
    out->precision = s.n_valid ? s.precision : NAN;
    out->fmeasure = s.n_valid ? s.fmeasure : NAN;
}

void prb_trees_result(const struct prb_trees_acc *a, struct prb_trees_result *r)
{
    memset(r, 0, sizeof *r);
    prf_from(&a->evalb.all, &r->a_all);
    prf_from(&a->evalb.cut, &r->a_le40);
    for (int sub = 0; sub < PRB_N_SUB; sub++) {
        r->b_n[sub] = a->b_n[sub];
        r->b_sent_f1[sub] = a->b_n[sub] ? 100.0 * a->b_f1_sum[sub] / a->b_n[sub] : NAN;
        long den = a->b_pred[sub] + a->b_gold[sub];
        r->b_corpus_f1[sub] = den ? 100.0 * 2.0 * a->b_match[sub] / den : NAN;
    }
    for (int k = 0; k < PRB_N_LENBIN; k++) {
        r->b_bin_n[k] = a->b_bin_n[k];
        r->b_bin_f1[k] = a->b_bin_n[k] ? 100.0 * a->b_bin_sum[k] / a->b_bin_n[k] : NAN;
    }
    r->n_sentences = a->n_sentences;
    r->a_skipped_long = a->a_skipped_long;
}

int prb_lenbin(int m) { return m < 3 ? -1 : m <= 10 ? 0 : m > 50 ? PRB_N_LENBIN - 1 : (m - 1) / 10; }
int prb_lenbin_lo(int bin) { return bin == 0 ? 3 : 10 * bin + 1; }
