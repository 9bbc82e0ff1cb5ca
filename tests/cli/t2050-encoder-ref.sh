# t2050-encoder-ref.sh — the C encoders agree with the NumPy reference to 1e-5 on real sentences
# tier: fast
# The C encoders agree with the independent NumPy reference (tests/reference/encoders_ref.py)
# to 1e-5 absolute on real PTB-sample sentences, random non-symmetric weights, every kind: one
# check per config. The driver is tests/tools/encoder_dump.c ($SP_BUILD/tools/encoder_dump).
# SP_REF_FULL=1 adds the full-size san/ssan/sg-net example configs (hundreds of MB of weights).
. tests/cli/lib.sh
need_numpy
if [ ! -d "$DATA/ptb-sample" ]; then skip_rest "$DATA/ptb-sample absent"; fi
DRV=${SP_BUILD:-build}/tools/encoder_dump
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$DRV" >/dev/null 2>&1 || true
fi
check "the driver $DRV is built" test -x "$DRV"
R=tests/reference/configs
C=encoder/configs
set -- $R/san-pre-gelu-max.json:1 $R/san-structpe-sum.json:0 $R/ms-san-strict.json:1 $R/sg-net-code.json:2 \
       $R/psan-carry.json:1 $R/ssan-multi.json:2 $C/ms-san.json:0 $C/psan.json:2 $C/san-structpe.json:3
if [ "${SP_REF_FULL:-0}" = 1 ]; then
    set -- "$@" $C/san.json:5 $C/ssan.json:0 $C/sg-net.json:12
fi
# encoders_ref.py prints a TAP line per config: renumbered here, other lines passed through
rc=0; "$PY" tests/reference/encoders_ref.py "$DRV" "$DATA" "$@" >"$TMP/ref.out" || rc=$?
n=0
while IFS= read -r line; do
    case $line in
        "ok "*) n=$((n+1)); ok "${line#ok [0-9]* - }";;
        "not ok "*) n=$((n+1)); not_ok "${line#not ok [0-9]* - }";;
        *) echo "$line";;
    esac
done <"$TMP/ref.out"
expect_eq "encoders_ref.py: exit 0, a result for each of the $# configs" "$rc $n" "0 $#"
done_testing
