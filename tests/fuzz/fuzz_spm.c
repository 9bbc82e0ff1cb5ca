/* tests/fuzz/fuzz_spm.c — libFuzzer target for the SentencePiece .model reader and converter
 * (encoder/enc_spm.c) and the tokenizer.json reader that takes its output (enc_tokjson.c).
 * Input: one byte choosing the tokenizer class (and, for some, a tokenizer_config.json option),
 * then the .model bytes (seeds in corpus/spm/: a small BPE and a small unigram model). A refused
 * model must say why (err non-empty, NULL returned); an accepted one must give a tokenizer.json
 * the reader accepts, and every word of a fixed sample at least one piece of the vocabulary. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/sp.h"
#include "encoder/spm.h"
#include "encoder/tokjson.h"

#define FZ_CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const cls[] = { "AlbertTokenizer", "XLMRobertaTokenizerFast", "CamembertTokenizer",
                                       "DebertaV2Tokenizer", "T5Tokenizer", "LlamaTokenizer" };
    if (size < 1) return 0;
    const int c = data[0] % 6, opt = data[0] / 6 % 2;
    json_t *cfg = opt ? json_pack("{s:b, s:b, s:i, s:b}", "do_lower_case", 0, "split_by_punct", 1, "extra_ids", 3, "legacy", 0) : NULL;
    char err[SP_ERRLEN] = "";
    char *text = enc_spm_tokjson_text(data + 1, size - 1, "fuzz.model", cls[c], cfg, NULL, err, sizeof err);
    json_decref(cfg);
    if (!text) { FZ_CHECK(err[0]); return 0; }
    FZ_CHECK(c != 5);
    struct enc_tokjson_opts o = { ENC_TOKJSON_PREFIX_FILE };
    struct enc_tokjson *t = enc_tokjson_load_mem(text, strlen(text), "fuzz.model (converted)", &o, err, sizeof err);
    free(text);
    if (!t) { FZ_CHECK(err[0]); return 0; }   /* e.g. a BPE merge whose pieces the converter's vocabulary lacks */
    static const char *const words[] = { "Hello", "world", "\xd0\x9c\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0", "\xe5\x8c\x97\xe4\xba\xac",
                                         "a\x07" "b", "[MASK]", "<s>", "x\xe2\x80\x8dy", "12,5" };
    const int n = (int)(sizeof words / sizeof words[0]);
    struct enc_tok_sentence s = { 0 };
    int T = enc_tokjson_sentence(t, words, n, &s, err, sizeof err);
    if (T < 0) FZ_CHECK(err[0]);
    else {
        for (int i = 0; i < n; i++) FZ_CHECK(s.end[i] > s.start[i]);
        for (int q = 0; q < T; q++) FZ_CHECK(s.ids.id[q] >= 0 && enc_tokjson_piece(t, s.ids.id[q]) != NULL);
    }
    enc_tok_sentence_free(&s);
    enc_tokjson_free(t);
    return 0;
}
