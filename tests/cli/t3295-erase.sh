# t3295-erase.sh — `erase`: LEACE / INLP erasure of a word property into a new run, with its control
# tier: fast
# Issue 39 item 2. LEACE's arithmetic is checked against the concept-erasure package (0.2.4) and a
# NumPy re-derivation of the closed form in tests/unit/probes_leace.c (fixtures written by
# tests/reference/leace_fixtures.py). Here, end to end on the demo corpus and a small encoder run:
# the erased vectors stored as run NAME (of a corpus run, and of a sentence task's run) are recomputed in NumPy (leace_fixtures.numpy_leace on the
# source run's vectors, labels read from demo.conllu here) to 1e-4, and the class means of the
# erased vectors are checked equal (what LEACE guarantees); the erased UPOS probe falls to the
# majority baseline, the rank removed is #classes - 1, the random control of that rank leaves
# accuracy higher; INLP within its stated margin; determinism; the job step; bad inputs.
. tests/cli/lib.sh
need_numpy
DB=$TMP/t.db
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder encoder/configs/san.json --run san --token-vectors --quiet >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder encoder/configs/ms-san.json --run notok --quiet >/dev/null 2>&1
cp $DB $TMP/copy.db

# ---- LEACE fitted on every word: the stored run against NumPy ----
rc=0; $SP erase --db $DB --corpus demo --run san --property upos --out-run all --fit all --json >$TMP/all.json 2>$TMP/all.err || rc=$?
expect_eq "erase --fit all: exit 0" "$rc" 0
cat >$TMP/check.py <<'PY'
import json, sqlite3, sys
import numpy as np
sys.path.insert(0, "tests/reference")
from leace_fixtures import numpy_leace
db, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
# UPOS of every word of demo.conllu, in corpus order (no multiword or empty-node lines there)
upos = []
for line in open("demo/demo.conllu"):
    f = line.rstrip("\n").split("\t")
    if len(f) == 10 and f[0].isdigit():
        upos.append(f[3])
def run(name):
    con = sqlite3.connect(db)
    rows = con.execute("select v.tokens, v.data from run r join run_item i on i.run_id = r.run_id join vector v "
                       "on v.encoder_id = r.encoder_id and v.text_hash = i.text_hash where r.name = ? order by i.ordinal",
                       (name,)).fetchall()
    tok = [np.frombuffer(t, dtype="<f4") for t, _ in rows]
    vec = np.stack([np.frombuffer(d, dtype="<f4") for _, d in rows])
    return tok, vec
tok, vec = run(src)
d = vec.shape[1]
X = np.concatenate([t.reshape(-1, d) for t in tok])
assert X.shape[0] == len(upos), (X.shape, len(upos))
classes = sorted(set(upos))
z = np.array([classes.index(u) for u in upos])
ref, rank, _ = numpy_leace(X, z, len(classes), 0)
etok, evec = run(out)
E = np.concatenate([t.reshape(-1, d) for t in etok])
r = json.load(open(sys.argv[4]))
print("classes", len(classes), "rank", rank, "stage rank", r["rank_removed"], "max |stored - numpy|", np.abs(E - ref).max())
assert r["rank_removed"] == rank == len(classes) - 1, (r["rank_removed"], rank, len(classes))
assert np.abs(E - ref).max() < 1e-4
# the sentence vectors went through the same map (their own mean is not the words': x - L R (x - mu))
Xd = X.astype(np.float64)
mu = Xd.mean(axis=0)
Rmap = np.linalg.lstsq(Xd - mu, (Xd - ref), rcond=None)[0]      # the linear part, from the words
vref = vec - (vec - mu) @ Rmap
print("max |sentence vectors - the same map|", np.abs(evec - vref).max())
assert np.abs(evec - vref).max() < 1e-3
# LEACE's guarantee: every class mean of the erased vectors is the overall mean
gap = max(np.abs(E[z == c].mean(axis=0) - E.mean(axis=0)).max() for c in range(len(classes)))
print("max |class mean - mean| after", gap, "before", max(np.abs(X[z == c].mean(axis=0) - X.mean(axis=0)).max() for c in range(len(classes))))
assert gap < 1e-4
PY
check "the stored run = NumPy's LEACE on the source vectors (1e-4), rank #classes - 1, class means equal" \
    $PY $TMP/check.py $DB san all $TMP/all.json

