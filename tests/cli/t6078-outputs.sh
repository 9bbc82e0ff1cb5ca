# t6078-outputs.sh — outputs are never clobbered: temp file and rename, symlinks replaced, demo --force
# tier: fast
# Outputs are never clobbered (issue 10, item 9). Every file a command writes
# goes to a temporary file in the same folder and is renamed into place only on success; a
# destination that is a symlink is replaced itself, never written through; demo never deletes
# an existing store without --force. Before the fix: report --run TYPO --out F emptied F, demo
# deleted DIR/demo.db, export --out followed symlinks, a failed trees --out left a partial file.
. tests/cli/lib.sh
need_numpy
"$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>&1
DB=$TMP/d/demo.db
q() { $PY -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }
no_tmp() { ! ls -a "$1" | grep -q '\.tmp-'; }

# ---- report --run TYPO --out F ----
"$SP" trees --db "$DB" --corpus demo --baseline right >/dev/null 2>&1
"$SP" report --db "$DB" --format json --out "$TMP/results.json"
cp "$TMP/results.json" "$TMP/results.before"
rc=0; "$SP" report --db "$DB" --run TYPO --format json --out "$TMP/results.json" 2>"$TMP/err" || rc=$?
expect_eq "report --run TYPO --out: exit 1" "$rc" 1
check "report --run TYPO: the message names the filter" grep -q "no probe results or tree evaluations match --run TYPO (nothing written)" "$TMP/err"
check "report --run TYPO: the existing file is unchanged" cmp -s "$TMP/results.json" "$TMP/results.before"
rc=0; "$SP" report --db "$DB" --out "$TMP/nodir/r.json" 2>"$TMP/err" || rc=$?
expect_eq "report --out into a missing folder: exit 1" "$rc" 1
check "report --out into a missing folder: says so" grep -q "nodir/r.json: cannot create" "$TMP/err"
check "report: no temporary file left" no_tmp "$TMP"

# ---- demo --out DIR with an existing store ----
n0=$(q "$DB" "SELECT count(*) FROM tree_eval")
rc=0; "$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "demo over an existing store: exit 1" "$rc" 1
check "demo over an existing store: the message says --force" grep -q "demo.db exists: refusing to replace a store (--force" "$TMP/err"
expect_eq "demo over an existing store: the store is intact" "$(q "$DB" "SELECT count(*) FROM tree_eval")" "$n0"
rc=0; "$SP" demo --out "$TMP/d" --ingest-only --force >/dev/null 2>&1 || rc=$?
expect_eq "demo --force: exit 0" "$rc" 0
expect_eq "demo --force: a fresh store (no tree evaluations)" "$(q "$DB" "SELECT count(*) FROM tree_eval")" 0

# ---- export --out through a symlink ----
"$SP" encode --db "$DB" --corpus demo --encoder encoder/configs/san.json --run r --quiet >/dev/null 2>&1
echo "precious" >"$TMP/target"
ln -s "$TMP/target" "$TMP/link.npy"
rc=0; "$SP" export --db "$DB" --what vectors --run r --format npy --out "$TMP/link.npy" 2>/dev/null || rc=$?
expect_eq "export --out LINK: exit 0" "$rc" 0
expect_eq "export --out LINK: the link's target is untouched" "$(cat "$TMP/target")" "precious"
check "export --out LINK: the link itself was replaced by the file" sh -c "[ ! -L '$TMP/link.npy' ] && [ -f '$TMP/link.npy' ]"
expect_eq "export --out LINK: the file is the vectors (32 rows)" \
  "$($PY -c "import numpy as np,sys; print(np.load(sys.argv[1]).shape[0])" "$TMP/link.npy")" 32
ln -s "$TMP/target" "$TMP/link.jsonl"
"$SP" export --db "$DB" --corpus demo --what sentences --format jsonl --out "$TMP/link.jsonl"
expect_eq "export --what sentences --out LINK: the target is untouched" "$(cat "$TMP/target")" "precious"

# ---- export --what tokens: FILE.lengths.npy ----
echo keep >"$TMP/tok.npy"; echo keep >"$TMP/tok.lengths.npy"
rc=0; "$SP" export --db "$DB" --what tokens --run r --format npy --out "$TMP/tok.npy" 2>"$TMP/err" || rc=$?
expect_eq "export tokens of a run without token vectors: exit 1" "$rc" 1
expect_eq "export tokens, failed: FILE and FILE.lengths.npy untouched" "$(cat "$TMP/tok.npy") $(cat "$TMP/tok.lengths.npy")" "keep keep"
"$SP" encode --db "$DB" --corpus demo --encoder encoder/configs/san.json --run rt --token-vectors --quiet >/dev/null 2>&1
rc=0; "$SP" export --db "$DB" --what tokens --run rt --format npy --out "$TMP/tok.npy" 2>"$TMP/err" || rc=$?
expect_eq "export tokens: exit 0" "$rc" 0
check "export tokens: the second file is named on stderr" grep -q "sentence lengths written to $TMP/tok.lengths.npy" "$TMP/err"
expect_eq "export tokens: lengths has one entry per sentence" \
  "$($PY -c "import numpy as np,sys; print(np.load(sys.argv[1]).shape[0])" "$TMP/tok.lengths.npy")" 32

# ---- a command failing half-way leaves its --out untouched ----
echo old >"$TMP/t.tst"; echo old >"$TMP/g.gld"
$PY -c "import numpy as np,sys; A=np.ones((32,64,64),np.float32); A[8:]=np.nan; np.save(sys.argv[1], A)" "$TMP/A.npy"
rc=0; "$SP" trees --db "$DB" --corpus demo --attention "$TMP/A.npy" --out "$TMP/t.tst" --gold-out "$TMP/g.gld" >/dev/null 2>&1 || rc=$?
expect_eq "trees failing on sentence 9 (of 12 with trees): exit 1" "$rc" 1
expect_eq "trees failing: --out and --gold-out untouched" "$(cat "$TMP/t.tst") $(cat "$TMP/g.gld")" "old old"
check "trees failing: no temporary file left" no_tmp "$TMP"

# ---- tasks build --out DIR, encode --save-weights ----
"$SP" tasks build --split resplit --db "$DB" --corpus demo --out "$TMP/tasks" >/dev/null 2>&1
check "tasks build --out: files written, no temporary left" sh -c "[ -s '$TMP/tasks/tasks.json' ] && ! ls -a '$TMP/tasks' | grep -q '\.tmp-'"
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder encoder/configs/san.json --run w --save-weights "$TMP/nodir/w.safetensors" --quiet >/dev/null 2>&1 || rc=$?
check "encode --save-weights into a missing folder: non-zero exit" test "$rc" -ne 0
done_testing
