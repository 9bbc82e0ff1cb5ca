/* encoder/enc_tokjson.c — tokenizer.json (the `tokenizers` library's format) in pre-tokenized
 * mode: added tokens, normalizers, pre-tokenizers, models, post-processors (tokjson.h;
 * docs/spec/models.md M11.1).
 *
 * Each component follows tokenizers 0.19's Rust source; offsets are not kept (ids are all the
 * encoder needs) except the one fact Metaspace's prepend_scheme "first" asks: whether a split
 * starts at the word's first original character (struct seg .at0). */
#include "encoder/tokjson.h"

#include "common/sp.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <jansson.h>
#include <pcre2.h>
#include <utf8proc.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- small things */

struct tj_err { char *buf; size_t len; const char *name; };

static void tj_fail(struct tj_err *e, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void tj_fail(struct tj_err *e, const char *path, const char *fmt, ...)
{
    if (!e->buf || !e->len || e->buf[0]) return;   /* the first error wins */
    char msg[SP_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(e->buf, e->len, "%s: %s%s%s", e->name, path ? path : "", path && path[0] ? ": " : "", msg);
}

/* a string → int map over byte strings (open addressing, FNV-1a) */
struct tj_map { size_t cap, n; char **key; uint32_t *klen; int *val; };

static uint64_t tj_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}

static size_t tj_map_slot(const struct tj_map *m, const char *s, size_t n)
{
    size_t i = (size_t)tj_hash(s, n) & (m->cap - 1);
    while (m->key[i] && !(m->klen[i] == n && !memcmp(m->key[i], s, n))) i = (i + 1) & (m->cap - 1);
    return i;
}

static int tj_map_get(const struct tj_map *m, const char *s, size_t n)
{
    if (!m->cap) return -1;
    size_t i = tj_map_slot(m, s, n);
    return m->key[i] ? m->val[i] : -1;
}

static void tj_map_set(struct tj_map *m, const char *s, size_t n, int v)
{
    if (2 * (m->n + 1) > m->cap) {
        struct tj_map o = *m;
        m->cap = o.cap ? 2 * o.cap : 64;
        m->n = 0;
        m->key = sp_xcalloc(m->cap, sizeof *m->key);
        m->klen = sp_xcalloc(m->cap, sizeof *m->klen);
        m->val = sp_xcalloc(m->cap, sizeof *m->val);
        for (size_t i = 0; i < o.cap; i++)
            if (o.key[i]) {
                size_t j = tj_map_slot(m, o.key[i], o.klen[i]);
                m->key[j] = o.key[i]; m->klen[j] = o.klen[i]; m->val[j] = o.val[i]; m->n++;
            }
        free(o.key); free(o.klen); free(o.val);
    }
    size_t i = tj_map_slot(m, s, n);
    if (!m->key[i]) {
        m->key[i] = sp_xmalloc(n + 1);
        memcpy(m->key[i], s, n);
        m->key[i][n] = 0;
        m->klen[i] = (uint32_t)n;
        m->n++;
    }
    m->val[i] = v;
}

static void tj_map_free(struct tj_map *m)
{
    for (size_t i = 0; i < m->cap; i++) free(m->key[i]);
    free(m->key); free(m->klen); free(m->val);
    memset(m, 0, sizeof *m);
}

/* UTF-8 decoding: invalid bytes become U+FFFD, one per byte */
static int tj_next(const char *s, size_t len, size_t *i)
{
    utf8proc_int32_t c;
    utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + *i, (utf8proc_ssize_t)(len - *i), &c);
    if (k <= 0) { (*i)++; return 0xFFFD; }
    *i += (size_t)k;
    return c;
}

static void tj_put_cp(struct sp_buf *b, int c)
{
    utf8proc_uint8_t u[4];
    utf8proc_ssize_t k = utf8proc_encode_char(c, u);
    sp_buf_put(b, u, (size_t)k);
}

/* Rust's char::is_whitespace (White_Space) */
static int tj_is_ws(int c)
{
    return (c >= 9 && c <= 13) || c == 32 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}
static int tj_cat(int c) { return utf8proc_category(c); }

/* tokenizers' is_punctuation, is_other and is_mark_nonspacing (the unicode_categories crate) use
 * Unicode 8.0 tables: the characters of those categories assigned since (9.0 to 14.0; from
 * perl's \p{In=8.0}, Unicode 14) are none of them there, e.g. U+061D, U+2E43, U+08E2. */
static const int32_t TJ_AFTER8[][2] = {
    {0x61D, 0x61D}, {0x7FD, 0x7FD}, {0x890, 0x891}, {0x898, 0x89F}, {0x8CA, 0x8E2}, {0x9FD, 0x9FE},
    {0xA76, 0xA76}, {0xAFA, 0xAFF}, {0xB55, 0xB55}, {0xC04, 0xC04}, {0xC3C, 0xC3C}, {0xC77, 0xC77},
    {0xC84, 0xC84}, {0xD00, 0xD00}, {0xD3B, 0xD3C}, {0xD81, 0xD81}, {0xEBA, 0xEBA},
    {0x180F, 0x180F}, {0x1ABF, 0x1ACE}, {0x1B7D, 0x1B7E}, {0x1DF6, 0x1DFB}, {0x2E43, 0x2E4F},
    {0x2E52, 0x2E5D}, {0xA82C, 0xA82C}, {0xA8C5, 0xA8C5}, {0xA8FF, 0xA8FF}, {0x10D24, 0x10D27},
    {0x10EAB, 0x10EAD}, {0x10F46, 0x10F50}, {0x10F55, 0x10F59}, {0x10F82, 0x10F89},
    {0x11070, 0x11070}, {0x11073, 0x11074}, {0x110C2, 0x110C2}, {0x110CD, 0x110CD},
    {0x111CF, 0x111CF}, {0x1123E, 0x1123E}, {0x1133B, 0x1133B}, {0x11438, 0x1143F},
    {0x11442, 0x11444}, {0x11446, 0x11446}, {0x1144B, 0x1144F}, {0x1145A, 0x1145B},
    {0x1145D, 0x1145E}, {0x11660, 0x1166C}, {0x116B9, 0x116B9}, {0x1182F, 0x11837},
    {0x11839, 0x1183B}, {0x1193B, 0x1193C}, {0x1193E, 0x1193E}, {0x11943, 0x11946},
    {0x119D4, 0x119D7}, {0x119DA, 0x119DB}, {0x119E0, 0x119E0}, {0x119E2, 0x119E2},
    {0x11A01, 0x11A0A}, {0x11A33, 0x11A38}, {0x11A3B, 0x11A47}, {0x11A51, 0x11A56},
    {0x11A59, 0x11A5B}, {0x11A8A, 0x11A96}, {0x11A98, 0x11A9C}, {0x11A9E, 0x11AA2},
    {0x11C30, 0x11C36}, {0x11C38, 0x11C3D}, {0x11C3F, 0x11C3F}, {0x11C41, 0x11C45},
    {0x11C70, 0x11C71}, {0x11C92, 0x11CA7}, {0x11CAA, 0x11CB0}, {0x11CB2, 0x11CB3},
    {0x11CB5, 0x11CB6}, {0x11D31, 0x11D36}, {0x11D3A, 0x11D3A}, {0x11D3C, 0x11D3D},
    {0x11D3F, 0x11D45}, {0x11D47, 0x11D47}, {0x11D90, 0x11D91}, {0x11D95, 0x11D95},
    {0x11D97, 0x11D97}, {0x11EF3, 0x11EF4}, {0x11EF7, 0x11EF8}, {0x11FFF, 0x11FFF},
    {0x12FF1, 0x12FF2}, {0x13430, 0x13438}, {0x16E97, 0x16E9A}, {0x16F4F, 0x16F4F},
    {0x16FE2, 0x16FE2}, {0x16FE4, 0x16FE4}, {0x1CF00, 0x1CF2D}, {0x1CF30, 0x1CF46},
    {0x1E000, 0x1E006}, {0x1E008, 0x1E018}, {0x1E01B, 0x1E021}, {0x1E023, 0x1E024},
    {0x1E026, 0x1E02A}, {0x1E130, 0x1E136}, {0x1E2AE, 0x1E2AE}, {0x1E2EC, 0x1E2EF},
    {0x1E944, 0x1E94A}, {0x1E95E, 0x1E95F}
};

/* StripAccents' is_combining_mark (unicode-normalization-alignments) uses Unicode 9.0 tables:
 * the marks (Mn, Mc, Me) assigned since (perl's \p{In=9.0}, Unicode 14), e.g. U+0D00, U+08D3 */
static const int32_t TJ_AFTER9_MARK[][2] = {
    {0x7FD, 0x7FD}, {0x898, 0x89F}, {0x8CA, 0x8D3}, {0x9FE, 0x9FE}, {0xAFA, 0xAFF}, {0xB55, 0xB55},
    {0xC04, 0xC04}, {0xC3C, 0xC3C}, {0xD00, 0xD00}, {0xD3B, 0xD3C}, {0xD81, 0xD81}, {0xEBA, 0xEBA},
    {0x1715, 0x1715}, {0x180F, 0x180F}, {0x1ABF, 0x1ACE}, {0x1CF7, 0x1CF7}, {0x1DF6, 0x1DFA},
    {0xA82C, 0xA82C}, {0xA8FF, 0xA8FF}, {0x10D24, 0x10D27}, {0x10EAB, 0x10EAC}, {0x10F46, 0x10F50},
    {0x10F82, 0x10F85}, {0x11070, 0x11070}, {0x11073, 0x11074}, {0x110C2, 0x110C2},
    {0x11145, 0x11146}, {0x111CE, 0x111CF}, {0x1133B, 0x1133B}, {0x1145E, 0x1145E},
    {0x1182C, 0x1183A}, {0x11930, 0x11935}, {0x11937, 0x11938}, {0x1193B, 0x1193E},
    {0x11940, 0x11940}, {0x11942, 0x11943}, {0x119D1, 0x119D7}, {0x119DA, 0x119E0},
    {0x119E4, 0x119E4}, {0x11A01, 0x11A0A}, {0x11A33, 0x11A39}, {0x11A3B, 0x11A3E},
    {0x11A47, 0x11A47}, {0x11A51, 0x11A5B}, {0x11A8A, 0x11A99}, {0x11D31, 0x11D36},
    {0x11D3A, 0x11D3A}, {0x11D3C, 0x11D3D}, {0x11D3F, 0x11D45}, {0x11D47, 0x11D47},
    {0x11D8A, 0x11D8E}, {0x11D90, 0x11D91}, {0x11D93, 0x11D97}, {0x11EF3, 0x11EF6},
    {0x16F4F, 0x16F4F}, {0x16F7F, 0x16F87}, {0x16FE4, 0x16FE4}, {0x16FF0, 0x16FF1},
    {0x1CF00, 0x1CF2D}, {0x1CF30, 0x1CF46}, {0x1E130, 0x1E136}, {0x1E2AE, 0x1E2AE},
    {0x1E2EC, 0x1E2EF}
};

/* NFC/NFD/NFKC/NFKD (unicode-normalization-alignments) use Unicode 9.0 tables too: the
 * characters assigned since that are marks, decompose or have a combining class are, there,
 * unassigned starters that neither decompose, compose nor reorder (same source) */
