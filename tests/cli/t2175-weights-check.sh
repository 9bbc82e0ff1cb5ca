# t2175-weights-check.sh — synprobe weights check: a file with exactly a config's tensors fits; every problem is listed
# tier: fast
# Issue 25 item 5. For one small config of each kind (san with structural relative positions and
# seq+struct PE, ssan, sg-net with the code aggregation, ms-san, psan with an input projection)
# tests/reference/weights_ref.py writes a safetensors file with the tensors schemas/encoder-weights.md
# lists (names and shapes derived there, not from the C code) → exit 0. Then one file with one
# missing, one extra, one mis-shaped, one F16 and one NaN tensor → exit 1, each problem on its own
# line naming its tensor, with the expected and found shapes; --json lists the same five; a truncated
# file → exit 1 naming the file and the tensor that does not fit; usage errors → 2. bert: the tiny
# BertModel of make_tiny_bert.py fits (pooler and position_ids ignored), with "bert." prefixes too;
# a mis-shaped Linear is reported in the file's [out, in] layout.
# Before this change `synprobe weights` did not exist (exit 2, unknown command).
. tests/cli/lib.sh
need_numpy
REF=tests/reference/weights_ref.py

cfg() { printf '%s\n' "$2" >"$TMP/$1.json"; }
cfg san   '{"kind": "san", "d_model": 8, "heads": 2, "layers": 2, "d_ff": 12, "rel_pos": "struct+seq", "rel_clip": 3, "rel_seq_clip": 2, "position": "seq+struct", "f_abs": "tanh"}'
cfg ssan  '{"kind": "ssan", "d_model": 8, "heads": 2, "layers": 3, "d_ff": 12, "selective_layers": [0, 2]}'
cfg sgnet '{"kind": "sg-net", "d_model": 8, "heads": 2, "layers": 1, "d_ff": 12, "norm": "pre", "sgnet_aggregation": "code"}'
cfg mssan '{"kind": "ms-san", "d_model": 12, "heads": 6, "layers": 2, "d_ff": 10, "pool_d_h": 7}'
cfg psan  '{"kind": "psan", "d_model": 8, "d_input": 5, "levels": 2}'

for k in san ssan sgnet mssan psan; do
    "$PY" $REF write "$TMP/$k.json" "$TMP/$k.safetensors"
    n=$("$PY" $REF expected "$TMP/$k.json" | wc -l)
    rc=0; "$SP" weights check "$TMP/$k.json" "$TMP/$k.safetensors" >"$TMP/out" 2>"$TMP/err" || rc=$?
    expect_eq "$k: a file with exactly the spec's $n tensors fits (exit 0)" "$rc" 0
    check "$k: it says so, with the count" grep -q "$k.safetensors fits .*: $n tensors$" "$TMP/out"
done

# ---- one file, five problems ----
"$PY" $REF write "$TMP/san.json" "$TMP/bad.safetensors" drop=layers.1.ffn.w2.bias extra=layers.2.attn.q.weight:8,8 \
    shape=layers.0.attn.rel_k_struct:5,4 dtype=layers.0.ln1.weight:F16 nan=layers.1.attn.v.weight
rc=0; "$SP" weights check "$TMP/san.json" "$TMP/bad.safetensors" >"$TMP/out" 2>"$TMP/err" || rc=$?
expect_eq "five problems: exit 1" "$rc" 1
check "missing: named, with its expected shape [8]" grep -qF "tensor layers.1.ffn.w2.bias: missing tensor (expected shape [8])" "$TMP/out"
check "unexpected: named, with its dtype and shape" grep -qF "tensor layers.2.attn.q.weight: unexpected tensor (F32 [8,8];" "$TMP/out"
check "mis-shaped: expected [2*3+1, 8/2] = [7,4], found [5,4]" grep -qF "tensor layers.0.attn.rel_k_struct: shape [5,4], expected [7,4]" "$TMP/out"
check "wrong dtype: F16, expected F32" grep -qF "tensor layers.0.ln1.weight: dtype F16 is not supported (expected F32)" "$TMP/out"
check "NaN: element [0,0] of layers.1.attn.v.weight" grep -qF "tensor layers.1.attn.v.weight: element [0,0] is NaN" "$TMP/out"
expect_eq "one line per problem and a summary line" "$(wc -l <"$TMP/out" | tr -d ' ')" 6
check "the summary counts them" grep -qF "5 problems (1 missing, 1 unexpected, 1 mis-shaped, 1 of another dtype, 1 not finite)" "$TMP/out"

rc=0; "$SP" weights check --json "$TMP/san.json" "$TMP/bad.safetensors" >"$TMP/j" 2>"$TMP/err" || rc=$?
expect_eq "--json: exit 1 too" "$rc" 1
check "--json: the five problems, each with its tensor and shapes" "$PY" - "$TMP/j" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["fits"] is False and j["kind"] == "san", j
got = {(p["problem"], p["tensor"]) for p in j["problems"]}
want = {("missing", "layers.1.ffn.w2.bias"), ("unexpected", "layers.2.attn.q.weight"), ("shape", "layers.0.attn.rel_k_struct"),
        ("dtype", "layers.0.ln1.weight"), ("nonfinite", "layers.1.attn.v.weight")}
