# t6132-long-names.sh — names longer than the old fixed buffers are kept whole (tasks build --prefix)
# tier: fast
# Issue 22 (finding 4, audit): tasks build named each stored task in a 256-byte buffer, so a long
# --prefix stored a cut name (and checked a cut one for "already exists"); a job naming the task
# by its whole name then found no such task.
. tests/cli/lib.sh
need_data
$SP ingest --db $TMP/s.db $DATA/ud-ewt/en_ewt-ud-dev.conllu >/dev/null 2>&1
P=$(printf 'p%.0s' $(seq 1 300))
rc=0; $SP tasks build --split resplit --db $TMP/s.db --corpus main --tasks SentLen --prefix "$P" >/dev/null 2>$TMP/err || rc=$?
expect_eq "tasks build with a 300-byte prefix exits 0 ($(cat $TMP/err))" "$rc" 0
$SP tasks list --db $TMP/s.db >$TMP/list
check "the stored task has the whole name (prefix + SentLen)" grep -qF "${P}SentLen" $TMP/list
rc=0; $SP tasks build --split resplit --db $TMP/s.db --corpus main --tasks SentLen --prefix "$P" >/dev/null 2>$TMP/err || rc=$?
check "a second build without --replace is refused, naming the whole name (exit $rc)" grep -qF "task '${P}SentLen' already exists" $TMP/err
expect_eq "a second build without --replace exits 1" "$rc" 1

# A stored task with a 300-byte name: probe stores its result under the whole name (the result's
# task name went through 128-byte buffers)
T=$(printf 't%.0s' $(seq 1 300))
: >$TMP/task.txt
for i in 1 2 3 4 5 6 7 8; do
    printf 'tr\t0\tthe dog runs fast today\ntr\t1\tcats sleep\nva\t0\tthe cat runs\nva\t1\tdogs sleep\nte\t0\ta bird sings loud\nte\t1\tbirds fly\n' >>$TMP/task.txt
done
$SP tasks import --db $TMP/s.db --name "$T" $TMP/task.txt >/dev/null 2>&1
R=$(printf 'r%.0s' $(seq 1 300))
$SP encode --db $TMP/s.db --task "$T" --encoder encoder/configs/san.json --run "$R" --device cpu >/dev/null 2>&1
rc=0; $SP probe --db $TMP/s.db --task "$T" --run "$R" --preset senteval-fast --no-control --json >$TMP/probe.json 2>$TMP/err || rc=$?
expect_eq "probe of the 300-byte task exits 0 ($(head -c 300 $TMP/err))" "$rc" 0
$SP report --db $TMP/s.db --format json >$TMP/report.json 2>/dev/null
check "the stored result names the whole task" grep -qF "\"$T\"" $TMP/report.json
check "no result under a cut name" sh -c '! grep -qE "\"t{100,299}\"" "$1"' - $TMP/report.json
# the CSV report's encoder column holds the run's whole name (a 256-byte buffer cut it)
$SP report --db $TMP/s.db --format csv >$TMP/report.csv 2>/dev/null
check "the CSV report's encoder column holds the whole run name" grep -qF ",$R," $TMP/report.csv
check "no cut run name in the CSV report" sh -c '! grep -qE ",r{100,299}," "$1"' - $TMP/report.csv

# The HTML report's accuracy-by-layer charts: one per encoder, however long its name (they were
# keyed by names cut at 255 bytes, so two long encoders alike up to there were one); the whole name
# in the chart's <title>
A=$(printf 'a%.0s' $(seq 1 300))
$SP tasks import --db $TMP/s.db --name tt $TMP/task.txt >/dev/null 2>&1
for v in x y; do
    $SP encode --db $TMP/s.db --task tt --encoder encoder/configs/san.json --run "${A}$v-L1-tt" --device cpu >/dev/null 2>&1
    $SP probe --db $TMP/s.db --task tt --run "${A}$v-L1-tt" --preset senteval-fast --no-control >/dev/null 2>&1
done
$SP report --db $TMP/s.db --format html --out $TMP/html >/dev/null 2>&1
sed -n '/id="layers"/,/<\/section>/p' $TMP/html/report.html >$TMP/layers.html
check "a layer chart for the first long encoder" grep -qF "<title>${A}x: test accuracy by layer</title>" $TMP/layers.html
check "a layer chart for the second long encoder" grep -qF "<title>${A}y: test accuracy by layer</title>" $TMP/layers.html
done_testing