static const int32_t TJ_AFTER9_NORM[][2] = {
    {0x7FD, 0x7FD}, {0x898, 0x89F}, {0x8CA, 0x8D3}, {0x9FE, 0x9FE}, {0xAFA, 0xAFF}, {0xB55, 0xB55},
    {0xC04, 0xC04}, {0xC3C, 0xC3C}, {0xD00, 0xD00}, {0xD3B, 0xD3C}, {0xD81, 0xD81}, {0xEBA, 0xEBA},
    {0x1715, 0x1715}, {0x180F, 0x180F}, {0x1ABF, 0x1ACE}, {0x1CF7, 0x1CF7}, {0x1DF6, 0x1DFA},
    {0x32FF, 0x32FF}, {0xA7F2, 0xA7F4}, {0xA82C, 0xA82C}, {0xA8FF, 0xA8FF}, {0xAB69, 0xAB69},
    {0x10781, 0x10785}, {0x10787, 0x107B0}, {0x107B2, 0x107BA}, {0x10D24, 0x10D27},
    {0x10EAB, 0x10EAC}, {0x10F46, 0x10F50}, {0x10F82, 0x10F85}, {0x11070, 0x11070},
    {0x11073, 0x11074}, {0x110C2, 0x110C2}, {0x11145, 0x11146}, {0x111CE, 0x111CF},
    {0x1133B, 0x1133B}, {0x1145E, 0x1145E}, {0x1182C, 0x1183A}, {0x11930, 0x11935},
    {0x11937, 0x11938}, {0x1193B, 0x1193E}, {0x11940, 0x11940}, {0x11942, 0x11943},
    {0x119D1, 0x119D7}, {0x119DA, 0x119E0}, {0x119E4, 0x119E4}, {0x11A01, 0x11A0A},
    {0x11A33, 0x11A39}, {0x11A3B, 0x11A3E}, {0x11A47, 0x11A47}, {0x11A51, 0x11A5B},
    {0x11A8A, 0x11A99}, {0x11D31, 0x11D36}, {0x11D3A, 0x11D3A}, {0x11D3C, 0x11D3D},
    {0x11D3F, 0x11D45}, {0x11D47, 0x11D47}, {0x11D8A, 0x11D8E}, {0x11D90, 0x11D91},
    {0x11D93, 0x11D97}, {0x11EF3, 0x11EF6}, {0x16F4F, 0x16F4F}, {0x16F7F, 0x16F87},
    {0x16FE4, 0x16FE4}, {0x16FF0, 0x16FF1}, {0x1CF00, 0x1CF2D}, {0x1CF30, 0x1CF46},
    {0x1E130, 0x1E136}, {0x1E2AE, 0x1E2AE}, {0x1E2EC, 0x1E2EF}, {0x1F16C, 0x1F16C},
    {0x1FBF0, 0x1FBF9}
};

static int tj_in_ranges(const int32_t (*t)[2], int n, int c)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int m = (lo + hi) / 2;
        if (c < t[m][0]) hi = m - 1;
        else if (c > t[m][1]) lo = m + 1;
        else return 1;
    }
    return 0;
}
static int tj_after8(int c) { return tj_in_ranges(TJ_AFTER8, (int)(sizeof TJ_AFTER8 / sizeof TJ_AFTER8[0]), c); }
static int tj_after9_norm(int c) { return tj_in_ranges(TJ_AFTER9_NORM, (int)(sizeof TJ_AFTER9_NORM / sizeof TJ_AFTER9_NORM[0]), c); }
static int tj_after9_mark(int c) { return tj_in_ranges(TJ_AFTER9_MARK, (int)(sizeof TJ_AFTER9_MARK / sizeof TJ_AFTER9_MARK[0]), c); }

static int tj_is_punct(int c)
{
    if (c < 128) return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
    if (tj_after8(c)) return 0;
    int k = tj_cat(c);
    return k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO;
}
/* BertNormalizer's is_control: Cc, Cf, Co, Cs; unassigned code points (Cn) stay (tokenizers'
 * tables hold assigned characters only) */
static int tj_is_other(int c)
{
    if (tj_after8(c)) return 0;
    int k = tj_cat(c);
    return k == UTF8PROC_CATEGORY_CC || k == UTF8PROC_CATEGORY_CF ||
           k == UTF8PROC_CATEGORY_CO || k == UTF8PROC_CATEGORY_CS;
}
static int tj_is_numeric(int c)
{
    int k = tj_cat(c);
    return k == UTF8PROC_CATEGORY_ND || k == UTF8PROC_CATEGORY_NL || k == UTF8PROC_CATEGORY_NO;
}
static int tj_is_alnum(int c)
{
    int k = tj_cat(c);
    return (k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO) || tj_is_numeric(c);
}

/* ---------------------------------------------------------------- components */

enum { R_STR, R_RE };
struct tj_pat { int kind; char *lit; size_t litlen; pcre2_code *re; };

enum nz_kind { NZ_BERT, NZ_NFC, NZ_NFD, NZ_NFKC, NZ_NFKD, NZ_LOWER, NZ_STRIPACC, NZ_STRIP, NZ_REPLACE,
               NZ_PREPEND, NZ_PRECOMP, NZ_SEQ };
struct tj_norm {
    enum nz_kind kind;
    int clean, chinese, strip_acc, lower;   /* BertNormalizer */
    int left, right;                        /* Strip */
    struct tj_pat pat; char *content;       /* Replace; Prepend's string in content */
    uint32_t *trie; size_t trie_n; char *normd; size_t normd_len;  /* Precompiled */
    struct tj_norm *sub; int n_sub;
};

enum sb { SB_REMOVED, SB_ISOLATED, SB_PREV, SB_NEXT, SB_CONTIG };
enum pt_kind { PT_BERT, PT_WS, PT_WSSPLIT, PT_BYTELEVEL, PT_META, PT_SPLIT, PT_DIGITS, PT_PUNCT, PT_CHAR, PT_SEQ };
struct tj_pretok {
    enum pt_kind kind;
    int prefix_space, use_regex;            /* ByteLevel */
    char *repl; int scheme, split;          /* Metaspace: scheme 0 always, 1 first, 2 never */
    struct tj_pat pat; enum sb behavior; int invert;  /* Split, Punctuation, Whitespace's regex */
    int individual;                         /* Digits */
    int delim;                              /* CharDelimiterSplit */
    struct tj_pretok *sub; int n_sub;
};

enum md_kind { MD_WORDPIECE, MD_BPE, MD_UNIGRAM };

struct tj_added { char *content; size_t len; int id, single_word, lstrip, rstrip, normalized; char *norm; size_t norm_len; };

struct enc_tokjson {
    char *name;
    struct tj_norm *norm;          /* NULL: none */
    struct tj_pretok *pretok;
    enum md_kind model;
    struct tj_map vocab;           /* model vocabulary */
    struct tj_map all;             /* model vocabulary + added tokens */
    char **piece; int n_piece;     /* id → token */
    int unk;                       /* the model's unk id, -1 none */
    /* WordPiece */
    char *prefix; int max_chars;
    /* BPE */
    char *suffix; int byte_fallback, fuse_unk, ignore_merges;
    uint64_t *mkey; int *mrank, *mnew; size_t mcap;   /* pair → rank, new id (open addressing) */
    /* Unigram */
    double *score; double min_score; size_t max_piece_len;
    /* added tokens */
    struct tj_added *added; int n_added;
    /* post-processor */
    int32_t *pre, *post; int n_pre, n_post;
};

/* segments of a word: text (id -1) or an added token; at0: starts at the word's first character */
struct seg { char *s; size_t len; int id; int at0; };
struct segs { struct seg *v; int n, cap; };

static void segs_push(struct segs *a, const char *s, size_t len, int id, int at0)
{
    if (a->n == a->cap) { a->cap = a->cap ? 2 * a->cap : 8; a->v = sp_xrealloc(a->v, (size_t)a->cap * sizeof *a->v); }
    struct seg *g = &a->v[a->n++];
    g->s = sp_xmalloc(len + 1);
    if (len) memcpy(g->s, s, len);
    g->s[len] = 0;
    g->len = len; g->id = id; g->at0 = at0;
}
static void segs_clear(struct segs *a) { for (int i = 0; i < a->n; i++) free(a->v[i].s); a->n = 0; }
static void segs_free(struct segs *a) { segs_clear(a); free(a->v); memset(a, 0, sizeof *a); }

/* ---------------------------------------------------------------- patterns */

/* Oniguruma's Unicode \w (UTS #18: Alphabetic, marks, decimal digits, connector punctuation,
 * Join_Control) in PCRE2 spelling */
#define TJ_W "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}"

static pcre2_code *tj_re_compile(const char *pat, size_t n, struct tj_err *e, const char *path)
{
    struct sp_buf b = { 0 };
    int in_class = 0;
    for (size_t i = 0; i < n; i++) {
        char c = pat[i];
        if (c == '\\' && i + 1 < n) {
            char d = pat[i + 1];
            if (d == 'w') sp_buf_puts(&b, in_class ? TJ_W : "[" TJ_W "]");
            else if (d == 'W' && !in_class) sp_buf_puts(&b, "[^" TJ_W "]");
            else sp_buf_put(&b, pat + i, 2);
            i++;
            continue;
        }
        if (c == '[' && !in_class) in_class = 1;
        else if (c == ']' && in_class) in_class = 0;
        sp_buf_put(&b, &c, 1);
    }
    int ec; PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)(b.p ? b.p : ""), b.len, PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &ec, &off, NULL);
    sp_buf_free(&b);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        tj_fail(e, path, "regex \"%.*s\" does not compile: %s", (int)n, pat, (char *)msg);
    }
    return re;
}

/* pattern "String" or "Regex" object at path */
static int tj_pat_parse(json_t *j, struct tj_pat *p, struct tj_err *e, const char *path)
{
    char sub[256];
    snprintf(sub, sizeof sub, "%s", path);
    if (!json_is_object(j)) { tj_fail(e, sub, "expected {\"String\": ...} or {\"Regex\": ...}"); return -1; }
    json_t *s = json_object_get(j, "String"), *r = json_object_get(j, "Regex");
    if (json_is_string(s)) {
        p->kind = R_STR;
        p->litlen = json_string_length(s);
        p->lit = sp_xmalloc(p->litlen + 1);
        memcpy(p->lit, json_string_value(s), p->litlen + 1);
        return 0;
    }
    if (json_is_string(r)) {
        p->kind = R_RE;
        p->re = tj_re_compile(json_string_value(r), json_string_length(r), e, sub);
        return p->re ? 0 : -1;
    }
    tj_fail(e, sub, "expected {\"String\": ...} or {\"Regex\": ...}");
    return -1;
}

static void tj_pat_free(struct tj_pat *p) { free(p->lit); if (p->re) pcre2_code_free(p->re); memset(p, 0, sizeof *p); }

/* All matches of p in s as (start, end) pairs, non-overlapping, left to right (as onig's
 * find_iter: an empty match advances by one character). Returns the count; *out grows. */