# ---- LEACE fitted on the train partition: the probes ----
rc=0; $SP erase --db $DB --corpus demo --run san --property upos --out-run noupos --json --threads 2 >$TMP/a.json 2>$TMP/a.err || rc=$?
expect_eq "erase upos (LEACE, train words): exit 0" "$rc" 0
check "... UPOS falls to the majority baseline, the random control of the same rank stays above it" $PY -c "
import json; r = json.load(open('$TMP/a.json')); p = r['property_acc']
print(r['rank_removed'], r['nclasses'], p, r['majority'])
assert r['task'] == 'erase:token:upos' and r['method'] == 'leace' and r['source_run'] == 'san' and r['run'] == 'noupos'
assert r['rank_removed'] == r['nclasses'] - 1 and r['random_control']['rank'] == r['rank_removed']
assert abs(p['after'] - r['majority']) < 1e-6, (p, r['majority'])
assert p['before'] > p['after'] + 5 and p['random'] > p['after'] + 5, p
assert r['other']['task'] == 'token:deprel' and r['other']['before'] is not None
assert r['leace']['trace_after'] <= r['leace']['trace_before']
m = r['metrics']   # the report's interval: per test sentence, its words and the erased probe's hits
assert sum(m['item_tokens']) == r['ntest'] and abs(100 * sum(m['item_correct_count']) / r['ntest'] - p['after']) < 1e-6, m"
rc=0; $SP erase --db $TMP/copy.db --corpus demo --run san --property upos --out-run noupos --json --threads 1 >$TMP/b.json 2>/dev/null || rc=$?
check "the same seed on 1 thread in another store: the same figures" sh -c "[ $rc = 0 ] && cmp -s $TMP/a.json $TMP/b.json"
expect_eq "... and the same erased vectors, bit for bit" \
    "$(sqlite3 $DB "select hex(tokens) || hex(data) from vector v join run r on r.encoder_id = v.encoder_id where r.name = 'noupos' order by text_hash" | sha256sum)" \
    "$(sqlite3 $TMP/copy.db "select hex(tokens) || hex(data) from vector v join run r on r.encoder_id = v.encoder_id where r.name = 'noupos' order by text_hash" | sha256sum)"
expect_eq "the run's manifest: source run, property, method, rank removed" \
    "$(sqlite3 $DB "select json_extract(manifest, '\$.source_run') || ' ' || json_extract(manifest, '\$.property') || ' ' || json_extract(manifest, '\$.method') || ' ' || json_extract(manifest, '\$.rank_removed') from run where name = 'noupos'")" \
    "san upos leace $($PY -c "import json; print(json.load(open('$TMP/a.json'))['rank_removed'])")"
rc=0; $SP tokprobe --db $DB --corpus demo --run noupos --json --no-save >$TMP/tp.json 2>/dev/null || rc=$?
check "tokprobe reads the erased run: UPOS at the majority baseline there too" sh -c "[ $rc = 0 ] && $PY -c \"
import json; t = json.load(open('$TMP/tp.json')); a = json.load(open('$TMP/a.json'))
assert abs(t['acc'] - a['majority']) < 1e-6, (t['acc'], a['majority'])\""
$SP report --db $DB >$TMP/rep.txt 2>/dev/null
check "report lists the erasure's result" grep -Eq '^ +[0-9]+ +erase:token:upos +leace +1111 +noupos ' $TMP/rep.txt

# ---- INLP, depth ----
rc=0; $SP erase --db $DB --corpus demo --run san --property upos --method inlp --iterations 30 --out-run inlp --json >$TMP/i.json 2>/dev/null || rc=$?
check "INLP, 30 iterations: UPOS within its stated margin of the majority baseline" sh -c "[ $rc = 0 ] && $PY -c \"
import json; r = json.load(open('$TMP/i.json')); p = r['property_acc']
print(r['rank_removed'], p, r['majority'], r['inlp']['margin_points'])
assert r['method'] == 'inlp' and len(r['inlp']['devacc_per_iteration']) == 30
assert p['after'] <= r['majority'] + r['inlp']['margin_points'] and p['before'] > p['after']\""
rc=0; $SP erase --db $DB --corpus demo --run san --property depth --out-run nodepth --json >$TMP/d.json 2>/dev/null || rc=$?
check "depth: at most #depths - 1 directions, UPOS is the other task" sh -c "[ $rc = 0 ] && $PY -c \"
import json; r = json.load(open('$TMP/d.json'))
assert r['task'] == 'erase:token:depth' and 1 <= r['rank_removed'] <= r['nclasses'] - 1 and r['other']['task'] == 'token:upos', r\""

