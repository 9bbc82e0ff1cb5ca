/* encoder/enc_spm.c — a SentencePiece .model converted as transformers 4.40.2 does it (spm.h;
 * docs/spec/models.md M11.2).
 *
 * The protobuf wire format is read by hand (varints, length-delimited fields, fixed 32/64-bit;
 * unknown fields skipped as any protobuf reader does): ModelProto.pieces (1: piece 1, score 2,
 * type 3), trainer_spec (2: model_type 3, byte_fallback 35, unk_id 40, unk_piece 45) and
 * normalizer_spec (3: name 1, precompiled_charsmap 2). The converters of convert_slow_tokenizer.py
 * ignore the rest (add_dummy_prefix, remove_extra_whitespaces: the Metaspace pre-tokenizer and the
 * " {2,}" replacement stand for them). The tokenizer.json document is built with jansson and read
 * by enc_tokjson_load_mem, so the encoding is the tokjson reader's (tests: t2241). */
#include "encoder/spm.h"

#include "encoder/tokjson.h"
#include "common/sp.h"

#include <jansson.h>
#include <utf8proc.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum spm_cls { C_ALBERT, C_CAMEMBERT, C_DEBERTA2, C_T5, C_XLMR };

static const struct spm_class { const char *name, *file; enum spm_cls c; } CLASSES[] = {
    { "AlbertTokenizer", "spiece.model", C_ALBERT },
    { "CamembertTokenizer", "sentencepiece.bpe.model", C_CAMEMBERT },
    { "DebertaV2Tokenizer", "spm.model", C_DEBERTA2 },
    { "T5Tokenizer", "spiece.model", C_T5 },
    { "XLMRobertaTokenizer", "sentencepiece.bpe.model", C_XLMR },
};

static const struct spm_class *find_class(const char *name)
{
    if (!name) return NULL;
    size_t n = strlen(name);
    if (n > 4 && !strcmp(name + n - 4, "Fast")) n -= 4;
    for (size_t i = 0; i < sizeof CLASSES / sizeof CLASSES[0]; i++)
        if (strlen(CLASSES[i].name) == n && !strncmp(CLASSES[i].name, name, n)) return &CLASSES[i];
    return NULL;
}

const char *enc_spm_class_file(const char *tokenizer_class)
{
    const struct spm_class *c = find_class(tokenizer_class);
    return c ? c->file : NULL;
}

/* ---------------------------------------------------------------- the protobuf */

struct spm_piece { char *s; double score; int type; };

struct spm_model {
    struct spm_piece *p;
    size_t n, cap;
    int model_type, byte_fallback, unk_id;
    char *unk_piece;
    unsigned char *charsmap;
    size_t charsmap_len;
};

struct pb { const unsigned char *b; const char *name; char *err; size_t errlen; };

static int pb_fail(struct pb *r, size_t at, const char *what)
{
    snprintf(r->err, r->errlen, "%s: byte %zu: %s (not a SentencePiece model, or truncated)", r->name, at, what);
    return -1;
}

static int pb_varint(struct pb *r, size_t *at, size_t end, uint64_t *v, const char *what)
{
    uint64_t x = 0;
    size_t start = *at;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*at >= end) {
            char m[160];
            snprintf(m, sizeof m, "expected the rest of a varint (%s), found the end of %s", what,
                     end == SIZE_MAX ? "the file" : "its message");
            return pb_fail(r, start, m);
        }
        unsigned char c = r->b[(*at)++];
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) { *v = x; return 0; }
    }
    char m[120];
    snprintf(m, sizeof m, "expected a varint of at most 10 bytes (%s)", what);
    return pb_fail(r, start, m);
}

/* one field's key and, for wire type 2, its payload [*pay, *pay + *plen); other types skipped
 * unless wanted (the varint in *v, a fixed32 in *v) */
