/* tests/unit/encoder_tokenizer.c — the BERT tokenizer (docs/spec/models.md M1): the M1.6 test
 * vocabulary, every test vector of M1.7 (basic tokens and ids) and the sentence TV-M1 in both
 * modes, the M8.2 code points, PTB unescaping, special-token splitting, the D6 length rule, vocabulary errors
 * (file:line), and robustness: random bytes and invalid UTF-8 as words never crash and always
 * give at least one valid id (invalid bytes are U+FFFD, which cleaning drops; tokenizer.h). */
#include "common/sp.h"
#include "encoder/tokenizer.h"
#include "tests/unit/t_harness.h"

#include <string.h>
#include <unistd.h>

/* M1.6, one token per line in id order */
static const char *const vocab42[] = {
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "naive", "zo", "##e", "n",
    "'", "t", "s", "u", ".", "1", ",", "000", "5", "##00",
    "\xe4\xb8\xad", "can", "##not", "a", "##a", "x", "-", "(", ")", "/",
    "2", "3", "\xcf\x83", "##\xce\xb1", "##\xcf\x82", "ist", "##an", "##bul", "co", "##op",
    "go", "##es",
};

static char tmpdir[] = "/tmp/sp-tok-XXXXXX";
static char vocab_path[256];
static char err[SP_ERRLEN];

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    SP_ASSERT(f);
    SP_ASSERT(fwrite(text, 1, len, f) == len);
    fclose(f);
}

