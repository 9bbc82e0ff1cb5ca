# t2241-spm-model.sh — a folder with only a SentencePiece .model tokenizes as transformers converts it
# tier: fast
# Issue 36. tests/data/hf/spm (make spm-fixtures: tests/reference/spm_fixtures.py in a venv with
# transformers 4.40.2) holds four SentencePiece models trained on EWT dev and a multilingual
# sample (unigram with the nmt_nfkc and nmt_nfkc_cf charsmaps, unigram without one, BPE) and
# fourteen folders as a slow tokenizer's save_pretrained writes them (or older checkpoints have
# them: tokenizer_class only, config.json's model_type only) for AlbertTokenizer (uncased and
# cased), XLMRobertaTokenizer, CamembertTokenizer (BPE and unigram), DebertaV2Tokenizer (with and
# without split_by_punct), T5Tokenizer (legacy false: Metaspace "first"). The expected ids are
# what AutoTokenizer(use_fast=True) gives on the folder (the converter of convert_slow_tokenizer.py),
# pre-tokenized (is_split_into_words=True): the multilingual sample of t2230 (Cyrillic, CJK,
# Arabic, Devanagari with combining marks, emoji ZWJ sequences, control characters, words of
# 150+ characters), 400 sentences of random characters, and every EWT dev sentence (its SHA-256).
# Checked: the folder's tokenizer as kind hf opens it (tests/tools/encoder_hf_pieces.c) gives the
# same ids and word spans; tokenizer.json is preferred when a folder has both; t2238's tiny XLM-R
# model with the 300-piece model's folder instead of its tokenizer.json encodes through
# `synprobe encode`, and the fingerprint covers the .model, tokenizer_config.json and
# special_tokens_map.json; bad .model files and folders get one error line naming the file, the
# byte offset or the field.
. tests/cli/lib.sh
DRV=${SP_BUILD:-build}/tools/encoder_hf_pieces
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$DRV" >/dev/null 2>&1 || true
fi
check "the driver $DRV is built" test -x "$DRV"
S=tests/data/hf/spm
W=tests/data/hf/tok
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
if [ -f "$EWT" ]; then
    awk -F'\t' '/^#/ { next } NF == 0 { if (s != "") print s; s = ""; next } $1 ~ /^[0-9]+$/ { s = (s == "" ? $2 : s "\t" $2) }
        END { if (s != "") print s }' "$EWT" >"$TMP/ewt.tsv"
fi

