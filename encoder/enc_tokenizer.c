/* encoder/enc_tokenizer.c — BERT basic tokenizer + WordPiece over treebank words (docs/spec/models.md
 * M1; interface and the invalid-UTF-8 rule in tokenizer.h).
 *
 * HOW IT WORKS. A word goes through: PTB unescaping (M1.2, bytes); then either
 *   basic+wordpiece: special-token split (step 0, bytes), and for each text segment: decode
 *     and clean (1), CJK spacing (2), NFC for cased vocabularies (3), split on whitespace (4),
 *     and per whitespace token lower-case with Final_Sigma (5), NFD (6), drop Mn (7),
 *     punctuation split (8), drop empties (9) — except that a whitespace token equal to a
 *     special token's text is kept whole, as HF's never_split does; or
 *   wordpiece-only: decode and split on Python's isspace;
 * then greedy longest-match WordPiece (M1.4) on each basic token, by byte ranges of the
 * token's UTF-8 form looked up in a string map. Code points live in int32 vectors; -1 marks
 * the end of a basic token in the basic tokenizer's output. */
#include "encoder/tokenizer.h"
#include "common/sp.h"
#include "common/strmap.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <utf8proc.h>

struct enc_tokenizer {
    struct enc_tok_opts o;
    struct sp_arena arena;      /* token strings */
    struct sp_strmap map;       /* token -> id + 1 */
    const char **piece;         /* [n_vocab]: the token of each line */
    int n_vocab;
    int unk, cls, sep;
    int special_id[5];          /* step 0 tokens in vocabulary order below, -1 when absent */
};

static const char *const special_str[5] = { "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]" };

/* ---------------------------------------------------------------- small vectors */

struct cpv { int32_t *p; size_t n, cap; };

static void cpv_push(struct cpv *v, int32_t c)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 64;
        v->p = sp_xrealloc(v->p, v->cap * sizeof *v->p);
    }
    v->p[v->n++] = c;
}

static void cpv_reserve(struct cpv *v, size_t n)
{
    if (v->cap < n) {
        v->cap = n;
        v->p = sp_xrealloc(v->p, v->cap * sizeof *v->p);
    }
}

static void pieces_push(struct enc_pieces *p, int32_t id)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->id = sp_xrealloc(p->id, (size_t)p->cap * sizeof *p->id);
    }
    p->id[p->n++] = id;
}

void enc_pieces_free(struct enc_pieces *p)
{
    free(p->id);
    memset(p, 0, sizeof *p);
}

