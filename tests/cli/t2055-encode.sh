# t2055-encode.sh — `synprobe encode` + `export --what vectors|tokens|attention` against the NumPy reference
# tier: fast
# `synprobe encode` + `export --what vectors|tokens|attention` (issue #4).
# Independent expectations: the exported vectors, token vectors and attention maps of san.json
# and ms-san.json on the demo corpus equal the NumPy reference forward pass
# (tests/reference/encoders_ref.py, written from the spec) on the same weights (--save-weights),
# the same embeddings (a GloVe file written here) and structures the reference computes itself
# from the heads, to 1e-5; counts come from the demo files (32 sentences, 12 with trees).
. tests/cli/lib.sh
need_numpy
D=$TMP/demo
"$SP" demo --out "$D" --ingest-only >/dev/null 2>&1
DB=$D/demo.db
C=encoder/configs
N=$(grep -c '^$' demo/demo.conllu)
NT=$(grep -c '^(' demo/demo.mrg)
q() { $PY -c "import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone(); print(r[0] if r else '')" "$1" "$2"; }
jget() { $PY -c "import json,sys; print(json.loads(sys.stdin.readline())[sys.argv[1]])" "$1"; }

# words, heads of every corpus sentence (corpus order) and GloVe files covering the vocabulary
"$SP" export --db "$DB" --corpus demo --what structures --format jsonl >"$TMP/st.jsonl"
$PY - "$TMP" <<'EOF'
import json, sys, numpy as np
tmp = sys.argv[1]
words = sorted({w for l in open(tmp + "/st.jsonl") for w in json.loads(l)["words"]})
rng = np.random.default_rng(55)
for d, std in ((512, 512 ** -0.5), (600, 1.0)):      # san.json scales embeddings by sqrt(d) (as t2050)
    with open("%s/glove%d.txt" % (tmp, d), "w") as f:
        for w in words:
            v = rng.normal(0, std, d).astype(np.float32)
            f.write(w + " " + " ".join(repr(float(x)) for x in v) + "\n")
EOF

# ---- san: encode with token vectors + attention of layer 0, compare with the reference
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --embeddings "$TMP/glove512.txt" --save-weights "$TMP/san.safetensors" \
    --run san --token-vectors --attention 0 --json >"$TMP/san.json" 2>"$TMP/san.err" || rc=$?
expect_eq "san encode: exit 0" "$rc" 0
expect_eq "san: all $N sentences encoded" "$(jget encoded <"$TMP/san.json")" "$N"
"$SP" export --db "$DB" --what vectors --run san --format npy --out "$TMP/san.npy"
"$SP" export --db "$DB" --what tokens --run san --out "$TMP/san_tok.npy"
"$SP" export --db "$DB" --what attention --run san --out "$TMP/san_att.npy"
cat >"$TMP/ref.py" <<'EOF'
import json, sys, numpy as np
sys.path.insert(0, "tests/reference")
import encoders_ref as R
cfg_path, weights, glove, stj, vec = sys.argv[1:6]
tok = sys.argv[6] if len(sys.argv) > 6 else None
att = sys.argv[7] if len(sys.argv) > 7 else None
cfg = R.Cfg(cfg_path)
W = R.st_read(weights)
G = {}
for line in open(glove):
    p = line.split(" ")
    G[p[0]] = np.array([float(x) for x in p[1:]])
fwd = {"san": R.fwd_sanlike, "ms-san": R.fwd_mssan, "psan": R.fwd_psan}[cfg.kind]
V = np.load(vec)
assert V.dtype == np.float32, V.dtype
sents = [json.loads(l) for l in open(stj)]
assert V.shape == (len(sents), V.shape[1]), V.shape
if tok:
    T = np.load(tok); lens = np.load(tok[:-4] + ".lengths.npy")
    assert T.dtype == np.float32 and lens.dtype == np.int32 and T.shape[0] == lens.sum() and len(lens) == len(sents)
    T = np.split(T, np.cumsum(lens)[:-1])
if att:
    A = np.load(att)
    L = max(len(s["words"]) for s in sents)
    assert A.dtype == np.float32 and A.shape == (len(sents), L, L), A.shape
err = [0.0, 0.0, 0.0]
for k, s in enumerate(sents):
    head = [h - 1 for h in s["heads"]]
    depth, D, anc, rel = R.structures(head)
    x = dict(words=s["words"], depth=depth, dist=D, anc=anc, rel=rel, pid=None,
             emb=np.stack([G[w] for w in s["words"]]))
    v, X, Amap = fwd(W, cfg, x, 0)
    err[0] = max(err[0], np.abs(V[k] - v).max())
    if tok:
        err[1] = max(err[1], np.abs(T[k] - X).max())
    if att:
        n = len(s["words"])
        err[2] = max(err[2], np.abs(A[k, :n, :n] - Amap).max(), np.abs(A[k, n:, :]).max(initial=0), np.abs(A[k, :, n:]).max(initial=0))
