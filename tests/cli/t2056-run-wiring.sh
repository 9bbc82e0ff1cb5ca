# t2056-run-wiring.sh — stored encoder runs feed probe and trees the same data as exported files
# tier: fast
# Stored encoder runs feed the probes: `probe --db --task T --run R` and
# `trees --db --corpus C --run R` (issue #4 item 6).
# Expectations: the run path gives the same data (same SHA-256 of X, labels and splits) and the
# same numbers as the file path fed with `export --what vectors|attention` of the same run, whose
# contents t2055 checks against the NumPy reference; the result rows are linked to the run; a run
# over another source or with skipped items is a clear error.
. tests/cli/lib.sh
need_numpy
D=$TMP/demo
"$SP" demo --out "$D" --ingest-only >/dev/null 2>&1
DB=$D/demo.db
C=encoder/configs
"$SP" tasks build --split resplit --db "$DB" --corpus demo --tasks Tense,SOMO >/dev/null 2>&1
jq() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
q() { $PY -c "import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone(); print(r[0] if r else '')" "$1" "$2"; }

# ---- probe --run
"$SP" encode --db "$DB" --task SOMO --encoder $C/ms-san.json --run somo --quiet
"$SP" export --db "$DB" --what vectors --run somo --format npy --out "$TMP/somo.npy"
rc=0; "$SP" probe --db "$DB" --task SOMO --run somo --json --quiet >"$TMP/run.json" || rc=$?
expect_eq "probe --run: exit 0" "$rc" 0
"$SP" probe --db "$DB" --task SOMO --vectors "$TMP/somo.npy" --json --quiet --no-save >"$TMP/file.json"
expect_eq "probe --run: same dev accuracy as the exported vectors" "$(jq "$TMP/run.json" "d['devacc']")" "$(jq "$TMP/file.json" "d['devacc']")"
expect_eq "probe --run: same test accuracy" "$(jq "$TMP/run.json" "d['acc']")" "$(jq "$TMP/file.json" "d['acc']")"
expect_eq "probe --run: result row linked to the run" \
    "$(q "$DB" "SELECT r.name FROM probe_result p JOIN run r USING (run_id) ORDER BY result_id DESC LIMIT 1")" somo
$PY - "$DB" <<'PYEOF' && ok "probe --run: manifest names the run and a data hash" || not_ok "probe --run: manifest"
import json, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT result FROM probe_result ORDER BY result_id").fetchall()
m = json.loads(rows[-1][0])["manifest"]
assert m["vectors"]["source"] == "run" and m["vectors"]["run"] == "somo", m["vectors"]
assert m["data"]["sha256"] and len(m["data"]["sha256"]) == 64
PYEOF
"$SP" probe --db "$DB" --task SOMO --vectors "$TMP/somo.npy" --json --quiet >"$TMP/file2.json"
expect_eq "probe: run and file paths hash the same data" \
    "$(q "$DB" "SELECT count(DISTINCT json_extract(result, '\$.manifest.data.sha256')) FROM probe_result")" 1

# SOMO's C items replace one word: they keep their sentence's parse by default and count as
# perturbed; --perturbed no-parse treats them as lacking structure
nc=$(q "$DB" "SELECT count(*) FROM task_item JOIN task USING (task_id) WHERE name = 'SOMO' AND label = 'C'")
expect_eq "encode --task SOMO: perturbed items = the C items" \
    "$(q "$DB" "SELECT json_extract(manifest, '\$.perturbed.items') FROM run WHERE name = 'somo'")" "$nc"
"$SP" encode --db "$DB" --task SOMO --encoder $C/ms-san.json --run somo-np --perturbed no-parse --json --quiet >"$TMP/np.json"
expect_eq "encode --perturbed no-parse: the C items are skipped for lack of structure" \
    "$(jq "$TMP/np.json" "d['skipped_missing_structure']")" "$nc"