static enc_tokenizer_t *open_tok(enum enc_tok_mode mode, int ptb)
{
    struct enc_tok_opts o;
    enc_tok_opts_defaults(&o);
    o.mode = mode;
    o.ptb_unescape = ptb;
    enc_tokenizer_t *t = NULL;
    int rc = enc_tok_open(vocab_path, &o, &t, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    SP_ASSERT(rc == SP_OK);
    return t;
}

/* compare the pieces of one word with the expected ids (n of them), and its basic tokens */
static int check_word(const enc_tokenizer_t *t, const char *tag, const char *word, size_t len, const char *basic,
                      const int32_t *want, int n)
{
    struct enc_pieces p = { 0 };
    int got = enc_tok_word(t, word, len, &p);
    int ok = got == n && p.n == n && !memcmp(p.id, want, (size_t)n * sizeof *want);
    if (!ok) {
        fprintf(stderr, "%s: got %d pieces:", tag, p.n);
        for (int i = 0; i < p.n && i < 12; i++) fprintf(stderr, " %d", p.id[i]);
        fprintf(stderr, "; expected %d:", n);
        for (int i = 0; i < n && i < 12; i++) fprintf(stderr, " %d", want[i]);
        fprintf(stderr, "\n");
    }
    enc_pieces_free(&p);
    if (basic) {
        struct sp_buf b = { 0 };
        enc_tok_basic(t, word, len, &b);
        sp_buf_put(&b, "", 1);
        if (strcmp(b.p, basic)) { fprintf(stderr, "%s: basic tokens \"%s\", expected \"%s\"\n", tag, b.p, basic); ok = 0; }
        sp_buf_free(&b);
    }
    return ok;
}

struct row { const char *tag, *word, *basic; int32_t ids[8]; int n; enum enc_tok_mode mode; int ptb; };

static void vectors(void)
{
    static const struct row rows[] = {
        { "T1", "na\xc3\xafve", "naive", { 6 }, 1, 0, 0 },
        { "T2", "Zo\xc3\xab", "zoe", { 7, 8 }, 2, 0, 0 },
        { "T3", "Zo\xc3\xab's", "zoe ' s", { 7, 8, 10, 12 }, 4, 0, 0 },
        { "T4", "n't", "n ' t", { 9, 10, 11 }, 3, 0, 0 },
        { "T5", "U.S.", "u . s .", { 13, 14, 12, 14 }, 4, 0, 0 },
        { "T6", "1,500", "1 , 500", { 15, 16, 18, 19 }, 4, 0, 0 },
        { "T7", "1,000", "1 , 000", { 15, 16, 17 }, 3, 0, 0 },
        { "T8", "\xe4\xb8\xad", "\xe4\xb8\xad", { 20 }, 1, 0, 0 },
        { "T9", "x\xe4\xb8\xadx", "x \xe4\xb8\xad x", { 25, 20, 25 }, 3, 0, 0 },
        { "T10", "can\x07not", "cannot", { 21, 22 }, 2, 0, 0 },
        { "T11", "co\xe2\x80\x8bop", "coop", { 38, 39 }, 2, 0, 0 },
        { "T12", "3\xc2\xa0" "1/2", "3 1 / 2", { 31, 15, 29, 30 }, 4, 0, 0 },
        { "T13", "xyz", "xyz", { 1 }, 1, 0, 0 },
        { "T14", "na\xc3\xafve-xyz", "naive - xyz", { 6, 26, 1 }, 3, 0, 0 },
        { "T15", "\xc2\xa3" "5", "\xc2\xa3" "5", { 1 }, 1, 0, 0 },
        { "T16", "\xce\xa3\xce\x91\xce\xa3", "\xcf\x83\xce\xb1\xcf\x82", { 32, 33, 34 }, 3, 0, 0 },
        { "T17", "\xc4\xb0stanbul", "istanbul", { 35, 36, 37 }, 3, 0, 0 },
        { "T22", "\xef\xbf\xbd", "", { 1 }, 1, 0, 0 },
        { "T23", "-LRB-", "- lrb -", { 26, 1, 26 }, 3, 0, 0 },
        { "T23b", "-LRB-", "(", { 27 }, 1, 0, 1 },
        { "T24", "a[SEP]x", "a [SEP] x", { 23, 3, 25 }, 3, 0, 0 },
        { "T25", "the\xe2\x80\xa8the", "the the", { 5, 5 }, 2, 0, 0 },
        { "T26", "U.S.", "U.S.", { 1 }, 1, ENC_TOK_WORDPIECE_ONLY, 0 },
        { "T27", "goes", "goes", { 40, 41 }, 2, ENC_TOK_WORDPIECE_ONLY, 0 },
        /* beyond the table: more M1.2 and step-0 cases */
        { "ptb-rrb", "-RRB-", ")", { 28 }, 1, 0, 1 },
        { "ptb-slash", "1\\/2", "1 / 2", { 15, 29, 30 }, 3, 0, 1 },
        { "ptb-slash-off", "1\\/2", "1 \\ / 2", { 15, 1, 29, 30 }, 4, 0, 0 },
        { "ptb-oq", "``", "\"", { 1 }, 1, 0, 1 },
        { "ptb-inside", "-LRB-x", "- lrb - x", { 26, 1, 26, 25 }, 4, 0, 1 },  /* only whole words are replaced */
        { "special-alone", "[CLS]", "[CLS]", { 2 }, 1, 0, 0 },
        { "special-lower", "[unk]", "[ unk ]", { 1, 1, 1 }, 3, 0, 0 },
        { "special-two", "[PAD][MASK]the", "[PAD] [MASK] the", { 0, 4, 5 }, 3, 0, 0 },
        { "special-after-clean", "[CL\x07S]", "[CLS]", { 2 }, 1, 0, 0 },       /* HF never_split: kept whole */
        { "special-after-clean-2", "x\xc2\xa0[UN\xe2\x80\x8bK]", "x [UNK]", { 25, 1 }, 2, 0, 0 },
        { "special-lower-after-clean", "[cl\x07s]", "[ cls ]", { 1, 1, 1 }, 3, 0, 0 },
        { "special-glued-after-clean", "a[SE\x07P]", "a [ sep ]", { 23, 1, 1, 1 }, 4, 0, 0 },
        { "cjk-not-hiragana", "\xe3\x81\x82" "a", "\xe3\x81\x82" "a", { 1 }, 1, 0, 0 },  /* あ is not spaced */
        { "sigma-medial", "\xce\xa3\xce\x91", "\xcf\x83\xce\xb1", { 32, 33 }, 2, 0, 0 },
        { "sigma-alone", "\xce\xa3", "\xcf\x83", { 32 }, 1, 0, 0 },      /* no cased letter before: σ */
        { "sigma-dot", "\xce\x91\xce\xa3.", "\xce\xb1\xcf\x82 .", { 1, 14 }, 2, 0, 0 }, /* '.' is case-ignorable */
        { "sigma-dot-a", "\xce\xa3\xce\xa3.\xce\x91", "\xcf\x83\xcf\x83 . \xce\xb1", { 1, 14, 1 }, 3, 0, 0 },
        { "sigma-after-ordinal", "\xc2\xaa\xce\xa3", "\xc2\xaa\xcf\x82", { 1 }, 1, 0, 0 },  /* ª is Cased (Lo) */
        { "sigma-after-mark", "\xce\x91\xcc\x81\xce\xa3", "\xce\xb1\xcf\x82", { 1 }, 1, 0, 0 },  /* U+0301 skipped */
        { "sigma-medial-2", "\xce\x91\xce\xa3\xce\x91", "\xce\xb1\xcf\x83\xce\xb1", { 1 }, 1, 0, 0 },
        { "nel-dropped", "the\xc2\x85the", "thethe", { 1 }, 1, 0, 0 },      /* U+0085 is Cc: dropped */
        { "shy-dropped", "co\xc2\xadop", "coop", { 38, 39 }, 2, 0, 0 },     /* U+00AD is Cf */
        { "bom-dropped", "\xef\xbb\xbfthe", "the", { 5 }, 1, 0, 0 },       /* U+FEFF is Cf */
        { "vt-dropped", "the\x0bthe", "thethe", { 1 }, 1, 0, 0 },        /* U+000B is Cc: dropped, no split */
        { "tab-splits", "the\tthe", "the the", { 5, 5 }, 2, 0, 0 },
        { "ideographic-space", "the\xe3\x80\x80the", "the the", { 5, 5 }, 2, 0, 0 },
        { "wp-only-space", "the go", "the go", { 5, 40 }, 2, ENC_TOK_WORDPIECE_ONLY, 0 },
        { "wp-only-nbsp", "the\xc2\xa0go", "the go", { 5, 40 }, 2, ENC_TOK_WORDPIECE_ONLY, 0 },
        { "wp-only-nel", "the\xc2\x85go", "the go", { 5, 40 }, 2, ENC_TOK_WORDPIECE_ONLY, 0 },
        { "wp-only-zwsp", "co\xe2\x80\x8bop", "co\xe2\x80\x8bop", { 1 }, 1, ENC_TOK_WORDPIECE_ONLY, 0 },
        { "wp-only-empty", "", "", { 1 }, 1, ENC_TOK_WORDPIECE_ONLY, 0 },
        { "empty", "", "", { 1 }, 1, 0, 0 },
        { "mn-only", "\xcc\x81", "", { 1 }, 1, 0, 0 },                     /* U+0301 alone: D4 */
        { "invalid-inside", "na\xffive", "naive", { 6 }, 1, 0, 0 },        /* U+FFFD dropped */
        { "invalid-wp-only", "the\xff", "the\xef\xbf\xbd", { 1 }, 1, ENC_TOK_WORDPIECE_ONLY, 0 },
    };
    enc_tokenizer_t *tok[2][2];
    for (int m = 0; m < 2; m++)
        for (int p = 0; p < 2; p++) tok[m][p] = open_tok((enum enc_tok_mode)m, p);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct row *r = &rows[i];
        int ok = check_word(tok[r->mode][r->ptb], r->tag, r->word, strlen(r->word), r->basic, r->ids, r->n);
        T_CHECK(ok);
    }
    /* T18-T21: lengths counted after normalisation */
    enc_tokenizer_t *t = tok[0][0];
    char w[256];
    int32_t want[128];
    memset(w, 'a', 100); w[100] = 0;                                         /* T18 */
    want[0] = 23; for (int i = 1; i < 100; i++) want[i] = 24;
    T_CHECK(check_word(t, "T18", w, 100, w, want, 100));
    memset(w, 'a', 101); w[101] = 0;                                         /* T19 */
    want[0] = 1;
    T_CHECK(check_word(t, "T19", w, 101, w, want, 1));
    memset(w, 'a', 99); memcpy(w + 99, "\xc3\xa9", 3);                       /* T20 */
    char basic[128];
    memset(basic, 'a', 99); memcpy(basic + 99, "e", 2);
    want[0] = 23; for (int i = 1; i < 99; i++) want[i] = 24;
    want[99] = 8;
    T_CHECK(check_word(t, "T20", w, strlen(w), basic, want, 100));
    memset(w, 'a', 100); memcpy(w + 100, "\xc3\xa9", 3);                     /* T21 */
    want[0] = 1;
    T_CHECK(check_word(t, "T21", w, strlen(w), NULL, want, 1));
    /* a word with an embedded U+0000 (len given): cleaning drops it; wordpiece-only never matches it */
    int32_t unk = 1, thethe[2] = { 5, 5 };
    T_CHECK(check_word(t, "nul-basic", "the\0 the", 8, "the the", thethe, 2));
    T_CHECK(check_word(tok[1][0], "nul-wp-only", "the\0", 4, NULL, &unk, 1));
    /* the 100-character rule is an option: with 3, `goes` (4 code points) is [UNK], `the` is not */
    struct enc_tok_opts o;
    enc_tok_opts_defaults(&o);
    o.max_chars_per_word = 3;
    enc_tokenizer_t *t3 = NULL;
    T_EQ_INT(enc_tok_open(vocab_path, &o, &t3, err, sizeof err), SP_OK);
    if (t3) {
        int32_t the = 5;
        T_CHECK(check_word(t3, "max3-the", "the", 3, "the", &the, 1));
        T_CHECK(check_word(t3, "max3-goes", "goes", 4, "goes", &unk, 1));
        enc_tok_close(t3);
    }
    for (int m = 0; m < 2; m++)
        for (int p = 0; p < 2; p++) enc_tok_close(tok[m][p]);
}

