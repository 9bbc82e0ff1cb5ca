#!/bin/sh
# bench/bert.sh — the BERT-family encoder (MiniLM, models/all-MiniLM-L6-v2) on the CPU beside a
# PyTorch peer on the same sentences and threads, and the machine's sgemm ceiling measured in the
# same run. Not a test: no assertions; it prints whether the issue's floor (>= 2x PyTorch at equal
# threads) is met.
#
#   A = synprobe (bench/bert_bench.c: enc_bert_forward, every layer, length-sorted batches of at
#       most BUDGET pieces, no padding), B = PyTorch eager (bench/peer_bert.py: the model's own
#       model.safetensors, a BertModel forward in torch ops, length-sorted padded batches; its
#       OpenBLAS/OpenMP threads pinned before torch loads; batch size and intra-op threads chosen
#       by a calibration run on the first 300 sentences, the fastest setting kept).
#   C = synprobe --gemm blas (its products through OpenBLAS instead of common/gemm.c).
#   For each thread count, ROUNDS rounds of A B C A B C ...; per side the median and min–max of
#   pieces/s (word pieces, [CLS]/[SEP] included) and the words/s of the median, the ratio of the
#   medians, the peer's largest difference from our vectors (a check both compute the same
#   function), and the load average before and after.
#   sgemm ceiling, same run: the core's FMA peak (bert_bench peak), our kernel and OpenBLAS on a
#   1536^3 product at 1 and 2 threads (OpenBLAS as installed, and its SkylakeX kernel when the
#   CPU has AVX-512, else Haswell's), and the fraction of the best that the encoder's products
#   reach (GEMM GFLOP of the forward / wall time).
#
#   sh bench/bert.sh
#   env: SP_BUILD (build), SP_DATA (../shared/data), SP_MODELS (models), ROUNDS (3), SENTS (1000
#        sentences of EWT dev, 0 = all 2001), BUDGET (1024), THREADS ("1 2")
set -eu
export LC_ALL=C
. "$(dirname "$0")/bench_lib.sh"
B=${SP_BUILD:-build}
DATA=${SP_DATA:-../shared/data}
MODEL=${SP_MODELS:-models}/all-MiniLM-L6-v2
ROUNDS=${ROUNDS:-3}; SENTS=${SENTS:-1000}; BUDGET=${BUDGET:-1024}; THREADS=${THREADS:-"1 2"}
PY=/usr/bin/python3
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
[ -f "$EWT" ] || { echo "SKIP bench/bert.sh: $EWT not present"; exit 0; }
[ -f "$MODEL/model.safetensors" ] || { echo "SKIP bench/bert.sh: $MODEL not present (make models)"; exit 0; }
HAVE_TORCH=1
$PY -c 'import torch, numpy' 2>/dev/null || HAVE_TORCH=0
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

build_driver "$B" bert_bench
DRV=$B/bert_bench

# the words of EWT dev, one sentence a line (multi-word token ranges and empty nodes skipped)
awk -F'\t' '/^[0-9]+\t/ { s = s (s == "" ? "" : " ") $2; next } /^$/ { if (s != "") print s; s = "" } END { if (s != "") print s }' "$EWT" >"$TMP/all.txt"
if [ "$SENTS" -gt 0 ]; then head -n "$SENTS" "$TMP/all.txt" >"$TMP/sents.txt"; else cp "$TMP/all.txt" "$TMP/sents.txt"; fi
head -n 300 "$TMP/sents.txt" >"$TMP/calib.txt"

echo "machine: $(machine); load before: $(load)"
n_s=$(wc -l <"$TMP/sents.txt")
echo "MiniLM ($MODEL) on the first $n_s sentences of EWT dev; $ROUNDS rounds A B C A B C ... per thread count"
echo

# ---- sgemm ceiling (sets CEIL_<threads>) ----
sgemm_ceiling "$DRV" "$THREADS"
echo

