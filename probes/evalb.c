/* probes/evalb.c — EVALB re-implementation (docs/spec/probing.md §4): parameters, tree reading with an
 * explicit stack, scoring, totals and EVALB's exact text formats.
 *
 * Differences from the 1997/2006 binary, all deliberate: no limits on words, brackets, label or
 * word length, line length or quote terminals; malformed trees are reported (file:line:column)
 * instead of looping on "Reading sentence"; whitespace between a word and its ')' is accepted. */
#include "probes/evalb.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

static int is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static int is_term(unsigned char c) { return is_space(c) || c == '(' || c == ')'; }

static int str_eq(const char *a, size_t na, const char *b, size_t nb)
{
    return na == nb && memcmp(a, b, na) == 0;
}

static int in_names(const struct prb_evalb_names *l, const char *s, size_t n)
{
    for (size_t i = 0; i < l->n; i++)
        if (str_eq(l->v[i].s, l->v[i].n, s, n)) return 1;
    return 0;
}

/* EVALB's label_comp / word_comp: equal, or a listed pair in either direction */
static int eq_pair(const struct prb_evalb_eqs *e, const char *a, size_t na, const char *b, size_t nb)
{
    if (str_eq(a, na, b, nb)) return 1;
    for (size_t i = 0; i < e->n; i++) {
        const struct prb_evalb_eq *q = &e->v[i];
        if ((str_eq(a, na, q->a.s, q->a.n) && str_eq(b, nb, q->b.s, q->b.n)) ||
            (str_eq(a, na, q->b.s, q->b.n) && str_eq(b, nb, q->a.s, q->a.n)))
            return 1;
    }
    return 0;
}

#define GROW(arr, cap, need) do { if ((need) > (cap)) { size_t _c = (cap) ? (cap) * 2 : 16; \
        while (_c < (need)) { _c *= 2; } \
        (arr) = sp_xrealloc((arr), _c * sizeof *(arr)); (cap) = _c; } } while (0)

/* ---------------------------------------------------------------- 1. parameters */

void prb_evalb_params_init(struct prb_evalb_params *p)
{
    memset(p, 0, sizeof *p);
    p->max_error = 10;
    p->cutoff_len = 40;
    p->labeled = 1;
}

static void names_free(struct prb_evalb_names *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i].s);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static void eqs_free(struct prb_evalb_eqs *l)
{
    for (size_t i = 0; i < l->n; i++) { free(l->v[i].a.s); free(l->v[i].b.s); }
    free(l->v);
    memset(l, 0, sizeof *l);
}

void prb_evalb_params_free(struct prb_evalb_params *p)
{
    names_free(&p->delete_label);
    names_free(&p->delete_label_for_length);
    names_free(&p->quote_label);
    eqs_free(&p->eq_label);
    eqs_free(&p->eq_word);
    prb_evalb_params_init(p);
}

static struct prb_evalb_name name_dup(const char *s, size_t n)
{
    struct prb_evalb_name r = { sp_xmalloc(n + 1), n };
    memcpy(r.s, s, n);
    r.s[n] = '\0';
    return r;
}

static void names_add(struct prb_evalb_names *l, const char *s, size_t n)
{
    GROW(l->v, l->cap, l->n + 1);
    l->v[l->n++] = name_dup(s, n);
}

/* Split value into whitespace-separated tokens; returns the count, fills up to max. */
static int tokens(const char *v, const char *tok[], size_t len[], int max)
{
    int k = 0;
    while (*v) {
        while (*v && is_space((unsigned char)*v)) v++;
        if (!*v) break;
        const char *s = v;
        while (*v && !is_space((unsigned char)*v)) v++;
        if (k < max) { tok[k] = s; len[k] = (size_t)(v - s); }
        k++;
    }
    return k;
}

static int set_int(const char *value, long lo, long hi, long *out, const char *key, char *err, size_t errlen)
{
    const char *tok[2]; size_t len[2];
    int k = tokens(value, tok, len, 2);
    char buf[32];
    if (k == 1 && len[0] < sizeof buf) {
        memcpy(buf, tok[0], len[0]);
        buf[len[0]] = '\0';
        char *end;
        errno = 0;
        long v = strtol(buf, &end, 10);
        if (!*end && errno == 0 && v >= lo && v <= hi) { *out = v; return 0; }
    }
    snprintf(err, errlen, "%s: expected one integer in [%ld, %ld], got '%s'", key, lo, hi, value);
    return -1;
}

