#!/bin/sh
# tests/gpu/lent.sh — what a session runs on a lent GPU machine, in one call (device time is
# short: check, measure, and write everything under $OUT).
#   1. the binaries: prebuilt here and carried in device-carry/bin (with the two shared
#      libraries the device image lacks in device-carry/lib), else built there with make;
#   2. make test-gpu's checks: every encoder config CUDA vs CPU (tests/gpu/encoder_cuda_vs_cpu.c),
#      and the bert encoder (tests/gpu/bert_cuda_vs_cpu.c) with its throughput;
#   3. the six encoders on the GPU (bench/encode_bench.c: tokens/s, GEMM TFLOP/s).
# The treebanks and the model come from ../shared/data and models/ when the machine has them,
# else from device-carry/ (an ignored folder a session fills and names in the run's carry:
# device-carry/data/ptb-sample/{combined,dependency}, device-carry/models/all-MiniLM-L6-v2, which
# may be a copy of the real model cut to fewer layers to fit the carry: the run prints its layers).
set -u
OUT=${OUT:-/tmp/sp-lent}
mkdir -p "$OUT"
log() { echo "== $(date -u +%T) $*" | tee -a "$OUT/lent.log"; }
DATA=../shared/data; [ -d "$DATA/ptb-sample" ] || DATA=device-carry/data
MODELS=models; [ -f "$MODELS/all-MiniLM-L6-v2/model.safetensors" ] || MODELS=device-carry/models
export SP_DATA=$DATA SP_MODELS=$MODELS
log "device: $(nvidia-smi -L 2>&1 | head -2); $(nproc) CPUs; $(ldd --version | head -1); data $DATA; models $MODELS"
python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())' >>"$OUT/lent.log" 2>&1 \
    || echo "no PyTorch on this machine" >>"$OUT/lent.log"
if [ -x device-carry/bin/gpu/bert_cuda_vs_cpu ]; then
    log "prebuilt binaries from device-carry/bin"
    mkdir -p build/gpu
    cp device-carry/bin/gpu/* build/gpu/ && cp device-carry/bin/synprobe_cuda.so device-carry/bin/encode_bench build/
    export LD_LIBRARY_PATH=$PWD/device-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
    log "build"
    make -j"$(nproc)" all build/gpu/encoder_cuda_vs_cpu build/gpu/bert_cuda_vs_cpu >"$OUT/build.log" 2>&1 \
        || { log "build FAILED"; tail -30 "$OUT/build.log" | tee -a "$OUT/lent.log"; exit 1; }
    LIBS="build/lib/libsp_encoder.a build/lib/libsp_store.a build/lib/libsp_treeops.a build/lib/libsp_ingest.a build/lib/libsp_common.a"
    cc -std=c11 -D_GNU_SOURCE -O2 -I. -o build/encode_bench bench/encode_bench.c $LIBS -Wl,--as-needed -lsqlite3 -ljansson -lcsv \
        -lutf8proc -lz -lopenblas -lpthread -lm >>"$OUT/build.log" 2>&1
fi
log "bert: CUDA vs CPU + throughput"
st=0
SP_GPU_REQUIRED=1 timeout 120 build/gpu/bert_cuda_vs_cpu --bench "$MODELS/all-MiniLM-L6-v2" "$DATA" >"$OUT/bert.log" 2>&1 || st=$?
log "bert exit $st"; grep -v '^#   sentence' "$OUT/bert.log" | head -30 | tee -a "$OUT/lent.log"
grep '^#   sentence' "$OUT/bert.log" | head -10 >>"$OUT/lent.log"
log "encoders on cuda (bench/encode_bench.c, 3 reps each)"
for k in ms-san san psan sg-net ssan san-structpe; do
    timeout 40 build/encode_bench --data "$DATA" --corpus ptb --device cuda --budget 8192 --limit 0 --reps 3 encoder/configs/$k.json \
        >>"$OUT/encode-cuda.log" 2>&1 || echo "$k: exit $?" >>"$OUT/encode-cuda.log"
done
grep -E 'RESULT|exit' "$OUT/encode-cuda.log" | tee -a "$OUT/lent.log"
log "encoders: CUDA vs CPU (tests/gpu/encoder_cuda_vs_cpu.c, every config)"
mkdir -p /tmp/sp-gpu-enc
est=0
SP_GPU_REQUIRED=1 timeout ${ENC_TIMEOUT:-200} build/gpu/encoder_cuda_vs_cpu "$DATA" /tmp/sp-gpu-enc encoder/configs/*.json \
    tests/reference/configs/*.json tests/gpu/configs/*.json >"$OUT/encoders.log" 2>&1 || est=$?
log "encoders exit $est"; grep -E '^(ok|not ok)|config\(s\) failed' "$OUT/encoders.log" | tee -a "$OUT/lent.log"
log "done"
[ $st -eq 0 ] && [ $est -eq 0 ]
