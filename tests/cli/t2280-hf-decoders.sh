# t2280-hf-decoders.sh — kind "hf" opens decoder LMs (gpt2, llama): every layer and attention equals transformers'
# tier: fast
# Issue 38. tests/data/hf-dec holds tiny random causal LMs that save_pretrained wrote
# (tests/reference/hf_decoder_fixtures.py, `make hf-decoder-fixtures`): GPT2LMHeadModel (learned
# positions, tied embeddings, Conv1D weights, gelu_new, ln_f), LlamaForCausalLM (RMSNorm, RoPE,
# SwiGLU, 2 KV heads for 4 heads), its rope_scaling linear (with attention_bias), dynamic and
# llama3 (which 4.40.2 lacks: its published formula set as the model's inv_freq) variants, a bf16 Llama, Mistral (sliding window 5), Qwen2 (q/k/v biases, tied embeddings) and
# OPT (learned positions offset by 2, relu), GPT-NeoX (Pythia's: parallel residual, partial rotary,
# interleaved query_key_value; and a sequential one with full rotary), Phi (one LayerNorm for the
# parallel attention and MLP, partial rotary), Gemma (embeddings × sqrt(hidden), RMSNorm by 1 + w,
# GeGLU; and with head_dim 16, heads wider than hidden as gemma-7b's);
# with what transformers 4.40.2 computed (eager attention) on four id
# sequences. The driver tests/tools/encoder_dec_run.c runs the same ids as one packed batch on the
# CPU: every layer (the last through the final norm, as output_hidden_states) and every head's
# attention within 1e-5 (bf16: 2e-2 relative, against transformers in bf16); "stream": "residual"
# gives the block's output before the final norm, "post-norm" the norm on every layer; each
# rope_scaling and the window is needed (a copy without it is far off). Then the running-text tokenizer gives
# transformers' ids and word spans (GPT-2: " word" after the first; Llama: its <s>), `synprobe
# encode --layers all --token-vectors` gives transformers' word (last piece) and sentence (mean)
# vectors within 1e-5, `--attention` (and `--heads`) caches lower-triangular word maps that trees
# read, drop_sink leaves out the first piece, add_bos works both ways, a job file runs both
# decoders through trees, probes and a report, and bad folders are one clear line each.
. tests/cli/lib.sh
need_numpy
for t in encoder_dec_run encoder_hf_pieces; do
    if [ ! -x "${SP_BUILD:-build}/tools/$t" ]; then
        make -s --no-print-directory BUILD="${SP_BUILD:-build}" "${SP_BUILD:-build}/tools/$t" >/dev/null 2>&1 || true
    fi
done
DRV=${SP_BUILD:-build}/tools/encoder_dec_run
PCS=${SP_BUILD:-build}/tools/encoder_hf_pieces
check "the drivers are built" test -x "$DRV" -a -x "$PCS"
H=tests/data/hf-dec

