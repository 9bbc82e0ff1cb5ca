# t2052-tokenizer-ref.sh — the BERT tokenizer agrees with a Python reference on every code point
# tier: fast
# The BERT tokenizer (encoder/enc_tokenizer.c, utf8proc) agrees with an independent Python
# reference written like HF's slow BertTokenizer on Python's own Unicode data
# (tests/reference/bert_tokenize_ref.py): every code point assigned in Python's Unicode version,
# alone and in the Final_Sigma contexts that expose its Cased / Case_Ignorable properties; and
# every word type of the PTB sample (ptb_unescape on) and of UD EWT dev, in both tokenizer
# modes. Ids are compared with the MiniLM vocabulary when $SP_MODELS/all-MiniLM-L6-v2 is there
# (default ../models), else with the docs/spec/models.md M1.6 test vocabulary; the basic tokens are compared either way.
# SP_REF_FULL=1 adds the code points in wordpiece-only mode. The driver is tests/tools/encoder_tokenize.c.
. tests/cli/lib.sh
if [ ! -x "$PY" ]; then skip_rest "$PY not available"; fi
DRV=${SP_BUILD:-build}/tools/encoder_tokenize
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$DRV" >/dev/null 2>&1 || true
fi
check "the driver $DRV is built" test -x "$DRV"
VOCAB=${SP_MODELS:-../models}/all-MiniLM-L6-v2/vocab.txt
if [ -f "$VOCAB" ]; then
    echo "# vocabulary: $VOCAB"
else
    echo "# vocabulary: the M1.6 test vocabulary ($VOCAB absent)"
    VOCAB=$TMP/vocab.txt
    printf '%s\n' '[PAD]' '[UNK]' '[CLS]' '[SEP]' '[MASK]' the naive zo '##e' n "'" t s u . 1 , 000 5 '##00' \
        中 can '##not' a '##a' x - '(' ')' / 2 3 σ '##α' '##ς' ist '##an' '##bul' co '##op' go '##es' >$VOCAB
    expect_eq "the test vocabulary has 42 lines" "$(wc -l <$VOCAB | tr -d ' ')" 42
fi
# bert_tokenize_ref.py prints a TAP line per comparison: renumbered here, other lines passed through
tap() {
    n=0
    while IFS= read -r line; do
        case $line in
            "ok - # SKIP "*) n=$((n+1)); skip "${line#ok - # SKIP }";;
            "ok "*) n=$((n+1)); ok "${line#ok - }";;
            "not ok "*) n=$((n+1)); not_ok "${line#not ok - }";;
            *) echo "$line";;
        esac
    done <"$1"
    echo $n >"$1.n"
}
CP=codepoints
[ "${SP_REF_FULL:-0}" = 1 ] && CP=codepoints-all-modes
rc=0; "$PY" tests/reference/bert_tokenize_ref.py "$DRV" "$VOCAB" $CP >"$TMP/cp.out" || rc=$?
tap "$TMP/cp.out"
expect_eq "code points: exit 0, at least one comparison" "$rc $(($(cat $TMP/cp.out.n) > 0))" "0 1"
if [ -d "$DATA/ptb-sample/combined" ]; then
    rc=0; "$PY" tests/reference/bert_tokenize_ref.py "$DRV" "$VOCAB" words "$DATA"/ptb-sample/combined/*.mrg >"$TMP/ptb.out" || rc=$?
    tap "$TMP/ptb.out"
    expect_eq "PTB sample words: exit 0, both modes compared" "$rc $(cat $TMP/ptb.out.n)" "0 2"
else
    skip "$DATA/ptb-sample absent"
fi
if [ -f "$DATA/ud-ewt/en_ewt-ud-dev.conllu" ]; then
    rc=0; "$PY" tests/reference/bert_tokenize_ref.py "$DRV" "$VOCAB" words "$DATA/ud-ewt/en_ewt-ud-dev.conllu" >"$TMP/ewt.out" || rc=$?
    tap "$TMP/ewt.out"
    expect_eq "EWT dev words: exit 0, both modes compared" "$rc $(cat $TMP/ewt.out.n)" "0 2"
else
    skip "$DATA/ud-ewt absent"
fi
done_testing
