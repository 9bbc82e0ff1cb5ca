#!/bin/sh
# bench/bert.sh — the BERT-family encoder (MiniLM, models/all-MiniLM-L6-v2) on the CPU beside
# onnxruntime and PyTorch on the same sentences and threads, and the machine's FMA peak and sgemm
# ceiling measured in the same run. Not a test: no assertions; it prints whether the floor of
# issue 26 (>= 1.2x onnxruntime at equal threads) is met.
#
#   A = synprobe (bench/bert_bench.c: enc_bert_forward, every layer, length-sorted batches of at
#       most BUDGET pieces, no padding).
#   O = onnxruntime (bench/peer_ort.py): a PyTorch module built from the model's own
#       model.safetensors, exported by torch.onnx.export (every layer an output), and the same
#       graph fused by onnxruntime.transformers.optimizer (model_type bert: Attention,
#       SkipLayerNormalization, BiasGelu, EmbedLayerNormalization); intra_op_num_threads pinned to
#       the thread count, sequential; length-sorted padded batches. Per thread count the graph and
#       batch size (16/32/64) are chosen by a calibration run on the first 300 sentences, the
#       fastest kept. Needs bench/ort_venv.sh's venv (ORT_PY); SKIP columns without it.
#   B = PyTorch eager (bench/peer_bert.py: a BertModel forward in torch ops; OpenBLAS/OpenMP
#       threads pinned before torch loads; batch size and intra-op threads calibrated likewise).
#   C = synprobe --gemm blas (its products through OpenBLAS instead of common/gemm.c).
#   For each thread count, ROUNDS rounds of A O B C A O B C ...; per side the median and min–max
#   of pieces/s (word pieces, [CLS]/[SEP] included), the ratios of the medians, the peers'
#   largest difference from our vectors (a check all compute the same function), and the load
#   average before and after.
#   Ceiling, same run: the core's FMA peak (bert_bench peak; x threads), our kernel and OpenBLAS
#   on a 1536^3 product at 1 and 2 threads, and the forward's GFLOP/s (products only / wall) as
#   a share of the FMA peak and of the best sgemm.
#
#   sh bench/ort_venv.sh && sh bench/bert.sh
#   env: SP_BUILD (build), SP_DATA (../shared/data), SP_MODELS (models), ROUNDS (3), SENTS (1000
#        sentences of EWT dev, 0 = all 2001), BUDGET (1024), THREADS ("1 2"),
#        ORT_PY (build/ortvenv/bin/python), PEERS ("ort torch": which peers run)
set -eu
export LC_ALL=C
. "$(dirname "$0")/bench_lib.sh"
B=${SP_BUILD:-build}
DATA=${SP_DATA:-../shared/data}
MODEL=${SP_MODELS:-models}/all-MiniLM-L6-v2
ROUNDS=${ROUNDS:-3}; SENTS=${SENTS:-1000}; BUDGET=${BUDGET:-1024}; THREADS=${THREADS:-"1 2"}
PY=/usr/bin/python3
ORT_PY=${ORT_PY:-build/ortvenv/bin/python}
PEERS=${PEERS:-"ort torch"}
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
[ -f "$EWT" ] || { echo "SKIP bench/bert.sh: $EWT not present"; exit 0; }
[ -f "$MODEL/model.safetensors" ] || { echo "SKIP bench/bert.sh: $MODEL not present (make models)"; exit 0; }
HAVE_TORCH=0; HAVE_ORT=0
case " $PEERS " in *" torch "*) $PY -c 'import torch, numpy' 2>/dev/null && HAVE_TORCH=1 ;; esac
case " $PEERS " in *" ort "*) $PY -c 'import torch, numpy' 2>/dev/null && "$ORT_PY" -c 'import onnxruntime, onnx, numpy' 2>/dev/null && HAVE_ORT=1 ;; esac
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

build_driver "$B" bert_bench
DRV=$B/bert_bench

