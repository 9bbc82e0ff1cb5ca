# t2240-hf-deberta.sh — kind "hf": DeBERTa-v2/v3 (disentangled attention) equal to transformers within 1e-5
# tier: fast
# Issue 36. tests/data/hf/deberta-* hold tiny random DebertaV2 models that save_pretrained wrote
# (tests/reference/hf_family_fixtures.py, `make hf-fixtures`) and what transformers 4.40.2 computed:
# deberta-v3 (v3's shape: c2p and p2c through the shared key/query projections, 8 log buckets up to
# 16, rel_embeddings LayerNorm'd, no absolute positions or token types; its MaskedLM with the
# "deberta." prefix; a Unigram + Metaspace tokenizer.json like v3's), deberta-v2-c2p (pos_key_proj,
# absolute positions, token types, embed_proj 24 -> 32, 3 layers, positions clamped at ±8) and
# deberta-v2-p2c (pos_query_proj, "p2c" as a string, 6 buckets). Checked: every layer's hidden
# states and every head's attention on five id sequences (one 40 pieces long: the buckets and the
# clamp) through tests/tools/encoder_bert_run.c; that the check can fail (the same folder told
# another pos_att_type or max_relative_positions gives other values); `synprobe encode --layers all
# --layer-attention --heads --token-vectors` on tests/data/hf/ud-sample.conllu with the folder's
# tokenizer.json: the pieces, word and sentence vectors of every layer and each layer's per-head
# word-level maps against transformers'; the folders synprobe refuses (a missing
# rel_embeddings tensor, conv_kernel_size, attention_head_size, pos_att_type "p2p", DeBERTa v1),
# each with one line naming the tensor or key; and a v3 checkpoint that keeps an unused absolute
# position table (as transformers, synprobe ignores it).
. tests/cli/lib.sh
need_numpy
B=${SP_BUILD:-build}
for t in encoder_bert_run encoder_hf_pieces; do
    [ -x "$B/tools/$t" ] || make -s --no-print-directory BUILD="$B" "$B/tools/$t" >/dev/null 2>&1 || true
    check "the driver $B/tools/$t is built" test -x "$B/tools/$t"
done
H=tests/data/hf

compare() {  # DIR N [far]: the C outputs against transformers', 1e-5 (far: some attention differs by > 1e-3)
    "$PY" - "$@" <<'PY'
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
wh = wa = 0.0
for s in range(n):
    h, c = np.load("%s/hidden_%d.npy" % (d, s)), np.load("%s/c_hidden_%d.npy" % (d, s))
    a, ca = np.load("%s/attn_%d.npy" % (d, s)), np.load("%s/c_attn_%d.npy" % (d, s))
    assert h.shape == c.shape and a.shape == ca.shape, (h.shape, c.shape, a.shape, ca.shape)
    wh, wa = max(wh, float(np.abs(h - c).max())), max(wa, float(np.abs(a - ca).max()))
print("# max |dh| %.3g, max |dattn| %.3g" % (wh, wa))
sys.exit((0 if wa > 1e-3 else 1) if sys.argv[3:] else (0 if wh <= 1e-5 and wa <= 1e-5 else 1))
PY
}

for f in deberta-v3 deberta-v2-c2p deberta-v2-p2c; do
    mkdir -p "$TMP/$f"
    cp "$H/$f"/ref/ids_*.npy "$H/$f"/ref/types_*.npy "$H/$f"/ref/hidden_*.npy "$H/$f"/ref/attn_*.npy "$TMP/$f/"
    ns=$(ls "$H/$f"/ref/ids_*.npy | wc -l)
    rc=0; "$B/tools/encoder_bert_run" "$H/$f" "$TMP/$f" 1 >"$TMP/$f.out" 2>&1 || rc=$?
    expect_eq "$f: the C forward runs on its $ns sentences" "$rc" 0
    check "$f: all layers' hidden states and attentions within 1e-5 of transformers" compare "$TMP/$f" "$ns"
done

# the check can fail: the same weights told to drop p2c, or other buckets, compute other values
mut() {  # NAME SED-EXPR: deberta-v3 with its config.json edited, run on its ids; rc
    rm -rf "$TMP/$1" "$TMP/m-$1"; cp -r "$H/deberta-v3" "$TMP/$1"; rm -rf "$TMP/$1/ref"; sed -i "$2" "$TMP/$1/config.json"
    mkdir -p "$TMP/m-$1"; cp "$TMP/deberta-v3"/ids_*.npy "$TMP/deberta-v3"/types_*.npy "$TMP/deberta-v3"/hidden_*.npy \
        "$TMP/deberta-v3"/attn_*.npy "$TMP/m-$1/"
    "$B/tools/encoder_bert_run" "$TMP/$1" "$TMP/m-$1" 1 >/dev/null 2>&1
}
mut c2p-only '/"p2c",/d'
check "deberta-v3 told pos_att_type [\"c2p\"]: attentions far from transformers' (> 1e-3)" compare "$TMP/m-c2p-only" 5 far
mut buckets 's/"max_relative_positions": 16/"max_relative_positions": 40/'
check "deberta-v3 told max_relative_positions 40: attentions far from transformers' (> 1e-3)" compare "$TMP/m-buckets" 5 far

