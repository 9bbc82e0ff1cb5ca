# t3290-mdl.sh — `mdl`: the online codelength (Voita & Titov 2020) of token and sentence tasks
# tier: fast
# Issue 39 item 1. On the demo corpus with the seeded SAN encoder's token vectors (as t3102): the
# blocks at the paper's boundaries, uniform = n log2 K, codelength = the sum of the blocks, the
# codelengths recomputed independently from the dumped logits (tests/reference/mdl_ref.py, NumPy),
# the control task compressing worse than the real labels, determinism, storage, the report, a job's
# "mdl" section crossed with the runs that keep token vectors, a sentence task, and bad inputs.
. tests/cli/lib.sh
need_numpy
DB=$TMP/t.db
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder encoder/configs/san.json --run san --token-vectors --quiet >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder encoder/configs/ms-san.json --run notok --quiet >/dev/null 2>&1
$SP mdl --db $DB --corpus demo --run san --json --dump $TMP/d.tsv >$TMP/a.json 2>$TMP/a.err && rc=0 || rc=$?
expect_eq "mdl upos: exit 0" "$rc" 0
# the expected figures from the numbers of the corpus, computed here, not by the program
check "blocks at floor(n f) for the paper's fractions, uniform = n log2 K, codelength = sum of blocks, both codes" $PY -c "
import json, math
from fractions import Fraction as F
r = json.load(open('$TMP/a.json'))
fr = [F(1,1000), F(2,1000), F(4,1000), F(8,1000), F(16,1000), F(32,1000), F(1,16), F(1,8), F(1,4), F(1,2), F(1)]
for c in (r, r['control']):
    n, k = c['ntrain'], c['labels']
    ends = [math.floor(n * f) for f in fr]
    sizes = [e - s for s, e in zip([0] + ends[:-1], ends)]
    assert [b['size'] for b in c['blocks']] == sizes, (sizes, c['blocks'])
    assert abs(c['uniform_bits'] - n * math.log2(k)) < 1e-6 * c['uniform_bits'], c
    assert abs(c['codelength_bits'] - sum(b['bits'] for b in c['blocks'])) < 1e-6 * c['codelength_bits'], c
    assert abs(c['compression'] - c['uniform_bits'] / c['codelength_bits']) < 1e-8, c
    first = [b for b in c['blocks'] if b['start'] == 0]
    assert all(b['code'] == 'uniform' and abs(b['bits'] - b['size'] * math.log2(k)) < 1e-9 for b in first), first
assert r['task'] == 'token:upos' and r['labels'] > 5 and r['ntrain'] > 200
assert abs(r['selectivity_bits'] - (r['control']['codelength_bits'] - r['codelength_bits'])) < 1e-6"
# The control task against UPOS: on SAN's seeded random embeddings both labellings can only be
# memorised word type by word type, and on 289 words neither compresses better (Hewitt & Liang's
# point about random representations); MS-SAN's attention follows the gold dependency distances,
# so its token vectors carry context that generalises across word types: there UPOS compresses
# better than the control labels (8 of the first 9 seeds; 1111 here).
$SP encode --db $DB --corpus demo --encoder encoder/configs/ms-san.json --run mstok --token-vectors --quiet >/dev/null 2>&1
$SP mdl --db $DB --corpus demo --run mstok --json --no-save >$TMP/ms.json 2>/dev/null
check "MS-SAN: the control task compresses worse than UPOS, selectivity > 0 bits" $PY -c "
import json; r = json.load(open('$TMP/ms.json'))
print('# MS-SAN UPOS compression %.3f, control %.3f' % (r['compression'], r['control']['compression']))
assert r['control']['compression'] < r['compression'] and r['selectivity_bits'] > 0, (r['compression'], r['control']['compression'])"
sqlite3 $DB "select result from probe_result order by result_id desc limit 1" >$TMP/stored.json
check "NumPy recomputes every block's bits from the dumped logits (17 digits, rel 1e-11)" $PY tests/reference/mdl_ref.py $TMP/d.tsv $TMP/stored.json
$PY -c "
import json; r = json.load(open('$TMP/stored.json')); r['blocks'][9]['bits'] += 1e-6
json.dump(r, open('$TMP/bad.json', 'w'))"
check "... and says so when one block is off by 1e-6 bits" sh -c "! $PY tests/reference/mdl_ref.py $TMP/d.tsv $TMP/bad.json >$TMP/ref.out 2>&1 && grep -q '# MISMATCH task: block 9' $TMP/ref.out"
expect_eq "stored as a probe result, classifier mdl, no accuracy" \
    "$(sqlite3 $DB "select task_name || ' ' || classifier || ' ' || seed || ' ' || coalesce(test_acc, 'null') from probe_result")" "token:upos mdl 1111 null"
