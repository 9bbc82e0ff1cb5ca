# t4035-trees.sh — `synprobe trees`: the baselines table of docs/spec/probing.md §5.4 on the PTB sample
# tier: fast
# `synprobe trees`: the baselines table of docs/spec/probing.md §5.4 on the NLTK PTB
# sample (files in file-name order, trees in file order; §6 item 2), the fixed JSON shape,
# the --db path, the attention path, and the --out lines re-scored by `synprobe evalb`.
# Expected values: §5.4 (2 decimals), or identities (identity attention = right-branching by
# §5.1's smallest-k tie rule; the same trees through the EVALB text path score the same).
. tests/cli/lib.sh
need_data
MRG=$DATA/ptb-sample/combined

# jv FILE EXPR DECIMALS: a JSON value, rounded ("null" for null)
jv() { $PY -c "import json,sys; v=json.load(open(sys.argv[1]))$2; print('null' if v is None else '%.${3}f' % v)" "$1"; }

# ---- the table (Protocol A without the 249-word sentence, as the reference binary) ----
rc=0; $SP trees --mrg "$MRG" --baseline right --evalb-max-words 200 --json >"$TMP/rb.json" 2>"$TMP/rb.err" || rc=$?
expect_eq "right: exit 0" "$rc" 0
expect_eq "JSON shape" "$($PY -c "
import json,sys; d=json.load(open(sys.argv[1]))
print(sorted(d), sorted(d['protocol_a']), sorted(d['protocol_a']['all']), sorted(d['protocol_a']['le40']),
      sorted(d['protocol_b']), sorted(d['protocol_b']['sentence_f1']), sorted(d['protocol_b']['corpus_f1']))" "$TMP/rb.json")" \
  "['n_sentences', 'protocol_a', 'protocol_b'] ['all', 'le40'] ['fmeasure', 'precision', 'recall'] ['fmeasure', 'precision', 'recall'] ['corpus_f1', 'sentence_f1', 'sentence_f1_by_length'] ['all', 'le10', 'le40'] ['all', 'le10', 'le40']"
expect_eq "right: n_sentences" "$(jv "$TMP/rb.json" "['n_sentences']" 0)" 3914
expect_eq "right: A all R/P/F" "$(jv $TMP/rb.json "['protocol_a']['all']['recall']" 2)/$(jv $TMP/rb.json "['protocol_a']['all']['precision']" 2)/$(jv $TMP/rb.json "['protocol_a']['all']['fmeasure']" 2)" "38.78/31.69/34.88"
expect_eq "right: A len<=40 F" "$(jv $TMP/rb.json "['protocol_a']['le40']['fmeasure']" 2)" 36.67
expect_eq "right: B sentence-F1 all/le40/le10" "$(jv $TMP/rb.json "['protocol_b']['sentence_f1']['all']" 2)/$(jv $TMP/rb.json "['protocol_b']['sentence_f1']['le40']" 2)/$(jv $TMP/rb.json "['protocol_b']['sentence_f1']['le10']" 2)" "39.38/39.94/55.90"
expect_eq "right: B corpus-F1 all" "$(jv $TMP/rb.json "['protocol_b']['corpus_f1']['all']" 2)" 35.75
check "right: the long sentence is reported" grep -q "1 sentences longer than 200 words" "$TMP/rb.err"

$SP trees --mrg "$MRG" --baseline left --evalb-max-words 200 --json >"$TMP/lb.json" 2>/dev/null
expect_eq "left: A all R/P/F" "$(jv $TMP/lb.json "['protocol_a']['all']['recall']" 2)/$(jv $TMP/lb.json "['protocol_a']['all']['precision']" 2)/$(jv $TMP/lb.json "['protocol_a']['all']['fmeasure']" 2)" "11.50/9.38/10.33"
expect_eq "left: A len<=40 F" "$(jv $TMP/lb.json "['protocol_a']['le40']['fmeasure']" 2)" 11.11
expect_eq "left: B sentence-F1 all/le40/le10" "$(jv $TMP/lb.json "['protocol_b']['sentence_f1']['all']" 2)/$(jv $TMP/lb.json "['protocol_b']['sentence_f1']['le40']" 2)/$(jv $TMP/lb.json "['protocol_b']['sentence_f1']['le10']" 2)" "7.82/7.98/13.91"
expect_eq "left: B corpus-F1 all" "$(jv $TMP/lb.json "['protocol_b']['corpus_f1']['all']" 2)" 6.36

