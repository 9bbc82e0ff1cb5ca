# t2178-torch-parity.sh — the PyTorch twin of MS-SAN gives synprobe's vectors, token vectors and attention, both ways
# tier: fast
# Issue 25 item 2, one kind of `make test-torch` (tests/torch/run.sh runs all six): random weights
# saved from python/synprobe_torch load in `synprobe encode --weights` and give the twin's sentence
# vectors, token vectors and attention map within 1e-5; synprobe's own seeded weights
# (--save-weights) loaded with synprobe_torch.load give synprobe's. The comparison is against
# synprobe's C forward (tests/torch/parity.py); a weights file missing a tensor is refused by both.
. tests/cli/lib.sh
need_numpy
$PY -c 'import torch' 2>/dev/null || skip_rest "/usr/bin/python3 has no torch (python3-torch)"
SYNPROBE=$(cd "$(dirname "$SP")" && pwd)/synprobe; export SYNPROBE
$SP ingest --db $TMP/d.db --corpus demo demo/demo.conllu demo/demo.mrg >/dev/null 2>&1
for dir in torch synprobe; do
    w=""; [ $dir = synprobe ] && w=--from-synprobe
    out=$($PY tests/torch/parity.py tests/torch/configs/ms-san.json $TMP/d.db $TMP/$dir --corpus demo $w 2>&1) && rc=0 || rc=$?
    echo "# $out" | tail -1
    check "MS-SAN, $dir weights: sentence, token vectors and attention within 1e-5 of synprobe's" \
        sh -c "[ $rc = 0 ] && echo '$out' | grep -q 'sentences=32 .* ok$'"
done
# a tensor dropped from the PyTorch file: synprobe names it, and so does synprobe_torch.load
$PY - "$TMP" <<'PY'
import sys
sys.path.insert(0, "python")
from synprobe_torch import safetensors_io as s
t, m = s.read(sys.argv[1] + "/torch/w.safetensors")
del t["layers.1.gate.w2.weight"]
s.write(sys.argv[1] + "/cut.safetensors", t, m)
PY
$SP encode --db $TMP/d.db --corpus demo --encoder tests/torch/configs/ms-san.json --run cut --weights $TMP/cut.safetensors \
    --embeddings $TMP/torch/emb.txt >/dev/null 2>$TMP/e1 && rc=0 || rc=$?
check "synprobe: a missing tensor: exit 1, named" sh -c "[ $rc = 1 ] && grep -q 'layers.1.gate.w2.weight: missing tensor' $TMP/e1"
$PY -c "
import sys; sys.path.insert(0, 'python')
import synprobe_torch as spt
spt.load('tests/torch/configs/ms-san.json', '$TMP/cut.safetensors')" 2>$TMP/e2 && rc=0 || rc=$?
check "synprobe_torch.load: the same file refused, the tensor named" sh -c "[ $rc = 1 ] && grep -q 'layers.1.gate.w2.weight: missing tensor' $TMP/e2"
done_testing
