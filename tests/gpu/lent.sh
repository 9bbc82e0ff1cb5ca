#!/bin/sh
# tests/gpu/lent.sh — what a session runs on a lent GPU machine, in one call (device time is
# short: check, measure, and write everything under $OUT). Prepare here first:
#   sh bench/bert_device.sh prepare         build/devcarry: static bert_bench, MiniLM in F16 (gz),
#                                           EWT sentences, the CUDA plugin, peer_bert.py
#   sh tests/gpu/lent.sh prepare            device-carry: the two CUDA-vs-CPU harnesses and
#                                           encode_bench, linked statically (the device image has no
#                                           jansson, utf8proc, sqlite, libcsv; the --gemm blas path
#                                           is a stub there), and 40 PTB-sample files
# then through the device tool: carry ["build/devcarry", "device-carry"], command
#   sh tests/gpu/lent.sh run
# It runs: the bert encoder CUDA vs CPU on MiniLM (F16 weights widened exactly: MiniLM's shapes and
# 6 layers); every encoder config CUDA vs CPU (40 PTB files); then throughput on the GPU, ours and
# the PyTorch eager peers interleaved ROUNDS (3) times, one process each: MiniLM on EWT dev's first
# 1000 sentences (bert_bench vs bench/peer_bert.py, batch 64: the peer's faster one), MS-SAN on the
# whole PTB sample (encode_bench vs bench/peer_mssan.py in corpus order, its faster), PSAN ours,
# the other kinds ours only; medians (min-max) and GFLOP/s at the end of $OUT/lent.log, each line
# appended as it comes (a run cut short by the device's limit still returns what it measured).
# LENT_CPU=1 adds the CPU figures of bench/bert_device.sh on the idle machine.
#   sh tests/gpu/lent.sh prepare-before DIR   DIR: another checkout (a git worktree of the
#                                           commit before a change) where both prepare steps ran:
#                                           its bert_bench, encode_bench and plugin go to
#                                           device-carry/before, and the rounds then interleave
#                                           them as *-before (the change's A/B in the same call).
# The carry limit is 64 MiB: the binaries travel gzipped and the PTB sample as one tar.gz.
set -u
case "${1:-}" in
prepare)
    LIBS="build/lib/libsp_encoder.a build/lib/libsp_store.a build/lib/libsp_treeops.a build/lib/libsp_ingest.a build/lib/libsp_common.a"
    make -s --no-print-directory all $LIBS || exit 1
    rm -rf device-carry; mkdir -p device-carry/bin/gpu device-carry/data/ptb-sample/combined device-carry/data/ptb-sample/dependency
    printf '#include <stdio.h>\n#include <stdlib.h>\nvoid cblas_sgemm(void) { fputs("blas stub\\n", stderr); abort(); }\n'\
