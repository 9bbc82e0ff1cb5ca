#!/bin/sh
# t50: the C encoders agree with the independent NumPy reference (tests/reference/encoders_ref.py)
# to 1e-5 absolute on real PTB-sample sentences, random non-symmetric weights, every kind.
# SP_REF_FULL=1 adds the full-size san/ssan/sg-net example configs (hundreds of MB of weights).
. tests/cli/lib.sh
B=${SP_BUILD:-build}
DRV=$B/tools/encoder_dump
need_numpy
if [ ! -d "$DATA/ptb-sample" ]; then skip_all "$DATA/ptb-sample absent"; fi
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="$B" "$DRV" >/dev/null 2>&1 || true
fi
if [ ! -x "$DRV" ]; then skip_all "$DRV not built (make test-cli builds it)"; fi
R=tests/reference/configs
C=encoder/configs
set -- $R/san-pre-gelu-max.json:1 $R/san-structpe-sum.json:0 $R/ms-san-strict.json:1 $R/sg-net-code.json:2 \
       $R/psan-carry.json:1 $R/ssan-multi.json:2 $C/ms-san.json:0 $C/psan.json:2 $C/san-structpe.json:3
if [ "${SP_REF_FULL:-0}" = 1 ]; then
    set -- "$@" $C/san.json:5 $C/ssan.json:0 $C/sg-net.json:12
fi
# encoders_ref.py prints one TAP line per config (ok N / not ok N); they are this script's checks
rc=0; "$PY" tests/reference/encoders_ref.py "$DRV" "$DATA" "$@" >"$TMP/ref.out" 2>&1 || rc=$?
cat "$TMP/ref.out"
t_n=$(grep -c '^ok \|^not ok ' "$TMP/ref.out" || true)
t_fail=$(grep -c '^not ok ' "$TMP/ref.out" || true)
expect_eq "encoders_ref.py: exit 0" "$rc" 0
done_testing
