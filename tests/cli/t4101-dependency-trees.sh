# t4101-dependency-trees.sh — dependency trees from attention scored by UAS/UUAS, with baselines
# tier: fast
# Issue 13 item 7, as a stage: dependency trees from attention (docs/spec/models.md M6; the maximum
# spanning arborescence is checked against brute force in tests/unit/probes_mst.c) scored by
# UAS/UUAS against a corpus's dependency trees, with right-chain, left-chain, adjacent and random
# baselines; a UD corpus gets dependency results from plain `trees` instead of an error.
. tests/cli/lib.sh
DB=$TMP/d.db
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder encoder/configs/ms-san.json --run ms --attention 0 --quiet >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder encoder/configs/san.json --run noattn --quiet >/dev/null 2>&1
$SP trees --db $DB --corpus demo --run ms --json >$TMP/a.json 2>$TMP/a.err && rc=0 || rc=$?
expect_eq "trees on a corpus with dependency trees only: exit 0 (no --dependency needed)" "$rc" 0
check "... it says it scores dependency trees" grep -q "has dependency trees and no constituency trees: scoring dependency trees" $TMP/a.err
expect_eq "... UAS, UUAS of its arcs, UUAS of the undirected MST, over the 32 sentences" \
    "$($PY -c "import json; r=json.load(open('$TMP/a.json')); print(sorted(r), r['n_sentences'], all(0 <= r[k] <= 100 for k in ('uas','uuas_dir','uuas_mst')))")" \
    "['n_sentences', 'uas', 'uuas_dir', 'uuas_mst'] 32 True"
expect_eq "... stored under its method" "$(sqlite3 $DB "select method from tree_eval")" "dependency:run:ms:layer0:dep_to_head"
$SP trees --db $DB --corpus demo --run ms --arc head_to_dep --dependency --no-save --json >$TMP/b.json 2>/dev/null && rc=0 || rc=$?
check "--arc head_to_dep: a different tree" sh -c "[ $rc = 0 ] && ! cmp -s $TMP/a.json $TMP/b.json"
$SP trees --db $DB --corpus demo --run ms --no-save --json >$TMP/c.json 2>/dev/null
check "the same run again: the same figures" cmp -s $TMP/a.json $TMP/c.json
for b in right left adjacent random; do $SP trees --db $DB --corpus demo --baseline $b --json >$TMP/$b.json 2>/dev/null || echo "$b failed"; done
expect_eq "right and left chains: directed figures only; adjacent: undirected only" \
    "$($PY -c "
import json; f = lambda b: json.load(open('$TMP/' + b + '.json'))
print(f('right')['uuas_mst'], f('left')['uuas_mst'], f('adjacent')['uas'], f('random')['uas'] is not None)")" "None None None True"
$SP trees --db $DB --corpus demo --run noattn >/dev/null 2>$TMP/e1 && rc=0 || rc=$?
check "a run without attention maps: exit 1, says how to get them" sh -c "[ $rc = 1 ] && grep -q 'encode the corpus again with --attention LAYER' $TMP/e1"
$SP trees --db $DB --corpus demo --baseline gold --dependency >/dev/null 2>$TMP/e2 && rc=0 || rc=$?
check "--baseline gold in dependency mode: usage error listing the baselines" sh -c "[ $rc = 2 ] && grep -q 'dependency baselines are right, left, adjacent and random' $TMP/e2"
$SP report --db $DB --format html --out $TMP/html >/dev/null 2>&1
check "the HTML report lists the dependency evaluations" grep -q 'dependency:baseline:adjacent' $TMP/html/report.html
# a real treebank: the adjacent baseline's UUAS is the LINEAR row of docs/spec/probing.md §3.8 for EWT dev (42.97)
need_data
$SP ingest --db $TMP/e.db --corpus ewt $DATA/ud-ewt/en_ewt-ud-dev.conllu >/dev/null 2>&1
$SP trees --db $TMP/e.db --corpus ewt --baseline adjacent --json >$TMP/ewt.json 2>/dev/null
expect_eq "EWT dev, adjacent baseline: UUAS 42.97 (docs/spec/probing.md §3.8, LINEAR)" \
    "$($PY -c "import json; print('%.2f' % json.load(open('$TMP/ewt.json'))['uuas_mst'])")" "42.97"
done_testing
