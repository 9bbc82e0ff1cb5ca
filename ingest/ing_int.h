/* ingest/ing_int.h — helpers shared by the readers of this folder only (not a public interface):
 * batch.c, heads.c and lines.c define them, conllu.c and ptb.c define the readers ingest.c calls. */
#ifndef ING_INT_H
#define ING_INT_H

#include <stddef.h>

#include "ingest/readers.h"

/* A new, zeroed item at the end of the batch. */
struct ing_item *ing__new_item(struct ing_batch *b);

/* Record n_lines non-blank lines from file line `line` on that the reader skipped (b->skip). */
void ing__skipped(struct ing_batch *b, long line, int n_lines);


/* The first problem of 1-based heads h[0..n) in the order of docs/spec/structures.md §2.1 (bad values, then roots,
 * then cycles), written to msg. hraw (may be NULL) holds the HEAD strings as in the file, for
 * messages. st is scratch of n bytes. Returns 0 when the heads form one tree, else the 1-based
 * word the problem is at (n + 1 when it belongs to no word, e.g. "no root"). */
int ing__heads_problem(int n, const int *h, const char *const *hraw, unsigned char *st,
                       char *msg, size_t cap);

/* Parse an integer HEAD field: sets *v (1-based; -1 for non-integers and negatives; large values
 * saturate above any n) and returns 1 if the field is "_". */
int ing__head_value(const char *f, int *v);

/* One "_" string and a growing array of n pointers to it, shared by columns a format lacks. */
extern const char ing__underscore[];
const char **ing__underscores(struct ing_batch *b, int n);

/* If a sentence of n words is longer than the batch allows, write why to msg and return 1. */
int ing__too_long(const struct ing_batch *b, int n, char *msg, size_t cap);

/* Blank: empty or only spaces, tabs and CRs (docs/spec/structures.md §2.1: whitespace-only lines are blank). */
int ing__line_blank(const char *s, size_t n);

/* CoNLL-U: does a whitespace-only line end its sentence? p is where the next line starts in
 * buf[0..len). It does when the next line that is not a comment is blank or starts a sentence
 * (ID 1, 1-b or 0.m); it does not when that line is a word line with another ID (the line is
 * inside a sentence, which is then rejected whole). Returns 1, 0, or -1 when buf ends before
 * that line is complete (at_end: buf ends the text, so a last line without '\n' is complete and
 * running out means the sentence ends). */
int ing__ws_line_ends_sentence(const char *buf, size_t len, size_t p, int at_end);

/* CoNLL-U: is there a word line (neither blank nor a comment) between the blank line before
 * the line that starts at buf[start] (or the start of buf) and that line? A whitespace-only line
 * ends a sentence only after a word line of it. */
int ing__ws_line_after_words(const char *buf, size_t start);

/* Readers, one per format (ingest.c dispatches). */
int ing__parse_lines(enum sp_format fmt, enum sp_mode mode, const char *buf, size_t len,
                     long first_line, struct ing_batch *out, char *err, size_t errlen);
int ing__parse_ptb(enum sp_mode mode, const char *buf, size_t len, long first_line,
                   struct ing_batch *out, char *err, size_t errlen);

#endif
