# t6202-job-unfit-tasks.sh — a job skips the encodes and probes of a task the probing protocol cannot run on, says why in the step lines, the summary and the report, and runs to the end (issue 40, item 7)
# tier: fast
# Before the fix a job over a corpus with too small a dev file built its tasks, encoded every one,
# then failed at the first probe: "the protocol needs training and dev instances (have 12 train,
# 0 dev)". Here the dev file is written by hand with three sentences that have no verb at all, so
# by construction Tense, SubjNum and ObjNum (a finite main verb, a nominal subject, a direct
# object) get no dev item, while BShift (any sentence long enough) gets some. SOMO has no test
# item here, so tasks build skips it: the job must skip its encode and probe as well.
. tests/cli/lib.sh
J=$TMP/j; mkdir -p $J; cp encoder/configs/san.json $J/
# train: the demo's first 22 sentences, test: its last 7 (blank-line separated blocks)
awk -v RS= -v ORS='\n\n' 'NR <= 22' demo/demo.conllu >$J/t-ud-train.conllu
awk -v RS= -v ORS='\n\n' 'NR >= 26' demo/demo.conllu >$J/t-ud-test.conllu
printf '%s\n' \
'# sent_id = dev-1' '# text = A very good morning to all of you.' \
'1	A	a	DET	DT	_	4	det	_	_' '2	very	very	ADV	RB	_	3	advmod	_	_' \
'3	good	good	ADJ	JJ	Degree=Pos	4	amod	_	_' '4	morning	morning	NOUN	NN	Number=Sing	0	root	_	_' \
'5	to	to	ADP	IN	_	6	case	_	_' '6	all	all	PRON	DT	_	4	nmod	_	_' '7	of	of	ADP	IN	_	8	case	_	_' \
'8	you	you	PRON	PRP	Case=Acc|Person=2|PronType=Prs	6	nmod	_	SpaceAfter=No' '9	.	.	PUNCT	.	_	4	punct	_	_' '' \
'# sent_id = dev-2' '# text = Many thanks for the lovely flowers and the kind card.' \
'1	Many	many	ADJ	JJ	Degree=Pos	2	amod	_	_' '2	thanks	thanks	NOUN	NNS	Number=Plur	0	root	_	_' \
'3	for	for	ADP	IN	_	6	case	_	_' '4	the	the	DET	DT	Definite=Def|PronType=Art	6	det	_	_' \
'5	lovely	lovely	ADJ	JJ	Degree=Pos	6	amod	_	_' '6	flowers	flower	NOUN	NNS	Number=Plur	2	nmod	_	_' \
'7	and	and	CCONJ	CC	_	10	cc	_	_' '8	the	the	DET	DT	Definite=Def|PronType=Art	10	det	_	_' \
'9	kind	kind	ADJ	JJ	Degree=Pos	10	amod	_	_' '10	card	card	NOUN	NN	Number=Sing	6	conj	_	SpaceAfter=No' \
'11	.	.	PUNCT	.	_	2	punct	_	_' '' \
'# sent_id = dev-3' '# text = The end of a long and quiet day in the old town.' \
'1	The	the	DET	DT	Definite=Def|PronType=Art	2	det	_	_' '2	end	end	NOUN	NN	Number=Sing	0	root	_	_' \
'3	of	of	ADP	IN	_	8	case	_	_' '4	a	a	DET	DT	Definite=Ind|PronType=Art	8	det	_	_' \
'5	long	long	ADJ	JJ	Degree=Pos	8	amod	_	_' '6	and	and	CCONJ	CC	_	7	cc	_	_' \
'7	quiet	quiet	ADJ	JJ	Degree=Pos	5	conj	_	_' '8	day	day	NOUN	NN	Number=Sing	2	nmod	_	_' \
'9	in	in	ADP	IN	_	12	case	_	_' '10	the	the	DET	DT	Definite=Def|PronType=Art	12	det	_	_' \
'11	old	old	ADJ	JJ	Degree=Pos	12	amod	_	_' '12	town	town	NOUN	NN	Number=Sing	8	nmod	_	SpaceAfter=No' \
'13	.	.	PUNCT	.	_	2	punct	_	_' '' >$J/t-ud-dev.conllu
cat >$J/job.json <<'EOF2'
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "c", "paths": ["t-ud-train.conllu", "t-ud-dev.conllu", "t-ud-test.conllu"], "strict": true}],
 "tasks": [{"tasks": ["Tense", "SubjNum", "BShift", "SOMO", "ObjNum"], "seed": 1}],
 "encoders": [{"config": "san.json", "inputs": ["Tense", "SubjNum", "BShift", "SOMO", "ObjNum"]}],
 "probes": [{"classifier": ["logreg"], "seed": [1], "preset": "senteval-fast"}],
 "reports": [{"format": "json", "out": "r.json"}, {"format": "text", "out": "r.txt"}]}
