# t6164-shipped-resplit.sh — the demo and the shipped jobs ask for the re-split they need, and say it
# tier: fast
# Issue 24 item 4: every shipped job and the demo relied on the silent re-split (the demo corpus,
# the PTB sample's sections 00-01, EWT dev alone have no train/dev/test of their own). They now
# carry "split": "resplit" in their tasks entry, pass run --check, and would be refused without it;
# the demo's output says its tasks are re-split, from what the store records.
. tests/cli/lib.sh
rc=0; $SP demo --out $TMP/d >$TMP/demo 2>&1 || rc=$?
expect_eq "demo: exit 0" "$rc" 0
expect_eq "demo: every task line says re-split 80/10/10 (3 tasks)" \
    "$(grep -c '^\(Tasks:\|     \) [A-Za-z]* *re-split 80/10/10 (the demo corpus has no train/dev/test split of its own), [0-9]* test items$' $TMP/demo)" 3
expect_eq "demo: its job asks for it" "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["tasks"][0]["split"])' $TMP/d/demo.job.json)" resplit
expect_eq "demo: the stored tasks say it (partition kind resplit, seed 1)" \
    "$(sqlite3 $TMP/d/demo.db "select distinct json_extract(params, '$.partition.kind') || ' ' || json_extract(params, '$.partition.seed') from task")" "resplit 1"
grep -q 'warning: tasks re-split 80/10/10 with seed 1' $TMP/d/pipeline.log && rc=0 || rc=$?
expect_eq "demo: pipeline.log has the re-split line" "$rc" 0

need_data
for j in ptb-sample ptb-minilm ewt-minilm gum-minilm; do
    f=contrib/jobs/$j.job.json
    case $j in *minilm) [ -f "$MODELS/all-MiniLM-L6-v2/model.safetensors" ] || { skip "$j: no MiniLM in $MODELS"; continue; };; esac
    # GUM is not in ../shared/data: the job reads it from a clone beside the checkout (its comment says how)
    case $j in gum-*) [ -f ../UD_English-GUM/en_gum-ud-dev.conllu ] || { skip "$j: ../UD_English-GUM not cloned"; continue; };; esac
    expect_eq "$j: its tasks entry asks for the re-split" "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["tasks"][0]["split"])' $f)" resplit
    rc=0; $SP run --check $f >/dev/null 2>$TMP/err || rc=$?
    expect_eq "$j: run --check exits 0" "$rc" 0
    # the same job without it, in $TMP: paths that exist made absolute, store and out under $TMP
    $PY - $f $TMP/$j.json <<'P'
import json, os, sys
src = sys.argv[1]
j = json.load(open(src))
del j["tasks"][0]["split"]
base = os.path.dirname(os.path.abspath(src))
def fix(v):
    if isinstance(v, dict): return {k: fix(x) for k, x in v.items()}
    if isinstance(v, list): return [fix(x) for x in v]
    if isinstance(v, str) and os.path.exists(os.path.join(base, v)): return os.path.join(base, v)
    return v
j = fix(j)
j["store"], j["out"] = "out/s.db", "out"
json.dump(j, open(sys.argv[2], "w"))
P
    rc=0; $SP run --check $TMP/$j.json >/dev/null 2>$TMP/err || rc=$?
    check "$j without it: refused (exit $rc), naming the corpus" sh -c "[ $rc = 1 ] && grep -q \"tasks\[0\]: corpus '[a-z]*' has no official train/test partitions\" $TMP/err"
done
done_testing
