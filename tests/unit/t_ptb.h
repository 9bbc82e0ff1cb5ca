/* tests/unit/t_ptb.h — a small PTB bracket reader for treeops tests, written independently
 * of ingest/ (so the treeops tests can check against a second implementation and do not
 * wait for the real reader). It follows docs/spec/structures.md §2.3: tokens are "(", ")" and runs of
 * other non-space characters; "-NONE-" preterminals are removed, then phrasal nodes left
 * without children; a wrapper (empty label, ROOT or TOP, exactly one child) is kept as
 * node 0, else one is added. The result is a struct sp_ctree in pre-order plus the words.
 * Iterative (explicit stack), no recursion. Not a validator: malformed input returns -1. */
#ifndef T_PTB_H
#define T_PTB_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/sentence.h"

struct t_ptb {
    struct sp_ctree tree;
    int n_words;
    char **words;
    char **labels;       /* owned copies, one per node */
};

static inline void t_ptb_free(struct t_ptb *p)
{
    for (int k = 0; k < p->tree.n_nodes; k++) free(p->labels[k]);
    for (int k = 0; k < p->n_words; k++) free(p->words[k]);
    free(p->labels); free(p->words); free(p->tree.node);
    memset(p, 0, sizeof *p);
}

/* raw parse node: a bracket (is_word = 0) or a word leaf (is_word = 1) */
struct t_raw { const char *s; size_t len; int parent, is_word, kept, n_kept; };

/* Parses the first tree of s[0..len). Returns the number of bytes consumed (> 0), 0 when no
 * tree is left, -1 on malformed input. */
static inline long t_ptb_parse(const char *s, size_t len, struct t_ptb *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 64, nr = 0, i = 0;
    struct t_raw *r = malloc(cap * sizeof *r);
    int *stack = malloc((len / 1 + 2) * sizeof(int)), sp = 0;
    int started = 0;
    while (i < len) {
        char c = s[i];
        if (isspace((unsigned char)c)) { i++; continue; }
        if (nr + 2 > cap) { cap *= 2; r = realloc(r, cap * sizeof *r); }
        if (c == '(') {
            started = 1;
            i++;
            /* optional label */
            size_t j = i;
            while (j < len && isspace((unsigned char)s[j])) j++;
            size_t k = j;
            while (k < len && !isspace((unsigned char)s[k]) && s[k] != '(' && s[k] != ')') k++;
            r[nr] = (struct t_raw){ s + j, k - j, sp ? stack[sp - 1] : -1, 0, 0, 0 };
            stack[sp++] = (int)nr++;
            i = k;
        } else if (c == ')') {
            if (!sp) goto bad;
            sp--;
            i++;
            if (sp == 0) break;                  /* the tree is complete */
        } else {
            if (!sp) goto bad;
            size_t k = i;
            while (k < len && !isspace((unsigned char)s[k]) && s[k] != '(' && s[k] != ')') k++;
            r[nr] = (struct t_raw){ s + i, k - i, stack[sp - 1], 1, 0, 0 };
            nr++;
            i = k;
        }
    }
    if (!started) { free(r); free(stack); return 0; }
    if (sp != 0) goto bad;

    /* removal, bottom-up: children come after their parent, so scan backwards */
    for (size_t k = nr; k-- > 0;) {
        if (r[k].is_word) {
            const struct t_raw *p = &r[r[k].parent];
            r[k].kept = !(p->len == 6 && memcmp(p->s, "-NONE-", 6) == 0);
        } else {
            r[k].kept = r[k].n_kept > 0 && !(r[k].len == 6 && memcmp(r[k].s, "-NONE-", 6) == 0);
        }
        if (r[k].kept && r[k].parent >= 0) r[r[k].parent].n_kept++;
    }
    if (!r[0].kept) goto bad;                     /* empty tree */
    int wrapped = (r[0].len == 0 || (r[0].len == 4 && memcmp(r[0].s, "ROOT", 4) == 0) ||
                   (r[0].len == 3 && memcmp(r[0].s, "TOP", 3) == 0)) && r[0].n_kept == 1;
    /* a preterminal can never be the wrapper: its one child is a word */
    for (size_t k = 1; k < nr && wrapped; k++)
        if (r[k].parent == 0 && r[k].kept && r[k].is_word) wrapped = 0;

    int nn = 0, nw = 0;
    for (size_t k = 0; k < nr; k++) {
        if (!r[k].kept) continue;
        if (r[k].is_word) nw++; else nn++;
    }
    if (!wrapped) nn++;
    struct sp_cnode *nd = calloc((size_t)nn, sizeof *nd);
    out->labels = calloc((size_t)nn, sizeof(char *));
    out->words = calloc((size_t)nw + 1, sizeof(char *));
    int *newid = malloc(nr * sizeof(int));
    int m = 0, w = 0;
    if (!wrapped) {
        nd[0] = (struct sp_cnode){ "", -1, -1, -1, 0, 0, 0, -1 };
        out->labels[0] = strdup("");
        m = 1;
    }
    for (size_t k = 0; k < nr; k++) {
        newid[k] = -1;
        if (!r[k].kept) continue;
        int par = r[k].parent >= 0 ? newid[r[k].parent] : (wrapped ? -1 : 0);
        if (r[k].is_word) {
            out->words[w] = strndup(r[k].s, r[k].len);
            nd[par].word = w;
            nd[par].start = nd[par].end = w;
            w++;
            continue;
        }
        newid[k] = m;
        out->labels[m] = strndup(r[k].s, r[k].len);
        nd[m] = (struct sp_cnode){ out->labels[m], par, -1, -1, 0, 0, 0, -1 };
        m++;
    }
    /* links and spans: children are contiguous in pre-order; walk backwards so that each
     * parent's first_child ends as its leftmost child */
    for (int k = nn - 1; k >= 1; k--) {
        int p = nd[k].parent;
        nd[k].next_sibling = nd[p].first_child;
        nd[p].first_child = k;
        nd[p].n_children++;
    }
    for (int k = nn - 1; k >= 0; k--) {
        if (nd[k].first_child < 0) continue;      /* preterminal: span set from its word */
        int c = nd[k].first_child, last = c;
        while (nd[last].next_sibling >= 0) last = nd[last].next_sibling;
        nd[k].start = nd[c].start;
        nd[k].end = nd[last].end;
    }
    out->tree.n_nodes = nn;
    out->tree.node = nd;
    out->n_words = nw;
    free(newid); free(r); free(stack);
    return (long)i;
bad:
    free(r); free(stack);
    return -1;
}

/* Parse a string that holds exactly one tree; aborts the test program on failure. */
static inline struct t_ptb t_ptb_one(const char *s)
{
    struct t_ptb p;
    if (t_ptb_parse(s, strlen(s), &p) <= 0) {
        fprintf(stderr, "t_ptb: cannot parse %s\n", s);
        abort();
    }
    return p;
}

#endif