static int tj_pat_find(const struct tj_pat *p, const char *s, size_t len, size_t **out, int *cap)
{
    int n = 0;
    if (p->kind == R_STR) {
        if (!p->litlen) return 0;
        for (size_t i = 0; i + p->litlen <= len;) {
            if (!memcmp(s + i, p->lit, p->litlen)) {
                if (2 * (n + 1) > *cap) { *cap = *cap ? 2 * *cap : 16; *out = sp_xrealloc(*out, (size_t)*cap * sizeof **out); }
                (*out)[2 * n] = i; (*out)[2 * n + 1] = i + p->litlen; n++;
                i += p->litlen;
            } else i++;
        }
        return n;
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(p->re, NULL);
    size_t at = 0;
    while (at <= len) {
        int rc = pcre2_match(p->re, (PCRE2_SPTR)s, len, at, 0, md, NULL);
        if (rc < 0) break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        if (2 * (n + 1) > *cap) { *cap = *cap ? 2 * *cap : 16; *out = sp_xrealloc(*out, (size_t)*cap * sizeof **out); }
        (*out)[2 * n] = ov[0]; (*out)[2 * n + 1] = ov[1]; n++;
        if (ov[1] > ov[0]) at = ov[1];
        else {
            if (ov[1] >= len) break;
            at = ov[1];
            tj_next(s, len, &at);
        }
    }
    pcre2_match_data_free(md);
    return n;
}

/* ---------------------------------------------------------------- normalizers */

static const char *NZ_SUPPORTED = "BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Replace, Prepend, Precompiled, Sequence";

static int b64val(int c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

static int tj_precomp_parse(struct tj_norm *z, json_t *j, struct tj_err *e, const char *path)
{
    char sub[300];
    snprintf(sub, sizeof sub, "%s.precompiled_charsmap", path);
    json_t *cm = json_object_get(j, "precompiled_charsmap");
    if (json_is_null(cm) || !cm) { z->trie_n = 0; return 0; }   /* tokenizers: an empty charsmap is no normalization */
    if (!json_is_string(cm)) { tj_fail(e, sub, "expected a base64 string"); return -1; }
    const char *s = json_string_value(cm);
    size_t n = json_string_length(cm);
    unsigned char *bytes = sp_xmalloc(n / 4 * 3 + 3);
    size_t bn = 0;
    uint32_t acc = 0; int bits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=') break;
        int v = b64val((unsigned char)s[i]);
        if (v < 0) { free(bytes); tj_fail(e, sub, "not base64 (byte %zu)", i); return -1; }
        acc = (acc << 6) | (uint32_t)v; bits += 6;
        if (bits >= 8) { bits -= 8; bytes[bn++] = (unsigned char)(acc >> bits); }
    }
    if (bn == 0) { free(bytes); return 0; }
    if (bn < 4) { free(bytes); tj_fail(e, sub, "truncated (%zu bytes)", bn); return -1; }
    uint32_t tsize = (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24;
    if ((size_t)tsize > bn - 4 || tsize % 4 || tsize == 0) {
        free(bytes); tj_fail(e, sub, "trie size %u does not fit the %zu bytes", tsize, bn); return -1;
    }
    z->trie_n = tsize / 4;
    z->trie = sp_xmalloc(z->trie_n * sizeof *z->trie);
    for (size_t i = 0; i < z->trie_n; i++) {
        const unsigned char *q = bytes + 4 + 4 * i;
        z->trie[i] = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
    }
    z->normd_len = bn - 4 - tsize;
    z->normd = sp_xmalloc(z->normd_len + 1);
    memcpy(z->normd, bytes + 4 + tsize, z->normd_len);
    z->normd[z->normd_len] = 0;
    free(bytes);
    return 0;
}

/* spm_precompiled: the first (shortest) prefix of key in the darts-clone trie; its replacement */
static const char *tj_precomp_lookup(const struct tj_norm *z, const char *key, size_t klen, size_t *olen)
{
    if (!z->trie_n) return NULL;
    const uint32_t *a = z->trie;
#define OFFSET(u) (((u) >> 10) << (((u) & (1u << 9)) >> 6))
    size_t pos = 0;
    uint32_t unit = a[0];
    pos ^= OFFSET(unit);
    for (size_t i = 0; i < klen; i++) {
        unsigned char c = (unsigned char)key[i];
        if (!c) break;
        pos ^= c;
        if (pos >= z->trie_n) return NULL;
        unit = a[pos];
        if ((unit & ((1u << 31) | 0xFF)) != c) return NULL;
        pos ^= OFFSET(unit);
        if (pos >= z->trie_n) return NULL;
        if ((unit >> 8) & 1) {
            uint32_t v = a[pos] & ((1u << 31) - 1);
            if (v >= z->normd_len) return NULL;
            size_t k = v;
            while (k < z->normd_len && z->normd[k]) k++;
            *olen = k - v;
            return z->normd + v;
        }
    }
#undef OFFSET
    return NULL;
}

static int tj_norm_parse(struct tj_norm *z, json_t *j, struct tj_err *e, const char *path);

static int jbool(json_t *o, const char *k, int dflt)
{
    json_t *v = json_object_get(o, k);
    return json_is_boolean(v) ? json_is_true(v) : dflt;
}

static int tj_norm_parse(struct tj_norm *z, json_t *j, struct tj_err *e, const char *path)
{
    memset(z, 0, sizeof *z);
    char sub[300];
    snprintf(sub, sizeof sub, "%s.type", path);
    if (!json_is_object(j)) { tj_fail(e, path, "expected an object"); return -1; }
    const char *ty = json_string_value(json_object_get(j, "type"));
    if (!ty) { tj_fail(e, sub, "missing (expected one of: %s)", NZ_SUPPORTED); return -1; }
    if (!strcmp(ty, "BertNormalizer")) {
        z->kind = NZ_BERT;
        z->clean = jbool(j, "clean_text", 1);
        z->chinese = jbool(j, "handle_chinese_chars", 1);
        z->lower = jbool(j, "lowercase", 1);
        json_t *sa = json_object_get(j, "strip_accents");
        z->strip_acc = json_is_boolean(sa) ? json_is_true(sa) : z->lower;
    } else if (!strcmp(ty, "NFC")) z->kind = NZ_NFC;
    else if (!strcmp(ty, "NFD")) z->kind = NZ_NFD;
    else if (!strcmp(ty, "NFKC")) z->kind = NZ_NFKC;
    else if (!strcmp(ty, "NFKD")) z->kind = NZ_NFKD;
    else if (!strcmp(ty, "Lowercase")) z->kind = NZ_LOWER;
    else if (!strcmp(ty, "StripAccents")) z->kind = NZ_STRIPACC;
    else if (!strcmp(ty, "Strip")) { z->kind = NZ_STRIP; z->left = jbool(j, "strip_left", 1); z->right = jbool(j, "strip_right", 1); }
    else if (!strcmp(ty, "Replace")) {
        z->kind = NZ_REPLACE;
        snprintf(sub, sizeof sub, "%s.pattern", path);
        if (tj_pat_parse(json_object_get(j, "pattern"), &z->pat, e, sub)) return -1;
        json_t *c = json_object_get(j, "content");
        if (!json_is_string(c)) { snprintf(sub, sizeof sub, "%s.content", path); tj_fail(e, sub, "expected a string"); return -1; }
        z->content = sp_xstrdup(json_string_value(c));
    } else if (!strcmp(ty, "Prepend")) {
        z->kind = NZ_PREPEND;
        json_t *c = json_object_get(j, "prepend");
        if (!json_is_string(c)) { snprintf(sub, sizeof sub, "%s.prepend", path); tj_fail(e, sub, "expected a string"); return -1; }
        z->content = sp_xstrdup(json_string_value(c));
    } else if (!strcmp(ty, "Precompiled")) {
        z->kind = NZ_PRECOMP;
        return tj_precomp_parse(z, j, e, path);
    } else if (!strcmp(ty, "Sequence")) {
        z->kind = NZ_SEQ;
        json_t *a = json_object_get(j, "normalizers");
        snprintf(sub, sizeof sub, "%s.normalizers", path);
        if (!json_is_array(a)) { tj_fail(e, sub, "expected an array"); return -1; }
        z->n_sub = (int)json_array_size(a);
        z->sub = sp_xcalloc((size_t)z->n_sub + 1, sizeof *z->sub);
        for (int i = 0; i < z->n_sub; i++) {
            snprintf(sub, sizeof sub, "%s.normalizers[%d]", path, i);
            if (tj_norm_parse(&z->sub[i], json_array_get(a, (size_t)i), e, sub)) { z->n_sub = i + 1; return -1; }
        }
    } else {
        tj_fail(e, sub, "\"%s\" is not supported (supported: %s)", ty, NZ_SUPPORTED);
        return -1;
    }
    return 0;
}

static void tj_norm_free(struct tj_norm *z)
{
    for (int i = 0; i < z->n_sub; i++) tj_norm_free(&z->sub[i]);
    free(z->sub);
    tj_pat_free(&z->pat);
    free(z->content); free(z->trie); free(z->normd);
}

static int tj_is_chinese(int c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

/* Rust's char::to_lowercase: full mapping (U+0130 is the one unconditional multi-character one) */
static void tj_lower_cp(struct sp_buf *b, int c)
{
    if (c == 0x130) { tj_put_cp(b, 'i'); tj_put_cp(b, 0x307); return; }
    tj_put_cp(b, utf8proc_tolower(c));
}

static void tj_unicode_form1(struct sp_buf *out, const char *s, size_t len, int opt)
{
    if (!len) return;
    utf8proc_uint8_t *r = NULL;
    utf8proc_ssize_t k = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &r, (utf8proc_option_t)(opt | UTF8PROC_STABLE));
    if (k >= 0) sp_buf_put(out, r, (size_t)k);
    else sp_buf_put(out, s, len);
    free(r);
}

/* s is valid UTF-8 (the word was re-encoded on entry); characters new since Unicode 9.0 are
 * kept as they are and split the text, as unassigned starters would (TJ_AFTER9_NORM) */
static void tj_unicode_form(struct sp_buf *out, const char *s, size_t len, int opt)
{
    size_t a = 0, i = 0;
    while (i < len) {
        size_t w = i;
        int c = tj_next(s, len, &i);
        if (c >= 0x300 && tj_after9_norm(c)) {
            tj_unicode_form1(out, s + a, w - a, opt);
            sp_buf_put(out, s + w, i - w);
            a = i;
        }
    }
    tj_unicode_form1(out, s + a, len - a, opt);
}

/* one normalizer on s (in place through b); *at0 cleared when the first character is removed */
static void tj_normalize(const struct tj_norm *z, struct sp_buf *s, int *at0)
{
    struct sp_buf o = { 0 };
    size_t i = 0, len = s->len;
    const char *p = s->p ? s->p : "";
    int first = 1;
    switch (z->kind) {
    case NZ_SEQ:
        for (int k = 0; k < z->n_sub; k++) tj_normalize(&z->sub[k], s, at0);
        return;
    case NZ_BERT: {
        struct sp_buf t = { 0 };
        while (i < len) {
            int c = tj_next(p, len, &i);
            if (z->clean) {
                if (c == 0 || c == 0xFFFD || (c != '\t' && c != '\n' && c != '\r' && tj_is_other(c))) { if (first) *at0 = 0; first = 0; continue; }
                if (c == '\t' || c == '\n' || c == '\r' || tj_is_ws(c)) c = ' ';
            }
            first = 0;
            if (z->chinese && tj_is_chinese(c)) { tj_put_cp(&t, ' '); tj_put_cp(&t, c); tj_put_cp(&t, ' '); }
            else tj_put_cp(&t, c);
        }
        if (z->strip_acc) {
            struct sp_buf d = { 0 };
            tj_unicode_form(&d, t.p ? t.p : "", t.len, UTF8PROC_DECOMPOSE);
            t.len = 0;
            size_t q = 0; first = 1;
            while (q < d.len) {
                int c = tj_next(d.p, d.len, &q);
                if (tj_cat(c) == UTF8PROC_CATEGORY_MN && !tj_after8(c)) { if (first) *at0 = 0; first = 0; continue; }
                first = 0;
                tj_put_cp(&t, c);
            }
            sp_buf_free(&d);
        }
        if (z->lower) {
            size_t q = 0;
            while (q < t.len) tj_lower_cp(&o, tj_next(t.p, t.len, &q));
        } else if (t.len) sp_buf_put(&o, t.p, t.len);
        sp_buf_free(&t);
        break;
    }
    case NZ_NFC: tj_unicode_form(&o, p, len, UTF8PROC_COMPOSE); break;
    case NZ_NFD: tj_unicode_form(&o, p, len, UTF8PROC_DECOMPOSE); break;
    case NZ_NFKC: tj_unicode_form(&o, p, len, UTF8PROC_COMPOSE | UTF8PROC_COMPAT); break;
    case NZ_NFKD: tj_unicode_form(&o, p, len, UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT); break;
    case NZ_LOWER:
        while (i < len) tj_lower_cp(&o, tj_next(p, len, &i));
        break;
    case NZ_STRIPACC:   /* every combining mark (Mn, Mc, Me), where BertNormalizer takes Mn only */
        while (i < len) {
            int c = tj_next(p, len, &i);
            int k = tj_cat(c);
            if ((k == UTF8PROC_CATEGORY_MN || k == UTF8PROC_CATEGORY_MC || k == UTF8PROC_CATEGORY_ME) && !tj_after9_mark(c)) { if (first) *at0 = 0; first = 0; continue; }
            first = 0;
            tj_put_cp(&o, c);
        }
        break;
    case NZ_STRIP: {
        size_t a = 0, b = len;
        if (z->left) { size_t q = 0; while (q < len) { size_t w = q; if (!tj_is_ws(tj_next(p, len, &q))) { a = w; break; } a = q; } }
        if (z->right) {
            size_t q = a, last = a;
            while (q < len) { int c = tj_next(p, len, &q); if (!tj_is_ws(c)) last = q; }
            b = last;
        }
        if (a > 0) *at0 = 0;
        if (b > a) sp_buf_put(&o, p + a, b - a);
        break;
    }
    case NZ_REPLACE: {
        size_t *m = NULL; int cap = 0;
        int n = tj_pat_find(&z->pat, p, len, &m, &cap);
        size_t at = 0;
        for (int k = 0; k < n; k++) {
            if (m[2 * k] == m[2 * k + 1]) continue;
            if (m[2 * k] == 0 && !z->content[0]) *at0 = 0;
            sp_buf_put(&o, p + at, m[2 * k] - at);
            sp_buf_puts(&o, z->content);
            at = m[2 * k + 1];
        }
        sp_buf_put(&o, p + at, len - at);
        free(m);
        break;
    }
    case NZ_PREPEND:
        if (len) sp_buf_puts(&o, z->content);
        sp_buf_put(&o, p, len);
        break;
    case NZ_PRECOMP: {
        if (!z->trie_n) { sp_buf_put(&o, p, len); break; }
        utf8proc_int32_t state = 0;
        size_t g0 = 0;
        int prev = -1;
        while (g0 < len) {
            /* one extended grapheme cluster [g0, g1) */
            size_t g1 = g0, q = g0;
            prev = tj_next(p, len, &q);
            g1 = q;
            state = 0;
            while (q < len) {
                size_t w = q;
                int c = tj_next(p, len, &q);
                if (utf8proc_grapheme_break_stateful(prev, c, &state)) { q = w; break; }
                prev = c;
                g1 = q;
            }
            state = 0;
            size_t olen = 0;
            const char *r = NULL;
            if (g1 - g0 < 6) r = tj_precomp_lookup(z, p + g0, g1 - g0, &olen);
            /* at0 is kept when the first characters map to nothing: tokenizers' Precompiled adds a
             * removal's shift to the previous character's change, and the first has none, so the
             * next character takes the removed one's original offset 0 (Metaspace "first" still
             * prepends; t2241's T5 folder) */
            if (r) {
                sp_buf_put(&o, r, olen);
            } else {
                size_t c0 = g0;
                while (c0 < g1) {
                    size_t c1 = c0;
                    tj_next(p, len, &c1);
                    r = tj_precomp_lookup(z, p + c0, c1 - c0, &olen);
                    if (r) sp_buf_put(&o, r, olen);
                    else sp_buf_put(&o, p + c0, c1 - c0);
                    c0 = c1;
                }
            }
            g0 = g1;
        }
        break;
    }
    }
    s->len = 0;
    if (o.len) sp_buf_put(s, o.p, o.len);
    sp_buf_free(&o);
}

/* ---------------------------------------------------------------- pre-tokenizers */

static const char *PT_SUPPORTED = "BertPreTokenizer, Whitespace, WhitespaceSplit, ByteLevel, Metaspace, Split, Digits, Punctuation, CharDelimiterSplit, Sequence";
static const char *GPT2_RE = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

static int tj_behavior(json_t *j, const char *key, enum sb dflt, enum sb *out, struct tj_err *e, const char *path)
{
    json_t *v = json_object_get(j, key);
    *out = dflt;
    if (!v) return 0;
    const char *s = json_string_value(v);
    char sub[300];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    if (!s) { tj_fail(e, sub, "expected a string"); return -1; }
    if (!strcmp(s, "Removed")) *out = SB_REMOVED;
    else if (!strcmp(s, "Isolated")) *out = SB_ISOLATED;
    else if (!strcmp(s, "MergedWithPrevious")) *out = SB_PREV;
    else if (!strcmp(s, "MergedWithNext")) *out = SB_NEXT;
    else if (!strcmp(s, "Contiguous")) *out = SB_CONTIG;
    else { tj_fail(e, sub, "\"%s\" is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous", s); return -1; }
    return 0;
}

static int tj_pretok_parse(struct tj_pretok *t, json_t *j, int force_prefix, struct tj_err *e, const char *path)
{
    memset(t, 0, sizeof *t);
    char sub[300];
    snprintf(sub, sizeof sub, "%s.type", path);
    if (!json_is_object(j)) { tj_fail(e, path, "expected an object"); return -1; }
    const char *ty = json_string_value(json_object_get(j, "type"));
    if (!ty) { tj_fail(e, sub, "missing (expected one of: %s)", PT_SUPPORTED); return -1; }
    if (!strcmp(ty, "BertPreTokenizer")) t->kind = PT_BERT;
    else if (!strcmp(ty, "Whitespace")) {
        t->kind = PT_WS;
        t->pat.kind = R_RE;
        t->pat.re = tj_re_compile("\\w+|[^\\w\\s]+", strlen("\\w+|[^\\w\\s]+"), e, path);
        if (!t->pat.re) return -1;
    } else if (!strcmp(ty, "WhitespaceSplit")) t->kind = PT_WSSPLIT;
    else if (!strcmp(ty, "ByteLevel")) {
        t->kind = PT_BYTELEVEL;
        t->prefix_space = force_prefix ? 1 : jbool(j, "add_prefix_space", 1);
        t->use_regex = jbool(j, "use_regex", 1);
        if (t->use_regex) {
            t->pat.kind = R_RE;
            t->pat.re = tj_re_compile(GPT2_RE, strlen(GPT2_RE), e, path);
            if (!t->pat.re) return -1;
        }
    } else if (!strcmp(ty, "Metaspace")) {
        t->kind = PT_META;
        json_t *r = json_object_get(j, "replacement");
        if (!json_is_string(r) || json_string_length(r) == 0) { snprintf(sub, sizeof sub, "%s.replacement", path); tj_fail(e, sub, "expected a one-character string"); return -1; }
        t->repl = sp_xstrdup(json_string_value(r));
        t->split = jbool(j, "split", 1);
        json_t *ps = json_object_get(j, "prepend_scheme");
        if (json_is_string(ps)) {
            const char *v = json_string_value(ps);
            if (!strcmp(v, "always")) t->scheme = 0;
            else if (!strcmp(v, "first")) t->scheme = 1;
            else if (!strcmp(v, "never")) t->scheme = 2;
            else { snprintf(sub, sizeof sub, "%s.prepend_scheme", path); tj_fail(e, sub, "\"%s\" is not one of always, first, never", v); return -1; }
        } else t->scheme = jbool(j, "add_prefix_space", 1) ? 0 : 2;
    } else if (!strcmp(ty, "Split")) {
        t->kind = PT_SPLIT;
        snprintf(sub, sizeof sub, "%s.pattern", path);
        if (tj_pat_parse(json_object_get(j, "pattern"), &t->pat, e, sub)) return -1;
        if (tj_behavior(j, "behavior", SB_REMOVED, &t->behavior, e, path)) return -1;
        if (!json_object_get(j, "behavior")) { snprintf(sub, sizeof sub, "%s.behavior", path); tj_fail(e, sub, "missing"); return -1; }
        t->invert = jbool(j, "invert", 0);
    } else if (!strcmp(ty, "Digits")) { t->kind = PT_DIGITS; t->individual = jbool(j, "individual_digits", 0); }
    else if (!strcmp(ty, "Punctuation")) {
        t->kind = PT_PUNCT;
        if (tj_behavior(j, "behavior", SB_ISOLATED, &t->behavior, e, path)) return -1;
    } else if (!strcmp(ty, "CharDelimiterSplit")) {
        t->kind = PT_CHAR;
        json_t *d = json_object_get(j, "delimiter");
        size_t q = 0;
        if (!json_is_string(d) || json_string_length(d) == 0) { snprintf(sub, sizeof sub, "%s.delimiter", path); tj_fail(e, sub, "expected a one-character string"); return -1; }
        t->delim = tj_next(json_string_value(d), json_string_length(d), &q);
    } else if (!strcmp(ty, "Sequence")) {
        t->kind = PT_SEQ;
        json_t *a = json_object_get(j, "pretokenizers");
        snprintf(sub, sizeof sub, "%s.pretokenizers", path);
        if (!json_is_array(a)) { tj_fail(e, sub, "expected an array"); return -1; }
        t->n_sub = (int)json_array_size(a);
        t->sub = sp_xcalloc((size_t)t->n_sub + 1, sizeof *t->sub);
        for (int i = 0; i < t->n_sub; i++) {
            snprintf(sub, sizeof sub, "%s.pretokenizers[%d]", path, i);
            /* transformers sets add_prefix_space on a top-level ByteLevel only: one in a Sequence keeps the file's */
            if (tj_pretok_parse(&t->sub[i], json_array_get(a, (size_t)i), 0, e, sub)) { t->n_sub = i + 1; return -1; }
        }
    } else {
        tj_fail(e, sub, "\"%s\" is not supported (supported: %s)", ty, PT_SUPPORTED);
        return -1;
    }
    return 0;
}

static void tj_pretok_free(struct tj_pretok *t)
{
    for (int i = 0; i < t->n_sub; i++) tj_pretok_free(&t->sub[i]);
    free(t->sub);
    free(t->repl);
    tj_pat_free(&t->pat);
}

/* split one segment by matches (start, end pairs; is_match per piece, inverted when asked) with a
 * behaviour (tokenizers' NormalizedString::split); the pieces go to out, empty ones dropped */
static void tj_split_apply(const struct seg *g, const size_t *m, int n, int invert, enum sb b, struct segs *out)
{
    /* the pieces: (start, end, is_match) covering the segment */
    int cap = 2 * n + 2, k = 0;
    size_t *ps = sp_xmalloc((size_t)cap * sizeof *ps), *pe = sp_xmalloc((size_t)cap * sizeof *pe);
    int *pm = sp_xmalloc((size_t)cap * sizeof *pm);
    if (g->len == 0) { ps[0] = 0; pe[0] = 0; pm[0] = 0; k = 1; }
    else {
        size_t prev = 0;
        for (int i = 0; i < n; i++) {
            if (prev != m[2 * i]) { ps[k] = prev; pe[k] = m[2 * i]; pm[k++] = 0; }
            ps[k] = m[2 * i]; pe[k] = m[2 * i + 1]; pm[k++] = 1;
            prev = m[2 * i + 1];
        }
        if (prev != g->len) { ps[k] = prev; pe[k] = g->len; pm[k++] = 0; }
    }
    if (invert) for (int i = 0; i < k; i++) pm[i] = !pm[i];
    /* the behaviour: r* are the resulting pieces; rm = 1 for removed */
    size_t *rs = sp_xmalloc((size_t)cap * sizeof *rs), *re = sp_xmalloc((size_t)cap * sizeof *re);
    int *rm = sp_xmalloc((size_t)cap * sizeof *rm), r = 0, prevm = 0;
    switch (b) {
    case SB_REMOVED: case SB_ISOLATED:
        for (int i = 0; i < k; i++) { rs[r] = ps[i]; re[r] = pe[i]; rm[r++] = b == SB_REMOVED && pm[i]; }
        break;
    case SB_PREV:
        for (int i = 0; i < k; i++) {
            if (pm[i] && !prevm) { if (r) re[r - 1] = pe[i]; else { rs[r] = ps[i]; re[r] = pe[i]; rm[r++] = 0; } }
            else { rs[r] = ps[i]; re[r] = pe[i]; rm[r++] = 0; }
            prevm = pm[i];
        }
        break;
    case SB_NEXT:
        for (int i = k - 1; i >= 0; i--) {
            if (pm[i] && !prevm) { if (r) rs[r - 1] = ps[i]; else { rs[r] = ps[i]; re[r] = pe[i]; rm[r++] = 0; } }
            else { rs[r] = ps[i]; re[r] = pe[i]; rm[r++] = 0; }
            prevm = pm[i];
        }
        for (int i = 0; i < r / 2; i++) {
            size_t t = rs[i]; rs[i] = rs[r - 1 - i]; rs[r - 1 - i] = t;
            t = re[i]; re[i] = re[r - 1 - i]; re[r - 1 - i] = t;
        }
        break;
    case SB_CONTIG:
        for (int i = 0; i < k; i++) {
            if (pm[i] == prevm) { if (r) re[r - 1] = pe[i]; else { rs[r] = ps[i]; re[r] = pe[i]; rm[r++] = 0; } }
            else { rs[r] = ps[i]; re[r] = pe[i]; rm[r++] = 0; }
            prevm = pm[i];
        }
        break;
    }
    for (int i = 0; i < r; i++)
        if (!rm[i] && re[i] > rs[i]) segs_push(out, g->s + rs[i], re[i] - rs[i], -1, g->at0 && rs[i] == 0);
    free(ps); free(pe); free(pm); free(rs); free(re); free(rm);
}

/* matches of a character predicate: each matching character its own match */
static int tj_char_find(const char *s, size_t len, int (*pred)(int, int), int arg, size_t **m, int *cap)
{
    int n = 0;
    size_t i = 0;
    while (i < len) {
        size_t w = i;
        int c = tj_next(s, len, &i);
        if (pred(c, arg)) {
            if (2 * (n + 1) > *cap) { *cap = *cap ? 2 * *cap : 16; *m = sp_xrealloc(*m, (size_t)*cap * sizeof **m); }
            (*m)[2 * n] = w; (*m)[2 * n + 1] = i; n++;
        }
    }
    return n;
}
static int p_ws(int c, int a) { (void)a; return tj_is_ws(c); }
static int p_punct(int c, int a) { (void)a; return tj_is_punct(c); }
static int p_digit(int c, int a) { (void)a; return tj_is_numeric(c); }
static int p_eq(int c, int a) { return c == a; }

static const char *tj_byte_char(int b, char *buf)
{
    /* GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100.. */
    int c;
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)) c = b;
    else {
        int n = 0;
        for (int x = 0; x < b; x++)
            if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174 && x <= 255))) n++;
        c = 256 + n;
    }
    utf8proc_ssize_t k = utf8proc_encode_char(c, (utf8proc_uint8_t *)buf);
    buf[k] = 0;
    return buf;
}