print("max abs err: vectors %.2e tokens %.2e attention %.2e" % tuple(err))
sys.exit(0 if max(err) <= 1e-5 else 1)
EOF
check "san: vectors (32, 512) float32, tokens and attention equal the NumPy reference (1e-5)" \
    $PY "$TMP/ref.py" $C/san.json "$TMP/san.safetensors" "$TMP/glove512.txt" "$TMP/st.jsonl" "$TMP/san.npy" "$TMP/san_tok.npy" "$TMP/san_att.npy"
expect_eq "san: shape (n, 512)" "$($PY -c "import numpy as np,sys; a=np.load(sys.argv[1]); print(a.shape, a.dtype)" "$TMP/san.npy")" "($N, 512) float32"

# ---- re-run: everything cached, identical bytes
"$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --embeddings "$TMP/glove512.txt" --run san --token-vectors --attention 0 \
    --json --quiet >"$TMP/san2.json"
expect_eq "re-run: all cached" "$(jget cached <"$TMP/san2.json") $(jget encoded <"$TMP/san2.json")" "$N 0"
"$SP" export --db "$DB" --what vectors --run san --out "$TMP/san2.npy"
check "re-run: identical vector bytes" cmp -s "$TMP/san.npy" "$TMP/san2.npy"
# the same encoder under a new run name shares the cache
"$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --embeddings "$TMP/glove512.txt" --run san-b --json --quiet >"$TMP/sanb.json"
expect_eq "another run name, same encoder: cached" "$(jget cached <"$TMP/sanb.json")" "$N"
# batching does not change the numbers: tiny token budget, different run
"$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --embeddings "$TMP/glove512.txt" --run san-c --batch-tokens 7 --seed 1 \
    --json --quiet >"$TMP/sanc.json"
expect_eq "--seed equal to the config's seed: same fingerprint" "$(jget fingerprint <"$TMP/sanc.json")" "$(jget fingerprint <"$TMP/san.json")"

# ---- seed changes the fingerprint; a run name cannot change encoder
# an embeddings file with 2,000 words the corpus never uses: only the corpus vocabulary is
# loaded, and the vectors equal those from the file without the extra words
$PY - "$TMP" <<'PYEOF'
import numpy as np, sys
tmp = sys.argv[1]
rng = np.random.default_rng(7)
with open(tmp + "/glove512x.txt", "w") as f:
    for k in range(2000):
        f.write("zzextra%d " % k + " ".join("%.4f" % x for x in rng.normal(0, 0.04, 512)) + "\n")
    f.write(open(tmp + "/glove512.txt").read())
PYEOF
"$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --embeddings "$TMP/glove512x.txt" --run san-x --quiet
"$SP" export --db "$DB" --what vectors --run san-x --format npy --out "$TMP/sanx.npy"
check "embeddings: extra words in the file change no vector" cmp -s "$TMP/sanx.npy" "$TMP/san.npy"
expect_eq "embeddings: only the corpus vocabulary is kept (manifest)" \
    "$(q "$DB" "SELECT json_extract(manifest, '\$.embeddings.rows_kept') < 2000 AND json_extract(manifest, '\$.embeddings.file_rows') = 2000 + $(wc -l <"$TMP/glove512.txt") FROM run WHERE name = 'san-x'")" 1
"$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --embeddings "$TMP/glove512.txt" --run san-s7 --seed 7 --json --quiet >"$TMP/s7.json"
s7=$(jget fingerprint <"$TMP/s7.json"); s1=$(jget fingerprint <"$TMP/san.json")
check "--seed 7 changes the fingerprint" test "$s7" != "$s1"
"$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --embeddings "$TMP/glove512.txt" --run san --seed 7 --quiet 2>"$TMP/err" && rc=0 || rc=$?
expect_eq "run name reused with another fingerprint: exit 1" "$rc" 1
check "message names both fingerprints" grep -q "$s1.*$s7" "$TMP/err"
"$SP" export --db "$DB" --what vectors --run san-s7 --out "$TMP/s7.npy"
check "seed 7 gives other vectors" $PY -c "import numpy as np,sys; sys.exit(np.array_equal(np.load(sys.argv[1]), np.load(sys.argv[2])))" "$TMP/s7.npy" "$TMP/san.npy"