void enc_tok_sentence_free(struct enc_tok_sentence *s)
{
    enc_pieces_free(&s->ids);
    free(s->piece_word);
    free(s->start);
    free(s->end);
    memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- options */

void enc_tok_opts_defaults(struct enc_tok_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = ENC_TOK_BASIC_WORDPIECE;
    o->lower_case = 1;
    o->ptb_unescape = 0;
    o->max_chars_per_word = 100;
    o->max_positions = 512;
}

int enc_tok_mode_parse(const char *s, enum enc_tok_mode *mode)
{
    if (!strcmp(s, "basic+wordpiece")) *mode = ENC_TOK_BASIC_WORDPIECE;
    else if (!strcmp(s, "wordpiece-only")) *mode = ENC_TOK_WORDPIECE_ONLY;
    else return SP_EUSAGE;
    return SP_OK;
}

const char *enc_tok_mode_name(enum enc_tok_mode mode)
{
    return mode == ENC_TOK_WORDPIECE_ONLY ? "wordpiece-only" : "basic+wordpiece";
}

const char *enc_tok_unicode_version(void)
{
    return utf8proc_unicode_version();
}

/* ---------------------------------------------------------------- vocabulary */

void enc_tok_close(enc_tokenizer_t *t)
{
    if (!t) return;
    sp_strmap_free(&t->map);
    sp_arena_free(&t->arena);
    free(t->piece);
    free(t);
}

int enc_tok_open_mem(const char *text, size_t len, const char *name, const struct enc_tok_opts *opts,
                     enc_tokenizer_t **out, char *err, size_t errlen)
{
    *out = NULL;
    struct enc_tok_opts o;
    if (opts) o = *opts; else enc_tok_opts_defaults(&o);
    if ((o.mode != ENC_TOK_BASIC_WORDPIECE && o.mode != ENC_TOK_WORDPIECE_ONLY) || o.max_chars_per_word < 1 ||
        o.max_positions < 2) {
        snprintf(err, errlen, "%s: bad tokenizer options (mode %d, max_chars_per_word %d, max_positions %d)",
                 name, (int)o.mode, o.max_chars_per_word, o.max_positions);
        return SP_EUSAGE;
    }
    if (len == 0) {
        snprintf(err, errlen, "%s: empty vocabulary (expected one token per line)", name);
        return SP_EPARSE;
    }
    enc_tokenizer_t *t = sp_xcalloc(1, sizeof *t);
    t->o = o;
    sp_arena_init(&t->arena);
    sp_strmap_init(&t->map);
    int cap = 0;
    size_t pos = 0;
    long line = 0;
    while (pos < len) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl ? 1 : 0);
        line++;
        if (line > INT32_MAX) {
            snprintf(err, errlen, "%s:%ld: more than %d lines", name, line, INT32_MAX);
            goto bad;
        }
        if (n && s[n - 1] == '\r') {
            snprintf(err, errlen, "%s:%ld: line ends with CR: CRLF line ends are not supported "
                     "(HF would keep the CR in the token); expected LF only", name, line);
            goto bad;
        }
        if (memchr(s, '\0', n)) {
            snprintf(err, errlen, "%s:%ld: NUL byte in a token", name, line);
            goto bad;
        }
        if (!sp_utf8_valid(s, n)) {
            snprintf(err, errlen, "%s:%ld: token is not valid UTF-8", name, line);
            goto bad;
        }
        if (t->n_vocab == cap) {
            cap = cap ? 2 * cap : 1024;
            t->piece = sp_xrealloc(t->piece, (size_t)cap * sizeof *t->piece);
        }
        int id = t->n_vocab++;
        char *tok = sp_arena_strndup(&t->arena, s, n);
        t->piece[id] = tok;
        /* a later duplicate wins (HF fills a dict line by line): move the value to id + 1 */
        int old = sp_strmap_get(&t->map, tok);
        sp_strmap_add(&t->map, &t->arena, tok, id + 1 - old);
    }
    for (int k = 0; k < 5; k++) t->special_id[k] = enc_tok_id(t, special_str[k]);
    t->unk = t->special_id[1];
    t->cls = t->special_id[2];
    t->sep = t->special_id[3];
    if (t->unk < 0 || t->cls < 0 || t->sep < 0) {
        snprintf(err, errlen, "%s: no %s token in the vocabulary (%d lines): [UNK], [CLS] and [SEP] are required",
                 name, t->unk < 0 ? "[UNK]" : t->cls < 0 ? "[CLS]" : "[SEP]", t->n_vocab);
        goto bad;
    }
    *out = t;
    return SP_OK;
bad:
    enc_tok_close(t);
    return SP_EPARSE;
}

int enc_tok_open(const char *vocab_path, const struct enc_tok_opts *opts, enc_tokenizer_t **out,
                 char *err, size_t errlen)
{
    *out = NULL;
    size_t len;
    char e[SP_ERRLEN];
    char *text = sp_read_file(vocab_path, &len, e, sizeof e);
    if (!text) {
        snprintf(err, errlen, "%s (the vocabulary)", e);
        return SP_EIO;
    }
    int rc = enc_tok_open_mem(text, len, vocab_path, opts, out, err, errlen);
    free(text);
    return rc;
}

const struct enc_tok_opts *enc_tok_get_opts(const enc_tokenizer_t *t) { return &t->o; }
int enc_tok_vocab_size(const enc_tokenizer_t *t) { return t->n_vocab; }