# mk NAME DEST: the fixture folder with its .model put back under the name save_pretrained gave it
mk() {
    mkdir -p "$2"
    set -- "$1" "$2" $(cat "$S/$1/source")
    gunzip -c "$S/$3.model.gz" >"$2/$4"
    for f in "$S/$1"/*.json; do cp "$f" "$2/"; done
}

n_folders=0
for d in "$S"/*/; do
    n=$(basename "$d")
    n_folders=$((n_folders + 1))
    mk "$n" "$TMP/$n"
    for s in sample random; do
        rc=0; "$DRV" "$TMP/$n" hex nolimit <"$W/$s.words" >"$TMP/$n.$s.out" 2>"$TMP/$n.err" || rc=$?
        cut -f1,2 "$TMP/$n.$s.out" >"$TMP/$n.$s"
        if [ "$rc" = 0 ] && cmp -s "$TMP/$n.$s" "$d/$s.expected"; then ok "$n: $s.words: transformers' ids and word spans"
        else not_ok "$n: $s.words: exit $rc, $(diff "$TMP/$n.$s" "$d/$s.expected" | grep -c '^<') lines differ"
             sed 's/^/# /' "$TMP/$n.err"; diff "$TMP/$n.$s" "$d/$s.expected" | head -4 | sed 's/^/# /'; fi
    done
    if [ -f "$EWT" ]; then
        "$DRV" "$TMP/$n" nolimit <"$TMP/ewt.tsv" 2>/dev/null | cut -f1,2 >"$TMP/$n.ewt" || true
        got=$(sha256sum <"$TMP/$n.ewt" | cut -d' ' -f1)
        expect_eq "$n: EWT dev, 2001 sentences: the ids' SHA-256 is transformers'" "$got" "$(cat "$d/ewt.sha256")"
    else skip "$n: EWT dev: $EWT absent"; fi
done
expect_eq "fourteen fixture folders" "$n_folders" 14
check "albert: read as spiece.model converted by AlbertTokenizer's converter" \
    grep -qx "tokenizer: spiece.model (AlbertTokenizer, converted)" "$TMP/albert.err"
check "albert-min: the class from config.json's model_type" \
    grep -qx "tokenizer: spiece.model (AlbertTokenizerFast, converted)" "$TMP/albert-min.err"

# tokenizer.json is preferred: the xlm-roberta folder with t2230's unigram-xlmr tokenizer.json beside
mk xlm-roberta "$TMP/both"
gunzip -c "$W/unigram-xlmr/tokenizer.json.gz" >"$TMP/both/tokenizer.json"
rc=0; "$DRV" "$TMP/both" hex nolimit <"$W/sample.words" >"$TMP/both.out" 2>"$TMP/both.err" || rc=$?
expect_eq "a folder with both: exit 0" "$rc" 0
check "a folder with both reads tokenizer.json" grep -q "^tokenizer: tokenizer.json (XLMRobertaTokenizer)" "$TMP/both.err"
check "... and gives that file's ids (t2230's expected)" cmp -s "$W/unigram-xlmr/sample.expected" - <<EOF
$(cut -f1,2 "$TMP/both.out")
EOF

# kind hf end to end: t2238's tiny XLM-R model (501 ids) with xlm-roberta-small's tokenizer (302)
if [ -f "$EWT" ]; then
    X=$TMP/xm
    mkdir -p "$X"
    cp tests/data/hf/xlm-roberta/config.json tests/data/hf/xlm-roberta/model.safetensors "$X/"
    mk xlm-roberta-small "$X"
    head -20 "$TMP/ewt.tsv" | "$DRV" "$X" >"$TMP/xm.pieces" 2>"$TMP/xm.err" || true
    check "the model's folder reads sentencepiece.bpe.model" grep -q "sentencepiece.bpe.model (XLMRobertaTokenizer, converted)" "$TMP/xm.err"
    check "... with transformers' ids (the first 20 EWT sentences)"         test "$(cut -f1,2 "$TMP/xm.pieces" | sha256sum | cut -d' ' -f1)" = "$(head -20 "$TMP/xlm-roberta-small.ewt" | sha256sum | cut -d' ' -f1)"
    head -60 "$EWT" >"$TMP/x.conllu"
    DB=$TMP/x.db
    $SP ingest --db "$DB" --corpus ud "$TMP/x.conllu" >/dev/null 2>&1
    printf '{"kind": "hf", "model": "%s"}\n' "$X" >"$TMP/x.json"
    rc=0; $SP encode --db "$DB" --corpus ud --encoder "$TMP/x.json" --run x1 >"$TMP/x1" 2>&1 || rc=$?
    expect_eq "encode with the converted tokenizer: exit 0" "$rc" 0
    $SP encode --db "$DB" --corpus ud --encoder "$TMP/x.json" --run x2 >"$TMP/x2" 2>&1
    check "the same folder again: all cached" grep -q " 0 encoded" "$TMP/x2"
    for f in special_tokens_map.json tokenizer_config.json sentencepiece.bpe.model; do
        case $f in *.json) printf ' ' >>"$X/$f" ;; *) printf 'x\001' >>"$X/$f" ;; esac   # .model: field 15 = 1, skipped
        $SP encode --db "$DB" --corpus ud --encoder "$TMP/x.json" --run "x-$f" >"$TMP/x3" 2>&1 || true
        check "$f changed: another encoder (nothing cached)" grep -q " 0 cached" "$TMP/x3"
    done
else skip "kind hf end to end: $EWT absent"; fi