# ---- ms-san (needs tree distances from the stored dependency structures)
"$SP" encode --db "$DB" --corpus demo --encoder $C/ms-san.json --embeddings "$TMP/glove600.txt" --save-weights "$TMP/ms.safetensors" \
    --run ms --json --quiet >"$TMP/ms.json"
expect_eq "ms-san: all encoded" "$(jget encoded <"$TMP/ms.json")" "$N"
"$SP" export --db "$DB" --what vectors --run ms --out "$TMP/ms.npy"
check "ms-san: vectors (32, 1200) equal the NumPy reference (1e-5)" \
    $PY "$TMP/ref.py" $C/ms-san.json "$TMP/ms.safetensors" "$TMP/glove600.txt" "$TMP/st.jsonl" "$TMP/ms.npy"

# ---- psan: only sentences with a constituency tree; the others are counted, or fail the run
"$SP" encode --db "$DB" --corpus demo --encoder $C/psan.json --run psan --json --quiet >"$TMP/psan.json"
expect_eq "psan: $NT encoded, $((N - NT)) skipped (no tree)" \
    "$(jget encoded <"$TMP/psan.json") $(jget skipped_missing_structure <"$TMP/psan.json")" "$NT $((N - NT))"
expect_eq "psan: run items = sentences with trees" "$(q "$DB" "select count(*) from run_item join run using (run_id) where name = 'psan'")" "$NT"
"$SP" encode --db "$DB" --corpus demo --encoder $C/psan.json --run psan-f --on-missing fail --quiet 2>"$TMP/err" && rc=0 || rc=$?
expect_eq "psan --on-missing fail: exit 1" "$rc" 1
check "--on-missing fail names the sentence and the structure" grep -q "needs a constituency tree" "$TMP/err"
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --run short --max-tokens 5 --json --quiet >"$TMP/short.json" 2>/dev/null || rc=$?
check "--max-tokens: long sentences skipped and counted" test "$(jget skipped_too_long <"$TMP/short.json")" -gt 0
expect_eq "--max-tokens 5: every sentence skipped, nothing encoded: exit 1 (issue 11)" "$rc" 1

# ---- attention export feeds `synprobe trees`
rc=0; "$SP" trees --db "$DB" --corpus demo --attention "$TMP/san_att.npy" --json >"$TMP/trees.json" 2>"$TMP/err" || rc=$?
expect_eq "trees --attention on the exported map: exit 0" "$rc" 0

# ---- errors
"$SP" export --db "$DB" --what vectors --run san 2>"$TMP/err" && rc=0 || rc=$?
expect_eq "export without --out: exit 2" "$rc" 2
"$SP" export --db "$DB" --what vectors --run nope --out "$TMP/x.npy" 2>"$TMP/err" && rc=0 || rc=$?
expect_eq "unknown run: exit 1" "$rc" 1
check "unknown run: message" grep -q "no run 'nope'" "$TMP/err"
"$SP" export --db "$DB" --what tokens --run ms --out "$TMP/x.npy" 2>"$TMP/err" && rc=0 || rc=$?
expect_eq "tokens of a run without them: exit 1" "$rc" 1
check "... says re-run with --token-vectors" grep -q "re-run encode with --token-vectors" "$TMP/err"
"$SP" export --db "$DB" --what attention --run ms --out "$TMP/x.npy" 2>"$TMP/err" && rc=0 || rc=$?
expect_eq "attention of a run without them: exit 1" "$rc" 1
check "... says re-run with --attention" grep -q "re-run encode with --attention" "$TMP/err"
printf '{"kind": "san", "d_model": 64, "heads": 7}\n' >"$TMP/bad.json"
"$SP" encode --db "$DB" --corpus demo --encoder "$TMP/bad.json" --run bad 2>"$TMP/err" && rc=0 || rc=$?
expect_eq "bad config: exit 1" "$rc" 1
check "bad config: the field is named" grep -q "bad.json: heads" "$TMP/err"
"$SP" encode --db "$DB" --corpus demo --encoder $C/san.json 2>/dev/null && rc=0 || rc=$?
expect_eq "missing --run: exit 2" "$rc" 2
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then
    skip "the no-GPU device checks: a GPU is present"
else
    "$SP" encode --db "$DB" --corpus demo --encoder $C/ms-san.json --run ms-gpu --device cuda 2>"$TMP/err" && rc=0 || rc=$?
    expect_eq "--device cuda without a GPU: exit 1" "$rc" 1
    check "--device cuda: the message says cuda" grep -qi "cuda" "$TMP/err"
    "$SP" encode --db "$DB" --corpus demo --encoder $C/ms-san.json --run ms-auto --device auto 2>"$TMP/err" && rc=0 || rc=$?
    expect_eq "--device auto: exit 0" "$rc" 0
    check "--device auto: says it falls back to the CPU" grep -qx "no GPU found: using the CPU" "$TMP/err"
