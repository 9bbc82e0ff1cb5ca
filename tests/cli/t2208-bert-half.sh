# t2208-bert-half.sh — f16/bf16 and sharded BERT checkpoints: kept in their dtype, same bits as widened
# tier: fast
# A BERT checkpoint in f16 or bf16 (written from the f32 one by tests/reference/sft_half.py,
# NumPy only) runs with its weights kept in that dtype (the GEMM widens each packed panel): its
# hidden states and attention are byte-identical to those of the f32 checkpoint holding the same
# halves widened exactly (the reference), on the tiny synthetic BERT and, when present, on
# all-MiniLM-L6-v2, where they are also within a stated tolerance of the f32 model (each
# piece's hidden-state row: relative L2 error <= 0.05 for bf16, <= 0.01 for f16; measured
# 0.018 and 0.0027) and the bf16 model's peak RSS is at most 0.65 of the f32 one's (measured
# 0.57: 58 vs 102 MB; skipped in the sanitizer build). The tiny model split into two shards
# with model.safetensors.index.json gives the single file's bytes; a folder with only
# pytorch_model.bin is refused with the one-line conversion hint.
. tests/cli/lib.sh
need_numpy
DRV=${SP_BUILD:-build}/tools/encoder_bert_run
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$DRV" >/dev/null 2>&1 || true
fi
check "the driver $DRV is built" test -x "$DRV"

# ids DIR LENGTHS VOCAB: int32 ids (and zero types) of sentences of those lengths
ids() {
    "$PY" - "$@" <<'PY'
import sys, os, numpy as np
d, lens, vocab = sys.argv[1], [int(x) for x in sys.argv[2].split(",")], int(sys.argv[3])
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(7)
for s, n in enumerate(lens):
    np.save("%s/ids_%d.npy" % (d, s), rng.integers(1, vocab, n).astype(np.int32))
    np.save("%s/types_%d.npy" % (d, s), np.zeros(n, np.int32))
PY
}
# run NAME MODEL IDS: the driver's outputs in $TMP/o_NAME, its stdout in $TMP/o_NAME.out
run() { mkdir -p "$TMP/o_$1" && cp "$3"/*.npy "$TMP/o_$1/" && "$DRV" "$2" "$TMP/o_$1" 1 >"$TMP/o_$1.out"; }
same() { for f in "$TMP/o_$1"/c_*.npy; do cmp -s "$f" "$TMP/o_$2/${f##*/}" || return 1; done; }
# half MODEL OUT DTYPE: OUT (half) and OUT/widened (its f32 reference), with MODEL's config and vocab
half() {
    "$PY" tests/reference/sft_half.py "$1/model.safetensors" "$2" "$3" && cp "$1/config.json" "$1/vocab.txt" "$2/" &&
        cp "$1/config.json" "$1/vocab.txt" "$2/widened/"
}
# close A B REL: every hidden-state row of A within relative L2 error REL of B's
close() {
    "$PY" - "$TMP/o_$1" "$TMP/o_$2" "$3" <<'PY'
import sys, glob, numpy as np
a, b, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
worst, files = 0.0, sorted(glob.glob(a + "/c_hidden_*.npy"))
if not files:
    sys.exit("%s: no hidden states" % a)
for f in files:
    x, y = np.load(f), np.load(b + "/" + f.split("/")[-1])
    worst = max(worst, float((np.linalg.norm(x - y, axis=-1) / np.linalg.norm(y, axis=-1)).max()))
print("# %s vs %s: worst row relative error %.3g (tol %g)" % (a, b, worst, tol))
sys.exit(0 if worst <= tol else 1)
PY
}

T=$TMP/tiny
check "make_tiny_bert.py writes a BertModel dir" "$PY" tests/reference/make_tiny_bert.py "$T" 13
vocab=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['vocab_size'])" "$T/config.json")
ids "$TMP/tids" 5,16,9 "$vocab"
check "tiny f32" run tf32 "$T" "$TMP/tids"
for dt in f16 bf16; do
    check "sft_half.py writes the tiny model in $dt and its widened f32 twin" half "$T" "$TMP/t$dt" "$dt"
    check "tiny $dt runs" run "t$dt" "$TMP/t$dt" "$TMP/tids"
    check "tiny widened $dt runs" run "t${dt}w" "$TMP/t$dt/widened" "$TMP/tids"
    check "tiny $dt: hidden states and attention byte-identical to the widened f32 model" same "t$dt" "t${dt}w"