static int pb_field(struct pb *r, size_t *at, size_t end, int *field, int *wt, uint64_t *v, size_t *pay, size_t *plen)
{
    size_t start = *at;
    uint64_t key;
    if (pb_varint(r, at, end, &key, "a field key")) return -1;
    *field = (int)(key >> 3);
    *wt = (int)(key & 7);
    if (key >> 3 == 0 || key >> 3 > 536870911u) return pb_fail(r, start, "expected a field number 1..2^29-1");
    switch (*wt) {
    case 0: return pb_varint(r, at, end, v, "a varint field's value");
    case 1:
        if (end - *at < 8) return pb_fail(r, *at, "expected 8 bytes of a 64-bit field");
        *at += 8;
        return 0;
    case 5:
        if (end - *at < 4) return pb_fail(r, *at, "expected 4 bytes of a 32-bit field");
        *v = (uint64_t)r->b[*at] | (uint64_t)r->b[*at + 1] << 8 | (uint64_t)r->b[*at + 2] << 16 | (uint64_t)r->b[*at + 3] << 24;
        *at += 4;
        return 0;
    case 2: {
        uint64_t n;
        size_t lat = *at;
        if (pb_varint(r, at, end, &n, "a length")) return -1;
        if (n > end - *at) {
            char m[160];
            snprintf(m, sizeof m, "field %d: expected %llu bytes, %zu left", *field, (unsigned long long)n, end - *at);
            return pb_fail(r, lat, m);
        }
        *pay = *at;
        *plen = (size_t)n;
        *at += (size_t)n;
        return 0;
    }
    default: {
        char m[120];
        snprintf(m, sizeof m, "field %d: wire type %d (expected 0, 1, 2 or 5)", *field, *wt);
        return pb_fail(r, start, m);
    }
    }
}

static int pb_want(struct pb *r, size_t at, int field, int wt, int want, const char *what)
{
    if (wt == want) return 0;
    char m[160];
    snprintf(m, sizeof m, "field %d (%s): wire type %d, expected %d", field, what, wt, want);
    return pb_fail(r, at, m);
}

static char *pb_string(struct pb *r, size_t at, size_t n, const char *what)
{
    const char *s = (const char *)r->b + at;
    if (memchr(s, 0, n) || !sp_utf8_valid(s, n)) {
        char m[160];
        snprintf(m, sizeof m, "%s: expected UTF-8 text without NUL", what);
        pb_fail(r, at, m);
        return NULL;
    }
    char *c = sp_xmalloc(n + 1);
    memcpy(c, s, n);
    c[n] = 0;
    return c;
}

static int pb_piece(struct pb *r, struct spm_model *m, size_t at, size_t end)
{
    struct spm_piece p = { NULL, 0.0, 1 };
    while (at < end) {
        size_t f0 = at, pay = 0, plen = 0;
        uint64_t v = 0;
        int field, wt;
        if (pb_field(r, &at, end, &field, &wt, &v, &pay, &plen)) goto fail;
        if (field == 1) {
            char what[64];
            snprintf(what, sizeof what, "pieces[%zu].piece", m->n);
            if (pb_want(r, f0, field, wt, 2, what)) goto fail;
            free(p.s);
            if (!(p.s = pb_string(r, pay, plen, what))) goto fail;
        } else if (field == 2) {
            if (pb_want(r, f0, field, wt, 5, "score, a float")) goto fail;
            uint32_t u = (uint32_t)v;
            float f;
            memcpy(&f, &u, sizeof f);
            p.score = (double)f;
        } else if (field == 3) {
            if (pb_want(r, f0, field, wt, 0, "type")) goto fail;
            p.type = (int)v;
        }
    }
    if (!p.s) {
        char msg[96];
        snprintf(msg, sizeof msg, "pieces[%zu]: expected a piece string (field 1)", m->n);
        return pb_fail(r, end, msg);
    }
    if (!p.s[0]) {
        char msg[96];
        snprintf(msg, sizeof msg, "pieces[%zu]: an empty piece", m->n);
        free(p.s);
        return pb_fail(r, end, msg);
    }
    if (m->n == m->cap) { m->cap = m->cap ? 2 * m->cap : 256; m->p = sp_xrealloc(m->p, m->cap * sizeof *m->p); }
    m->p[m->n++] = p;
    return 0;
fail:
    free(p.s);
    return -1;
}

static int pb_trainer(struct pb *r, struct spm_model *m, size_t at, size_t end)
{
    while (at < end) {
        size_t f0 = at, pay = 0, plen = 0;
        uint64_t v = 0;
        int field, wt;
        if (pb_field(r, &at, end, &field, &wt, &v, &pay, &plen)) return -1;
        if (field == 3) {
            if (pb_want(r, f0, field, wt, 0, "trainer_spec.model_type")) return -1;
            m->model_type = (int)v;
        } else if (field == 35) {
            if (pb_want(r, f0, field, wt, 0, "trainer_spec.byte_fallback")) return -1;
            m->byte_fallback = v != 0;
        } else if (field == 40) {
            if (pb_want(r, f0, field, wt, 0, "trainer_spec.unk_id")) return -1;
            m->unk_id = (int32_t)(uint32_t)v;
        } else if (field == 45) {
            if (pb_want(r, f0, field, wt, 2, "trainer_spec.unk_piece")) return -1;
            free(m->unk_piece);
            if (!(m->unk_piece = pb_string(r, pay, plen, "trainer_spec.unk_piece"))) return -1;
        }
    }
    return 0;
}

