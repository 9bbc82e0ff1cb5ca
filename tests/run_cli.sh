#!/bin/sh
# Runs every tests/cli/t*.sh with SP_BUILD pointing at the build directory; fails if any fails.
export SP_BUILD=$(cd "$1" && pwd)
fail=0; n=0
for t in tests/cli/t*.sh; do
    [ -f "$t" ] || continue
    n=$((n+1))
    if ! sh "$t"; then echo "FAILED: $t"; fail=$((fail+1)); fi
done
echo "cli tests: $((n-fail))/$n scripts passed"
[ $fail -eq 0 ]