int enc_tok_id(const enc_tokenizer_t *t, const char *token)
{
    return sp_strmap_get(&t->map, token) - 1;
}

const char *enc_tok_piece(const enc_tokenizer_t *t, int id)
{
    return id >= 0 && id < t->n_vocab ? t->piece[id] : NULL;
}

/* ---------------------------------------------------------------- Unicode helpers */

static utf8proc_category_t cat(int32_t c)
{
    return utf8proc_category(c);
}

/* Python str.isspace: bidirectional class WS, B or S, or category Zs (makeunicodedata.py) */
static int py_isspace(int32_t c)
{
    const utf8proc_property_t *p = utf8proc_get_property(c);
    return p->category == UTF8PROC_CATEGORY_ZS || p->bidi_class == UTF8PROC_BIDI_CLASS_WS ||
           p->bidi_class == UTF8PROC_BIDI_CLASS_B || p->bidi_class == UTF8PROC_BIDI_CLASS_S;
}

/* M1.3 step 8: ASCII symbol ranges, or category P* */
static int is_punct(int32_t c)
{
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return 1;
    switch (cat(c)) {
    case UTF8PROC_CATEGORY_PC: case UTF8PROC_CATEGORY_PD: case UTF8PROC_CATEGORY_PS: case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI: case UTF8PROC_CATEGORY_PF: case UTF8PROC_CATEGORY_PO:
        return 1;
    default:
        return 0;
    }
}

/* M1.3 step 2: HF's _is_chinese_char ranges */
static int is_cjk(int32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

/* Case_Ignorable (Unicode §3.13, D136): Mn, Me, Cf, Lm, Sk, or Word_Break MidLetter, MidNumLet
 * or Single_Quote. utf8proc has no Word_Break property; these 17 code points are the three
 * values' entries of WordBreakProperty.txt (unchanged from Unicode 11 to 15). */
static int case_ignorable(int32_t c)
{
    switch (cat(c)) {
    case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_ME: case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_SK:
        return 1;
    default:
        break;
    }
    static const int32_t wb[] = {
        0x0027,                                                                 /* Single_Quote */
        0x003A, 0x00B7, 0x0387, 0x055F, 0x05F4, 0x2027, 0xFE13, 0xFE55, 0xFF1A, /* MidLetter */
        0x002E, 0x2018, 0x2019, 0x2024, 0xFE52, 0xFF07, 0xFF0E,                 /* MidNumLet */
    };
    for (size_t i = 0; i < sizeof wb / sizeof wb[0]; i++)
        if (wb[i] == c) return 1;
    return 0;
}

/* Cased (D135: Lowercase, Uppercase or Lt), from what utf8proc has: Lu, Ll, Lt, or a case
 * mapping; plus the Other_Lowercase / Other_Uppercase code points of PropList.txt that have no
 * case mapping and are not Case_Ignorable (the only ones whose Cased value Final_Sigma can see):
 * ª, º and three blocks of enclosed Latin capitals. tests/reference/bert_tokenize_ref.py checks
 * every code point against Python (t2052). */
static int cased(int32_t c)
{
    utf8proc_category_t k = cat(c);
    if (k == UTF8PROC_CATEGORY_LU || k == UTF8PROC_CATEGORY_LL || k == UTF8PROC_CATEGORY_LT) return 1;
    if (c == 0x00AA || c == 0x00BA || (c >= 0x1F130 && c <= 0x1F149) || (c >= 0x1F150 && c <= 0x1F169) ||
        (c >= 0x1F170 && c <= 0x1F189))
        return 1;
    return utf8proc_tolower(c) != c || utf8proc_toupper(c) != c || utf8proc_totitle(c) != c;
}

/* Python's Final_Sigma test for the U+03A3 at i of s[0..n) (unicodeobject.c handle_capital_sigma):
 * a Cased code point before it and none after it, skipping Case_Ignorable ones both ways */
static int final_sigma(const int32_t *s, size_t n, size_t i)
{
    size_t j = i;
    while (j > 0 && case_ignorable(s[j - 1])) j--;
    if (j == 0 || !cased(s[j - 1])) return 0;
    j = i + 1;
    while (j < n && case_ignorable(s[j])) j++;
    return j == n || !cased(s[j]);
}

/* UTF-8 encoding of a scalar value into b (4 bytes room); returns the byte count */
static size_t utf8_put(int32_t c, char *b)
{
    return (size_t)utf8proc_encode_char(c, (utf8proc_uint8_t *)b);
}

static void cpv_to_utf8(const int32_t *cp, size_t n, struct sp_buf *b)
{
    char u[4];
    for (size_t i = 0; i < n; i++) sp_buf_put(b, u, utf8_put(cp[i], u));
}

/* Decode bytes into code points: anything not a valid UTF-8 sequence gives one U+FFFD per
 * byte that cannot start one (tokenizer.h). */
static void decode(const char *s, size_t n, struct cpv *out)
{
    size_t i = 0;
    while (i < n) {
        unsigned char b = (unsigned char)s[i];
        if (b < 0x80) { cpv_push(out, b); i++; continue; }
        utf8proc_int32_t c;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &c);
        if (k > 0 && sp_utf8_valid(s + i, (size_t)k)) {
            cpv_push(out, c);
            i += (size_t)k;
        } else {
            cpv_push(out, 0xFFFD);
            i++;
        }
    }
}