static int pb_normalizer(struct pb *r, struct spm_model *m, size_t at, size_t end)
{
    while (at < end) {
        size_t f0 = at, pay = 0, plen = 0;
        uint64_t v = 0;
        int field, wt;
        if (pb_field(r, &at, end, &field, &wt, &v, &pay, &plen)) return -1;
        if (field == 2) {
            if (pb_want(r, f0, field, wt, 2, "normalizer_spec.precompiled_charsmap")) return -1;
            free(m->charsmap);
            m->charsmap = sp_xmalloc(plen + 1);
            memcpy(m->charsmap, r->b + pay, plen);
            m->charsmap_len = plen;
        } else if (field == 1 && pb_want(r, f0, field, wt, 2, "normalizer_spec.name")) return -1;
    }
    return 0;
}

static void model_free(struct spm_model *m)
{
    for (size_t i = 0; i < m->n; i++) free(m->p[i].s);
    free(m->p);
    free(m->unk_piece);
    free(m->charsmap);
}

static int model_read(struct spm_model *m, const unsigned char *buf, size_t len, const char *name, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->model_type = 1;    /* the proto's defaults: UNIGRAM, unk_id 0, "<unk>" */
    struct pb r = { buf, name, err, errlen };
    size_t at = 0;
    int have_trainer = 0;
    while (at < len) {
        size_t f0 = at, pay = 0, plen = 0;
        uint64_t v = 0;
        int field, wt;
        if (pb_field(&r, &at, len, &field, &wt, &v, &pay, &plen)) return -1;
        if (field == 1) {
            if (pb_want(&r, f0, field, wt, 2, "pieces") || pb_piece(&r, m, pay, pay + plen)) return -1;
        } else if (field == 2) {
            if (pb_want(&r, f0, field, wt, 2, "trainer_spec") || pb_trainer(&r, m, pay, pay + plen)) return -1;
            have_trainer = 1;
        } else if (field == 3) {
            if (pb_want(&r, f0, field, wt, 2, "normalizer_spec") || pb_normalizer(&r, m, pay, pay + plen)) return -1;
        }
    }
    if (m->n == 0) return pb_fail(&r, len, "expected pieces (field 1), found none");
    if (!have_trainer) return pb_fail(&r, len, "expected a trainer_spec (field 2), found none");
    if (!m->unk_piece) m->unk_piece = sp_xstrdup("<unk>");
    if (m->model_type != 1 && m->model_type != 2) {
        snprintf(err, errlen, "%s: trainer_spec.model_type %d: transformers converts Unigram (1) and BPE (2) models only",
                 name, m->model_type);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- the document */

/* Python's str.isdigit() on one code point: Numeric_Type Decimal (Nd) or Digit (the superscript,
 * subscript, circled and parenthesised digits of category No) */
static int py_isdigit(int32_t c)
{
    static const int32_t digit[][2] = {
        { 0xb2, 0xb3 }, { 0xb9, 0xb9 }, { 0x1369, 0x1371 }, { 0x19da, 0x19da }, { 0x2070, 0x2070 },
        { 0x2074, 0x2079 }, { 0x2080, 0x2089 }, { 0x2460, 0x2468 }, { 0x2474, 0x247c }, { 0x2488, 0x2490 },
        { 0x24ea, 0x24ea }, { 0x24f5, 0x24fd }, { 0x24ff, 0x24ff }, { 0x2776, 0x277e }, { 0x2780, 0x2788 },
        { 0x278a, 0x2792 }, { 0x10a40, 0x10a43 }, { 0x10e60, 0x10e68 }, { 0x11052, 0x1105a }, { 0x1f100, 0x1f10a },
    };
    if (utf8proc_category(c) == UTF8PROC_CATEGORY_ND) return 1;
    for (size_t i = 0; i < sizeof digit / sizeof digit[0]; i++)
        if (c >= digit[i][0] && c <= digit[i][1]) return 1;
    return 0;
}

/* AlbertConverter's check_number_comma: 0 for a piece "...<digit>," (its score is kept) */
static int number_comma(const char *s)
{
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] != ',') return 1;
    size_t k = n - 1;
    while (k > 0 && ((unsigned char)s[k - 1] & 0xc0) == 0x80) k--;
    if (k == 0) return 1;
    k--;
    while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80) k--;
    utf8proc_int32_t c;
    if (utf8proc_iterate((const utf8proc_uint8_t *)s + k, (utf8proc_ssize_t)(n - 1 - k), &c) < 1) return 1;
    return !py_isdigit(c);
}