/* one pre-tokenizer on the text segments of in → out (added-token segments pass through) */
static void tj_pretokenize(const struct tj_pretok *t, struct segs *in)
{
    if (t->kind == PT_SEQ) {
        for (int i = 0; i < t->n_sub; i++) tj_pretokenize(&t->sub[i], in);
        return;
    }
    struct segs out = { 0 };
    size_t *m = NULL;
    int cap = 0;
    for (int i = 0; i < in->n; i++) {
        struct seg *g = &in->v[i];
        if (g->id >= 0) { segs_push(&out, g->s, g->len, g->id, g->at0); continue; }
        int n;
        switch (t->kind) {
        case PT_BERT: {
            struct segs tmp = { 0 };
            n = tj_char_find(g->s, g->len, p_ws, 0, &m, &cap);
            tj_split_apply(g, m, n, 0, SB_REMOVED, &tmp);
            for (int k = 0; k < tmp.n; k++) {
                n = tj_char_find(tmp.v[k].s, tmp.v[k].len, p_punct, 0, &m, &cap);
                tj_split_apply(&tmp.v[k], m, n, 0, SB_ISOLATED, &out);
            }
            segs_free(&tmp);
            break;
        }
        case PT_WS:
            n = tj_pat_find(&t->pat, g->s, g->len, &m, &cap);
            tj_split_apply(g, m, n, 1, SB_REMOVED, &out);
            break;
        case PT_WSSPLIT:
            n = tj_char_find(g->s, g->len, p_ws, 0, &m, &cap);
            tj_split_apply(g, m, n, 0, SB_REMOVED, &out);
            break;
        case PT_CHAR:
            n = tj_char_find(g->s, g->len, p_eq, t->delim, &m, &cap);
            tj_split_apply(g, m, n, 0, SB_REMOVED, &out);
            break;
        case PT_PUNCT:
            n = tj_char_find(g->s, g->len, p_punct, 0, &m, &cap);
            tj_split_apply(g, m, n, 0, t->behavior, &out);
            break;
        case PT_DIGITS:
            n = tj_char_find(g->s, g->len, p_digit, 0, &m, &cap);
            tj_split_apply(g, m, n, 0, t->individual ? SB_ISOLATED : SB_CONTIG, &out);
            break;
        case PT_SPLIT:
            n = tj_pat_find(&t->pat, g->s, g->len, &m, &cap);
            tj_split_apply(g, m, n, t->invert, t->behavior, &out);
            break;
        case PT_META: {
            struct sp_buf b = { 0 };
            for (size_t k = 0; k < g->len; k++) {
                if (g->s[k] == ' ') sp_buf_puts(&b, t->repl);
                else sp_buf_put(&b, g->s + k, 1);
            }
            size_t rl = strlen(t->repl);
            int starts = b.len >= rl && !memcmp(b.p, t->repl, rl);
            if (b.len && !starts && (t->scheme == 0 || (t->scheme == 1 && g->at0))) {
                struct sp_buf c = { 0 };
                sp_buf_puts(&c, t->repl);
                sp_buf_put(&c, b.p, b.len);
                sp_buf_free(&b);
                b = c;
            }
            struct seg h = { b.p ? b.p : (char *)"", b.len, -1, g->at0 };
            if (t->split) {
                size_t q = 0;
                int rc;
                size_t i0 = 0;
                (void)i0;
                /* matches of the replacement character */
                int cp = tj_next(t->repl, rl, &q);
                n = tj_char_find(h.s, h.len, p_eq, cp, &m, &cap);
                (void)rc;
                tj_split_apply(&h, m, n, 0, SB_NEXT, &out);
            } else if (h.len) segs_push(&out, h.s, h.len, -1, h.at0);
            sp_buf_free(&b);
            break;
        }
        case PT_BYTELEVEL: {
            struct sp_buf b = { 0 };
            if (t->prefix_space && !(g->len && g->s[0] == ' ')) sp_buf_puts(&b, " ");
            sp_buf_put(&b, g->s, g->len);
            struct seg h = { b.p ? b.p : (char *)"", b.len, -1, g->at0 };
            struct segs tmp = { 0 };
            if (t->use_regex) {
                n = tj_pat_find(&t->pat, h.s, h.len, &m, &cap);
                tj_split_apply(&h, m, n, 0, SB_ISOLATED, &tmp);
            } else if (h.len) segs_push(&tmp, h.s, h.len, -1, h.at0);
            for (int k = 0; k < tmp.n; k++) {
                struct sp_buf c = { 0 };
                char u[8];
                for (size_t q = 0; q < tmp.v[k].len; q++) sp_buf_puts(&c, tj_byte_char((unsigned char)tmp.v[k].s[q], u));
                segs_push(&out, c.p, c.len, -1, tmp.v[k].at0);
                sp_buf_free(&c);
            }
            segs_free(&tmp);
            sp_buf_free(&b);
            break;
        }
        case PT_SEQ: break;
        }
    }
    free(m);
    segs_free(in);
    *in = out;
}

