#!/bin/sh
# make test-gpu: the CUDA encoders against the CPU oracle (tests/gpu/encoder_cuda_vs_cpu.c) for
# every example and reference config (plus tests/gpu/configs: shapes only the GPU kernels care
# about, e.g. dk >= 128), on PTB-sample sentences from ../shared/data ($SP_DATA).
# Without a CUDA device (or in a CUDA=0 build) it prints "1..0 # SKIP ..." and exits 0; when
# nvidia-smi does list a GPU, a CUDA backend that fails to open is a failure, not a skip.
#   tests/gpu/run_gpu.sh [BUILD]        extra: SP_GPU_TOL_SCALE=2 loosens every tolerance 2x
set -u
B=${1:-build}
BIN=$B/gpu/encoder_cuda_vs_cpu
DATA=${SP_DATA:-../shared/data}
if [ ! -x "$BIN" ]; then
    make -s --no-print-directory BUILD="$B" "$BIN" || { echo "not ok - test-gpu: cannot build $BIN"; exit 1; }
fi
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    SP_GPU_REQUIRED=1; export SP_GPU_REQUIRED
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sp-gpu.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
{ "$BIN" "$DATA" "$TMP" encoder/configs/*.json tests/reference/configs/*.json tests/gpu/configs/*.json
  echo $? >"$TMP/run.rc"; } | tee "$TMP/run.out"
rc=$(cat "$TMP/run.rc")
# the bert encoder (tests/gpu/bert_cuda_vs_cpu.c) on the real MiniLM when make models fetched it;
# SP_GPU_BENCH=1 adds its throughput on the GPU (pieces/s, TFLOP/s)
MODEL=${SP_MODELS:-models}/all-MiniLM-L6-v2
if [ -f "$MODEL/model.safetensors" ]; then
    brc=0; "$B/gpu/bert_cuda_vs_cpu" ${SP_GPU_BENCH:+--bench} "$MODEL" "$DATA" >"$TMP/bert.out" 2>&1 || brc=$?
    cat "$TMP/bert.out"
    [ $brc -eq 0 ] || rc=$brc
else
    echo "# bert: $MODEL absent (make models): not checked"
fi
# every tiny family of kind hf whose folder has a vocab.txt (tests/data/hf; the others need tokenizer.json)
for f in tests/data/hf/*/vocab.txt; do
    brc=0; "$B/gpu/bert_cuda_vs_cpu" "${f%/vocab.txt}" "$DATA" >"$TMP/hf.out" 2>&1 || brc=$?
    sed "s|^|# ${f%/vocab.txt}: |" "$TMP/hf.out" | tail -n 3
    [ $brc -eq 0 ] || rc=$brc
done
# the tokenizer.json-only folders too (the roberta family, deberta-v3's disentangled attention through
# shared projections): a copy with a made-up vocab.txt of vocab_size words, whose ids are all the
# harness needs (both sides get the same ones)
for d in tests/data/hf/*/; do
    d=${d%/}
    [ -f "$d/config.json" ] && [ -f "$d/model.safetensors" ] && [ ! -f "$d/vocab.txt" ] || continue
    c=$TMP/hf-${d##*/}
    mkdir -p "$c" && cp "$d/config.json" "$d/model.safetensors" "$c/"
    nv=$(tr ',' '\n' <"$d/config.json" | sed -n 's/^ *"vocab_size": *\([0-9]*\).*/\1/p' | head -n 1)
    { printf '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n'; k=5; while [ "$k" -lt "${nv:-6}" ]; do echo "w$k"; k=$((k + 1)); done; } >"$c/vocab.txt"
    brc=0; "$B/gpu/bert_cuda_vs_cpu" "$c" "$DATA" >"$TMP/hf.out" 2>&1 || brc=$?
    sed "s|^|# $d (made-up vocab.txt): |" "$TMP/hf.out" | tail -n 3
    [ $brc -eq 0 ] || rc=$brc
done
# the decoder LMs (tests/data/hf-dec, enc_decoder.c: RoPE, RMSNorm, SwiGLU, causal attention) on CUDA
# against transformers' references, 1e-4 + 1e-3 |ref| (hidden) and 1e-5 + 1e-3 |ref| (attention), as above
if [ "${SP_GPU_REQUIRED:-0}" = 1 ] && [ -x /usr/bin/python3 ]; then
    DRV=$B/tools/encoder_dec_run
    [ -x "$DRV" ] || make -s --no-print-directory BUILD="$B" "$DRV" >/dev/null 2>&1 || true
    for f in gpt2 llama llama-linear llama-dynamic llama3 mistral qwen2 opt gpt_neox gpt_neox-seq phi gemma gemma-hd; do
        c=$TMP/dec-$f
        mkdir -p "$c" && cp tests/data/hf-dec/$f/ref/*.npy "$c/"
        brc=0; "$DRV" tests/data/hf-dec/$f "$c" hidden-states cuda >"$TMP/dec.out" 2>&1 || brc=$?
        [ $brc -eq 0 ] && { /usr/bin/python3 - "$c" >"$TMP/dec.out" 2>&1 <<'PY' || brc=$?
import sys, glob, numpy as np
d = sys.argv[1]
bad = 0
for s in range(len(glob.glob(d + "/ids_*.npy"))):
    h, c = np.load("%s/hidden_%d.npy" % (d, s)), np.load("%s/c_hidden_%d.npy" % (d, s))
    a, ca = np.load("%s/attn_%d.npy" % (d, s)), np.load("%s/c_attn_%d.npy" % (d, s))
    bad += int((np.abs(h - c) > 1e-4 + 1e-3 * np.abs(h)).sum() + (np.abs(a - ca) > 1e-5 + 1e-3 * np.abs(a)).sum())
print("decoder on cuda vs transformers: %d values out of tolerance" % bad)
sys.exit(1 if bad else 0)
PY
        }
        sed "s|^|# tests/data/hf-dec/$f: |" "$TMP/dec.out" | tail -n 3
        [ $brc -eq 0 ] || rc=$brc
    done
fi
# the CLI tests' TAP words: a run without a CUDA device is a whole-run skip ("1..0 # SKIP"), not a pass
skip=$(sed -n 's/^SKIP: //p' "$TMP/run.out" | head -n 1)
if [ $rc -eq 0 ] && [ -n "$skip" ]; then echo "1..0 # SKIP test-gpu: $skip"
elif [ $rc -eq 0 ]; then echo "# test-gpu: passed"
else echo "# test-gpu: FAILED (exit status $rc)"; fi
exit $rc
