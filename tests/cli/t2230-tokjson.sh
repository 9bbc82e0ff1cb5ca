# t2230-tokjson.sh — tokenizer.json reader: ids identical to tokenizers; bad files refused clearly
# tier: fast
# The tokenizer.json reader (encoder/enc_tokjson.c, driver tests/tools/encoder_tokjson.c) against
# the fixtures of tests/reference/tokjson_fixtures.py (`make tokjson-fixtures`): nine small
# tokenizers trained on UD EWT dev (WordPiece, byte-level BPE, BPE with unk/prefix/suffix,
# SentencePiece Unigram with Precompiled charsmaps as XLM-R and ALBERT convert them, Llama-style
# BPE with byte fallback), each with the ids tokenizers 0.19 / transformers 4.40.2 give in
# pre-tokenized mode for a multilingual sample (Russian, Chinese, Arabic, Hindi, emoji with ZWJ,
# control characters, words past the piece limit), for 400 sentences of random characters of
# many scripts and kinds (marks, format, private use, tags, unassigned, emoji), and for every
# sentence of EWT dev. Every line
# must be identical (the first difference is shown). Then the prefix-space rule, and bad files:
# each refused with exit 1 and one line naming the JSON path.
. tests/cli/lib.sh
DRV=${SP_BUILD:-build}/tools/encoder_tokjson
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$DRV" >/dev/null 2>&1 || true
fi
check "the driver $DRV is built" test -x "$DRV"
FX=tests/data/hf/tok
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
if [ -f "$EWT" ]; then
    # syntactic words (no multiword-token or empty-node lines), one sentence a line, TAB-separated
    awk -F'\t' '/^#/ {next} /^$/ {if (s != "") print s; s = ""; next} $1 ~ /[-.]/ {next}
        {s = (s == "" ? $2 : s "\t" $2)} END {if (s != "") print s}' "$EWT" >"$TMP/ewt.tsv"
    expect_eq "EWT dev: 2001 sentences" "$(wc -l <"$TMP/ewt.tsv" | tr -d ' ')" 2001