static void sentence(void)
{
    static const char *const words[] = { "Zo\xc3\xab", "goes", "to", "the", "U.S.", "." };
    enc_tokenizer_t *t = open_tok(ENC_TOK_BASIC_WORDPIECE, 0);
    struct enc_tok_sentence s = { 0 };
    T_EQ_INT(enc_tok_sentence(t, words, 6, &s), 13);
    static const int32_t ids[] = { 2, 7, 8, 40, 41, 1, 5, 13, 14, 12, 14, 14, 3 };
    static const int32_t span[] = { 1, 3, 3, 5, 5, 6, 6, 7, 7, 11, 11, 12 };
    static const int32_t pw[] = { -1, 0, 0, 1, 1, 2, 3, 4, 4, 4, 4, 5, -1 };
    T_EQ_INT(s.ids.n, 13);
    T_CHECK(!memcmp(s.ids.id, ids, sizeof ids));
    T_EQ_INT(s.n_words, 6);
    for (int w = 0; w < 6; w++) { T_EQ_INT(s.start[w], span[2 * w]); T_EQ_INT(s.end[w], span[2 * w + 1]); }
    T_CHECK(!memcmp(s.piece_word, pw, sizeof pw));
    T_EQ_INT(s.too_long, 0);
    enc_tok_close(t);
    /* wordpiece-only: [CLS] [UNK] go ##es [UNK] the [UNK] . [SEP] */
    t = open_tok(ENC_TOK_WORDPIECE_ONLY, 0);
    T_EQ_INT(enc_tok_sentence(t, words, 6, &s), 9);   /* the struct is reused */
    static const int32_t ids2[] = { 2, 1, 40, 41, 1, 5, 1, 14, 3 };
    static const int32_t span2[] = { 1, 2, 2, 4, 4, 5, 5, 6, 6, 7, 7, 8 };
    T_CHECK(!memcmp(s.ids.id, ids2, sizeof ids2));
    for (int w = 0; w < 6; w++) { T_EQ_INT(s.start[w], span2[2 * w]); T_EQ_INT(s.end[w], span2[2 * w + 1]); }
    enc_tok_close(t);
    /* an empty sentence is [CLS] [SEP] */
    t = open_tok(ENC_TOK_BASIC_WORDPIECE, 0);
    T_EQ_INT(enc_tok_sentence(t, NULL, 0, &s), 2);
    T_EQ_INT(s.ids.id[0], 2); T_EQ_INT(s.ids.id[1], 3); T_EQ_INT(s.too_long, 0);
    /* D6: 510 pieces + [CLS] + [SEP] = 512 fit; 511 do not (the pieces are still all there) */
    const char *many[600];
    for (int i = 0; i < 600; i++) many[i] = "the";
    T_EQ_INT(enc_tok_sentence(t, many, 510, &s), 512);
    T_EQ_INT(s.too_long, 0);
    T_EQ_INT(enc_tok_sentence(t, many, 511, &s), 513);
    T_EQ_INT(s.too_long, 1);
    T_EQ_INT(s.end[510], 512); T_EQ_INT(s.ids.id[512], 3);
    many[3] = "1,500";                                  /* 4 pieces: 255 words + 3*... */
    T_EQ_INT(enc_tok_sentence(t, many, 508, &s), 513);
    T_EQ_INT(s.too_long, 1);
    T_EQ_INT(s.start[4], 8);
    enc_tok_sentence_free(&s);
    enc_tok_close(t);
}

