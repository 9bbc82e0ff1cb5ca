# t5209-report-skipped-tasks.sh — every report format (text, json, csv, html, md, latex) and the run's summary name the tasks a job skipped, each with its reason, escaped for its format (issue 40, item 7)
# tier: fast
# t6202 shows a job skipping the tasks the probing protocol cannot run on; its text and JSON reports
# said so, the html, md, latex and csv reports did not. Here the job's tasks carry a hostile prefix
# (| & % < > a newline _ # $), so the skipped tasks' names are hostile; then one stored reason is
# made hostile by hand. Each format must show both tasks and both reasons, escaped as that format
# escapes names (the expected texts are written by hand below), and --compare, --task, a filter
# that leaves no result and --figures must not stumble on them.
. tests/cli/lib.sh
J=$TMP/j; mkdir -p $J; cp encoder/configs/san.json $J/
sed 's/"seed": 1/"seed": 7/' encoder/configs/san.json >$J/alt.json
# train: the demo's sentences 4..23, test: its last 7 (SOMO gets no test item: its build skips it);
# dev: two sentences with no verb (no Tense dev item: the protocol cannot run on Tense)
awk -v RS= -v ORS='\n\n' 'NR >= 4 && NR <= 23' demo/demo.conllu >$J/h-ud-train.conllu
awk -v RS= -v ORS='\n\n' 'NR >= 26' demo/demo.conllu >$J/h-ud-test.conllu
printf '%s\n' \
'# sent_id = d-1' '# text = Two small cups of hot tea for the tired guests.' \
'1	Two	two	NUM	CD	NumType=Card	3	nummod	_	_' '2	small	small	ADJ	JJ	Degree=Pos	3	amod	_	_' \
'3	cups	cup	NOUN	NNS	Number=Plur	0	root	_	_' '4	of	of	ADP	IN	_	6	case	_	_' \
'5	hot	hot	ADJ	JJ	Degree=Pos	6	amod	_	_' '6	tea	tea	NOUN	NN	Number=Sing	3	nmod	_	_' \
'7	for	for	ADP	IN	_	10	case	_	_' '8	the	the	DET	DT	Definite=Def|PronType=Art	10	det	_	_' \
'9	tired	tired	ADJ	JJ	Degree=Pos	10	amod	_	_' '10	guests	guest	NOUN	NNS	Number=Plur	3	nmod	_	SpaceAfter=No' \
'11	.	.	PUNCT	.	_	3	punct	_	_' '' \
'# sent_id = d-2' '# text = A quiet walk along the river after the rain.' \
'1	A	a	DET	DT	Definite=Ind|PronType=Art	3	det	_	_' '2	quiet	quiet	ADJ	JJ	Degree=Pos	3	amod	_	_' \
'3	walk	walk	NOUN	NN	Number=Sing	0	root	_	_' '4	along	along	ADP	IN	_	6	case	_	_' \
'5	the	the	DET	DT	Definite=Def|PronType=Art	6	det	_	_' '6	river	river	NOUN	NN	Number=Sing	3	nmod	_	_' \
'7	after	after	ADP	IN	_	9	case	_	_' '8	the	the	DET	DT	Definite=Def|PronType=Art	9	det	_	_' \
'9	rain	rain	NOUN	NN	Number=Sing	3	nmod	_	SpaceAfter=No' '10	.	.	PUNCT	.	_	3	punct	_	_' '' >$J/h-ud-dev.conllu
# the prefix, as JSON writes it and as the shell does
PJ='q|r&s%t<u>\nv_#$'
P=$(printf 'q|r&s%%t<u>\nv_#$')
cat >$J/job.json <<EOF
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "c", "paths": ["h-ud-train.conllu", "h-ud-dev.conllu", "h-ud-test.conllu"], "strict": true}],
 "tasks": [{"tasks": ["Tense", "BShift", "SOMO"], "seed": 1, "prefix": "$PJ"}],
 "encoders": [{"config": "san.json", "inputs": ["${PJ}Tense", "${PJ}BShift", "${PJ}SOMO"]},
              {"config": "alt.json", "inputs": ["${PJ}BShift"]}],
 "probes": [{"classifier": ["logreg"], "seed": [1], "preset": "senteval-fast"}],
 "reports": [{"format": "text", "out": "r.txt"}, {"format": "json", "out": "r.json"}, {"format": "csv", "out": "r.csv"},
             {"format": "html", "out": "h"}, {"format": "md", "out": "r.md"}, {"format": "latex", "out": "r.tex"}]}
