# t2231-tokjson-real.sh — a real model's tokenizer.json gives transformers' piece ids on a whole UD treebank
# tier: fast
# all-mpnet-base-v2's tokenizer.json (make models; BertNormalizer, BertPreTokenizer, WordPiece, a
# template with <s> and </s>) read by encoder/enc_tokjson.c, every sentence of EWT dev as its
# words (pre-tokenized mode): the ids, one line a sentence, hash to the SHA-256 that transformers
# 4.40.2 gives (tests/data/real-tokenizer-ids.txt, written by tests/reference/real_tokenizer_ids.py
# from a venv: `make real-tokenizer-ids HF_PYTHON=V/bin/python`). On a mismatch the first
# sentences' ids are printed, to compare by hand with the same script.
. tests/cli/lib.sh
need_data
[ -f "$MODELS/all-mpnet-base-v2/tokenizer.json" ] || skip_rest "$MODELS/all-mpnet-base-v2: absent (run 'make models')"
DRV=$SP_BUILD/tools/encoder_tokjson
# the words of each sentence, TAB-separated: word lines only (no 3-4 ranges, no 8.1 empty nodes)
awk -F'\t' '/^#/ { next } NF == 0 { if (s != "") print s; s = ""; next } $1 ~ /^[0-9]+$/ { s = (s == "" ? $2 : s "\t" $2) }
    END { if (s != "") print s }' "$DATA/ud-ewt/en_ewt-ud-dev.conllu" >"$TMP/ewt.tsv"
expect_eq "EWT dev: 2001 sentences read" "$(wc -l <"$TMP/ewt.tsv")" 2001
rc=0; "$DRV" "$MODELS/all-mpnet-base-v2/tokenizer.json" tsv <"$TMP/ewt.tsv" >"$TMP/ids.out" 2>"$TMP/err" || rc=$?
expect_eq "the reader runs on every sentence (exit)" "$rc" 0
want=$(awk '$2 == "all-mpnet-base-v2" && $3 == "ud-ewt/en_ewt-ud-dev.conllu" { print $1 }' tests/data/real-tokenizer-ids.txt)
got=$(cut -f1 "$TMP/ids.out" | sha256sum | cut -d' ' -f1)
if [ -n "$want" ] && [ "$got" = "$want" ]; then ok "all-mpnet-base-v2 on EWT dev: the ids of transformers, every sentence (sha256 $want)"
else not_ok "all-mpnet-base-v2 on EWT dev: ids hash $got, transformers' $want"; head -3 "$TMP/ids.out" | sed 's/^/# /'; fi
done_testing
