#!/bin/sh
# tests/check_symbols.sh BUILD [COUNTS]
# The layer rules, checked on the built objects and the sources (`make check-symbols`, part of
# `make test`):
#   1. every exported symbol (global, defined: nm -g --defined-only) of BUILD/<layer>/*.o starts
#      with its layer's prefix, so a reader of a link error or a backtrace knows the folder;
#   2. no .c/.h file of a layer includes a header of a layer above it, or of a sibling on the
#      same rank (store and encoder know nothing of each other);
#   3. no source file names an encoder kind (ENC_SAN ... ENC_HF) except the files that own the
#      kinds (KIND_FILES: the enum, the config parser, the model families): everything else asks
#      the encoder's capabilities (struct enc_caps; encoder/README.md "Model families").
# Prints one TAP line per layer and rule ("ok N - ..." / "not ok N - ..."), each violation under
# its "not ok" line (symbol, object, expected prefix; file:line of the #include), appends
# "PASSED FAILED SKIPPED check-symbols" to COUNTS and exits non-zero on any violation.
# Only objects whose source still exists are read, so a stale .o of a removed file is ignored;
# the CUDA plugin's .cu.o (C++, its own ABI) is not read.
build=${1:?usage: tests/check_symbols.sh BUILD [COUNTS]}
counts=${2:-}

# The one table of layers, lowest first. rank: a layer may include only layers of a lower rank
# (equal rank: siblings). prefixes: comma-separated; "main" is a whole name, not a prefix.
# report/ (the results model and its renderers) sits between stages and daemon; daemon/ (the job
# system) between report and cli.
LAYERS='
1 common  sp_
2 ingest  ing_
3 treeops tops_
4 store   st_
4 encoder enc_
5 probes  prb_
6 stages  stg_
7 report  rpt_
8 daemon  dmn_
9 cli     cmd_,cli_,main
'

rank_of() {  # layer -> its rank, or nothing for a folder that is no layer
    echo "$LAYERS" | awk -v l="$1" '$2 == l { print $1 }'
}

n=0; pass=0; fail=0; skip=0
report() {  # report OK|FAIL TEXT [VIOLATIONS-FILE]
    n=$((n+1))
    if [ "$1" = OK ]; then echo "ok $n - $2"; pass=$((pass+1))
    else echo "not ok $n - $2"; sed 's/^/#   /' "$3"; fail=$((fail+1)); fi
}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# rule 1: prints "symbol object expected-prefix" for each exported name of the layer's objects
# that matches none of its prefixes
check_symbols() {  # layer prefixes
    for src in "$1"/*.c; do
        [ -f "$src" ] || continue
        obj=$build/${src%.c}.o
        # no object: built another way (store/sqlext.c goes straight into the SQLite
        # extension, whose entry point SQLite names)
        [ -f "$obj" ] || continue
        nm -g --defined-only "$obj" | awk -v p="$2" -v o="$obj" '
            NF >= 3 { s = $3; ok = 0; n = split(p, a, ",")
                      for (i = 1; i <= n; i++)
                          if (a[i] == "main" ? s == "main" : index(s, a[i]) == 1) ok = 1
                      if (!ok) printf "%s in %s: expected prefix %s\n", s, o, p }'
    done
}

# rule 2: prints "file:line: includes other/x.h (layer of rank R, not below rank r)"
check_includes() {  # layer rank
    for f in "$1"/*.c "$1"/*.h "$1"/*.cu; do
        [ -f "$f" ] || continue
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]*/' "$f" |
        while IFS= read -r hit; do
            line=${hit%%:*}
            inc=$(echo "$hit" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
            inc=$(echo "$inc" | sed 's,^\(\.\./\)*,,')   # "../store/x.h" is store's too
            dir=${inc%%/*}
            [ "$dir" = "$1" ] && continue
            r=$(rank_of "$dir")
            [ -n "$r" ] || continue           # not a layer folder (a system path)
            [ "$r" -lt "$2" ] || echo "$f:$line: includes $inc ($dir is not below $1)"
        done
    done
}

echo "$LAYERS" | while read -r rank layer prefixes; do
    [ -n "$layer" ] && echo "$rank $layer $prefixes"
done >"$tmp/layers"

while read -r rank layer prefixes; do
    if [ ! -d "$layer" ]; then
        echo "ok $((n+1)) # SKIP $layer/: no such folder"; n=$((n+1)); skip=$((skip+1)); continue
    fi
    check_symbols "$layer" "$prefixes" >"$tmp/v"
    if [ -s "$tmp/v" ]; then report FAIL "$layer: $(wc -l <"$tmp/v") exported symbols without the prefix $prefixes" "$tmp/v"
    else report OK "$layer: every exported symbol starts with $prefixes"; fi
    check_includes "$layer" "$rank" >"$tmp/v"
    if [ -s "$tmp/v" ]; then report FAIL "$layer: $(wc -l <"$tmp/v") includes of a layer not below it" "$tmp/v"
    else report OK "$layer: includes only itself and the layers below it"; fi
done <"$tmp/layers"

# rule 3: prints "file:line: names an encoder kind"
KIND_FILES='encoder/encoder.h encoder/enc_config.c encoder/enc_san.c encoder/enc_bert.c encoder/enc_decoder.c'
check_kinds() {
    for dir in $(awk '{ print $2 }' "$tmp/layers"); do
        [ -d "$dir" ] || continue
        for f in "$dir"/*.c "$dir"/*.h; do
            [ -f "$f" ] || continue
            case " $KIND_FILES " in *" $f "*) continue ;; esac
            grep -nE '\bENC_(SAN|MSSAN|SGNET|PSAN|SSAN|BERT|HF)\b' "$f" | sed "s|^\([0-9]*\):.*|$f:\1: names an encoder kind (ask enc_caps / enc_config_caps)|"
        done
    done
}
check_kinds >"$tmp/v"
if [ -s "$tmp/v" ]; then report FAIL "$(wc -l <"$tmp/v") encoder kinds named outside $KIND_FILES" "$tmp/v"
else report OK "encoder kinds are named only in $KIND_FILES"; fi

echo "1..$n"
echo "check-symbols ($build): $pass ok, $fail not ok, $skip skipped"
[ -z "$counts" ] || echo "$pass $fail $skip check-symbols $build" >>"$counts"
[ "$fail" -eq 0 ]
