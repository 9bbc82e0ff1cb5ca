# t132-long-names.sh — names longer than the old fixed buffers are kept whole (tasks build --prefix)
# tier: fast
# Issue 22 (finding 4, audit): tasks build named each stored task in a 256-byte buffer, so a long
# --prefix stored a cut name (and checked a cut one for "already exists"); a job naming the task
# by its whole name then found no such task.
. tests/cli/lib.sh
need_data
$SP ingest --db $TMP/s.db $DATA/ud-ewt/en_ewt-ud-dev.conllu >/dev/null 2>&1
P=$(printf 'p%.0s' $(seq 1 300))
rc=0; $SP tasks build --db $TMP/s.db --corpus main --tasks SentLen --prefix "$P" >/dev/null 2>$TMP/err || rc=$?
expect_eq "tasks build with a 300-byte prefix exits 0 ($(cat $TMP/err))" "$rc" 0
$SP tasks list --db $TMP/s.db >$TMP/list
check "the stored task has the whole name (prefix + SentLen)" grep -qF "${P}SentLen" $TMP/list
rc=0; $SP tasks build --db $TMP/s.db --corpus main --tasks SentLen --prefix "$P" >/dev/null 2>$TMP/err || rc=$?
check "a second build without --replace is refused, naming the whole name (exit $rc)" grep -qF "task '${P}SentLen' already exists" $TMP/err
expect_eq "a second build without --replace exits 1" "$rc" 1
done_testing