static void vocab_api(void)
{
    enc_tokenizer_t *t = open_tok(ENC_TOK_BASIC_WORDPIECE, 0);
    T_EQ_INT(enc_tok_vocab_size(t), 42);
    T_EQ_INT(enc_tok_id(t, "##es"), 41);
    T_EQ_INT(enc_tok_id(t, "es"), -1);
    T_EQ_STR(enc_tok_piece(t, 32), "\xcf\x83");
    T_CHECK(enc_tok_piece(t, 42) == NULL);
    T_CHECK(enc_tok_piece(t, -1) == NULL);
    enc_tok_close(t);
    enum enc_tok_mode m;
    T_EQ_INT(enc_tok_mode_parse("wordpiece-only", &m), SP_OK); T_EQ_INT(m, ENC_TOK_WORDPIECE_ONLY);
    T_EQ_INT(enc_tok_mode_parse("basic+wordpiece", &m), SP_OK); T_EQ_INT(m, ENC_TOK_BASIC_WORDPIECE);
    T_EQ_INT(enc_tok_mode_parse("basic", &m), SP_EUSAGE);
    T_EQ_STR(enc_tok_mode_name(ENC_TOK_WORDPIECE_ONLY), "wordpiece-only");
    /* utf8proc's Unicode version, for the manifest (M1.1 asks for 15.0) */
    const char *v = enc_tok_unicode_version();
    T_CHECK(v && v[0] >= '1');
    printf("# Unicode %s (utf8proc)\n", v);
    /* duplicates: the later line wins; the final line needs no \n; an empty line is a token */
    t = NULL;
    const char *dup = "[UNK]\n[CLS]\n[SEP]\nthe\n\nthe";
    T_EQ_INT(enc_tok_open_mem(dup, strlen(dup), "dup.txt", NULL, &t, err, sizeof err), SP_OK);
    if (t) {
        T_EQ_INT(enc_tok_vocab_size(t), 6);
        T_EQ_INT(enc_tok_id(t, "the"), 5);
        T_EQ_INT(enc_tok_id(t, ""), 4);
        T_EQ_STR(enc_tok_piece(t, 3), "the");
        struct enc_pieces p = { 0 };
        T_EQ_INT(enc_tok_word(t, "The", 3, &p), 1);
        T_EQ_INT(p.id[0], 5);
        enc_pieces_free(&p);
        enc_tok_close(t);
    }
}

