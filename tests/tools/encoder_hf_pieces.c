/* tests/tools/encoder_hf_pieces.c — driver for the tokenizer of a model folder as kind "hf" opens
 * it (enc_hf_tokenizer_open: tokenizer.json with its class's prefix-space rule, or vocab.txt;
 * tests/cli/t2238-hf-tokenizer-json.sh). Uses the encoder's internal API (encoder_int.h).
 *
 *   encoder_hf_pieces DIR [bert] [hex] [nolimit] [text] <SENTENCES >OUT
 *
 * SENTENCES: one sentence a line, its words separated by TABs (hex: each word in UTF-8 hex, the
 * words separated by single spaces, so that a word may hold a TAB; t2241). OUT: one line a sentence, as
 * tests/reference/hf_family_fixtures.py writes ref/pieces.txt: the ids separated by spaces, a TAB,
 * one START-END piece span per word, a TAB, 1 when the sentence has more pieces than the model's
 * positions (config.json) else 0; nolimit: config.json is not read (a tokenizer-only folder, t2241)
 * and the flag is 0. "bert": open it as kind "bert" does (vocab.txt first). "text": as a decoder's
 * (enc_hf_tokenizer_open_text: running text's leading-space rule; implies nolimit; t2280).
 * Errors: the message, exit 1. A driver, not a test: built into $(BUILD)/tools by `make test-cli`. */
#include "common/sp.h"
#include "encoder/encoder_int.h"
#include "encoder/tokenizer.h"

#include <stdio.h>
#include <string.h>

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 0;
    int prefer_json = 1, hex = 0, nolimit = 0, text = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "bert")) prefer_json = 0;
        else if (!strcmp(argv[i], "hex")) hex = 1;
        else if (!strcmp(argv[i], "nolimit")) nolimit = 1;
        else if (!strcmp(argv[i], "text")) nolimit = text = 1;
        else { fprintf(stderr, "encoder_hf_pieces: unknown option %s\n", argv[i]); return 2; }
    }
    char err[SP_ERRLEN], path[4096];
    struct enc_bert_config bc = { 0 };
    snprintf(path, sizeof path, "%s/config.json", argv[1]);
    if (!nolimit && enc_hf_config_load(path, &bc, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    struct enc_tok_opts o;
    enc_tok_opts_defaults(&o);
    o.max_positions = nolimit ? 1 << 30 : bc.max_pieces;
    struct enc_hf_tok *t;
    if (text ? enc_hf_tokenizer_open_text(argv[1], &o, &t, err, sizeof err)
             : enc_hf_tokenizer_open(argv[1], prefer_json, &o, &t, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    fprintf(stderr, "tokenizer: %s\n", enc_hf_tok_what(t));
    char *line = NULL, **words = NULL;
    size_t cap = 0;
    ssize_t n;
    int wcap = 0, rc = 0;
    long lineno = 0;
    struct enc_tok_sentence s = { 0 };
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        int nw = 0;
        for (char *p = line; n > 0;) {
            char *q = strchr(p, hex ? ' ' : '\t');
            if (q) *q = 0;
            if (nw == wcap) { wcap = wcap ? 2 * wcap : 64; words = sp_xrealloc(words, (size_t)wcap * sizeof *words); }
            words[nw++] = p;
            if (!q) break;
            p = q + 1;
        }
        for (int w = 0; hex && w < nw; w++) {   /* in place: the bytes are half the digits */
            size_t l = strlen(words[w]), k = 0;
            for (size_t i = 0; i + 1 < l; i += 2) {
                int hi = hexval(words[w][i]), lo = hexval(words[w][i + 1]);
                if (hi < 0 || lo < 0 || (hi == 0 && lo == 0) || l % 2) {
                    fprintf(stderr, "stdin:%ld: not hex (or a NUL byte)\n", lineno);
                    return 1;
                }
                words[w][k++] = (char)(hi << 4 | lo);
            }
            words[w][k] = 0;
        }
        int T = enc_hf_tok_sentence(t, (const char *const *)words, nw, &s, err, sizeof err);
        if (T < 0) { fprintf(stderr, "stdin:%ld: %s\n", lineno, err); rc = 1; break; }
        for (int i = 0; i < T; i++) printf(i ? " %d" : "%d", s.ids.id[i]);
        putchar('\t');
        for (int w = 0; w < nw; w++) printf(w ? " %d-%d" : "%d-%d", s.start[w], s.end[w]);
        printf("\t%d\n", s.too_long);
    }
    free(line);
    free(words);
    enc_tok_sentence_free(&s);
    enc_hf_tok_close(t);
    return rc;
}
