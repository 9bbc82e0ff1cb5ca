# t2057-encode-memory.sh — encode's out-of-memory path (--max-workspace): halve and retry, skip and count
# tier: fast
# The out-of-memory path of `synprobe encode` (issue #4 item 4), driven on
# the CPU by --max-workspace: a batch over the cap fails like a CUDA out-of-memory, is halved and
# retried; a sentence alone over the cap is skipped and counted, never crashes.
# Expectations: vectors do not depend on the batch they were computed in (encoder_batch unit
# test), so a capped run must give exactly the uncapped run's bytes for every sentence it kept.
. tests/cli/lib.sh
need_numpy
C=encoder/configs/ms-san.json
mk() { "$SP" demo --out "$TMP/$1" --ingest-only >/dev/null 2>&1; }
jget() { $PY -c "import json,sys; print(json.loads(sys.stdin.readline())[sys.argv[1]])" "$1"; }
q() { $PY -c "import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone(); print(r[0] if r else '')" "$1" "$2"; }

mk free; mk capped; mk tight
"$SP" encode --db "$TMP/free/demo.db" --corpus demo --encoder $C --run r --quiet --json >"$TMP/free.json"
"$SP" encode --db "$TMP/capped/demo.db" --corpus demo --encoder $C --run r --max-workspace 1M --quiet --json >"$TMP/capped.json"
expect_eq "1 MiB cap: every sentence encoded" "$(jget encoded <"$TMP/capped.json")" 32
nb=$(q "$TMP/capped/demo.db" "SELECT json_extract(manifest, '\$.counts.batches') FROM run")
check "1 MiB cap: the batch was halved into several ($nb)" test "$nb" -gt 1
"$SP" export --db "$TMP/free/demo.db" --what vectors --run r --out "$TMP/free.npy"
"$SP" export --db "$TMP/capped/demo.db" --what vectors --run r --out "$TMP/capped.npy"
check "1 MiB cap: byte-identical vectors" cmp -s "$TMP/free.npy" "$TMP/capped.npy"

"$SP" encode --db "$TMP/tight/demo.db" --corpus demo --encoder $C --run r --max-workspace 400K --json >"$TMP/tight.json" 2>"$TMP/tight.err"
enc=$(jget encoded <"$TMP/tight.json"); oom=$(jget skipped_out_of_memory <"$TMP/tight.json")
expect_eq "400 KiB cap: encoded + skipped = 32" "$((enc + oom))" 32
check "400 KiB cap: some long sentences skipped ($oom), some short ones kept ($enc)" test "$oom" -gt 0 -a "$enc" -gt 0
check "400 KiB cap: the skips are reported" grep -q "workspace" "$TMP/tight.err"
"$SP" export --db "$TMP/tight/demo.db" --what vectors --run r --out "$TMP/tight.npy" 2>"$TMP/exp.err"
check "export warns that $oom of the 32 sentences are missing" grep -q "$oom of the 32 sentences" "$TMP/exp.err"
$PY - "$TMP" <<'PYEOF' && ok "400 KiB cap: the kept sentences are the shortest and their vectors equal the uncapped ones" || not_ok "400 KiB cap: kept vectors"
import numpy as np, sqlite3, sys
t = sys.argv[1]
free, tight = np.load(t + "/free.npy"), np.load(t + "/tight.npy")
db = sqlite3.connect(t + "/tight/demo.db")
ords = [r[0] for r in db.execute("SELECT ordinal FROM run_item ORDER BY ordinal")]
lens = [r[0] for r in db.execute("SELECT count(*) FROM token GROUP BY sentence_id ORDER BY sentence_id")]
kept = [lens[o - 1] for o in ords]
skipped = [lens[k] for k in range(len(lens)) if k + 1 not in ords]
assert max(kept) < min(skipped), (kept, skipped)
assert tight.shape[0] == len(ords)
assert np.array_equal(tight, free[[o - 1 for o in ords]])
PYEOF
rc=0; "$SP" encode --db "$TMP/tight/demo.db" --corpus demo --encoder $C --run r2 --max-workspace 12X >/dev/null 2>&1 || rc=$?
expect_eq "--max-workspace with a bad size: usage exit 2" "$rc" 2
done_testing
