/* ingest/conllu.c — the two line-based readers: CoNLL-U (docs/spec/structures.md §2.1) and the 3-column
 * dependency format `.dp` (§2.2). One pass over the chunk: the chunk is copied twice into
 * the batch arena (a pristine copy that raw/raw_len, comments and extra lines point into, and a
 * work copy whose TABs and line ends are overwritten with NULs so the fields are strings in
 * place); no allocation per field, no sscanf.
 *
 * Modes. DEFAULT and STRICT reject a sentence on any E_* problem (columns, IDs, UTF-8, HEADs).
 * STRICT additionally rejects a sentence ended by a whitespace-only line (UD's validator
 * rejects those; DEFAULT accepts them as blank). REPAIR pads/truncates column counts (LENIENT
 * rules), repairs HEADs (ing_repair_heads) and drops invalid MWT range lines (outside 1..n,
 * a >= b, overlapping an earlier range, or not right before word a), recording W_* bits and a
 * note naming each line; DEFAULT and STRICT reject the sentence at such a line instead, so no
 * line is ever dropped without a record.
 *
 * A whitespace-only line ends its sentence only where the sentence has a word line before it
 * and the next line that is not a comment is blank or starts a sentence (ID 1, 1-b, 0.m);
 * otherwise it is inside the sentence and rejects the whole of it (ing__ws_line_ends_sentence
 * and ing__ws_line_after_words, which ing_chunk_end applies too). Before any word line it is
 * inside the sentence whose comments precede it: a sentence whose only "word line" is a line
 * of tabs is rejected there, not skipped as a block of comments. */
#include <string.h>

#include "ingest/ing_int.h"
#include "ingest/readers.h"

#define MAXF 16 /* fields remembered per line; more are only counted */

struct line { size_t off, len; };   /* in the work copy; len without the line terminator */

struct lp {
    enum sp_format fmt;
    enum sp_mode mode;
    struct ing_batch *out;
    const char *raw;                 /* pristine copy of the chunk */
    char *work;                      /* mutable copy, NUL-terminated at len */
    size_t len;
    /* scratch, grown on demand, freed at the end of the chunk */
    struct line *ln; int ln_cap;
    int *hv, *h0; const char **hraw; long *wline; unsigned char *st; int w_cap;
    struct sp_extra *ex; long *exline; int ex_cap;
    struct sp_buf warn;
    char msg[256];
};

static void grow_words(struct lp *L, int n)
{
    if (n <= L->w_cap) return;
    int cap = L->w_cap ? L->w_cap : 256;
    while (cap < n) cap *= 2;
    L->hv = sp_xrealloc(L->hv, (size_t)cap * sizeof *L->hv);
    L->h0 = sp_xrealloc(L->h0, (size_t)cap * sizeof *L->h0);
    L->hraw = sp_xrealloc(L->hraw, (size_t)cap * sizeof *L->hraw);
    L->wline = sp_xrealloc(L->wline, (size_t)cap * sizeof *L->wline);
    L->st = sp_xrealloc(L->st, (size_t)cap);
    L->w_cap = cap;
}

static void push_extra(struct lp *L, int n_ex, const struct sp_extra *e, long line)
{
    if (n_ex >= L->ex_cap) {
        L->ex_cap = L->ex_cap ? L->ex_cap * 2 : 32;
        L->ex = sp_xrealloc(L->ex, (size_t)L->ex_cap * sizeof *L->ex);
        L->exline = sp_xrealloc(L->exline, (size_t)L->ex_cap * sizeof *L->exline);
    }
    L->ex[n_ex] = *e;
    L->exline[n_ex] = line;
}

static void note(struct lp *L, const char *s)
{
    if (L->warn.len) sp_buf_put(&L->warn, "; ", 2);
    sp_buf_puts(&L->warn, s);
}