static int opens_with(const char *text, size_t len, const char *name, int want_rc, const char *want_msg)
{
    enc_tokenizer_t *t = (enc_tokenizer_t *)1;
    err[0] = 0;
    int rc = enc_tok_open_mem(text, len, name, NULL, &t, err, sizeof err);
    int ok = rc == want_rc && t == NULL && strstr(err, want_msg) != NULL;
    if (!ok) fprintf(stderr, "%s: rc %d, message \"%s\"; expected rc %d and \"%s\"\n", name, rc, err, want_rc, want_msg);
    return ok;
}

static void errors(void)
{
    enc_tokenizer_t *t = (enc_tokenizer_t *)1;
    char path[300];
    snprintf(path, sizeof path, "%s/no-such-vocab.txt", tmpdir);
    T_EQ_INT(enc_tok_open(path, NULL, &t, err, sizeof err), SP_EIO);
    T_CHECK(t == NULL);
    T_CHECK(strstr(err, "no-such-vocab.txt: cannot open: No such file") != NULL);
    snprintf(path, sizeof path, "%s/empty.txt", tmpdir);
    write_file(path, "", 0);
    T_EQ_INT(enc_tok_open(path, NULL, &t, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "empty.txt: empty vocabulary") != NULL);
    const char *s;
    s = "[UNK]\n[CLS]\n[SEP]\r\nthe\n";
    T_CHECK(opens_with(s, strlen(s), "crlf.txt", SP_EPARSE, "crlf.txt:3: line ends with CR"));
    s = "[UNK]\n[CLS]\n[SEP]\nbad\xff\n";
    T_CHECK(opens_with(s, strlen(s), "utf8.txt", SP_EPARSE, "utf8.txt:4: token is not valid UTF-8"));
    s = "[UNK]\n[CLS]\nnu\0l\n[SEP]\n";
    T_CHECK(opens_with(s, 22, "nul.txt", SP_EPARSE, "nul.txt:3: NUL byte"));
    s = "[PAD]\n[CLS]\n[SEP]\n";
    T_CHECK(opens_with(s, strlen(s), "nounk.txt", SP_EPARSE, "nounk.txt: no [UNK] token"));
    s = "[PAD]\n[UNK]\n[SEP]\n";
    T_CHECK(opens_with(s, strlen(s), "nocls.txt", SP_EPARSE, "nocls.txt: no [CLS] token"));
    s = "[PAD]\n[UNK]\n[CLS]\n";
    T_CHECK(opens_with(s, strlen(s), "nosep.txt", SP_EPARSE, "nosep.txt: no [SEP] token"));
    s = "\n\n";
    T_CHECK(opens_with(s, strlen(s), "blank.txt", SP_EPARSE, "blank.txt: no [UNK] token"));
    s = "[unk]\n[CLS]\n[SEP]\n";                              /* case-sensitive */
    T_CHECK(opens_with(s, strlen(s), "lower.txt", SP_EPARSE, "lower.txt: no [UNK] token"));
    struct enc_tok_opts o;
    enc_tok_opts_defaults(&o);
    o.max_chars_per_word = 0;
    s = "[UNK]\n[CLS]\n[SEP]\n";
    T_EQ_INT(enc_tok_open_mem(s, strlen(s), "opts", &o, &t, err, sizeof err), SP_EUSAGE);
    T_CHECK(t == NULL);
}