static char *b64(const unsigned char *b, size_t n)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = sp_xmalloc((n + 2) / 3 * 4 + 1), *p = o;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
        *p++ = A[v >> 18 & 63];
        *p++ = A[v >> 12 & 63];
        *p++ = i + 1 < n ? A[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? A[v & 63] : '=';
    }
    *p = 0;
    return o;
}

/* a boolean of tokenizer_config.json (default when absent or null); -1 with err when not a boolean */
static int cfg_bool(const json_t *cfg, const char *key, int def, char *err, size_t errlen)
{
    json_t *v = cfg ? json_object_get(cfg, key) : NULL;
    if (!v || json_is_null(v)) return def;
    if (!json_is_boolean(v)) {
        snprintf(err, errlen, "tokenizer_config.json: %s: expected true or false", key);
        return -1;
    }
    return json_is_true(v);
}

static json_t *norm_replace(const char *kind, const char *pattern, const char *content)
{
    return json_pack("{s:s, s:{s:s}, s:s}", "type", "Replace", "pattern", kind, pattern, "content", content);
}

struct added { json_t *list; json_t *ids; const json_t *vocab; int next; };

/* add one token as tokenizers' add_tokens does: the model's id when the vocabulary has it, else the next free id */
static void add_token(struct added *a, const char *content, int lstrip, int rstrip, int single, int normalized, int special)
{
    if (json_object_get(a->ids, content)) return;
    json_t *v = json_object_get(a->vocab, content);
    int id = v ? (int)json_integer_value(v) : a->next;
    if (id + 1 > a->next) a->next = id + 1;
    json_object_set_new(a->ids, content, json_integer(id));
    json_array_append_new(a->list, json_pack("{s:i, s:s, s:b, s:b, s:b, s:b, s:b}", "id", id, "content", content,
                                             "single_word", single, "lstrip", lstrip, "rstrip", rstrip,
                                             "normalized", normalized, "special", special));
}

/* a special token's value: "text" or {"content": ...} (an AddedToken as save_pretrained writes it) */
static int add_special(struct added *a, json_t *v, const char *where, int lstrip_default, char *err, size_t errlen)
{
    if (json_is_string(v)) { add_token(a, json_string_value(v), lstrip_default, 0, 0, 0, 1); return 0; }
    json_t *c = json_object_get(v, "content");
    if (!json_is_object(v) || !json_is_string(c)) {
        snprintf(err, errlen, "%s: expected a string or {\"content\": string, ...}", where);
        return -1;
    }
    add_token(a, json_string_value(c), json_is_true(json_object_get(v, "lstrip")), json_is_true(json_object_get(v, "rstrip")),
              json_is_true(json_object_get(v, "single_word")), json_is_true(json_object_get(v, "normalized")), 1);
    return 0;
}

static int cmp_key(const void *x, const void *y)
{
    const char *const *a = x, *const *b = y;
    long long p = strtoll(*a, NULL, 10), q = strtoll(*b, NULL, 10);
    return p < q ? -1 : p > q;
}