$SP trees --mrg "$MRG" --baseline gold --evalb-max-words 200 --json >"$TMP/gold.json" 2>/dev/null
expect_eq "gold: A all R/P/F" "$(jv $TMP/gold.json "['protocol_a']['all']['recall']" 2)/$(jv $TMP/gold.json "['protocol_a']['all']['precision']" 2)/$(jv $TMP/gold.json "['protocol_a']['all']['fmeasure']" 2)" "81.32/66.47/73.15"
expect_eq "gold: B sentence-F1 / corpus-F1 all" "$(jv $TMP/gold.json "['protocol_b']['sentence_f1']['all']" 2)/$(jv $TMP/gold.json "['protocol_b']['corpus_f1']['all']" 2)" "84.27/84.63"

# random: another generator than the spec's, so within 0.3 points (seed-to-seed spread of the
# 5-seed mean is ~0.1)
$SP trees --mrg "$MRG" --baseline random --evalb-max-words 200 --json >"$TMP/rnd.json" 2>/dev/null
check "random (seeds 1..5): A F, B sentence-F1, B corpus-F1 near 20.66 / 17.30 / 15.46" $PY -c "
import json,sys; d=json.load(open(sys.argv[1]))
got=(d['protocol_a']['all']['fmeasure'], d['protocol_b']['sentence_f1']['all'], d['protocol_b']['corpus_f1']['all'])
sys.exit(0 if all(abs(g-w) <= 0.3 for g,w in zip(got,(20.66,17.30,15.46))) else 1)" "$TMP/rnd.json"
$SP trees --mrg "$MRG" --baseline random --seed 7 --json >"$TMP/s7a.json"
$SP trees --mrg "$MRG" --baseline random --seed 7 --json >"$TMP/s7b.json"
$SP trees --mrg "$MRG" --baseline random --seed 8 --json >"$TMP/s8.json"
check "random --seed: same seed, same output" cmp -s "$TMP/s7a.json" "$TMP/s7b.json"
check "random --seed: another seed, another output" sh -c "! cmp -s '$TMP/s7a.json' '$TMP/s8.json'"

# ---- text output ----
$SP trees --mrg "$MRG" --baseline right --evalb-max-words 200 >"$TMP/rb.txt" 2>/dev/null
check "text output: A all row" grep -Eq '^  all .* 38\.78 +31\.69 +34\.88$' "$TMP/rb.txt"
check "text output: B sentence row" grep -Eq '^  sentence F1 +39\.38 +39\.94 +55\.90$' "$TMP/rb.txt"

# ---- --out / --gold-out re-scored by synprobe evalb (COLLINS.prm with LABELED 0) ----
$SP trees --mrg "$MRG" --baseline right --out "$TMP/rb.tst" --gold-out "$TMP/gold.gld" --json >"$TMP/rb-all.json"
sed 's/^LABELED.*/LABELED 0/' "$DATA/evalb/COLLINS.prm" >"$TMP/unl.prm"
$SP evalb -p "$TMP/unl.prm" "$TMP/gold.gld" "$TMP/rb.tst" >"$TMP/evalb.out" 2>&1 || true
expect_eq "--out lines: 3914 trees" "$(wc -l <"$TMP/rb.tst" | tr -d ' ')" 3914
expect_eq "evalb on --out lines = Protocol A (All F)" \
  "$(awk '/-- All --/{a=1} a && /Bracketing FMeasure/{print $4; exit}' "$TMP/evalb.out")" \
  "$(jv $TMP/rb-all.json "['protocol_a']['all']['fmeasure']" 2)"
expect_eq "evalb on --out lines = Protocol A (len<=40 R)" \
  "$(awk '/-- len<=40 --/{a=1} a && /Bracketing Recall/{print $4; exit}' "$TMP/evalb.out")" \
  "$(jv $TMP/rb-all.json "['protocol_a']['le40']['recall']" 2)"