done
check "tiny bf16 is not the f32 model (the test can tell)" sh -c "! cmp -s '$TMP/o_tbf16/c_hidden_1.npy' '$TMP/o_tf32/c_hidden_1.npy'"

# the tiny model as two shards and an index: the same bytes as the single file
S=$TMP/sharded
mkdir -p "$S" && cp "$T/config.json" "$T/vocab.txt" "$S/"
check "the tiny model split into two shards with an index" "$PY" - "$T/model.safetensors" "$S" <<'PY'
import sys, json, struct
src, out = sys.argv[1], sys.argv[2]
with open(src, "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]; hdr = json.loads(f.read(n)); data = f.read()
hdr.pop("__metadata__", None)
names = sorted(hdr)
parts = [names[: len(names) // 2], names[len(names) // 2 :]]
wm = {}
for k, part in enumerate(parts):
    fn = "model-%05d-of-00002.safetensors" % (k + 1)
    h, off, blobs = {}, 0, []
    for nm in part:
        b0, b1 = hdr[nm]["data_offsets"]
        h[nm] = {"dtype": hdr[nm]["dtype"], "shape": hdr[nm]["shape"], "data_offsets": [off, off + b1 - b0]}
        off += b1 - b0; blobs.append(data[b0:b1]); wm[nm] = fn
    j = json.dumps(h).encode(); j += b" " * ((8 - len(j) % 8) % 8)
    with open(out + "/" + fn, "wb") as f:
        f.write(struct.pack("<Q", len(j))); f.write(j); [f.write(b) for b in blobs]
json.dump({"metadata": {"total_size": len(data)}, "weight_map": wm}, open(out + "/model.safetensors.index.json", "w"))
PY
check "the sharded tiny model runs" run tsh "$S" "$TMP/tids"
check "sharded: byte-identical to the single file" same tsh tf32

# a folder with a PyTorch pickle only: refused with the conversion line
P=$TMP/pickle
mkdir -p "$P" && cp "$T/config.json" "$T/vocab.txt" "$P/" && printf 'PK' >"$P/pytorch_model.bin"
rc=0; "$DRV" "$P" "$TMP/tids" 1 >/dev/null 2>"$TMP/pickle.err" || rc=$?
expect_eq "pytorch_model.bin only: exit 1" "$rc" 1
check "pytorch_model.bin only: the one-line hint to convert it" grep -qF \
    "$P/pytorch_model.bin: PyTorch pickles are not read (loading one can run code); convert it: python3 -c \"from transformers import AutoModel as M; M.from_pretrained('$P').save_pretrained('$P', safe_serialization=True)\"" "$TMP/pickle.err"
expect_eq "pytorch_model.bin only: one line" "$(wc -l <"$TMP/pickle.err")" 1

M=${SP_BERT_MODEL:-$MODELS/all-MiniLM-L6-v2}
if [ ! -f "$M/model.safetensors" ]; then
    skip_rest "real model: $M/model.safetensors absent (run 'make models')"
fi
ids "$TMP/mids" 12,40,100 30000
check "MiniLM f32" run mf32 "$M" "$TMP/mids"
for dt in f16 bf16; do
    check "sft_half.py writes MiniLM in $dt and its widened f32 twin" half "$M" "$TMP/m$dt" "$dt"
    check "MiniLM $dt runs" run "m$dt" "$TMP/m$dt" "$TMP/mids"
    check "MiniLM widened $dt runs" run "m${dt}w" "$TMP/m$dt/widened" "$TMP/mids"
    check "MiniLM $dt: byte-identical to the widened f32 model" same "m$dt" "m${dt}w"
done
check "MiniLM bf16 within 0.05 (row relative L2) of the f32 model" close mbf16 mf32 0.05
check "MiniLM f16 within 0.01 (row relative L2) of the f32 model" close mf16 mf32 0.01
case ${SP_BUILD:-build} in
*san*) skip "peak RSS: not measured in the sanitizer build (its shadow memory)" ;;
*)
    r32=$(sed -n 's/^peak_rss_kb //p' "$TMP/o_mf32.out"); r16=$(sed -n 's/^peak_rss_kb //p' "$TMP/o_mbf16.out")
    echo "# peak RSS: f32 $r32 kB, bf16 $r16 kB"
    check "MiniLM bf16: peak RSS at most 0.65 of the f32 model's ($r16 vs $r32 kB)" test "${r16:-0}" -gt 0 -a $((${r16:-0} * 100)) -le $((${r32:-0} * 65))
    ;;
esac
done_testing