# ---- --uuas: the distance probe under each, as structprobe trains it (its partition seed = probe seed) ----
rc=0; $SP erase --db $DB --corpus demo --run san --property deprel --out-run nodeprel --uuas --seed 1 --json >$TMP/u.json 2>/dev/null || rc=$?
expect_eq "erase deprel --uuas: exit 0" "$rc" 0
$SP structprobe --db $DB --corpus demo --run san --probe-seed 1 --no-save --json >$TMP/sb.json 2>/dev/null
$SP structprobe --db $DB --corpus demo --run nodeprel --probe-seed 1 --no-save --json >$TMP/sa.json 2>/dev/null
check "... UUAS before and after = structprobe's on run san and on the stored erased run" $PY -c "
import json; u = json.load(open('$TMP/u.json'))['uuas']
b, a = json.load(open('$TMP/sb.json'))['uuas'], json.load(open('$TMP/sa.json'))['uuas']
print(u, b, a)
assert abs(u['before'] - b) < 1e-6 and abs(u['after'] - a) < 1e-6 and u['random'] is not None"

# ---- a sentence task: its label erased from a task run's sentence vectors ----
# the task: each demo sentence labelled long (> 10 words) or short, 6 of every 8 in train
$PY -c "
out = open('$TMP/len2.txt', 'w')
for i, block in enumerate(open('demo/demo.conllu').read().strip().split('\n\n')):
    w = [l.split('\t')[1] for l in block.split('\n') if l and l[0].isdigit()]
    out.write(('tr' if i % 8 < 6 else 'va' if i % 8 == 6 else 'te') + '\t' + ('long' if len(w) > 10 else 'short') + '\t' + ' '.join(w) + '\n')"
$SP tasks import --db $DB --name len2 $TMP/len2.txt >/dev/null 2>&1
$SP encode --db $DB --task len2 --encoder encoder/configs/san.json --run san-len2 --quiet >/dev/null 2>&1
rc=0; $SP erase --db $DB --corpus demo --run san-len2 --property len2 --out-run len2-erased --fit all --json >$TMP/t.json 2>/dev/null || rc=$?
expect_eq "erase a sentence task's label: exit 0" "$rc" 0
check "... the stored sentence vectors = NumPy's LEACE on the task run's (1e-4), one direction for two classes" $PY -c "
import json, sqlite3, sys
import numpy as np
sys.path.insert(0, 'tests/reference')
from leace_fixtures import numpy_leace
con = sqlite3.connect('$DB')
def vecs(name):
    return np.stack([np.frombuffer(b, dtype='<f4') for (b,) in con.execute(
        'select v.data from run r join run_item i on i.run_id = r.run_id join vector v on v.encoder_id = r.encoder_id '
        'and v.text_hash = i.text_hash where r.name = ? order by i.ordinal', (name,))])
X, E = vecs('san-len2'), vecs('len2-erased')
z = np.array([0 if l.split('\t')[1] == 'long' else 1 for l in open('$TMP/len2.txt')])
ref, rank, _ = numpy_leace(X, z, 2, 0)
r = json.load(open('$TMP/t.json'))
print('rank', r['rank_removed'], 'max |stored - numpy|', np.abs(E - ref).max())
assert r['task'] == 'erase:len2' and r['other'] is None and r['rank_removed'] == rank == 1 and X.shape[0] == 32
assert np.abs(E - ref).max() < 1e-4"
rc=0; $SP probe --db $DB --task len2 --run len2-erased >/dev/null 2>&1 || rc=$?
expect_eq "probe reads the erased task run" "$rc" 0
rc=0; $SP erase --db $DB --corpus demo --run san --property len2 --out-run x >/dev/null 2>$TMP/e8 || rc=$?
check "a sentence task on a corpus run: exit 1, says which run to give" sh -c "[ $rc = 1 ] && grep -q 'encode --task len2' $TMP/e8"

# ---- a job's erasures section ----
J=$TMP/j
mkdir -p $J
cp demo/demo.conllu encoder/configs/san.json $J/
cat >$J/job.json <<'JOB'
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "encoders": [{"config": "san.json", "inputs": ["demo"], "token-vectors": true}],
 "erasures": [{"run": "san", "property": "upos", "out-run": "san-noupos"}],
 "tokprobes": [{"task": "upos", "max-epoch": 20}]}
