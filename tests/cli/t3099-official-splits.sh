# t3099-official-splits.sh — tasks follow a treebank's own train/dev/test partitions when it has them
# tier: fast
# Issue 14 item 3: tasks built from a treebank follow its own train/dev/test partitions when it has
# them (UD file names / a recorded split; PTB WSJ sections 02-21/22/23), and say which in the
# output and in every stored task's parameters. Issue 24 item 4: without them it stops unless the
# re-split is asked for (--split resplit); "partition" in the params is an object {kind, text}.
. tests/cli/lib.sh
# the demo corpus cut into UD-named train/dev/test files (32 sentences: 20/6/6)
$PY - demo/demo.conllu $TMP <<'P'
import sys
sents = open(sys.argv[1], encoding="utf-8").read().strip("\n").split("\n\n")
cut = {"train": sents[:20], "dev": sents[20:26], "test": sents[26:]}
for k, v in cut.items():
    open("%s/demo-ud-%s.conllu" % (sys.argv[2], k), "w", encoding="utf-8").write("\n\n".join(v) + "\n\n")
P
for s in train dev test; do $SP ingest --db $TMP/ud.db --corpus demo --split $s $TMP/demo-ud-$s.conllu >/dev/null 2>&1; done
$SP tasks build --db $TMP/ud.db --corpus demo --tasks SentLen,Tense,SubjNum,BShift >$TMP/out 2>&1 && rc=0 || rc=$?
expect_eq "tasks build on a corpus with recorded splits: exit 0" "$rc" 0
check "it says the partitions are the corpus's own" grep -q 'partitions: official: the recorded split of each sentence (train 20, dev 6, test 6)' $TMP/out
expect_eq "every item sits in its sentence's partition (items not matching: 0)" \
    "$(sqlite3 $TMP/ud.db "select count(*) from task_item i join sentence s using (sentence_id)
        where not ((i.split = 'tr' and s.split = 'train') or (i.split = 'va' and s.split = 'dev') or (i.split = 'te' and s.split = 'test'))")" 0
check "... and there are items in all three partitions" sh -c "[ \$(sqlite3 $TMP/ud.db 'select count(distinct split) from task_item') = 3 ]"
expect_eq "the stored task records it" "$(sqlite3 $TMP/ud.db "select count(*) from task where json_extract(params, '$.partition.kind') = 'official' and json_extract(params, '$.partition.text') like 'official:%'")" \
    "$(sqlite3 $TMP/ud.db 'select count(*) from task')"
# --split resplit: the docs/spec/probing.md §2.1 re-split instead, said so
$SP tasks build --db $TMP/ud.db --corpus demo --tasks SentLen --prefix r- --split resplit >$TMP/out2 2>&1 && rc=0 || rc=$?
check "--split resplit: re-split, and said so" sh -c "[ $rc = 0 ] && grep -q 'partitions: re-split 80/10/10, seeded (--split resplit)' $TMP/out2"
# a corpus without recorded splits: no silent re-split (issue 24), the default and --split official stop
$SP ingest --db $TMP/plain.db --corpus demo demo/demo.conllu >/dev/null 2>&1
$SP tasks build --db $TMP/plain.db --corpus demo --tasks SentLen >$TMP/out3 2>&1 && rc=0 || rc=$?
check "no recorded split: exit 1, naming the corpus, the reason and the opt-in" sh -c "[ $rc = 1 ] && grep -q \"corpus 'demo' has no official train/test partitions: no recorded train/dev/test split\" $TMP/out3 && grep -q -- '--split resplit' $TMP/out3"
$SP tasks build --db $TMP/plain.db --corpus demo --tasks SentLen --prefix o- --split official >$TMP/out4 2>&1 && rc=0 || rc=$?
expect_eq "--split official on it: exit 1" "$rc" 1
check "... naming why" grep -q -- "corpus 'demo' has no official train/test partitions: no recorded train/dev/test split" $TMP/out4
# PTB: WSJ sections by the parsing convention (02-21 train, 22 dev, 23 test; others left out):
# real WSJ files of the sample, renamed into sections 02, 03, 22, 23 and 24
need_data
mkdir -p $TMP/wsj
i=1
for f in wsj_0201 wsj_0301 wsj_2201 wsj_2301 wsj_2401; do
    cat $DATA/ptb-sample/combined/wsj_00$(printf %02d $i).mrg $DATA/ptb-sample/combined/wsj_00$(printf %02d $((i+5))).mrg \
        $DATA/ptb-sample/combined/wsj_00$(printf %02d $((i+10))).mrg >$TMP/wsj/$f.mrg
    i=$((i+1))
done
$SP ingest --db $TMP/ptb.db --corpus wsj $TMP/wsj >/dev/null 2>&1
$SP tasks build --db $TMP/ptb.db --corpus wsj --tasks SentLen,BShift >$TMP/out5 2>&1 && rc=0 || rc=$?
check "WSJ sections: the PTB convention, and said so" sh -c "[ $rc = 0 ] && grep -q 'partitions: official: PTB WSJ sections 02-21 train ([0-9]*), 22 dev ([0-9]*), 23 test ([0-9]*); other sections left out' $TMP/out5"
expect_eq "items of section 23 are test, of 22 dev, of 02-03 train; none of section 24" \
    "$(sqlite3 $TMP/ptb.db "select distinct substr(s.doc, 5, 2) || ':' || i.split from task_item i join sentence s using (sentence_id)" | sort | tr '\n' ' ')" \
    "02:tr 03:tr 22:va 23:te "
done_testing