enum sp_err prb_evalb_params_set(struct prb_evalb_params *p, const char *key, const char *value,
                                 char *err, size_t errlen)
{
    const char *tok[3]; size_t len[3];
    int k = tokens(value, tok, len, 3);
    long v;
    if (!strcmp(key, "DEBUG")) {
        if (set_int(value, 0, 2, &v, key, err, errlen)) return SP_EPARSE;
        p->debug = (int)v;
    } else if (!strcmp(key, "MAX_ERROR")) {
        if (set_int(value, 0, LONG_MAX - 1, &p->max_error, key, err, errlen)) return SP_EPARSE;
    } else if (!strcmp(key, "CUTOFF_LEN")) {
        if (set_int(value, 0, INT_MAX, &p->cutoff_len, key, err, errlen)) return SP_EPARSE;
    } else if (!strcmp(key, "LABELED")) {
        if (set_int(value, 0, 1, &v, key, err, errlen)) return SP_EPARSE;
        p->labeled = (int)v;
    } else if (!strcmp(key, "DELETE_LABEL") || !strcmp(key, "DELETE_LABEL_FOR_LENGTH") ||
               !strcmp(key, "QUOTE_LABEL")) {
        if (k != 1) {
            snprintf(err, errlen, "%s: expected exactly one label, got %d", key, k);
            return SP_EPARSE;
        }
        struct prb_evalb_names *l = !strcmp(key, "DELETE_LABEL") ? &p->delete_label
                                  : !strcmp(key, "QUOTE_LABEL") ? &p->quote_label
                                  : &p->delete_label_for_length;
        names_add(l, tok[0], len[0]);
    } else if (!strcmp(key, "EQ_LABEL") || !strcmp(key, "EQ_WORD")) {
        if (k != 2) {
            snprintf(err, errlen, "%s: expected two values, got %d", key, k);
            return SP_EPARSE;
        }
        struct prb_evalb_eqs *l = !strcmp(key, "EQ_LABEL") ? &p->eq_label : &p->eq_word;
        GROW(l->v, l->cap, l->n + 1);
        l->v[l->n].a = name_dup(tok[0], len[0]);
        l->v[l->n].b = name_dup(tok[1], len[1]);
        l->n++;
    } else {
        snprintf(err, errlen, "unknown keyword '%s'", key);
        return SP_EUSAGE;
    }
    return SP_OK;
}

void prb_evalb_params_collins(struct prb_evalb_params *p)
{
    static const char *del[] = { "TOP", "-NONE-", ",", ":", "``", "''", "." };
    char err[64];
    prb_evalb_params_free(p);
    for (size_t i = 0; i < sizeof del / sizeof del[0]; i++)
        prb_evalb_params_set(p, "DELETE_LABEL", del[i], err, sizeof err);
    prb_evalb_params_set(p, "DELETE_LABEL_FOR_LENGTH", "-NONE-", err, sizeof err);
    prb_evalb_params_set(p, "EQ_LABEL", "ADVP PRT", err, sizeof err);
}

enum sp_err prb_evalb_params_parse(struct prb_evalb_params *p, const char *text, size_t n,
                                   const char *name, FILE *warn, char *err, size_t errlen)
{
    struct sp_buf line = { 0 };
    size_t pos = 0;
    enum sp_err rc = SP_OK;
    for (long lineno = 1; pos < n; lineno++) {
        const char *nl = memchr(text + pos, '\n', n - pos);
        size_t end = nl ? (size_t)(nl - text) : n;
        line.len = 0;
        sp_buf_put(&line, text + pos, end - pos);
        sp_buf_put(&line, "", 1);
        pos = end + 1;
        char *s = line.p;
        if (memchr(s, '\0', line.len - 1)) {
            snprintf(err, errlen, "%s:%ld: expected text, found a NUL byte", name, lineno);
            rc = SP_EPARSE;
            break;
        }
        /* trailing blanks off, as EVALB; leading blanks tolerated (EVALB would call them an unknown key) */
        size_t m = strlen(s);
        while (m > 0 && is_space((unsigned char)s[m - 1])) s[--m] = '\0';
        while (is_space((unsigned char)*s)) s++, m--;
        if (s[0] == '#' || m < 3) continue;
        char *v = s;
        while (*v && !is_space((unsigned char)*v)) v++;
        if (*v) *v++ = '\0';
        while (is_space((unsigned char)*v)) v++;
        if (!*v) {
            snprintf(err, errlen, "%s:%ld: expected a value after '%s'", name, lineno, s);
            rc = SP_EPARSE;
            break;
        }
        char msg[SP_ERRLEN];
        enum sp_err r = prb_evalb_params_set(p, s, v, msg, sizeof msg);
        if (r == SP_EUSAGE) {
            if (warn) fprintf(warn, "%s:%ld: warning: %s (ignored)\n", name, lineno, msg);
        } else if (r != SP_OK) {
            snprintf(err, errlen, "%s:%ld: %s", name, lineno, msg);
            rc = r;
            break;
        }
    }
    sp_buf_free(&line);
    return rc;
}

enum sp_err prb_evalb_params_load(struct prb_evalb_params *p, const char *path, FILE *warn,
                                  char *err, size_t errlen)
{
    char e[SP_ERRLEN];
    FILE *f = sp_fopen_input(path, e, sizeof e);
    if (!f) {
        snprintf(err, errlen, "%s (the parameter file)", e);
        return SP_EIO;
    }
    struct sp_buf b = { 0 };
    char chunk[8192];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) sp_buf_put(&b, chunk, k);
    int bad = ferror(f);
    fclose(f);
    enum sp_err rc;
    if (bad) {
        snprintf(err, errlen, "%s: read error", path);
        rc = SP_EIO;
    } else {
        rc = prb_evalb_params_parse(p, b.p ? b.p : "", b.len, path, warn, err, errlen);
    }
    sp_buf_free(&b);
    return rc;
}

