/* ingest/senteval_file.c — reader and writer of SentEval probing-task files (docs/spec/probing.md §1.1).
 *
 * HOW IT WORKS. The buffer is cut at '\n'. For each line the trailing ASCII whitespace is split
 * off (kept as `trail`), the rest is split on TAB: tag, label, optional middle fields, sentence.
 * SentEval opens files in Python's universal-newline mode, where a lone CR also ends a line;
 * we do not split there but report such a CR as an error, so the two readers never disagree
 * silently. Empty lines, unknown tags, empty labels or sentences, invalid UTF-8 and NUL bytes
 * are errors too (SentEval would crash on some and silently embed garbage for others). */
#include "ingest/senteval_file.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

const char *ing_part_tag(enum ing_part p)
{
    return p == ING_PART_TRAIN ? "tr" : p == ING_PART_DEV ? "va" : "te";
}

void ing_senteval_init(struct ing_senteval_file *f)
{
    memset(f, 0, sizeof *f);
    sp_arena_init(&f->arena);
}

void ing_senteval_free(struct ing_senteval_file *f)
{
    sp_arena_free(&f->arena);
    free(f->item);
    memset(f, 0, sizeof *f);
}

static struct ing_senteval_item *push(struct ing_senteval_file *f)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 1024;
        f->item = sp_xrealloc(f->item, (size_t)f->cap * sizeof *f->item);
    }
    struct ing_senteval_item *it = &f->item[f->n++];
    memset(it, 0, sizeof *it);
    return it;
}

static int line_err(char *err, size_t errlen, const char *name, long line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int line_err(char *err, size_t errlen, const char *name, long line, const char *fmt, ...)
{
    if (err && errlen) {
        int n = snprintf(err, errlen, "%s:%ld: ", name, line);
        if (n < 0) n = 0;
        if ((size_t)n < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return SP_EPARSE;
}

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static int parse_line(const char *name, long lineno, const char *s, size_t len, struct ing_senteval_file *f,
                      char *err, size_t errlen)
{
    if (memchr(s, 0, len)) return line_err(err, errlen, name, lineno, "expected text, got a NUL byte");
    if (!sp_utf8_valid(s, len)) return line_err(err, errlen, name, lineno, "expected UTF-8 text, got invalid bytes");
    size_t end = len;
    while (end > 0 && is_ws(s[end - 1])) end--;
    const char *cr = memchr(s, '\r', end);
    if (cr) return line_err(err, errlen, name, lineno, "expected a line ending in LF or CRLF, got a lone CR inside the line");
    if (end == 0) return line_err(err, errlen, name, lineno, "expected tag TAB label TAB sentence, got an empty line");

    /* fields: [0, t1) tag, [t1+1, t2) label, ..., [tl+1, end) sentence */
    const char *t1 = memchr(s, '\t', end);
    int nf = 1;
    for (size_t i = 0; i < end; i++) nf += s[i] == '\t';
    if (nf < 3)
        return line_err(err, errlen, name, lineno, "expected 3 TAB-separated fields (tag, label, sentence), got %d", nf);
    size_t taglen = (size_t)(t1 - s);
    enum ing_part part;
    if (taglen == 2 && !memcmp(s, "tr", 2)) part = ING_PART_TRAIN;
    else if (taglen == 2 && !memcmp(s, "va", 2)) part = ING_PART_DEV;
    else if (taglen == 2 && !memcmp(s, "te", 2)) part = ING_PART_TEST;
    else
        return line_err(err, errlen, name, lineno, "expected partition tag tr, va or te, got '%.*s'",
                        (int)(taglen > 40 ? 40 : taglen), s);
    const char *lab = t1 + 1;
    const char *t2 = memchr(lab, '\t', (size_t)(s + end - lab));
    const char *last = s + end;
    while (last[-1] != '\t') last--;                /* start of the last field */
    if (t2 == lab) return line_err(err, errlen, name, lineno, "expected a label in field 2, got an empty field");
    if (last == s + end) return line_err(err, errlen, name, lineno, "expected a sentence in the last field, got an empty field");
    int has_tok = 0;
    for (const char *p = last; p < s + end; p++) has_tok |= !is_ws(*p);
    if (!has_tok) return line_err(err, errlen, name, lineno, "expected a sentence in the last field, got only spaces");

    struct ing_senteval_item *it = push(f);
    it->part = part;
    it->line = lineno;
    it->label = sp_arena_strndup(&f->arena, lab, (size_t)(t2 - lab));
    it->middle = t2 + 1 < last ? sp_arena_strndup(&f->arena, t2 + 1, (size_t)(last - 1 - (t2 + 1))) : NULL;
    it->sentence = sp_arena_strndup(&f->arena, last, (size_t)(s + end - last));
    it->trail = end < len ? sp_arena_strndup(&f->arena, s + end, len - end) : "";
    return SP_OK;
}

int ing_senteval_parse(const char *name, const char *buf, size_t len, struct ing_senteval_file *f,
                       char *err, size_t errlen)
{
    size_t pos = 0;
    if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) { f->bom = 1; pos = 3; }
    long lineno = 0;
    f->no_final_newline = 0;
    while (pos < len) {
        lineno++;
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
        int rc = parse_line(name, lineno, buf + pos, ll, f, err, errlen);
        if (rc) return rc;
        pos += ll + (nl ? 1 : 0);
        if (!nl) f->no_final_newline = 1;
    }
    return SP_OK;
}

int ing_senteval_read(const char *path, struct ing_senteval_file *f, char *err, size_t errlen)
{
    FILE *fp = sp_fopen_input(path, err, errlen);
    if (!fp) return SP_EIO;
    struct sp_buf b = { 0 };
    char chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) sp_buf_put(&b, chunk, n);
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        sp_buf_free(&b);
        snprintf(err, errlen, "%s: read error", path);
        return SP_EIO;
    }
    int rc = ing_senteval_parse(path, b.p ? b.p : "", b.len, f, err, errlen);
    sp_buf_free(&b);
    return rc;
}

