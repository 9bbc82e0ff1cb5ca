# tests/cli/lib.sh — sourced by every CLI test: strict shell, scratch dir, TAP output.
#   ok DESC / not_ok DESC         one check, "ok N - DESC" / "not ok N - DESC"
#   check DESC CMD...             ok when CMD exits 0
#   expect_eq DESC GOT WANT       ok when the strings are equal
#   skip REASON                   one skipped check, "ok N # SKIP REASON"
#   skip_rest REASON              stop: the rest is skipped ("1..0 # SKIP REASON" when nothing ran yet)
#   need_data / need_numpy        skip_rest unless $DATA / /usr/bin/python3 with numpy is there
#   need_models                   skip_rest unless `make models` put the real models in $MODELS
#   done_testing                  the plan "1..N"; the script's last command (non-zero if a check failed)
# Under set -e a command that fails outside a check ends the script: the EXIT trap then prints a
# "not ok" saying so, and tests/run_cli.sh counts it. An exit status a check needs is captured with
#   rc=0; cmd || rc=$?; expect_eq "cmd: exit 0" "$rc" 0
set -eu
export LC_ALL=C
SP=${SP_BUILD:-build}/synprobe
SQLEXT=${SP_BUILD:-build}/synprobe_sql
DATA=${SP_DATA:-../shared/data}
MODELS=${SP_MODELS:-models}
PY=/usr/bin/python3
# the sanitizer tree: leaks of libraries that are not ours (tests/lsan.supp says which and why)
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
TMP=$(mktemp -d)
t_n=0; t_fail=0; t_planned=0
t_exit() {
    t_rc=$?
    rm -rf "$TMP"
    if [ "$t_planned" = 0 ]; then
        if [ "$t_rc" -ne 0 ]; then
            t_n=$((t_n+1)); echo "not ok $t_n - $0 stopped early (exit status $t_rc) after $((t_n-1)) checks"
            echo "1..$t_n"
        elif [ "$t_n" -eq 0 ]; then echo "1..0 # SKIP $0 ran no checks"
        else echo "1..$t_n"
        fi
    fi
    exit "$t_rc"
}
trap t_exit EXIT
ok()     { t_n=$((t_n+1)); echo "ok $t_n - $1"; }
not_ok() { t_n=$((t_n+1)); t_fail=$((t_fail+1)); echo "not ok $t_n - $1"; }
# check DESC CMD...: CMD succeeds; on failure the command and its status are printed as TAP
# comments (its output, when it has any, is already in the log), so no check fails silently
check()  {
    desc=$1; shift
    if "$@"; then ok "$desc"
    else c_rc=$?; not_ok "$desc"; printf '#   failed (status %s): %s\n' "$c_rc" "$*" | cut -c1-400; fi
}
# expect_eq DESC GOT WANT
expect_eq() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$2', expected '$3')"; fi; }
# expect_grep DESC PATTERN FILE: FILE has a line matching PATTERN (grep -E); on failure the file's
# first 20 lines are printed as TAP comments, so the evidence is in the log (git's test_grep)
expect_grep() {
    if grep -Eq -- "$2" "$3" 2>/dev/null; then ok "$1"
    else not_ok "$1 (no line matches '$2' in $3)"; sed -n '1,20s/^/#   /p' "$3" 2>/dev/null; fi
}
# expect_cmp DESC EXPECTED-FILE ACTUAL-FILE: the two files are equal; on failure their diff is
# printed as TAP comments (git's test_cmp)
expect_cmp() {
    if cmp -s -- "$2" "$3"; then ok "$1"
    else not_ok "$1 ($3 differs from $2)"; diff -- "$2" "$3" 2>&1 | sed -n '1,30s/^/#   /p'; fi
}
skip() { t_n=$((t_n+1)); echo "ok $t_n # SKIP $1"; }
skip_rest() {
    if [ "$t_n" -eq 0 ]; then t_planned=1; echo "1..0 # SKIP $(basename "$0"): $1"; exit 0; fi
    skip "the rest of $(basename "$0"): $1"
    done_testing && exit 0
    exit 1
}
need_data() { if [ ! -d "$DATA" ]; then skip_rest "$DATA not present"; fi; }
need_numpy() { if ! $PY -c 'import numpy' 2>/dev/null; then skip_rest "/usr/bin/python3 with numpy not available"; fi; }
need_models() { if [ ! -f "$MODELS/all-MiniLM-L6-v2/model.safetensors" ]; then skip_rest "$MODELS: no real models (run 'make models')"; fi; }
done_testing() { t_planned=1; echo "1..$t_n"; [ "$t_fail" -eq 0 ]; }
