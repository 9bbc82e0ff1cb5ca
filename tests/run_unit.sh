#!/bin/sh
# Runs every unit-test program in $1; fails if any fails.
dir=$1; fail=0; n=0
for t in "$dir"/*; do
    [ -x "$t" ] || continue
    n=$((n+1))
    if ! "$t"; then echo "FAILED: $t"; fail=$((fail+1)); fi
done
echo "unit tests: $((n-fail))/$n programs passed"
[ $fail -eq 0 ]