/* ---------------------------------------------------------------- 2. trees */

void prb_evalb_tree_init(struct prb_evalb_tree *t) { memset(t, 0, sizeof *t); }

void prb_evalb_tree_reset(struct prb_evalb_tree *t)
{
    t->n_term = t->n_brk = t->n_quote = t->n_stack = 0;
    t->length = t->n_read = 0;
    t->scored = 0;
}

void prb_evalb_tree_free(struct prb_evalb_tree *t)
{
    free(t->term);
    free(t->brk);
    free(t->quote);
    free(t->stack);
    memset(t, 0, sizeof *t);
}

void prb_evalb_tree_open(struct prb_evalb_tree *t, const char *label, size_t n_label)
{
    GROW(t->brk, t->cap_brk, t->n_brk + 1);
    GROW(t->stack, t->cap_stack, t->n_stack + 1);
    struct prb_evalb_bracket *b = &t->brk[t->n_brk];
    b->label = label;
    b->n_label = b->n_cut = (uint32_t)n_label;
    b->start = (int)t->n_term;
    b->end = -1;
    b->close_seq = -1;
    b->result = 9;
    t->stack[t->n_stack++] = (int)t->n_brk++;
}

int prb_evalb_tree_close(struct prb_evalb_tree *t)
{
    if (t->n_stack == 0) return -1;
    struct prb_evalb_bracket *b = &t->brk[t->stack[--t->n_stack]];
    b->end = (int)t->n_term;
    b->close_seq = t->n_read;
    return 0;
}

static int is_quote_word(const char *w, size_t n)
{
    return n == 1 && (w[0] == '\'' || w[0] == '"' || w[0] == '/');
}

void prb_evalb_tree_term(struct prb_evalb_tree *t, const struct prb_evalb_params *p,
                         const char *tag, size_t n_tag, const char *word, size_t n_word)
{
    int seq = t->n_read++;
    if (!in_names(&p->delete_label_for_length, tag, n_tag)) t->length++;
    if (p->quote_label.n && is_quote_word(word, n_word) && in_names(&p->quote_label, tag, n_tag)) {
        GROW(t->quote, t->cap_quote, t->n_quote + 1);
        struct prb_evalb_quote *q = &t->quote[t->n_quote++];
        q->tag = tag; q->n_tag = (uint32_t)n_tag;
        q->word = word; q->n_word = (uint32_t)n_word;
        q->index = (int)t->n_term;
        q->bra = (int)t->n_brk;
        q->seq = seq;
    }
    if (in_names(&p->delete_label, tag, n_tag)) return;  /* deleted terminal: no word index */
    GROW(t->term, t->cap_term, t->n_term + 1);
    struct prb_evalb_term *x = &t->term[t->n_term++];
    x->tag = tag; x->n_tag = (uint32_t)n_tag;
    x->word = word; x->n_word = (uint32_t)n_word;
    x->result = 9;
}

static void show(char *dst, size_t cap, const char *s, size_t n)
{
    size_t k = n < cap - 4 ? n : cap - 4;
    memcpy(dst, s, k);
    strcpy(dst + k, n > k ? "..." : "");
}

enum sp_err prb_evalb_parse(struct prb_evalb_tree *t, const struct prb_evalb_params *p,
                            const char *s, size_t n, char *err, size_t errlen)
{
    char a[48], b[48];
    prb_evalb_tree_reset(t);
    if (n >= (size_t)INT_MAX) { snprintf(err, errlen, "expected a line shorter than 2 GiB"); return SP_EPARSE; }
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (is_space(c)) { i++; continue; }
        if (c == ')') {
            if (prb_evalb_tree_close(t) < 0) {
                snprintf(err, errlen, "column %zu: unexpected ')': no bracket is open", i + 1);
                return SP_EPARSE;
            }
            i++;
            continue;
        }
        if (c != '(') {
            size_t j = i;
            while (j < n && !is_term((unsigned char)s[j])) j++;
            show(a, sizeof a, s + i, j - i);
            snprintf(err, errlen, "column %zu: expected '(' or ')', found '%s' outside a (TAG word) pair",
                     i + 1, a);
            return SP_EPARSE;
        }
        size_t ls = ++i;                              /* label: up to space or parenthesis */
        while (i < n && !is_term((unsigned char)s[i])) i++;
        size_t le = i;
        if (i < n && is_space((unsigned char)s[i])) {
            size_t j = i;
            while (j < n && is_space((unsigned char)s[j])) j++;
            size_t ws = j;
            while (j < n && !is_term((unsigned char)s[j])) j++;
            size_t we = j;
            if (we > ws || (j < n && s[j] == ')')) {  /* "(TAG word)" or EVALB's "(TAG )" */
                while (j < n && is_space((unsigned char)s[j])) j++;
                if (j >= n || s[j] != ')') {
                    show(a, sizeof a, s + ls, le - ls);
                    show(b, sizeof b, s + ws, we - ws);
                    if (j >= n)
                        snprintf(err, errlen, "column %zu: expected ')' after word '%s' of '(%s', found end of line",
                                 j + 1, b, a);
                    else
                        snprintf(err, errlen, "column %zu: expected ')' after word '%s' of '(%s' "
                                 "(more than two elements in a bracket)", j + 1, b, a);
                    return SP_EPARSE;
                }
                prb_evalb_tree_term(t, p, s + ls, le - ls, s + ws, we - ws);
                i = j + 1;
                continue;
            }
        }
        prb_evalb_tree_open(t, s + ls, le - ls);
    }
    if (t->n_stack) {
        struct prb_evalb_bracket *o = &t->brk[t->stack[t->n_stack - 1]];
        show(a, sizeof a, o->label, o->n_label);
        snprintf(err, errlen, "column %zu: expected ')' before end of line (%zu bracket%s still open, innermost '(%s')",
                 n + 1, t->n_stack, t->n_stack == 1 ? "" : "s", a);
        return SP_EPARSE;
    }
    return SP_OK;
}