/* ---------------------------------------------------------------- models */

static uint64_t pair_key(int a, int b) { return (uint64_t)(uint32_t)a << 32 | (uint32_t)b; }

static size_t merge_slot(const struct enc_tokjson *t, uint64_t k)
{
    size_t i = (size_t)((k * 0x9E3779B97F4A7C15ULL) >> 20) & (t->mcap - 1);
    while (t->mkey[i] != UINT64_MAX && t->mkey[i] != k) i = (i + 1) & (t->mcap - 1);
    return i;
}

static int tj_vocab_add(struct enc_tokjson *t, const char *s, size_t n, int id)
{
    tj_map_set(&t->vocab, s, n, id);
    return 0;
}

static void tj_piece_set(struct enc_tokjson *t, int id, const char *s, size_t n);

static int tj_model_parse(struct enc_tokjson *t, json_t *j, struct tj_err *e)
{
    if (!json_is_object(j)) { tj_fail(e, "model", "missing or not an object"); return -1; }
    const char *ty = json_string_value(json_object_get(j, "type"));
    json_t *vocab = json_object_get(j, "vocab");
    if (!ty) {   /* older files leave the type out: tell by the fields */
        if (json_object_get(j, "merges")) ty = "BPE";
        else if (json_is_array(vocab)) ty = "Unigram";
        else if (json_object_get(j, "max_input_chars_per_word")) ty = "WordPiece";
        else { tj_fail(e, "model.type", "missing (expected one of: WordPiece, BPE, Unigram)"); return -1; }
    }
    if (!strcmp(ty, "WordPiece") || !strcmp(ty, "BPE")) {
        t->model = ty[0] == 'W' ? MD_WORDPIECE : MD_BPE;
        if (!json_is_object(vocab)) { tj_fail(e, "model.vocab", "missing or not an object of token: id"); return -1; }
        const char *k; json_t *v;
        json_object_foreach(vocab, k, v) {
            if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT32_MAX - 1) {
                char sub[300]; snprintf(sub, sizeof sub, "model.vocab[\"%.100s\"]", k);
                tj_fail(e, sub, "expected a non-negative integer id"); return -1;
            }
            tj_vocab_add(t, k, strlen(k), (int)json_integer_value(v));
        }
        if (json_object_size(vocab) == 0) { tj_fail(e, "model.vocab", "empty"); return -1; }
        json_t *u = json_object_get(j, "unk_token");
        t->unk = -1;
        if (json_is_string(u)) {
            t->unk = tj_map_get(&t->vocab, json_string_value(u), json_string_length(u));
            if (t->unk < 0 && t->model == MD_WORDPIECE) { tj_fail(e, "model.unk_token", "\"%s\" is not in the vocabulary", json_string_value(u)); return -1; }
            if (t->unk < 0) { tj_fail(e, "model.unk_token", "\"%s\" is not in the vocabulary", json_string_value(u)); return -1; }
        } else if (t->model == MD_WORDPIECE) { tj_fail(e, "model.unk_token", "missing"); return -1; }
        json_t *p = json_object_get(j, "continuing_subword_prefix");
        if (json_is_string(p)) t->prefix = sp_xstrdup(json_string_value(p));
        else if (t->model == MD_WORDPIECE) t->prefix = sp_xstrdup("##");
        if (t->model == MD_WORDPIECE) {
            json_t *mx = json_object_get(j, "max_input_chars_per_word");
            t->max_chars = json_is_integer(mx) ? (int)json_integer_value(mx) : 100;
            return 0;
        }
        json_t *sfx = json_object_get(j, "end_of_word_suffix");
        if (json_is_string(sfx)) t->suffix = sp_xstrdup(json_string_value(sfx));
        json_t *d = json_object_get(j, "dropout");
        if (d && !json_is_null(d) && !(json_is_number(d) && json_number_value(d) == 0.0)) {
            tj_fail(e, "model.dropout", "must be null or 0 (a random tokenization is not reproducible)"); return -1;
        }
        t->byte_fallback = jbool(j, "byte_fallback", 0);
        t->fuse_unk = jbool(j, "fuse_unk", 0);
        t->ignore_merges = jbool(j, "ignore_merges", 0);
        json_t *mg = json_object_get(j, "merges");
        if (!json_is_array(mg)) { tj_fail(e, "model.merges", "missing or not an array"); return -1; }
        size_t nm = json_array_size(mg);
        t->mcap = 16;
        while (t->mcap < 2 * nm + 2) t->mcap *= 2;
        t->mkey = sp_xmalloc(t->mcap * sizeof *t->mkey);
        memset(t->mkey, 0xFF, t->mcap * sizeof *t->mkey);
        t->mrank = sp_xcalloc(t->mcap, sizeof *t->mrank);
        t->mnew = sp_xcalloc(t->mcap, sizeof *t->mnew);
        size_t plen = t->prefix ? strlen(t->prefix) : 0;
        struct sp_buf nb = { 0 };
        for (size_t i = 0; i < nm; i++) {
            json_t *x = json_array_get(mg, i);
            char sub[300]; snprintf(sub, sizeof sub, "model.merges[%zu]", i);
            const char *a, *b; size_t al, bl;
            if (json_is_string(x)) {
                const char *s = json_string_value(x);
                const char *sp = strchr(s, ' ');
                if (!sp || strchr(sp + 1, ' ')) { sp_buf_free(&nb); tj_fail(e, sub, "expected \"A B\" (two tokens, one space): \"%.80s\"", s); return -1; }
                a = s; al = (size_t)(sp - s); b = sp + 1; bl = strlen(b);
            } else if (json_is_array(x) && json_array_size(x) == 2 && json_is_string(json_array_get(x, 0)) && json_is_string(json_array_get(x, 1))) {
                a = json_string_value(json_array_get(x, 0)); al = json_string_length(json_array_get(x, 0));
                b = json_string_value(json_array_get(x, 1)); bl = json_string_length(json_array_get(x, 1));
            } else { sp_buf_free(&nb); tj_fail(e, sub, "expected \"A B\" or [\"A\", \"B\"]"); return -1; }
            int ia = tj_map_get(&t->vocab, a, al), ib = tj_map_get(&t->vocab, b, bl);
            if (ia < 0 || ib < 0) { sp_buf_free(&nb); tj_fail(e, sub, "\"%.*s\" is not in the vocabulary", (int)(ia < 0 ? al : bl), ia < 0 ? a : b); return -1; }
            nb.len = 0;
            sp_buf_put(&nb, a, al);
            if (bl >= plen) sp_buf_put(&nb, b + plen, bl - plen);
            int in = tj_map_get(&t->vocab, nb.p, nb.len);
            if (in < 0) { sp_buf_free(&nb); tj_fail(e, sub, "the merged token \"%.*s\" is not in the vocabulary", (int)nb.len, nb.p); return -1; }
            uint64_t k = pair_key(ia, ib);
            size_t sl = merge_slot(t, k);
            t->mkey[sl] = k; t->mrank[sl] = (int)i; t->mnew[sl] = in;
        }
        sp_buf_free(&nb);
        return 0;
    }
    if (!strcmp(ty, "Unigram")) {
        t->model = MD_UNIGRAM;
        if (!json_is_array(vocab) || json_array_size(vocab) == 0) { tj_fail(e, "model.vocab", "missing or not a non-empty array of [piece, score]"); return -1; }
        size_t n = json_array_size(vocab);
        t->score = sp_xmalloc(n * sizeof *t->score);
        t->min_score = 1e300;
        for (size_t i = 0; i < n; i++) {
            json_t *x = json_array_get(vocab, i);
            if (!json_is_array(x) || json_array_size(x) != 2 || !json_is_string(json_array_get(x, 0)) || !json_is_number(json_array_get(x, 1))) {
                char sub[300]; snprintf(sub, sizeof sub, "model.vocab[%zu]", i);
                tj_fail(e, sub, "expected [piece, score]"); return -1;
            }
            size_t l = json_string_length(json_array_get(x, 0));
            tj_vocab_add(t, json_string_value(json_array_get(x, 0)), l, (int)i);
            /* every position is an id, a repeated piece too (its text maps to the last one) */
            tj_piece_set(t, (int)i, json_string_value(json_array_get(x, 0)), l);
            t->score[i] = json_number_value(json_array_get(x, 1));
            if (t->score[i] < t->min_score) t->min_score = t->score[i];
            if (l > t->max_piece_len) t->max_piece_len = l;
        }
        json_t *u = json_object_get(j, "unk_id");
        t->unk = -1;
        if (json_is_integer(u)) {
            if (json_integer_value(u) < 0 || (size_t)json_integer_value(u) >= n) { tj_fail(e, "model.unk_id", "%lld is outside the vocabulary (%zu pieces)", (long long)json_integer_value(u), n); return -1; }
            t->unk = (int)json_integer_value(u);
        }
        t->byte_fallback = jbool(j, "byte_fallback", 0);
        return 0;
    }
    tj_fail(e, "model.type", "\"%s\" is not supported (supported: WordPiece, BPE, Unigram)", ty);
    return -1;
}