# the CLI: the folder's tokenizer.json, every layer's vectors and per-head word maps
"$PY" - "$H/ud-sample.conllu" >"$TMP/words.tsv" <<'PY'
import sys
cur = []
for l in open(sys.argv[1], encoding="utf-8"):
    l = l.rstrip("\n")
    if not l:
        if cur: print("\t".join(cur)); cur = []
    elif not l.startswith("#") and l.split("\t")[0].isdigit():
        cur.append(l.split("\t")[1])
PY
rc=0; "$B/tools/encoder_hf_pieces" "$H/deberta-v3" <"$TMP/words.tsv" >"$TMP/dv3.pieces" 2>"$TMP/dv3.what" || rc=$?
expect_eq "deberta-v3: the folder's tokenizer runs on the sample" "$rc" 0
check "deberta-v3: piece ids, word spans and the too-long flag identical to transformers'" \
    cmp -s "$TMP/dv3.pieces" "$H/deberta-v3/ref/pieces.txt"
check "... read as tokenizer_config.json's DebertaV2Tokenizer, Metaspace as the file says" \
    grep -q "tokenizer.json (DebertaV2Tokenizer)$" "$TMP/dv3.what"
DB=$TMP/d.db
$SP ingest --db $DB --corpus ud "$H/ud-sample.conllu" >/dev/null 2>&1
printf '{"kind": "hf", "model": "%s", "word_pool": "mean", "sent_pool": "mean"}\n' "$(pwd)/$H/deberta-v3" >"$TMP/dv3.json"
rc=0; $SP encode --device cpu --db $DB --corpus ud --encoder "$TMP/dv3.json" --run dv3 --layers all --layer-attention --heads \
    --token-vectors >"$TMP/enc" 2>&1 || rc=$?
expect_eq "encode --layers all --layer-attention --heads --token-vectors: exit 0" "$rc" 0
check "... 15 sentences encoded, the one of more than 64 pieces skipped" \
    grep -q "run dv3-L2 (hf on cpu, 32-dim): 0 cached, 15 encoded, 1 skipped" "$TMP/enc"
$SP export --db $DB --corpus ud --run dv3 --what tokens --layers all --out "$TMP/w.npy" 2>/dev/null
$SP export --db $DB --corpus ud --run dv3 --what vectors --layers all --out "$TMP/v.npy" 2>/dev/null
for k in 1 2; do $SP export --db $DB --run "dv3-L$k" --what attention --heads --out "$TMP/a$k.npy" 2>/dev/null; done
check "word and sentence vectors of layers 0..2 and each layer's per-head word maps within 1e-5 of transformers" "$PY" - \
    "$TMP" "$H/deberta-v3/ref" <<'PY'
import sys, numpy as np
t, ref = sys.argv[1], sys.argv[2]
w, v, rw, rv = np.load(t + "/w.npy"), np.load(t + "/v.npy"), np.load(ref + "/words.npy"), np.load(ref + "/sents.npy")
ra = np.load(ref + "/wattn.npy")
assert w.shape == rw.shape and v.shape == rv.shape, (w.shape, rw.shape, v.shape, rv.shape)
da = 0.0
for k in (1, 2):
    a = np.load("%s/a%d.npy" % (t, k))          # (sentences, heads, L, L) zero-padded
    m = ra.shape[-1]
    assert a.shape[:2] == ra.shape[:1] + ra.shape[2:3] and a.shape[-1] >= m, (a.shape, ra.shape)
    da = max(da, float(np.abs(a[:, :, :m, :m] - ra[:, k - 1]).max()), float(np.abs(a[:, :, m:, :]).max(initial=0)))
dw, dv = float(np.abs(w - rw).max()), float(np.abs(v - rv).max())
print("# max |dword| %.3g, max |dsent| %.3g, max |dmap| %.3g (tol 1e-5)" % (dw, dv, da))
sys.exit(0 if dw <= 1e-5 and dv <= 1e-5 and da <= 1e-5 else 1)
PY

