#!/bin/sh
# synprobe demo: the embedded corpus through ingest into a fresh store, with a readable summary.
. tests/cli/lib.sh
out=$($SP demo --out $TMP/demo 2>&1) && rc=0 || rc=$?
expect_eq "demo exits 0" "$rc" 0
case "$out" in *"corpus demo:"*"sentences"*) ok "demo prints a summary";; *) not_ok "demo output: $out";; esac
n_conllu=$(grep -c '^# sent_id' demo/demo.conllu)
n_trees=$(grep -c '^( ' demo/demo.mrg)
expect_eq "every demo sentence stored, trees attached by position" \
    "$(sqlite3 $TMP/demo/demo.db "select count(*), sum(const_source_id is not null), (select count(*) from quarantine) from sentence")" \
    "$n_conllu|$n_trees|0"
check "demo corpus files were written out" test -s $TMP/demo/corpus/demo.conllu
$SP export --db $TMP/demo/demo.db --corpus demo --format conllu > $TMP/rt.conllu
check "demo CoNLL-U round trip is byte-identical" cmp -s $TMP/rt.conllu demo/demo.conllu
out2=$($SP demo --out $TMP/demo 2>&1) && rc=0 || rc=$?
expect_eq "running the demo twice starts from a fresh store" "$rc|$(sqlite3 $TMP/demo/demo.db 'select count(*) from source')" "0|2"
done_testing
