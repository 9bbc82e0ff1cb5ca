#!/bin/sh
# tests/run_fuzz.sh COUNTS SECS TARGET...   (make run-fuzz, part of make test-all)
# A short libFuzzer pass over each TARGET (job, safetensors: tests/fuzz/fuzz_TARGET.c): builds
# build/fuzz/fuzz_TARGET with clang (make -C tests/fuzz), then runs it SECS seconds from its seeds
# (tests/fuzz/corpus/TARGET) and what earlier passes found (build/fuzz/corpus_TARGET). One check
# per target: ok when libFuzzer ends without a crash, leak or invariant failure (its input is
# kept as build/fuzz/crash_TARGET-*, named here). Without clang every target is a visible skip.
# Counts go to COUNTS as "PASSED FAILED SKIPPED fuzz ...", like the other runners'.
counts=$1; secs=$2; shift 2
n=$#
if ! command -v "${CLANG:-clang}" >/dev/null 2>&1; then   # clang: in contrib/setup/packages.txt
    echo "1..0 # SKIP fuzz: clang not installed (${*})"
    echo "0 0 $n fuzz ($*: clang not installed, skipped)" >>"$counts"
    exit 0
fi
pass=0; fail=0; i=0
out=build/fuzz; mkdir -p "$out"
for t in "$@"; do
    i=$((i + 1))
    if ! make --no-print-directory -C tests/fuzz "../../$out/fuzz_$t" >"$out/build-$t.log" 2>&1; then
        echo "not ok $i - fuzz_$t: build failed (see $out/build-$t.log)"
        tail -5 "$out/build-$t.log" | sed 's/^/#   /'
        fail=$((fail + 1)); continue
    fi
    mkdir -p "$out/corpus_$t"
    rm -f "$out"/crash_"$t"-*
    if (cd "$out" && "./fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="./crash_$t-" \
            "corpus_$t" "../../tests/fuzz/corpus/$t") >"$out/run-$t.log" 2>&1; then
        runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$out/run-$t.log")
        echo "ok $i - fuzz_$t: ${runs:-?} inputs in $secs s, no crash"
        pass=$((pass + 1))
    else
        echo "not ok $i - fuzz_$t: crashed; input: $(ls "$out"/crash_"$t"-* 2>/dev/null | head -1) (log: $out/run-$t.log)"
        grep -m3 -E "ERROR|invariant failed|runtime error" "$out/run-$t.log" | sed 's/^/#   /'
        fail=$((fail + 1))
    fi
done
echo "1..$n"
echo "$pass $fail 0 fuzz ($*, $secs s each)" >>"$counts"
[ "$fail" = 0 ]