check "... its manifest says how the corpus was partitioned" sh -c \
    "sqlite3 $DB \"select json_extract(result, '\$.manifest.partition') from probe_result\" | grep -q '^re-split 80/10/10 by sentence, seed 1'"
$SP mdl --db $DB --corpus demo --run san --json --no-save --threads 1 >$TMP/b.json 2>/dev/null
expect_cmp "the same seed, one thread: the same bytes" $TMP/a.json $TMP/b.json
$SP mdl --db $DB --corpus demo --run san --json --no-save --seed 7 >$TMP/c.json 2>/dev/null
check "another seed: another order, other bits" sh -c "! cmp -s $TMP/a.json $TMP/c.json"
$SP mdl --db $DB --corpus demo --run san --task deprel --no-control --json --no-save >$TMP/dep.json 2>/dev/null && rc=0 || rc=$?
check "deprel without the control: exit 0, no control code" $PY -c "
import json; r = json.load(open('$TMP/dep.json')); assert $rc == 0 and r['task'] == 'token:deprel' and 'control' not in r, r"
$SP report --db $DB >$TMP/rep.txt 2>/dev/null
expect_grep "the text report lists it in the MDL table" '^ +1  token:upos +1111  san +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ ' $TMP/rep.txt
check "... and not among the accuracy aggregates" sh -c "! grep -Eq '^san +token:upos +mdl' $TMP/rep.txt"
$SP report --db $DB --format csv >$TMP/rep.csv 2>/dev/null
expect_grep "the CSV report gives its codelength" '^probe,1,san,san,,san,token:upos,mdl,1111,,,train,,codelength_bits,,,[0-9.]+$' $TMP/rep.csv
$SP report --db $DB --format json >$TMP/rep.json 2>/dev/null
check "the JSON report carries its blocks" $PY -c "
import json; r = json.load(open('$TMP/rep.json'))
m = [p for p in r['probe_results'] if p['classifier'] == 'mdl']
assert len(m) == 1 and len(m[0]['result']['blocks']) == 11 and not [a for a in r['aggregates'] if a['classifier'] == 'mdl'], r['aggregates']"
# a sentence task: the stored task's items and a run encoding it
# (a SentEval file of the demo sentences, labelled by length: the demo is too small for tasks build)
$PY -c "
sents, words = [], []
for line in open('demo/demo.conllu', encoding='utf-8'):
    c = line.rstrip('\n').split('\t')
    if len(c) == 10 and c[0].isdigit(): words.append(c[1])
    elif not line.strip() and words: sents.append(words); words = []
if words: sents.append(words)
for i, w in enumerate(sents):
    print(('tr' if i < 24 else 'va' if i < 28 else 'te') + '\t' + ('short' if len(w) < 10 else 'long') + '\t' + ' '.join(w))