EOF2
rc=0; $SP run --check $J/job.json >/dev/null 2>$TMP/e || rc=$?
expect_eq "run --check: exit 0" "$rc" 0
rc=0; $SP run $J/job.json >$TMP/o 2>$TMP/e || rc=$?
expect_eq "the job runs to the end: exit 0" "$rc" 0
S=$J/out/s.db
expect_eq "the dev file's verbless sentences: Tense, SubjNum, ObjNum have no dev item" \
    "$(sqlite3 $S "select t.name from task t where (select count(*) from task_item i where i.task_id = t.task_id and i.split = 'va') = 0 order by 1" | paste -sd' ')" \
    "ObjNum SubjNum Tense"
UNFIT='the protocol needs training and dev instances \(have [0-9]+ train, 0 dev\)'
for t in Tense SubjNum ObjNum; do
    check "encode over $t: skipped, saying why" grep -qE "encode san-$t over $t: skipped: task '$t': $UNFIT" $TMP/o
    check "probe of $t: skipped, saying why" grep -qE "probe $t .*: skipped: task '$t': $UNFIT" $TMP/o
    check "the summary: task $t: skipped" grep -qE "^task $t: skipped: $UNFIT" $TMP/o
    check "the text report: $t: skipped" grep -qE "^  $t: skipped: $UNFIT" $J/out/r.txt
done
check "the tasks step names them and says their encodes and probes are skipped" \
    grep -qE "tasks build c: .*cannot run on Tense .*SubjNum .*ObjNum .*: their encodes and probes are skipped" $TMP/o
check "SOMO (skipped by tasks build: no test item): its encode is skipped too, with the build's reason" \
    grep -qE "encode san-SOMO over SOMO: skipped: task 'SOMO': tasks build skipped it: no test items" $TMP/o
check "... and the summary says so" grep -qE "^task SOMO: skipped: tasks build skipped it: no test items" $TMP/o
expect_eq "the JSON report: skipped_tasks names the four" \
    "$($PY -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1]))["skipped_tasks"])))' $J/out/r.json)" \
    "ObjNum SOMO SubjNum Tense"
expect_eq "BShift was encoded and probed: one run, one result" \
    "$(sqlite3 $S "select group_concat(name) from run; select group_concat(task_name) from probe_result")" "san-BShift
BShift"
check "the final line says some steps were skipped" grep -q "some skipped: a task the probing protocol cannot run on" $TMP/o
# again: nothing is encoded a second time, the skips are said again from the store
rc=0; $SP run $J/job.json >$TMP/o2 2>$TMP/e || rc=$?
expect_eq "a second run: exit 0" "$rc" 0
check "... it encodes nothing again" grep -q "encode san-BShift over BShift: no work: run san-BShift: 0 encoded" $TMP/o2
check "... and skips Tense again, saying why" grep -qE "probe Tense .*: skipped: task 'Tense': $UNFIT" $TMP/o2
# the stage itself still refuses such a task on its own (a command, not a job)
$SP encode --db $S --encoder $J/san.json --task Tense --run x-Tense >/dev/null 2>&1 || true
rc=0; $SP probe --db $S --task Tense --run x-Tense --preset senteval-fast --no-save >/dev/null 2>$TMP/e || rc=$?
check "synprobe probe on Tense alone: exit non-zero ($rc) with the protocol's words" \
    sh -c "[ $rc -ne 0 ] && grep -qE '$UNFIT' $TMP/e"
done_testing
