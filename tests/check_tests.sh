#!/bin/sh
# tests/check_tests.sh [COUNTS] [SCRIPT...]
# The conventions of the CLI test scripts (tests/README.md), checked on their text (`make
# check-tests`, part of `make test`), for tests/cli/t*.sh or the SCRIPTs named:
#   1. line 1 is "# NAME — purpose", NAME the script's own file name;
#   2. line 2 is its tier tag, "# tier: fast" or "# tier: full" (optionally ", serial: WHY");
#   3. no check that cannot fail: `check DESC true`, `check DESC :` (and /bin/true), or
#      `expect_eq DESC X X` with the same word or quoted string twice.
# Prints one TAP line per rule, each offending script (file:line) under its "not ok" line,
# appends "PASSED FAILED SKIPPED check-tests" to COUNTS and exits non-zero on any violation.
counts=${1:-}
[ $# -lt 1 ] || shift
[ $# -gt 0 ] || set -- tests/cli/t*.sh
pass=0; fail=0; n=0
rule() {  # rule DESC VIOLATIONS
    n=$((n+1))
    if [ -z "$2" ]; then echo "ok $n - $1"; pass=$((pass+1))
    else echo "not ok $n - $1"; echo "$2" | sed 's/^/#   /'; fail=$((fail+1)); fi
}

bad=
for t in "$@"; do
    name=$(basename "$t")
    head -n 1 "$t" | grep -q "^# $name — ." || bad="$bad$t:1: $(head -n 1 "$t")
"
done
rule "line 1 of every script is '# NAME — purpose' ($# scripts)" "${bad%
}"

bad=
for t in "$@"; do
    sed -n 2p "$t" | grep -Eq '^# tier: (fast|full)(, serial: .+)?$' || bad="$bad$t:2: $(sed -n 2p "$t")
"
done
rule "line 2 of every script is '# tier: fast' or '# tier: full' [', serial: WHY']" "${bad%
}"

# a check whose command is `true`, `:` or /bin/true, after a quoted or one-word description
bad=$(grep -nHE "^[[:space:]]*check[[:space:]]+(\"[^\"]*\"|'[^']*'|[^[:space:]\"']+)[[:space:]]+(true|:|/bin/true)[[:space:]]*(\$|[;&|#)])" "$@")
rule "no 'check DESC true' or 'check DESC :' (a check that cannot fail)" "$bad"

# expect_eq DESC X X: the same word or double-quoted string twice
bad=$(grep -nHE "^[[:space:]]*expect_eq[[:space:]]+(\"[^\"]*\"|'[^']*'|[^[:space:]\"']+)[[:space:]]+(\"[^\"]*\"|[^[:space:]\"']+)[[:space:]]+\\2[[:space:]]*(\$|[;&|#])" "$@")
rule "no 'expect_eq DESC X X' comparing a thing with itself" "$bad"

[ -z "$counts" ] || echo "$pass $fail 0 check-tests" >>"$counts"
[ "$fail" -eq 0 ]