void ing_senteval_add(struct ing_senteval_file *f, enum ing_part part, const char *label, const char *sentence)
{
    struct ing_senteval_item *it = push(f);
    it->part = part;
    it->label = sp_arena_strdup(&f->arena, label);
    it->sentence = sp_arena_strdup(&f->arena, sentence);
    it->trail = "";
    it->line = 0;
    f->no_final_newline = 0;     /* appended lines always end with '\n' */
}

int ing_senteval_write_fp(FILE *fp, const struct ing_senteval_file *f)
{
    if (f->bom && fputs("\xEF\xBB\xBF", fp) == EOF) return -1;
    for (int i = 0; i < f->n; i++) {
        const struct ing_senteval_item *it = &f->item[i];
        if (fprintf(fp, "%s\t%s\t", ing_part_tag(it->part), it->label) < 0) return -1;
        if (it->middle && fprintf(fp, "%s\t", it->middle) < 0) return -1;
        if (fputs(it->sentence, fp) == EOF || fputs(it->trail ? it->trail : "", fp) == EOF) return -1;
        if (!(i == f->n - 1 && f->no_final_newline) && fputc('\n', fp) == EOF) return -1;
    }
    return 0;
}

int ing_senteval_write(const char *path, const struct ing_senteval_file *f, char *err, size_t errlen)
{
    struct sp_out o;               /* a temporary renamed over path once complete */
    int orc = sp_out_open(&o, path, err, errlen);
    if (orc) return orc;
    if (ing_senteval_write_fp(o.f, f)) {
        int e = errno;
        sp_out_abort(&o);
        snprintf(err, errlen, "%s: write error: %s", path, strerror(e));
        return SP_EIO;
    }
    return sp_out_commit(&o, err, errlen);
}

int ing_senteval_ntokens(const char *s)
{
    int n = 0, in = 0;
    for (; *s; s++) {
        int w = is_ws(*s) || *s == '\n';
        if (!w && !in) n++;
        in = !w;
    }
    return n;
}
