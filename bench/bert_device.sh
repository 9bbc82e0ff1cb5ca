#!/bin/sh
# bench/bert_device.sh — bench/bert.sh's measurements on a lent device machine (idle 16-core CPU +
# GPU), where the busy 2-core VM cannot give clean 1-vs-2-thread figures and has no GPU.
#
#   sh bench/bert_device.sh prepare   here: fills build/devcarry (< 64 MiB, ignored by git): a
#                                     bert_bench linked statically against OpenBLAS, jansson and
#                                     utf8proc (gzip), the CUDA plugin, MiniLM with its weights in
#                                     F16 (gzip; enc_bert widens F16 to float32 exactly, so the
#                                     shapes and the work are MiniLM's), EWT dev's first 1000
#                                     sentences and bench/peer_bert.py
#   then, through the device tool, from the checkout the device copies (carry ["build/devcarry"]):
#     sh build/devcarry/bert_device.sh run      writes $OUT/res.txt: the core's FMA peak, sgemm
#                                     1536^3 (ours, OpenBLAS default / SkylakeX / Haswell), MiniLM
#                                     own and --gemm blas on 1 and 2 pinned cores, 3 rounds
#                                     interleaved, the PyTorch peer when torch is installed there,
#                                     and MiniLM on CUDA (budget 1024 and 8192 pieces)
set -eu
export LC_ALL=C
case "${1:-}" in
prepare)
    B=${SP_BUILD:-build}; D=$B/devcarry
    MODEL=${SP_MODELS:-models}/all-MiniLM-L6-v2
    EWT=${SP_DATA:-../shared/data}/ud-ewt/en_ewt-ud-dev.conllu
    rm -rf "$D"; mkdir -p "$D/m16"
    LIBS="$B/lib/libsp_encoder.a $B/lib/libsp_store.a $B/lib/libsp_treeops.a $B/lib/libsp_ingest.a $B/lib/libsp_common.a"
    make -s --no-print-directory BUILD="$B" all $LIBS
    cc -std=c11 -D_GNU_SOURCE -O2 -I. $(pkg-config --cflags openblas) -o "$D/bert_bench" bench/bert_bench.c $LIBS \
        $(pkg-config --libs-only-L openblas) -Wl,-Bstatic -ljansson -lutf8proc -lpcre2-8 -lopenblas -lgfortran -lquadmath -Wl,-Bdynamic -lpthread -lm -ldl
    gzip -f "$D/bert_bench"
    cp "$B/synprobe_cuda.so" bench/peer_bert.py "$0" "$D/"
    cp "$MODEL/config.json" "$MODEL/vocab.txt" "$D/m16/"
    /usr/bin/python3 - "$MODEL/model.safetensors" "$D/m16/model.safetensors" <<'PY'
import json, struct, sys
import numpy as np
src, dst = sys.argv[1], sys.argv[2]
with open(src, "rb") as f:
    (hl,) = struct.unpack("<Q", f.read(8)); hdr = json.loads(f.read(hl)); data = f.read()
out, blobs, off = {}, [], 0
for k, t in hdr.items():
    if k == "__metadata__":
        continue
    a, b = t["data_offsets"]
    raw, dt = (np.frombuffer(data[a:b], "<f4").astype("<f2").tobytes(), "F16") if t["dtype"] == "F32" else (data[a:b], t["dtype"])
    out[k] = {"dtype": dt, "shape": t["shape"], "data_offsets": [off, off + len(raw)]}
    blobs.append(raw); off += len(raw)
h = json.dumps(out).encode(); h += b" " * ((8 - len(h) % 8) % 8)
with open(dst, "wb") as f:
    f.write(struct.pack("<Q", len(h))); f.write(h)
    for x in blobs:
        f.write(x)
PY
    gzip -1 -f "$D/m16/model.safetensors"
    awk -F'\t' '/^[0-9]+\t/ { s = s (s == "" ? "" : " ") $2; next } /^$/ { if (s != "") print s; s = "" }' "$EWT" | head -n 1000 >"$D/sents.txt"
    du -sh "$D"
    ;;
run)
    D=$(dirname "$0"); exec >"${OUT:-.}/res.txt" 2>&1
    echo "== env"; date -u; nproc; lscpu | grep -E "Model name|^Flags" | cut -c1-400
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    /usr/bin/python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())' 2>&1 | tail -1 || true
    gunzip -c "$D/bert_bench.gz" >"$D/bert_bench"; chmod +x "$D/bert_bench"; gunzip -kf "$D/m16/model.safetensors.gz"
    B=$D/bert_bench; M=$D/m16; S=$D/sents.txt
    # cores 2 (and 3), away from core 0's interrupts; on a machine of fewer than 4 cores, 0 (and 1)
    c0=2; [ "$(nproc)" -ge 4 ] || c0=0
    pin() { if [ "$1" = 1 ]; then echo $c0; else echo $c0,$((c0 + 1)); fi; }
    echo "== peak, sgemm 1536^3"
    taskset -c "$(pin 1)" "$B" peak
    for t in 1 2; do
        taskset -c "$(pin $t)" "$B" sgemm --threads $t
        for ct in "" SkylakeX Haswell; do
            echo "coretype=${ct:-default}: $(OPENBLAS_CORETYPE=$ct OPENBLAS_NUM_THREADS=$t taskset -c "$(pin $t)" "$B" sgemm --blas --threads $t)"
        done
    done
    echo "== MiniLM on the CPU, 3 rounds: own, blas per thread count"
    for r in 1 2 3; do for t in 1 2; do
        echo "own  $(taskset -c "$(pin $t)" "$B" encode "$M" "$S" --threads $t)"
        echo "blas $(taskset -c "$(pin $t)" "$B" encode "$M" "$S" --threads $t --gemm blas)"
    done; done
    echo "== PyTorch peer"
    if /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
        mkdir -p "$D/exp"; "$B" encode "$M" "$S" --export "$D/exp" >/dev/null
        for r in 1 2 3; do for t in 1 2; do
            echo "ours $(taskset -c "$(pin $t)" "$B" encode "$M" "$S" --threads $t)"
            for bs in 32 64; do
                echo "peer $(taskset -c "$(pin $t)" /usr/bin/python3 "$D/peer_bert.py" "$M" "$D/exp" --threads $t --torch-threads $t --batch $bs)"
            done
        done; done
    else echo "no torch on this machine: no peer figures"; fi
    echo "== MiniLM on CUDA"
    SYNPROBE_CUDA_PLUGIN=$D/synprobe_cuda.so "$B" encode "$M" "$S" --device cuda --budget 1024 || true
    SYNPROBE_CUDA_PLUGIN=$D/synprobe_cuda.so "$B" encode "$M" "$S" --device cuda --budget 8192 || true
    date -u
    ;;
*) echo "usage: sh bench/bert_device.sh prepare | run" >&2; exit 2 ;;
esac