fi
# same NAME GOT WANT: identical, or the first differing line
same() {
    if cmp -s "$2" "$3"; then ok "$1"
    else
        d=$(diff "$2" "$3" | head -4 | tr '\n' ' ' | cut -c1-400)
        not_ok "$1: first difference: $d"
    fi
}
n_tok=0
for dir in "$FX"/*/; do
    name=$(basename "$dir")
    n_tok=$((n_tok+1))
    gzip -dc "$dir/tokenizer.json.gz" >"$TMP/$name.json"
    rc=0; "$DRV" "$TMP/$name.json" <"$FX/sample.words" >"$TMP/$name.sample" 2>"$TMP/err" || rc=$?
    expect_eq "$name: the sample encodes (exit 0)" "$rc $(head -c 200 "$TMP/err")" "0 "
    same "$name: multilingual sample ids and spans identical to tokenizers" "$TMP/$name.sample" "$dir/sample.expected"
    "$DRV" "$TMP/$name.json" <"$FX/random.words" >"$TMP/$name.random" 2>&1 || true
    same "$name: 400 sentences of random characters identical to tokenizers" "$TMP/$name.random" "$dir/random.expected"
    if [ -f "$EWT" ]; then
        "$DRV" "$TMP/$name.json" tsv <"$TMP/ewt.tsv" >"$TMP/$name.ewt" || true
        gzip -dc "$dir/ewt.expected.gz" >"$TMP/$name.ewt.want"
        same "$name: EWT dev (2001 sentences) ids and spans identical to tokenizers" "$TMP/$name.ewt" "$TMP/$name.ewt.want"
    else
        skip "$EWT absent"
    fi
done
expect_eq "nine fixture tokenizers" "$n_tok" 9
# The prefix-space rule: the byte-level file says add_prefix_space false (as roberta-base's);
# kept as the file says, words lose their leading "Ġ" and the ids differ from transformers'
"$DRV" "$TMP/bytelevel-bpe.json" file-prefix <"$FX/sample.words" >"$TMP/fp.sample"
check "bytelevel-bpe with the file's add_prefix_space false differs from transformers (add_prefix_space=True)" \
    sh -c "! cmp -s '$TMP/fp.sample' '$FX/bytelevel-bpe/sample.expected'"
# every word gets a piece: a word of one control character is the unknown token
printf '07\n' >"$TMP/ctrl.words"
expect_eq "wordpiece: a word of U+0007 alone is [CLS] [UNK] [SEP]" "$("$DRV" "$TMP/wordpiece.json" <"$TMP/ctrl.words")" "$(printf '2 1 3\t1-2')"
# bad files: exit 1, one line naming the path
bad() {  # bad DESC EXPECTED-SUBSTRING FILE
    rc=0; "$DRV" "$3" </dev/null >/dev/null 2>"$TMP/err" || rc=$?
    if [ "$rc" = 1 ] && [ "$(wc -l <"$TMP/err" | tr -d ' ')" = 1 ] && grep -qF -- "$2" "$TMP/err"; then ok "$1"
    else not_ok "$1 (exit $rc, stderr: $(head -c 300 "$TMP/err"))"; fi
}
PY3=${PY:-/usr/bin/python3}
mk() {  # mk OUT PYTHON-EXPR-ON-j: a changed copy of wordpiece.json (or bpe-unk.json with SRC=)
    "$PY3" -c "import json,sys; j=json.load(open(sys.argv[1])); $2; json.dump(j, open(sys.argv[2], 'w'))" "${SRC:-$TMP/wordpiece.json}" "$1"
}
if [ -x "$PY3" ]; then
    mk "$TMP/b1.json" 'j["pre_tokenizer"]={"type":"Sequence","pretokenizers":[{"type":"Whitespace"},{"type":"Foo"}]}'
    bad "unknown pre-tokenizer: named with its JSON path" 'pre_tokenizer.pretokenizers[1].type: "Foo" is not supported (supported: ' "$TMP/b1.json"
    mk "$TMP/b2.json" 'del j["model"]["vocab"]'
    bad "missing vocabulary" 'model.vocab: missing' "$TMP/b2.json"
    SRC=$TMP/bpe-unk.json mk "$TMP/b3.json" 'j["model"]["merges"][3]="a b c"'
    bad "a merge of three tokens" 'model.merges[3]: expected "A B"' "$TMP/b3.json"
    SRC=$TMP/bpe-unk.json mk "$TMP/b4.json" 'j["model"]["dropout"]=0.1'
    bad "BPE dropout refused" 'model.dropout: must be null or 0' "$TMP/b4.json"
    mk "$TMP/b5.json" 'j["normalizer"]={"type":"Sequence","normalizers":[{"type":"NFC"},{"type":"Nmt"}]}'
    bad "unknown normalizer" 'normalizer.normalizers[1].type: "Nmt" is not supported' "$TMP/b5.json"
    mk "$TMP/b6.json" 'j["post_processor"]={"type":"Bar"}'
    bad "unknown post-processor" 'post_processor.type: "Bar" is not supported' "$TMP/b6.json"
    mk "$TMP/b7.json" 'j["model"]["type"]="WordLevel"'
    bad "unknown model" 'model.type: "WordLevel" is not supported (supported: WordPiece, BPE, Unigram)' "$TMP/b7.json"
    mk "$TMP/b8.json" 'j["pre_tokenizer"]={"type":"Split","pattern":{"Regex":"(a"},"behavior":"Isolated"}'
    bad "a regex that does not compile" 'pre_tokenizer.pattern: regex "(a" does not compile' "$TMP/b8.json"
else
    skip "$PY3 absent: the changed copies are made with it"
fi
head -c 5000 "$TMP/wordpiece.json" >"$TMP/trunc.json"
bad "truncated JSON" "trunc.json: not JSON" "$TMP/trunc.json"
bad "missing file" "nothere.json" "$TMP/nothere.json"
done_testing
