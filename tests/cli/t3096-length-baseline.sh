# t3096-length-baseline.sh — every probe result carries the length-only baseline
# tier: fast
# Issue 14 item 2: every probe result carries the length-only baseline (the same probe on one-hot
# sentence length). Checked on two synthetic tasks whose answers are known by construction:
# a label that is the parity of the sentence length (no monotone function of length gets it; one
# bin per length does: 100%), and a label unrelated to length with every sentence 5 words long
# (one bin: the baseline can only predict one class for every item, so it scores the test share of
# one class: 37, 29 or 34 out of 100 here).
. tests/cli/lib.sh
need_numpy
$PY - "$TMP" <<'P'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
n = 600
X = rng.normal(0, 1, (n, 8)).astype(np.float32)       # vectors that carry nothing
np.save(d + "/X.npy", X)
tags = ["tr"] * 400 + ["va"] * 100 + ["te"] * 100
lens = [3 + i % 12 for i in range(n)]
with open(d + "/parity.txt", "w") as f:
    for i in range(n):
        f.write("%s\t%s\t%s\n" % (tags[i], "even" if lens[i] % 2 == 0 else "odd", " ".join(["w"] * lens[i])))
y = rng.integers(0, 3, n)
with open(d + "/flat.txt", "w") as f:
    for i in range(n):
        f.write("%s\t%s\tw%d a b c d\n" % (tags[i], "abc"[y[i]], i))
P
$SP probe --task-file $TMP/parity.txt --vectors $TMP/X.npy --json --quiet >$TMP/p.json 2>$TMP/err && rc=0 || rc=$?
expect_eq "probe on the parity task: exit 0" "$rc" 0
expect_eq "length parity: the length baseline gets every test item (one bin per length up to 14)" \
    "$($PY -c "import json; b=json.load(open('$TMP/p.json'))['baselines']['length']; print(b['acc'], b['bins'])")" "100.0 14"
$SP probe --task-file $TMP/flat.txt --vectors $TMP/X.npy --json --quiet >$TMP/f.json 2>$TMP/err && rc=0 || rc=$?
expect_eq "probe on the flat task: exit 0" "$rc" 0
expect_eq "every sentence 5 words: the length baseline scores one class's test share" \
    "$($PY -c "import json; b=json.load(open('$TMP/f.json'))['baselines']; print(b['length']['acc'] in (37.0, 29.0, 34.0), b['length']['bins'])")" "True 5"
# Issue 14 item 7: class labels everywhere, numbers sorted as numbers (TreeDepth's 10 after 9)
$PY - "$TMP" <<'P'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(3)
y = np.array([8, 9, 10, 11] * 75)
np.save(d + "/Xn.npy", (np.eye(4)[y - 8] * 3 + rng.normal(0, 0.1, (300, 4))).astype(np.float32))
tags = ["tr"] * 200 + ["va"] * 50 + ["te"] * 50
open(d + "/num.txt", "w").write("".join("%s\t%d\tw w w\n" % (tags[i], y[i]) for i in range(300)))
P
$SP probe --task-file $TMP/num.txt --vectors $TMP/Xn.npy >$TMP/num.out 2>&1 && rc=0 || rc=$?
expect_eq "numeric classes: per-class rows in numeric order" \
    "$rc $(sed -n '/^per class/,/macro F1/p' $TMP/num.out | awk 'NR > 2 && $1 != "macro" { printf "%s ", $1 }')" "0 8 9 10 11 "
expect_eq "... the confusion matrix is labelled, in the same order" \
    "$(sed -n '/^confusion/{n;p}' $TMP/num.out | tr -s ' ' | sed 's/^ //')" "8 9 10 11"
done_testing