# the words of EWT dev, one sentence a line (multi-word token ranges and empty nodes skipped)
awk -F'\t' '/^[0-9]+\t/ { s = s (s == "" ? "" : " ") $2; next } /^$/ { if (s != "") print s; s = "" } END { if (s != "") print s }' "$EWT" >"$TMP/all.txt"
if [ "$SENTS" -gt 0 ]; then head -n "$SENTS" "$TMP/all.txt" >"$TMP/sents.txt"; else cp "$TMP/all.txt" "$TMP/sents.txt"; fi
head -n 300 "$TMP/sents.txt" >"$TMP/calib.txt"

echo "machine: $(machine); load before: $(load)"
n_s=$(wc -l <"$TMP/sents.txt")
echo "MiniLM ($MODEL) on the first $n_s sentences of EWT dev; $ROUNDS rounds A O B C A O B C ... per thread count (A synprobe, O onnxruntime, B PyTorch, C synprobe --gemm blas)"
echo

# ---- sgemm ceiling (sets CEIL_<threads> and PEAK) ----
sgemm_ceiling "$DRV" "$THREADS"
echo

# ---- the onnxruntime graphs: exported from the safetensors, and fused by ORT's optimizer ----
if [ $HAVE_ORT = 1 ]; then
    $PY bench/peer_ort.py export "$MODEL" "$TMP/plain.onnx" >"$TMP/export.log" 2>&1 || { cat "$TMP/export.log"; exit 1; }
    grep '^exported' "$TMP/export.log" | sed "s|$TMP/||; s/^/onnxruntime peer: /"
    heads=$(sed -n 's/.*"num_attention_heads": *\([0-9]*\).*/\1/p' "$MODEL/config.json")
    hid=$(sed -n 's/.*"hidden_size": *\([0-9]*\).*/\1/p' "$MODEL/config.json")
    "$ORT_PY" bench/peer_ort.py optimize "$TMP/plain.onnx" "$TMP/fused.onnx" "$heads" "$hid" >"$TMP/opt.log" 2>&1 || { cat "$TMP/opt.log"; exit 1; }
    grep '^optimized' "$TMP/opt.log" | sed "s|$TMP/||; s/^/onnxruntime peer: /"
else
    echo "SKIP onnxruntime peer: no onnxruntime/onnx under $ORT_PY or no torch under $PY (sh bench/ort_venv.sh makes the venv)"
fi

# ---- the peer's setting, chosen by measurement ----
mkdir -p "$TMP/calib" "$TMP/exp"
"$DRV" encode "$MODEL" "$TMP/calib.txt" --budget "$BUDGET" --export "$TMP/calib" >/dev/null
"$DRV" encode "$MODEL" "$TMP/sents.txt" --budget "$BUDGET" --export "$TMP/exp" >/dev/null
for th in $THREADS; do
    eval "ORT_$th=''"
    [ $HAVE_ORT = 1 ] || continue
    best=0; arg=""
    for g in plain fused; do
        for bs in 16 32 64; do
            r=$(field "$("$ORT_PY" bench/peer_ort.py run "$TMP/$g.onnx" "$TMP/calib" --threads "$th" --batch "$bs")" pieces_s)
            if [ "$r" -gt "$best" ]; then best=$r; arg="$g --batch $bs"; fi
        done
    done
    eval "ORT_$th='$arg'"
    echo "onnxruntime calibration, $th thread(s): fastest graph $arg ($best pieces/s on the first $(wc -l <"$TMP/calib.txt") sentences)"
done
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
[ $HAVE_TORCH = 1 ] || echo "PyTorch peer not run (python3-torch absent or not in PEERS): its columns are empty"
echo