# compare DIR TOL [rel]: c_hidden/c_attn against hidden/attn; rel: ‖Δ‖/‖ref‖ per layer and per attention
compare() {
    "$PY" - "$@" <<'PY'
import sys, glob, numpy as np
d, tol, rel = sys.argv[1], float(sys.argv[2]), len(sys.argv) > 3
n = len(glob.glob(d + "/ids_*.npy"))
wh = wa = up = 0.0
for s in range(n):
    h, c = np.load("%s/hidden_%d.npy" % (d, s)), np.load("%s/c_hidden_%d.npy" % (d, s))
    a, ca = np.load("%s/attn_%d.npy" % (d, s)), np.load("%s/c_attn_%d.npy" % (d, s))
    assert h.shape == c.shape and a.shape == ca.shape, (h.shape, c.shape, a.shape, ca.shape)
    for l in range(h.shape[0]):
        e = np.abs(h[l] - c[l]).max() if not rel else np.linalg.norm(h[l] - c[l]) / np.linalg.norm(h[l])
        wh = max(wh, float(e))
    wa = max(wa, float(np.abs(a - ca).max() if not rel else np.linalg.norm(a - ca) / np.linalg.norm(a)))
    up = max(up, float(np.abs(np.triu(ca, 1)).max()))
print("# %s: max %s dh %.3g, dattn %.3g (tol %g); above the diagonal %.3g" % (d, "rel" if rel else "|.|", wh, wa, tol, up))
sys.exit(0 if wh <= tol and wa <= tol and up == 0 else 1)
PY
}
run_ref() {  # NAME DIR [STREAM]: the fixture's references into $TMP/NAME, the driver's outputs beside them
    rm -rf "$TMP/$1"; mkdir -p "$TMP/$1"; cp "$H/$1"/ref/*.npy "$TMP/$1/"
    rc=0; "$DRV" "$2" "$TMP/$1" ${3:-} >"$TMP/$1.out" 2>&1 || rc=$?
}
for f in gpt2 llama llama-linear llama-dynamic llama3 mistral qwen2 opt gpt_neox gpt_neox-seq phi gemma gemma-hd; do
    run_ref $f "$H/$f"
    expect_eq "$f: the C forward runs on its 4 sentences" "$rc" 0
    check "$f: every layer's hidden states and attentions within 1e-5 of transformers, causal" compare "$TMP/$f" 1e-5
done
run_ref llama-bf16 "$H/llama-bf16"
expect_eq "llama-bf16: the C forward runs on the bf16 weights as they are" "$rc" 0
check "llama-bf16: within 2e-2 relative of transformers' bf16 forward" compare "$TMP/llama-bf16" 2e-2 rel

# "stream": residual (no final norm) and post-norm (the norm on every layer)
same() {  # A B TOL [ne]: two npy arrays (or A's slice "file:k" = layer k) within TOL (ne: not within)
    "$PY" - "$@" <<'PY'
import sys, numpy as np
def ld(x):
    f, _, k = x.partition(":")
    a = np.load(f)
    return a[int(k)] if k else a
a, b, tol = ld(sys.argv[1]), ld(sys.argv[2]), float(sys.argv[3])
dd = float(np.abs(a - b).max())
print("# max |d| %.3g" % dd)
sys.exit(0 if (dd <= tol) != (len(sys.argv) > 4) else 1)
PY
}
for f in gpt2 llama; do
    mkdir -p "$TMP/$f-res" "$TMP/$f-post"
    cp "$H/$f"/ref/ids_*.npy "$TMP/$f-res/"; cp "$H/$f"/ref/ids_*.npy "$TMP/$f-post/"
    "$DRV" "$H/$f" "$TMP/$f-res" residual >/dev/null 2>&1 && "$DRV" "$H/$f" "$TMP/$f-post" post-norm >/dev/null 2>&1 && rc=0 || rc=$?
    expect_eq "$f: the residual and post-norm streams run" "$rc" 0
    check "$f: stream residual: the last layer is the block's output before the final norm (1e-5)" \
        same "$TMP/$f-res/c_hidden_0.npy:2" "$H/$f/ref/resid_0.npy" 1e-5
    check "$f: stream residual: layer 1 as the default's" same "$TMP/$f-res/c_hidden_2.npy:1" "$TMP/$f/c_hidden_2.npy:1" 0
    check "$f: stream post-norm: the last layer as the default's" same "$TMP/$f-post/c_hidden_2.npy:2" "$TMP/$f/c_hidden_2.npy:2" 0
    check "$f: stream post-norm: layer 1 through the final norm, not the residual" \
        same "$TMP/$f-post/c_hidden_2.npy:1" "$TMP/$f/c_hidden_2.npy:1" 1e-3 ne
done

# each RoPE scaling, Mistral's window, GPT-NeoX's parallel residual and partial rotary is needed: the
# folder without it is far off on the long sentence
for f in llama-linear:rope_scaling:None llama-dynamic:rope_scaling:None llama3:rope_scaling:None mistral:sliding_window:None \
         gpt_neox:use_parallel_residual:False gpt_neox:rotary_pct:1.0 phi:partial_rotary_factor:1.0; do
    v=${f##*:}; f=${f%:*}; k=${f#*:}; f=${f%:*}
    rm -rf "$TMP/$f-plain"; cp -r "$H/$f" "$TMP/$f-plain"; rm -rf "$TMP/$f-plain/ref"
    "$PY" -c "
import json, sys; p = sys.argv[1]; c = json.load(open(p)); c['$k'] = $v; json.dump(c, open(p, 'w'))" "$TMP/$f-plain/config.json"
    rm -rf "$TMP/$f-x"; mkdir -p "$TMP/$f-x"; cp "$H/$f"/ref/ids_*.npy "$TMP/$f-x/"
    "$DRV" "$TMP/$f-plain" "$TMP/$f-x" >/dev/null 2>&1 || true
    check "$f: with $k $v the long sentence is off by more than 1e-3" \
        same "$TMP/$f-x/c_hidden_2.npy:2" "$H/$f/ref/hidden_2.npy:2" 1e-3 ne
done

# the running-text tokenizer and the word level, on the sample (8 EWT dev sentences)
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
cmpw() {
    "$PY" - "$@" <<'PY'
import sys, numpy as np
w, v, ref = np.load(sys.argv[1]), np.load(sys.argv[2]), sys.argv[3]
rw, rv = np.load(ref + "/words.npy"), np.load(ref + "/sents.npy")
assert w.shape == rw.shape and v.shape == rv.shape, (w.shape, rw.shape, v.shape, rv.shape)
dw, dv = float(np.abs(w - rw).max()), float(np.abs(v - rv).max())
print("# max |dword| %.3g, max |dsent| %.3g (tol 1e-5)" % (dw, dv))
sys.exit(0 if dw <= 1e-5 and dv <= 1e-5 else 1)
PY
}
DB=$TMP/ud.db
$SP ingest --db $DB --corpus ud "$H/ud-sample.conllu" >/dev/null 2>&1
for f in gpt2 llama; do
    rc=0; "$PCS" "$H/$f" text <"$TMP/words.tsv" >"$TMP/$f.pieces" 2>"$TMP/$f.what" || rc=$?
    expect_eq "$f: the running-text tokenizer runs on the sample" "$rc" 0
    check "$f: piece ids and word spans identical to transformers' on running text" cmp -s "$TMP/$f.pieces" "$H/$f/ref/pieces.txt"
    printf '{"kind": "hf", "model": "%s"}\n' "$(pwd)/$H/$f" >"$TMP/$f.json"
    rc=0; $SP encode --device cpu --db $DB --corpus ud --encoder "$TMP/$f.json" --run "$f" --layers all --token-vectors \
        >"$TMP/enc-$f" 2>&1 || rc=$?
    expect_eq "$f: encode --layers all --token-vectors: exit 0" "$rc" 0
    $SP export --db $DB --corpus ud --run "$f" --what tokens --layers all --out "$TMP/$f-w.npy" 2>/dev/null
    $SP export --db $DB --corpus ud --run "$f" --what vectors --layers all --out "$TMP/$f-v.npy" 2>/dev/null
    check "$f: word (last piece) and sentence (mean) vectors of layers 0..2 within 1e-5 of transformers" \
        cmpw "$TMP/$f-w.npy" "$TMP/$f-v.npy" "$H/$f/ref"
    $SP export --db $DB --corpus ud --run "$f-L2" --what vectors --out "$TMP/$f-v2.npy" 2>/dev/null
done
check "gpt2: the tokenizer says the leading-space rule" grep -q "running text: a space before each word after the first" "$TMP/gpt2.what"

# the demo corpus end to end: every layer, token vectors, an attention map; trees read the causal maps
DM=$TMP/demo.db
$SP ingest --db $DM --corpus demo demo/demo.conllu >/dev/null 2>&1
for f in gpt2 llama; do
    rc=0; $SP encode --device cpu --db $DM --corpus demo --encoder "$TMP/$f.json" --run "$f" --layers all --token-vectors \
        --attention 1 >"$TMP/d-$f" 2>&1 || rc=$?
    expect_eq "$f: encode --layers all --token-vectors --attention 1 on the demo corpus: exit 0" "$rc" 0
    check "$f: 32 sentences encoded in every layer's run" sh -c "[ \$(grep -c ': 0 cached, 32 encoded' $TMP/d-$f) = 3 ]"
    $SP export --db $DM --run "$f-L2" --what attention --out "$TMP/$f-a.npy" 2>/dev/null
    expect_eq "$f: the word-level maps are lower triangular, rows summing to 1" "$("$PY" -c "
import numpy as np
a = np.load('$TMP/$f-a.npy')
print(a.shape[0], float(np.abs(np.triu(a, 1)).max()) == 0.0, bool(np.all(np.abs(a.sum(2)[a.sum(2) > 0] - 1) < 1e-5)))")" "32 True True"
done
rc=0; $SP trees --db $DM --corpus demo --run gpt2-L2 --no-save --json >"$TMP/trees.json" 2>"$TMP/trees.err" || rc=$?
expect_eq "trees on the causal maps (their symmetric sum): exit 0" "$rc" 0
# each head's map (--heads), and drop_sink: GPT-2 (no BOS) without its first piece's column
rc=0; $SP encode --device cpu --db $DM --corpus demo --encoder "$TMP/gpt2.json" --run gh --attention 1 --heads >/dev/null 2>&1 || rc=$?
$SP export --db $DM --run gh --what attention --heads --out "$TMP/gh.npy" 2>/dev/null || rc=$?
expect_eq "gpt2 --heads: 4 lower-triangular maps a sentence" "$rc:$("$PY" -c "
import numpy as np
h = np.load('$TMP/gh.npy')
print(h.shape[:2], float(np.abs(np.triu(h, 1)).max()) == 0.0)")" "0:(32, 4) True"
printf '{"kind": "hf", "model": "%s", "drop_sink": true}\n' "$(pwd)/$H/gpt2" >"$TMP/sink.json"
rc=0; $SP encode --device cpu --db $DM --corpus demo --encoder "$TMP/sink.json" --run sink --attention 1 >/dev/null 2>&1 || rc=$?
$SP export --db $DM --run sink --what attention --out "$TMP/sink.npy" 2>/dev/null || rc=$?
$SP export --db $DM --run gh --what attention --out "$TMP/gha.npy" 2>/dev/null || rc=$?
expect_eq "drop_sink: other maps, lower triangular, rows summing to 1, or 0 where a one-piece first word saw only the sink" "$rc:$("$PY" -c "
import numpy as np
a, d = np.load('$TMP/sink.npy'), np.load('$TMP/gha.npy')
r = a.sum(2)
print(float(np.abs(a - d).max()) > 1e-3, float(np.abs(np.triu(a, 1)).max()) == 0.0,
      bool(np.all((np.abs(r - 1) < 1e-5) | (r == 0))), bool((r[:, 0] == 0).any()), bool((d.sum(2)[:, 0] > 0.99).all()))")" \
    "0:True True True True True"

# a job file of the MiniLM jobs' shape with both decoders: every layer, trees, probes, a report
mkdir -p "$TMP/j"
cp demo/demo.conllu "$TMP/gpt2.json" "$TMP/llama.json" "$TMP/j/"
cat >"$TMP/j/job.json" <<'J'
{"store": "out/s.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "encoders": [{"config": "gpt2.json", "run": "gpt2", "layers": "all", "inputs": ["demo"], "token-vectors": true, "attention": 1},
              {"config": "llama.json", "run": "llama", "layers": "all", "inputs": ["demo"], "token-vectors": true, "attention": 1}],
 "trees": [{"dependency": true}], "tokprobes": [{"task": "upos", "seed": 1}],
 "reports": [{"format": "json", "out": "r.json"}]}
J
rc=0; $SP run --quiet "$TMP/j/job.json" >"$TMP/job.out" 2>&1 || rc=$?
expect_eq "a job with both decoders: exit 0, trees and a probe for each of their 6 layer runs" "$rc:$("$PY" -c "
import json
r = json.load(open('$TMP/j/out/r.json'))
print(sorted(x['run'] for x in r['tree_evals']) == sorted(x['run'] for x in r['probe_results']), len(r['tree_evals']))")" "0:True 6"

# add_bos: false drops Llama's <s>, true gives GPT-2 its <|endoftext|> first (other vectors)
printf '{"kind": "hf", "model": "%s", "add_bos": false}\n' "$(pwd)/$H/llama" >"$TMP/nobos.json"
printf '{"kind": "hf", "model": "%s", "add_bos": true, "sent_pool": "last"}\n' "$(pwd)/$H/gpt2" >"$TMP/bos.json"
for c in nobos bos; do
    rc=0; $SP encode --device cpu --db $DB --corpus ud --encoder "$TMP/$c.json" --run "$c" >"$TMP/enc-$c" 2>&1 || rc=$?
    expect_eq "add_bos ($c): encode exits 0" "$rc" 0
    $SP export --db $DB --corpus ud --run "$c" --what vectors --out "$TMP/$c-v.npy" 2>/dev/null
done
check "add_bos false: Llama's sentence vectors differ from the default's" same "$TMP/nobos-v.npy" "$TMP/llama-v2.npy" 1e-4 ne
check "add_bos true, sent_pool last: GPT-2's differ from the default's" same "$TMP/bos-v.npy" "$TMP/gpt2-v2.npy" 1e-4 ne

# bad folders: one line each
bad() {  # NAME FAMILY PYTHON-EDIT-OF-c (config.json as c): rc, lines
    rm -rf "$TMP/$1"; cp -r "$H/$2" "$TMP/$1"; rm -rf "$TMP/$1/ref"
    "$PY" -c "
import json, sys; p = sys.argv[1]; c = json.load(open(p)); $3; json.dump(c, open(p, 'w'))" "$TMP/$1/config.json"
    printf '{"kind": "hf", "model": "%s"}\n' "$TMP/$1" >"$TMP/$1.json"
    rc=0; $SP encode --device cpu --db $DM --corpus demo --encoder "$TMP/$1.json" --run "$1" >/dev/null 2>"$TMP/$1.err" || rc=$?
    lines=$(grep -c . "$TMP/$1.err" || true)
}
bad bloom gpt2 "c['model_type'] = 'bloom'"
check "model_type bloom: exit 1, one line listing the encoder and decoder families" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && \
    grep -q 'model_type: \"bloom\" (GPT2LMHeadModel) is not a family synprobe has (encoders: albert, .*; decoders: gemma, gpt2, gpt_neox, llama, mistral, opt, phi, qwen2)' $TMP/bloom.err"
bad yarn llama "c['rope_scaling'] = {'type': 'yarn', 'factor': 4.0}"
check "rope_scaling yarn: exit 1, one line naming the key" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'rope_scaling.type: \"yarn\" is not supported' $TMP/yarn.err"
bad kv3 llama "c['num_key_value_heads'] = 3"
check "num_key_value_heads 3 of 4 heads: exit 1, one line" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'num_key_value_heads: 3 does not divide num_attention_heads 4' $TMP/kv3.err"
bad act llama "c['hidden_act'] = 'gelu'"
check "llama hidden_act gelu: exit 1, one line" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'hidden_act: \"gelu\" is not supported' $TMP/act.err"
bad usw qwen2 "c['use_sliding_window'] = True"
check "qwen2 use_sliding_window true: exit 1, one line" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'use_sliding_window: true is not supported' $TMP/usw.err"
bad neoxrs gpt_neox "c['rope_scaling'] = {'type': 'linear', 'factor': 2.0}"
check "gpt_neox rope_scaling: exit 1, one line naming it" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'rope_scaling: not supported for gpt_neox' $TMP/neoxrs.err"
bad qkln phi "c['qk_layernorm'] = True"
check "phi qk_layernorm true: exit 1, one line naming it" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'qk_layernorm: true is not supported' $TMP/qkln.err"
bad hd llama "c['head_dim'] = 16"
check "llama head_dim 16 of hidden 32 / 4 heads (only Gemma's may differ): exit 1, one line naming it" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'head_dim: only hidden_size / num_attention_heads (8) is supported' $TMP/hd.err"
bad postln opt "c['do_layer_norm_before'] = False"
check "opt do_layer_norm_before false (opt-350m's post-LN): exit 1, one line" sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'do_layer_norm_before: false is not supported' $TMP/postln.err"
bad nobos llama "c.pop('bos_token_id')"
printf '{"kind": "hf", "model": "%s", "add_bos": true}\n' "$TMP/nobos" >"$TMP/nobos.json"
rc=0; $SP encode --device cpu --db $DM --corpus demo --encoder "$TMP/nobos.json" --run nb >/dev/null 2>"$TMP/nb.err" || rc=$?
check "add_bos true without a bos_token_id: exit 1, saying so" sh -c "[ $rc = 1 ] && grep -q 'add_bos: true, but .*config.json has no bos_token_id' $TMP/nb.err"
bad notok llama "pass"
rm "$TMP/notok/tokenizer.json"; : >"$TMP/notok/tokenizer.model"
rc=0; $SP encode --device cpu --db $DM --corpus demo --encoder "$TMP/notok.json" --run nt >/dev/null 2>"$TMP/nt.err" || rc=$?
check "a decoder folder without tokenizer.json: exit 1, one line saying how to write it" sh -c "[ $rc = 1 ] && \
    [ \$(grep -c . $TMP/nt.err) = 1 ] && grep -q 'tokenizer.json: cannot open (a decoder.s tokenizer is read from tokenizer.json, and tokenizer.model alone is not converted; AutoTokenizer' $TMP/nt.err"
# a missing tensor, named
bad miss llama "pass"
"$PY" - "$TMP/miss/model.safetensors" <<'PY'
import json, struct, sys
path = sys.argv[1]
raw = open(path, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
head, data = json.loads(raw[8:8 + n]), raw[8 + n:]
out, parts, off = {}, [], 0
for k, v in sorted(((k, v) for k, v in head.items() if k != "__metadata__"), key=lambda kv: kv[1]["data_offsets"][0]):
    if k == "model.layers.1.mlp.gate_proj.weight":
        continue
    b = data[v["data_offsets"][0]:v["data_offsets"][1]]
    out[k] = {"dtype": v["dtype"], "shape": v["shape"], "data_offsets": [off, off + len(b)]}
    parts.append(b)
    off += len(b)
h = json.dumps(out).encode()
open(path, "wb").write(struct.pack("<Q", len(h)) + h + b"".join(parts))
PY
rc=0; $SP encode --device cpu --db $DM --corpus demo --encoder "$TMP/miss.json" --run miss >/dev/null 2>"$TMP/miss.err" || rc=$?
check "a missing tensor: exit 1, naming it" sh -c "[ $rc = 1 ] && grep -q 'layers.1.mlp.gate_proj.weight' $TMP/miss.err"
sed 's/^/# /' "$TMP/miss.err" | head -3
done_testing
