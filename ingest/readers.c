/* ingest/readers.c — the entry points: format names and detection,
 * chunk boundaries, and the PTB base-label rule. It calls the readers (conllu.c, ptb.c); the
 * helpers they share live below them (batch.c, heads.c, lines.c), so calls go one way. */
#include "ingest/readers.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

#include "ingest/ing_int.h"

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

size_t ing_chunk_end(enum sp_format fmt, const char *buf, size_t len, int at_eof, int bom_ok)
{
    if (at_eof || len == 0) return len;
    if (bom_ok && len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {   /* what the parser sees */
        size_t cut = ing_chunk_end(fmt, buf + 3, len - 3, 0, 0);
        return cut ? cut + 3 : 0;
    }
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
        if (ing__line_blank(buf + start, end - start)) {
            /* a whitespace-only CoNLL-U line is a boundary only where it ends a sentence */
            size_t clen = end - start;
            if (clen && buf[end - 1] == '\r') clen--;
            if (fmt != SP_FMT_CONLLU || clen == 0 ||
                (ing__ws_line_after_words(buf, start) && ing__ws_line_ends_sentence(buf, len, end + 1, 0) == 1))
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

/* ---- PTB base label (docs/spec/structures.md §2.3) ---- */

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
