/* ingest/lines.c — line rules shared by the chunker (ingest.c) and the CoNLL-U reader: what a
 * blank line is, and whether a whitespace-only line ends a sentence. */
#include <string.h>

#include "ingest/ing_int.h"

/* blank = empty or only spaces/tabs/CR (docs/spec/structures.md §2.1: whitespace-only lines are blank) */
int ing__line_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
    return 1;
}

int ing__ws_line_ends_sentence(const char *buf, size_t len, size_t p, int at_end)
{
    for (;;) {
        if (p >= len) return at_end ? 1 : -1;
        const char *nl = memchr(buf + p, '\n', len - p);
        if (!nl && !at_end) return -1;
        size_t e = nl ? (size_t)(nl - buf) : len;
        if (ing__line_blank(buf + p, e - p)) return 1;
        if (buf[p] == '#') { p = e + 1; continue; }
        size_t n = e - p;
        const char *id = buf + p;
        if ((n >= 2 && id[0] == '1' && (id[1] == '\t' || id[1] == '-')) || (n == 1 && id[0] == '1') ||
            (n >= 2 && id[0] == '0' && id[1] == '.'))
            return 1;
        return 0;
    }
}

int ing__ws_line_after_words(const char *buf, size_t start)
{
    while (start > 0) {
        size_t end = start - 1;                         /* buf[end] is the previous line's '\n' */
        const char *pnl = end ? memrchr(buf, '\n', end) : NULL;
        size_t ls = pnl ? (size_t)(pnl - buf) + 1 : 0;
        if (ing__line_blank(buf + ls, end - ls)) return 0;
        if (buf[ls] != '#') return 1;
        start = ls;
    }
    return 0;
}