JOB
rc=0; $SP run $J/job.json >$TMP/job.out 2>&1 || rc=$?
expect_eq "a job with an erasure: exit 0" "$rc" 0
expect_eq "... the tokprobes are crossed with the erased run too" \
    "$(sqlite3 $J/out/s.db "select group_concat(r.name || ':' || p.task_name, ' ') from probe_result p join run r using (run_id) order by p.result_id")" \
    "san-noupos:erase:token:upos san:token:upos san-noupos:token:upos"

# ---- bad inputs ----
rc=0; $SP erase --db $DB --corpus demo --run san --property tense --out-run x >/dev/null 2>$TMP/e1 || rc=$?
check "an unknown property: exit 1, says what erase takes" sh -c "[ $rc = 1 ] && grep -q \"not upos, deprel or depth, and no task 'tense'\" $TMP/e1"
rc=0; $SP erase --db $DB --corpus demo --run san --property upos --out-run san >/dev/null 2>$TMP/e2 || rc=$?
check "--out-run the source run: exit 2" sh -c "[ $rc = 2 ] && grep -q 'need a run of their own' $TMP/e2"
rc=0; $SP erase --db $DB --corpus demo --run nosuch --property upos --out-run x >/dev/null 2>$TMP/e3 || rc=$?
check "an unknown run: exit 1, names it" sh -c "[ $rc = 1 ] && grep -q \"no run 'nosuch'\" $TMP/e3"
rc=0; $SP erase --db $DB --corpus demo --run notok --property upos --out-run x >/dev/null 2>$TMP/e4 || rc=$?
check "a run without token vectors: exit 1, says how to get them" sh -c "[ $rc = 1 ] && grep -q 'token-vectors' $TMP/e4"
rc=0; $SP erase --db $DB --corpus demo --run san --property upos --out-run notok >/dev/null 2>$TMP/e5 || rc=$?
check "--out-run taken by another encoder's run: exit 1, nothing overwritten" sh -c \
    "[ $rc = 1 ] && grep -q 'out-run notok' $TMP/e5 && [ \$(sqlite3 $DB \"select count(*) from run r join encoder e using (encoder_id) where r.name = 'notok' and e.kind = 'erase'\") = 0 ]"
rc=0; $SP erase --db $DB --corpus demo --run san --property upos >/dev/null 2>$TMP/e6 || rc=$?
expect_eq "--out-run missing: usage error" "$rc" 2
rc=0; $SP erase --db $DB --corpus demo --run san --layer 3 --property upos --out-run y >/dev/null 2>$TMP/e7 || rc=$?
check "--layer on a run without layer runs: exit 1, names what is missing" sh -c "[ $rc = 1 ] && grep -q \"run 'san' has no layer runs\" $TMP/e7"

# ---- --layer L: the layer run of an encode --layers pass (the real MiniLM; skipped without it) ----
if [ -f "$MODELS/all-MiniLM-L6-v2/model.safetensors" ]; then
    printf '{"kind": "bert", "model": "%s"}\n' "$(cd $MODELS/all-MiniLM-L6-v2 && pwd)" >$TMP/minilm.json
    $SP encode --db $DB --corpus demo --encoder $TMP/minilm.json --layers 0,2 --run m --token-vectors --quiet >/dev/null 2>&1
    rc=0; $SP erase --db $DB --corpus demo --run m --layer 2 --property upos --out-run m2-noupos --json >$TMP/l.json 2>/dev/null || rc=$?
    check "--layer 2: erases layer run m-L2 (exit 0)" sh -c "[ $rc = 0 ] && $PY -c \"
import json; r = json.load(open('$TMP/l.json')); assert r['source_run'] == 'm-L2' and r['rank_removed'] == r['nclasses'] - 1, r\""
    rc=0; $SP erase --db $DB --corpus demo --run m --layer 0,2 --property upos --out-run x >/dev/null 2>$TMP/e9 || rc=$?
    check "--layer 0,2: exit 2, erase takes one layer" sh -c "[ $rc = 2 ] && grep -q 'erase takes one layer' $TMP/e9"
else
    skip "--layer: no all-MiniLM-L6-v2 in $MODELS (make models)"
    skip "--layer 0,2: no all-MiniLM-L6-v2 in $MODELS (make models)"
fi
done_testing