/* ---------------------------------------------------------------- 3. scoring */

void prb_evalb_work_init(struct prb_evalb_work *w) { memset(w, 0, sizeof *w); }
void prb_evalb_work_free(struct prb_evalb_work *w) { free(w->idx); free(w->nxt); free(w->seg); memset(w, 0, sizeof *w); }

/* Re-insert a deleted quote terminal at its index and shift the spans after it (EVALB reinsert_term). */
static void reinsert(struct prb_evalb_tree *t, const struct prb_evalb_quote *q)
{
    GROW(t->term, t->cap_term, t->n_term + 1);
    int ind = q->index;
    if (ind > (int)t->n_term) ind = (int)t->n_term;
    memmove(&t->term[ind + 1], &t->term[ind], (t->n_term - (size_t)ind) * sizeof t->term[0]);
    struct prb_evalb_term *x = &t->term[ind];
    x->tag = q->tag; x->n_tag = q->n_tag;
    x->word = q->word; x->n_word = q->n_word;
    x->result = 9;
    t->n_term++;
    for (size_t k = 0; k < t->n_brk; k++) {
        struct prb_evalb_bracket *b = &t->brk[k];
        if ((int)k >= q->bra) { b->start++; b->end++; }
        else if (b->close_seq > q->seq) b->end++;   /* open when the quote was read */
    }
}

static void fix_quote(const struct prb_evalb_params *p, struct prb_evalb_tree *g, struct prb_evalb_tree *t)
{
    for (size_t i = 0; i < t->n_quote; i++) {
        int ind = t->quote[i].index;
        for (size_t j = 0; j < g->n_quote; j++) {
            struct prb_evalb_quote *gq = &g->quote[j], *tq = &t->quote[i];
            if (gq->index != ind || str_eq(gq->tag, gq->n_tag, tq->tag, tq->n_tag)) continue;
            int gd = in_names(&p->delete_label, gq->tag, gq->n_tag);
            int td = in_names(&p->delete_label, tq->tag, tq->n_tag);
            if (gd && !td) {
                reinsert(g, gq);
                for (size_t k = j; k < g->n_quote; k++) g->quote[k].index++;
            } else if (td && !gd) {
                reinsert(t, tq);
                for (size_t k = i; k < t->n_quote; k++) t->quote[k].index++;
            }
        }
    }
}

static int massage(const struct prb_evalb_params *p, struct prb_evalb_tree *t)
{
    int kept = 0;
    t->scored = 1;
    for (size_t i = 0; i < t->n_brk; i++) {
        struct prb_evalb_bracket *b = &t->brk[i];
        b->result = 0;
        if (b->start == b->end) { b->result = 5; continue; }
        uint32_t c = 0;
        while (c < b->n_label && b->label[c] != '-' && b->label[c] != '=') c++;
        b->n_cut = c;
        for (size_t j = 0; j < p->delete_label.n; j++)
            if (eq_pair(&p->eq_label, b->label, c, p->delete_label.v[j].s, p->delete_label.v[j].n)) {
                b->result = 5;
                break;
            }
        kept += b->result != 5;
    }
    return kept;
}

static int brk_label_eq(const struct prb_evalb_params *p, const struct prb_evalb_bracket *a,
                        const struct prb_evalb_bracket *b)
{
    return !p->labeled || eq_pair(&p->eq_label, a->label, a->n_cut, b->label, b->n_cut);
}

/* Direct transcription of §4.3 steps 6 and 7. */
static int match_naive(const struct prb_evalb_params *p, struct prb_evalb_tree *g, struct prb_evalb_tree *t)
{
    int match = 0;
    for (size_t i = 0; i < g->n_brk; i++) {
        struct prb_evalb_bracket *gb = &g->brk[i];
        if (gb->result == 5) continue;
        for (size_t j = 0; j < t->n_brk; j++) {
            struct prb_evalb_bracket *tb = &t->brk[j];
            if (tb->result == 0 && tb->start == gb->start && tb->end == gb->end && brk_label_eq(p, gb, tb)) {
                gb->result = tb->result = 1;
                match++;
                break;
            }
        }
    }
    return match;
}

