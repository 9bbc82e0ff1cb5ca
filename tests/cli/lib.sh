# tests/cli/lib.sh — sourced by every CLI test: strict shell, scratch dir, TAP output.
#   ok DESC / not_ok DESC / check DESC CMD... / expect_eq DESC GOT WANT / skip REASON
#   skip_all REASON (the whole script: `1..0 # SKIP reason`, exit 0) / need_data / need_numpy
#   done_testing (prints the plan; non-zero when a check failed)
# tests/run_cli.sh counts the `ok` / `not ok` / `# SKIP` lines.
set -eu
export LC_ALL=C
SP=${SP_BUILD:-build}/synprobe
SQLEXT=${SP_BUILD:-build}/synprobe_sql
DATA=${SP_DATA:-../shared/data}
PY=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
t_n=0; t_fail=0
ok()     { t_n=$((t_n+1)); echo "ok $t_n - $1"; }
not_ok() { t_n=$((t_n+1)); t_fail=$((t_fail+1)); echo "not ok $t_n - $1"; }
check()  { desc=$1; shift; if "$@"; then ok "$desc"; else not_ok "$desc"; fi; }
# expect_eq DESC GOT WANT
expect_eq() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1 (got '$2', expected '$3')"; fi; }
skip()     { t_n=$((t_n+1)); echo "ok $t_n # SKIP $1"; }
skip_all() { echo "1..0 # SKIP $(basename "$0"): $1"; exit 0; }
need_data() { if [ ! -d "$DATA" ]; then skip_all "$DATA not present"; fi; }
need_numpy() { if ! $PY -c 'import numpy' 2>/dev/null; then skip_all "/usr/bin/python3 with numpy not installed"; fi; }
done_testing() { echo "1..$t_n"; [ "$t_fail" -eq 0 ]; }
