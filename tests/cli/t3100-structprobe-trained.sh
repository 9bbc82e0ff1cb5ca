# t3100-structprobe-trained.sh — `structprobe --run R` trains the distance and depth probes as a stage
# tier: fast
# Issue 13 item 5, as a stage: `structprobe --run R` trains Hewitt & Manning's distance and depth
# probes (docs/spec/models.md M4; the training itself is checked against an independent NumPy version in
# t3048) on a corpus run's token vectors and scores them on the test partition. Here: the stage's
# plumbing on the demo corpus: partitions (recorded or re-split, and said so), determinism,
# storage with its manifest, and the errors of runs that do not fit.
. tests/cli/lib.sh
$PY - demo/demo.conllu $TMP <<'P'
import sys
sents = open(sys.argv[1], encoding="utf-8").read().strip("\n").split("\n\n")
cut = {"train": sents[:22], "dev": sents[22:27], "test": sents[27:]}
for k, v in cut.items():
    open("%s/demo-ud-%s.conllu" % (sys.argv[2], k), "w", encoding="utf-8").write("\n\n".join(v) + "\n\n")
P
DB=$TMP/s.db
for s in train dev test; do $SP ingest --db $DB --corpus ud --split $s $TMP/demo-ud-$s.conllu >/dev/null 2>&1; done
$SP ingest --db $DB --corpus plain demo/demo.conllu >/dev/null 2>&1
for c in ud plain; do
    $SP encode --db $DB --corpus $c --encoder encoder/configs/san.json --run san-$c --token-vectors --quiet >/dev/null 2>&1
done
$SP encode --db $DB --corpus plain --encoder encoder/configs/ms-san.json --run notok --quiet >/dev/null 2>&1

$SP structprobe --db $DB --corpus ud --run san-ud --rank 32 --json >$TMP/a.json 2>$TMP/a.err && rc=0 || rc=$?
expect_eq "trained probes on a corpus with recorded partitions: exit 0" "$rc" 0
expect_eq "... scored on its 5 test sentences" "$($PY -c "import json; print(json.load(open('$TMP/a.json'))['n_sentences'])")" 5
M=$(sqlite3 $DB "select result from tree_eval where method = 'structprobe:trained:run=san-ud'")
expect_eq "stored, with the partitions and each probe's training in the manifest" \
    "$(echo "$M" | $PY -c "import json,sys; t=json.load(sys.stdin)['manifest']['source']['training']; print(t['partition'][:9], t['train'], t['dev'], t['test'], t['distance']['rank'], t['depth']['epochs'] >= 1)")" \
    "official: 22 5 5 32 True"
check "... its figures are in range" $PY -c "
import json; r = json.load(open('$TMP/a.json'))
assert 0 <= r['uuas'] <= 100 and 0 <= r['root_acc'] <= 100 and -1 <= r['dspr'] <= 1, r"
# the linear baseline beside it is scored on the same 5 test sentences: it equals the baseline that
# `structprobe --baseline linear` (the path of t3036, checked against docs/spec/probing.md §3.8) gives on the test file
$SP structprobe --conllu $TMP/demo-ud-test.conllu --baseline linear --json >$TMP/lin.json 2>/dev/null
expect_eq "the linear baseline on the same test sentences (= --baseline linear on the test file)" \
    "$($PY -c "import json; print(json.load(open('$TMP/a.json'))['linear_baseline'])")" \
    "$($PY -c "import json; print(json.load(open('$TMP/lin.json')))")"
$SP structprobe --db $DB --corpus ud --run san-ud --rank 32 --json --no-save >$TMP/b.json 2>/dev/null
check "the same seed gives the same figures" cmp -s $TMP/a.json $TMP/b.json
$SP structprobe --db $DB --corpus plain --run san-plain --rank 32 --no-save --json >$TMP/c.json 2>/dev/null && rc=0 || rc=$?
expect_eq "a corpus with no partitions: exit 0, 3 test sentences of a seeded 80/10/10 re-split" \
    "$rc $($PY -c "import json; print(json.load(open('$TMP/c.json'))['n_sentences'])")" "0 3"
# runs that do not fit
$SP structprobe --db $DB --corpus plain --run notok >/dev/null 2>$TMP/e1 && rc=0 || rc=$?
check "a run without token vectors: exit 1, says how to get them" sh -c "[ $rc = 1 ] && grep -q 'has no token vectors: encode the corpus again with --token-vectors' $TMP/e1"
$SP structprobe --db $DB --corpus ud --run san-plain >/dev/null 2>$TMP/e2 && rc=0 || rc=$?
check "a run of another corpus: exit 1, names both" sh -c "[ $rc = 1 ] && grep -q \"run 'san-plain' encodes corpus 'plain', not corpus 'ud'\" $TMP/e2"
$SP structprobe --db $DB --corpus ud --run san-ud --baseline linear >/dev/null 2>$TMP/e3 && rc=0 || rc=$?
expect_eq "--run with --baseline: usage error" "$rc" 2
$SP structprobe --conllu demo/demo.conllu --run san-ud >/dev/null 2>$TMP/e4 && rc=0 || rc=$?
check "--run without a store: usage error naming what it needs" sh -c "[ $rc = 2 ] && grep -q -- '--run needs --db DB --corpus C' $TMP/e4"
$SP report --db $DB >$TMP/rep.txt 2>/dev/null
check "the report lists the trained probe" grep -q 'structprobe:trained:run=san-ud' $TMP/rep.txt
# runs named NAME-L<k> (a model's layers; here two SAN seeds stand in for two layers) are drawn
# by layer in the HTML report: UUAS and DSpr charts, one line for the probe and one for the
# linear baseline of the same test sentences, a point per layer each
for k in 0 1; do
    $SP encode --db $DB --corpus ud --encoder encoder/configs/san.json --seed $((k + 5)) --run lay-L$k-ud --token-vectors \
        --quiet >/dev/null 2>&1
    $SP structprobe --db $DB --corpus ud --run lay-L$k-ud --rank 16 --quiet >/dev/null 2>&1
done
$SP report --db $DB --format html --out $TMP/html >/dev/null 2>&1
$PY - $TMP/html/report.html >$TMP/sp.chk <<'PY'
import sys
h = open(sys.argv[1], encoding="utf-8").read()
i = h.index('<section id="structprobe">')
sec = h[i:h.index('</section>', i)]
print(sec.count("<svg"), sec.count("<circle"), sec.count('stroke-width="2" stroke-dasharray="6 3"'), "lay (ud)" in sec,
      "linear baseline (ud, same test sentences)" in sec)
PY
expect_eq "HTML: structural probes by layer (2 charts: the probe's line, a point per layer, and the baseline dashed)" \
    "$(cat $TMP/sp.chk)" "2 4 2 True True"
done_testing