static void pieces_push(struct enc_pieces *p, int id)
{
    if (p->n == p->cap) { p->cap = p->cap ? 2 * p->cap : 16; p->id = sp_xrealloc(p->id, (size_t)p->cap * sizeof *p->id); }
    p->id[p->n++] = id;
}

static int tj_wordpiece(const struct enc_tokjson *t, const char *s, size_t len, struct enc_pieces *out)
{
    size_t nch = 0;
    for (size_t i = 0; i < len;) { tj_next(s, len, &i); nch++; }
    if ((long)nch > t->max_chars) { pieces_push(out, t->unk); return 0; }
    int n0 = out->n;
    struct sp_buf b = { 0 };
    size_t start = 0, plen = strlen(t->prefix);
    while (start < len) {
        size_t end = len;
        int found = -1;
        while (start < end) {
            b.len = 0;
            if (start > 0) sp_buf_put(&b, t->prefix, plen);
            sp_buf_put(&b, s + start, end - start);
            int id = tj_map_get(&t->vocab, b.p, b.len);
            if (id >= 0) { found = id; break; }
            /* back one character */
            do end--; while (end > start && ((unsigned char)s[end] & 0xC0) == 0x80);
        }
        if (found < 0) { out->n = n0; pieces_push(out, t->unk); sp_buf_free(&b); return 0; }
        pieces_push(out, found);
        start = end;
    }
    sp_buf_free(&b);
    return 0;
}

static int tj_byte_ids(const struct enc_tokjson *t, const char *s, size_t n, int *ids)
{
    char k[8];
    for (size_t i = 0; i < n; i++) {
        snprintf(k, sizeof k, "<0x%02X>", (unsigned char)s[i]);
        ids[i] = tj_map_get(&t->vocab, k, 6);
        if (ids[i] < 0) return -1;
    }
    return 0;
}

static int tj_bpe(const struct enc_tokjson *t, const char *s, size_t len, struct enc_pieces *out)
{
    if (!len) return 0;
    if (t->ignore_merges) {
        int id = tj_map_get(&t->vocab, s, len);
        if (id >= 0) { pieces_push(out, id); return 0; }
    }
    int n = 0, cap = 16;
    int *sym = sp_xmalloc((size_t)cap * sizeof *sym);
    int unk_pending = 0;
    struct sp_buf b = { 0 };
    size_t plen = t->prefix ? strlen(t->prefix) : 0;
    int ids[64];
    for (size_t i = 0; i < len;) {
        size_t w = i;
        tj_next(s, len, &i);
        b.len = 0;
        if (w > 0 && t->prefix) sp_buf_put(&b, t->prefix, plen);
        sp_buf_put(&b, s + w, i - w);
        if (i >= len && t->suffix) sp_buf_puts(&b, t->suffix);
        int id = tj_map_get(&t->vocab, b.p, b.len);
        if (n + (int)b.len + 2 > cap) { cap = 2 * cap + (int)b.len + 2; sym = sp_xrealloc(sym, (size_t)cap * sizeof *sym); }
        if (id >= 0) {
            if (unk_pending) { sym[n++] = t->unk; unk_pending = 0; }
            sym[n++] = id;
            continue;
        }
        if (t->byte_fallback && b.len <= 64 && !tj_byte_ids(t, b.p, b.len, ids)) {
            for (size_t q = 0; q < b.len; q++) sym[n++] = ids[q];
            continue;
        }
        if (t->unk >= 0) {
            if (unk_pending && !t->fuse_unk) sym[n++] = t->unk;
            unk_pending = 1;
        }
    }
    if (unk_pending) sym[n++] = t->unk;
    sp_buf_free(&b);
    /* merges: the lowest rank first, leftmost on ties */
    while (n > 1) {
        int best = -1, brank = 0, bnew = 0;
        for (int i = 0; i + 1 < n; i++) {
            size_t sl = merge_slot(t, pair_key(sym[i], sym[i + 1]));
            if (t->mkey[sl] == UINT64_MAX) continue;
            if (best < 0 || t->mrank[sl] < brank) { best = i; brank = t->mrank[sl]; bnew = t->mnew[sl]; }
        }
        if (best < 0) break;
        sym[best] = bnew;
        memmove(sym + best + 1, sym + best + 2, (size_t)(n - best - 2) * sizeof *sym);
        n--;
    }
    for (int i = 0; i < n; i++) pieces_push(out, sym[i]);
    free(sym);
    return 0;
}

