# t3036-structprobe.sh — `synprobe structprobe`: the LINEAR rows of docs/spec/probing.md §3.8 and the §3.7 example
# tier: fast
# `synprobe structprobe`: the LINEAR rows of docs/spec/probing.md §3.8 (§6 item 3;
# 4 decimals for DSpr/NSpr, 2 for percentages), the §3.7 worked example, the fixed JSON shape,
# the --db path and the .npy prediction path (padded |i-j| / i arrays = LINEAR).
. tests/cli/lib.sh
need_data
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
DP=$DATA/ptb-sample/dependency

jv() { $PY -c "import json,sys; v=json.load(open(sys.argv[1]))$2; print('null' if v is None else '%.${3}f' % v)" "$1"; }
row() { echo "$(jv "$1" "['n_sentences']" 0) $(jv "$1" "['uuas']" 2) $(jv "$1" "['dspr']" 4) $(jv "$1" "['root_acc']" 2) $(jv "$1" "['nspr']" 4)"; }

$SP structprobe --conllu "$EWT" --baseline linear --json >"$TMP/ewt-x.json" 2>/dev/null
expect_eq "JSON shape" "$($PY -c "import json,sys; print(sorted(json.load(open(sys.argv[1]))))" "$TMP/ewt-x.json")" \
  "['dspr', 'n_sentences', 'nspr', 'root_acc', 'uuas']"
expect_eq "EWT dev, H&M xpos list" "$(row "$TMP/ewt-x.json")" "2001 42.97 0.5692 25.19 0.3474"
$SP structprobe --conllu "$EWT" --baseline linear --punct upos --json >"$TMP/ewt-u.json" 2>/dev/null
expect_eq "EWT dev, UPOS = PUNCT" "$(row "$TMP/ewt-u.json")" "2001 43.09 0.5692 26.04 0.3474"
$SP structprobe --dp "$DP" --baseline linear --json >"$TMP/ptb.json" 2>/dev/null
expect_eq "PTB sample .dp, H&M xpos list" "$(row "$TMP/ptb.json")" "3914 52.76 0.6048 1.76 0.2889"

$SP structprobe --dp "$DP" --baseline linear >"$TMP/ptb.txt" 2>/dev/null
check "text output" grep -q "^UUAS       52.76 %" "$TMP/ptb.txt"

# §3.7: wsj_0003 "It has no bearing on our work force today ." — 5/8 edges, DSpr 0.5576,
# NSpr 0.4816, predicted root "It" (wrong)
printf 'It\tPRP\t2\nhas\tVBZ\t0\nno\tDT\t4\nbearing\tNN\t2\non\tIN\t4\nour\tPRP$\t8\nwork\tNN\t8\nforce\tNN\t9\ntoday\tNN\t5\n.\t.\t2\n' >"$TMP/ex.dp"
$SP structprobe --dp "$TMP/ex.dp" --baseline linear --json >"$TMP/ex.json"
expect_eq "§3.7 worked example" "$(row "$TMP/ex.json")" "1 62.50 0.5576 0.00 0.4816"

# ---- the store path ----
$SP ingest --db "$TMP/s.db" --corpus ewt --quiet "$EWT" >/dev/null 2>&1
$SP ingest --db "$TMP/s.db" --corpus ptb --quiet "$DP" >/dev/null 2>&1
$SP structprobe --db "$TMP/s.db" --corpus ewt --baseline linear --json >"$TMP/ewt-db.json" 2>/dev/null
check "--db --corpus ewt: same JSON as --conllu" cmp -s "$TMP/ewt-x.json" "$TMP/ewt-db.json"
$SP structprobe --db "$TMP/s.db" --corpus ptb --baseline linear --json >"$TMP/ptb-db.json" 2>/dev/null
check "--db --corpus ptb: same JSON as --dp" cmp -s "$TMP/ptb.json" "$TMP/ptb-db.json"

# ---- predictions from .npy: padded (n, L, L) |i-j| and (n, L) i reproduce LINEAR ----
if $PY -c 'import numpy' 2>/dev/null; then
    $PY - "$EWT" "$TMP" <<'PY'
import sys, numpy as np
lens, n = [], 0
for line in open(sys.argv[1], encoding='utf-8'):
    line = line.rstrip('\n')
    if not line:
        if n: lens.append(n)
        n = 0
    elif not line.startswith('#') and line.split('\t')[0].isdigit():
        n += 1
if n: lens.append(n)
L = max(lens)
d = np.full((len(lens), L, L), 99.0, np.float32)     # padding: ignored
p = np.full((len(lens), L), -5.0, np.float64)
for k, n in enumerate(lens):
    i = np.arange(n)
    d[k, :n, :n] = np.abs(i[:, None] - i[None, :])
    p[k, :n] = i
np.save(sys.argv[2] + '/dist.npy', d)
np.save(sys.argv[2] + '/depth.npy', p)
np.save(sys.argv[2] + '/bad.npy', p[:10])
PY
    $SP structprobe --conllu "$EWT" --distances "$TMP/dist.npy" --depths "$TMP/depth.npy" --json >"$TMP/npy.json" 2>/dev/null
    check ".npy |i-j| float32 + i float64 = LINEAR" cmp -s "$TMP/ewt-x.json" "$TMP/npy.json"
    $SP structprobe --conllu "$EWT" --depths "$TMP/depth.npy" --json >"$TMP/dep.json" 2>/dev/null
    expect_eq "depths only: distance metrics null" "$(row "$TMP/dep.json")" "2001 null null 25.19 0.3474"
    $SP structprobe --conllu "$EWT" --depths "$TMP/bad.npy" >/dev/null 2>"$TMP/bad.err" && rc=0 || rc=$?
    expect_eq "too few rows in the .npy: exit 1" "$rc" 1
    check "too few rows: message names the file" grep -q "bad.npy" "$TMP/bad.err"
    $SP structprobe --conllu "$EWT" --distances "$TMP/depth.npy" >/dev/null 2>&1 && rc=0 || rc=$?
    expect_eq "distances with 2 dimensions: exit 1" "$rc" 1
else
    skip ".npy tests: python3-numpy not installed"
fi

# ---- usage and input errors ----
$SP structprobe --conllu "$EWT" >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "no predictions: exit 2" "$rc" 2
$SP structprobe --conllu "$EWT" --baseline random >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "unknown baseline: exit 2" "$rc" 2
$SP structprobe --conllu "$EWT" --baseline linear --punct deprel >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "bad --punct: exit 2" "$rc" 2
$SP structprobe --conllu "$TMP/missing.conllu" --baseline linear >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "missing input: exit 1" "$rc" 1
$SP structprobe --help | grep -q "usage: synprobe structprobe" && ok "--help" || not_ok "--help"

done_testing
