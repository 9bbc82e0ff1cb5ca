# t2187-bert-peer-ort.sh — bench/bert.sh's onnxruntime peer computes MiniLM's function: both graphs agree with synprobe
# tier: full
# Issue 26 item 3: the peer that bench/bert.sh times against (bench/peer_ort.py) must compute the
# same function as synprobe, or the ratio means nothing. On 40 EWT sentences: the graph exported
# from the model's safetensors by torch.onnx.export, and the same graph fused by
# onnxruntime.transformers.optimizer (which must have fused attention, skip-LayerNorm and
# bias-GELU), run by onnxruntime at 1 and 2 intra-op threads, give per-sentence means of the last
# layer within 1e-4 of synprobe's (bench/bert_bench.c --export; docs/spec/models.md M3.4's float32 tolerance); and
# `bench/bert.sh` with the peer prints its onnxruntime column and the 1.2x floor. Needs the venv of
# bench/ort_venv.sh (ORT_PY) and /usr/bin/python3 with torch; skips visibly without them.
# (tier full: the export, the optimizer and the Python start-ups take about 20 s of CPU.)
. tests/cli/lib.sh
need_data
need_models
ORT_PY=${ORT_PY:-build/ortvenv/bin/python}
$PY -c 'import torch, numpy' 2>/dev/null || skip_rest "/usr/bin/python3 with torch not available"
"$ORT_PY" -c 'import onnxruntime, onnx, numpy' 2>/dev/null || skip_rest "$ORT_PY: no onnxruntime/onnx (sh bench/ort_venv.sh)"
M=$MODELS/all-MiniLM-L6-v2
. bench/bench_lib.sh
B=$(dirname $SP)
cc -std=c11 -D_GNU_SOURCE -O2 -I. $(pkg-config --cflags openblas 2>/dev/null) -o $TMP/bert_bench bench/bert_bench.c $(bench_libs $B) $(bench_ldx)
awk -F'\t' '/^[0-9]+\t/ { s = s (s == "" ? "" : " ") $2; next } /^$/ { if (s != "") print s; s = "" }' \
    $DATA/ud-ewt/en_ewt-ud-dev.conllu | head -n 40 >$TMP/sents.txt
mkdir -p $TMP/exp
$TMP/bert_bench encode $M $TMP/sents.txt --export $TMP/exp >/dev/null
$PY bench/peer_ort.py export $M $TMP/plain.onnx >$TMP/export.log 2>&1 && rc=0 || rc=$?
expect_eq "export from the safetensors: exit 0" "$rc" 0
"$ORT_PY" bench/peer_ort.py optimize $TMP/plain.onnx $TMP/fused.onnx 12 384 >$TMP/opt.log 2>&1 && rc=0 || rc=$?
expect_eq "onnxruntime's optimizer: exit 0" "$rc" 0
check "the fused graph has Attention, SkipLayerNormalization and BiasGelu nodes" \
    sh -c "grep -q 'Attention=6 ' $TMP/opt.log && grep -q 'SkipLayerNormalization=' $TMP/opt.log && grep -q 'BiasGelu=6' $TMP/opt.log"
for g in plain fused; do
    for th in 1 2; do
        out=$("$ORT_PY" bench/peer_ort.py run $TMP/$g.onnx $TMP/exp --threads $th --batch 16)
        d=$(field "$out" maxdiff)
        check "$g graph, $th thread(s): per-sentence means within 1e-4 of synprobe's (max $d)" \
            awk -v d="$d" 'BEGIN { exit !(d != "" && d + 0 < 1e-4) }'
    done
done
SP_BUILD=$B SENTS=40 ROUNDS=1 THREADS=1 PEERS=ort ORT_PY=$ORT_PY SP_DATA=$DATA SP_MODELS=$MODELS sh bench/bert.sh >$TMP/bench.out 2>&1 && rc=0 || rc=$?
expect_eq "bench/bert.sh with the onnxruntime peer: exit 0" "$rc" 0
check "... prints the onnxruntime column, the ratio and the 1.2x floor" \
    sh -c "grep -q 'onnxruntime pieces/s' $TMP/bench.out && grep -q 'floor 1.2x' $TMP/bench.out && grep -Eq '^\| 1 \| [0-9]+ .*\[(plain|fused) batch [0-9]+\] \| [0-9.]+ \| (met|MISSED) \|' $TMP/bench.out"
done_testing