# bad folders: one line naming the file and what was expected, exit 1
bad() {   # DESC FOLDER PATTERN
    rc=0; "$DRV" "$2" nolimit </dev/null >/dev/null 2>"$TMP/bad.err" || rc=$?
    if [ "$rc" = 1 ] && [ "$(wc -l <"$TMP/bad.err")" = 1 ] && grep -q -- "$3" "$TMP/bad.err"; then ok "$1"
    else not_ok "$1: exit $rc, $(cat "$TMP/bad.err")"; fi
}
newf() {   # DEST CLASS: an empty folder with tokenizer_config.json naming CLASS
    rm -rf "$1"; mkdir -p "$1"
    printf '{"tokenizer_class": "%s"}\n' "$2" >"$1/tokenizer_config.json"
}
newf "$TMP/b1" XLMRobertaTokenizer
gunzip -c "$S/uni-nfkc.model.gz" | head -c 5000 >"$TMP/b1/sentencepiece.bpe.model"
bad "a truncated .model: the file, the byte offset, what was expected" "$TMP/b1" \
    "b1/sentencepiece.bpe.model: byte [0-9]*: .*expected .* (not a SentencePiece model, or truncated)$"
newf "$TMP/b2" AlbertTokenizer
printf 'this is a text file, not a protobuf\n' >"$TMP/b2/spiece.model"
bad "a text file as .model" "$TMP/b2" "b2/spiece.model: byte [0-9]*: "
newf "$TMP/b3" AlbertTokenizer
printf '\n\003\n\001a\022\002\030\003' >"$TMP/b3/spiece.model"     # pieces {"a"}, trainer_spec {model_type: WORD}
bad "a WORD model is refused (the converters take Unigram and BPE)" "$TMP/b3" \
    "b3/spiece.model: trainer_spec.model_type 3: transformers converts Unigram (1) and BPE (2) models only"
newf "$TMP/b4" AlbertTokenizer
printf '\n\003\n\001a\022\003\300\002\005' >"$TMP/b4/spiece.model"  # trainer_spec {unk_id: 5}, one piece
bad "unk_id outside the pieces" "$TMP/b4" "b4/spiece.model: trainer_spec.unk_id 5 is not an id of the 1 pieces"
newf "$TMP/b5" AlbertTokenizer
printf '\n\003\n\001a\023' >"$TMP/b5/spiece.model"                  # field 2 with wire type 3 (a group)
bad "a field of wire type 3" "$TMP/b5" "b5/spiece.model: byte 5: field 2: wire type 3 (expected 0, 1, 2 or 5)"
newf "$TMP/b6" AlbertTokenizer
printf '\n\004\n\002\377a\022\000' >"$TMP/b6/spiece.model"          # a piece that is not UTF-8
bad "a piece that is not UTF-8" "$TMP/b6" "b6/spiece.model: byte 4: pieces\[0\].piece: expected UTF-8 text"
newf "$TMP/b7" BarthezTokenizer
gunzip -c "$S/bpe.model.gz" >"$TMP/b7/sentencepiece.bpe.model"
bad "a class without a converter here: the list of those there are" "$TMP/b7" \
    "sentencepiece.bpe.model is a SentencePiece model and tokenizer class \"BarthezTokenizer\" has no converter here (supported: AlbertTokenizer, CamembertTokenizer, DebertaV2Tokenizer, T5Tokenizer, XLMRobertaTokenizer"
newf "$TMP/b8" DebertaV2Tokenizer
gunzip -c "$S/uni-deberta.model.gz" >"$TMP/b8/spiece.model"
bad "the class's file is not there" "$TMP/b8" "tokenizer class \"DebertaV2Tokenizer\" reads spm.model; the folder has spiece.model"
mk albert "$TMP/b9"
printf '{"tokenizer_class": "AlbertTokenizer", "do_lower_case": "yes"}\n' >"$TMP/b9/tokenizer_config.json"
bad "do_lower_case not a boolean" "$TMP/b9" "b9/tokenizer_config.json: do_lower_case: expected true or false"
mk xlm-roberta "$TMP/b10"
printf '{"tokenizer_class": "XLMRobertaTokenizer", "added_tokens_decoder": {"0": {"lstrip": false}}}\n' >"$TMP/b10/tokenizer_config.json"
bad "an added token without content" "$TMP/b10" \
    "b10/tokenizer_config.json: added_tokens_decoder\[\"0\"\]: expected {\"content\": string, ...}"
done_testing