# ---- the peer's setting, chosen by measurement ----
mkdir -p "$TMP/calib" "$TMP/exp"
"$DRV" encode "$MODEL" "$TMP/calib.txt" --budget "$BUDGET" --export "$TMP/calib" >/dev/null
"$DRV" encode "$MODEL" "$TMP/sents.txt" --budget "$BUDGET" --export "$TMP/exp" >/dev/null
for th in $THREADS; do
    eval "PEER_$th=''"
    [ $HAVE_TORCH = 1 ] || continue
    best=0; arg=""
    for bs in 16 32 64; do
        for tt in $(if [ "$th" -gt 1 ]; then echo "$th 1"; else echo 1; fi); do
            r=$(field "$($PY bench/peer_bert.py "$MODEL" "$TMP/calib" --threads "$th" --torch-threads "$tt" --batch "$bs")" pieces_s)
            if [ "$r" -gt "$best" ]; then best=$r; arg="--batch $bs --torch-threads $tt"; fi
        done
    done
    eval "PEER_$th='$arg'"
    echo "PyTorch calibration, $th thread(s): fastest $arg ($best pieces/s on the first $(wc -l <"$TMP/calib.txt") sentences)"
done
[ $HAVE_TORCH = 1 ] || echo "PyTorch (python3-torch) not installed: the peer columns are empty"
echo

# ---- interleaved rounds ----
# per round: synprobe (--gemm own, the default), PyTorch, synprobe --gemm blas (OpenBLAS behind the
# same interface); rates per second of wall time, and per second of the process's user CPU time
# (robust when other work shares the cores; at 2 threads it sums both cores)
echo "| threads | synprobe pieces/s median (min–max) | words/s | PyTorch pieces/s median (min–max) | words/s | synprobe/PyTorch (wall) | per user-CPU-s: synprobe / PyTorch / ratio | floor 2x | synprobe --gemm blas pieces/s (own/blas) | GEMM GFLOP/s (share of the ceiling) | peer max abs diff |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for th in $THREADS; do
    for f in A Au B Bu C G; do : >"$TMP/$f"; done
    eval "parg=\$PEER_$th"
    diff=-
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        out=$("$DRV" encode "$MODEL" "$TMP/sents.txt" --threads "$th" --budget "$BUDGET")
        field "$out" pieces_s >>"$TMP/A"; field "$out" pieces_user_s >>"$TMP/Au"; field "$out" gflop_s >>"$TMP/G"
        pieces=$(field "$out" pieces); words=$(field "$out" words)
        if [ $HAVE_TORCH = 1 ]; then
            # shellcheck disable=SC2086
            pout=$($PY bench/peer_bert.py "$MODEL" "$TMP/exp" --threads "$th" $parg)
            field "$pout" pieces_s >>"$TMP/B"; field "$pout" pieces_user_s >>"$TMP/Bu"; diff=$(field "$pout" maxdiff)
        fi
        out=$("$DRV" encode "$MODEL" "$TMP/sents.txt" --threads "$th" --budget "$BUDGET" --gemm blas)
        field "$out" pieces_s >>"$TMP/C"
        r=$((r + 1))
    done
    set -- $(stats <"$TMP/A"); a=$1; amin=$2; amax=$3
    au=$(stats <"$TMP/Au" | cut -d' ' -f1)
    c=$(stats <"$TMP/C" | cut -d' ' -f1)
    g=$(stats <"$TMP/G" | cut -d' ' -f1)
    eval "ceil=\$CEIL_$th"
    frac=$(echo "$g / $ceil * 100" | bc -l)
    aw=$(echo "$a * $words / $pieces" | bc -l)
    if [ $HAVE_TORCH = 1 ]; then
        bu=$(stats <"$TMP/Bu" | cut -d' ' -f1)
        set -- $(stats <"$TMP/B")
        ratio=$(echo "$a / $1" | bc -l)
        met=$(echo "$ratio >= 2" | bc -l)
        printf "| %s | %s (%s–%s) | %.0f | %s (%s–%s) | %.0f | %.2f | %s / %s / %.2f | %s | %s (%.2f) | %s (%.0f%%) | %s |\n" "$th" "$a" "$amin" "$amax" "$aw" \
            "$1" "$2" "$3" "$(echo "$1 * $words / $pieces" | bc -l)" "$ratio" "$au" "$bu" "$(echo "$au / $bu" | bc -l)" \
            "$([ "$met" = 1 ] && echo met || echo MISSED)" "$c" "$(echo "$a / $c" | bc -l)" "$g" "$frac" "$diff"
    else
        printf "| %s | %s (%s–%s) | %.0f | – | – | – | %s / – / – | – | %s (%.2f) | %s (%.0f%%) | – |\n" "$th" "$a" "$amin" "$amax" "$aw" "$au" \
            "$c" "$(echo "$a / $c" | bc -l)" "$g" "$frac"
    fi
done
echo
echo "load after: $(load)"
