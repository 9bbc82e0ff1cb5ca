# t7266-spec-vectors.sh — the test vectors of docs/spec are the values the unit tests check
# tier: fast
# Issue 37 item 3: the normative definitions in docs/spec/ carry their test vectors, and the unit
# tests check those vectors. So that the two cannot drift apart, a sample of each vector's printed
# values must appear, character for character, both in the spec file and in the test that cites
# it: SplitMix64 (models.md M7.1), TV-M3 (M3.6), TV-M2b (M2.5), TV-M4a (M4.7), TV-M5 (M5.5),
# TV-M7 (M7.7), the LINEAR rows of probing.md §3.8, TV-12, TV-13 and TV-17 of structures.md §5,
# and TV-6 (structures.md §3.7). Each test file must also cite the spec file.
. tests/cli/lib.sh
# vec DESC DOC TESTFILE VALUE...: every VALUE is in DOC and in TESTFILE, and TESTFILE names DOC
vec() {
    desc=$1 spec=$2 test=$3; shift 3
    miss=
    grep -qF "$spec" "$test" || miss="$miss $test does not cite $spec;"
    for v in "$@"; do
        grep -qF -- "$v" "$spec" || miss="$miss '$v' not in $spec;"
        grep -qF -- "$v" "$test" || miss="$miss '$v' not in $test;"
    done
    expect_eq "$desc" "$miss" ""
}
M=docs/spec/models.md S=docs/spec/structures.md P=docs/spec/probing.md
vec "SplitMix64 check values (M7.1)" $M tests/unit/common_util.c \
    e220a8397b1dcdaf 6e789e6aa1b965f4 06c45d188009454f 0fe323b2abddd8a7 cb6c7ffab2094263 e888cdc3a226411c
vec "TV-M3: X^1 with token types 0 (M3.6)" $M tests/unit/encoder_bert.c \
    1.46291 0.40276 0.957085 -2.40311 0.535529 1.00966 1.09826 -2.29767
vec "TV-M2b: the merged and renormalised attention (M2.5)" $M tests/unit/encoder_bert.c 0.642857 0.357143
vec "TV-M4a: the first initial entry of seed 42 (M4.2)" $M tests/unit/probes_sptrain.c 0.0241565
vec "TV-M5: the first raw outputs of seed 7 (M5.5)" $M tests/unit/probes_control.c 63cbe1e459320dd7 044c3cd7f43c661c
vec "TV-M7: intervals, se and mdd80 (M7.7)" $M tests/unit/probes_stats.c 0.867257 0.716216 0.120370 0.0303416 0.0849564
vec "LINEAR rows (probing.md §3.8)" $P tests/unit/probes_structprobe.c \
    42.97 0.5692 25.19 0.3474 43.09 26.04 52.76 0.6048 1.76 0.2889
vec "TV-12, TV-13, TV-17 (structures.md §5.2, §5.5)" $S tests/unit/encoder_tv.c \
    0.153539 0.846461 0.053464 0.145331 0.801205 0.854669 0.946536 0.759460 0.137758 0.102782 \
    2.575210 0.575210 0.8175745 0.1824255
vec "TV-6: D row of 'group' (structures.md §3.7)" $S tests/unit/encoder_prepare.c "5,4,3,2,1,2,1,1,1,1,1,0,4"
done_testing
