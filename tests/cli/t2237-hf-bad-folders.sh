# t2237-hf-bad-folders.sh — kind "hf": each bad model folder gives one clear error naming what is wrong
# tier: fast
# Issue 36. From the tiny DistilBERT of tests/data/hf (a folder with vocab.txt, so every case
# reaches the model): no config.json, a model_type synprobe lacks (the message lists the encoder and decoder families it
# has), a tensor of the wrong shape, a missing tensor, a truncated safetensors header, and a
# folder with pytorch_model.bin only (a one-line hint how to convert it). Each: `synprobe encode`
# exits 1 with one line naming the file, key or tensor.
. tests/cli/lib.sh
need_numpy
H=tests/data/hf/distilbert
DB=$TMP/d.db
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1

# folder NAME: a copy of the DistilBERT folder (no reference outputs) and its config
folder() { rm -rf "$TMP/$1"; mkdir "$TMP/$1"; cp "$H/config.json" "$H/model.safetensors" "$H/vocab.txt" "$TMP/$1/";
           printf '{"kind": "hf", "model": "%s"}\n' "$TMP/$1" >"$TMP/$1.json"; }
# run NAME: encode with it; rc and the error's lines
run() { rc=0; $SP encode --device cpu --db $DB --corpus demo --encoder "$TMP/$1.json" --run "$1" >/dev/null 2>"$TMP/$1.err" || rc=$?
        lines=$(grep -c . "$TMP/$1.err" || true); }
# edit FILE EXPR: rewrite a safetensors file, dropping (EXPR "drop NAME") or cutting the first
# dimension of (EXPR "cut NAME") one tensor
edit() {
    "$PY" - "$@" <<'PY'
import json, struct, sys
path, op, name = sys.argv[1], sys.argv[2], sys.argv[3]
raw = open(path, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
head, data = json.loads(raw[8:8 + n]), raw[8 + n:]
out, parts, off = {}, [], 0
for k, v in sorted(((k, v) for k, v in head.items() if k != "__metadata__"), key=lambda kv: kv[1]["data_offsets"][0]):
    b = data[v["data_offsets"][0]:v["data_offsets"][1]]
    if k == name and op == "drop":
        continue
    if k == name and op == "cut":
        v["shape"][0] -= 1
        b = b[:len(b) - len(b) // (v["shape"][0] + 1)]
    out[k] = {"dtype": v["dtype"], "shape": v["shape"], "data_offsets": [off, off + len(b)]}
    parts.append(b)
    off += len(b)
h = json.dumps(out).encode()
open(path, "wb").write(struct.pack("<Q", len(h)) + h + b"".join(parts))
PY
}

folder ok; run ok
expect_eq "the DistilBERT folder as it is: exit 0" "$rc" 0

folder nocfg; rm "$TMP/nocfg/config.json"; run nocfg
check "no config.json: exit 1, one line naming the file" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'nocfg/config.json' $TMP/nocfg.err"

folder gpt; sed -i 's/"model_type": "distilbert"/"model_type": "bloom"/' "$TMP/gpt/config.json"; run gpt
check "model_type bloom: exit 1, one line listing the families synprobe has" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && \
    grep -q 'model_type: \"bloom\" (DistilBertModel) is not a family synprobe has (encoders: albert, bert, camembert, deberta-v2, distilbert, electra, mpnet, roberta, xlm-roberta; decoders: gemma, gpt2, gpt_neox, llama, mistral, opt, phi, qwen2)' $TMP/gpt.err"

folder shape; edit "$TMP/shape/model.safetensors" cut transformer.layer.1.ffn.lin1.weight; run shape
check "a tensor of the wrong shape: exit 1, one line naming it and both shapes" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && \
    grep -q 'tensor transformer.layer.1.ffn.lin1.weight: shape \[36,32\], expected \[37,32\]' $TMP/shape.err"

folder miss; edit "$TMP/miss/model.safetensors" drop transformer.layer.0.sa_layer_norm.bias; run miss
check "a missing tensor: exit 1, one line naming it" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && \
    grep -q 'transformer.layer.0.sa_layer_norm.bias' $TMP/miss.err && grep -qi 'missing' $TMP/miss.err"

folder trunc; head -c 200 "$H/model.safetensors" >"$TMP/trunc/model.safetensors"; run trunc
check "a truncated safetensors header: exit 1, one line naming the file" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && \
    grep -q 'trunc/model.safetensors' $TMP/trunc.err"

folder bin; mv "$TMP/bin/model.safetensors" "$TMP/bin/pytorch_model.bin"; run bin
check "pytorch_model.bin only: exit 1, one line with the command that converts it" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && \
    grep -q 'pytorch_model.bin: PyTorch pickles are not read.*save_pretrained(.*safe_serialization=True)' $TMP/bin.err"
for f in nocfg gpt shape miss trunc bin; do sed "s/^/# $f: /" "$TMP/$f.err"; done
done_testing
