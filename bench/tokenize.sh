#!/bin/sh
# bench/tokenize.sh — the tokenizer.json reader (encoder/enc_tokjson.c) against Hugging Face
# `tokenizers` (Rust, encode_batch in pre-tokenized mode) on a whole UD treebank (EWT dev, 2,001
# sentences), the same tokenizer.json (all-mpnet-base-v2's, make models), one thread each, pinned
# to CPU 0, ROUNDS rounds interleaved. synprobe's time is the whole driver run (start, load,
# tokenize, write ids); the peer's is encode_batch alone (its load and Python start not counted).
# Prints the medians, min and max of each and the ratio of the medians. PEER_PYTHON: a Python
# with `tokenizers` (a venv with transformers 4.40.2 has it). Not a test: no timing is asserted.
set -eu
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
ROUNDS=${ROUNDS:-5}
PEER_PYTHON=${PEER_PYTHON:-python3}
TOK=${TOK:-models/all-mpnet-base-v2/tokenizer.json}
DATA=${SP_DATA:-../shared/data}
[ -f "$TOK" ] || { echo "bench/tokenize.sh: $TOK absent (make models)"; exit 1; }
"$PEER_PYTHON" -c 'import tokenizers' 2>/dev/null || { echo "bench/tokenize.sh: $PEER_PYTHON has no tokenizers (PEER_PYTHON=V/bin/python)"; exit 1; }
make -s build/tools/encoder_tokjson
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
awk -F'\t' '/^#/ { next } NF == 0 { if (s != "") print s; s = ""; next } $1 ~ /^[0-9]+$/ { s = (s == "" ? $2 : s "\t" $2) }
    END { if (s != "") print s }' "$DATA/ud-ewt/en_ewt-ud-dev.conllu" >"$tmp/ewt.tsv"
echo "machine: $(machine); load $(load); $(wc -l <"$tmp/ewt.tsv") sentences; $ROUNDS rounds"
for r in $(seq "$ROUNDS"); do
    a=$(date +%s.%N)
    taskset -c 0 build/tools/encoder_tokjson "$TOK" tsv <"$tmp/ewt.tsv" >"$tmp/c.out"
    b=$(date +%s.%N)
    echo "$a $b" | awk '{ printf "%.4f\n", $2 - $1 }' >>"$tmp/c.t"
    RAYON_NUM_THREADS=1 taskset -c 0 "$PEER_PYTHON" - "$TOK" "$tmp/ewt.tsv" >>"$tmp/p.t" <<'PY'
import sys, time
from tokenizers import Tokenizer
tok = Tokenizer.from_file(sys.argv[1])
lines = [l.split("\t") for l in open(sys.argv[2], encoding="utf-8").read().split("\n")[:-1]]
t = time.perf_counter(); tok.encode_batch(lines, is_pretokenized=True); print("%.4f" % (time.perf_counter() - t))
PY
done
c=$(stats %.4f <"$tmp/c.t"); p=$(stats %.4f <"$tmp/p.t")
echo "synprobe (whole run)      median/min/max s: $c"
echo "tokenizers (encode_batch) median/min/max s: $p"
echo "ratio (tokenizers / synprobe, medians): $(ratio "${p%% *}" "${c%% *}")x  (floor 1.5x: $(floor_met "$(ratio "${p%% *}" "${c%% *}")" 1.5))"
