#!/bin/sh
# Runs the unit-test programs $1/${2:-*} built from tests/unit/*.c (a stale binary of a removed
# test, or a driver, is not run) and counts their checks: each prints
# `FILE: X/Y checks passed` (t_harness.h T_DONE) and `ok N # SKIP FILE: why` (T_SKIP); a program
# that exits non-zero without a failed check (crash, sanitizer report) counts as one failure.
# With a LABEL ($3, e.g. OPENBLAS_CORETYPE=Haswell) every output line is prefixed with it, so a
# failure names the kernel it ran under.
# Appends "unit:LABEL passed failed skipped" to $TEST_COUNTS when set; fails if anything failed.
dir=$1; pat=${2:-*}
label=$dir${3:+ $3}
pfx=${3:+$3: }
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
pass=0; fail=0; skip=0; n=0; bad=0
for t in "$dir"/$pat; do
    [ -f "$t" ] && [ -x "$t" ] && [ -f "tests/unit/${t##*/}.c" ] || continue
    n=$((n+1))
    rc=0; "$t" >"$out" 2>&1 || rc=$?
    sed "s|^|$pfx|" "$out"
    line=$(grep ': [0-9]*/[0-9]* checks passed' "$out" | tail -n 1 | sed 's|.*: \([0-9]*\)/\([0-9]*\) checks passed.*|\1 \2|')
    set -- ${line:-0 0}
    p=$1; f=$(($2 - $1))
    s=$(grep -c '^ok [0-9]* *# SKIP' "$out" || true)
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "${pfx}not ok - $t exited $rc with no failed check reported"; f=1
    fi
    [ "$rc" -eq 0 ] && [ "$f" -eq 0 ] || { echo "${pfx}FAILED: $t"; bad=$((bad+1)); }
    pass=$((pass+p)); fail=$((fail+f)); skip=$((skip+s))
done
echo "unit tests ($label): $n programs, $pass checks passed, $fail checks failed, $skip skipped"
[ -n "${TEST_COUNTS:-}" ] && echo "unit:$label $pass $fail $skip" >>"$TEST_COUNTS"
[ $fail -eq 0 ] && [ $bad -eq 0 ]
