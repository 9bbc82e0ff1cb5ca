# t2176-weights-load.sh — what weights check accepts, encode --weights loads; what it refuses, encode refuses with the same words
# tier: fast
# Issue 25 item 5: the check and the loaders share one definition of a config's tensors, so they
# cannot disagree. For each SAN-family kind: a file written by tests/reference/weights_ref.py
# (the tensors of schemas/encoder-weights.md) passes `weights check` and loads in `encode
# --weights` (exit 0), and its vectors are not the seeded ones (the file was read); a file
# `encode --save-weights` wrote passes the check; each of five broken files (a tensor missing, one
# extra, one mis-shaped, one F16, one NaN) is refused by both, and encode's message is the check's
# line for that tensor. bert: the model directory's file, broken the same ways, is refused by the
# check and by encode (the same line), and the intact one loads.
# Before this change `synprobe weights` did not exist (exit 2).
. tests/cli/lib.sh
need_numpy
REF=tests/reference/weights_ref.py
"$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>&1
DB=$TMP/d/demo.db
q() { "$PY" -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }

cfg() { printf '%s\n' "$2" >"$TMP/$1.json"; }
cfg san   '{"kind": "san", "d_model": 8, "heads": 2, "layers": 2, "d_ff": 12, "rel_pos": "struct", "rel_clip": 3, "position": "seq+struct"}'
cfg ssan  '{"kind": "ssan", "d_model": 8, "heads": 2, "layers": 2, "d_ff": 12, "selective_layers": [1]}'
cfg sgnet '{"kind": "sg-net", "d_model": 8, "heads": 2, "layers": 1, "d_ff": 12, "sgnet_aggregation": "code"}'
cfg mssan '{"kind": "ms-san", "d_model": 12, "heads": 6, "layers": 1, "d_ff": 10}'
cfg psan  '{"kind": "psan", "d_model": 8, "d_input": 5, "levels": 2}'

# encode K RUN FILE: exit status in $rc, stderr in $TMP/err
encode() { rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/$1.json" --run "$2" --weights "$3" --quiet >/dev/null 2>"$TMP/err" || rc=$?; }

for k in san ssan sgnet mssan psan; do
    "$PY" $REF write "$TMP/$k.json" "$TMP/$k.safetensors"
    c=0; "$SP" weights check "$TMP/$k.json" "$TMP/$k.safetensors" >/dev/null 2>&1 || c=$?
    encode $k "$k-file" "$TMP/$k.safetensors"
    expect_eq "$k: check accepts the spec's file (0) and encode --weights loads it (0)" "$c $rc" "0 0"
    rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/$k.json" --run "$k-seeded" --save-weights "$TMP/$k.saved" --quiet >/dev/null 2>&1 || rc=$?
    c=0; "$SP" weights check "$TMP/$k.json" "$TMP/$k.saved" >/dev/null 2>&1 || c=$?
    expect_eq "$k: a file encode --save-weights wrote passes the check" "$rc $c" "0 0"
    check "$k: the file's vectors are not the seeded run's (the file was read)" "$PY" - "$DB" "$k" <<'PYEOF'
import sqlite3, sys
db, k = sqlite3.connect(sys.argv[1]), sys.argv[2]
def vecs(run):
    return [r[0] for r in db.execute("SELECT v.data FROM run r JOIN run_item i ON i.run_id = r.run_id JOIN vector v "
                                     "ON v.encoder_id = r.encoder_id AND v.text_hash = i.text_hash WHERE r.name = ? "
                                     "ORDER BY i.ordinal", (run,))]
a, b = vecs(k + "-file"), vecs(k + "-seeded")
assert a and len(a) == len(b) and all(x != y for x, y in zip(a, b)), (len(a), len(b))
PYEOF
done

# one problem per file: both refuse, with the same line
n=0
for edit in drop=layers.0.ffn.w1.bias extra=layers.9.attn.q.weight:8,8 shape=layers.1.attn.rel_v_struct:7,8 \
            dtype=layers.0.attn.k.weight:F16 nan=layers.1.ffn.w2.weight; do
    n=$((n+1))
    "$PY" $REF write "$TMP/san.json" "$TMP/bad$n.safetensors" "$edit"
    c=0; "$SP" weights check "$TMP/san.json" "$TMP/bad$n.safetensors" >"$TMP/out" 2>&1 || c=$?
    runs0=$(q "$DB" "SELECT count(*) FROM run")
    encode san "bad$n" "$TMP/bad$n.safetensors"
    expect_eq "san, $edit: check refuses (1) and encode --weights fails (1)" "$c $rc" "1 1"
    line=$(head -n 1 "$TMP/out")
    check "san, $edit: encode's message is the check's line ($line)" grep -qF "$line" "$TMP/err"
    expect_eq "san, $edit: no run stored" "$(q "$DB" "SELECT count(*) FROM run")" "$runs0"
done

# ---- bert: the model directory's file ----
"$PY" tests/reference/make_tiny_bert.py "$TMP/m" 13
printf '{"kind": "bert", "model": "m"}\n' >"$TMP/bert.json"
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/bert.json" --run bert-ok --quiet >/dev/null 2>&1 || rc=$?
c=0; "$SP" weights check "$TMP/bert.json" "$TMP/m/model.safetensors" >/dev/null 2>&1 || c=$?
expect_eq "bert: the intact model passes the check and loads" "$c $rc" "0 0"
printf '{"kind": "bert", "model": "%s"}\n' "$TMP/m" >"$TMP/bert-abs.json"
# a config with a base: its input width is the base's (8, the tiny BERT's hidden size), as encode reads it
printf '{"kind": "psan", "d_model": 6, "levels": 1, "base": "bert.json"}\n' >"$TMP/pbase.json"
"$SP" weights list --quiet "$TMP/pbase.json" >"$TMP/out" 2>&1
check "base: input.proj.weight is [8,6] (the base's width 8 into d_model 6)" grep -q "^input.proj.weight  *\[8,6\]" "$TMP/out"
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/pbase.json" --run pbase --save-weights "$TMP/pbase.st" --quiet >/dev/null 2>&1 || rc=$?
c=0; "$SP" weights check "$TMP/pbase.json" "$TMP/pbase.st" >/dev/null 2>&1 || c=$?
expect_eq "base: the file encode saved for it passes the check" "$rc $c" "0 0"
n=0
for edit in drop=encoder.layer.1.attention.self.value.bias shape=encoder.layer.0.output.dense.weight:16,8 \
            dtype=embeddings.word_embeddings.weight:F64 nan=encoder.layer.0.attention.self.query.weight; do
    n=$((n+1))
    mkdir -p "$TMP/mb$n"
    cp "$TMP/m/config.json" "$TMP/m/vocab.txt" "$TMP/mb$n/"
    "$PY" $REF write "$TMP/bert-abs.json" "$TMP/mb$n/model.safetensors" "$edit"
    printf '{"kind": "bert", "model": "mb%d"}\n' $n >"$TMP/bert$n.json"
    c=0; "$SP" weights check "$TMP/bert$n.json" "$TMP/mb$n/model.safetensors" >"$TMP/out" 2>&1 || c=$?
    rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/bert$n.json" --run "bert-bad$n" --quiet >/dev/null 2>"$TMP/err" || rc=$?
    expect_eq "bert, $edit: check refuses (1) and encode fails (1)" "$c $rc" "1 1"
    line=$(head -n 1 "$TMP/out")
    check "bert, $edit: encode's message is the check's line ($line)" grep -qF "$line" "$TMP/err"
done
done_testing