/* Normalise cp[0..n) (valid scalar values) into out (replaced): NFD with DECOMPOSE, NFC with
 * COMPOSE (utf8proc decomposes first then; it refuses both flags together). */
static void normalize(const int32_t *cp, size_t n, utf8proc_option_t opt, struct sp_buf *scratch, struct cpv *out)
{
    scratch->len = 0;
    cpv_to_utf8(cp, n, scratch);
    out->n = 0;
    utf8proc_ssize_t want = (utf8proc_ssize_t)(4 * n + 8);
    for (;;) {
        cpv_reserve(out, (size_t)want);
        utf8proc_ssize_t got = utf8proc_decompose((const utf8proc_uint8_t *)scratch->p, (utf8proc_ssize_t)scratch->len,
                                                  out->p, want, opt);
        SP_ASSERT(got >= 0);  /* the input was encoded from scalar values */
        if (got <= want) { out->n = (size_t)got; break; }
        want = got;
    }
    if (opt & UTF8PROC_COMPOSE) {
        utf8proc_ssize_t got = utf8proc_normalize_utf32(out->p, (utf8proc_ssize_t)out->n, opt);
        SP_ASSERT(got >= 0);
        out->n = (size_t)got;
    }
}

/* ---------------------------------------------------------------- basic tokenizer (M1.3) */

struct work {
    struct cpv a, b, c;         /* scratch code point vectors */
    struct cpv toks;            /* basic tokens, each followed by -1 */
    struct sp_buf u;            /* UTF-8 scratch */
    struct sp_buf key;          /* WordPiece lookup key */
    size_t *off;                /* UTF-8 offsets of a basic token's code points */
    size_t off_cap;
};

static void work_free(struct work *w)
{
    free(w->a.p); free(w->b.p); free(w->c.p); free(w->toks.p);
    sp_buf_free(&w->u); sp_buf_free(&w->key);
    free(w->off);
}

