# tests/cli/lib.sh — sourced by every CLI test: strict shell, scratch dir, TAP-style output.
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
need_data() { if [ ! -d "$DATA" ]; then echo "SKIP $0: $DATA not present"; exit 0; fi; }
need_numpy() { if ! $PY -c 'import numpy' 2>/dev/null; then echo "SKIP $0: python3-numpy not installed"; exit 0; fi; }
done_testing() { echo "1..$t_n"; [ "$t_fail" -eq 0 ]; }
