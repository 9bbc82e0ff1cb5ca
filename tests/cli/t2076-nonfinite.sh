# t2076-nonfinite.sh — non-finite numbers in weights, embeddings and inputs are refused or caught
# tier: fast
# Non-finite numbers never flow through silently (issue 10, item 8).
# Weights (safetensors) and embeddings (GloVe text) with Inf/NaN are refused at load, naming the
# tensor element or the file line; finite weights so large that the encoder overflows are caught
# on its outputs; probe, trees and structprobe refuse NaN/Inf inputs with exit 1 and store nothing.
# Before the fix each of these exited 0 (probe stored the majority accuracy, trees an F1).
. tests/cli/lib.sh
need_numpy
"$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>&1
DB=$TMP/d/demo.db
q() { $PY -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }
printf '{"kind": "san", "d_model": 8, "heads": 2, "layers": 1, "d_ff": 16}\n' >"$TMP/small.json"

# ---- weights ----
"$SP" encode --db "$DB" --corpus demo --encoder "$TMP/small.json" --run ok --save-weights "$TMP/w.safetensors" --quiet >/dev/null
# set_tensor FILE OUT NAME INDEX VALUE ('*' = every element of every tensor)
set_tensor() { $PY - "$@" <<'PYEOF'
import json, struct, sys
src, dst, name, idx, val = sys.argv[1:6]
b = bytearray(open(src, 'rb').read())
hl = struct.unpack('<Q', b[:8])[0]
hdr = json.loads(b[8:8 + hl])
for k, t in hdr.items():
    if k == '__metadata__' or (name != '*' and k != name): continue
    b0, b1 = t['data_offsets']
    for i in (range((b1 - b0) // 4) if idx == '*' else [int(idx)]):
        struct.pack_into('<f', b, 8 + hl + b0 + 4 * i, float(val))
open(dst, 'wb').write(b)
PYEOF
}
set_tensor "$TMP/w.safetensors" "$TMP/inf.safetensors" layers.0.ffn.w1.weight 17 inf
runs0=$(q "$DB" "SELECT count(*) FROM run")
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/small.json" --run inf --weights "$TMP/inf.safetensors" --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "weights with an Inf: exit 1" "$rc" 1
check "weights with an Inf: the message names the tensor and element [1,1] (17 = 1*16 + 1)" \
  grep -q "inf.safetensors: tensor layers.0.ffn.w1.weight: element \[1,1\] is infinite" "$TMP/err"
set_tensor "$TMP/w.safetensors" "$TMP/nan.safetensors" layers.0.attn.q.bias 3 nan
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/small.json" --run nan --weights "$TMP/nan.safetensors" --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "weights with a NaN: exit 1" "$rc" 1
check "weights with a NaN: the message names the tensor and element [3]" grep -q "layers.0.attn.q.bias: element \[3\] is NaN" "$TMP/err"

# finite but huge: LayerNorm's beta + gamma * (x - mean) / sd overflows float32
set_tensor "$TMP/w.safetensors" "$TMP/huge.safetensors" '*' '*' 3e38
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/small.json" --run huge --weights "$TMP/huge.safetensors" --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "weights that overflow the encoder: exit 1" "$rc" 1
check "weights that overflow the encoder: the outputs are named" grep -q "holds NaN or infinite values" "$TMP/err"
expect_eq "no vector of a refused run is stored" "$(q "$DB" "SELECT count(*) FROM run r JOIN run_item USING (run_id) WHERE r.name IN ('inf','nan','huge')")" 0

# ---- embeddings ----
printf 'the 0 0 0 0 nan 0 0 0\n' >"$TMP/emb.txt"
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/small.json" --run emb --embeddings "$TMP/emb.txt" --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "embeddings with a NaN: exit 1" "$rc" 1
check "embeddings with a NaN: file:line and field" grep -q "emb.txt:1: field 6: expected a finite number, got \"nan\"" "$TMP/err"
printf 'the 0 0 0 0 0 0 0 -inf\n' >"$TMP/emb.txt"
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/small.json" --run emb --embeddings "$TMP/emb.txt" --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "embeddings with -inf: exit 1" "$rc" 1

# ---- probe ----
printf 'tr\ta\tx\ntr\tb\tx\ntr\ta\tx\ntr\tb\tx\nva\ta\tx\nva\tb\tx\nte\ta\tx\nte\tb\tx\n' >"$TMP/task.txt"
for v in nan inf; do
    $PY -c "import numpy as np,sys; X=np.eye(8, 4, dtype=np.float32); X[5,2]=float(sys.argv[2]); np.save(sys.argv[1], X)" "$TMP/X$v.npy" $v
    rc=0; "$SP" probe --task-file "$TMP/task.txt" --vectors "$TMP/X$v.npy" --save "$TMP/p.db" --quiet >/dev/null 2>"$TMP/err" || rc=$?
    expect_eq "probe with a $v vector component: exit 1" "$rc" 1
    check "probe with $v: the message names row 5, column 2" grep -q "X$v.npy: row 5, column 2 (0-based)" "$TMP/err"
done
check "probe: nothing stored" sh -c "[ ! -e '$TMP/p.db' ] || [ \"\$($PY -c \"import sqlite3; print(sqlite3.connect('$TMP/p.db').execute('SELECT count(*) FROM probe_result').fetchone()[0])\")\" = 0 ]"

# ---- trees ----
ev0=$(q "$DB" "SELECT count(*) FROM tree_eval")
$PY -c "import numpy as np,sys; A=np.ones((32,64,64),np.float32); A[:, 1, 0]=np.nan; np.save(sys.argv[1], A)" "$TMP/Anan.npy"
rc=0; "$SP" trees --db "$DB" --corpus demo --attention "$TMP/Anan.npy" --json >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "trees with a NaN attention map: exit 1" "$rc" 1
check "trees: the message names the sentence and the cell" grep -q "Anan.npy: sentence [0-9]*, attention\[1\]\[0\] (0-based) is NaN" "$TMP/err"
expect_eq "trees: nothing stored" "$(q "$DB" "SELECT count(*) FROM tree_eval")" "$ev0"
$PY -c "import numpy as np,sys; np.save(sys.argv[1], np.ones((32,64,64),np.float32))" "$TMP/Aok.npy"
rc=0; "$SP" trees --db "$DB" --corpus demo --attention "$TMP/Aok.npy" --json >/dev/null 2>&1 || rc=$?
expect_eq "trees with a finite attention map of the same shape: exit 0" "$rc" 0

# ---- structprobe ----
ev0=$(q "$DB" "SELECT count(*) FROM tree_eval")
$PY -c "import numpy as np,sys; D=np.ones((32,64,64)); D[0,0,1]=np.inf; np.save(sys.argv[1], D)" "$TMP/Dinf.npy"
rc=0; "$SP" structprobe --db "$DB" --corpus demo --distances "$TMP/Dinf.npy" --json >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "structprobe with an infinite distance: exit 1" "$rc" 1
check "structprobe: the message names sentence 1, distance[0][1]" grep -q "Dinf.npy: sentence 1, distance\[0\]\[1\] (0-based) is infinite" "$TMP/err"
$PY -c "import numpy as np,sys; P=np.zeros((32,64)); P[2,3]=np.nan; np.save(sys.argv[1], P)" "$TMP/Pnan.npy"
rc=0; "$SP" structprobe --db "$DB" --corpus demo --depths "$TMP/Pnan.npy" --json >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "structprobe with a NaN depth: exit 1" "$rc" 1
check "structprobe: the message names sentence 3, depth[3]" grep -q "Pnan.npy: sentence 3, depth\[3\] (0-based) is NaN" "$TMP/err"
expect_eq "structprobe: nothing stored" "$(q "$DB" "SELECT count(*) FROM tree_eval")" "$ev0"
done_testing
