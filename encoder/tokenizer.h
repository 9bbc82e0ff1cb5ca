/* encoder/tokenizer.h — BERT tokenization of pre-tokenized treebank words (docs/spec/models.md M1).
 *
 * Each treebank word is tokenized on its own (M1.3 basic tokenizer, then M1.4 greedy
 * longest-match WordPiece), so every piece knows its word; a sentence is [CLS] words [SEP]
 * with one half-open piece span per word (M1.5). The reference is HF's slow BertTokenizer
 * (do_lower_case, tokenize_chinese_chars, max_input_chars_per_word = 100).
 *
 * Unicode data (general category, bidi class for Python's isspace, simple case mappings,
 * canonical decomposition and reordering, NFC for cased vocabularies) comes from libutf8proc;
 * enc_tok_unicode_version() gives its Unicode version for the run manifest. The two
 * properties utf8proc lacks are derived from its data (docs/encoders-and-models.md, the BERT tokenizer): Cased =
 * Lu/Ll/Lt or any case mapping (plus ª, º and the enclosed Latin capitals U+1F130..1F189);
 * Case_Ignorable = Mn/Me/Cf/Lm/Sk plus the 17 Word_Break MidLetter/MidNumLet/Single_Quote code
 * points. They only decide Final_Sigma (σ vs ς); t2052 checks every code point against Python.
 *
 * Bytes that are not valid UTF-8 (bad lead or continuation bytes, overlongs, surrogates, code
 * points above U+10FFFF) decode to U+FFFD, one per byte that cannot start a valid sequence. The
 * basic tokenizer drops U+FFFD at its cleaning step, so such bytes vanish (a word of nothing
 * else is one [UNK], D4); in wordpiece-only mode the U+FFFD reaches WordPiece and makes its
 * part [UNK] unless the vocabulary holds it. U+0000 is dropped by cleaning and never matches a
 * vocabulary entry.
 *
 * Ownership: enc_tok_open returns a tokenizer owned by the caller (enc_tok_close). It is
 * read-only after opening, so threads may share one. enc_pieces and enc_tok_sentence are
 * caller-owned growable outputs: zero-initialise, reuse across calls, free with *_free. */
#ifndef ENC_TOKENIZER_H
#define ENC_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

struct sp_buf;

enum enc_tok_mode {
    ENC_TOK_BASIC_WORDPIECE = 0,  /* "basic+wordpiece" (D1 default): M1.3 then M1.4 */
    ENC_TOK_WORDPIECE_ONLY,       /* "wordpiece-only" (H&M parity): split on isspace, then M1.4 */
};

struct enc_tok_opts {
    enum enc_tok_mode mode;
    int lower_case;            /* 1 (uncased: M1.3 steps 5-7); 0 (cased: NFC at step 3, no 5-7) */
    int ptb_unescape;          /* M1.2 (D5): on for .mrg/.dp input, off for CoNLL-U and H&M parity */
    int max_chars_per_word;    /* basic tokens longer than this (code points) are [UNK] (100) */
    int max_positions;         /* a sentence of more pieces than this, [CLS]/[SEP] included, is too long (512, D6) */
};

/* mode basic+wordpiece, lower_case 1, ptb_unescape 0, 100 chars, 512 positions */
void enc_tok_opts_defaults(struct enc_tok_opts *o);
/* "basic+wordpiece" | "wordpiece-only" -> *mode; SP_EUSAGE for anything else */
int enc_tok_mode_parse(const char *s, enum enc_tok_mode *mode);
const char *enc_tok_mode_name(enum enc_tok_mode mode);

typedef struct enc_tokenizer enc_tokenizer_t;

/* Load a HF vocab.txt (M1.1): UTF-8, one token per line, id = 0-based line number, only the
 * final \n of a line removed; a later duplicate wins. Errors (message in err, naming
 * path:line where there is one): SP_EIO unreadable; SP_EPARSE empty file, CR line end, NUL
 * byte, invalid UTF-8, more than INT32_MAX lines, or no [UNK], [CLS] or [SEP].
 * opts NULL = defaults; bad opts -> SP_EUSAGE. */
int enc_tok_open(const char *vocab_path, const struct enc_tok_opts *opts, enc_tokenizer_t **out,
                 char *err, size_t errlen);
/* The same from vocabulary text in memory; name is used in messages. */
int enc_tok_open_mem(const char *text, size_t len, const char *name, const struct enc_tok_opts *opts,
                     enc_tokenizer_t **out, char *err, size_t errlen);
void enc_tok_close(enc_tokenizer_t *t);

const struct enc_tok_opts *enc_tok_get_opts(const enc_tokenizer_t *t);
int enc_tok_vocab_size(const enc_tokenizer_t *t);          /* lines of vocab.txt */
int enc_tok_id(const enc_tokenizer_t *t, const char *token); /* id, or -1 when absent */
const char *enc_tok_piece(const enc_tokenizer_t *t, int id); /* the token string of an id */
const char *enc_tok_unicode_version(void);                  /* utf8proc's, e.g. "15.0.0" */

/* M1.2 on one stored word form of len bytes: a malloc'd NUL-terminated copy with PTB escapes
 * undone (-LRB- -> "(", \/ -> /, ...), its length in *outn. For other tokenizers of words. */
char *enc_tok_ptb_unescape(const char *word, size_t len, size_t *outn);

/* Growable list of piece ids. */
struct enc_pieces { int32_t *id; int n, cap; };
void enc_pieces_free(struct enc_pieces *p);

/* Appends the pieces of one word of len bytes (M1.2-M1.4); a word with no pieces gets one
 * [UNK] (D4). Returns the number appended (>= 1). */
int enc_tok_word(const enc_tokenizer_t *t, const char *word, size_t len, struct enc_pieces *out);

/* The basic tokens of one word (M1.2 + M1.3, or the isspace parts in wordpiece-only mode),
 * appended to out as UTF-8 separated by single spaces (no basic token contains a space); step
 * 0's special tokens appear as themselves. For tests and diagnostics. Returns the count. */
int enc_tok_basic(const enc_tokenizer_t *t, const char *word, size_t len, struct sp_buf *out);

/* One sentence (M1.5): ids = [CLS], pieces of word 0 .. n-1, [SEP] (T = ids.n); word w owns
 * pieces [start[w], end[w]); piece_word[p] is the word of piece p, -1 for [CLS] and [SEP].
 * too_long = 1 when T > max_positions (D6): the caller must not encode it and counts it
 * (W_TOOLONG); the pieces are still all there. */
struct enc_tok_sentence {
    struct enc_pieces ids;
    int32_t *piece_word;       /* [T] */
    int n_words;
    int32_t *start, *end;      /* [n_words] */
    int too_long;
    int words_cap, piece_word_cap;
};
void enc_tok_sentence_free(struct enc_tok_sentence *s);

/* words[w] are NUL-terminated word forms (as stored: PTB escapes are undone here when
 * ptb_unescape is on). Always succeeds; returns T. */
int enc_tok_sentence(const enc_tokenizer_t *t, const char *const *words, int n_words,
                     struct enc_tok_sentence *s);

#endif