static int cross_naive(const struct prb_evalb_tree *g, const struct prb_evalb_tree *t)
{
    int crossing = 0;
    for (size_t j = 0; j < t->n_brk; j++) {
        const struct prb_evalb_bracket *tb = &t->brk[j];
        if (tb->result == 5) continue;
        for (size_t i = 0; i < g->n_brk; i++) {
            const struct prb_evalb_bracket *gb = &g->brk[i];
            if (gb->result == 5) continue;
            if ((gb->start < tb->start && gb->end > tb->start && gb->end < tb->end) ||
                (gb->start > tb->start && gb->start < tb->end && gb->end > tb->end)) {
                crossing++;
                break;
            }
        }
    }
    return crossing;
}

static int cmp_span(const void *x, const void *y)
{
    const struct prb_evalb_span *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Skip already-matched entries of the sorted test spans (union-find style, path halving). */
static size_t next_free(int *nxt, size_t k)
{
    while ((size_t)nxt[k] != k) { nxt[k] = nxt[nxt[k]]; k = (size_t)nxt[k]; }
    return k;
}

/* Same result as match_naive: the candidates of one span are visited in reading order, matched
 * ones skipped, so a 10,000-level unary chain is not quadratic. */
static int match_indexed(const struct prb_evalb_params *p, struct prb_evalb_tree *g, struct prb_evalb_tree *t,
                         struct prb_evalb_work *w)
{
    size_t m = 0;
    GROW(w->idx, w->cap_idx, t->n_brk + 1);
    GROW(w->nxt, w->cap_nxt, t->n_brk + 1);
    for (size_t j = 0; j < t->n_brk; j++)
        if (t->brk[j].result == 0)
            w->idx[m++] = (struct prb_evalb_span){ t->brk[j].start, t->brk[j].end, (int)j };
    qsort(w->idx, m, sizeof w->idx[0], cmp_span);
    for (size_t k = 0; k <= m; k++) w->nxt[k] = (int)k;     /* nxt[m] is the sentinel */
    int match = 0;
    for (size_t i = 0; i < g->n_brk; i++) {
        struct prb_evalb_bracket *gb = &g->brk[i];
        if (gb->result == 5) continue;
        size_t lo = 0, hi = m;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            const struct prb_evalb_span *x = &w->idx[mid];
            if (x->start < gb->start || (x->start == gb->start && x->end < gb->end)) lo = mid + 1;
            else hi = mid;
        }
        for (size_t k = next_free(w->nxt, lo); k < m; k = next_free(w->nxt, k + 1)) {
            if (w->idx[k].start != gb->start || w->idx[k].end != gb->end) break;
            struct prb_evalb_bracket *tb = &t->brk[w->idx[k].idx];
            if (brk_label_eq(p, gb, tb)) {
                gb->result = tb->result = 1;
                w->nxt[k] = (int)k + 1;
                match++;
                break;
            }
        }
    }
    return match;
}

/* Crossing in O((n + m) log W): a test span [c,d) crosses some gold [a,b) iff a gold bracket ends
 * strictly inside (c,d) with a < c, or starts strictly inside with b > d. Two segment trees over
 * word positions hold min start per end position and max end per start position. */
static int cross_indexed(const struct prb_evalb_tree *g, const struct prb_evalb_tree *t, int n_words,
                         struct prb_evalb_work *w)
{
    size_t P = (size_t)n_words + 1;
    GROW(w->seg, w->cap_seg, 4 * P);
    int *mn = w->seg, *mx = w->seg + 2 * P;
    for (size_t i = 0; i < 2 * P; i++) { mn[i] = INT_MAX; mx[i] = INT_MIN; }
    for (size_t i = 0; i < g->n_brk; i++) {
        const struct prb_evalb_bracket *b = &g->brk[i];
        if (b->result == 5 || b->start < 0 || b->end < 0 || (size_t)b->end >= P || (size_t)b->start >= P) continue;
        if (b->start < mn[P + (size_t)b->end]) mn[P + (size_t)b->end] = b->start;
        if (b->end > mx[P + (size_t)b->start]) mx[P + (size_t)b->start] = b->end;
    }
    for (size_t i = P - 1; i >= 1; i--) {
        mn[i] = mn[2 * i] < mn[2 * i + 1] ? mn[2 * i] : mn[2 * i + 1];
        mx[i] = mx[2 * i] > mx[2 * i + 1] ? mx[2 * i] : mx[2 * i + 1];
    }
    int crossing = 0;
    for (size_t j = 0; j < t->n_brk; j++) {
        const struct prb_evalb_bracket *b = &t->brk[j];
        if (b->result == 5 || b->end - b->start < 2) continue;
        size_t l = (size_t)b->start + 1 + P, r = (size_t)b->end + P;   /* positions [c+1, d-1] */
        if (r > 2 * P) r = 2 * P;
        int lo = INT_MAX, hi = INT_MIN;
        for (; l < r; l >>= 1, r >>= 1) {
            if (l & 1) { if (mn[l] < lo) lo = mn[l]; if (mx[l] > hi) hi = mx[l]; l++; }
            if (r & 1) { --r; if (mn[r] < lo) lo = mn[r]; if (mx[r] > hi) hi = mx[r]; }
        }
        if (lo < b->start || hi > b->end) crossing++;
    }
    return crossing;
}