fi
expect_eq "manifest records the device and the fingerprint" \
    "$(q "$DB" "select json_extract(manifest, '\$.device') || ' ' || (json_extract(manifest, '\$.fingerprint') = '$s1') from run where name = 'san'")" "cpu 1"

# ---- tasks: an imported SentEval file (text only) and a task built from a corpus
printf 'tr\t1\tThe cat sat .\nva\t0\tA dog .\nte\t1\tThe cat sat .\n' >"$TMP/task.txt"
"$SP" tasks import --db "$DB" --name imp "$TMP/task.txt" >/dev/null
"$SP" encode --db "$DB" --task imp --encoder $C/san.json --run imp-san --json --quiet >"$TMP/imp.json"
expect_eq "imported task, san: 3 encoded" "$(jget items <"$TMP/imp.json")" 3
rc=0; "$SP" encode --db "$DB" --task imp --encoder $C/ms-san.json --run imp-ms --json --quiet >"$TMP/impms.json" 2>/dev/null || rc=$?
expect_eq "imported task, ms-san (needs heads): all skipped" "$(jget skipped_missing_structure <"$TMP/impms.json")" 3
expect_eq "imported task, ms-san: nothing encoded: exit 1 (issue 11)" "$rc" 1
"$SP" export --db "$DB" --what vectors --run imp-san --out "$TMP/imp.npy"
check "task rows in file order: items 1 and 3 (same text) are equal" \
    $PY -c "import numpy as np,sys; a=np.load(sys.argv[1]); sys.exit(not (a.shape[0]==3 and np.array_equal(a[0],a[2]) and not np.array_equal(a[0],a[1])))" "$TMP/imp.npy"

need_data
P=$DATA/ptb-sample
"$SP" ingest --db "$TMP/ptb.db" --corpus ptb "$P/combined/wsj_0001.mrg" "$P/combined/wsj_0002.mrg" "$P/combined/wsj_0003.mrg" >/dev/null 2>&1
NP=$(q "$TMP/ptb.db" "select count(*) from sentence")
rc=0; "$SP" encode --db "$TMP/ptb.db" --corpus ptb --encoder $C/ms-san.json --run ms --json --quiet >"$TMP/p.json" 2>/dev/null || rc=$?
expect_eq "PTB trees only: ms-san skips all $NP (no heads)" "$(jget skipped_missing_structure <"$TMP/p.json")" "$NP"
expect_eq "PTB trees only: nothing encoded: exit 1 (issue 11)" "$rc" 1
"$SP" ingest --db "$TMP/ptb.db" --corpus ptb "$P/dependency/wsj_0001.dp" "$P/dependency/wsj_0002.dp" "$P/dependency/wsj_0003.dp" >/dev/null 2>&1
"$SP" encode --db "$TMP/ptb.db" --corpus ptb --encoder $C/ms-san.json --run ms --json --quiet >"$TMP/p2.json"
expect_eq "after the .dp heads are attached: the same run encodes all $NP" "$(jget encoded <"$TMP/p2.json") $(jget items <"$TMP/p2.json")" "$NP $NP"
# a task built from the whole PTB sample: items carry their sentences' structures
"$SP" ingest --db "$TMP/all.db" --corpus ptb "$P/combined" "$P/dependency" >/dev/null 2>&1
"$SP" tasks build --split resplit --db "$TMP/all.db" --corpus ptb --tasks WC >/dev/null 2>&1
NI=$(q "$TMP/all.db" "select count(*) from task_item join task using (task_id) where name = 'WC'")
"$SP" encode --db "$TMP/all.db" --task WC --encoder $C/ms-san.json --run wc --json --quiet >"$TMP/t.json"
expect_eq "task WC ($NI items, from a corpus): all encoded with their dependency structures" \
    "$(jget items <"$TMP/t.json") $(jget skipped <"$TMP/t.json")" "$NI 0"
"$SP" encode --db "$TMP/all.db" --task WC --encoder $C/ms-san.json --run wc2 --json --quiet >"$TMP/t2.json"
expect_eq "task re-run under another name: all cached" "$(jget cached <"$TMP/t2.json")" "$NI"
"$SP" export --db "$TMP/all.db" --what vectors --run wc --out "$TMP/wc.npy"
expect_eq "task export: one row per item" "$($PY -c "import numpy as np,sys; print(np.load(sys.argv[1]).shape)" "$TMP/wc.npy")" "($NI, 1200)"
done_testing