static int tj_unigram(const struct enc_tokjson *t, const char *s, size_t len, struct enc_pieces *out, struct tj_err *e)
{
    if (!len) return 0;
    double *best = sp_xmalloc((len + 1) * sizeof *best);
    long *from = sp_xmalloc((len + 1) * sizeof *from);
    int *bid = sp_xmalloc((len + 1) * sizeof *bid);
    for (size_t i = 0; i <= len; i++) { from[i] = -1; best[i] = 0; bid[i] = -1; }
    double unk_score = t->min_score - 10.0;
    size_t at = 0;
    while (at < len) {
        double here = best[at];
        size_t q = at;
        tj_next(s, len, &q);
        size_t mblen = q - at;
        int single = 0;
        /* every vocabulary piece that starts here, shortest first (tokenizers walks a trie) */
        size_t end = at;
        while (end < len && end - at < t->max_piece_len) {
            tj_next(s, len, &end);
            if (end - at > t->max_piece_len) break;
            int id = tj_map_get(&t->vocab, s + at, end - at);
            if (id < 0) continue;
            double c = t->score[id] + here;
            if (from[end] < 0 || c > best[end]) { best[end] = c; from[end] = (long)at; bid[end] = id; }
            if (end - at == mblen) single = 1;
        }
        if (!single) {
            if (t->unk < 0) {
                free(best); free(from); free(bid);
                tj_fail(e, NULL, "a character has no piece and the Unigram model has no unk_id");
                return -1;
            }
            double c = unk_score + here;
            if (from[at + mblen] < 0 || c > best[at + mblen]) { best[at + mblen] = c; from[at + mblen] = (long)at; bid[at + mblen] = t->unk; }
        }
        at += mblen;
    }
    /* back from the end: consecutive unknown pieces fuse into one */
    int cap = 16, n = 0;
    size_t *ps = sp_xmalloc((size_t)cap * sizeof *ps), *pe = sp_xmalloc((size_t)cap * sizeof *pe);
    size_t endp = len;
    size_t unk_end = 0; int in_unk = 0;
    while (endp > 0) {
        size_t st = (size_t)from[endp];
        if (n + 2 > cap) { cap *= 2; ps = sp_xrealloc(ps, (size_t)cap * sizeof *ps); pe = sp_xrealloc(pe, (size_t)cap * sizeof *pe); }
        if (t->unk >= 0 && bid[endp] == t->unk) {
            if (!in_unk) { in_unk = 1; unk_end = endp; }
        } else {
            if (in_unk) { ps[n] = endp; pe[n++] = unk_end; in_unk = 0; }
            ps[n] = st; pe[n++] = endp;
        }
        endp = st;
    }
    if (in_unk) { ps[n] = 0; pe[n++] = unk_end; }
    for (int i = n - 1; i >= 0; i--) {
        size_t l = pe[i] - ps[i];
        int id = tj_map_get(&t->vocab, s + ps[i], l);
        if (id < 0 && t->byte_fallback) {
            int *ids = sp_xmalloc(l * sizeof *ids);
            if (!tj_byte_ids(t, s + ps[i], l, ids)) {
                for (size_t k = 0; k < l; k++) pieces_push(out, ids[k]);
                free(ids);
                continue;
            }
            free(ids);
        }
        if (id < 0) id = t->unk;
        pieces_push(out, id);
    }
    free(ps); free(pe); free(best); free(from); free(bid);
    return 0;
}

/* ---------------------------------------------------------------- post-processors */

static const char *PP_SUPPORTED = "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence";

static void ids_push(int32_t **a, int *n, int id) { *a = sp_xrealloc(*a, (size_t)(*n + 1) * sizeof **a); (*a)[(*n)++] = id; }

static int tj_special_pair(json_t *j, const char *key, int *id, struct tj_err *e, const char *path)
{
    json_t *p = json_object_get(j, key);
    char sub[300]; snprintf(sub, sizeof sub, "%s.%s", path, key);
    if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_string(json_array_get(p, 0)) || !json_is_integer(json_array_get(p, 1))) {
        tj_fail(e, sub, "expected [token, id]"); return -1;
    }
    *id = (int)json_integer_value(json_array_get(p, 1));
    return 0;
}

static int tj_post_parse(struct enc_tokjson *t, json_t *j, struct tj_err *e, const char *path)
{
    char sub[300];
    snprintf(sub, sizeof sub, "%s.type", path);
    if (!json_is_object(j)) { tj_fail(e, path, "expected an object"); return -1; }
    const char *ty = json_string_value(json_object_get(j, "type"));
    if (!ty) { tj_fail(e, sub, "missing (expected one of: %s)", PP_SUPPORTED); return -1; }
    if (!strcmp(ty, "ByteLevel")) return 0;
    if (!strcmp(ty, "BertProcessing") || !strcmp(ty, "RobertaProcessing")) {
        int cls, sep;
        if (tj_special_pair(j, "cls", &cls, e, path) || tj_special_pair(j, "sep", &sep, e, path)) return -1;
        int32_t *np = NULL; int nn = 0;
        ids_push(&np, &nn, cls);
        for (int i = 0; i < t->n_pre; i++) ids_push(&np, &nn, t->pre[i]);
        free(t->pre); t->pre = np; t->n_pre = nn;
        ids_push(&t->post, &t->n_post, sep);
        return 0;
    }
    if (!strcmp(ty, "Sequence")) {
        json_t *a = json_object_get(j, "processors");
        snprintf(sub, sizeof sub, "%s.processors", path);
        if (!json_is_array(a)) { tj_fail(e, sub, "expected an array"); return -1; }
        for (size_t i = 0; i < json_array_size(a); i++) {
            snprintf(sub, sizeof sub, "%s.processors[%zu]", path, i);
            if (tj_post_parse(t, json_array_get(a, i), e, sub)) return -1;
        }
        return 0;
    }
    if (!strcmp(ty, "TemplateProcessing")) {
        json_t *single = json_object_get(j, "single"), *sp = json_object_get(j, "special_tokens");
        snprintf(sub, sizeof sub, "%s.single", path);
        if (!json_is_array(single)) { tj_fail(e, sub, "expected an array"); return -1; }
        int32_t *np = NULL, *nq = NULL; int nn = 0, nqn = 0, seen = 0;
        for (size_t i = 0; i < json_array_size(single); i++) {
            json_t *x = json_array_get(single, i);
            char s2[320]; snprintf(s2, sizeof s2, "%s.single[%zu]", path, i);
            json_t *st = json_object_get(x, "SpecialToken"), *sq = json_object_get(x, "Sequence");
            if (sq) {
                const char *sid = json_string_value(json_object_get(sq, "id"));
                if (!sid || strcmp(sid, "A") || seen) { free(np); free(nq); tj_fail(e, s2, "a single-sequence template holds $A once"); return -1; }
                seen = 1;
                continue;
            }
            const char *tid = json_string_value(json_object_get(st, "id"));
            if (!tid) { free(np); free(nq); tj_fail(e, s2, "expected {\"SpecialToken\": {\"id\": ...}} or {\"Sequence\": ...}"); return -1; }
            json_t *def = json_object_get(sp, tid);
            json_t *ids = json_object_get(def, "ids");
            if (!json_is_array(ids)) { free(np); free(nq); snprintf(s2, sizeof s2, "%s.special_tokens", path); tj_fail(e, s2, "\"%s\" is not defined (with its ids)", tid); return -1; }
            for (size_t k = 0; k < json_array_size(ids); k++) {
                json_t *v = json_array_get(ids, k);
                if (!json_is_integer(v)) { free(np); free(nq); snprintf(s2, sizeof s2, "%s.special_tokens[\"%s\"].ids[%zu]", path, tid, k); tj_fail(e, s2, "expected an integer"); return -1; }
                if (seen) ids_push(&nq, &nqn, (int)json_integer_value(v));
                else ids_push(&np, &nn, (int)json_integer_value(v));
            }
        }
        if (!seen) { free(np); free(nq); tj_fail(e, sub, "no $A in the template"); return -1; }
        for (int i = 0; i < t->n_pre; i++) ids_push(&np, &nn, t->pre[i]);
        free(t->pre); t->pre = np; t->n_pre = nn;
        for (int i = 0; i < nqn; i++) ids_push(&t->post, &t->n_post, nq[i]);
        free(nq);
        return 0;
    }
    tj_fail(e, sub, "\"%s\" is not supported (supported: %s)", ty, PP_SUPPORTED);
    return -1;
}

/* ---------------------------------------------------------------- load */

int enc_tokjson_class_prefix_space(const char *c)
{
    static const char *const cls[] = { "RobertaTokenizer", "GPT2Tokenizer", "BartTokenizer", "LongformerTokenizer",
        "BlenderbotTokenizer", "LEDTokenizer", "MvpTokenizer", "DebertaTokenizer", "CodeGenTokenizer", "MarkupLMTokenizer",
        "GPTNeoXTokenizer", "WhisperTokenizer", "CamembertTokenizer_", NULL };
    if (!c) return 0;
    size_t n = strlen(c);
    if (n > 4 && !strcmp(c + n - 4, "Fast")) n -= 4;
    for (int i = 0; cls[i]; i++) if (strlen(cls[i]) == n && !strncmp(cls[i], c, n)) return 1;
    return 0;
}

void enc_tokjson_free(struct enc_tokjson *t)
{
    if (!t) return;
    if (t->norm) { tj_norm_free(t->norm); free(t->norm); }
    if (t->pretok) { tj_pretok_free(t->pretok); free(t->pretok); }
    tj_map_free(&t->vocab); tj_map_free(&t->all);
    for (int i = 0; i < t->n_piece; i++) free(t->piece[i]);
    free(t->piece);
    free(t->prefix); free(t->suffix);
    free(t->mkey); free(t->mrank); free(t->mnew); free(t->score);
    for (int i = 0; i < t->n_added; i++) { free(t->added[i].content); free(t->added[i].norm); }
    free(t->added);
    free(t->pre); free(t->post);
    free(t->name);
    free(t);
}

static void tj_piece_set(struct enc_tokjson *t, int id, const char *s, size_t n)
{
    if (id >= t->n_piece) {
        int nn = id + 1;
        t->piece = sp_xrealloc(t->piece, (size_t)nn * sizeof *t->piece);
        memset(t->piece + t->n_piece, 0, (size_t)(nn - t->n_piece) * sizeof *t->piece);
        t->n_piece = nn;
    }
    free(t->piece[id]);
    t->piece[id] = sp_xmalloc(n + 1);
    memcpy(t->piece[id], s, n);
    t->piece[id][n] = 0;
    tj_map_set(&t->all, s, n, id);
}

