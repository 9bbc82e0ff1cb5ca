/* tests/fuzz/fuzz_tokjson.c — libFuzzer target for the tokenizer.json reader (encoder/enc_tokjson.c).
 * Input: tokenizer.json text up to the first NUL, then words, one per line (seeds in
 * corpus/tokjson/: a WordPiece, a byte-level BPE and a Unigram with Metaspace). A refused file
 * must say why (err non-empty, NULL returned); an accepted one must give every word at least one
 * piece (or refuse the word with a message), contiguous spans, the post-processor's specials
 * around them, every id a token of the vocabulary, and the same pieces word by word. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "encoder/tokjson.h"

#define FZ_CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *e = p + size;
    const char *nul = memchr(p, 0, size);
    size_t jlen = nul ? (size_t)(nul - p) : size;
    char err[SP_ERRLEN] = "";
    struct enc_tokjson_opts o = { size & 1 ? ENC_TOKJSON_PREFIX_FILE : ENC_TOKJSON_PREFIX_ON };
    struct enc_tokjson *t = enc_tokjson_load_mem(p, jlen, "fuzz", &o, err, sizeof err);
    if (!t) { FZ_CHECK(err[0]); return 0; }
    const char *w = nul ? nul + 1 : e;
    size_t n = 0, cap = 0;
    char **words = NULL;
    while (w < e && n < 64) {
        const char *nl = memchr(w, '\n', (size_t)(e - w));
        const char *we = nl ? nl : e;
        if (n == cap) { cap = cap ? 2 * cap : 16; words = sp_xrealloc(words, cap * sizeof *words); }
        size_t l = (size_t)(we - w);
        words[n] = sp_xmalloc(l + 1);
        memcpy(words[n], w, l);
        words[n][l] = 0;   /* a NUL inside ends the word early */
        n++;
        w = nl ? nl + 1 : e;
    }
    struct enc_tok_sentence s = { 0 };
    int T = enc_tokjson_sentence(t, (const char *const *)words, (int)n, &s, err, sizeof err);
    if (T < 0) FZ_CHECK(err[0]);
    else {
        FZ_CHECK(T == s.ids.n);
        int at = n ? s.start[0] : 0;
        for (size_t i = 0; i < n; i++) {
            FZ_CHECK(s.start[i] == at && s.end[i] > s.start[i]);
            for (int q = s.start[i]; q < s.end[i]; q++) FZ_CHECK(s.piece_word[q] == (int)i);
            at = s.end[i];
        }
        for (int q = 0; q < T; q++) FZ_CHECK(s.ids.id[q] >= 0 && enc_tokjson_piece(t, s.ids.id[q]) != NULL);
        struct enc_pieces pc = { 0 };
        for (size_t i = 0; i < n; i++) {
            pc.n = 0;
            int k = enc_tokjson_word(t, words[i], strlen(words[i]), &pc, err, sizeof err);
            FZ_CHECK(k == s.end[i] - s.start[i] && !memcmp(pc.id, s.ids.id + s.start[i], (size_t)k * sizeof *pc.id));
        }
        enc_pieces_free(&pc);
    }
    enc_tok_sentence_free(&s);
    for (size_t i = 0; i < n; i++) free(words[i]);
    free(words);
    enc_tokjson_free(t);
    return 0;
}