void prb_evalb_score(const struct prb_evalb_params *p, struct prb_evalb_tree *g,
                     struct prb_evalb_tree *t, struct prb_evalb_work *w, struct prb_evalb_sent *out)
{
    memset(out, 0, sizeof *out);
    out->length = g->length;
    if (t->n_term == 0) { out->status = PRB_EVALB_SKIP; return; }
    if (g->n_term != t->n_term) {
        if (g->n_quote && t->n_quote) fix_quote(p, g, t);
        if (g->n_term != t->n_term) {
            out->status = PRB_EVALB_ERROR;
            out->errkind = PRB_EVALB_ELENGTH;
            out->n_gold_words = (int)g->n_term;
            out->n_test_words = (int)t->n_term;
            return;
        }
    }
    for (size_t i = 0; i < g->n_term; i++) {
        const struct prb_evalb_term *a = &g->term[i], *b = &t->term[i];
        if (!eq_pair(&p->eq_word, a->word, a->n_word, b->word, b->n_word)) {
            out->status = PRB_EVALB_ERROR;
            out->errkind = PRB_EVALB_EWORDS;
            out->gold_word = a->word; out->n_gold_word = a->n_word;
            out->test_word = b->word; out->n_test_word = b->n_word;
            return;
        }
    }
    out->gold = massage(p, g);
    out->test = massage(p, t);
    int big = (long)g->n_brk * (long)t->n_brk > 1024;
    int fast = p->algo == 2 || (p->algo == 0 && big);
    out->match = fast ? match_indexed(p, g, t, w) : match_naive(p, g, t);
    out->crossing = fast ? cross_indexed(g, t, (int)g->n_term, w) : cross_naive(g, t);
    out->words = (int)g->n_term;
    for (size_t i = 0; i < g->n_term; i++) {
        struct prb_evalb_term *a = &g->term[i], *b = &t->term[i];
        int ok = eq_pair(&p->eq_label, a->tag, a->n_tag, b->tag, b->n_tag);
        a->result = b->result = ok;
        out->correct_tags += ok;
    }
}

enum sp_err prb_evalb_score_str(const struct prb_evalb_params *p, const char *gold, const char *test,
                                struct prb_evalb_sent *out, char *err, size_t errlen)
{
    struct prb_evalb_tree g, t;
    struct prb_evalb_work w;
    prb_evalb_tree_init(&g);
    prb_evalb_tree_init(&t);
    prb_evalb_work_init(&w);
    char msg[SP_ERRLEN];
    enum sp_err rc = prb_evalb_parse(&g, p, gold, strlen(gold), msg, sizeof msg);
    if (rc) snprintf(err, errlen, "gold: %s", msg);
    else if ((rc = prb_evalb_parse(&t, p, test, strlen(test), msg, sizeof msg)))
        snprintf(err, errlen, "test: %s", msg);
    else prb_evalb_score(p, &g, &t, &w, out);
    prb_evalb_tree_free(&g);
    prb_evalb_tree_free(&t);
    prb_evalb_work_free(&w);
    return rc;
}

/* ---------------------------------------------------------------- 4. totals and printing */

void prb_evalb_acc_init(struct prb_evalb_acc *a, long cutoff_len)
{
    memset(a, 0, sizeof *a);
    a->cutoff_len = cutoff_len;
}

static void totals_add(struct prb_evalb_totals *t, const struct prb_evalb_sent *s)
{
    t->sent++;
    if (s->status == PRB_EVALB_ERROR) { t->error++; return; }
    if (s->status == PRB_EVALB_SKIP) { t->skip++; return; }
    t->gold += s->gold;
    t->test += s->test;
    t->match += s->match;
    if (s->gold == s->test && s->test == s->match) t->comp++;
    t->words += s->words;
    t->crossing += s->crossing;
    if (s->crossing == 0) t->no_crossing++;
    if (s->crossing <= 2) t->le2_crossing++;
    t->correct_tags += s->correct_tags;
}

void prb_evalb_acc_add(struct prb_evalb_acc *a, const struct prb_evalb_sent *s)
{
    totals_add(&a->all, s);
    if (s->length <= a->cutoff_len) totals_add(&a->cut, s);
}

void prb_evalb_summarize(const struct prb_evalb_totals *t, struct prb_evalb_summary *s)
{
    long v = t->sent - t->error - t->skip;
    s->n_sentences = t->sent;
    s->n_error = t->error;
    s->n_skip = t->skip;
    s->n_valid = v;
    s->recall = t->gold > 0 ? 100.0 * t->match / t->gold : 0.0;
    s->precision = t->test > 0 ? 100.0 * t->match / t->test : 0.0;
    /* EVALB's own expression: 0/0 gives NaN, printed "-nan" by glibc on x86 */
    s->fmeasure = 2 * s->precision * s->recall / (s->precision + s->recall);
    s->complete_match = v > 0 ? 100.0 * t->comp / v : 0.0;
    s->avg_crossing = v > 0 ? 1.0 * t->crossing / v : 0.0;
    s->no_crossing = v > 0 ? 100.0 * t->no_crossing / v : 0.0;
    s->le2_crossing = v > 0 ? 100.0 * t->le2_crossing / v : 0.0;
    s->tagging_accuracy = t->words > 0 ? 100.0 * t->correct_tags / t->words : 0.0;
}