assert got == want, got
by = {p["problem"]: p for p in j["problems"]}
assert by["shape"]["expected_shape"] == [7, 4] and by["shape"]["found_shape"] == [5, 4], by["shape"]
assert by["missing"]["expected_shape"] == [8], by["missing"]
assert by["dtype"]["found_dtype"] == "F16" and by["dtype"]["expected_dtype"] == "F32", by["dtype"]
PYEOF

# ms-san has no attention biases (P0 Eq. 2): a file that gives one has an unexpected tensor
"$PY" $REF write "$TMP/mssan.json" "$TMP/msb.safetensors" extra=layers.0.attn.q.bias:12
rc=0; "$SP" weights check "$TMP/mssan.json" "$TMP/msb.safetensors" >"$TMP/out" 2>&1 || rc=$?
expect_eq "ms-san with an attention bias: exit 1" "$rc" 1
check "ms-san: the bias is unexpected" grep -qF "tensor layers.0.attn.q.bias: unexpected tensor" "$TMP/out"

# ---- files that are no weights file ----
"$PY" $REF write "$TMP/san.json" "$TMP/trunc.safetensors" truncate=5
rc=0; "$SP" weights check "$TMP/san.json" "$TMP/trunc.safetensors" >"$TMP/out" 2>"$TMP/err" || rc=$?
expect_eq "truncated file: exit 1" "$rc" 1
check "truncated file: the message names the file and says truncated" grep -q "trunc.safetensors: tensor .*data ends at byte .*(truncated file?)" "$TMP/err"
printf 'hello' >"$TMP/short.safetensors"
rc=0; "$SP" weights check "$TMP/san.json" "$TMP/short.safetensors" >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "a 5-byte file: exit 1" "$rc" 1
check "a 5-byte file: not a safetensors file" grep -q "short.safetensors: not a safetensors file" "$TMP/err"
rc=0; "$SP" weights check "$TMP/san.json" >/dev/null 2>&1 || rc=$?
expect_eq "check without a file: usage (2)" "$rc" 2
rc=0; "$SP" weights frob >/dev/null 2>&1 || rc=$?
expect_eq "an unknown subcommand: usage (2)" "$rc" 2
printf '{"kind": "san", "d_model": 7, "heads": 2}\n' >"$TMP/badcfg.json"
rc=0; "$SP" weights check "$TMP/badcfg.json" "$TMP/san.safetensors" >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "a bad config: exit 1" "$rc" 1
check "a bad config: the field is named" grep -q "badcfg.json: heads" "$TMP/err"

# ---- bert: the Hugging Face names, [out, in] Linear weights ----
"$PY" tests/reference/make_tiny_bert.py "$TMP/m" 13
printf '{"kind": "bert", "model": "%s"}\n' "$TMP/m" >"$TMP/bert.json"
n=$("$PY" $REF expected "$TMP/bert.json" | wc -l)
rc=0; "$SP" weights check "$TMP/bert.json" "$TMP/m/model.safetensors" >"$TMP/out" 2>&1 || rc=$?
expect_eq "bert: the tiny BertModel's own file fits" "$rc" 0
check "bert: $n tensors (docs/spec/models.md M3.2), the pooler and position_ids ignored" \
    sh -c 'grep -q "fits .*: $1 tensors" "$2" && grep -q "3 tensors ignored" "$2"' - "$n" "$TMP/out"
"$PY" $REF write "$TMP/bert.json" "$TMP/bp.safetensors" prefix=bert. dtype=embeddings.LayerNorm.weight:BF16
rc=0; "$SP" weights check "$TMP/bert.json" "$TMP/bp.safetensors" >"$TMP/out" 2>&1 || rc=$?
expect_eq "bert: names with a bert. prefix and a BF16 tensor fit" "$rc" 0
"$PY" $REF write "$TMP/bert.json" "$TMP/bs.safetensors" shape=encoder.layer.0.intermediate.dense.weight:8,16 \
    dtype=encoder.layer.1.output.dense.bias:I32
rc=0; "$SP" weights check "$TMP/bert.json" "$TMP/bs.safetensors" >"$TMP/out" 2>&1 || rc=$?
expect_eq "bert: a transposed Linear and an I32 bias: exit 1" "$rc" 1
check "bert: the Linear's expected shape is [out, in] = [16,8]" \
    grep -qF "tensor encoder.layer.0.intermediate.dense.weight: shape [8,16], expected [16,8]" "$TMP/out"
check "bert: I32 is refused, F16 and BF16 named as readable" \
    grep -qF "tensor encoder.layer.1.output.dense.bias: dtype I32 is not supported (expected F32, F16 or BF16)" "$TMP/out"
"$PY" $REF write "$TMP/bert.json" "$TMP/b2.safetensors" extra=bert.embeddings.LayerNorm.weight:8
rc=0; "$SP" weights check "$TMP/bert.json" "$TMP/b2.safetensors" >"$TMP/out" 2>&1 || rc=$?
expect_eq "bert: one tensor under two names (bert.X and X): exit 1" "$rc" 1
check "bert: the second is named, with the name it became" \
    grep -qF "given twice (as embeddings.LayerNorm.weight after renaming)" "$TMP/out"
done_testing
