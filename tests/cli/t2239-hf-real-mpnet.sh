# t2239-hf-real-mpnet.sh — a real base-size checkpoint, all-mpnet-base-v2, through kind hf: transformers' vectors at every layer
# tier: full
# all-mpnet-base-v2 (make models: 768-d, 12 layers, MPNet's relative attention buckets, its
# tokenizer.json) encodes the first 10 sentences of EWT dev with `synprobe encode --layers all
# --token-vectors`, pooled as docs/spec/models.md M2.2/M2.3 (mean of a word's pieces, mean of the words). The
# reference is transformers 4.40.2 on the same words (pre-tokenized), kept as projections on 4
# fixed unit directions and the norms of every word vector (tests/data/real-mpnet-ewt10.npz,
# written by tests/reference/real_model_refs.py from a venv: `make real-model-refs`). Tolerance
# 5e-5 on each projection and norm (f32 against transformers' f32: the base model's values reach 6,
# and max |d| per element was 6e-6 when written). Tier full: a 438 MB model, about 10 s of CPU
# (several times that under the sanitizer).
. tests/cli/lib.sh
need_data
need_numpy
[ -f "$MODELS/all-mpnet-base-v2/model.safetensors" ] || skip_rest "$MODELS/all-mpnet-base-v2: absent (run 'make models')"
M=$(cd "$MODELS/all-mpnet-base-v2" && pwd)
awk -v RS= -v ORS='\n\n' 'NR <= 10' "$DATA/ud-ewt/en_ewt-ud-dev.conllu" >"$TMP/s.conllu"
printf '{"kind": "hf", "model": "%s", "word_pool": "mean", "sent_pool": "mean"}\n' "$M" >"$TMP/m.json"
$SP ingest --db "$TMP/d.db" --corpus s "$TMP/s.conllu" >/dev/null 2>&1
rc=0; $SP encode --db "$TMP/d.db" --corpus s --encoder "$TMP/m.json" --run m --layers all --token-vectors >"$TMP/enc" 2>&1 || rc=$?
expect_eq "encode --layers all --token-vectors: exit 0" "$rc" 0
check "... 13 runs (embeddings + 12 layers) of 10 sentences, 768-dim" sh -c \
    "[ \$(grep -c 'run m-L[0-9]* (hf on cpu, 768-dim): 0 cached, 10 encoded, 0 skipped' $TMP/enc) = 13 ]"
$SP export --db "$TMP/d.db" --corpus s --run m --what tokens --layers all --out "$TMP/w.npy" 2>/dev/null
$SP export --db "$TMP/d.db" --corpus s --run m --what vectors --layers all --out "$TMP/v.npy" 2>/dev/null
check "word and sentence vectors of every layer: transformers' within 5e-5 (projections, norms)" "$PY" - "$TMP/w.npy" "$TMP/v.npy" tests/data/real-mpnet-ewt10.npz <<'PY'
import sys, numpy as np
w, v, r = np.load(sys.argv[1]).astype(np.float64), np.load(sys.argv[2]).astype(np.float64), np.load(sys.argv[3])
D = r["dirs"].astype(np.float64)
assert w.shape == (178, 13, 768) and v.shape == (10, 13, 768), (w.shape, v.shape)
dw = np.abs(w @ D.T - r["words"]).max(); dv = np.abs(v @ D.T - r["sents"]).max()
dn = np.abs(np.linalg.norm(w, axis=2) - r["norms"]).max()
print("# max |d proj word| %.3g, |d proj sent| %.3g, |d norm| %.3g (tol 5e-5)" % (dw, dv, dn))
sys.exit(0 if max(dw, dv, dn) <= 5e-5 else 1)
PY
done_testing
