# t3077-accepted-silently.sh — inputs that used to be accepted silently (one-class tasks, huge integers, ...)
# tier: fast
# Inputs that used to be accepted silently (issue 10, items 3 and 14):
# a one-class probing task (it reported 100%), integers beyond 64 bits (clamped to LONG_MAX by
# the shared option parser), --max-workspace sizes that are fractions, zero or nonsense (0.5
# meant "no limit"), and an encoder config that validates but needs terabytes (it aborted).
. tests/cli/lib.sh
need_numpy
"$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>&1
DB=$TMP/d/demo.db

# ---- one-class task ----
printf 'tr\ta\tx\ntr\ta\tx\ntr\ta\tx\nva\ta\tx\nte\ta\tx\n' >"$TMP/one.txt"
$PY -c "import numpy as np,sys; np.save(sys.argv[1], np.eye(5, 3, dtype=np.float32))" "$TMP/X.npy"
rc=0; "$SP" probe --task-file "$TMP/one.txt" --vectors "$TMP/X.npy" --save "$TMP/p.db" --quiet >"$TMP/out" 2>"$TMP/err" || rc=$?
expect_eq "one-class task: exit 1" "$rc" 1
check "one-class task: the message says why" grep -q "one class only ('a'); a probing task needs at least two" "$TMP/err"
check "one-class task: no accuracy printed" sh -c "! grep -q '100' '$TMP/out'"

# ---- integers beyond 64 bits, signs, blanks: usage errors for every flag through the shared parser ----
C=encoder/configs/san.json
for v in 99999999999999999999 18446744073709551616 -1 ' 5' '+5' 5x ''; do
    rc=0; "$SP" encode --db "$DB" --corpus demo --encoder $C --run s --seed "$v" --quiet >/dev/null 2>"$TMP/err" || rc=$?
    expect_eq "encode --seed '$v': usage exit 2" "$rc" 2
done
rc=0; "$SP" trees --db "$DB" --corpus demo --baseline random --seed 99999999999999999999 >/dev/null 2>&1 || rc=$?
expect_eq "trees --seed beyond 64 bits: usage exit 2" "$rc" 2
rc=0; "$SP" probe --task-file "$TMP/one.txt" --vectors "$TMP/X.npy" --seed 99999999999999999999 >/dev/null 2>&1 || rc=$?
expect_eq "probe --seed beyond 64 bits: usage exit 2" "$rc" 2
rc=0; "$SP" tasks build --db "$DB" --corpus demo --seed 18446744073709551616 --out "$TMP/t" >/dev/null 2>&1 || rc=$?
expect_eq "tasks build --seed 2^64: usage exit 2" "$rc" 2
rc=0; "$SP" tasks build --db "$DB" --corpus demo --seed ' -1' --out "$TMP/t" >/dev/null 2>&1 || rc=$?
expect_eq "tasks build --seed ' -1' (used to wrap to 2^64-1): usage exit 2" "$rc" 2
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder $C --run s1 --seed 9223372036854775807 --quiet >/dev/null 2>&1 || rc=$?
expect_eq "encode --seed 2^63-1 (the largest accepted): exit 0" "$rc" 0

# ---- --max-workspace: digits with an optional K/M/G/T suffix, at least 64K ----
for v in 0.5 0.5G 0 1 63K 1.5M -1M 12X '' ' 1M' 99999999999T; do
    rc=0; "$SP" encode --db "$DB" --corpus demo --encoder $C --run w --max-workspace "$v" --quiet >/dev/null 2>"$TMP/err" || rc=$?
    expect_eq "--max-workspace '$v': usage exit 2" "$rc" 2
done
check "--max-workspace: the message gives the syntax" grep -q "at least 64K, optionally with a suffix K, M, G or T" "$TMP/err"
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder $C --run w --max-workspace 2G --quiet >/dev/null 2>&1 || rc=$?
expect_eq "--max-workspace 2G: exit 0" "$rc" 0
expect_eq "--max-workspace 2G: recorded as 2147483648 bytes" \
  "$($PY -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT json_extract(manifest, '\$.max_workspace_bytes') FROM run WHERE name='w'\").fetchone()[0])" "$DB")" 2147483648

# ---- an encoder that needs terabytes: refused at validation with the figure ----
printf '{"kind": "san", "d_model": 65536, "heads": 8, "layers": 6, "d_ff": 1048576}\n' >"$TMP/huge.json"
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/huge.json" --run h >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "encoder needing terabytes: exit 1 (not SIGABRT)" "$rc" 1
check "encoder needing terabytes: the figure is given" grep -q "huge.json: d_model/d_ff/layers: the encoder needs about [0-9.]* GiB" "$TMP/err"
done_testing
