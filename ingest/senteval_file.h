/* ingest/senteval_file.h — SentEval probing-task files (docs/spec/probing.md §1.1).
 *
 * One instance per line: partition tag (tr|va|te) TAB label TAB ... TAB sentence. The loader
 * strips trailing whitespace, splits on TAB, takes field 1 as the partition, field 2 as the
 * label and the LAST field as the sentence (extra middle fields are tolerated and kept).
 *
 * Everything needed to write the file back byte for byte is kept: a UTF-8 BOM, the middle
 * fields, the stripped trailing whitespace of each line (a CR of CRLF included) and whether the
 * last line ended with '\n'. Writing what was read gives the same bytes.
 *
 * Errors are fatal (as in SentEval) and read "FILE:LINE: expected ..., got ...". */
#ifndef ING_SENTEVAL_H
#define ING_SENTEVAL_H

#include <stdio.h>

#include "common/sp.h"

enum ing_part { ING_PART_TRAIN = 0, ING_PART_DEV = 1, ING_PART_TEST = 2 };

const char *ing_part_tag(enum ing_part p);                 /* "tr", "va", "te" */

struct ing_senteval_item {
    enum ing_part part;
    const char *label;        /* field 2, non-empty */
    const char *middle;       /* NULL, or the fields between label and sentence, TAB-joined as in the file */
    const char *sentence;     /* last field as in the file (tokens separated by spaces) */
    const char *trail;        /* trailing whitespace stripped from the line, "\r" of CRLF included ("" usually) */
    long line;                /* 1-based line in the file; 0 for items added in memory */
};

struct ing_senteval_file {
    struct sp_arena arena;    /* owns every string */
    int n, cap;
    struct ing_senteval_item *item;
    int bom;                  /* the file started with a UTF-8 BOM */
    int no_final_newline;     /* the last line had no '\n' */
};

void ing_senteval_init(struct ing_senteval_file *f);
void ing_senteval_free(struct ing_senteval_file *f);

/* Parse buf[0..len); name is used in messages. Appends to f. */
int ing_senteval_parse(const char *name, const char *buf, size_t len, struct ing_senteval_file *f,
                       char *err, size_t errlen);
int ing_senteval_read(const char *path, struct ing_senteval_file *f, char *err, size_t errlen);

/* Add an instance built in memory (strings are copied); it is written as tag TAB label TAB sentence LF. */
void ing_senteval_add(struct ing_senteval_file *f, enum ing_part part, const char *label, const char *sentence);

int ing_senteval_write_fp(FILE *fp, const struct ing_senteval_file *f);     /* 0 ok, -1 I/O error */
int ing_senteval_write(const char *path, const struct ing_senteval_file *f, char *err, size_t errlen);

/* Number of tokens of a sentence (runs of whitespace separate tokens, as Python's str.split()). */
int ing_senteval_ntokens(const char *sentence);

#endif