/* random bytes, and random sequences of hostile code points and broken sequences: every word
 * gives at least one piece, every id is in the vocabulary, the output is deterministic */
static void robustness(void)
{
    static const char *const frag[] = {
        "\xff", "\xfe", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe4\xb8", "\x80",
        "\xf0\x9f\x98", "\xc3", "\xef\xbf\xbd", "\xcc\x81", "\xce\xa3", "\xc4\xb0", "[SEP]", "[SE", "\\/",
        "-LRB-", "\xe2\x80\xa8", "\xe4\xb8\xad", "\x07", "\t", " ", "a", "##", ".", "'", "\xf0\x9f\x84\xb0",
    };
    struct sp_rng r;
    sp_rng_seed(&r, 13);
    enc_tokenizer_t *tok[2][2];
    for (int m = 0; m < 2; m++)
        for (int p = 0; p < 2; p++) tok[m][p] = open_tok((enum enc_tok_mode)m, p);
    int bad = 0;
    char w[256];
    struct enc_pieces a = { 0 }, b = { 0 };
    for (int it = 0; it < 20000; it++) {
        size_t n = 0;
        if (it % 2) {
            n = (size_t)sp_rng_below(&r, 64);
            for (size_t i = 0; i < n; i++) w[i] = (char)sp_rng_below(&r, 256);
        } else {
            int k = (int)sp_rng_below(&r, 12);
            for (int i = 0; i < k; i++) {
                const char *f = frag[sp_rng_below(&r, sizeof frag / sizeof frag[0])];
                memcpy(w + n, f, strlen(f));
                n += strlen(f);
            }
        }
        const enc_tokenizer_t *t = tok[it % 4 / 2][it % 8 / 4];
        a.n = b.n = 0;
        int na = enc_tok_word(t, w, n, &a), nb = enc_tok_word(t, w, n, &b);
        if (na < 1 || na != nb || memcmp(a.id, b.id, (size_t)na * sizeof *a.id)) bad++;
        for (int i = 0; i < a.n; i++)
            if (a.id[i] < 0 || a.id[i] >= 42) bad++;
        struct sp_buf bb = { 0 };
        enc_tok_basic(t, w, n, &bb);
        if (!sp_utf8_valid(bb.p ? bb.p : "", bb.len)) bad++;     /* basic tokens are valid UTF-8 */
        sp_buf_free(&bb);
    }
    T_EQ_INT(bad, 0);
    /* each invalid sequence alone: basic+wordpiece drops it (one [UNK], D4); wordpiece-only: [UNK] */
    for (size_t i = 0; i < 10; i++) {
        struct enc_pieces p = { 0 };
        T_EQ_INT(enc_tok_word(tok[0][0], frag[i], strlen(frag[i]), &p), 1);
        T_EQ_INT(p.id[0], 1);
        p.n = 0;
        T_EQ_INT(enc_tok_word(tok[1][0], frag[i], strlen(frag[i]), &p), 1);
        T_EQ_INT(p.id[0], 1);
        enc_pieces_free(&p);
        struct sp_buf bb = { 0 };
        T_EQ_INT(enc_tok_basic(tok[0][0], frag[i], strlen(frag[i]), &bb), 0);
        sp_buf_free(&bb);
    }
    enc_pieces_free(&a);
    enc_pieces_free(&b);
    for (int m = 0; m < 2; m++)
        for (int p = 0; p < 2; p++) enc_tok_close(tok[m][p]);
}

