#!/bin/sh
# t50: the C encoders agree with the independent NumPy reference (tests/reference/encoders_ref.py)
# to 1e-5 absolute on real PTB-sample sentences, random non-symmetric weights, every kind.
# SP_REF_FULL=1 adds the full-size san/ssan/sg-net example configs (hundreds of MB of weights).
set -u
B=${SP_BUILD:-build}
PY=/usr/bin/python3
DATA=${SP_DATA:-../shared/data}
DRV=$B/tests/encoder_dump
if [ ! -x "$PY" ] || ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "ok 1 # SKIP t50-encoder-ref: /usr/bin/python3 with numpy not available"; exit 0
fi
if [ ! -d "$DATA/ptb-sample" ]; then
    echo "SKIP t50-encoder-ref: $DATA/ptb-sample absent"; exit 0
fi
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="$B" "$DRV" >/dev/null 2>&1 || true
fi
if [ ! -x "$DRV" ]; then
    echo "ok 1 # SKIP t50-encoder-ref: $DRV not built (make test-unit builds it)"; exit 0
fi
R=tests/reference/configs
C=encoder/configs
set -- $R/san-pre-gelu-max.json:1 $R/san-structpe-sum.json:0 $R/ms-san-strict.json:1 $R/sg-net-code.json:2 \
       $R/psan-carry.json:1 $R/ssan-multi.json:2 $C/ms-san.json:0 $C/psan.json:2 $C/san-structpe.json:3
if [ "${SP_REF_FULL:-0}" = 1 ]; then
    set -- "$@" $C/san.json:5 $C/ssan.json:0 $C/sg-net.json:12
fi
if "$PY" tests/reference/encoders_ref.py "$DRV" "$DATA" "$@"; then
    echo "ok - t50-encoder-ref"
else
    echo "not ok - t50-encoder-ref"; exit 1
fi
