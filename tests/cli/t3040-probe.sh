# t3040-probe.sh — `synprobe probe` on synthetic SentEval task files and .npy vectors
# tier: fast
# `synprobe probe` on synthetic SentEval task files + .npy vectors (docs/spec/probing.md §1).
# Needs /usr/bin/python3 with numpy to write the .npy inputs; skipped without it.
. tests/cli/lib.sh
need_numpy
T=$TMP

# well-separated 2-class task: 600 train, 200 dev, 200 test, d = 12
$PY - "$T" <<'EOF'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(5)
n, dim = 1000, 12
y = rng.integers(0, 2, n)
X = (np.where(y[:, None] == 1, 1.0, -1.0) + rng.normal(0, 1, (n, dim))).astype(np.float32)
np.save(d + "/X.npy", X)
np.save(d + "/X64.npy", X.astype(np.float64))
np.save(d + "/Xshort.npy", X[:-1])
np.save(d + "/Xfortran.npy", np.asfortranarray(X))
tags = ["tr"] * 600 + ["va"] * 200 + ["te"] * 200
with open(d + "/sep.txt", "w") as f:
    for i in range(n):
        f.write("%s\t%s\tsentence %d .\n" % (tags[i], "POS" if y[i] else "NEG", i))
EOF

rc=0; $SP probe --help >"$T/help" 2>&1 || rc=$?
expect_eq "--help exits 0" "$rc" 0
check "--help documents the row alignment" eval "grep -q 'row i is the vector of' '$T/help'"

rc=0; $SP probe --task-file "$T/sep.txt" --vectors "$T/X.npy" --json --quiet >"$T/r1.json" 2>"$T/err" || rc=$?
expect_eq "logreg run exits 0" "$rc" 0
rc=0; $PY - "$T/r1.json" >"$T/r1.chk" 2>&1 <<'EOF' || rc=$?
import json, sys
r = json.load(open(sys.argv[1]))
assert r["devacc"] >= 99.0, r["devacc"]
assert r["chosen"]["early_stopped"] is True
assert r["chosen"]["nhid"] == 0 and r["chosen"]["l2reg"] in (1e-5, 1e-4, 1e-3, 1e-2)
assert len(r["grid"]) == 4
assert r["classes"] == ["NEG", "POS"]
m = r["baselines"]["majority"]; c = r["baselines"]["control"]
assert 35 < m["acc"] < 65 and c["seed"] == 1111 and c["acc"] < 65
assert abs(c["selectivity"] - (r["acc"] - c["acc"])) < 1e-9
cm = r["metrics"]["confusion"]
assert sum(map(sum, cm)) == 200 and r["metrics"]["split"] == "test"
assert abs(100.0 * (cm[0][0] + cm[1][1]) / 200 - r["acc"]) < 0.006
assert len(r["metrics"]["per_class"]) == 2
EOF
expect_eq "logreg JSON: dev >= 99, early stop, baselines, confusion" "$rc" 0
[ "$rc" -eq 0 ] || cat "$T/r1.chk"

$SP probe --task-file "$T/sep.txt" --vectors "$T/X.npy" --json --quiet --threads 2 >"$T/r2.json" 2>&1
grep -v '"seconds"\|"threads"' "$T/r1.json" >"$T/a"; grep -v '"seconds"\|"threads"' "$T/r2.json" >"$T/b"
check "--threads 2 gives the same numbers as --threads 1" eval "cmp -s '$T/a' '$T/b'"

$SP probe --task-file "$T/sep.txt" --vectors "$T/X64.npy" --json --quiet >"$T/r3.json" 2>&1
grep -v '"seconds"\|"vectors"' "$T/r1.json" >"$T/a"; grep -v '"seconds"\|"vectors"' "$T/r3.json" >"$T/b"
check "float64 vectors give the same result as float32" eval "cmp -s '$T/a' '$T/b'"

$SP probe --task-file "$T/sep.txt" --vectors "$T/X.npy" --seed 7 --control-seed 3 --json --quiet >"$T/r4.json" 2>&1
check "--seed/--control-seed recorded" eval "grep -q '\"seed\": 7' '$T/r4.json' && grep -q '\"seed\": 3' '$T/r4.json'"

rc=0; $SP probe --task-file "$T/sep.txt" --vectors "$T/X.npy" --classifier mlp --nhid 8 --dropout 0.1 --quiet >"$T/mlp.txt" 2>&1 || rc=$?
check "mlp with one cell runs" eval "[ $rc -eq 0 ] && grep -q 'chosen: nhid 8, dropout 0.1' '$T/mlp.txt' && grep -q 'confusion' '$T/mlp.txt'"

$SP probe --task-file "$T/sep.txt" --vectors "$T/X.npy" --preset senteval-fast --json --quiet >"$T/fast.json" 2>&1
check "senteval-fast preset: rmsprop, batch 128" eval "grep -q '\"optim\": \"rmsprop\"' '$T/fast.json' && grep -q '\"batch_size\": 128' '$T/fast.json'"

rc=0; $SP probe --task-file "$T/sep.txt" --vectors "$T/Xshort.npy" --quiet >"$T/out" 2>"$T/err" || rc=$?
check "row-count mismatch: exit 1 naming both files" eval "[ $rc -eq 1 ] && grep -q 'Xshort.npy: 999 rows, but .*sep.txt has 1000' '$T/err'"

rc=0; $SP probe --task-file "$T/sep.txt" --vectors "$T/Xfortran.npy" --json --quiet >"$T/rf.json" 2>"$T/err" || rc=$?
check "Fortran-order .npy: read as the same matrix (the same result as the C-order file)" eval "[ $rc -eq 0 ] && $PY -c \"
import json; a = json.load(open('$T/r1.json')); b = json.load(open('$T/rf.json')); assert a['acc'] == b['acc'] and a['devacc'] == b['devacc']\""

printf 'tr\tA\tx\nzz\tB\ty\n' >"$T/bad.txt"
rc=0; $SP probe --task-file "$T/bad.txt" --vectors "$T/X.npy" --quiet >"$T/out" 2>"$T/err" || rc=$?
check "bad partition tag: exit 1 with file:line" eval "[ $rc -eq 1 ] && grep -q 'bad.txt:2: expected partition tag' '$T/err'"

head -999 "$T/sep.txt" >"$T/unk.txt"; printf 'te\tMAYBE\tz .\n' >>"$T/unk.txt"
rc=0; $SP probe --task-file "$T/unk.txt" --vectors "$T/X.npy" --quiet >"$T/out" 2>"$T/err" || rc=$?
check "test label unseen in train: exit 1 with file:line" eval "[ $rc -eq 1 ] && grep -q \"unk.txt:1000: label 'MAYBE'\" '$T/err'"

rc=0; $SP probe --task-file "$T/sep.txt" --vectors "$T/X.npy" --frobnicate >"$T/out" 2>&1 || rc=$?
expect_eq "unknown option: exit 2" "$rc" 2
rc=0; $SP probe --task-file "$T/sep.txt" >"$T/out" 2>&1 || rc=$?
expect_eq "missing --vectors: exit 2" "$rc" 2
rc=0; $SP probe --task-file "$T/sep.txt" --vectors "$T/X.npy" --classifier svm >"$T/out" 2>&1 || rc=$?
expect_eq "unknown classifier: exit 2" "$rc" 2

done_testing
