/* ingest/ingest.c — what the three readers share: batches, format names and detection,
 * chunk boundaries, the PTB base-label rule, and HEAD validation and repair (SPEC §2.1). */
#include "ingest/ingest.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

#include "ingest/ing_int.h"

/* ---- batches ---- */

void ing_batch_init(struct ing_batch *b)
{
    sp_arena_init(&b->arena);
    b->n_items = b->cap = 0;
    b->item = NULL;
    b->max_words = 0;
}

void ing_batch_reset(struct ing_batch *b)
{
    sp_arena_reset(&b->arena);
    b->n_items = 0;
}

void ing_batch_free(struct ing_batch *b)
{
    sp_arena_free(&b->arena);
    free(b->item);
    b->item = NULL;
    b->n_items = b->cap = 0;
}

struct ing_item *ing__new_item(struct ing_batch *b)
{
    if (b->n_items == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->item = sp_xrealloc(b->item, (size_t)b->cap * sizeof *b->item);
    }
    struct ing_item *it = &b->item[b->n_items++];
    memset(it, 0, sizeof *it);
    return it;
}

int ing__too_long(const struct ing_batch *b, int n, char *msg, size_t cap)
{
    int max = b->max_words > 0 && b->max_words <= ING_MAX_WORDS_LIMIT ? b->max_words : ING_MAX_WORDS_DEFAULT;
    if (n <= max) return 0;
    if (n > ING_MAX_WORDS_LIMIT)
        snprintf(msg, cap, "sentence of %d words is longer than the %d words a stored sentence can have "
                 "(its structures need memory quadratic in its length)", n, ING_MAX_WORDS_LIMIT);
    else
        snprintf(msg, cap, "sentence of %d words is longer than --max-words %d (its structures need memory "
                 "quadratic in its length; raise --max-words to accept it)", n, max);
    return 1;
}

const char ing__underscore[] = "_";

const char **ing__underscores(struct ing_batch *b, int n)
{
    const char **a = sp_arena_alloc(&b->arena, (size_t)(n > 0 ? n : 1) * sizeof *a);
    for (int i = 0; i < n; i++) a[i] = ing__underscore;
    return a;
}

/* ---- formats ---- */

const char *ing_format_name(enum sp_format f)
{
    switch (f) {
    case SP_FMT_CONLLU: return "conllu";
    case SP_FMT_PTB: return "ptb";
    case SP_FMT_DEP: return "dep";
    default: return "auto";
    }
}

int ing_format_parse(const char *name, enum sp_format *out)
{
    static const struct { const char *name; enum sp_format f; } tab[] = {
        { "auto", SP_FMT_AUTO }, { "conllu", SP_FMT_CONLLU }, { "conll", SP_FMT_CONLLU },
        { "ptb", SP_FMT_PTB }, { "mrg", SP_FMT_PTB }, { "dep", SP_FMT_DEP }, { "dp", SP_FMT_DEP },
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (name && strcmp(name, tab[i].name) == 0) { *out = tab[i].f; return 0; }
    return -1;
}

static int has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && path[n - e - 1] == '.' && strcasecmp(path + n - e, ext) == 0;
}

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

enum sp_format ing_detect_format(const char *path, const char *head, size_t len)
{
    if (path) {
        if (has_ext(path, "conllu") || has_ext(path, "conll")) return SP_FMT_CONLLU;
        if (has_ext(path, "mrg") || has_ext(path, "ptb") || has_ext(path, "tree")) return SP_FMT_PTB;
        if (has_ext(path, "dp") || has_ext(path, "dep")) return SP_FMT_DEP;
    }
    if (!head) return SP_FMT_AUTO;
    size_t p = 0;
    if (len >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0) p = 3;
    size_t q = p;
    while (q < len && is_space((unsigned char)head[q])) q++;
    if (q < len && head[q] == '(') return SP_FMT_PTB;
    /* the first line that is neither blank nor a comment decides by its number of fields */
    while (p < len) {
        const char *nl = memchr(head + p, '\n', len - p);
        size_t e = nl ? (size_t)(nl - head) : len;
        size_t a = p;
        while (a < e && is_space((unsigned char)head[a])) a++;
        if (a < e && head[p] != '#') {
            int tabs = 0;
            for (size_t i = p; i < e; i++) tabs += head[i] == '\t';
            if (tabs == 9) return SP_FMT_CONLLU;
            if (tabs == 2 || tabs == 3) return SP_FMT_DEP;
            return SP_FMT_AUTO;
        }
        p = e + 1;
    }
    return SP_FMT_AUTO;
}

