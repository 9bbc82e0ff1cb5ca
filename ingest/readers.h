/* ingest/readers.h — treebank readers: CoNLL-U, PTB brackets (.mrg), 3-column dependency (.dp).
 *
 * HOW IT WORKS. A file is read in chunks that end on a sentence boundary
 * (ing_chunk_end); each chunk is parsed independently (ing_parse_chunk), so chunks can go
 * to worker threads and memory stays bounded by the chunks in flight, not by the file.
 * Parsing a chunk yields one ing_item per sentence, in file order: either a sentence or a
 * rejection with its reason and raw text. Naming sentences (<stem>.<ordinal>) and
 * formatting "file:line: sent_id: reason" is left to the caller, which sees chunks in order.
 *
 * Readers never touch SQLite and never exit; they do not compute tree structures
 * (that is treeops/). They do validate, and in REPAIR mode repair heads (docs/spec/structures.md §2.1). */
#ifndef ING_INGEST_H
#define ING_INGEST_H

#include <stddef.h>

#include "common/sp.h"
#include "ingest/sentence.h"

enum sp_format { SP_FMT_AUTO = 0, SP_FMT_CONLLU, SP_FMT_PTB, SP_FMT_DEP };
enum sp_mode { SP_MODE_DEFAULT = 0, SP_MODE_STRICT, SP_MODE_REPAIR };

const char *ing_format_name(enum sp_format f);           /* "conllu", "ptb", "dep" */
int ing_format_parse(const char *name, enum sp_format *out); /* 0 ok; accepts auto|conllu|ptb|mrg|dep|dp */

/* Guess the format from the file name and its first bytes; SP_FMT_AUTO if nothing fits
 * (the caller reports "unknown format"). */
enum sp_format ing_detect_format(const char *path, const char *head, size_t len);

/* Length of the longest prefix of buf[0..len) that holds only whole sentences.
 * at_eof: the buffer ends the file, so everything left is one last sentence block. bom_ok: buf
 * starts the file, so a UTF-8 BOM there is skipped, as ing_parse_chunk skips it (a BOM before a
 * comment must not make the comment look like a word line to the cutter alone).
 * Returns 0 when no boundary is in the buffer yet (read more). */
size_t ing_chunk_end(enum sp_format fmt, const char *buf, size_t len, int at_eof, int bom_ok);

struct ing_item {
    struct sp_sentence s;     /* valid when error == NULL */
    const char *error;        /* NULL, or why the sentence was rejected ("expected …, got …") */
    long error_line;          /* file line the error refers to */
    const char *raw;          /* the sentence's raw text (for the quarantine table) */
    size_t raw_len;
};

/* Longest sentence the readers accept, in words, unless the batch says otherwise. Every
 * structure ingest caches is quadratic: st_derive holds n² int32 distances, n² int32 relative
 * positions and n² ancestor bytes (9·n² bytes of scratch) and encodes about 2·n² bytes of BLOBs,
 * so one sentence costs a worker about 11·n² bytes: 46 MiB at 2,048 words (the longest sentence
 * of the PTB sample has 249 words, of EWT dev 75), 4.3 GB at 20,000. */
#define ING_MAX_WORDS_DEFAULT 2048
/* The most words a stored sentence can have (the BLOB header's 16-bit n). */
#define ING_MAX_WORDS_LIMIT 65535

/* Non-blank lines a reader kept nothing of without rejecting a sentence: a block of comment
 * lines with no word line (docs/spec/structures.md §2.1 skips it). The callers name them where they name rejected
 * sentences (ingest counts them too; structprobe's and trees' file readers print both), so no
 * line vanishes without a record. */
struct ing_skip {
    long line;                /* file line of the block's first line */
    int n_lines;
};

struct ing_batch {
    struct sp_arena arena;    /* owns every string and array of the items */
    int n_items, cap;
    struct ing_item *item;
    struct ing_skip *skip;    /* in file order, interleaved with the items by line */
    int n_skip, skip_cap;
    int max_words;            /* longer sentences are rejected (1..ING_MAX_WORDS_LIMIT; 0: the default);
                               * set by the caller, kept by ing_batch_reset */
    const char *max_words_option; /* the caller's option that sets max_words ("--max-words"), named in
                               * the rejection; NULL: the caller has none, so the message says how
                               * to store such a sentence (synprobe ingest --max-words) instead */
};

void ing_batch_init(struct ing_batch *b);
void ing_batch_reset(struct ing_batch *b);
void ing_batch_free(struct ing_batch *b);

/* Parse buf[0..len) (whole sentences, from ing_chunk_end); first_line is the file line of
 * buf[0]. At the very start of a file, pass bom_ok = 1 so a UTF-8 BOM is skipped.
 * Appends items to out. Returns SP_OK, or SP_EPARSE only for a chunk-level problem
 * (e.g. binary data), with the message in err. Sentence-level problems become items. */
int ing_parse_chunk(enum sp_format fmt, enum sp_mode mode, const char *buf, size_t len,
                    long first_line, int bom_ok, struct ing_batch *out, char *err, size_t errlen);

/* HEAD repair of docs/spec/structures.md §2.1 on 1-based file values h[0..n) (h[k-1] = head of word k;
 * values < 0 stand for non-integers). Rewrites h in place; returns the SP_W_* bits raised. */
unsigned ing_repair_heads(int n, int *h);

/* 1 if 1-based heads h[0..n) form one tree with exactly one root (no repair needed). */
int ing_heads_valid(int n, const int *h, const char **why);

/* Base label of a PTB label (docs/spec/structures.md §2.3): "NP-SBJ-1" -> "NP", "-NONE-" unchanged.
 * Writes at most cap bytes (NUL included) to buf and returns buf. */
const char *ing_base_label(const char *label, char *buf, size_t cap);

#endif
