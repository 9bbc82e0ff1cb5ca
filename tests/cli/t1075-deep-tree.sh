# t1075-deep-tree.sh — a 150,000-deep tree through ingest and every tree-walking command, no recursion
# tier: fast
# No recursion on input-controlled depth (issue 10, item 2): a valid .mrg
# whose tree is a 150,000-deep unary chain over two words goes through ingest and every
# command that walks trees. Before the fix `trees` recursed once per level and segfaulted.
. tests/cli/lib.sh
D=150000
$PY -c "import sys; d=int(sys.argv[1]); print('((S ' + '(X ' * d + '(NN a) (NN b)' + ')' * d + '))')" $D >"$TMP/deep.mrg"

rc=0; $SP ingest --db "$TMP/d.db" "$TMP/deep.mrg" >/dev/null 2>&1 || rc=$?
expect_eq "ingest a $D-deep tree: exit 0" "$rc" 0
for b in gold right left random; do
    rc=0; $SP trees --db "$TMP/d.db" --corpus main --baseline $b --json >"$TMP/$b.json" 2>"$TMP/$b.err" || rc=$?
    expect_eq "trees --baseline $b on the deep tree: exit 0" "$rc" 0
done
expect_eq "trees --baseline gold: the one sentence is scored" \
  "$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['n_sentences'])" "$TMP/gold.json")" 1
rc=0; $SP trees --db "$TMP/d.db" --corpus main --baseline right --gold-out "$TMP/g.gld" --out "$TMP/r.tst" >/dev/null 2>&1 || rc=$?
expect_eq "trees --gold-out: exit 0" "$rc" 0
expect_eq "trees --gold-out: the gold line opens with TOP, S, then $D X" \
  "$($PY -c "import sys; s=open(sys.argv[1]).read(); print(s.count('(X '), s.startswith('(TOP (S (X'), s.count(')'))" "$TMP/g.gld")" "$D True $((D + 4))"
rc=0; $SP trees --mrg "$TMP/deep.mrg" --baseline right >/dev/null 2>&1 || rc=$?
expect_eq "trees --mrg on the deep tree: exit 0" "$rc" 0
rc=0; $SP evalb "$TMP/deep.mrg" "$TMP/deep.mrg" >/dev/null 2>&1 || rc=$?
expect_eq "evalb on the deep tree: exit 0" "$rc" 0
rc=0; $SP export --db "$TMP/d.db" --what structures --format jsonl >"$TMP/s.jsonl" 2>/dev/null || rc=$?
expect_eq "export structures: exit 0" "$rc" 0
expect_eq "export structures: tree_depth = $D + 3 (wrapper, S, chain, preterminal)" \
  "$($PY -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['tree_depth'])" "$TMP/s.jsonl")" "$((D + 3))"
rc=0; $SP tasks build --split resplit --db "$TMP/d.db" --corpus main --out "$TMP/tasks" >/dev/null 2>&1 || rc=$?
expect_eq "tasks build over the deep tree: exit 0" "$rc" 0
rc=0; $SP encode --db "$TMP/d.db" --corpus main --encoder encoder/configs/psan.json --run p --quiet >/dev/null 2>&1 || rc=$?
expect_eq "encode with PSAN (phrase divisions of the deep tree): exit 0" "$rc" 0
done_testing