EOF
rc=0; $SP run $J/job.json >$TMP/o 2>$TMP/e || rc=$?
expect_eq "the job runs to the end: exit 0" "$rc" 0
S=$J/out/s.db
check "the tasks step: the build skipped SOMO" grep -q "task SOMO skipped: no test items" $TMP/e
expect_eq "BShift probed twice (two encoders), Tense and SOMO not at all" \
    "$(sqlite3 $S "select count(*), count(distinct task_name) from probe_result")" "2|1"
UNFIT='the protocol needs training and dev instances \(have [0-9]+ train, 0 dev\)'
# the summary: one line per skipped task, the newline written as \n (the step lines above it aside)
sed -n '/^summary:/,$p' $TMP/o >$TMP/sum
check "the summary: Tense skipped, its name on one line" grep -qE '^task q\|r&s%t<u>\\nv_#\$Tense: skipped: '"$UNFIT" $TMP/sum
check "the summary: SOMO skipped by the build" grep -qF 'task q|r&s%t<u>\nv_#$SOMO: skipped: tasks build skipped it: no test items' $TMP/sum
check "the summary's table: BShift's name on one line too" grep -qF 'q|r&s%t<u>\nv_#$BShift  ' $TMP/sum
expect_eq "the summary: no line starts inside a name" "$(grep -c '^v_#' $TMP/sum)" 0
# the job's reports: every format names both tasks
for f in r.txt r.json r.csv h/report.html r.md r.tex; do
    expect_eq "the job's $f names both skipped tasks" "$(grep -cE 'v.*(Tense|SOMO)' $J/out/$f | awk '$1 >= 2 { print "yes" }')" yes
done
# one stored reason made hostile by hand: markup, the formats' special characters and a newline
sqlite3 $S "update task set params = json_set(params, '\$.skipped.SOMO', 'no <i>test</i> & 5% | {x}_#\$' || char(10) || 'y')"
R=$(printf 'no <i>test</i> & 5%% | {x}_#$\ny')
$SP report --db $S >$TMP/r.txt 2>$TMP/e
check "text: Tense's line, the newline written out" grep -qE '^  q\|r&s%t<u>\\nv_#\$Tense: skipped: '"$UNFIT" $TMP/r.txt
check "text: SOMO's line, the reason's newline written out" \
    grep -qxF '  q|r&s%t<u>\nv_#$SOMO: skipped: tasks build skipped it: no <i>test</i> & 5% | {x}_#$\ny' $TMP/r.txt
$SP report --db $S --format json --out $TMP/r.json 2>$TMP/e
expect_eq "json: skipped_tasks holds the names and reasons exactly" \
    "$($PY -c 'import json,sys; d=json.load(open(sys.argv[1]))["skipped_tasks"]; p=sys.argv[2]
print(sorted(d) == [p + "SOMO", p + "Tense"], d[p + "SOMO"] == "tasks build skipped it: " + sys.argv[3])' $TMP/r.json "$P" "$R")" "True True"
# csv: rows of kind skipped_task (task, metric "reason", value: the reason), read back by a CSV reader
$SP report --db $S --format csv --out $TMP/r.csv 2>$TMP/e
expect_eq "csv: two skipped_task rows, the name in task, the reason in value, other columns empty" \
    "$($PY -c 'import csv,sys,re; rows=list(csv.DictReader(open(sys.argv[1], newline=""))); p=sys.argv[2]
sk={r["task"]: r for r in rows if r["kind"] == "skipped_task"}
print(sorted(sk) == [p + "SOMO", p + "Tense"], all(r["metric"] == "reason" for r in sk.values()),
      sk[p + "SOMO"]["value"] == "tasks build skipped it: " + sys.argv[3],
      bool(re.fullmatch(sys.argv[4], sk[p + "Tense"]["value"])),
      all(v == "" for r in sk.values() for k, v in r.items() if k not in ("kind", "task", "metric", "value")),
      sum(r["kind"] == "probe" for r in rows) > 0)' $TMP/r.csv "$P" "$R" "$UNFIT")" "True True True True True True"
check "csv: report --help names the kind" sh -c "$SP report --help | grep -q 'skipped_task (a task the probing protocol'"
# html: parsed; the list's items read back as the names and reasons, and only <li> and <b> inside it
$SP report --db $S --format html --out $TMP/h 2>$TMP/e
cat >$TMP/page.py <<'EOF'
import html.parser, re, sys
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(convert_charrefs=True); s.inul = 0; s.items = []; s.tags = set(); s.cur = None; s.ids = set(); s.links = set()
    def handle_starttag(s, t, a):
        a = dict(a)
        if a.get("id"): s.ids.add(a["id"])
        if t == "a" and a.get("href"): s.links.add(a["href"])
        if t == "ul" and a.get("class") == "skipped": s.inul = 1; return
        if s.inul: s.tags.add(t)
        if s.inul and t == "li": s.cur = ""
    def handle_endtag(s, t):
        if s.inul and t == "ul": s.inul = 0
        if s.inul and t == "li": s.items.append(s.cur); s.cur = None
    def handle_data(s, d):
        if s.cur is not None: s.cur += d
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read()); p.close()
pre, reason, unfit = sys.argv[2], sys.argv[3], sys.argv[4]
it = dict(i.split(": skipped: ", 1) for i in p.items)
print(sorted(p.tags) == ["b", "li"], sorted(it) == [pre + "SOMO", pre + "Tense"],
      it[pre + "SOMO"] == "tasks build skipped it: " + reason, bool(re.fullmatch(unfit, it[pre + "Tense"])),
      "skipped" in p.ids and "#skipped" in p.links and "#probing" in p.links)
