# t2198-nonfinite.sh — f16 overflow is refused (or saturated on request); every probe refuses non-finite stored vectors
# tier: fast
# Issue 40 item 5. encode --store-dtype f16 once stored +-inf for values beyond 65504 (exit 0) and
# tokprobe trained on them. Weights are hand-scaled here (LayerNorm gamma x 30000 / x 1e5, so
# some outputs pass 65504): encode must exit 1 naming the corpus, the sentence, the run and the
# layer, with no run left behind even when earlier batches were written; --store-overflow
# saturate keeps the run with those values at +-65504, as many as the f32 run of the same
# weights holds beyond f16's range (counted with NumPy from an f32 export, not by synprobe), and
# under its own fingerprint. Then NaN and inf planted with Python's sqlite3 into stored f32 and
# f16 blobs (bypassing encode, as an older version or a merged shard could leave them) must make
# probe, tokprobe, structprobe, trees and export exit 1 naming the run, the item, its sentence
# and the element, storing nothing. Before the fix every one of these exited 0.
. tests/cli/lib.sh
need_numpy
"$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>&1
DB=$TMP/d/demo.db
q() { $PY -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }
printf '{"kind": "san", "d_model": 8, "heads": 2, "layers": 1, "d_ff": 16, "seed": 3}\n' >"$TMP/s8.json"
"$SP" encode --db "$DB" --corpus demo --encoder "$TMP/s8.json" --run w --save-weights "$TMP/w.safetensors" --quiet >/dev/null
# scale FILE OUT FACTOR NAME...: every element of the named tensors times FACTOR
scale() { $PY - "$@" <<'PYEOF'
import json, struct, sys
src, dst, f = sys.argv[1], sys.argv[2], float(sys.argv[3])
b = bytearray(open(src, 'rb').read())
hl = struct.unpack('<Q', b[:8])[0]
hdr = json.loads(b[8:8 + hl])
for name in sys.argv[4:]:
    b0, b1 = hdr[name]['data_offsets']
    for i in range((b1 - b0) // 4):
        o = 8 + hl + b0 + 4 * i
        struct.pack_into('<f', b, o, struct.unpack_from('<f', b, o)[0] * f)
open(dst, 'wb').write(b)
PYEOF
}
scale "$TMP/w.safetensors" "$TMP/tok.safetensors" 30000 layers.0.ln2.weight
scale "$TMP/w.safetensors" "$TMP/all.safetensors" 1e5 layers.0.ln1.weight layers.0.ln2.weight layers.0.ln2.bias
runs0=$(q "$DB" "SELECT count(*) FROM run")
items0=$(q "$DB" "SELECT count(*) FROM run_item")

# ---- encode: refused, naming corpus, sentence, run and layer ----
for v in "tok --token-vectors --batch-tokens 12" "all --batch-tokens 100000"; do
    set -- $v; w=$1; shift
    rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/s8.json" --run "f-$w" --weights "$TMP/$w.safetensors" \
        --store-dtype f16 "$@" --quiet >/dev/null 2>"$TMP/err-$w" || rc=$?
    expect_eq "f16 overflow ($w): exit 1" "$rc" 1
    check "f16 overflow ($w): corpus, sentence, input, run and layer named" \
        grep -q "corpus demo, sentence demo-[0-9]* (input [0-9]*), run 'f-$w', layer 1 (the encoder's output): the encoder's" "$TMP/err-$w"
    check "f16 overflow ($w): the value and f16's range named" grep -q "beyond f16's range (+-65504), the first -\?[0-9.e+]* at" "$TMP/err-$w"
    check "f16 overflow ($w): the value named is beyond 65504" $PY -c "
import re, sys
m = re.search(r'the first (\S+) at', open('$TMP/err-$w').read())
assert m and abs(float(m.group(1))) >= 65504, m and m.group(1)"
    expect_eq "f16 overflow ($w): the run is not kept" "$(q "$DB" "SELECT count(*) FROM run WHERE name = 'f-$w'")" 0
done
check "f16 overflow (token vectors): later batches failed (a batch was written before it)" \
    test "$(q "$DB" "SELECT count(*) FROM vector v JOIN encoder e USING (encoder_id) WHERE e.store_dtype = 'f16'")" -gt 0
check "f16 overflow (token vectors): token, component named" grep -q "token vectors: [0-9]* values\? beyond .* at token [0-9]*, component [0-9]*" "$TMP/err-tok"
expect_eq "no run item of a refused run is left" "$(q "$DB" "SELECT count(*) FROM run_item")" "$items0"
expect_eq "no run row is left" "$(q "$DB" "SELECT count(*) FROM run")" "$runs0"

# ---- saturate on request ----
"$SP" encode --db "$DB" --corpus demo --encoder "$TMP/s8.json" --run t32 --weights "$TMP/tok.safetensors" --token-vectors --quiet
"$SP" export --db "$DB" --run t32 --what tokens --out "$TMP/t32.npy" --quiet
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/s8.json" --run t16 --weights "$TMP/tok.safetensors" --token-vectors \
    --store-dtype f16 --store-overflow saturate --json >"$TMP/sat.json" 2>"$TMP/err" || rc=$?
expect_eq "--store-overflow saturate: exit 0" "$rc" 0
check "--store-overflow saturate: the count is logged" grep -q "t16: [0-9]* values beyond f16's range clamped to +-65504" "$TMP/err"
"$SP" export --db "$DB" --run t16 --what tokens --out "$TMP/t16.npy" --quiet
check "saturate: as many values clamped as the f32 run holds beyond f16's range, each +-65504" $PY -c "
import json, numpy as np
a, b = np.load('$TMP/t32.npy'), np.load('$TMP/t16.npy')
over = np.abs(a) >= 65520                       # rounds to inf in f16: 65504 + half a step of 32
n = int(over.sum())
assert n > 0, 'the weights overflow nothing'
assert json.load(open('$TMP/sat.json'))['saturated'] == n, (open('$TMP/sat.json').read(), n)
assert np.all(np.isfinite(b)) and np.abs(b).max() == 65504
assert np.all(b[over] == np.sign(a[over]) * 65504)
ok = ~over
assert np.all(b[ok] == a[ok].astype(np.float16).astype(np.float32))"
expect_eq "saturate: the manifest records the count" \
    "$(q "$DB" "SELECT json_extract(manifest, '$.saturated') FROM run WHERE name = 't16'")" "$($PY -c "import json; print(json.load(open('$TMP/sat.json'))['saturated'])")"
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/s8.json" --run t16e --weights "$TMP/tok.safetensors" --token-vectors \
    --store-dtype f16 --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "after a saturated run, the same encoder without saturate still refuses (no clamped cache reused)" "$rc" 1

# ---- probes refuse non-finite stored values ----
CFG=$TMP/c12.json
printf '{"kind": "san", "d_model": 12, "heads": 3, "layers": 2, "d_ff": 24, "seed": 5}\n' >"$CFG"
"$SP" tasks build --db "$DB" --corpus demo --tasks Tense --split resplit --quiet >/dev/null 2>&1
"$SP" encode --db "$DB" --corpus demo --encoder "$CFG" --run c --token-vectors --attention 1 --quiet
"$SP" encode --db "$DB" --task Tense --encoder "$CFG" --run s --quiet
"$SP" encode --db "$DB" --corpus demo --encoder "$CFG" --run h --token-vectors --store-dtype f16 --quiet
# plant DB RUN ORDINAL TABLE.COLUMN ELEMENT VALUE: one element of the item's blob (f32, or f16 for run h)
plant() { $PY - "$@" <<'PYEOF'
import sqlite3, struct, sys
db, run, ordinal, col, el, val = sys.argv[1:7]
c = sqlite3.connect(db)
enc, h = c.execute("SELECT r.encoder_id, i.text_hash FROM run r JOIN run_item i USING (run_id) WHERE r.name = ? AND i.ordinal = ?",
                   (run, int(ordinal))).fetchone()
dt = c.execute("SELECT store_dtype FROM encoder WHERE encoder_id = ?", (enc,)).fetchone()[0]
table, column = col.split('.')
extra = " AND layer = 1" if table == 'attention' else ""
b = bytearray(c.execute("SELECT %s FROM %s WHERE encoder_id = ? AND text_hash = ?%s" % (column, table, extra), (enc, h)).fetchone()[0])
if dt == 'f16':
    struct.pack_into('<e', b, 2 * int(el), float(val))
else:
    struct.pack_into('<f', b, 4 * int(el), float(val))
c.execute("UPDATE %s SET %s = ? WHERE encoder_id = ? AND text_hash = ?%s" % (table, column, extra), (bytes(b), enc, h))
c.commit()
PYEOF
}
sent_of() { q "$DB" "SELECT s.sent_id FROM run r JOIN run_item i USING (run_id) JOIN sentence s USING (sentence_id) WHERE r.name = '$1' AND i.ordinal = $2"; }
res0=$(q "$DB" "SELECT count(*) FROM probe_result")
ev0=$(q "$DB" "SELECT count(*) FROM tree_eval")

# a task item's sentence vector: NaN at component 3 of item 5
plant "$DB" s 5 vector.data 3 nan
rc=0; "$SP" probe --db "$DB" --task Tense --run s --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "probe on a NaN sentence vector: exit 1" "$rc" 1
check "probe: run, item, sentence and component named" \
    grep -q "run 's', layer 2 (the encoder's last) (f32 of task Tense), item 5 (sentence $(sent_of s 5)): sentence vector component 3 (0-based) is NaN" "$TMP/err"
expect_eq "probe: nothing stored" "$(q "$DB" "SELECT count(*) FROM probe_result")" "$res0"

# a corpus item's token vectors: +inf at token 1, component 5 of item 7 (12-dim: element 17)
plant "$DB" c 7 vector.tokens 17 inf
for cmd in tokprobe structprobe; do
    rc=0; "$SP" $cmd --db "$DB" --corpus demo --run c --quiet >/dev/null 2>"$TMP/err" || rc=$?
    expect_eq "$cmd on an infinite token vector: exit 1" "$rc" 1
    check "$cmd: run, item, sentence and element named" \
        grep -q "run 'c', layer 2 (the encoder's last) (f32 of corpus demo), item 7 (sentence $(sent_of c 7)): token vectors token 1, component 5 (0-based) is infinite" "$TMP/err"
done
expect_eq "tokprobe, structprobe: nothing stored" "$(q "$DB" "SELECT count(*) FROM probe_result")" "$res0"

# an attention map: -inf at [0][1] of item 9 (row-major: element 1)
plant "$DB" c 9 attention.data 1 -inf
rc=0; "$SP" trees --db "$DB" --corpus demo --run c --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "trees on an infinite attention weight: exit 1" "$rc" 1
check "trees: the run, item and cell named" grep -q "run 'c', layer 2 (the encoder's last) (f32 of corpus demo), item 9 (sentence $(sent_of c 9)): attention map \[0\]\[1\] (0-based) is infinite" "$TMP/err"
expect_eq "trees: nothing stored" "$(q "$DB" "SELECT count(*) FROM tree_eval")" "$ev0"
rc=0; "$SP" export --db "$DB" --run c --what attention --out "$TMP/a.npy" 2>"$TMP/err" || rc=$?
expect_eq "export of a run holding -inf: exit 1, no file" "$rc:$(test -e "$TMP/a.npy" && echo file)" "1:"

# an f16 store holding inf (what the unchecked encode wrote): tokprobe trained on it before
plant "$DB" h 2 vector.tokens 0 inf
rc=0; "$SP" tokprobe --db "$DB" --corpus demo --run h --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "tokprobe on an f16 run holding inf: exit 1" "$rc" 1
check "tokprobe on f16: the type, run and item named" grep -q "run 'h', layer 2 (the encoder's last) (f16 of corpus demo), item 2 (sentence $(sent_of h 2)): token vectors token 0, component 0 (0-based) is infinite" "$TMP/err"
expect_eq "tokprobe on f16: nothing stored" "$(q "$DB" "SELECT count(*) FROM probe_result")" "$res0"
rc=0; "$SP" tokprobe --db "$DB" --corpus demo --run t16 --quiet >/dev/null 2>&1 || rc=$?
expect_eq "tokprobe on the saturated (finite) f16 run: exit 0" "$rc" 0

# a layer run of a bert model (encode --layers): the message names its layer
if [ -d "$MODELS/all-MiniLM-L6-v2" ]; then
    printf '{"kind": "bert", "model": "%s"}\n' "$(cd "$MODELS/all-MiniLM-L6-v2" && pwd)" >"$TMP/minilm.json"
    "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/minilm.json" --run m --layers 1,4 --token-vectors --threads 1 --quiet
    plant "$DB" m-L4 11 vector.tokens 770 nan        # 384-dim: token 2, component 2
    rc=0; "$SP" structprobe --db "$DB" --corpus demo --run m-L4 --quiet >/dev/null 2>"$TMP/err" || rc=$?
    expect_eq "structprobe on a bert layer run holding NaN: exit 1" "$rc" 1
    check "structprobe on a bert layer run: its layer named" \
        grep -q "run 'm-L4', layer 4 (f32 of corpus demo), item 11 (sentence $(sent_of m-L4 11)): token vectors token 2, component 2 (0-based) is NaN" "$TMP/err"
    rc=0; "$SP" structprobe --db "$DB" --corpus demo --run m-L1 --quiet --no-save >/dev/null 2>&1 || rc=$?
    expect_eq "structprobe on the other layer of the same pass (no NaN): exit 0" "$rc" 0
else
    skip "no MiniLM in \$MODELS (make models): the bert layer-run message"
fi
done_testing