/* Steps 5-9 for one whitespace token s[0..n) of the cleaned text; appends to w->toks. */
static void basic_token(const enc_tokenizer_t *t, const int32_t *s, size_t n, struct work *w)
{
    const int32_t *x = s;
    size_t nx = n;
    if (t->o.lower_case) {
        w->b.n = 0;
        for (size_t i = 0; i < n; i++) {
            int32_t c = s[i];
            if (c == 0x0130) { cpv_push(&w->b, 0x0069); cpv_push(&w->b, 0x0307); }     /* SpecialCasing */
            else if (c == 0x03A3) cpv_push(&w->b, final_sigma(s, n, i) ? 0x03C2 : 0x03C3);
            else cpv_push(&w->b, utf8proc_tolower(c));
        }
        normalize(w->b.p, w->b.n, UTF8PROC_DECOMPOSE | UTF8PROC_STABLE, &w->u, &w->c);
        size_t k = 0;
        for (size_t i = 0; i < w->c.n; i++)
            if (cat(w->c.p[i]) != UTF8PROC_CATEGORY_MN) w->c.p[k++] = w->c.p[i];
        w->c.n = k;
        x = w->c.p;
        nx = w->c.n;
    }
    /* step 8, and step 9 by construction (only non-empty runs are emitted) */
    int in_run = 0;
    for (size_t i = 0; i < nx; i++) {
        if (is_punct(x[i])) {
            if (in_run) cpv_push(&w->toks, -1);
            cpv_push(&w->toks, x[i]);
            cpv_push(&w->toks, -1);
            in_run = 0;
        } else {
            cpv_push(&w->toks, x[i]);
            in_run = 1;
        }
    }
    if (in_run) cpv_push(&w->toks, -1);
}

/* HF's never_split: a whitespace token that equals a special token's text only after cleaning
 * (e.g. "[UN" U+0007 "K]") is neither lower-cased nor split; WordPiece then looks it up whole.
 * (BertTokenizerLegacy passes all_special_tokens as never_split: docs/spec/models.md M1.3 step 4.) */
static int is_special_text(const int32_t *s, size_t n)
{
    for (int k = 0; k < 5; k++) {
        size_t m = strlen(special_str[k]), i = 0;
        if (m != n) continue;
        while (i < n && s[i] == (unsigned char)special_str[k][i]) i++;
        if (i == n) return 1;
    }
    return 0;
}

/* Steps 1-9 for one text segment s[0..n) (no special token inside); appends to w->toks. */
static void basic_segment(const enc_tokenizer_t *t, const char *s, size_t n, struct work *w)
{
    w->c.n = 0;
    decode(s, n, &w->c);
    /* 1 clean, 2 CJK spacing */
    w->a.n = 0;
    for (size_t i = 0; i < w->c.n; i++) {
        int32_t c = w->c.p[i];
        utf8proc_category_t k = cat(c);
        if (c == 0x20 || c == '\t' || c == '\n' || c == '\r' || k == UTF8PROC_CATEGORY_ZS) { cpv_push(&w->a, 0x20); continue; }
        if (c == 0 || c == 0xFFFD) continue;
        if (k == UTF8PROC_CATEGORY_CC || k == UTF8PROC_CATEGORY_CF || k == UTF8PROC_CATEGORY_CS ||
            k == UTF8PROC_CATEGORY_CO || k == UTF8PROC_CATEGORY_CN) continue;
        if (is_cjk(c)) { cpv_push(&w->a, 0x20); cpv_push(&w->a, c); cpv_push(&w->a, 0x20); }
        else cpv_push(&w->a, c);
    }
    /* 3: NFC matters only for cased vocabularies (the uncased path decomposes again at 6) */
    if (!t->o.lower_case && w->a.n) {
        normalize(w->a.p, w->a.n, UTF8PROC_COMPOSE | UTF8PROC_STABLE, &w->u, &w->c);
        struct cpv tmp = w->a; w->a = w->c; w->c = tmp;
    }
    /* 4 whitespace split; each token through 5-9 (basic_token uses b and c, not a) */
    size_t i = 0;
    while (i < w->a.n) {
        while (i < w->a.n && py_isspace(w->a.p[i])) i++;
        size_t j = i;
        while (j < w->a.n && !py_isspace(w->a.p[j])) j++;
        if (j > i && is_special_text(w->a.p + i, j - i)) {
            for (size_t k = i; k < j; k++) cpv_push(&w->toks, w->a.p[k]);
            cpv_push(&w->toks, -1);
        } else if (j > i) {
            basic_token(t, w->a.p + i, j - i, w);
        }
        i = j;
    }
}

