/* tests/tools/encoder_tokenize.c — driver for the tokenizer cross-check
 * (tests/reference/bert_tokenize_ref.py, tests/cli/t2052-tokenizer-ref.sh); public API only.
 *
 *   encoder_tokenize VOCAB [wordpiece-only] [ptb] [cased] <WORDS >OUT
 *   encoder_tokenize --unicode-version    utf8proc's Unicode version ("15.0.0")
 *   encoder_tokenize                      (no arguments: nothing to do, exit 0)
 *
 * WORDS: one word a line, its UTF-8 bytes in hex (an empty line is the empty word), so any byte
 * string can be a word. OUT: one line per word: the piece ids separated by spaces, a TAB, then
 * the basic tokens (enc_tok_basic: UTF-8, space-separated) in hex.
 * A driver, not a test: built into $(BUILD)/tools by `make test-cli`. */
#include "common/sp.h"
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
    if (!strcmp(argv[1], "--unicode-version")) { printf("%s\n", enc_tok_unicode_version()); return 0; }
    struct enc_tok_opts o;
    enc_tok_opts_defaults(&o);
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "wordpiece-only")) o.mode = ENC_TOK_WORDPIECE_ONLY;
        else if (!strcmp(argv[i], "ptb")) o.ptb_unescape = 1;
        else if (!strcmp(argv[i], "cased")) o.lower_case = 0;
        else { fprintf(stderr, "encoder_tokenize: unknown option %s\n", argv[i]); return 2; }
    }
    char err[SP_ERRLEN];
    enc_tokenizer_t *t;
    if (enc_tok_open(argv[1], &o, &t, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;
    struct enc_pieces p = { 0 };
    struct sp_buf b = { 0 };
    char *word = NULL;
    size_t word_cap = 0;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
        if (n % 2) { fprintf(stderr, "stdin:%ld: odd number of hex digits\n", lineno); return 1; }
        if (word_cap < (size_t)n / 2 + 1) { word_cap = (size_t)n / 2 + 1; word = sp_xrealloc(word, word_cap); }
        size_t len = 0;
        for (ssize_t i = 0; i < n; i += 2) {
            int hi = hexval(line[i]), lo = hexval(line[i + 1]);
            if (hi < 0 || lo < 0) { fprintf(stderr, "stdin:%ld: not hex\n", lineno); return 1; }
            word[len++] = (char)(hi * 16 + lo);
        }
        p.n = 0;
        enc_tok_word(t, word, len, &p);
        for (int i = 0; i < p.n; i++) printf(i ? " %d" : "%d", p.id[i]);
        putchar('\t');
        b.len = 0;
        enc_tok_basic(t, word, len, &b);
        for (size_t i = 0; i < b.len; i++) printf("%02x", (unsigned char)b.p[i]);
        putchar('\n');
    }
    free(line);
    free(word);
    sp_buf_free(&b);
    enc_pieces_free(&p);
    enc_tok_close(t);
    return fflush(stdout) ? 1 : 0;
}