expect_eq "first --out line" "$(head -1 "$TMP/rb.tst" | cut -c1-60)" "(TOP (X (NNP Pierre) (X (NNP Vinken) (X (, ,) (X (CD 61) (X "
expect_eq "first --gold-out line" "$(head -1 "$TMP/gold.gld" | cut -c1-60)" "(TOP (S (NP-SBJ (NP (NNP Pierre) (NNP Vinken)) (, ,) (ADJP ("

# ---- the store path gives the same numbers ----
$SP ingest --db "$TMP/s.db" --corpus ptb --quiet "$MRG" >/dev/null 2>&1
$SP trees --db "$TMP/s.db" --corpus ptb --baseline right --evalb-max-words 200 --json >"$TMP/rb-db.json" 2>/dev/null
check "--db --corpus: same JSON as --mrg" cmp -s "$TMP/rb.json" "$TMP/rb-db.json"
$SP trees --db "$TMP/s.db" --corpus nosuch --baseline right >/dev/null 2>&1 && rc=0 || rc=$?
check "--db with an unknown corpus: exit non-zero" test "$rc" -ne 0

# ---- attention (.npy): identity attention = right-branching (§5.1, ties -> smallest k) ----
if $PY -c 'import numpy' 2>/dev/null; then
    mkdir "$TMP/few"
    for f in wsj_0001 wsj_0002 wsj_0003 wsj_0004 wsj_0005 wsj_0096; do cp "$MRG/$f.mrg" "$TMP/few/"; done
    $SP trees --mrg "$TMP/few" --baseline right --json >"$TMP/few-rb.json"
    $SP trees --mrg "$TMP/few" --baseline right --gold-out "$TMP/few.gld" >/dev/null
    $PY - "$TMP/few.gld" "$TMP" <<'PY'
import re, sys, numpy as np
lens = [len(re.findall(r'\([^() ]+ [^() ]+\)', l)) for l in open(sys.argv[1])]
L = max(lens)
a = np.zeros((len(lens), L, L), np.float32)
for k, n in enumerate(lens):
    a[k, :n, :n] = np.eye(n)
    a[k, :n, n:] = 0.5            # padding columns: ignored (the block is renormalised)
np.save(sys.argv[2] + '/att3.npy', a)
np.save(sys.argv[2] + '/att4.npy', np.stack([a, a], axis=1).astype(np.float64))
np.save(sys.argv[2] + '/short.npy', a[:2])
PY
    $SP trees --mrg "$TMP/few" --attention "$TMP/att3.npy" --json >"$TMP/att3.json"
    check "identity attention (n, L, L) float32 = right-branching" cmp -s "$TMP/few-rb.json" "$TMP/att3.json"
    $SP trees --mrg "$TMP/few" --attention "$TMP/att4.npy" --json >"$TMP/att4.json"
    check "identity attention (n, H, L, L) float64, heads averaged = right-branching" cmp -s "$TMP/few-rb.json" "$TMP/att4.json"
    $SP trees --mrg "$TMP/few" --attention "$TMP/short.npy" --json >/dev/null 2>"$TMP/short.err" && rc=0 || rc=$?
    expect_eq "attention with too few sentences: exit 1" "$rc" 1
    check "attention with too few sentences: message names the file" grep -q "short.npy" "$TMP/short.err"
else
    skip "attention tests: python3-numpy not installed"
fi

# ---- usage and input errors ----
$SP trees --mrg "$MRG" >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "no baseline or attention: exit 2" "$rc" 2
$SP trees --mrg "$MRG" --baseline middle >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "unknown baseline: exit 2" "$rc" 2
$SP trees --mrg "$MRG" --baseline right --seed 3 >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "--seed without random: exit 2" "$rc" 2
$SP trees --mrg "$TMP/missing.mrg" --baseline right >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "missing input file: exit 1" "$rc" 1
$SP trees --mrg "$MRG" --attention "$TMP/missing.npy" >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "missing attention file: exit 1" "$rc" 1
$SP trees --help | grep -q "usage: synprobe trees" && ok "--help" || not_ok "--help"

done_testing
