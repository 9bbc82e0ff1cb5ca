/* tests/tools/encoder_tokjson.c — driver for the tokenizer.json reader (encoder/enc_tokjson.c,
 * tests/cli/t2230-tokjson.sh); public API only.
 *
 *   encoder_tokjson TOKENIZER.json [hex|tsv] [file-prefix] <SENTENCES >OUT
 *
 * SENTENCES: one sentence a line; its words either in UTF-8 hex separated by single spaces (hex,
 * the default: any byte string can be a word) or as they are, separated by TABs (tsv: a treebank's
 * forms). OUT: one line a sentence, the format of tests/reference/tokjson_fixtures.py: the ids
 * separated by spaces, a TAB, one START-END piece span per word. file-prefix keeps ByteLevel's
 * add_prefix_space as the file says (ENC_TOKJSON_PREFIX_FILE). Errors: the message, exit 1.
 * A driver, not a test: built into $(BUILD)/tools by `make test-cli`. */
#include "common/sp.h"
#include "encoder/tokjson.h"

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
    int tsv = 0;
    struct enc_tokjson_opts o = { ENC_TOKJSON_PREFIX_ON };
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "tsv")) tsv = 1;
        else if (!strcmp(argv[i], "hex")) tsv = 0;
        else if (!strcmp(argv[i], "file-prefix")) o.prefix_space = ENC_TOKJSON_PREFIX_FILE;
        else { fprintf(stderr, "encoder_tokjson: unknown option %s\n", argv[i]); return 2; }
    }
    char err[SP_ERRLEN];
    struct enc_tokjson *t = enc_tokjson_load(argv[1], &o, err, sizeof err);
    if (!t) { fprintf(stderr, "%s\n", err); return 1; }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;
    struct enc_tok_sentence s = { 0 };
    char **words = NULL;
    int wcap = 0, rc = 0;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
        int nw = 0;
        char *p = line;
        for (;;) {
            char *q = strchr(p, tsv ? '\t' : ' ');
            if (q) *q = 0;
            if (nw == wcap) { wcap = wcap ? 2 * wcap : 64; words = sp_xrealloc(words, (size_t)wcap * sizeof *words); }
            words[nw++] = p;
            if (!q) break;
            p = q + 1;
        }
        if (n == 0) nw = 0;
        if (!tsv)
            for (int w = 0; w < nw; w++) {
                size_t l = strlen(words[w]), k = 0;
                if (l % 2) { fprintf(stderr, "stdin:%ld: odd number of hex digits\n", lineno); return 1; }
                for (size_t i = 0; i < l; i += 2) {
                    int hi = hexval(words[w][i]), lo = hexval(words[w][i + 1]);
                    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) { fprintf(stderr, "stdin:%ld: not hex (or a NUL byte)\n", lineno); return 1; }
                    words[w][k++] = (char)(hi * 16 + lo);
                }
                words[w][k] = 0;
            }
        int T = enc_tokjson_sentence(t, (const char *const *)words, nw, &s, err, sizeof err);
        if (T < 0) { fprintf(stderr, "stdin:%ld: %s\n", lineno, err); rc = 1; break; }
        for (int i = 0; i < T; i++) printf(i ? " %d" : "%d", s.ids.id[i]);
        putchar('\t');
        for (int w = 0; w < nw; w++) printf(w ? " %d-%d" : "%d-%d", s.start[w], s.end[w]);
        putchar('\n');
    }
    free(line);
    free(words);
    enc_tok_sentence_free(&s);
    enc_tokjson_free(t);
    return fflush(stdout) || rc ? 1 : 0;
}
