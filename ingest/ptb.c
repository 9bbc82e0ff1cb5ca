/* ingest/ptb.c — PTB bracketed trees (`.mrg`, docs/spec/structures.md §2.3).
 *
 * Tokens are "(", ")" and runs of other non-space bytes. The chunk is copied into the batch
 * arena twice: a pristine copy for raw/raw_len and a work copy in which each word token is
 * NUL-terminated in place (the delimiter it overwrites, when it is a parenthesis, is kept as a
 * pending token), so labels and words are strings without any allocation.
 *
 * Every tree is read without recursion (an explicit parent chain), so a 10,000-deep tree is
 * fine. Raw nodes come out in pre-order; normalisation (drop -NONE- preterminals, then phrasal
 * nodes left without children) is one reverse pass, because in pre-order every child follows
 * its parent. Dropping nodes from a pre-order list leaves a pre-order list, which is what
 * struct sp_ctree stores. The mode does not change anything for this format.
 *
 * Recovery from a missing ')'. A '(' that is the first byte of a line, met inside a tree that
 * is still open and already has at least one word, starts a new top-level tree: the open tree
 * ends there and is rejected ("unbalanced parentheses: k unclosed when the next tree starts at
 * line L") with its text up to that line, and reading goes on with the new tree. So one missing
 * ')' costs one tree, not the rest of the file. Treebanks in PTB layout indent every line inside
 * a tree after its first word (WSJ .mrg files do; "(\n(S ..." with the opening alone on a line
 * is fine); a tree with a line starting with '(' after a word gets rejected with that message,
 * never silently cut. ing_chunk_end applies the same rule. */
#include <limits.h>
#include <string.h>

#include "ingest/ing_int.h"
#include "ingest/readers.h"

struct scan {
    char *w;            /* work copy, w[len] == 0 */
    const char *raw;    /* pristine copy (the work copy loses newlines that end words) */
    size_t p, len;
    long line;
    int pend;           /* a parenthesis overwritten by the NUL that ended the previous word */
    int col0;           /* the last TK_OPEN was the first byte of its line */
};

enum { TK_END = 0, TK_OPEN = '(', TK_CLOSE = ')', TK_WORD = 'w' };