static int added_tokens(struct added *a, const struct spm_class *cl, const json_t *cfg, const json_t *smap, int extra_ids,
                        char *err, size_t errlen)
{
    /* 1. tokenizer_config.json's added_tokens_decoder, by id */
    json_t *dec = cfg ? json_object_get(cfg, "added_tokens_decoder") : NULL;
    if (dec && !json_is_null(dec)) {
        if (!json_is_object(dec)) { snprintf(err, errlen, "tokenizer_config.json: added_tokens_decoder: expected an object"); return -1; }
        size_t n = json_object_size(dec), k = 0;
        const char **keys = sp_xcalloc(n + 1, sizeof *keys), *key;
        json_t *v;
        json_object_foreach(dec, key, v) keys[k++] = key;
        qsort(keys, n, sizeof *keys, cmp_key);
        for (k = 0; k < n; k++) {
            char where[200];
            snprintf(where, sizeof where, "tokenizer_config.json: added_tokens_decoder[\"%s\"]", keys[k]);
            v = json_object_get(dec, keys[k]);
            json_t *c = json_object_get(v, "content");
            if (!json_is_object(v) || !json_is_string(c)) {
                snprintf(err, errlen, "%s: expected {\"content\": string, ...}", where);
                free(keys);
                return -1;
            }
            add_token(a, json_string_value(c), json_is_true(json_object_get(v, "lstrip")), json_is_true(json_object_get(v, "rstrip")),
                      json_is_true(json_object_get(v, "single_word")), json_is_true(json_object_get(v, "normalized")),
                      json_is_true(json_object_get(v, "special")));
        }
        free(keys);
    }
    /* 2. the special tokens not among them: special_tokens_map.json, else tokenizer_config.json,
     * else the class's default (the order of SPECIAL_TOKENS_ATTRIBUTES) */
    static const char *const keys[] = { "bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token" };
    static const char *const defs[][7] = {
        [C_ALBERT] = { "[CLS]", "[SEP]", "<unk>", "[SEP]", "<pad>", "[CLS]", "[MASK]" },
        [C_CAMEMBERT] = { "<s>", "</s>", "<unk>", "</s>", "<pad>", "<s>", "<mask>" },
        [C_DEBERTA2] = { "[CLS]", "[SEP]", "[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]" },
        [C_T5] = { NULL, "</s>", "<unk>", NULL, "<pad>", NULL, NULL },
        [C_XLMR] = { "<s>", "</s>", "<unk>", "</s>", "<pad>", "<s>", "<mask>" },
    };
    for (int i = 0; i < 8; i++) {
        const char *key = i < 7 ? keys[i] : "additional_special_tokens";
        json_t *v = smap ? json_object_get(smap, key) : NULL;
        const char *file = "special_tokens_map.json";
        if (!v || json_is_null(v)) { v = cfg ? json_object_get(cfg, key) : NULL; file = "tokenizer_config.json"; }
        char where[160];
        snprintf(where, sizeof where, "%s: %s", file, key);
        const int lstrip = i == 6 && cl->c != C_DEBERTA2;   /* the fast classes' mask_token: lstrip=True */
        if (i < 7) {
            if (v && !json_is_null(v)) { if (add_special(a, v, where, lstrip, err, errlen)) return -1; }
            else if (!v && defs[cl->c][i]) add_token(a, defs[cl->c][i], lstrip, 0, 0, 0, 1);
            continue;
        }
        if (v && !json_is_null(v)) {
            if (!json_is_array(v)) { snprintf(err, errlen, "%s: expected an array", where); return -1; }
            for (size_t k = 0; k < json_array_size(v); k++)
                if (add_special(a, json_array_get(v, k), where, 0, err, errlen)) return -1;
        } else if (!v && cl->c == C_CAMEMBERT) {
            add_token(a, "<s>NOTUSED", 0, 0, 0, 0, 1);
            add_token(a, "</s>NOTUSED", 0, 0, 0, 0, 1);
            add_token(a, "<unk>NOTUSED", 0, 0, 0, 0, 1);
        } else if (!v && cl->c == C_T5)
            for (int k = 0; k < extra_ids; k++) {
                char t[48];
                snprintf(t, sizeof t, "<extra_id_%d>", k);
                add_token(a, t, 1, 1, 0, 0, 1);
            }
    }
    return 0;
}

static json_t *template_special(json_t *single, json_t *specials, const char *tok, const struct added *a, int unk_id)
{
    json_t *v = json_object_get(a->ids, tok);
    if (!v) v = json_object_get(a->vocab, tok);
    json_int_t id = v ? json_integer_value(v) : unk_id;     /* the slow tokenizer's convert_tokens_to_ids */
    json_array_append_new(single, json_pack("{s:{s:s, s:i}}", "SpecialToken", "id", tok, "type_id", 0));
    json_object_set_new(specials, tok, json_pack("{s:s, s:[I], s:[s]}", "id", tok, "ids", id, "tokens", tok));
    return single;
}

