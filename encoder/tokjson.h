/* encoder/tokjson.h — the Hugging Face `tokenizers` format (tokenizer.json), pre-tokenized mode.
 *
 * Treebank words are already split, so a sentence is encoded the way `tokenizers` encodes a
 * pre-tokenized input (transformers' is_split_into_words=True): each word on its own goes through
 * the added-token split, the normalizer, the pre-tokenizer and the model; then the
 * post-processor adds its special tokens around the whole sentence. Ids are identical to
 * tokenizers 0.19 / transformers 4.40.2 (tests/cli/t2230-tokjson.sh on the fixtures of
 * tests/reference/tokjson_fixtures.py), with one rule of synprobe's: a word that gets no piece
 * (one of only control characters, say) gets the unknown token, so every word has a vector.
 *
 * Components (anything else is refused at load, naming the JSON path and what is supported):
 *   normalizers     BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip,
 *                   Replace (string or regex), Prepend, Precompiled (SentencePiece charsmap), Sequence
 *   pre-tokenizers  BertPreTokenizer, Whitespace, WhitespaceSplit, ByteLevel, Metaspace, Split,
 *                   Digits, Punctuation, CharDelimiterSplit, Sequence
 *   models          WordPiece, BPE (merges as "a b" or [a, b]; dropout must be null or 0),
 *                   Unigram (Viterbi; byte_fallback)
 *   post-processors TemplateProcessing (single), BertProcessing, RobertaProcessing, ByteLevel,
 *                   Sequence; the "decoder" section is ignored
 *   added_tokens    matched before normalization (normalized false) or after it (true), leftmost
 *                   longest, with single_word, lstrip and rstrip
 * Regexes run on PCRE2 (UTF, UCP); `\w` is rewritten to Oniguruma's Unicode meaning (letters,
 * marks, numbers, connector punctuation). Unicode data comes from utf8proc.
 *
 * The prefix-space rule. transformers refuses is_split_into_words=True for the byte-level
 * classes (RobertaTokenizerFast, GPT2TokenizerFast, BartTokenizerFast, ...) unless the tokenizer
 * was made with add_prefix_space=True, which sets the ByteLevel pre-tokenizer's
 * add_prefix_space: every word then starts with a space ("Ġ"). roberta-base's tokenizer.json
 * says add_prefix_space false, so enc_tokjson_opts.prefix_space chooses: ENC_TOKJSON_PREFIX_ON
 * (the default) forces it on as those classes must (on a top-level ByteLevel only: the classes
 * leave one inside a Sequence as the file says); ENC_TOKJSON_PREFIX_FILE keeps the file's (the
 * generic PreTrainedTokenizerFast). enc_tokjson_class_prefix_space names the classes.
 * Metaspace follows the file (prepend_scheme "first" applies to every word: each word is its
 * own input in pre-tokenized mode).
 *
 * Ownership: enc_tokjson_load returns a tokenizer owned by the caller (enc_tokjson_free); it is
 * read-only afterwards, so threads may share one. Outputs are the caller-owned growable
 * structures of encoder/tokenizer.h (enc_pieces, enc_tok_sentence). */
#ifndef ENC_TOKJSON_H
#define ENC_TOKJSON_H

#include <stddef.h>
#include <stdint.h>

#include "encoder/tokenizer.h"

struct enc_tokjson;

enum enc_tokjson_prefix { ENC_TOKJSON_PREFIX_ON = 0, ENC_TOKJSON_PREFIX_FILE };

struct enc_tokjson_opts {
    enum enc_tokjson_prefix prefix_space;  /* ByteLevel's add_prefix_space (above); default ON */
};

/* 1 when transformers 4.40.2's class (tokenizer_config.json "tokenizer_class", with or without
 * "Fast") demands add_prefix_space=True for is_split_into_words, else 0. */
int enc_tokjson_class_prefix_space(const char *tokenizer_class);

/* Load tokenizer.json. NULL on error, with one line in err naming the file and the JSON path
 * (e.g. "DIR/tokenizer.json: pre_tokenizer.pretokenizers[1].type: \"Foo\" is not supported
 * (supported: ...)"). opts NULL = defaults. */
struct enc_tokjson *enc_tokjson_load(const char *path, const struct enc_tokjson_opts *opts,
                                     char *err, size_t errlen);
/* The same from JSON text in memory; name is used in messages. */
struct enc_tokjson *enc_tokjson_load_mem(const char *text, size_t len, const char *name,
                                         const struct enc_tokjson_opts *opts, char *err, size_t errlen);
void enc_tokjson_free(struct enc_tokjson *t);

int enc_tokjson_vocab_size(const struct enc_tokjson *t);      /* 1 + the largest id (model and added tokens) */
int enc_tokjson_id(const struct enc_tokjson *t, const char *token); /* -1 when absent */
const char *enc_tokjson_piece(const struct enc_tokjson *t, int id); /* NULL when no token has it */
int enc_tokjson_unk_id(const struct enc_tokjson *t);          /* -1 when the tokenizer has none */

/* Appends the pieces of one word (len bytes, any bytes: invalid UTF-8 becomes U+FFFD as
 * tokenizers' Python binding would refuse it). A word with no piece gets the unknown token;
 * without one: SP_EPARSE, err naming the word. Returns the number appended (>= 1) or -SP_E*. */
int enc_tokjson_word(const struct enc_tokjson *t, const char *word, size_t len, struct enc_pieces *out,
                     char *err, size_t errlen);

/* One sentence: the post-processor's leading specials, the pieces of words 0..n-1, its trailing
 * specials; word w owns pieces [start[w], end[w]), piece_word -1 for specials. too_long is left
 * 0 (the caller knows the model's positions). Returns T, or -SP_E* as enc_tokjson_word. */
int enc_tokjson_sentence(const struct enc_tokjson *t, const char *const *words, int n_words,
                         struct enc_tok_sentence *s, char *err, size_t errlen);

#endif