/* Turn the item into a rejection; keeps line, sent_id, text and comments for the report. */
static void reject(struct lp *L, struct ing_item *it, long line, const char *msg)
{
    struct sp_sentence keep = it->s;
    memset(&it->s, 0, sizeof it->s);
    it->s.line = keep.line;
    it->s.sent_id = keep.sent_id;
    it->s.text = keep.text;
    it->s.comments = keep.comments;
    it->error = sp_arena_strdup(&L->out->arena, msg);
    it->error_line = line;
}

static int only_digits(const char *s, const char *e) {
    if (s == e) return 0;
    for (; s < e; s++) if (*s < '0' || *s > '9') return 0;
    return 1;
}

/* digits [s,e) to int, saturating */
static int to_int(const char *s, const char *e)
{
    long x = 0;
    for (; s < e; s++) if (x < 1000000000L) x = x * 10 + (*s - '0');
    return x > 1000000000L ? 1000000000 : (int)x;
}

/* "# key = value": value, or NULL when the comment is not that key */
static char *meta_value(char *c, const char *key, size_t klen)
{
    c++;                                     /* '#' */
    while (*c == ' ' || *c == '\t') c++;
    if (strncmp(c, key, klen) != 0) return NULL;
    c += klen;
    if (*c != ' ' && *c != '\t' && *c != '=') return NULL;
    while (*c == ' ' || *c == '\t') c++;
    if (*c != '=') return NULL;
    c++;
    while (*c == ' ' || *c == '\t') c++;
    return c;
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
    return 1;
}

static size_t count_tabs(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == '\t';
    return k;
}

/* What is wrong with extra line e of a sentence of nw words, given the last word of the
 * multiword token kept before it (-1: none): 0 when nothing (empty nodes are kept as they are),
 * else 1 with the reason in why. */
static int mwt_problem(const struct sp_extra *e, int nw, int prev_last, char *why, size_t cap)
{
    if (e->kind != SP_EXTRA_MWT) return 0;
    if (e->first < 0 || e->last >= nw || e->first >= e->last)
        snprintf(why, cap, "range outside 1..%d or not a<b", nw);
    else if (e->first <= prev_last)
        snprintf(why, cap, "overlaps the multiword token before it");
    else if (e->pos != e->first)
        snprintf(why, cap, "expected its line right before word %d", e->first + 1);
    else
        return 0;
    return 1;
}

/* The sentence block parse_block is reading: its item and what its lines have added so far. */
struct blk {
    struct ing_item *it;
    struct sp_sentence *s;
    long line0;                      /* file line of the block's first line */
    int nl;                          /* lines in the block: L->ln[0..nl) */
    int nw, n_ex, n_us;              /* word lines, extra (MWT / empty node) lines, "_" HEADs */
    int n_com;                       /* comment lines, and their bytes with one '\n' each */
    size_t com_len;
    char *f[MAXF];                   /* the fields of the line being read */
};

/* Word and comment lines of a block: every line is a word line in .dp */
static int count_word_lines(const struct lp *L, int nl)
{
    if (L->fmt != SP_FMT_CONLLU) return nl;
    int n_tok = 0;
    for (int i = 0; i < nl; i++) n_tok += L->work[L->ln[i].off] != '#';
    return n_tok;
}

/* Rejects the sentence at its first line that is not UTF-8; 1 if it did. */
static int reject_bad_utf8(struct lp *L, struct blk *B, size_t roff, size_t rlen)
{
    if (sp_utf8_valid(L->raw + roff, rlen)) return 0;
    long bad = B->line0;
    for (int i = 0; i < B->nl; i++)
        if (!sp_utf8_valid(L->raw + L->ln[i].off, L->ln[i].len)) { bad = B->line0 + i; break; }
    reject(L, B->it, bad, "invalid UTF-8 (expected UTF-8 text)");
    return 1;
}