char *enc_spm_tokjson_text(const unsigned char *buf, size_t len, const char *name, const char *tokenizer_class,
                           const json_t *cfg, const json_t *smap, char *err, size_t errlen)
{
    const struct spm_class *cl = find_class(tokenizer_class);
    if (!cl) {
        snprintf(err, errlen, "%s: tokenizer class \"%s\" has no SentencePiece converter here (supported: %s)", name,
                 tokenizer_class ? tokenizer_class : "", ENC_SPM_CLASSES);
        return NULL;
    }
    char cerr[SP_ERRLEN] = "";
    /* the slow class's arguments the converter reads (each class's own; the others have none) */
    const int albert = cl->c == C_ALBERT, deberta = cl->c == C_DEBERTA2, t5 = cl->c == C_T5;
    const int lower = albert || deberta ? cfg_bool(cfg, "do_lower_case", albert, cerr, sizeof cerr) : 0;
    const int keep_accents = albert ? cfg_bool(cfg, "keep_accents", 0, cerr, sizeof cerr) : 0;
    const int split_punct = deberta ? cfg_bool(cfg, "split_by_punct", 0, cerr, sizeof cerr) : 0;
    const int prefix = t5 ? cfg_bool(cfg, "add_prefix_space", 1, cerr, sizeof cerr) : 1;
    const int legacy = t5 ? cfg_bool(cfg, "legacy", 1, cerr, sizeof cerr) : 1;
    if (cerr[0]) { snprintf(err, errlen, "%s", cerr); return NULL; }
    int extra_ids = 100;
    json_t *ev = cfg && cl->c == C_T5 ? json_object_get(cfg, "extra_ids") : NULL;
    if (ev && !json_is_null(ev)) {
        double x = json_number_value(ev);
        if (!json_is_number(ev) || x < 0 || x > 1e6 || x != (double)(int)x) {
            snprintf(err, errlen, "tokenizer_config.json: extra_ids: expected an integer 0..1000000");
            return NULL;
        }
        extra_ids = (int)x;
    }

    struct spm_model m;
    if (model_read(&m, buf, len, name, err, errlen)) { model_free(&m); return NULL; }

    /* the converter's vocabulary: (piece, score) in id order */
    json_t *vocab = json_array();
    if (cl->c == C_XLMR || cl->c == C_CAMEMBERT) {
        static const char *const x[] = { "<s>", "<pad>", "</s>", "<unk>" };
        static const char *const c[] = { "<s>NOTUSED", "<pad>", "</s>NOTUSED", "<unk>", "<unk>NOTUSED" };
        const int nf = cl->c == C_XLMR ? 4 : 5;
        for (int i = 0; i < nf; i++)
            json_array_append_new(vocab, json_pack("[s, f]", cl->c == C_XLMR ? x[i] : c[i], i == 4 ? -100.0 : 0.0));
    }
    const size_t from = cl->c == C_XLMR ? 3 : cl->c == C_CAMEMBERT ? 1 : 0;
    for (size_t i = 0; i < m.n; i++)
        if (!isfinite(m.p[i].score)) {
            snprintf(err, errlen, "%s: pieces[%zu] (\"%s\"): score %g, expected a finite number", name, i, m.p[i].s, m.p[i].score);
            json_decref(vocab);
            model_free(&m);
            return NULL;
        }
    for (size_t i = from; i < m.n; i++) {
        double s = m.p[i].score;
        if (cl->c == C_ALBERT && !number_comma(m.p[i].s)) s -= 100;
        json_array_append_new(vocab, json_pack("[s, f]", m.p[i].s, s));
    }
    if (cl->c == C_XLMR || cl->c == C_CAMEMBERT) json_array_append_new(vocab, json_pack("[s, f]", "<mask>", 0.0));
    if (cl->c == C_T5)
        for (int k = extra_ids - 1; k >= 0; k--) {
            char t[48];
            snprintf(t, sizeof t, "<extra_id_%d>", k);
            json_array_append_new(vocab, json_pack("[s, f]", t, 0.0));
        }
    const int unk_id = cl->c == C_XLMR || cl->c == C_CAMEMBERT ? 3 : m.unk_id;
    if (unk_id < 0 || (size_t)unk_id >= json_array_size(vocab)) {
        snprintf(err, errlen, "%s: trainer_spec.unk_id %d is not an id of the %zu pieces", name, unk_id, json_array_size(vocab));
        json_decref(vocab);
        model_free(&m);
        return NULL;
    }
    json_t *vmap = json_object();    /* piece -> id, the last one of a repeated piece (a dict) */
    for (size_t i = 0; i < json_array_size(vocab); i++)
        json_object_set_new(vmap, json_string_value(json_array_get(json_array_get(vocab, i), 0)), json_integer((json_int_t)i));

    json_t *model;
    if (m.model_type == 1) {
        model = json_pack("{s:s, s:i, s:o, s:b}", "type", "Unigram", "unk_id", unk_id, "vocab", vocab, "byte_fallback", 0);
    } else {
        /* SentencePieceExtractor: for each piece in id order, every split into two pieces of the
         * model, ordered by the left then the right piece's id */
        json_t *spm_ids = json_object(), *merges = json_array();
        for (size_t i = 0; i < m.n; i++) json_object_set_new(spm_ids, m.p[i].s, json_integer((json_int_t)i));
        struct mg { json_int_t l, r; size_t cut; } *loc = NULL;
        size_t lcap = 0;
        for (size_t i = 0; i < m.n; i++) {
            const char *s = m.p[i].s;
            size_t n = strlen(s), nl = 0;
            char *left = sp_xmalloc(n + 1);
            for (size_t k = 1; k < n; k++) {
                if (((unsigned char)s[k] & 0xc0) == 0x80) continue;
                memcpy(left, s, k);
                left[k] = 0;
                json_t *l = json_object_get(spm_ids, left), *r = json_object_get(spm_ids, s + k);
                if (!l || !r) continue;
                if (nl == lcap) { lcap = lcap ? 2 * lcap : 16; loc = sp_xrealloc(loc, lcap * sizeof *loc); }
                loc[nl++] = (struct mg){ json_integer_value(l), json_integer_value(r), k };
            }
            for (size_t a = 1; a < nl; a++)     /* insertion sort: a piece has few splits */
                for (size_t b = a; b > 0 && (loc[b - 1].l > loc[b].l || (loc[b - 1].l == loc[b].l && loc[b - 1].r > loc[b].r)); b--) {
                    struct mg t = loc[b]; loc[b] = loc[b - 1]; loc[b - 1] = t;
                }
            for (size_t a = 0; a < nl; a++) {
                memcpy(left, s, loc[a].cut);
                left[loc[a].cut] = 0;
                json_array_append_new(merges, json_pack("[s, s]", left, s + loc[a].cut));
            }
            free(left);
        }
        free(loc);
        json_decref(spm_ids);
        json_t *bv = json_object();
        size_t i;
        json_t *e;
        json_array_foreach(vocab, i, e) json_object_set_new(bv, json_string_value(json_array_get(e, 0)), json_integer((json_int_t)i));
        json_decref(vocab);
        model = json_pack("{s:s, s:n, s:s, s:n, s:n, s:b, s:b, s:o, s:o}", "type", "BPE", "dropout", "unk_token", m.unk_piece,
                          "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk", 1, "byte_fallback", 0,
                          "vocab", bv, "merges", merges);
    }

    /* normalizer */
    json_t *nz = json_array();
    json_t *pc = NULL;
    if (m.charsmap_len) {
        char *t = b64(m.charsmap, m.charsmap_len);
        pc = json_pack("{s:s, s:s}", "type", "Precompiled", "precompiled_charsmap", t);
        free(t);
    }
    if (cl->c == C_ALBERT) {
        json_array_append_new(nz, norm_replace("String", "``", "\""));
        json_array_append_new(nz, norm_replace("String", "''", "\""));
        if (!keep_accents) {
            json_array_append_new(nz, json_pack("{s:s}", "type", "NFKD"));
            json_array_append_new(nz, json_pack("{s:s}", "type", "StripAccents"));
        }
        if (lower) json_array_append_new(nz, json_pack("{s:s}", "type", "Lowercase"));
        if (pc) json_array_append(nz, pc);
        json_array_append_new(nz, norm_replace("Regex", " {2,}", " "));
    } else if (cl->c == C_DEBERTA2) {
        if (lower) json_array_append_new(nz, json_pack("{s:s}", "type", "Lowercase"));
        json_array_append_new(nz, json_pack("{s:s, s:b, s:b}", "type", "Strip", "strip_left", 1, "strip_right", 1));
        if (pc) json_array_append(nz, pc);
        json_array_append_new(nz, norm_replace("Regex", " {2,}", " "));
    } else {
        if (pc) json_array_append(nz, pc);
        json_array_append_new(nz, json_pack("{s:s, s:b, s:b}", "type", "Strip", "strip_left", 0, "strip_right", 1));
        json_array_append_new(nz, norm_replace("Regex", " {2,}", "\xe2\x96\x81"));
    }
    json_decref(pc);

    /* pre-tokenizer: Metaspace (DeBERTa-v2: after Punctuation when split_by_punct) */
    const char *scheme = !prefix ? "never" : (cl->c == C_T5 && !legacy) ? "first" : "always";
    json_t *pre = json_pack("{s:s, s:s, s:s, s:b}", "type", "Metaspace", "replacement", "\xe2\x96\x81", "prepend_scheme", scheme,
                            "split", 1);
    if (cl->c == C_DEBERTA2) {
        json_t *seq = json_array();
        if (split_punct) json_array_append_new(seq, json_pack("{s:s, s:s}", "type", "Punctuation", "behavior", "Isolated"));
        json_array_append_new(seq, pre);
        pre = json_pack("{s:s, s:o}", "type", "Sequence", "pretokenizers", seq);
    }

    /* added tokens, then the post-processor's template */
    struct added a = { json_array(), json_object(), vmap, (int)json_array_size(json_object_get(model, "vocab")) };
    if (m.model_type == 2) a.next = (int)json_object_size(json_object_get(model, "vocab"));
    json_t *doc = NULL;
    if (!added_tokens(&a, cl, cfg, smap, extra_ids, err, errlen)) {
        json_t *single = json_array(), *specials = json_object();
        const char *open = cl->c == C_ALBERT || cl->c == C_DEBERTA2 ? "[CLS]" : cl->c == C_T5 ? NULL : "<s>";
        const char *close = cl->c == C_ALBERT || cl->c == C_DEBERTA2 ? "[SEP]" : "</s>";
        if (open) template_special(single, specials, open, &a, unk_id);
        json_array_append_new(single, json_pack("{s:{s:s, s:i}}", "Sequence", "id", "A", "type_id", 0));
        template_special(single, specials, close, &a, unk_id);
        doc = json_pack("{s:s, s:n, s:n, s:O, s:{s:s, s:o}, s:o, s:{s:s, s:o, s:o}, s:n, s:o}", "version", "1.0",
                        "truncation", "padding", "added_tokens", a.list, "normalizer", "type", "Sequence", "normalizers", nz,
                        "pre_tokenizer", pre, "post_processor", "type", "TemplateProcessing", "single", single,
                        "special_tokens", specials, "decoder", "model", model);
        nz = pre = model = NULL;
    }
    json_decref(nz);
    json_decref(pre);
    json_decref(model);
    json_decref(a.list);
    json_decref(a.ids);
    json_decref(vmap);
    model_free(&m);
    if (!doc) return NULL;
    char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(doc);
    if (!text) snprintf(err, errlen, "%s: could not write the converted tokenizer (out of memory)", name);
    return text;
}