void prb_evalb_print_header(FILE *f)
{
    fputs("  Sent.                        Matched  Bracket   Cross        Correct Tag\n"
          " ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy\n"
          "============================================================================\n", f);
}

void prb_evalb_print_row(FILE *f, long id, const struct prb_evalb_sent *s)
{
    fprintf(f, "%4ld  %3d    %d  %6.2f %6.2f   %3d    %3d  %3d    %3d   %4d  %4d   %6.2f\n",
            id, s->length, s->status,
            s->gold == 0 ? 0.0 : 100.0 * s->match / s->gold,
            s->test == 0 ? 0.0 : 100.0 * s->match / s->test,
            s->match, s->gold, s->test, s->crossing, s->words, s->correct_tags,
            s->words == 0 ? 0.0 : 100.0 * s->correct_tags / s->words);
}

static void print_block(FILE *f, const struct prb_evalb_totals *t)
{
    struct prb_evalb_summary s;
    prb_evalb_summarize(t, &s);
    fprintf(f, "Number of sentence        = %6ld\n", s.n_sentences);
    fprintf(f, "Number of Error sentence  = %6ld\n", s.n_error);
    fprintf(f, "Number of Skip  sentence  = %6ld\n", s.n_skip);
    fprintf(f, "Number of Valid sentence  = %6ld\n", s.n_valid);
    fprintf(f, "Bracketing Recall         = %6.2f\n", s.recall);
    fprintf(f, "Bracketing Precision      = %6.2f\n", s.precision);
    fprintf(f, "Bracketing FMeasure       = %6.2f\n", s.fmeasure);
    fprintf(f, "Complete match            = %6.2f\n", s.complete_match);
    fprintf(f, "Average crossing          = %6.2f\n", s.avg_crossing);
    fprintf(f, "No crossing               = %6.2f\n", s.no_crossing);
    fprintf(f, "2 or less crossing        = %6.2f\n", s.le2_crossing);
    fprintf(f, "Tagging accuracy          = %6.2f\n", s.tagging_accuracy);
}

void prb_evalb_print_total(FILE *f, const struct prb_evalb_acc *a)
{
    const struct prb_evalb_totals *t = &a->all;
    fputs("============================================================================\n", f);
    if (t->gold > 0 && t->test > 0)
        fprintf(f, "                %6.2f %6.2f %6ld %5ld %5ld  %5ld",
                100.0 * t->match / t->gold, 100.0 * t->match / t->test,
                t->match, t->gold, t->test, t->crossing);
    fprintf(f, "  %5ld %5ld   %6.2f\n", t->words, t->correct_tags,
            t->words > 0 ? 100.0 * t->correct_tags / t->words : 0.0);
    fputs("=== Summary ===\n\n-- All --\n", f);
    print_block(f, t);
    fprintf(f, "\n-- len<=%ld --\n", a->cutoff_len);
    print_block(f, &a->cut);
}

static void put_n(FILE *f, const char *s, size_t n) { fwrite(s, 1, n, f); }

/* "%-Ns" for a counted string */
static void put_pad(FILE *f, const char *s, size_t n, size_t width)
{
    put_n(f, s, n);
    for (size_t i = n; i < width; i++) fputc(' ', f);
}

/* EVALB's dsp_info (DEBUG 1) */
void prb_evalb_print_debug(FILE *f, const struct prb_evalb_tree *g, const struct prb_evalb_tree *t)
{
    fprintf(f, "-<1>---(wn1=%3zu, bn1=%3zu)-           ", g->n_term, g->n_brk);
    fprintf(f, "-<2>---(wn2=%3zu, bn2=%3zu)-\n", t->n_term, t->n_brk);
    size_t n = g->n_term > t->n_term ? g->n_term : t->n_term;
    for (size_t i = 0; i < n; i++) {
        const struct prb_evalb_term *a = i < g->n_term ? &g->term[i] : NULL;
        const struct prb_evalb_term *b = i < t->n_term ? &t->term[i] : NULL;
        if (a && a->n_word) {
            fprintf(f, "%3zu : %d : ", i, a->result);
            put_pad(f, a->tag, a->n_tag, 6); fputs("  ", f);
            put_pad(f, a->word, a->n_word, 16); fputs("      ", f);
        } else {
            fputs("                                        ", f);
        }
        if (b && b->n_word) {
            fprintf(f, "%3zu : %d : ", i, b->result);
            put_pad(f, b->tag, b->n_tag, 6); fputs("  ", f);
            put_pad(f, b->word, b->n_word, 16); fputc('\n', f);
        } else {
            fputc('\n', f);
        }
    }
    fputc('\n', f);
    n = g->n_brk > t->n_brk ? g->n_brk : t->n_brk;
    for (size_t i = 0; i < n; i++) {
        if (i < g->n_brk) {
            const struct prb_evalb_bracket *b = &g->brk[i];
            fprintf(f, "%3zu : %d : %3d  %3d  ", i, b->result, b->start, b->end);
            put_pad(f, b->label, g->scored ? b->n_cut : b->n_label, 6); fputs("      ", f);
        } else {
            fputs("                                ", f);
        }
        if (i < t->n_brk) {
            const struct prb_evalb_bracket *b = &t->brk[i];
            fprintf(f, "%3zu : %d : %3d  %3d  ", i, b->result, b->start, b->end);
            put_pad(f, b->label, t->scored ? b->n_cut : b->n_label, 6); fputc('\n', f);
        } else {
            fputc('\n', f);
        }
    }
    fputs("\n========\n", f);
}

