/* tests/fuzz/fuzz_tokenizer.c — libFuzzer target for the BERT tokenizer (encoder/enc_tokenizer.c).
 * Input: byte 0 picks the options (mode, ptb_unescape, lower_case, a small max_chars_per_word);
 * the bytes up to the first NUL are extra vocabulary lines after "[UNK]\n[CLS]\n[SEP]\n##a\na\n" (so
 * the vocabulary reader is fuzzed too: a rejected vocabulary must say why); the rest are words,
 * one per line. Checks what the encoder relies on: T = 2 + pieces, every word at least one piece,
 * contiguous spans, piece_word consistent, every id a vocabulary line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "encoder/tokenizer.h"

#define FZ_CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    struct enc_tok_opts o;
    enc_tok_opts_defaults(&o);
    o.mode = data[0] & 1 ? ENC_TOK_WORDPIECE_ONLY : ENC_TOK_BASIC_WORDPIECE;
    o.ptb_unescape = (data[0] >> 1) & 1;
    o.lower_case = !((data[0] >> 2) & 1);
    if (data[0] & 8) o.max_chars_per_word = 1 + (data[0] >> 4);
    const char *p = (const char *)data + 1, *e = (const char *)data + size;
    const char *nul = memchr(p, 0, (size_t)(e - p));
    const char *vend = nul ? nul : e;
    struct sp_buf v = { 0 };
    sp_buf_puts(&v, "[UNK]\n[CLS]\n[SEP]\n##a\na\n");
    sp_buf_put(&v, p, (size_t)(vend - p));
    char err[SP_ERRLEN] = "";
    enc_tokenizer_t *t = NULL;
    int rc = enc_tok_open_mem(v.p, v.len, "fuzz", &o, &t, err, sizeof err);
    sp_buf_free(&v);
    if (rc) { FZ_CHECK(t == NULL && err[0]); return 0; }
    /* words: the rest, one per line, as C strings */
    const char *w = nul ? nul + 1 : e;
    size_t n = 0, cap = 0;
    char **words = NULL;
    while (w < e) {
        const char *nl = memchr(w, '\n', (size_t)(e - w));
        const char *we = nl ? nl : e;
        if (n == cap) { cap = cap ? 2 * cap : 16; words = sp_xrealloc(words, cap * sizeof *words); }
        words[n] = sp_xmalloc((size_t)(we - w) + 1);
        memcpy(words[n], w, (size_t)(we - w));
        words[n][we - w] = 0;
        n++;
        w = nl ? nl + 1 : e;
    }
    struct enc_tok_sentence s = { 0 };
    int T = enc_tok_sentence(t, (const char *const *)words, (int)n, &s);
    FZ_CHECK(T == s.ids.n && T >= 2 + (int)n);
    FZ_CHECK(s.ids.id[0] == enc_tok_id(t, "[CLS]") && s.ids.id[T - 1] == enc_tok_id(t, "[SEP]"));
    FZ_CHECK(s.too_long == (T > o.max_positions));
    int at = 1;
    for (size_t i = 0; i < n; i++) {
        FZ_CHECK(s.start[i] == at && s.end[i] > s.start[i]);
        for (int q = s.start[i]; q < s.end[i]; q++) FZ_CHECK(s.piece_word[q] == (int)i);
        at = s.end[i];
    }
    FZ_CHECK(at == T - 1 && s.piece_word[0] == -1 && s.piece_word[T - 1] == -1);
    for (int q = 0; q < T; q++) FZ_CHECK(s.ids.id[q] >= 0 && s.ids.id[q] < enc_tok_vocab_size(t));
    /* the same words one by one give the same pieces */
    struct enc_pieces pc = { 0 };
    for (size_t i = 0; i < n; i++) {
        pc.n = 0;
        int k = enc_tok_word(t, words[i], strlen(words[i]), &pc);
        FZ_CHECK(k == s.end[i] - s.start[i] && !memcmp(pc.id, s.ids.id + s.start[i], (size_t)k * sizeof *pc.id));
        struct sp_buf b = { 0 };
        enc_tok_basic(t, words[i], strlen(words[i]), &b);
        FZ_CHECK(sp_utf8_valid(b.p ? b.p : "", b.len));
        sp_buf_free(&b);
    }
    enc_pieces_free(&pc);
    enc_tok_sentence_free(&s);
    for (size_t i = 0; i < n; i++) free(words[i]);
    free(words);
    enc_tok_close(t);
    return 0;
}