/* ---- chunk boundaries ---- */

/* blank = empty or only spaces/tabs/CR (SPEC §2.1: whitespace-only lines are blank) */
static int line_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
    return 1;
}

int ing__ws_line_ends_sentence(const char *buf, size_t len, size_t p, int at_end)
{
    for (;;) {
        if (p >= len) return at_end ? 1 : -1;
        const char *nl = memchr(buf + p, '\n', len - p);
        if (!nl && !at_end) return -1;
        size_t e = nl ? (size_t)(nl - buf) : len;
        if (line_blank(buf + p, e - p)) return 1;
        if (buf[p] == '#') { p = e + 1; continue; }
        size_t n = e - p;
        const char *id = buf + p;
        if ((n >= 2 && id[0] == '1' && (id[1] == '\t' || id[1] == '-')) || (n == 1 && id[0] == '1') ||
            (n >= 2 && id[0] == '0' && id[1] == '.'))
            return 1;
        return 0;
    }
}

size_t ing_chunk_end(enum sp_format fmt, const char *buf, size_t len, int at_eof)
{
    if (at_eof || len == 0) return len;
    if (fmt == SP_FMT_PTB) {
        /* after the last ')' that brings the depth back to 0; a stray ')' at depth 0 is a
         * boundary too (the parser reports it as an item of its own), and so is the start of
         * a line that begins with '(' while a tree with a word in it is open (it starts the
         * next tree, see ptb.c); tokens are followed only as far as that needs (the first one
         * after '(' is a label) */
        size_t cut = 0;
        long depth = 0;
        int want_label = 0, in_tok = 0, seen_word = 0;
        for (size_t i = 0; i < len; i++) {
            char c = buf[i];
            if (c == '(') {
                if (depth > 0 && seen_word && i > 0 && buf[i - 1] == '\n') { cut = i; depth = 0; }
                if (depth == 0) seen_word = 0;
                depth++;
                want_label = 1;
                in_tok = 0;
            } else if (c == ')') {
                if (depth > 0) depth--;
                if (depth == 0) cut = i + 1;
                want_label = in_tok = 0;
            } else if (is_space((unsigned char)c)) {
                in_tok = 0;
            } else if (!in_tok) {
                in_tok = 1;
                if (want_label) want_label = 0;
                else if (depth > 0) seen_word = 1;
            }
        }
        return cut;
    }
    /* line formats: cut right after the last complete blank line */
    size_t e = len;
    for (;;) {
        const char *nl = e ? memrchr(buf, '\n', e) : NULL;
        if (!nl) return 0;
        size_t end = (size_t)(nl - buf);               /* this line is buf[start..end) */
        const char *pnl = end ? memrchr(buf, '\n', end) : NULL;
        size_t start = pnl ? (size_t)(pnl - buf) + 1 : 0;
        if (line_blank(buf + start, end - start)) {
            /* a whitespace-only CoNLL-U line is a boundary only where it ends a sentence */
            size_t clen = end - start;
            if (clen && buf[end - 1] == '\r') clen--;
            if (fmt != SP_FMT_CONLLU || clen == 0 || ing__ws_line_ends_sentence(buf, len, end + 1, 0) == 1)
                return end + 1;
        }
        if (start == 0) return 0;
        e = start;                                      /* buf[start-1] is the previous '\n' */
    }
}

/* ---- dispatch ---- */