void prb_evalb_print_error(FILE *f, const struct prb_evalb_sent *s)
{
    if (s->errkind == PRB_EVALB_ELENGTH) {
        fprintf(f, "Length unmatch (%d|%d)", s->n_gold_words, s->n_test_words);
    } else {
        fputs("Words unmatch (", f);
        put_n(f, s->gold_word, s->n_gold_word);
        fputc('|', f);
        put_n(f, s->test_word, s->n_test_word);
        fputc(')', f);
    }
}

/* ---------------------------------------------------------------- 5. files */

struct run_state {
    const struct prb_evalb_params *p;
    FILE *err;
    long errors;
};

/* EVALB's Error(): message, then abort when the count before this error already exceeds MAX_ERROR. */
static int count_error(struct run_state *st)
{
    return st->errors++ > st->p->max_error;
}

enum sp_err prb_evalb_run(const struct prb_evalb_params *p, const char *gold_path, const char *test_path,
                          const struct prb_evalb_run_opts *o, struct prb_evalb_acc *acc, int *aborted,
                          char *err, size_t errlen)
{
    struct run_state st = { p, o && o->err ? o->err : stderr, 0 };
    FILE *out = o ? o->out : NULL;
    prb_evalb_acc_init(acc, p->cutoff_len);
    *aborted = 0;
    char e[SP_ERRLEN];
    FILE *fg = sp_fopen_input(gold_path, e, sizeof e);
    if (!fg) {
        snprintf(err, errlen, "%s (the gold file)", e);
        return SP_EIO;
    }
    FILE *ft = sp_fopen_input(test_path, e, sizeof e);
    if (!ft) {
        snprintf(err, errlen, "%s (the test file)", e);
        fclose(fg);
        return SP_EIO;
    }
    struct prb_evalb_tree g, t;
    struct prb_evalb_work w;
    prb_evalb_tree_init(&g);
    prb_evalb_tree_init(&t);
    prb_evalb_work_init(&w);
    char *lg = NULL, *lt = NULL;
    size_t cg = 0, ct = 0;
    enum sp_err rc = SP_OK;
    char msg[SP_ERRLEN];
    if (out) prb_evalb_print_header(out);
    long line = 1;
    for (;; line++) {
        ssize_t ng = getline(&lg, &cg, fg);
        if (ng < 0) break;
        ssize_t nt = getline(&lt, &ct, ft);
        if (nt < 0) {
            fprintf(st.err, "%ld : Number of lines unmatch (too many lines in gold file)\n", line);
            if (count_error(&st)) *aborted = 1;
            break;
        }
        if (prb_evalb_parse(&g, p, lg, (size_t)ng, msg, sizeof msg)) {
            snprintf(err, errlen, "%s:%ld: %s", gold_path, line, msg);
            rc = SP_EPARSE;
            break;
        }
        if (prb_evalb_parse(&t, p, lt, (size_t)nt, msg, sizeof msg)) {
            snprintf(err, errlen, "%s:%ld: %s", test_path, line, msg);
            rc = SP_EPARSE;
            break;
        }
        struct prb_evalb_sent s;
        prb_evalb_score(p, &g, &t, &w, &s);
        if (s.status == PRB_EVALB_ERROR) {
            fprintf(st.err, "%ld : ", line);
            prb_evalb_print_error(st.err, &s);
            fputc('\n', st.err);
            if (count_error(&st)) { *aborted = 1; break; }
        }
        prb_evalb_acc_add(acc, &s);
        if (out) {
            prb_evalb_print_row(out, line, &s);
            if (p->debug >= 1) prb_evalb_print_debug(out, &g, &t);
        }
    }
    if (rc == SP_OK && !*aborted && ferror(fg)) {
        snprintf(err, errlen, "%s: read error", gold_path);
        rc = SP_EIO;
    }
    if (rc == SP_OK && !*aborted && getline(&lt, &ct, ft) >= 0) {
        fprintf(st.err, "%ld : Number of lines unmatch (too many lines in test file)\n", line);
        if (count_error(&st)) *aborted = 1;
    }
    free(lg);
    free(lt);
    prb_evalb_tree_free(&g);
    prb_evalb_tree_free(&t);
    prb_evalb_work_free(&w);
    fclose(fg);
    fclose(ft);
    return rc;
}