EOF
expect_eq "html: the parsed list holds both tasks and reasons as stored, no markup from them; the caveat links to it" \
    "$($PY $TMP/page.py $TMP/h/report.html "$P" "$R" "$UNFIT")" "True True True True True"
# md: the names and reasons escaped (| & < > _ $ get a backslash, a newline becomes a space); each row 3 bare pipes
$SP report --db $S --format md --out $TMP/r.md 2>$TMP/e
check "md: SOMO's row, escaped" grep -qxF '| q\|r\&s%t\<u\> v\_#\$SOMO | skipped: tasks build skipped it: no \<i\>test\</i\> \& 5% \| {x}\_#\$ y |' $TMP/r.md
check "md: Tense's row, escaped" grep -qE '^\| q\\\|r\\&s%t\\<u\\> v\\_#\\\$Tense \| skipped: '"$UNFIT"' \|$' $TMP/r.md
expect_eq "md: the table's rows have three bare pipes each" \
    "$(sed -n '/^\*\*Tasks without results/,$p' $TMP/r.md | grep '^|' | sed 's/\\|//g' | awk -F'|' '{ print NF - 1 }' | sort -u)" 3
# latex: & % $ # _ { } escaped, | < > as text commands, a newline as a space
$SP report --db $S --format latex --out $TMP/r.tex 2>$TMP/e
check "latex: SOMO's row, escaped" grep -qxF 'q\textbar{}r\&s\%t\textless{}u\textgreater{} v\_\#\$SOMO & skipped: tasks build skipped it: no \textless{}i\textgreater{}test\textless{}/i\textgreater{} \& 5\% \textbar{} \{x\}\_\#\$ y \\' $TMP/r.tex
check "latex: Tense's row, escaped" grep -qF 'q\textbar{}r\&s\%t\textless{}u\textgreater{} v\_\#\$Tense & skipped: the protocol needs' $TMP/r.tex
check "latex: the table's label" grep -qxF '\label{tab:synprobe-skipped-tasks}' $TMP/r.tex
# other modes with the skipped tasks present
for f in text json csv html md latex; do
    rc=0; $SP report --db $S --compare san,alt --format $f --out $TMP/c-$f >/dev/null 2>$TMP/e || rc=$?
    expect_eq "report --compare san,alt --format $f: exit 0" "$rc" 0
done
check "... the comparison and the skipped tasks both in the text" sh -c "grep -q 'alt' $TMP/c-text && grep -q 'SOMO: skipped' $TMP/c-text"
rc=0; $SP report --db $S --task "${P}BShift" --format json >$TMP/t.json 2>$TMP/e || rc=$?
expect_eq "--task BShift: exit 0, no skipped task named (not selected)" \
    "$rc $($PY -c 'import json,sys; print("skipped_tasks" in json.load(open(sys.argv[1])))' $TMP/t.json)" "0 False"
rc=0; $SP report --db $S --task "${P}Tense" --format md >$TMP/t.md 2>$TMP/e || rc=$?
check "--task Tense (no results, skipped): exit 0 ($rc), its row in the md" sh -c "[ $rc -eq 0 ] && grep -q 'v\\\\_#\\\\\$Tense | skipped' $TMP/t.md"
rc=0; $SP report --db $S --classifier mlp --format html >$TMP/hm.html 2>$TMP/e || rc=$?
check "--classifier mlp (no result) to stdout: exit 0 ($rc), the page still lists the skipped tasks" \
    sh -c "[ $rc -eq 0 ] && grep -q 'No probing-task results' $TMP/hm.html && grep -q '<ul class=\"skipped\">' $TMP/hm.html"
rc=0; $SP report --db $S --format csv --out $TMP/f.csv --figures $TMP/figs --figure-formats svg >/dev/null 2>$TMP/e || rc=$?
check "--figures with the skipped tasks: exit 0 ($rc), figures written" sh -c "[ $rc -eq 0 ] && ls $TMP/figs/*.svg >/dev/null"
done_testing