'void openblas_set_num_threads(int n) { (void)n; }\nchar *openblas_get_config(void) { return "stub"; }\n' >device-carry/blas_stub.c
    for t in tests/gpu/bert_cuda_vs_cpu tests/gpu/encoder_cuda_vs_cpu bench/encode_bench tests/unit/encoder_bert; do
        o=device-carry/bin/$(case $t in tests/gpu/*) echo gpu/;; esac)$(basename $t)
        cc -std=c11 -D_GNU_SOURCE -O2 -I. -o $o $t.c \
            device-carry/blas_stub.c $LIBS -Wl,-Bstatic -ljansson -lutf8proc -lpcre2-8 -lsqlite3 -lcsv -lz -Wl,-Bdynamic -lpthread -lm -ldl || exit 1
        gzip -f $o
    done
    for f in $(ls ${SP_DATA:-../shared/data}/ptb-sample/combined | sort | head -n 40); do
        cp ${SP_DATA:-../shared/data}/ptb-sample/combined/$f device-carry/data/ptb-sample/combined/
        cp ${SP_DATA:-../shared/data}/ptb-sample/dependency/${f%.mrg}.dp device-carry/data/ptb-sample/dependency/
    done
    # the whole PTB sample (199 files) for the throughput figures: a GPU needs more than 40 files' work
    tar czf device-carry/data-all.tgz -C ${SP_DATA:-../shared/data} --transform 's#^#data-all/#' ptb-sample/combined ptb-sample/dependency || exit 1
    du -sh device-carry build/devcarry
    exit 0 ;;
prepare-before)
    S=${2:?usage: sh tests/gpu/lent.sh prepare-before DIR}
    rm -rf device-carry/before; mkdir -p device-carry/before
    cp "$S/build/devcarry/bert_bench.gz" "$S/build/devcarry/synprobe_cuda.so" device-carry/before/ || exit 1
    if [ -f "$S/device-carry/bin/encode_bench.gz" ]; then cp "$S/device-carry/bin/encode_bench.gz" device-carry/before/
    else gzip -c "$S/device-carry/bin/encode_bench" >device-carry/before/encode_bench.gz || exit 1; fi
    echo "before: $(git -C "$S" log --oneline -1 2>/dev/null)" | tee device-carry/before/commit.txt
    du -sh device-carry build/devcarry
    exit 0 ;;
run) ;;
*) echo "usage: sh tests/gpu/lent.sh prepare | prepare-before DIR | run" >&2; exit 2 ;;
esac
OUT=${OUT:-/tmp/sp-lent}
mkdir -p "$OUT"
log() { echo "== $(date -u +%T) $*" | tee -a "$OUT/lent.log"; }
D=build/devcarry; C=device-carry; DATA=$C/data; DATA_ALL=$C/data-all; ROUNDS=${ROUNDS:-3}
log "device: $(nvidia-smi -L 2>&1 | head -1); $(nproc) CPUs; $(lscpu | grep 'Model name' | sed 's/  */ /g')"
grep -o 'avx512[a-z]*' /proc/cpuinfo | sort -u | tr '\n' ' ' >>"$OUT/lent.log"; echo >>"$OUT/lent.log"
python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())' >>"$OUT/lent.log" 2>&1
gunzip -kf $D/m16/model.safetensors.gz; M=$D/m16
for f in $C/bin/*.gz $C/bin/gpu/*.gz; do gunzip -f $f; done; chmod +x $C/bin/* $C/bin/gpu/*
tar xzf $C/data-all.tgz -C $C
mkdir -p build/gpu; cp $C/bin/gpu/* build/gpu/; cp $D/synprobe_cuda.so build/; cp $C/bin/encode_bench build/
BEF=$C/before
if [ -d $BEF ]; then
    gunzip -f $BEF/bert_bench.gz $BEF/encode_bench.gz; chmod +x $BEF/bert_bench $BEF/encode_bench
    log "A/B: *-before = $(cat $BEF/commit.txt)"
fi
log "bert: CUDA vs CPU"
SP_GPU_REQUIRED=1 timeout 150 build/gpu/bert_cuda_vs_cpu $M $DATA >$OUT/bert.log 2>&1; bst=$?
log "bert exit $bst"; grep -v '^#   sentence' $OUT/bert.log | tee -a $OUT/lent.log; grep '^#   sentence' $OUT/bert.log | head -5 >>$OUT/lent.log
log "unit test encoder_bert (tiny BERT vs NumPy, CUDA vs CPU, layer masks on both)"
SP_PYTHON=$(command -v python3) timeout 60 $C/bin/encoder_bert >$OUT/unit_bert.log 2>&1; ust=$?
log "encoder_bert exit $ust"; grep -E '^#|not ok|checks' $OUT/unit_bert.log | tee -a $OUT/lent.log
log "encoders: CUDA vs CPU"
mkdir -p /tmp/genc
SP_GPU_REQUIRED=1 timeout 120 build/gpu/encoder_cuda_vs_cpu $DATA /tmp/genc encoder/configs/*.json tests/reference/configs/*.json \
    tests/gpu/configs/*.json >$OUT/encoders.log 2>&1; est=$?
log "encoders exit $est"; grep -E '^not ok|config\(s\) failed' $OUT/encoders.log | tee -a $OUT/lent.log; echo "$(grep -c '^ok' $OUT/encoders.log) ok" | tee -a $OUT/lent.log
log "GPU throughput: ours and the PyTorch eager peers interleaved, $ROUNDS rounds (one process each)"
# bert on EWT dev's first 1000 sentences (pieces from our tokenizer, exported for the peer)
gunzip -c $D/bert_bench.gz >$D/bert_bench; chmod +x $D/bert_bench
BB="env SYNPROBE_CUDA_PLUGIN=build/synprobe_cuda.so $D/bert_bench"
mkdir -p /tmp/bx; timeout 60 $BB encode $M $D/sents.txt --device cuda --budget 8192 --export /tmp/bx >/dev/null 2>&1
mkdir -p /tmp/mexp; timeout 60 build/encode_bench --data $DATA_ALL --corpus ptb --limit 0 --export /tmp/mexp encoder/configs/ms-san.json >/dev/null 2>&1
# R LABEL PATTERN CMD...: one line of $OUT/rounds.txt per process (its last line matching PATTERN),
# appended as it ends
R() { lab=$1; pat=$2; shift 2; echo "R $lab $("$@" 2>&1 | grep -E "$pat" | tail -1)" >>$OUT/rounds.txt; }
BBB="env SYNPROBE_CUDA_PLUGIN=$BEF/synprobe_cuda.so $BEF/bert_bench"
EB="--data $DATA_ALL --corpus ptb --device cuda --budget 8192 --limit 0"
r=1
while [ $r -le $ROUNDS ]; do
    R bert-ours RESULT timeout 60 $BB encode $M $D/sents.txt --device cuda --budget 8192
    [ -d $BEF ] && R bert-before RESULT timeout 60 $BBB encode $M $D/sents.txt --device cuda --budget 8192
    R bert-torch-b64 . timeout 90 python3 bench/peer_bert.py $M /tmp/bx --threads 8 --device cuda --batch 64 --reps 1
    R ms-san-ours RESULT timeout 60 build/encode_bench $EB encoder/configs/ms-san.json
    [ -d $BEF ] && R ms-san-before RESULT timeout 60 env SYNPROBE_CUDA_PLUGIN=$BEF/synprobe_cuda.so $BEF/encode_bench $EB encoder/configs/ms-san.json
    R ms-san-torch-corpus . timeout 90 python3 bench/peer_mssan.py /tmp/mexp encoder/configs/ms-san.json --device cuda --order corpus --reps 1
    R psan-ours RESULT timeout 60 build/encode_bench $EB encoder/configs/psan.json
    [ -d $BEF ] && R psan-before RESULT timeout 60 env SYNPROBE_CUDA_PLUGIN=$BEF/synprobe_cuda.so $BEF/encode_bench $EB encoder/configs/psan.json
    r=$((r + 1))
done
for k in san sg-net ssan san-structpe; do
    R $k-ours RESULT timeout 60 build/encode_bench $EB --reps $ROUNDS encoder/configs/$k.json
done
cat $OUT/rounds.txt >>$OUT/lent.log
log "where the GPU time goes (SP_CUDA_PROFILE=4: load and warm-up left out; one untimed run each)"
SP_CUDA_PROFILE=4 timeout 60 $BB encode $M $D/sents.txt --device cuda --budget 8192 2>&1 | tail -11 | tee -a $OUT/lent.log
SP_CUDA_PROFILE=4 timeout 60 build/encode_bench $EB encoder/configs/ms-san.json 2>&1 | tail -11 | tee -a $OUT/lent.log
SP_CUDA_PROFILE=4 timeout 60 build/encode_bench $EB encoder/configs/psan.json 2>&1 | tail -11 | tee -a $OUT/lent.log
# medians (min-max) per label of the rate each line reports, and TFLOP/s where it is ours
awk '{ lab = $2; for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "tok_s" || kv[1] == "pieces_s") v[lab] = v[lab] " " kv[2];
       if (kv[1] == "gflop_s") g[lab] = g[lab] " " kv[2] } }
     function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
       return n ? sprintf("%.0f (%.0f-%.0f)", n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2, a[1], a[n]) : "-" }
     END { for (l in v) printf "%-22s %s per s%s\n", l, med(v[l]), (l in g) ? ", GFLOP/s " med(g[l]) : "" }' $OUT/rounds.txt | sort | tee -a $OUT/lent.log
if [ "${LENT_CPU:-0}" = 1 ]; then
    log "CPU figures (bench/bert_device.sh on 300 EWT sentences, python3 = the image's)"
    head -n 300 $D/sents.txt >$D/s300.txt && mv $D/s300.txt $D/sents.txt
    sed 's#/usr/bin/python3#python3#g' $D/bert_device.sh >$D/bd.sh
    OUT=$OUT timeout ${CPU_TIMEOUT:-200} sh $D/bd.sh run; log "cpu exit $?"
fi
log "done"
[ $bst -eq 0 ] && [ $est -eq 0 ] && [ $ust -eq 0 ]