# a corpus run is not a task run; a task run with skipped items is refused
"$SP" encode --db "$DB" --corpus demo --encoder $C/ms-san.json --run corpus --attention 0 --quiet
if "$SP" probe --db "$DB" --task SOMO --run corpus --quiet >/dev/null 2>"$TMP/e1"; then not_ok "probe --run over a corpus run fails"; else
    check "probe --run over a corpus run: exit 1 naming the fix" grep -q "encode --task SOMO" "$TMP/e1"; fi
"$SP" encode --db "$DB" --task Tense --encoder $C/ms-san.json --run tense-short --max-tokens 8 --quiet
if "$SP" probe --db "$DB" --task Tense --run tense-short --quiet >/dev/null 2>"$TMP/e2"; then not_ok "probe --run with skipped items fails"; else
    check "probe --run with skipped items: exit 1 with the counts" grep -q "has vectors for" "$TMP/e2"; fi
if "$SP" probe --db "$DB" --task SOMO --run nope --quiet >/dev/null 2>"$TMP/e3"; then not_ok "unknown run fails"; else
    check "probe --run unknown run: message" grep -q "no run 'nope'" "$TMP/e3"; fi
rc=0; "$SP" probe --task-file x --run somo >/dev/null 2>&1 || rc=$?
expect_eq "probe --run without --db --task: usage exit 2" $rc 2

# ---- trees --run
"$SP" export --db "$DB" --what attention --run corpus --format npy --out "$TMP/att.npy"
rc=0; "$SP" trees --db "$DB" --corpus demo --run corpus --json >"$TMP/tr_run.json" 2>"$TMP/tr_run.err" || rc=$?
expect_eq "trees --run: exit 0" "$rc" 0
"$SP" trees --db "$DB" --corpus demo --attention "$TMP/att.npy" --json --no-save >"$TMP/tr_file.json" 2>/dev/null
expect_eq "trees --run: same scores as the exported attention maps" "$(cat "$TMP/tr_run.json")" "$(cat "$TMP/tr_file.json")"
expect_eq "trees --run: 12 sentences with trees scored" "$(jq "$TMP/tr_run.json" "d['n_sentences']")" 12
expect_eq "trees --run: tree_eval row linked to the run" \
    "$(q "$DB" "SELECT r.name || ' ' || t.method FROM tree_eval t JOIN run r USING (run_id)")" "corpus attention:run:corpus:layer0:mean"
if "$SP" trees --db "$DB" --corpus demo --run somo >/dev/null 2>"$TMP/e4"; then not_ok "trees --run over a task run fails"; else
    check "trees --run over a task run: message" grep -q "encodes task 'SOMO', not corpus 'demo'" "$TMP/e4"; fi
"$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --run noattn --quiet
if "$SP" trees --db "$DB" --corpus demo --run noattn >/dev/null 2>"$TMP/e5"; then not_ok "trees --run without attention fails"; else
    check "trees --run without attention: says to re-run with --attention" grep -q -- "--attention" "$TMP/e5"; fi
# PSAN skips the 20 sentences without trees: they are not counted as scored
"$SP" encode --db "$DB" --corpus demo --encoder $C/psan.json --run psan --attention 0 --quiet 2>/dev/null
"$SP" trees --db "$DB" --corpus demo --run psan --json --no-save >"$TMP/tr_psan.json" 2>/dev/null
expect_eq "trees --run psan: 12 sentences scored" "$(jq "$TMP/tr_psan.json" "d['n_sentences']")" 12
"$SP" info --db "$DB" >"$TMP/info.txt"
check "info lists the run somo (ms-san over task SOMO, 28 items)" grep -Eq "^  somo +ms-san +task SOMO +28 " "$TMP/info.txt"
# the run list: from the counts line to the blank line before the sizes (its header + one line a run)
expect_eq "info counts the runs" "$(sed -n '/encoder runs, /,/^$/p' "$TMP/info.txt" | grep -c -E '^  [a-z]' | tr -d ' ')" \
    "$(q "$DB" "SELECT count(*) + 1 FROM run")"
done_testing
