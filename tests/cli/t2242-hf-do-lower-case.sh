# t2242-hf-do-lower-case.sh — BERT-style folders follow tokenizer_config.json's do_lower_case as transformers does
# tier: fast
# Issue 36. BertTokenizerFast (transformers 4.40.2) rebuilds tokenizer.json's BertNormalizer with
# tokenizer_config.json's do_lower_case (default true), strip_accents (default null) and
# tokenize_chinese_chars when one of them differs from the file's; a vocab.txt folder is
# converted with do_lower_case. tests/data/hf/lower (make spm-fixtures) holds one WordPiece
# vocabulary trained on EWT in eight folders: tokenizer.json cased or uncased with
# tokenizer_config.json saying do_lower_case true, false, nothing (so true), strip_accents true,
# or no tokenizer_config.json (config.json's model_type), and vocab.txt with do_lower_case
# false and true. Expected: AutoTokenizer's ids, pre-tokenized, on t2230's multilingual sample
# and on EWT dev (SHA-256). The tokenizer.json folders whose file disagrees with
# tokenizer_config.json give other ids when read as the file says (checked, so the test can fail).
# Not compared: the cased vocab.txt folder on the sample (synprobe's vocab.txt tokenizer
# composes to NFC as the slow BertTokenizer does, the fast one does not: "cafe" + U+0301).
. tests/cli/lib.sh
DRV=${SP_BUILD:-build}/tools/encoder_hf_pieces
TJ=${SP_BUILD:-build}/tools/encoder_tokjson
for d in "$DRV" "$TJ"; do
    [ -x "$d" ] || make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$d" >/dev/null 2>&1 || true
    check "the driver $d is built" test -x "$d"
done
L=tests/data/hf/lower
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
if [ -f "$EWT" ]; then
    awk -F'\t' '/^#/ { next } NF == 0 { if (s != "") print s; s = ""; next } $1 ~ /^[0-9]+$/ { s = (s == "" ? $2 : s "\t" $2) }
        END { if (s != "") print s }' "$EWT" >"$TMP/ewt.tsv"
fi
for d in "$L"/*/; do
    n=$(basename "$d")
    mkdir -p "$TMP/$n"
    for f in "$d"/*.json "$d"/*.txt; do [ -f "$f" ] && cp "$f" "$TMP/$n/"; done
    [ -f "$d/tokenizer.json.gz" ] && gunzip -c "$d/tokenizer.json.gz" >"$TMP/$n/tokenizer.json"
    if [ "$n" != vocab-cfg-cased ]; then
        rc=0; "$DRV" "$TMP/$n" hex nolimit <tests/data/hf/tok/sample.words >"$TMP/$n.out" 2>"$TMP/$n.err" || rc=$?
        if [ "$rc" = 0 ] && cut -f1,2 "$TMP/$n.out" | cmp -s - "$d/sample.expected"; then ok "$n: the sample: transformers' ids"
        else not_ok "$n: the sample: exit $rc"; sed 's/^/# /' "$TMP/$n.err"; fi
    fi
    if [ -f "$EWT" ]; then
        got=$("$DRV" "$TMP/$n" nolimit <"$TMP/ewt.tsv" 2>"$TMP/$n.err" | cut -f1,2 | sha256sum | cut -d' ' -f1)
        expect_eq "$n: EWT dev: the ids' SHA-256 is transformers'" "$got" "$(cat "$d/ewt.sha256")"
        case $n in json-cased-cfg-lower|json-cased-cfg-none|json-lower-cfg-cased|json-cased-cfg-accents)
            got=$("$TJ" "$TMP/$n/tokenizer.json" tsv file-prefix <"$TMP/ewt.tsv" 2>/dev/null | cut -f1,2 | sha256sum | cut -d' ' -f1)
            check "$n: the file as it is gives other ids" test "$got" != "$(cat "$d/ewt.sha256")" ;;
        esac
    else skip "$n: EWT dev: $EWT absent"; fi
done
check "json-cased-cfg-lower: says the normalizer comes from tokenizer_config.json" \
    grep -qx "tokenizer: tokenizer.json (BertTokenizer, BertNormalizer from tokenizer_config.json)" "$TMP/json-cased-cfg-lower.err"
check "json-cased-cfg-cased: the file's normalizer as it is" grep -qx "tokenizer: tokenizer.json (BertTokenizer)" "$TMP/json-cased-cfg-cased.err"
check "vocab-cfg-cased: vocab.txt, do_lower_case=False" grep -qx "tokenizer: vocab.txt (do_lower_case=False)" "$TMP/vocab-cfg-cased.err"
printf '{"tokenizer_class": "BertTokenizer", "do_lower_case": 1}\n' >"$TMP/json-cased-cfg-cased/tokenizer_config.json"
rc=0; "$DRV" "$TMP/json-cased-cfg-cased" nolimit </dev/null >/dev/null 2>"$TMP/bad.err" || rc=$?
expect_eq "do_lower_case 1: exit 1" "$rc" 1
check "... names the file and the key" grep -q "json-cased-cfg-cased/tokenizer_config.json: do_lower_case: expected true or false" "$TMP/bad.err"
done_testing