struct enc_tokjson *enc_tokjson_load_mem(const char *text, size_t len, const char *name,
                                         const struct enc_tokjson_opts *opts, char *err, size_t errlen)
{
    struct tj_err e = { err, errlen, name };
    if (err && errlen) err[0] = 0;
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (!root) { tj_fail(&e, NULL, "not JSON: %s (line %d, column %d)", je.text, je.line, je.column); return NULL; }
    struct enc_tokjson *t = sp_xcalloc(1, sizeof *t);
    t->name = sp_xstrdup(name);
    t->unk = -1;
    int force = !opts || opts->prefix_space == ENC_TOKJSON_PREFIX_ON;
    if (!json_is_object(root)) { tj_fail(&e, NULL, "expected a JSON object"); goto fail; }
    if (tj_model_parse(t, json_object_get(root, "model"), &e)) goto fail;
    json_t *nz = json_object_get(root, "normalizer");
    if (nz && !json_is_null(nz)) {
        t->norm = sp_xcalloc(1, sizeof *t->norm);
        if (tj_norm_parse(t->norm, nz, &e, "normalizer")) goto fail;
    }
    json_t *pt = json_object_get(root, "pre_tokenizer");
    if (pt && !json_is_null(pt)) {
        t->pretok = sp_xcalloc(1, sizeof *t->pretok);
        if (tj_pretok_parse(t->pretok, pt, force, &e, "pre_tokenizer")) goto fail;
    }
    json_t *pp = json_object_get(root, "post_processor");
    if (pp && !json_is_null(pp) && tj_post_parse(t, pp, &e, "post_processor")) goto fail;
    /* id → piece: the model's vocabulary, then the added tokens */
    for (size_t i = 0; i < t->vocab.cap; i++)
        if (t->vocab.key[i]) tj_piece_set(t, t->vocab.val[i], t->vocab.key[i], t->vocab.klen[i]);
    json_t *at = json_object_get(root, "added_tokens");
    if (at && !json_is_null(at)) {
        if (!json_is_array(at)) { tj_fail(&e, "added_tokens", "expected an array"); goto fail; }
        t->added = sp_xcalloc(json_array_size(at) + 1, sizeof *t->added);
        for (size_t i = 0; i < json_array_size(at); i++) {
            json_t *x = json_array_get(at, i);
            char sub[64]; snprintf(sub, sizeof sub, "added_tokens[%zu]", i);
            json_t *c = json_object_get(x, "content"), *id = json_object_get(x, "id");
            if (!json_is_string(c) || !json_is_integer(id) || json_integer_value(id) < 0 || json_integer_value(id) > INT32_MAX - 1) {
                tj_fail(&e, sub, "expected {\"id\": non-negative integer, \"content\": string, ...}"); goto fail;
            }
            struct tj_added *a = &t->added[t->n_added++];
            a->len = json_string_length(c);
            a->content = sp_xmalloc(a->len + 1);
            memcpy(a->content, json_string_value(c), a->len + 1);
            a->id = (int)json_integer_value(id);
            a->single_word = jbool(x, "single_word", 0);
            a->lstrip = jbool(x, "lstrip", 0);
            a->rstrip = jbool(x, "rstrip", 0);
            a->normalized = jbool(x, "normalized", !jbool(x, "special", 0));
            if (a->normalized && t->norm) {
                struct sp_buf b = { 0 };
                int at0 = 1;
                sp_buf_put(&b, a->content, a->len);
                tj_normalize(t->norm, &b, &at0);
                a->norm_len = b.len;
                a->norm = sp_xmalloc(b.len + 1);
                if (b.len) memcpy(a->norm, b.p, b.len);
                a->norm[b.len] = 0;
                sp_buf_free(&b);
            } else {
                a->norm = sp_xstrdup(a->content);
                a->norm_len = a->len;
            }
            tj_piece_set(t, a->id, a->content, a->len);
        }
    }
    for (int i = 0; i < t->n_pre; i++)
        if (t->pre[i] < 0 || t->pre[i] >= t->n_piece || !t->piece[t->pre[i]]) { tj_fail(&e, "post_processor", "special token id %d is not in the vocabulary", t->pre[i]); goto fail; }
    for (int i = 0; i < t->n_post; i++)
        if (t->post[i] < 0 || t->post[i] >= t->n_piece || !t->piece[t->post[i]]) { tj_fail(&e, "post_processor", "special token id %d is not in the vocabulary", t->post[i]); goto fail; }
    json_decref(root);
    return t;
fail:
    json_decref(root);
    enc_tokjson_free(t);
    return NULL;
}

struct enc_tokjson *enc_tokjson_load(const char *path, const struct enc_tokjson_opts *opts, char *err, size_t errlen)
{
    size_t len;
    char *text = sp_read_file(path, &len, err, errlen);
    if (!text) return NULL;
    struct enc_tokjson *t = enc_tokjson_load_mem(text, len, path, opts, err, errlen);
    free(text);
    return t;
}

int enc_tokjson_vocab_size(const struct enc_tokjson *t) { return t->n_piece; }
int enc_tokjson_id(const struct enc_tokjson *t, const char *tok) { return tj_map_get(&t->all, tok, strlen(tok)); }
const char *enc_tokjson_piece(const struct enc_tokjson *t, int id) { return id >= 0 && id < t->n_piece ? t->piece[id] : NULL; }
int enc_tokjson_unk_id(const struct enc_tokjson *t) { return t->unk; }

/* ---------------------------------------------------------------- encode */

static int tj_ends_word(const char *s, size_t n)
{
    if (!n) return 0;
    size_t k = n;
    do k--; while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80);
    size_t q = k;
    int c = tj_next(s, n, &q);
    return tj_is_alnum(c) || c == '_';
}
static int tj_starts_word(const char *s, size_t n)
{
    if (!n) return 0;
    size_t q = 0;
    int c = tj_next(s, n, &q);
    return tj_is_alnum(c) || c == '_';
}

/* split segment g on the added tokens whose normalized flag is norm (leftmost longest) */
static void tj_split_added(const struct enc_tokjson *t, const struct seg *g, int norm, struct segs *out)
{
    const char *s = g->s;
    size_t len = g->len, start_off = 0, i = 0;
    int any = 0;
    while (i < len) {
        int best = -1; size_t bl = 0;
        for (int k = 0; k < t->n_added; k++) {
            const struct tj_added *a = &t->added[k];
            if (a->normalized != norm) continue;
            const char *c = norm ? a->norm : a->content;
            size_t cl = norm ? a->norm_len : a->len;
            if (cl && cl > bl && cl <= len - i && !memcmp(s + i, c, cl)) { best = k; bl = cl; }
        }
        if (best < 0) { i++; continue; }
        const struct tj_added *a = &t->added[best];
        size_t st = i, sp = i + bl;
        i = sp;
        if (a->single_word && ((st > 0 && tj_ends_word(s, st)) || (sp < len && tj_starts_word(s + sp, len - sp)))) continue;
        if (a->lstrip) {
            size_t ns = st;
            while (ns > 0) {
                size_t k = ns;
                do k--; while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80);
                size_t q = k;
                if (!tj_is_ws(tj_next(s, len, &q))) break;
                ns = k;
            }
            st = ns > start_off ? ns : start_off;
        }
        if (a->rstrip) {
            size_t q = sp;
            while (q < len) { size_t w = q; if (!tj_is_ws(tj_next(s, len, &q))) { q = w; break; } }
            sp = q;
            i = sp;
        }
        if (start_off < st) segs_push(out, s + start_off, st - start_off, -1, g->at0 && start_off == 0);
        segs_push(out, s + st, sp - st, a->id, 0);
        start_off = sp;
        any = 1;
    }
    if (!any) { segs_push(out, s, len, -1, g->at0); return; }
    if (start_off < len) segs_push(out, s + start_off, len - start_off, -1, 0);
}

int enc_tokjson_word(const struct enc_tokjson *t, const char *word, size_t len, struct enc_pieces *out,
                     char *err, size_t errlen)
{
    struct tj_err e = { err, errlen, t->name };
    if (err && errlen) err[0] = 0;
    /* valid UTF-8 only from here on */
    struct sp_buf w = { 0 };
    for (size_t i = 0; i < len;) tj_put_cp(&w, tj_next(word, len, &i));
    struct segs a = { 0 }, b = { 0 };
    segs_push(&a, w.p ? w.p : "", w.len, -1, 1);
    sp_buf_free(&w);
    /* 1. non-normalized added tokens on the raw text; 2. normalize, then the normalized ones */
    for (int i = 0; i < a.n; i++) tj_split_added(t, &a.v[i], 0, &b);
    segs_clear(&a);
    for (int i = 0; i < b.n; i++) {
        struct seg *g = &b.v[i];
        if (g->id >= 0) { segs_push(&a, g->s, g->len, g->id, 0); continue; }
        struct sp_buf s = { 0 };
        sp_buf_put(&s, g->s, g->len);
        int at0 = g->at0;
        if (t->norm) tj_normalize(t->norm, &s, &at0);
        struct seg h = { s.p ? s.p : (char *)"", s.len, -1, at0 };
        if (h.len) tj_split_added(t, &h, 1, &a);
        sp_buf_free(&s);
    }
    segs_free(&b);
    if (t->pretok) tj_pretokenize(t->pretok, &a);
    int n0 = out->n, rc = 0;
    for (int i = 0; i < a.n && !rc; i++) {
        struct seg *g = &a.v[i];
        if (g->id >= 0) { pieces_push(out, g->id); continue; }
        if (!g->len) continue;
        if (t->model == MD_WORDPIECE) rc = tj_wordpiece(t, g->s, g->len, out);
        else if (t->model == MD_BPE) rc = tj_bpe(t, g->s, g->len, out);
        else rc = tj_unigram(t, g->s, g->len, out, &e);
    }
    segs_free(&a);
    if (rc) { out->n = n0; return -SP_EPARSE; }
    if (out->n == n0) {
        if (t->unk < 0) {
            tj_fail(&e, NULL, "the word \"%.*s\" has no piece and the model has no unknown token", (int)(len > 60 ? 60 : len), word);
            return -SP_EPARSE;
        }
        pieces_push(out, t->unk);
    }
    return out->n - n0;
}

int enc_tokjson_sentence(const struct enc_tokjson *t, const char *const *words, int n_words,
                         struct enc_tok_sentence *s, char *err, size_t errlen)
{
    s->ids.n = 0;
    s->too_long = 0;
    if (n_words > s->words_cap) {
        s->words_cap = n_words;
        s->start = sp_xrealloc(s->start, (size_t)n_words * sizeof *s->start);
        s->end = sp_xrealloc(s->end, (size_t)n_words * sizeof *s->end);
    }
    s->n_words = n_words;
    for (int i = 0; i < t->n_pre; i++) pieces_push(&s->ids, t->pre[i]);
    for (int w = 0; w < n_words; w++) {
        s->start[w] = s->ids.n;
        int k = enc_tokjson_word(t, words[w], strlen(words[w]), &s->ids, err, errlen);
        if (k < 0) return k;
        s->end[w] = s->ids.n;
    }
    for (int i = 0; i < t->n_post; i++) pieces_push(&s->ids, t->post[i]);
    int T = s->ids.n;
    if (T > s->piece_word_cap) { s->piece_word_cap = T; s->piece_word = sp_xrealloc(s->piece_word, (size_t)T * sizeof *s->piece_word); }
    for (int q = 0; q < T; q++) s->piece_word[q] = -1;
    for (int w = 0; w < n_words; w++)
        for (int q = s->start[w]; q < s->end[w]; q++) s->piece_word[q] = w;
    return T;
}