/* Wordpiece-only mode: the isspace-separated parts of s[0..n), appended to w->toks. */
static void space_parts(const char *s, size_t n, struct work *w)
{
    w->c.n = 0;
    decode(s, n, &w->c);
    int in_run = 0;
    for (size_t i = 0; i < w->c.n; i++) {
        if (py_isspace(w->c.p[i])) {
            if (in_run) cpv_push(&w->toks, -1);
            in_run = 0;
        } else {
            cpv_push(&w->toks, w->c.p[i]);
            in_run = 1;
        }
    }
    if (in_run) cpv_push(&w->toks, -1);
}

/* The next step-0 special token at or after `from` in s[0..n): its position (n if none) and index. */
static size_t next_special(const enc_tokenizer_t *t, const char *s, size_t n, size_t from, int *which)
{
    for (size_t i = from; i < n; i++) {
        if (s[i] != '[') continue;
        for (int k = 0; k < 5; k++) {
            size_t m = strlen(special_str[k]);
            if (t->special_id[k] >= 0 && n - i >= m && !memcmp(s + i, special_str[k], m)) {
                *which = k;
                return i;
            }
        }
    }
    return n;
}

/* M1.2: the tokenizer input of a stored PTB word form (malloc'd copy) */
static char *ptb_unescape(const char *s, size_t n, size_t *outn)
{
    static const char *const whole[][2] = {
        { "-LRB-", "(" }, { "-RRB-", ")" }, { "-LSB-", "[" }, { "-RSB-", "]" },
        { "-LCB-", "{" }, { "-RCB-", "}" }, { "``", "\"" }, { "''", "\"" },
    };
    for (size_t k = 0; k < sizeof whole / sizeof whole[0]; k++)
        if (strlen(whole[k][0]) == n && !memcmp(s, whole[k][0], n)) {
            *outn = strlen(whole[k][1]);
            return sp_xstrdup(whole[k][1]);
        }
    char *r = sp_xmalloc(n + 1);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '*')) continue;
        r[m++] = s[i];
    }
    r[m] = 0;
    *outn = m;
    return r;
}

char *enc_tok_ptb_unescape(const char *word, size_t len, size_t *outn) { return ptb_unescape(word, len, outn); }

/* The basic tokens of one word into w->toks (-1 after each; a special token of step 0 is
 * stored as -(2 + k)). */
static void word_tokens(const enc_tokenizer_t *t, const char *word, size_t len, struct work *w)
{
    w->toks.n = 0;
    char *unesc = NULL;
    if (t->o.ptb_unescape) word = unesc = ptb_unescape(word, len, &len);
    if (t->o.mode == ENC_TOK_WORDPIECE_ONLY) {
        space_parts(word, len, w);
    } else {
        size_t pos = 0;
        while (pos <= len) {
            int k = -1;
            size_t at = next_special(t, word, len, pos, &k);
            if (at > pos) basic_segment(t, word + pos, at - pos, w);
            if (at >= len) break;
            cpv_push(&w->toks, -(2 + k));
            cpv_push(&w->toks, -1);
            pos = at + strlen(special_str[k]);
        }
    }
    free(unesc);
}

/* ---------------------------------------------------------------- WordPiece (M1.4) */

