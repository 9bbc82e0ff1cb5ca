# t3048-structprobe-ref.sh — the trained structural probes agree with the NumPy reference
# tier: fast
# The trained structural probes (docs/spec/models.md M4) agree with the independent NumPy reference
# tests/reference/structprobe_ref.py: 80 real EWT dev sentences, seeded random-encoder vectors,
# distance and depth probes trained by both; epochs, checkpoint, loss curves and final proj are
# compared (tolerances and why in the script). Driver: tests/tools/probes_sptrain_dump.c.
. tests/cli/lib.sh
need_numpy
if [ ! -f "$DATA/ud-ewt/en_ewt-ud-dev.conllu" ]; then skip_rest "$DATA/ud-ewt/en_ewt-ud-dev.conllu absent"; fi
DRV=${SP_BUILD:-build}/tools/probes_sptrain_dump
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$DRV" >/dev/null 2>&1 || true
fi
check "the driver $DRV is built" test -x "$DRV"
rc=0; "$PY" tests/reference/structprobe_ref.py "$DRV" "$DATA" >"$TMP/ref.out" || rc=$?
n=0
while IFS= read -r line; do
    case $line in
        "ok "*) n=$((n+1)); ok "${line#ok [0-9]* - }";;
        "not ok "*) n=$((n+1)); not_ok "${line#not ok [0-9]* - }";;
        *) echo "$line";;
    esac
done <"$TMP/ref.out"
expect_eq "structprobe_ref.py: exit 0, 12 checks" "$rc $n" "0 12"
done_testing