# folders synprobe refuses: one line, naming the tensor or the key
bad() {  # NAME SED-EXPR: a copy of deberta-v3 with its config.json edited; rc, lines
    rm -rf "$TMP/$1"; cp -r "$H/deberta-v3" "$TMP/$1"; rm -rf "$TMP/$1/ref"; sed -i "$2" "$TMP/$1/config.json"
    printf '{"kind": "hf", "model": "%s"}\n' "$TMP/$1" >"$TMP/$1.json"
    rc=0; $SP encode --device cpu --db $DB --corpus ud --encoder "$TMP/$1.json" --run "$1" >/dev/null 2>"$TMP/$1.err" || rc=$?
    lines=$(grep -c . "$TMP/$1.err" || true)
}
bad conv 's/"vocab_size"/"conv_kernel_size": 3, "vocab_size"/'
check "conv_kernel_size 3 (the ConvLayer): exit 1, one line naming the key" \
    sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'config.json: conv_kernel_size: 3 is not supported' $TMP/conv.err"
bad ahs 's/"vocab_size"/"attention_head_size": 16, "vocab_size"/'
check "attention_head_size 16 (hidden 32 / 4 heads is 8): exit 1, one line naming the key" \
    sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'attention_head_size: only hidden_size / num_attention_heads (8)' $TMP/ahs.err"
bad p2p 's/"p2c",/"p2p",/'
check "pos_att_type [\"p2p\", ...] (DeBERTa v1's): exit 1, one line naming the key" \
    sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'pos_att_type: \"p2p\" is not supported' $TMP/p2p.err"
bad v1 's/"deberta-v2"/"deberta"/'
check "model_type \"deberta\" (v1): exit 1, one line naming the key and the families synprobe has" \
    sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'model_type: \"deberta\" (DebertaV2ForMaskedLM) is not a family synprobe has (encoders: .*deberta-v2' $TMP/v1.err"
sft() {  # NAME drop|add: a copy of deberta-v3 whose safetensors lacks rel_embeddings, or has a position table more
    rm -rf "$TMP/$1"; cp -r "$H/deberta-v3" "$TMP/$1"; rm -rf "$TMP/$1/ref"
    "$PY" - "$H/deberta-v3/model.safetensors" "$TMP/$1/model.safetensors" "$2" <<'PY'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", b[:8])[0]
h = json.loads(b[8:8 + n]); data = b[8 + n:]
meta = h.pop("__metadata__", None)
extra = b""
if sys.argv[3] == "drop":
    h.pop("deberta.encoder.rel_embeddings.weight")
else:                                     # 64 x 32 f32 of 7.0: were it read, every value would change
    extra = struct.pack("<f", 7.0) * (64 * 32)
out, off, hdr = b"", 0, {}
for k, v in sorted(h.items(), key=lambda kv: kv[1]["data_offsets"][0]):
    s, e = v["data_offsets"]; out += data[s:e]; hdr[k] = dict(v, data_offsets=[off, off + e - s]); off += e - s
if extra:
    hdr["deberta.embeddings.position_embeddings.weight"] = {"dtype": "F32", "shape": [64, 32], "data_offsets": [off, off + len(extra)]}
    out += extra
if meta is not None: hdr["__metadata__"] = meta
j = json.dumps(hdr).encode(); j += b" " * (-len(j) % 8)
open(sys.argv[2], "wb").write(struct.pack("<Q", len(j)) + j + out)
PY
}
sft norel drop
printf '{"kind": "hf", "model": "%s"}\n' "$TMP/norel" >"$TMP/norel.json"
rc=0; $SP encode --device cpu --db $DB --corpus ud --encoder "$TMP/norel.json" --run norel >/dev/null 2>"$TMP/norel.err" || rc=$?
check "a checkpoint without encoder.rel_embeddings.weight: exit 1, one line naming the tensor" \
    sh -c "[ $rc = 1 ] && [ \$(grep -c . $TMP/norel.err) = 1 ] && grep -q 'encoder.rel_embeddings.weight' $TMP/norel.err"
# position_biased_input false: a position table the checkpoint keeps is ignored (transformers ignores it too)
sft withpos add
mkdir -p "$TMP/m-withpos"; cp "$TMP/deberta-v3"/ids_*.npy "$TMP/deberta-v3"/types_*.npy "$TMP/deberta-v3"/hidden_*.npy \
    "$TMP/deberta-v3"/attn_*.npy "$TMP/m-withpos/"
rc=0; "$B/tools/encoder_bert_run" "$TMP/withpos" "$TMP/m-withpos" 1 >/dev/null 2>&1 || rc=$?
expect_eq "a v3 checkpoint that keeps embeddings.position_embeddings: it opens" "$rc" 0
check "... and the table is not read: all layers within 1e-5 of transformers" compare "$TMP/m-withpos" 5
done_testing
