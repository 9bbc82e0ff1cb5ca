#!/bin/sh
# bench/encode.sh — encoder forward throughput: tokens/s and sentences/s of every example config
# (encoder/configs/*.json) on the PTB sample (.mrg + .dp: both trees) and UD EWT dev (no
# constituency trees: PSAN skipped), CPU with 1 and 2 BLAS threads, length-sorted batches under a
# token budget; GEMM GFLOP/s counted from the shapes. Then MS-SAN against a PyTorch eager peer
# (bench/peer_mssan.py: same weights, same sentences, checked to give the same vectors) at equal
# threads, padded batches of 32 in corpus order and length-sorted. With a CUDA build and a GPU
# both also run on cuda (TFLOP/s); without, a visible line says so. Not a test: no assertions.
#
#   sh bench/encode.sh                 LIMIT=20000 tokens per corpus and run (LIMIT=0: all)
#   env: SP_BUILD (build), SP_DATA (../shared/data), LIMIT, BUDGET (4096), REPS (2),
#        PEER_LIMIT (20000), KINDS ("san ms-san sg-net psan ssan san-structpe")
set -eu
export LC_ALL=C
B=${SP_BUILD:-build}
DATA=${SP_DATA:-../shared/data}
LIMIT=${LIMIT:-20000}
BUDGET=${BUDGET:-4096}
REPS=${REPS:-2}
PEER_LIMIT=${PEER_LIMIT:-20000}
KINDS=${KINDS:-"san ms-san sg-net psan ssan san-structpe"}
PY=/usr/bin/python3
[ -d "$DATA/ptb-sample" ] || { echo "SKIP bench/encode.sh: $DATA not present"; exit 0; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

# the driver, linked like a unit test against the layer libraries
LIBS="$B/lib/libsp_encoder.a $B/lib/libsp_store.a $B/lib/libsp_treeops.a $B/lib/libsp_ingest.a $B/lib/libsp_common.a"
# (the CUDA backend is the plugin $B/synprobe_cuda.so, which `make all` builds and the encoder
# loads from the driver's folder)
make -s --no-print-directory BUILD="$B" all $LIBS
LDX="-lsqlite3 -ljansson -lcsv -lz $(pkg-config --libs openblas 2>/dev/null || echo -lopenblas) -lutf8proc -lpthread -lm"
cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter -O2 -I. -o "$B/encode_bench" bench/encode_bench.c $LIBS $LDX
DRV=$B/encode_bench

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tokens/s on wall time; tok/user-s = tokens per second of the process's user CPU time (robust on a busy machine)"
echo
echo "| kind | corpus | threads | sentences | tokens | batches | wall s | tokens/s | sentences/s | tok/user-s | GEMM GFLOP/s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for k in $KINDS; do
    for corpus in ptb ewt; do
        [ "$k" = psan ] && [ "$corpus" = ewt ] && continue          # EWT has no constituency trees
        for th in 1 2; do
            r=$($DRV --data "$DATA" --corpus $corpus --threads $th --budget "$BUDGET" --limit "$LIMIT" --reps "$REPS" encoder/configs/$k.json)
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" $k $corpus $th "$(field "$r" sentences)" "$(field "$r" tokens)" \
                "$(field "$r" batches)" "$(field "$r" wall_s)" "$(field "$r" tok_s)" "$(field "$r" sent_s)" "$(field "$r" tok_per_user_s)" "$(field "$r" gflop_s)"
        done
    done
done

echo
echo "MS-SAN (encoder/configs/ms-san.json: d 600, 6 heads, FFN 2400) vs PyTorch eager, PTB sample, first $PEER_LIMIT tokens"
if ! "$PY" -c 'import torch' 2>/dev/null; then
    echo "SKIP peer: $PY has no torch"; exit 0
fi
$DRV --data "$DATA" --corpus ptb --limit "$PEER_LIMIT" --export "$TMP" encoder/configs/ms-san.json > /dev/null
echo "| threads | ours: sorted, budget $BUDGET | ours: 32 in corpus order | PyTorch: 32 in corpus order (padded) | PyTorch: 32 length-sorted | ours/PyTorch (sorted vs sorted) | ours/PyTorch (corpus vs corpus) | peer max abs diff |"
echo "|---|---|---|---|---|---|---|---|"
for th in 1 2; do
    a=$($DRV --data "$DATA" --corpus ptb --limit "$PEER_LIMIT" --threads $th --budget "$BUDGET" --reps "$REPS" encoder/configs/ms-san.json)
    b=$($DRV --data "$DATA" --corpus ptb --limit "$PEER_LIMIT" --threads $th --batch 32 --reps "$REPS" encoder/configs/ms-san.json)
    pc=$("$PY" bench/peer_mssan.py "$TMP" encoder/configs/ms-san.json --threads $th --order corpus --reps "$REPS")
    ps=$("$PY" bench/peer_mssan.py "$TMP" encoder/configs/ms-san.json --threads $th --order sorted --reps "$REPS")
    ta=$(field "$a" tok_s); tb=$(field "$b" tok_s); tc=$(field "$pc" tok_s); ts=$(field "$ps" tok_s)
    printf "| %s | %s | %s | %s | %s | %.2f | %.2f | %s |\n" $th $ta $tb $tc $ts \
        "$(echo "$ta / $ts" | bc -l)" "$(echo "$tb / $tc" | bc -l)" "$(field "$pc" max_abs_diff_vs_ours)"
done

echo
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -f "$B/synprobe_cuda.so" ]; then
    echo "CUDA ($(nvidia-smi -L | head -1))"
    echo "| kind | corpus | tokens | tokens/s | sentences/s | GEMM TFLOP/s |"
    echo "|---|---|---|---|---|---|"
    for k in $KINDS; do
        r=$($DRV --data "$DATA" --corpus ptb --device cuda --budget "$BUDGET" --limit 0 --reps "$REPS" encoder/configs/$k.json) || { echo "| $k | ptb | cuda run failed | | | |"; continue; }
        printf "| %s | ptb | %s | %s | %s | %.2f |\n" $k "$(field "$r" tokens)" "$(field "$r" tok_s)" "$(field "$r" sent_s)" "$(echo "$(field "$r" gflop_s) / 1000" | bc -l)"
    done
    if "$PY" -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
        $DRV --data "$DATA" --corpus ptb --limit 0 --export "$TMP" encoder/configs/ms-san.json > /dev/null
        for o in corpus sorted; do "$PY" bench/peer_mssan.py "$TMP" encoder/configs/ms-san.json --device cuda --order $o --reps "$REPS"; done
    else
        echo "PyTorch has no CUDA here: peer on cuda skipped"
    fi
else
    echo "no GPU: CUDA figures skipped"
fi