# ---- interleaved rounds ----
# per round: synprobe (--gemm own, the default), onnxruntime, PyTorch, synprobe --gemm blas;
# rates per second of wall time, and per second of the process's user CPU time (robust when
# other work shares the cores; at 2 threads it sums both cores)
echo "| threads | synprobe pieces/s median (min–max) | words/s | onnxruntime pieces/s median (min–max) [graph] | synprobe/onnxruntime | floor 1.2x | per user-CPU-s: synprobe / onnxruntime | PyTorch pieces/s median (min–max) | synprobe/PyTorch | synprobe --gemm blas (own/blas) | forward GFLOP/s | share of FMA peak (x threads) | share of best sgemm | max abs diff onnxruntime / PyTorch |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for th in $THREADS; do
    for f in A Au O Ou B C G; do : >"$TMP/$f"; done
    eval "parg=\$PEER_$th; oarg=\$ORT_$th"
    odiff=-; bdiff=-
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        out=$("$DRV" encode "$MODEL" "$TMP/sents.txt" --threads "$th" --budget "$BUDGET")
        field "$out" pieces_s >>"$TMP/A"; field "$out" pieces_user_s >>"$TMP/Au"; field "$out" gflop_s >>"$TMP/G"
        pieces=$(field "$out" pieces); words=$(field "$out" words)
        if [ -n "$oarg" ]; then
            # shellcheck disable=SC2086
            set -- $oarg
            g=$1; shift
            oout=$("$ORT_PY" bench/peer_ort.py run "$TMP/$g.onnx" "$TMP/exp" --threads "$th" "$@")
            field "$oout" pieces_s >>"$TMP/O"; field "$oout" pieces_user_s >>"$TMP/Ou"; odiff=$(field "$oout" maxdiff)
        fi
        if [ -n "$parg" ]; then
            # shellcheck disable=SC2086
            pout=$($PY bench/peer_bert.py "$MODEL" "$TMP/exp" --threads "$th" $parg)
            field "$pout" pieces_s >>"$TMP/B"; bdiff=$(field "$pout" maxdiff)
        fi
        out=$("$DRV" encode "$MODEL" "$TMP/sents.txt" --threads "$th" --budget "$BUDGET" --gemm blas)
        field "$out" pieces_s >>"$TMP/C"
        r=$((r + 1))
    done
    set -- $(stats <"$TMP/A"); a=$1; amin=$2; amax=$3
    au=$(stats <"$TMP/Au" | cut -d' ' -f1)
    c=$(stats <"$TMP/C" | cut -d' ' -f1)
    g=$(stats <"$TMP/G" "%.1f" | cut -d' ' -f1)
    eval "ceil=\$CEIL_$th"
    aw=$(echo "$a * $words / $pieces" | bc -l)
    ocol="–"; oratio="–"; ou="–"; met="–"
    if [ -s "$TMP/O" ]; then
        set -- $(stats <"$TMP/O"); o=$1
        ocol="$1 ($2–$3) [$(echo "$oarg" | sed 's/--batch /batch /')]"
        oratio=$(ratio "$a" "$o"); met=$(floor_met "$oratio" 1.2)
        ou=$(stats <"$TMP/Ou" | cut -d' ' -f1)
    fi
    bcol="–"; bratio="–"
    if [ -s "$TMP/B" ]; then set -- $(stats <"$TMP/B"); bcol="$1 ($2–$3)"; bratio=$(ratio "$a" "$1"); fi
    printf "| %s | %s (%s–%s) | %.0f | %s | %s | %s | %s / %s | %s | %s | %s (%s) | %s | %.0f%% | %.0f%% | %s / %s |\n" "$th" "$a" "$amin" "$amax" "$aw" \
        "$ocol" "$oratio" "$met" "$au" "$ou" "$bcol" "$bratio" "$c" "$(ratio "$a" "$c")" "$g" \
        "$(echo "$g / ($PEAK * $th) * 100" | bc -l)" "$(echo "$g / $ceil * 100" | bc -l)" "$odiff" "$bdiff"
done
echo
echo "load after: $(load)"