int ing_parse_chunk(enum sp_format fmt, enum sp_mode mode, const char *buf, size_t len,
                    long first_line, int bom_ok, struct ing_batch *out, char *err, size_t errlen)
{
    if (err && errlen) err[0] = 0;
    if (bom_ok && len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) { buf += 3; len -= 3; }
    const char *nul = len ? memchr(buf, 0, len) : NULL;
    if (nul) {
        long line = first_line;
        for (const char *p = buf; p < nul; p++) line += *p == '\n';
        if (err && errlen) snprintf(err, errlen, "line %ld: binary data (NUL byte), expected a text file", line);
        return SP_EPARSE;
    }
    switch (fmt) {
    case SP_FMT_CONLLU:
    case SP_FMT_DEP:
        return ing__parse_lines(fmt, mode, buf, len, first_line, out, err, errlen);
    case SP_FMT_PTB:
        return ing__parse_ptb(mode, buf, len, first_line, out, err, errlen);
    default:
        if (err && errlen) snprintf(err, errlen, "unknown format (expected conllu, ptb or dep)");
        return SP_EUSAGE;
    }
}

/* ---- PTB base label (SPEC §2.3) ---- */

const char *ing_base_label(const char *label, char *buf, size_t cap)
{
    if (!cap) return buf;
    size_t n = strlen(label);
    if (label[0] != '-') {
        /* cut at the first '|', then at the first '-' or '=' after the first character
         * (a label that starts with '=' keeps it, so a base label is never empty) */
        const char *bar = memchr(label, '|', n);
        if (bar) n = (size_t)(bar - label);
        for (size_t i = 1; i < n; i++)
            if (label[i] == '-' || label[i] == '=') { n = i; break; }
    }
    if (n > cap - 1) n = cap - 1;
    memcpy(buf, label, n);
    buf[n] = 0;
    return buf;
}

/* ---- UTF-8 ---- */

/* ---- HEAD values, validation, repair (SPEC §2.1) ---- */

int ing__head_value(const char *f, int *v)
{
    if (f[0] == '_' && f[1] == 0) { *v = -1; return 1; }
    const char *p = f;
    if (*p == '-') p++;
    if (*p < '0' || *p > '9') { *v = -1; return 0; }
    long x = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if (x < INT_MAX / 2) x = x * 10 + (*p - '0');
    if (*p || f[0] == '-') { *v = -1; return 0; }
    *v = x < INT_MAX / 2 ? (int)x : INT_MAX / 2;
    return 0;
}