/* The sentence's column arrays for n_tok words, in one arena block */
static void alloc_columns(struct lp *L, struct sp_sentence *s, int n_tok)
{
    const char **cols = sp_arena_alloc(&L->out->arena, (size_t)SP_NCOLS * (size_t)n_tok * sizeof *cols);
    for (int c = 0; c < SP_NCOLS; c++) s->col[c] = cols + (size_t)c * (size_t)n_tok;
    if (L->fmt != SP_FMT_CONLLU) {
        /* .dp has FORM, POS, HEAD [, DEPREL]: the other columns share one "_" array */
        const char **us = ing__underscores(L->out, n_tok);
        s->col[SP_LEMMA] = s->col[SP_UPOS] = s->col[SP_FEATS] = s->col[SP_DEPS] = s->col[SP_MISC] = us;
    }
}

static void reject_ws_line(struct lp *L, struct blk *B, const char *q, size_t len, long line)
{
    size_t tabs = count_tabs(q, len);
    snprintf(L->msg, sizeof L->msg, "whitespace-only line inside a sentence (%zu tab%s; expected a word line of %s "
             "tab-separated fields, or an empty line between sentences)", tabs,
             tabs == 1 ? "" : "s", L->fmt == SP_FMT_CONLLU ? "10" : "3 or 4");
    reject(L, B->it, line, L->msg);
}

/* A '#' line [q,end) of a CoNLL-U block: sent_id and text are taken from it. 0, or -1 when it
 * rejected the sentence. */
