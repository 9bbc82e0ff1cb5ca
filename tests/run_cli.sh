#!/bin/sh
# Runs every tests/cli/t*.sh with SP_BUILD pointing at the build directory and counts its TAP
# lines: `ok N - ...` passed, `not ok` failed, `ok N # SKIP` / `1..0 # SKIP` skipped; a script
# that exits non-zero without a `not ok` line (it died under set -e) counts as one failure.
# Appends "cli:BUILD passed failed skipped" to $TEST_COUNTS when set; fails if anything failed.
export SP_BUILD=$(cd "$1" && pwd)
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
pass=0; fail=0; skip=0; bad=0
for t in tests/cli/t*.sh; do
    [ -f "$t" ] || continue
    echo "# $t"
    rc=0; sh "$t" >"$out" 2>&1 || rc=$?
    cat "$out"
    p=$(grep -c '^ok [0-9]* - ' "$out" || true)
    f=$(grep -c '^not ok' "$out" || true)
    s=$(grep -c '^ok [0-9]* *# SKIP\|^1\.\.0 # SKIP' "$out" || true)
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "not ok - $t exited $rc before done_testing"; f=1
    fi
    [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] || { echo "FAILED: $t"; bad=$((bad+1)); }
    pass=$((pass+p)); fail=$((fail+f)); skip=$((skip+s))
done
echo "cli tests ($1): $pass checks passed, $fail checks failed, $skip skipped; $bad scripts failed"
[ -n "${TEST_COUNTS:-}" ] && echo "cli:$1 $pass $fail $skip" >>"$TEST_COUNTS"
[ $fail -eq 0 ] && [ $bad -eq 0 ]