static int is_integer_text(const char *s)
{
    if (*s == '-') s++;
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

int ing__heads_problem(int n, const int *h, const char *const *hraw, unsigned char *st,
                       char *msg, size_t cap)
{
    /* 1. values */
    for (int k = 1; k <= n; k++) {
        int v = h[k - 1];
        if (v < 0 || v > n) {
            if (hraw && !is_integer_text(hraw[k - 1]))
                snprintf(msg, cap, "HEAD '%s' of word %d is not an integer (expected 0..%d)", hraw[k - 1], k, n);
            else if (hraw)
                snprintf(msg, cap, "HEAD %s out of range 0..%d for word %d", hraw[k - 1], n, k);
            else
                snprintf(msg, cap, "HEAD %d out of range 0..%d for word %d", v, n, k);
            return k;
        }
        if (v == k) {
            snprintf(msg, cap, "HEAD %d of word %d points to itself (expected another word or 0)", v, k);
            return k;
        }
    }
    /* 2. exactly one root */
    int root = 0, nroot = 0, second = 0;
    for (int k = 1; k <= n; k++)
        if (h[k - 1] == 0) {
            if (!nroot) root = k;
            else if (!second) second = k;
            nroot++;
        }
    if (n > 0 && nroot == 0) {
        snprintf(msg, cap, "no root: expected exactly one word with HEAD 0, got none");
        return n + 1;
    }
    if (nroot > 1) {
        snprintf(msg, cap, "expected exactly one root (HEAD 0), got %d: words %d and %d%s",
                 nroot, root, second, nroot > 2 ? " and more" : "");
        return second;
    }
    /* 3. cycles: colour 0 = unseen, 1 = on the current chain, 2 = reaches the root */
    if (n <= 0) return 0;
    memset(st, 0, (size_t)n);
    for (int k = 1; k <= n; k++) {
        int x = k;
        while (x != 0 && st[x - 1] == 0) { st[x - 1] = 1; x = h[x - 1]; }
        if (x != 0 && st[x - 1] == 1) {
            /* x lies on a cycle: name it from its smallest word */
            int c = x, y = h[x - 1];
            while (y != x) { if (y < c) c = y; y = h[y - 1]; }
            size_t o = (size_t)snprintf(msg, cap, "HEAD cycle through words %d", c);
            int cnt = 0;
            for (y = h[c - 1]; y != c && o < cap; y = h[y - 1]) {
                if (++cnt > 8) { o += (size_t)snprintf(msg + o, cap - o, " -> ..."); break; }
                o += (size_t)snprintf(msg + o, cap - o, " -> %d", y);
            }
            if (o < cap) snprintf(msg + o, cap - o, " -> %d (expected a tree)", c);
            return c;
        }
        for (x = k; x != 0 && st[x - 1] == 1; x = h[x - 1]) st[x - 1] = 2;
    }
    return 0;
}

int ing_heads_valid(int n, const int *h, const char **why)
{
    unsigned char small[256];
    unsigned char *st = n <= (int)sizeof small ? small : sp_xmalloc((size_t)n);
    char msg[160];
    int k = ing__heads_problem(n, h, NULL, st, msg, sizeof msg);
    if (st != small) free(st);
    if (k && why) {
        if (strstr(msg, "itself")) *why = "self-loop";
        else if (strstr(msg, "range") || strstr(msg, "integer")) *why = "HEAD out of range";
        else if (strstr(msg, "no root")) *why = "no root";
        else if (strstr(msg, "root")) *why = "multiple roots";
        else *why = "cycle";
    } else if (why) *why = NULL;
    return k == 0;
}

unsigned ing_repair_heads(int n, int *h)
{
    unsigned w = 0;
    /* 1. non-integers, out of range, self loops -> root */
    for (int k = 1; k <= n; k++)
        if (h[k - 1] < 0 || h[k - 1] > n || h[k - 1] == k) { h[k - 1] = 0; w |= SP_W_BADHEAD; }
    /* 2. several roots: all hang from the first */
    int rstar = 0;
    for (int k = 1; k <= n; k++) {
        if (h[k - 1] != 0) continue;
        if (!rstar) rstar = k;
        else { h[k - 1] = rstar; w |= SP_W_MULTIROOT; }
    }
    /* 3. cycles, visiting words in increasing ID and breaking each cycle at its smallest ID
     *    as soon as a head chain runs into it (TV-3b) */
    unsigned char small[256];
    if (n <= 0) return w;
    unsigned char *st = n <= (int)sizeof small ? small : sp_xmalloc((size_t)n);
    memset(st, 0, (size_t)n);
    for (int k = 1; k <= n; k++) {
        int x = k;
        while (x != 0 && st[x - 1] == 0) { st[x - 1] = 1; x = h[x - 1]; }
        int oldc = 0;
        if (x != 0 && st[x - 1] == 1) {
            int c = x;
            for (int y = h[x - 1]; y != x; y = h[y - 1])
                if (y < c) c = y;
            oldc = h[c - 1];
            if (rstar) h[c - 1] = rstar;
            else { h[c - 1] = 0; rstar = c; }
            w |= SP_W_CYCLE;
        }
        /* everything on this chain now reaches the root; so does the rest of a broken cycle
         * (from c's old head round to where the chain entered it) */
        for (x = k; x != 0 && st[x - 1] == 1; x = h[x - 1]) st[x - 1] = 2;
        for (x = oldc; x != 0 && st[x - 1] == 1; x = h[x - 1]) st[x - 1] = 2;
    }
    if (st != small) free(st);
    return w;
}
