/* encoder/spm.h — a SentencePiece .model as transformers 4.40.2 converts it (issue 36).
 *
 * A checkpoint saved from a slow tokenizer has no tokenizer.json, only the SentencePiece model
 * (spiece.model, sentencepiece.bpe.model, spm.model) with tokenizer_config.json and
 * special_tokens_map.json. AutoTokenizer(use_fast=True) converts it with the converter of the
 * tokenizer class (transformers/convert_slow_tokenizer.py): this file reads the model's protobuf
 * (ModelProto: pieces, trainer_spec, normalizer_spec) and writes the tokenizer.json document that
 * converter would, the added tokens as the fast class adds them (tokenizer_config.json's
 * added_tokens_decoder, then the special tokens not among them), then enc_tokjson_load_mem reads
 * it: ids identical to transformers' (tests/cli/t2241-spm-model.sh).
 *
 * Classes (tokenizer_config.json "tokenizer_class", with or without "Fast"): AlbertTokenizer
 * (do_lower_case, keep_accents), CamembertTokenizer, DebertaV2Tokenizer (do_lower_case,
 * split_by_punct), T5Tokenizer (extra_ids, add_prefix_space, legacy), XLMRobertaTokenizer; the
 * model types the converters take, Unigram and BPE (merges as SentencePieceExtractor finds them).
 * Another class is refused with this list. */
#ifndef ENC_SPM_H
#define ENC_SPM_H

#include <stddef.h>

struct enc_tokjson;
struct json_t;

#define ENC_SPM_CLASSES "AlbertTokenizer, CamembertTokenizer, DebertaV2Tokenizer, T5Tokenizer, XLMRobertaTokenizer"

/* The file save_pretrained writes for the class (tokenizer_class, "Fast" or not), or NULL when
 * the class is not one of ENC_SPM_CLASSES. */
const char *enc_spm_class_file(const char *tokenizer_class);

/* The tokenizer.json text of the model bytes buf[0..len) (messages name it `name`) converted as
 * tokenizer_class's converter does, with the folder's tokenizer_config.json and
 * special_tokens_map.json (either NULL when absent). Caller frees. NULL with one line in err:
 * "NAME: byte N: ..." for a truncated or malformed protobuf, or the field and what was expected. */
char *enc_spm_tokjson_text(const unsigned char *buf, size_t len, const char *name, const char *tokenizer_class,
                           const struct json_t *tok_config, const struct json_t *special_map, char *err, size_t errlen);

/* The folder's tokenizer: DIR/<enc_spm_class_file(cls)>, DIR/tokenizer_config.json and
 * DIR/special_tokens_map.json when present. NULL with err on error. */
struct enc_tokjson *enc_spm_load(const char *dir, const char *tokenizer_class, char *err, size_t errlen);

#endif