/* cased vocabularies (lower_case 0): NFC at step 3, no lower-casing or accent stripping */
static void cased(void)
{
    const char *v = "[UNK]\n[CLS]\n[SEP]\nZo\xc3\xab\nZo\n##e\n";
    struct enc_tok_opts o;
    enc_tok_opts_defaults(&o);
    o.lower_case = 0;
    enc_tokenizer_t *t = NULL;
    T_EQ_INT(enc_tok_open_mem(v, strlen(v), "cased.txt", &o, &t, err, sizeof err), SP_OK);
    if (!t) return;
    int32_t want = 3;
    T_CHECK(check_word(t, "cased-nfc", "Zo\xc3\xab", 5, "Zo\xc3\xab", &want, 1));
    T_CHECK(check_word(t, "cased-nfd-input", "Zoe\xcc\x88", 5, "Zo\xc3\xab", &want, 1));  /* e + U+0308 composes */
    int32_t unk = 0;
    T_CHECK(check_word(t, "cased-upper-kept", "ZO\xc3\xab", 5, "ZO\xc3\xab", &unk, 1));
    enc_tok_close(t);
}

/* the real MiniLM (bert-base-uncased) vocabulary, where the lead has put it: TV-M1's sentence with
 * the well-known bert-base-uncased ids ([UNK] 100, [CLS] 101, [SEP] 102, "the" 1996, "to" 2000,
 * "." 1012, "s" 1055, "u" 1057; "zoe" 11199 and "goes" 3632 read off vocab.txt's line numbers) */
static void real_vocab(void)
{
    const char *dir = getenv("SP_MODELS");
    char path[512];
    snprintf(path, sizeof path, "%s/all-MiniLM-L6-v2/vocab.txt", dir ? dir : "models");
    if (access(path, R_OK)) { T_SKIP("MiniLM vocab.txt absent (SP_MODELS or models/, make models)"); return; }
    enc_tokenizer_t *t = NULL;
    T_EQ_INT(enc_tok_open(path, NULL, &t, err, sizeof err), SP_OK);
    if (!t) return;
    T_EQ_INT(enc_tok_vocab_size(t), 30522);
    static const char *const words[] = { "Zo\xc3\xab", "goes", "to", "the", "U.S.", ".", "n't" };
    static const int32_t ids[] = { 101, 11199, 3632, 2000, 1996, 1057, 1012, 1055, 1012, 1012, 1050, 1005, 1056, 102 };
    struct enc_tok_sentence s = { 0 };
    T_EQ_INT(enc_tok_sentence(t, words, 7, &s), 14);
    T_CHECK(s.ids.n == 14 && !memcmp(s.ids.id, ids, sizeof ids));
    T_EQ_INT(s.start[4], 5); T_EQ_INT(s.end[4], 9);
    enc_tok_sentence_free(&s);
    enc_tok_close(t);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 1; }
    snprintf(vocab_path, sizeof vocab_path, "%s/vocab.txt", tmpdir);
    struct sp_buf b = { 0 };
    for (size_t i = 0; i < sizeof vocab42 / sizeof vocab42[0]; i++) sp_buf_printf(&b, "%s\n", vocab42[i]);
    write_file(vocab_path, b.p, b.len);
    sp_buf_free(&b);

    vectors();
    sentence();
    vocab_api();
    errors();
    robustness();
    cased();
    real_vocab();

    char path[300];
    snprintf(path, sizeof path, "%s/empty.txt", tmpdir);
    unlink(path);
    unlink(vocab_path);
    rmdir(tmpdir);
    return T_DONE();
}