static void wordpiece(const enc_tokenizer_t *t, const int32_t *cp, size_t L, struct work *w, struct enc_pieces *out)
{
    if (L > (size_t)t->o.max_chars_per_word) { pieces_push(out, t->unk); return; }
    if (w->off_cap < L + 1) {
        w->off_cap = L + 1;
        w->off = sp_xrealloc(w->off, w->off_cap * sizeof *w->off);
    }
    w->u.len = 0;
    char b[4];
    for (size_t i = 0; i < L; i++) {
        w->off[i] = w->u.len;
        sp_buf_put(&w->u, b, utf8_put(cp[i], b));
    }
    w->off[L] = w->u.len;
    int n0 = out->n;
    size_t start = 0;
    while (start < L) {
        /* a U+0000 never matches (vocabulary tokens hold no NUL): stop the candidates before it */
        size_t lim = start;
        while (lim < L && cp[lim] != 0) lim++;
        int found = -1;
        size_t end = lim;
        for (; end > start; end--) {
            w->key.len = 0;
            if (start > 0) sp_buf_put(&w->key, "##", 2);
            sp_buf_put(&w->key, w->u.p + w->off[start], w->off[end] - w->off[start]);
            sp_buf_put(&w->key, "", 1);
            found = sp_strmap_get(&t->map, w->key.p) - 1;
            if (found >= 0) break;
        }
        if (found < 0) {
            out->n = n0;
            pieces_push(out, t->unk);
            return;
        }
        pieces_push(out, found);
        start = end;
    }
}

static int word_pieces(const enc_tokenizer_t *t, const char *word, size_t len, struct work *w, struct enc_pieces *out)
{
    int n0 = out->n;
    word_tokens(t, word, len, w);
    size_t i = 0;
    while (i < w->toks.n) {
        size_t j = i;
        while (w->toks.p[j] != -1) j++;
        if (j == i + 1 && w->toks.p[i] <= -2) pieces_push(out, t->special_id[-w->toks.p[i] - 2]);
        else if (j > i) wordpiece(t, w->toks.p + i, j - i, w, out);
        i = j + 1;
    }
    if (out->n == n0) pieces_push(out, t->unk);   /* D4 */
    return out->n - n0;
}

int enc_tok_word(const enc_tokenizer_t *t, const char *word, size_t len, struct enc_pieces *out)
{
    struct work w = { 0 };
    int n = word_pieces(t, word, len, &w, out);
    work_free(&w);
    return n;
}

int enc_tok_basic(const enc_tokenizer_t *t, const char *word, size_t len, struct sp_buf *out)
{
    struct work w = { 0 };
    word_tokens(t, word, len, &w);
    int n = 0;
    size_t i = 0;
    while (i < w.toks.n) {
        size_t j = i;
        while (w.toks.p[j] != -1) j++;
        if (n++) sp_buf_put(out, " ", 1);
        if (j == i + 1 && w.toks.p[i] <= -2) sp_buf_puts(out, special_str[-w.toks.p[i] - 2]);
        else cpv_to_utf8(w.toks.p + i, j - i, out);
        i = j + 1;
    }
    work_free(&w);
    return n;
}

/* ---------------------------------------------------------------- sentences (M1.5) */

int enc_tok_sentence(const enc_tokenizer_t *t, const char *const *words, int n_words, struct enc_tok_sentence *s)
{
    struct work w = { 0 };
    s->ids.n = 0;
    s->n_words = n_words;
    s->too_long = 0;
    if (s->words_cap < n_words) {
        s->words_cap = n_words;
        s->start = sp_xrealloc(s->start, (size_t)n_words * sizeof *s->start);
        s->end = sp_xrealloc(s->end, (size_t)n_words * sizeof *s->end);
    }
    pieces_push(&s->ids, t->cls);
    for (int i = 0; i < n_words; i++) {
        s->start[i] = s->ids.n;
        word_pieces(t, words[i], strlen(words[i]), &w, &s->ids);
        s->end[i] = s->ids.n;
    }
    pieces_push(&s->ids, t->sep);
    work_free(&w);
    int T = s->ids.n;
    if (s->piece_word_cap < T) {
        s->piece_word_cap = T;
        s->piece_word = sp_xrealloc(s->piece_word, (size_t)T * sizeof *s->piece_word);
    }
    s->piece_word[0] = s->piece_word[T - 1] = -1;
    for (int i = 0; i < n_words; i++)
        for (int p = s->start[i]; p < s->end[i]; p++) s->piece_word[p] = i;
    s->too_long = T > t->o.max_positions;
    return T;
}
