# t3163-files-official.sh — tasks build --corpus-files takes the official split from UD file names, as a job's ingest does
# tier: fast
# Issue 24 item 4: "official splits where the files give them". A job's ingest records the split a
# UD file name gives (*-ud-train|dev|test.conllu); tasks build --corpus-files read the same files
# with no split at all and re-split them. Now the file names give the partitions there too, and a
# dev file alone stops (no train) unless --split resplit. Independent expectation: each SentLen
# item of partition te|va|tr is a sentence (its FORMs joined by spaces) of the test|dev|train file,
# computed in Python from the CoNLL-U files.
. tests/cli/lib.sh
need_data
$PY - $DATA/ud-ewt/en_ewt-ud-dev.conllu $TMP <<'P'
import sys
s = open(sys.argv[1], encoding="utf-8").read().strip("\n").split("\n\n")
for name, part in (("train", s[:1400]), ("dev", s[1400:1700]), ("test", s[1700:])):
    open("%s/xx-ud-%s.conllu" % (sys.argv[2], name), "w", encoding="utf-8").write("\n\n".join(part) + "\n\n")
P
rc=0; $SP tasks build --corpus-files $TMP/xx-ud-train.conllu $TMP/xx-ud-dev.conllu $TMP/xx-ud-test.conllu \
    --tasks SentLen --out $TMP/t >$TMP/out 2>$TMP/err || rc=$?
expect_eq "train/dev/test files: exit 0 without --split" "$rc" 0
check "the partitions are the files' own (1400 / 300 / 301 sentences)" \
    grep -q '^partitions: official: the recorded split of each sentence (train 1400, dev 300, test 301)$' $TMP/out
expect_eq "every SentLen item lies in its file's partition (items elsewhere: 0)" "$($PY - $TMP <<'P'
import sys
d = sys.argv[1]
where = {}
for name, tag in (("train", "tr"), ("dev", "va"), ("test", "te")):
    for block in open("%s/xx-ud-%s.conllu" % (d, name), encoding="utf-8").read().strip("\n").split("\n\n"):
        forms = [l.split("\t")[1] for l in block.split("\n") if l and not l.startswith("#") and l.split("\t")[0].isdigit()]
        where.setdefault(" ".join(forms), set()).add(tag)
bad = n = 0
for line in open(d + "/t/sentence_length.txt", encoding="utf-8"):
    part, _, text = line.rstrip("\n").split("\t")
    n += 1
    bad += part not in where.get(text, ())
print(bad if n > 100 else "only %d items" % n)
P
)" 0
rc=0; $SP tasks build --corpus-files $TMP/xx-ud-dev.conllu --tasks SentLen >/dev/null 2>$TMP/err || rc=$?
expect_eq "a dev file alone: exit 1" "$rc" 1
check "... naming the files' splits and the opt-in" sh -c "grep -q 'the files given (--corpus-files) have no official train/test partitions: no train split (sentences: dev 300)' $TMP/err && grep -q -- '--split resplit' $TMP/err"
rc=0; $SP tasks build --corpus-files $TMP/xx-ud-dev.conllu --tasks SentLen --split auto >/dev/null 2>&1 || rc=$?
expect_eq "--split auto is official's old name: it stops too" "$rc" 1
rc=0; $SP tasks build --corpus-files $TMP/xx-ud-dev.conllu --tasks SentLen --split resplit >$TMP/out 2>$TMP/err || rc=$?
check "--split resplit: exit 0, the re-split printed (seed 1) and in the partitions line" sh -c "[ $rc = 0 ] &&
    grep -q 'warning: tasks re-split 80/10/10 with seed 1, as asked (--split resplit): the files given (--corpus-files) have no official partitions: no train split; sentences: dev 300' $TMP/err &&
    grep -q '^partitions: re-split 80/10/10, seeded (--split resplit)' $TMP/out"
done_testing
