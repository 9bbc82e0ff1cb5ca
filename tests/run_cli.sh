#!/bin/sh
# tests/run_cli.sh BUILD [COUNTS]
# Runs every tests/cli/t*.sh with SP_BUILD=BUILD and counts its TAP output (stdout): "ok N - ..."
# passes, "ok N # SKIP ..." and a whole-script "1..0 # SKIP ..." are skips, "not ok" fails. A
# script that exits non-zero, or whose plan "1..N" is missing or disagrees with its checks, counts
# as at least one failure. Prints a suite line, appends "PASSED FAILED SKIPPED cli BUILD" to
# COUNTS; exits non-zero if anything failed.
export SP_BUILD=$(cd "$1" && pwd) || exit 1
counts=${2:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0; skip=0; n=0; bad=0
for t in tests/cli/t*.sh; do
    [ -f "$t" ] || continue
    n=$((n+1))
    echo "# $t"
    { sh "$t"; echo $? >"$tmp/rc"; } | tee "$tmp/out"
    rc=$(cat "$tmp/rc")
    # passes, failures, skips, the plan's N (-1 without a plan), 1 for a whole-script skip
    read -r p f s plan whole <<END
$(awk 'BEGIN { plan = -1 }
                 /^not ok/ { f++; next }
                 /^ok/ { if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) s++; else p++; next }
                 /^1\.\.0 *# *[Ss][Kk][Ii][Pp]/ { plan = 0; s++; whole = 1; next }
                 /^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; next }
                 END { print p + 0, f + 0, s + 0, plan, whole + 0 }' "$tmp/out")
END
    why=
    [ "$rc" -eq 0 ] || why="exit status $rc"
    [ "$plan" -ge 0 ] || why="${why:+$why, }no plan line"
    [ "$plan" -lt 0 ] || [ "$plan" -eq $((p+f+s-whole)) ] || why="${why:+$why, }plan 1..$plan but $((p+f+s-whole)) checks"
    if [ -n "$why" ] && [ "$f" -eq 0 ]; then echo "not ok - $t: $why"; f=1; fi
    pass=$((pass+p)); fail=$((fail+f)); skip=$((skip+s))
    if [ "$f" -ne 0 ]; then echo "FAILED: $t${why:+ ($why)}"; bad=$((bad+1)); fi
done
echo "cli tests ($SP_BUILD): $((n-bad))/$n scripts passed; checks: $pass ok, $fail not ok, $skip skipped"
[ -z "$counts" ] || echo "$pass $fail $skip cli $SP_BUILD" >>"$counts"
[ "$fail" -eq 0 ]