/* ---------------------------------------------------------------- a folder */

static int load_json(const char *dir, const char *file, json_t **out, char *err, size_t errlen)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    *out = NULL;
    FILE *f = fopen(p, "rb");
    if (!f) return 0;
    fclose(f);
    size_t len;
    char *text = sp_read_file(p, &len, err, errlen);
    if (!text) return -1;
    json_error_t je;
    /* integers as reals: save_pretrained writes model_max_length 1000000000000000019884624838656 */
    *out = json_loadb(text, len, JSON_DECODE_INT_AS_REAL, &je);
    free(text);
    if (!*out) { snprintf(err, errlen, "%s:%d: not valid JSON: %s", p, je.line, je.text); return -1; }
    if (!json_is_object(*out)) {
        snprintf(err, errlen, "%s: expected a JSON object", p);
        json_decref(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

struct enc_tokjson *enc_spm_load(const char *dir, const char *tokenizer_class, char *err, size_t errlen)
{
    const char *file = enc_spm_class_file(tokenizer_class);
    if (!file) {
        snprintf(err, errlen, "%s: tokenizer class \"%s\" has no SentencePiece converter here (supported: %s)", dir,
                 tokenizer_class ? tokenizer_class : "", ENC_SPM_CLASSES);
        return NULL;
    }
    char path[4096], cerr[SP_ERRLEN];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len;
    unsigned char *buf = (unsigned char *)sp_read_file(path, &len, err, errlen);
    if (!buf) return NULL;
    json_t *cfg = NULL, *smap = NULL;
    struct enc_tokjson *t = NULL;
    char *text = NULL;
    if (load_json(dir, "tokenizer_config.json", &cfg, err, errlen) || load_json(dir, "special_tokens_map.json", &smap, err, errlen))
        goto out;
    if (!(text = enc_spm_tokjson_text(buf, len, path, tokenizer_class, cfg, smap, cerr, sizeof cerr))) {
        if (strncmp(cerr, path, strlen(path))) snprintf(err, errlen, "%s/%s", dir, cerr);   /* a JSON file's */
        else snprintf(err, errlen, "%s", cerr);
        goto out;
    }
    char name[4200];
    snprintf(name, sizeof name, "%s (converted)", path);
    struct enc_tokjson_opts o = { ENC_TOKJSON_PREFIX_FILE };
    t = enc_tokjson_load_mem(text, strlen(text), name, &o, err, errlen);
out:
    free(text);
    free(buf);
    json_decref(cfg);
    json_decref(smap);
    return t;
}