" >$TMP/len.txt
$SP tasks import --db $DB --name Len $TMP/len.txt >/dev/null 2>&1
$SP encode --db $DB --task Len --encoder encoder/configs/san.json --run san-len --quiet >/dev/null 2>&1
$SP mdl --db $DB --run san-len --task Len --json --no-save >$TMP/s.json 2>$TMP/s.err && rc=0 || rc=$?
check "a sentence task: exit 0, its 24 training items, 2 labels, control labels shuffled" $PY -c "
import json; r = json.load(open('$TMP/s.json'))
assert $rc == 0 and r['task'] == 'Len' and r['ntrain'] == 24 and r['labels'] == 2 and 'shuffled' in r['control']['kind'], r"
# a job: the "mdl" section crossed with the runs that keep token vectors
J=$TMP/j; mkdir -p $J; cp demo/demo.conllu encoder/configs/san.json encoder/configs/ms-san.json $J/
cat >$J/job.json <<'JOB'
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "encoders": [{"config": "san.json", "inputs": ["demo"], "token-vectors": true},
              {"config": "ms-san.json", "inputs": ["demo"]}],
 "mdl": [{"task": "upos", "max-epoch": 20}]}
JOB
$SP run $J/job.json >$TMP/job.out 2>&1 && rc=0 || rc=$?
sed 's/"mdl": \[{"task": "upos", "max-epoch": 20}\]/"mdl": [{"task": "Len", "corpus": "demo", "run": "san"}]/' $J/job.json >$J/bad.json
$SP run --check $J/bad.json >/dev/null 2>$TMP/jbad && jrc=0 || jrc=$?
check "a job's mdl entry with a sentence task and a corpus: refused when the job is loaded, naming the key" sh -c "[ $jrc = 1 ] && grep -q 'mdl\[0\].corpus: a sentence task' $TMP/jbad"
expect_eq "a job's mdl entry: exit 0" "$rc" 0
expect_eq "... one step, on the run that keeps token vectors" "$(grep -cE '^\[[0-9]+/[0-9]+\] mdl upos san: .*codelength' $TMP/job.out)" 1
expect_eq "... one stored result" "$(sqlite3 $J/out/s.db "select count(*) from probe_result where classifier = 'mdl'")" 1
# bad inputs: one clear message each
$SP mdl --db $DB --corpus demo --run notok >/dev/null 2>$TMP/e1 && rc=0 || rc=$?
check "a run without token vectors: exit 1, says how to get them" sh -c "[ $rc = 1 ] && grep -q 'encode the corpus again with --token-vectors' $TMP/e1"
$SP mdl --db $DB --corpus demo --run nosuch >/dev/null 2>$TMP/e2 && rc=0 || rc=$?
check "an unknown run: exit 1, names it" sh -c "[ $rc = 1 ] && grep -q \"no run 'nosuch'\" $TMP/e2"
$SP mdl --db $DB --run san --task Nosuch >/dev/null 2>$TMP/e3 && rc=0 || rc=$?
check "an unknown task: exit 1, names it" sh -c "[ $rc = 1 ] && grep -q \"Nosuch\" $TMP/e3"
$SP mdl --db $DB --run san >/dev/null 2>$TMP/e4 && rc=0 || rc=$?
check "upos without --corpus: usage error naming it" sh -c "[ $rc = 2 ] && grep -q -- '--corpus' $TMP/e4"
$SP mdl --db $DB --corpus demo --run san-len --task Len >/dev/null 2>$TMP/e7 && rc=0 || rc=$?
check "--corpus with a sentence task: usage error naming it" sh -c "[ $rc = 2 ] && grep -q -- '--corpus: a sentence task' $TMP/e7"
$SP mdl --db $DB --corpus demo >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "--run missing: usage error" "$rc" 2
$SP mdl --db $DB --corpus demo --run san --seed -1 >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "a negative seed: usage error" "$rc" 2
$SP mdl --db $DB --corpus demo --run san --no-save --dump $TMP/nodir/d.tsv >/dev/null 2>$TMP/e5 && rc=0 || rc=$?
check "a dump file that cannot be written: exit 1, names it" sh -c "[ $rc = 1 ] && grep -q 'nodir/d.tsv' $TMP/e5"
$SP mdl --db $DB --corpus demo --run san --layer all --dump $TMP/x.tsv >/dev/null 2>$TMP/e6 && rc=0 || rc=$?
check "--dump with --layer: usage error" sh -c "[ $rc = 2 ] && grep -q -- '--dump writes one run' $TMP/e6"
done_testing
