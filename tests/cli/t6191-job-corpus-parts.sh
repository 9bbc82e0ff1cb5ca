# t6191-job-corpus-parts.sh — a job ingests one corpus from several entries, each with its "split" (PTB files by range)
# tier: fast
# Issue 25 item 4: the trained-vs-random job splits the PTB sample by file (train 0001-0119, dev
# 0120-0139, test 0140-0199) so that no encoder is tested on a sentence it was trained on. A
# corpus may come in several job entries when each gives its "split"; the sentences keep their
# entry's split and tasks build uses them as official partitions (no re-split asked or made).
# A name given twice without "split" is still refused as a slip.
. tests/cli/lib.sh
need_data
P=$(cd "$DATA" && pwd)/ptb-sample
mkdir -p $TMP/j
part() {   # JSON paths of files a..b
    i=$1; sep=
    while [ $i -le $2 ]; do
        n=$(printf '%04d' $i)
        printf '%s"%s/combined/wsj_%s.mrg", "%s/dependency/wsj_%s.dp"' "$sep" "$P" "$n" "$P" "$n"
        sep=', '; i=$((i + 1))
    done
}
cat >$TMP/j/job.json <<J
{
  "store": "out/store.db", "out": "out",
  "corpora": [{"name": "ptb", "split": "train", "paths": [$(part 1 30)]},
              {"name": "ptb", "split": "dev", "paths": [$(part 31 36)]},
              {"name": "ptb", "split": "test", "paths": [$(part 37 50)]}],
  "tasks": [{"tasks": ["SentLen", "BShift"], "seed": 1}]
}
J
$SP run $TMP/j/job.json >$TMP/out 2>$TMP/err && rc=0 || rc=$?
expect_eq "the job runs (three ingest steps into one corpus, tasks on its partitions)" "$rc" 0
check "no re-split: nothing says re-split" sh -c "! grep -qi 're-split' $TMP/err $TMP/out"
# what each file range holds, counted here from the .dp files (a sentence per blank-line-separated block)
count() { i=$1; c=0; while [ $i -le $2 ]; do c=$((c + $(awk 'NF{b=1} !NF&&b{n++;b=0} END{print n+b}' $P/dependency/wsj_$(printf '%04d' $i).dp))); i=$((i + 1)); done; echo $c; }
expect_eq "the store's sentences by split equal the files' sentences by range" \
    "$(sqlite3 $TMP/j/out/store.db "SELECT group_concat(split || '=' || n, ' ') FROM (SELECT split, count(*) n FROM sentence GROUP BY split ORDER BY split)")" \
    "dev=$(count 31 36) test=$(count 37 50) train=$(count 1 30)"
expect_eq "one corpus" "$(sqlite3 $TMP/j/out/store.db 'SELECT group_concat(name) FROM corpus')" "ptb"
expect_eq "every task item's partition is its sentence's split (tr/va/te = train/dev/test), all three used" \
    "$(sqlite3 $TMP/j/out/store.db "SELECT count(*), sum(i.split = CASE s.split WHEN 'train' THEN 'tr' WHEN 'dev' THEN 'va' WHEN 'test' THEN 'te' END), count(DISTINCT i.split) FROM task_item i JOIN sentence s USING (sentence_id)")" \
    "$(sqlite3 $TMP/j/out/store.db "SELECT count(*) FROM task_item")|$(sqlite3 $TMP/j/out/store.db "SELECT count(*) FROM task_item")|3"
# the same name twice without "split": refused, naming the entry
sed 's/"split": "dev", //' $TMP/j/job.json >$TMP/j/bad.json
$SP run --check $TMP/j/bad.json >/dev/null 2>$TMP/e1 && rc=0 || rc=$?
check "a corpus named twice without split: refused" sh -c "[ $rc -ne 0 ] && grep -q 'corpora\[1\].name: corpus .ptb. is named twice (entries that ingest parts of one corpus each give its \"split\")' $TMP/e1"
done_testing