/* byte classes: 0 word byte, 1 space, 2 newline, 3 parenthesis, 4 NUL (end of the work copy) */
static const unsigned char cls[256] = {
    [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\f'] = 1, ['\v'] = 1, ['\n'] = 2, ['('] = 3, [')'] = 3, [0] = 4,
};

static int next_tok(struct scan *s, char **word, long *line)
{
    s->col0 = 0;
    if (s->pend) { int c = s->pend; s->pend = 0; *line = s->line; return c; }
    const unsigned char *w = (const unsigned char *)s->w;
    size_t p = s->p;
    for (;;) {
        unsigned k = cls[w[p]];
        if (k == 1) { p++; continue; }
        if (k == 2) { s->line++; p++; continue; }
        if (k == 4 && p >= s->len) { s->p = p; *line = s->line; return TK_END; }
        break;
    }
    *line = s->line;
    if (cls[w[p]] == 3) {
        s->p = p + 1;
        s->col0 = w[p] == '(' && (p == 0 || s->raw[p - 1] == '\n');
        return w[p];
    }
    size_t q = p;
    while (cls[w[q]] == 0) q++;
    *word = s->w + p;
    if (q < s->len) {
        unsigned char d = w[q];
        if (d == '(' || d == ')') s->pend = d;
        else if (d == '\n') s->line++;
        s->w[q] = 0;
        s->p = q + 1;
    } else {
        s->p = q;                                  /* w[len] is already 0 */
    }
    return TK_WORD;
}

struct rnode {
    const char *label;
    const char *word;   /* the word child, if any */
    int parent;
    int ntree, nword;   /* children of each kind */
};

struct pp {
    struct ing_batch *out;
    const char *raw;
    struct scan sc;
    struct rnode *nd; int nd_cap;
    int *keepk, *newidx, *last; unsigned char *keep; int aux_cap;
    char msg[256];
};

static void grow_nodes(struct pp *P, int n)
{
    if (n < P->nd_cap) return;
    P->nd_cap = P->nd_cap ? P->nd_cap * 2 : 1024;
    P->nd = sp_xrealloc(P->nd, (size_t)P->nd_cap * sizeof *P->nd);
}

static void grow_aux(struct pp *P, int n)
{
    if (n <= P->aux_cap) return;
    int cap = P->aux_cap ? P->aux_cap : 1024;
    while (cap < n) cap *= 2;
    P->keepk = sp_xrealloc(P->keepk, (size_t)cap * sizeof *P->keepk);
    P->newidx = sp_xrealloc(P->newidx, (size_t)cap * sizeof *P->newidx);
    P->last = sp_xrealloc(P->last, (size_t)cap * sizeof *P->last);
    P->keep = sp_xrealloc(P->keep, (size_t)cap);
    P->aux_cap = cap;
}

static struct ing_item *reject_item(struct pp *P, size_t off, size_t end, long line, long eline, const char *msg)
{
    struct ing_item *it = ing__new_item(P->out);
    it->raw = P->raw + off;
    it->raw_len = end - off;
    it->s.line = line;
    it->error = sp_arena_strdup(&P->out->arena, msg);
    it->error_line = eline;
    return it;
}

static const char *show(const char *label) { return label[0] ? label : "(no label)"; }

/* Normalisation: which of the n raw nodes stay (P->keep) and how many kept children each has
 * (P->keepk): -NONE- preterminals go, then phrasal nodes left without children. Reverse
 * pre-order = children before parents. */
static void mark_kept(struct pp *P, int n)
{
    struct rnode *nd = P->nd;
    int *keepk = P->keepk;
    memset(keepk, 0, (size_t)n * sizeof *keepk);
    for (int i = n - 1; i >= 0; i--) {
        int k = nd[i].nword ? strcmp(nd[i].label, "-NONE-") != 0 : keepk[i] > 0;
        P->keep[i] = (unsigned char)k;
        if (k && nd[i].parent >= 0) keepk[nd[i].parent]++;
    }
}

/* The sentence item of a kept tree of nw words and `total` nodes: FORM and XPOS columns (the
 * others "_") and an empty node array, filled by link_nodes */
static struct sp_sentence *new_tree_sentence(struct pp *P, int nw, int total, size_t off, size_t end, long line0)
{
    struct sp_arena *A = &P->out->arena;
    struct ing_item *it = ing__new_item(P->out);
    struct sp_sentence *s = &it->s;
    it->raw = P->raw + off;
    it->raw_len = end - off;
    s->line = line0;
    s->n = nw;
    const char **form = sp_arena_alloc(A, 2 * (size_t)(nw ? nw : 1) * sizeof *form);
    const char **us = ing__underscores(P->out, nw);
    for (int c = 0; c < SP_NCOLS; c++) s->col[c] = us;
    s->col[SP_FORM] = form;
    s->col[SP_XPOS] = form + nw;
    struct sp_ctree *t = sp_arena_alloc(A, sizeof *t);
    t->n_nodes = total;
    t->node = sp_arena_alloc(A, (size_t)total * sizeof *t->node);
    s->tree = t;
    return s;
}

/* The kept raw nodes, in pre-order, as s's tree nodes (under an added unlabelled root unless
 * the tree has its own wrapper), children linked in order, words numbered */
static void link_nodes(struct pp *P, int n, int wrapper, struct sp_sentence *s)
{
    struct rnode *nd = P->nd;
    struct sp_cnode *cn = s->tree->node;
    int *last = P->last, o = 0, w = 0;
    if (!wrapper) {
        cn[0] = (struct sp_cnode){ .label = "", .parent = -1, .first_child = -1, .next_sibling = -1,
                                   .start = INT_MAX, .end = -1, .word = -1 };
        last[0] = -1;
        o = 1;
    }
    for (int i = 0; i < n; i++) {
        if (!P->keep[i]) continue;
        int j = o++;
        P->newidx[i] = j;
        int par = nd[i].parent >= 0 ? P->newidx[nd[i].parent] : (wrapper ? -1 : 0);
        struct sp_cnode *c = &cn[j];
        c->label = nd[i].label;
        c->parent = par;
        c->first_child = c->next_sibling = -1;
        c->n_children = 0;
        last[j] = -1;
        if (nd[i].nword) {
            c->word = c->start = c->end = w;
            s->col[SP_FORM][w] = nd[i].word;
            s->col[SP_XPOS][w] = nd[i].label;
            w++;
        } else {
            c->word = -1;
            c->start = INT_MAX;
            c->end = -1;
        }
        if (par >= 0) {
            if (last[par] < 0) cn[par].first_child = j;
            else cn[last[par]].next_sibling = j;
            last[par] = j;
            cn[par].n_children++;
        }
    }
}

/* Build the sentence of a well-formed tree of n raw nodes. */
static void emit_tree(struct pp *P, int n, size_t off, size_t end, long line0)
{
    struct rnode *nd = P->nd;
    grow_aux(P, n + 1);
    mark_kept(P, n);
    if (!P->keep[0]) {
        struct ing_item *it = reject_item(P, off, end, line0, line0,
                                          "tree is empty after removing -NONE- elements (dropped, W_EMPTYTREE)");
        it->s.warn = SP_W_EMPTYTREE;
        return;
    }
    const char *r = nd[0].label;
    int wrapper = nd[0].nword == 0 && P->keepk[0] == 1 &&
                  (r[0] == 0 || strcmp(r, "ROOT") == 0 || strcmp(r, "TOP") == 0);
    int m = 0, nw = 0;
    for (int i = 0; i < n; i++)
        if (P->keep[i]) { m++; nw += nd[i].nword; }
    int total = m + !wrapper;
    if (ing__too_long(P->out, nw, P->msg, sizeof P->msg)) {
        reject_item(P, off, end, line0, line0, P->msg);
        return;
    }
    struct sp_sentence *s = new_tree_sentence(P, nw, total, off, end, line0);
    link_nodes(P, n, wrapper, s);
    /* spans, children before parents */
    struct sp_cnode *cn = s->tree->node;
    for (int j = total - 1; j > 0; j--) {
        struct sp_cnode *p = &cn[cn[j].parent];
        if (cn[j].start < p->start) p->start = cn[j].start;
        if (cn[j].end > p->end) p->end = cn[j].end;
    }
}

/* One tree being read: where it started, its first problem, and the parse position */
struct tree_rd {
    long line0, eline;          /* the tree's first line; the line its problem is reported at */
    const char *bad;            /* the first problem (P->msg or a constant), or NULL */
    int n, cur, depth;          /* raw nodes so far, the open node, open parentheses */
    int want_label, reopen, seen_word;
};

/* '(' inside a tree: a new child of the open node, unless that node cannot have subtrees */
static inline void tree_open(struct pp *P, struct tree_rd *T, long tline)
{
    T->depth++;
    if (T->bad) return;
    struct rnode *pa = &P->nd[T->cur];
    if (strcmp(pa->label, "-NONE-") == 0) {
        snprintf(P->msg, sizeof P->msg, "-NONE- node has subtrees (expected one trace word)");
        T->bad = P->msg;
        T->eline = tline;
        return;
    }
    if (pa->nword) {
        snprintf(P->msg, sizeof P->msg, "node %s mixes a word and subtrees (expected one or the other)", show(pa->label));
        T->bad = P->msg;
        T->eline = tline;
        return;
    }
    pa->ntree++;
    grow_nodes(P, T->n);
    P->nd[T->n] = (struct rnode){ .label = "", .parent = T->cur };
    T->cur = T->n++;
    T->want_label = 1;
}

/* ')' inside a tree: closes the open node, which must have a child; 1 when it closed the tree */
static inline int tree_close(struct pp *P, struct tree_rd *T, long tline)
{
    T->depth--;
    if (!T->bad) {
        struct rnode *c = &P->nd[T->cur];
        if (c->ntree + c->nword == 0) {
            snprintf(P->msg, sizeof P->msg, "node %s has no children (expected a word or subtrees)", show(c->label));
            T->bad = P->msg;
            T->eline = tline;
        } else {
            T->cur = c->parent;
        }
    }
    return T->depth == 0;
}

/* A word after the open node's label: its one word, unless it already has a child */
static inline void tree_word(struct pp *P, struct tree_rd *T, char *word, long tline)
{
    struct rnode *c = &P->nd[T->cur];
    if (c->ntree || c->nword) {
        snprintf(P->msg, sizeof P->msg, c->ntree ? "node %s mixes a word and subtrees (expected one or the other)"
                                                 : "node %s has more than one word (expected exactly one)",
                 show(c->label));
        T->bad = P->msg;
        T->eline = tline;
        return;
    }
    c->word = word;
    c->nword = 1;
}

/* The tokens of a tree after its '(' into raw nodes P->nd[0..T->n), up to the ')' that closes
 * it, the end of the chunk, or a '(' in the first column after a word (T->reopen: the next
 * tree starts there). Returns that token; *word and *tline as next_tok left them. After a
 * problem the tree is only scanned to its end. */
static int read_tree(struct pp *P, struct tree_rd *T, char **word, long *tline)
{
    for (;;) {
        int tok = next_tok(&P->sc, word, tline);
        if (tok == TK_END) {
            snprintf(P->msg, sizeof P->msg, "unbalanced parentheses: %d unclosed", T->depth);
            T->bad = P->msg;
            T->eline = T->line0;
            return tok;
        }
        if (tok == TK_WORD && T->want_label) {
            if (!T->bad) P->nd[T->cur].label = *word;
            T->want_label = 0;
            continue;
        }
        T->want_label = 0;
        if (tok == TK_WORD) T->seen_word = 1;
        if (tok == TK_OPEN && P->sc.col0 && T->seen_word) {
            /* a '(' in the first column of a line starts the next tree: this one lacks
             * `depth` closing parentheses and ends here (recovery, see the header) */
            snprintf(P->msg, sizeof P->msg, "unbalanced parentheses: %d unclosed when the next tree starts at "
                     "line %ld (a '(' in the first column of a line starts a tree)", T->depth, *tline);
            T->bad = P->msg;
            T->eline = T->line0;
            T->reopen = 1;
            return tok;
        }
        if (tok == TK_OPEN) tree_open(P, T, *tline);
        else if (tok == TK_CLOSE) { if (tree_close(P, T, *tline)) return tok; }
        else if (!T->bad) tree_word(P, T, *word, *tline);
    }
}

/* A tree: '(' [label] child+ ')', its '(' just read at line *tline: a sentence or a rejected
 * item. Returns the token after it (the '(' of the next tree when this one was cut short). */
static int parse_tree(struct pp *P, char **word, long *tline)
{
    size_t off = P->sc.p - 1;
    struct tree_rd T = { .line0 = *tline, .n = 1, .depth = 1, .want_label = 1 };
    grow_nodes(P, 0);
    P->nd[0] = (struct rnode){ .label = "", .parent = -1 };
    int tok = read_tree(P, &T, word, tline);
    size_t end = tok == TK_END ? P->sc.len : T.reopen ? P->sc.p - 1 : P->sc.p;
    if (!T.bad && !sp_utf8_valid(P->raw + off, end - off)) {
        T.bad = "invalid UTF-8 (expected UTF-8 text)";
        T.eline = T.line0;
    }
    if (T.bad) reject_item(P, off, end, T.line0, T.eline, T.bad);
    else emit_tree(P, T.n, off, end, T.line0);
    if (tok != TK_END && !T.reopen) tok = next_tok(&P->sc, word, tline);
    return tok;
}

/* A run of words outside any tree, its first just read: one rejected item. Returns the token
 * after the run. */
static int reject_word_run(struct pp *P, char **word, long *tline)
{
    size_t at = (size_t)(*word - P->sc.w), end;
    long l0 = *tline;
    int tok;
    snprintf(P->msg, sizeof P->msg, "expected '(' to start a tree, got '%.40s'", *word);
    do {
        end = (size_t)(*word - P->sc.w) + strlen(*word);
        tok = next_tok(&P->sc, word, tline);
    } while (tok == TK_WORD);
    reject_item(P, at, end, l0, l0, P->msg);
    return tok;
}

int ing__parse_ptb(enum sp_mode mode, const char *buf, size_t len, long first_line,
                   struct ing_batch *out, char *err, size_t errlen)
{
    (void)mode; (void)err; (void)errlen;
    struct pp P;
    memset(&P, 0, sizeof P);
    P.out = out;
    char *raw = sp_arena_alloc(&out->arena, len + 1);
    memcpy(raw, buf, len);
    P.raw = raw;
    P.sc.w = sp_arena_alloc(&out->arena, len + 1);
    memcpy(P.sc.w, buf, len);
    P.sc.raw = raw;
    P.sc.len = len;
    P.sc.line = first_line;

    char *word = NULL;
    long tline;
    int tok = next_tok(&P.sc, &word, &tline);
    while (tok != TK_END) {
        if (tok == TK_CLOSE) {
            size_t at = P.sc.p - 1;
            reject_item(&P, at, at + 1, tline, tline, "unbalanced parentheses: unexpected ')' outside a tree");
            tok = next_tok(&P.sc, &word, &tline);
        } else if (tok == TK_WORD) {
            tok = reject_word_run(&P, &word, &tline);
        } else {
            tok = parse_tree(&P, &word, &tline);
        }
    }
    free(P.nd); free(P.keepk); free(P.newidx); free(P.last); free(P.keep);
    return SP_OK;
}
