#!/bin/sh
# tests/run_unit.sh [-c COUNTS] [-l LABEL] DIR|PROGRAM...
# Runs unit-test programs (every executable in DIR, or the PROGRAMs named) and counts their checks:
# each prints "FILE: X/Y checks passed" last (tests/unit/t_harness.h T_DONE), so X pass and Y-X
# fail; each "ok # SKIP ..." line is a skip. A program that exits non-zero with no failed check
# (a crash, a sanitizer report) or prints no such line counts as one more failure.
# LABEL (e.g. "OPENBLAS_CORETYPE=Haswell:") is printed before each program's output.
# Prints a suite line, appends "PASSED FAILED SKIPPED unit LABEL DIR" to COUNTS; exits non-zero
# if anything failed.
counts=; label=
while [ $# -gt 0 ]; do
    case $1 in
        -c) counts=$2; shift 2;;
        -l) label=$2; shift 2;;
        *) break;;
    esac
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0; skip=0; n=0; bad=0
if [ $# -eq 1 ]; then where=$1; else where="$(dirname "$1"), $# programs"; fi
for arg in "$@"; do
    for t in "$arg" "$arg"/*; do
        [ -f "$t" ] && [ -x "$t" ] || continue
        n=$((n+1))
        [ -z "$label" ] || echo "$label"
        { "$t"; echo $? >"$tmp/rc"; } | tee "$tmp/out"
        rc=$(cat "$tmp/rc")
        # x y s: the last T_DONE line's counts (-1 -1 without one) and the skips
        read -r x y s <<END
$(awk '/: [0-9]+\/[0-9]+ checks passed$/ { split($(NF-2), a, "/"); x = a[1]; y = a[2] }
       /^ok.*# *SKIP/ { s++ }
       END { if (y == "") { x = -1; y = -1 } print x, y, s + 0 }' "$tmp/out")
END
        skip=$((skip+s))
        if [ "$x" -lt 0 ]; then
            echo "not ok - $t printed no 'checks passed' line (exit status $rc)"; f=1
        else
            pass=$((pass+x)); f=$((y-x))
            if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "not ok - $t: exit status $rc after its checks"; f=1; fi
        fi
        fail=$((fail+f))
        if [ "$f" -ne 0 ]; then echo "FAILED: ${label:+$label }$t"; bad=$((bad+1)); fi
    done
done
echo "unit tests ${label:+$label }($where): $((n-bad))/$n programs passed; checks: $pass ok, $fail not ok, $skip skipped"
[ -z "$counts" ] || echo "$pass $fail $skip unit ${label:+$label }$where" >>"$counts"
[ "$fail" -eq 0 ]
