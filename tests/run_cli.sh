#!/bin/sh
# tests/run_cli.sh [-t fast|full|all] [-j N] BUILD [COUNTS] [SCRIPT...]
# Runs the CLI test scripts (tests/cli/t*.sh, or the SCRIPTs named) with SP_BUILD=BUILD and counts
# their TAP output (stdout): "ok N - ..." passes, "ok N # SKIP ..." and a whole-script
# "1..0 # SKIP ..." are skips, "not ok" fails. A script that exits non-zero, or whose plan "1..N"
# is missing or disagrees with its checks, counts as at least one failure.
#
# Tiers (tests/README.md): line 2 of every script is "# tier: fast" or "# tier: full", optionally
# followed by ", serial: WHY". -t fast runs the fast ones (`make test`), -t full the full ones,
# -t all (the default) every script (`make test-all`). A script whose line 2 is not such a tag is
# not run and counts as one failure, named.
#
# Scripts run N at a time (-j, default 2), each in its own scratch folder (tests/cli/lib.sh); a
# "serial" script runs alone, after the others. Each script's output is held until it ends, then
# printed whole: its stdout, then its stderr (if any) under "# stderr:", with its wall time.
# Prints a suite line, appends "PASSED FAILED SKIPPED cli[TIER] BUILD" to COUNTS; exits non-zero
# if anything failed.
tier=all; jobs=2
while [ $# -gt 0 ]; do
    case $1 in
        -t) tier=$2; shift 2;;
        -j) jobs=$2; shift 2;;
        *) break;;
    esac
done
case $tier in fast|full|all) ;; *) echo "tests/run_cli.sh: -t $tier: expected fast, full or all" >&2; exit 2;; esac
case $jobs in ''|*[!0-9]*|0) echo "tests/run_cli.sh: -j $jobs: expected a positive integer" >&2; exit 2;; esac
SP_BUILD=$(cd "${1:?usage: tests/run_cli.sh [-t fast|full|all] [-j N] BUILD [COUNTS] [SCRIPT...]}" && pwd) || exit 1
export SP_BUILD
shift
counts=${1:-}
[ $# -eq 0 ] || shift
[ $# -gt 0 ] || set -- tests/cli/t*.sh
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

pass=0; fail=0; skip=0; n=0; bad=0; failed=
# tier_of SCRIPT: "fast", "full", "fast serial", "full serial", or "" when line 2 is no tier tag
tier_of() {
    sed -n '2{
        s/^# tier: \(fast\|full\)$/\1/p
        s/^# tier: \(fast\|full\), serial: ..*$/\1 serial/p
    }' "$1"
}

# report ID SCRIPT: prints the finished script's held output and adds its counts
# (r_* names: the caller's loop variables stay untouched)
report() {
    r_id=$1; r_t=$2; r_rc=$(cat "$tmp/$r_id.rc")
    echo "# $r_t ($(( $(cat "$tmp/$r_id.end") - $(cat "$tmp/$r_id.start") )) s)"
    cat "$tmp/$r_id.out"
    if [ -s "$tmp/$r_id.err" ]; then echo "# stderr of $r_t:"; sed 's/^/#   /' "$tmp/$r_id.err"; fi
    # passes, failures, skips, the plan's N (-1 without a plan), 1 for a whole-script skip
    read -r p f s plan whole <<END
$(awk 'BEGIN { plan = -1 }
       /^not ok/ { f++; next }
       /^ok/ { if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) s++; else p++; next }
       /^1\.\.0 *# *[Ss][Kk][Ii][Pp]/ { plan = 0; s++; whole = 1; next }
       /^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; next }
       END { print p + 0, f + 0, s + 0, plan, whole + 0 }' "$tmp/$r_id.out")
END
    why=
    [ "$r_rc" -eq 0 ] || why="exit status $r_rc"
    [ "$plan" -ge 0 ] || why="${why:+$why, }no plan line"
    [ "$plan" -lt 0 ] || [ "$plan" -eq $((p+f+s-whole)) ] || why="${why:+$why, }plan 1..$plan but $((p+f+s-whole)) checks"
    if [ -n "$why" ] && [ "$f" -eq 0 ]; then echo "not ok - $r_t: $why"; f=1; fi
    tally "$r_t" "$p" "$f" "$s" "$why"
}
tally() {
    n=$((n+1)); pass=$((pass+$2)); fail=$((fail+$3)); skip=$((skip+$4))
    if [ "$3" -ne 0 ]; then
        echo "FAILED: $1${5:+ ($5)}"; bad=$((bad+1)); failed="$failed $(basename "$1")"
    fi
}

# Finished scripts announce their id on a FIFO, so that the loop can wait for any one of them
# (POSIX sh has no `wait -n`).
mkfifo "$tmp/done" && exec 3<>"$tmp/done" || exit 1
running=0
start() {  # start ID SCRIPT: runs it in the background
    ( date +%s >"$tmp/$1.start"
      rc=0; sh "$2" >"$tmp/$1.out" 2>"$tmp/$1.err" </dev/null 3>&- || rc=$?
      echo $rc >"$tmp/$1.rc"; date +%s >"$tmp/$1.end"
      echo "$1" >&3 ) &
    running=$((running+1))
}
reap() {  # waits for one running script and reports it
    read -r done_id <&3
    report "$done_id" "$(cat "$tmp/$done_id.name")"
    running=$((running-1))
}

id=0; serial=
for t in "$@"; do
    [ -f "$t" ] || { tally "$t" 0 1 0 "no such script"; echo "not ok - $t: no such script"; continue; }
    tt=$(tier_of "$t")
    if [ -z "$tt" ]; then
        echo "not ok - $t: line 2 is not '# tier: fast' or '# tier: full' (tests/README.md)"
        tally "$t" 0 1 0 "no tier tag"; continue
    fi
    case "$tier $tt" in "fast full"*|"full fast"*) continue;; esac
    case $tt in *serial) serial="$serial $t"; continue;; esac
    id=$((id+1)); echo "$t" >"$tmp/$id.name"
    while [ "$running" -ge "$jobs" ]; do reap; done
    start "$id" "$t"
done
while [ "$running" -gt 0 ]; do reap; done
for t in $serial; do
    id=$((id+1)); echo "$t" >"$tmp/$id.name"
    start "$id" "$t"; reap
done
wait

echo "cli tests ($SP_BUILD, tier $tier): $((n-bad))/$n scripts passed; checks: $pass ok, $fail not ok, $skip skipped${failed:+; failed:$failed}"
[ -z "$counts" ] || echo "$pass $fail $skip cli[$tier] $SP_BUILD" >>"$counts"
[ "$fail" -eq 0 ]