static int read_comment(struct lp *L, struct blk *B, char *q, char *end, long line, size_t len)
{
    char *v;
    if ((v = meta_value(q, "sent_id", 7))) {
        char *t = end;
        while (t > v && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r')) t--;
        *t = 0;
        if (!*v) {
            reject(L, B->it, line, "empty sent_id (expected a name after 'sent_id =')");
            return -1;
        }
        B->s->sent_id = v;
    } else if ((v = meta_value(q, "text", 4))) {
        B->s->text = v;
    }
    B->n_com++;
    B->com_len += len + 1;
    return 0;
}

/* Splits [q,end) at its TABs into NUL-terminated fields f[0..MAXF); returns how many there are
 * (those past MAXF are only counted). */
static inline int split_fields(char *q, char *end, char **f)
{
    int nf = 0;
    for (;;) {
        char *t = memchr(q, '\t', (size_t)(end - q));
        if (nf < MAXF) f[nf] = q;
        nf++;
        if (!t) break;
        *t = 0;
        q = t + 1;
    }
    return nf;
}

/* A line of nf fields where the format wants another count: under --repair too many are
 * dropped and (CoNLL-U, 7 to 9) too few padded with "_", with a note; otherwise the sentence is
 * rejected. Returns the field count to use, or -1 when it rejected. */
static int fix_field_count(struct lp *L, struct blk *B, int nf, long line)
{
    const int conllu = L->fmt == SP_FMT_CONLLU;
    int most = conllu ? 10 : 4, least = conllu ? 7 : 3;
    if (L->mode == SP_MODE_REPAIR && nf > most) {
        snprintf(L->msg, sizeof L->msg, "line %ld: dropped %d extra field%s", line, nf - most,
                 nf - most > 1 ? "s" : "");
        note(L, L->msg);
        B->s->warn |= SP_W_COLUMNS;
        return most;
    }
    if (L->mode == SP_MODE_REPAIR && conllu && nf >= least) {
        snprintf(L->msg, sizeof L->msg, "line %ld: padded %d missing field%s with _", line, 10 - nf,
                 10 - nf > 1 ? "s" : "");
        note(L, L->msg);
        B->s->warn |= SP_W_COLUMNS;
        for (; nf < 10; nf++) B->f[nf] = (char *)ing__underscore;
        return nf;
    }
    if (conllu)
        snprintf(L->msg, sizeof L->msg, "expected 10 tab-separated fields, got %d", nf);
    else
        snprintf(L->msg, sizeof L->msg,
                 "expected 3 or 4 tab-separated fields (FORM POS HEAD [DEPREL]), got %d", nf);
    reject(L, B->it, line, L->msg);
    return -1;
}

/* A multiword-token (a-b) or empty-node (a.m) line li, whose ID's first number ends at p:
 * kept verbatim from the pristine copy, before word nw. */
static void push_id_extra(struct lp *L, struct blk *B, const char *id, const char *p, int li, long line)
{
    struct sp_extra e;
    e.pos = B->nw;
    e.line = sp_arena_strndup(&L->out->arena, L->raw + L->ln[li].off, L->ln[li].len);
    if (*p == '-') {
        e.kind = SP_EXTRA_MWT;
        e.first = to_int(id, p) - 1;
        e.last = to_int(p + 1, p + 1 + strlen(p + 1)) - 1;
    } else {
        e.kind = SP_EXTRA_EMPTY;
        e.first = e.last = -1;
    }
    push_extra(L, B->n_ex++, &e, line);
}

/* The ID field of CoNLL-U line li: 1 for the next word's ID, 0 for an extra line (pushed),
 * -1 when it rejected the sentence. */
static int read_conllu_id(struct lp *L, struct blk *B, int li, long line)
{
    const char *id = B->f[0], *p = id;
    while (*p >= '0' && *p <= '9') p++;
    if (p > id && *p == 0 && id[0] != '0') {
        if (to_int(id, p) == B->nw + 1) return 1;
    } else if (p > id && (*p == '-' || *p == '.') && only_digits(p + 1, p + 1 + strlen(p + 1))) {
        push_id_extra(L, B, id, p, li, line);
        return 0;
    }
    snprintf(L->msg, sizeof L->msg, "expected word ID %d, got %.40s", B->nw + 1, id);
    reject(L, B->it, line, L->msg);
    return -1;
}

/* The fields of word i from a CoNLL-U line; 0, or -1 when it rejected the sentence. */
static int store_conllu_word(struct lp *L, struct blk *B, int i, long line)
{
    struct sp_sentence *s = B->s;
    char **f = B->f;
    s->col[SP_FORM][i] = f[1];
    s->col[SP_LEMMA][i] = f[2];
    s->col[SP_UPOS][i] = f[3];
    s->col[SP_XPOS][i] = f[4];
    s->col[SP_FEATS][i] = f[5];
    s->col[SP_DEPREL][i] = f[7];
    s->col[SP_DEPS][i] = f[8];
    s->col[SP_MISC][i] = f[9];
    L->hraw[i] = f[6];
    if (!f[1][0]) {
        reject(L, B->it, line, "empty FORM (expected the word; '_' if it is unknown)");
        return -1;
    }
    return 0;
}

/* The fields of word i from a .dp line of nf fields; 0, or -1 when it rejected the sentence. */
static int store_dp_word(struct lp *L, struct blk *B, int i, int nf, long line)
{
    struct sp_sentence *s = B->s;
    char **f = B->f;
    if (!f[0][0]) {
        reject(L, B->it, line, "empty FORM (expected the word in the first field)");
        return -1;
    }
    s->col[SP_FORM][i] = f[0];
    s->col[SP_XPOS][i] = f[1];
    s->col[SP_DEPREL][i] = nf >= 4 ? f[3] : ing__underscore;
    L->hraw[i] = f[2];
    return 0;
}

/* A word or extra line li of the block (not blank, not a comment); 0, or -1 when it rejected
 * the sentence. */
static inline int read_word_line(struct lp *L, struct blk *B, int li, char *q, char *end, long line)
{
    const int conllu = L->fmt == SP_FMT_CONLLU;
    int nf = split_fields(q, end, B->f);
    int want = conllu ? 10 : 3;
    if (nf != want && !(!conllu && nf == 4) && (nf = fix_field_count(L, B, nf, line)) < 0) return -1;
    int i = B->nw;
    if (conllu) {
        int r = read_conllu_id(L, B, li, line);
        if (r <= 0) return r;
        if (store_conllu_word(L, B, i, line)) return -1;
    } else if (store_dp_word(L, B, i, nf, line)) {
        return -1;
    }
    B->n_us += ing__head_value(L->hraw[i], &L->hv[i]);
    L->wline[i] = line;
    B->nw++;
    return 0;
}

/* Every line of the block in order; 0, or -1 when one rejected the sentence. */
static int read_lines(struct lp *L, struct blk *B)
{
    const int conllu = L->fmt == SP_FMT_CONLLU;
    for (int li = 0; li < B->nl; li++) {
        long line = B->line0 + li;
        size_t len = L->ln[li].len;
        char *q = L->work + L->ln[li].off, *end = q + len;
        *end = 0;
        if (blank(q, len)) {
            reject_ws_line(L, B, q, len, line);
            return -1;
        }
        int r = conllu && *q == '#' ? read_comment(L, B, q, end, line, len)
                                    : read_word_line(L, B, li, q, end, line);
        if (r) return -1;
    }
    return 0;
}

/* Every comment line verbatim, '\n'-separated, from the pristine copy */
static void join_comments(struct lp *L, struct blk *B)
{
    char *c = sp_arena_alloc(&L->out->arena, B->com_len), *o = c;
    for (int li = 0; li < B->nl; li++) {
        if (L->raw[L->ln[li].off] != '#') continue;
        if (o > c) *o++ = '\n';
        memcpy(o, L->raw + L->ln[li].off, L->ln[li].len);
        o += L->ln[li].len;
    }
    *o = 0;
    B->s->comments = c;
}

/* Rejects a sentence read without a line error that is still not one: no words, too long, or
 * (--strict) ended by a whitespace-only line. 1 if it did. */
static int reject_whole_block(struct lp *L, struct blk *B, int ws_end)
{
    if (B->nw == 0) {
        reject(L, B->it, B->line0, "no word lines (expected at least one line with an integer ID)");
        return 1;
    }
    if (ing__too_long(L->out, B->nw, L->msg, sizeof L->msg)) {
        reject(L, B->it, B->line0, L->msg);
        return 1;
    }
    if (L->mode == SP_MODE_STRICT && ws_end) {
        reject(L, B->it, B->line0 + B->nl, "whitespace-only line (expected an empty line between sentences)");
        return 1;
    }
    return 0;
}

/* MWT ranges must lie in 1..n with a < b, in order, each line right before its first word:
 * otherwise the sentence is rejected at that line, or under --repair the line is dropped
 * with W_MWT and a note naming it (docs/spec/structures.md §2.1: dropping is a repair). Keeps the rest as the
 * sentence's extra lines; 0, or -1 when it rejected the sentence. */
static int check_extras(struct lp *L, struct blk *B)
{
    struct sp_sentence *s = B->s;
    struct sp_extra *ex = sp_arena_alloc(&L->out->arena, (size_t)B->n_ex * sizeof *ex);
    int k = 0, prev_last = -1;
    for (int j = 0; j < B->n_ex; j++) {
        struct sp_extra *e = &L->ex[j];
        char why[80];
        if (!mwt_problem(e, B->nw, prev_last, why, sizeof why)) {
            if (e->kind == SP_EXTRA_MWT) prev_last = e->last;
            ex[k++] = *e;
            continue;
        }
        int idlen = (int)strcspn(e->line, "\t");
        if (L->mode != SP_MODE_REPAIR) {
            snprintf(L->msg, sizeof L->msg, "multiword token %.*s: %s (--repair drops the line with a warning)",
                     idlen < 40 ? idlen : 40, e->line, why);
            reject(L, B->it, L->exline[j], L->msg);
            return -1;
        }
        snprintf(L->msg, sizeof L->msg, "line %ld: dropped multiword token %.*s (%s)", L->exline[j],
                 idlen < 40 ? idlen : 40, e->line, why);
        note(L, L->msg);
        s->warn |= SP_W_MWT;
    }
    s->n_extra = k;
    s->extra = k ? ex : NULL;
    return 0;
}

/* The warning for HEADs repaired with bits w: what was wrong, then up to 10 changed words
 * (from h0 to hv) and how many more. */
static void note_head_repairs(struct lp *L, unsigned w, int nw)
{
    struct sp_buf *b = &L->warn;
    if (b->len) sp_buf_put(b, "; ", 2);
    const char *what[3];
    int nwhat = 0;
    if (w & SP_W_BADHEAD) what[nwhat++] = "bad HEAD";
    if (w & SP_W_MULTIROOT) what[nwhat++] = "several roots";
    if (w & SP_W_CYCLE) what[nwhat++] = "cycle";
    sp_buf_puts(b, "repaired HEADs (");
    for (int j = 0; j < nwhat; j++) sp_buf_printf(b, "%s%s", j ? ", " : "", what[j]);
    sp_buf_puts(b, "):");
    int shown = 0, changed = 0;
    for (int k = 0; k < nw; k++) {
        if (L->hv[k] == L->h0[k] && L->h0[k] >= 0) continue;
        changed++;
        if (shown < 10) {
            sp_buf_printf(b, "%s word %d %.20s->%d", shown ? "," : "", k + 1, L->hraw[k], L->hv[k]);
            shown++;
        }
    }
    if (changed > shown) sp_buf_printf(b, ", and %d more", changed - shown);
}

/* HEADs: all "_" = no dependency tree; otherwise validated (rejecting the sentence at the
 * first bad one) or, under --repair, repaired with a note. 0, or -1 when it rejected. */
static int set_heads(struct lp *L, struct blk *B)
{
    struct sp_sentence *s = B->s;
    int nw = B->nw;
    if (B->n_us == nw) {
        s->head = NULL;
        return 0;
    }
    if (L->mode != SP_MODE_REPAIR) {
        int k = ing__heads_problem(nw, L->hv, L->hraw, L->st, L->msg, sizeof L->msg);
        if (k) {
            reject(L, B->it, k <= nw ? L->wline[k - 1] : B->line0, L->msg);
            return -1;
        }
    } else {
        memcpy(L->h0, L->hv, (size_t)nw * sizeof *L->hv);
        unsigned w = ing_repair_heads(nw, L->hv);
        if (w) {
            note_head_repairs(L, w, nw);
            s->warn |= w;
        }
    }
    int *h = sp_arena_alloc(&L->out->arena, (size_t)nw * sizeof *h);
    for (int k = 0; k < nw; k++) h[k] = L->hv[k] - 1;
    s->head = h;
    return 0;
}

/* One sentence block: lines ln[0..nl), first file line `line0`, raw text raw[roff..roff+rlen).
 * A block without word lines is skipped; any other becomes one item, a sentence or a rejection. */
static void parse_block(struct lp *L, int nl, long line0, size_t roff, size_t rlen, int ws_end)
{
    int n_tok = count_word_lines(L, nl);
    if (n_tok == 0) {                                /* comment-only block: skipped (§2.1), but said */
        ing__skipped(L->out, line0, nl);
        return;
    }
    struct blk B;
    B.it = ing__new_item(L->out);
    B.s = &B.it->s;
    B.line0 = line0;
    B.nl = nl;
    B.nw = B.n_ex = B.n_us = B.n_com = 0;
    B.com_len = 0;
    B.it->raw = L->raw + roff;
    B.it->raw_len = rlen;
    B.s->line = line0;
    L->warn.len = 0;

    if (reject_bad_utf8(L, &B, roff, rlen)) return;
    grow_words(L, n_tok);
    alloc_columns(L, B.s, n_tok);
    if (read_lines(L, &B)) return;
    B.s->n = B.nw;
    if (B.n_com) join_comments(L, &B);
    if (reject_whole_block(L, &B, ws_end)) return;
    if (B.n_ex && check_extras(L, &B)) return;
    if (set_heads(L, &B)) return;
    if (L->warn.len) B.s->warnings = sp_arena_strndup(&L->out->arena, L->warn.p, L->warn.len);
}

/* Byte offset of the end of the line starting at p (its '\n', or len) */
static inline size_t line_end(const struct lp *L, size_t p)
{
    const char *nl = memchr(L->work + p, '\n', L->len - p);
    return nl ? (size_t)(nl - L->work) : L->len;
}

static inline void push_line(struct lp *L, int n, size_t off, size_t len)
{
    if (n == L->ln_cap) {
        L->ln_cap = L->ln_cap ? L->ln_cap * 2 : 256;
        L->ln = sp_xrealloc(L->ln, (size_t)L->ln_cap * sizeof *L->ln);
    }
    L->ln[n].off = off;
    L->ln[n].len = len;
}

/* A sentence block: its lines, from the line [*pp, *ep) (not blank), into L->ln up to the next
 * blank line or the end of the chunk. Returns how many; *pp, *ep: the blank line that ended it
 * (or *pp = len), *line: its file line; *ws_end: that line was whitespace, not empty. */
static int scan_block(struct lp *L, size_t *pp, size_t *ep, long *line, int *ws_end)
{
    const char *w = L->work;
    size_t len = L->len, p = *pp, e = *ep;
    int n = 0, has_word = 0;
    *ws_end = 0;
    for (;;) {
        size_t clen = e - p;
        if (clen && w[p + clen - 1] == '\r') clen--;
        if (blank(w + p, clen)) {
            /* a whitespace-only line inside a sentence (after its comments, or before a word
             * line that continues it) stays in the block, which is rejected for it */
            if (!(clen > 0 && L->fmt == SP_FMT_CONLLU &&
                  (!has_word || ing__ws_line_ends_sentence(w, len, e + 1, 1) == 0))) {
                *ws_end = clen > 0;
                break;
            }
        } else if (L->fmt != SP_FMT_CONLLU || w[p] != '#') {
            has_word = 1;
        }
        push_line(L, n++, p, clen);
        (*line)++;
        p = e < len ? e + 1 : len;
        if (p >= len) break;
        e = line_end(L, p);
    }
    *pp = p;
    *ep = e;
    return n;
}

static void lp_free(struct lp *L)
{
    free(L->ln); free(L->hv); free(L->h0); free(L->hraw); free(L->wline); free(L->st);
    free(L->ex); free(L->exline);
    sp_buf_free(&L->warn);
}

int ing__parse_lines(enum sp_format fmt, enum sp_mode mode, const char *buf, size_t len,
                     long first_line, struct ing_batch *out, char *err, size_t errlen)
{
    struct lp L;
    memset(&L, 0, sizeof L);
    L.fmt = fmt;
    L.mode = mode;
    L.out = out;
    L.len = len;
    char *raw = sp_arena_alloc(&out->arena, len + 1);
    memcpy(raw, buf, len);
    L.raw = raw;
    L.work = sp_arena_alloc(&out->arena, len + 1);
    memcpy(L.work, buf, len);

    size_t p = 0;
    long line = first_line;
    while (p < len) {
        size_t e = line_end(&L, p);
        if (blank(L.work + p, e - p)) { p = e + 1; line++; continue; }
        size_t start = p;
        long line0 = line;
        int ws_end;
        int n = scan_block(&L, &p, &e, &line, &ws_end);
        parse_block(&L, n, line0, start, p - start, ws_end);   /* raw text ends after the last line's '\n' */
        if (p < len) { p = e + 1; line++; }          /* the blank line */
    }
    lp_free(&L);
    (void)err; (void)errlen;
    return SP_OK;
}
