#!/bin/sh
# tests/tsan/run_tsan.sh BUILD — the ingest pipeline (reader, workers, writer, two SQLite
# connections) and two whole stage pipelines in one process (tests/unit/stages_concurrent.c)
# under ThreadSanitizer: a new store bulk-loaded from many files with
# attachments (.mrg + .dp), the same into an existing store (WAL), and one large file.
# Any ThreadSanitizer report fails. Needs clang and ../shared/data; skips visibly otherwise.
set -u
B=$1
DATA=${SP_DATA:-../shared/data}
[ -d "$DATA/ptb-sample" ] || { echo "1..0 # SKIP test-tsan: $DATA not present"; exit 0; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 log_path=$TMP/tsan"
fail=0
run() {   # label, then the ingest arguments
    label=$1; shift
    timeout 600 "$B/synprobe" ingest --quiet --workers 2 "$@" > "$TMP/out" 2>&1; rc=$?
    if [ $rc -ne 0 ] || ls "$TMP"/tsan.* >/dev/null 2>&1; then
        echo "not ok - $label (exit $rc)"; cat "$TMP"/tsan.* "$TMP/out" 2>/dev/null | head -60; fail=1
        rm -f "$TMP"/tsan.*
    else
        echo "ok - $label"
    fi
}
run "new store, PTB .mrg + .dp (bulk first commit, then WAL)" --db "$TMP/a.db" --corpus ptb "$DATA/ptb-sample/combined" "$DATA/ptb-sample/dependency"
run "existing store, EWT dev (WAL)" --db "$TMP/a.db" --corpus ewt "$DATA/ud-ewt/en_ewt-ud-dev.conllu"
run "new store, one large file" --db "$TMP/b.db" --corpus ewt "$DATA/ud-ewt/en_ewt-ud-dev.conllu"
# the probes that train two models side by side (structprobe: distance and depth; tokprobe: the
# probe and its control), each with its own GEMM threads
sp() {   # label, then the synprobe arguments
    label=$1; shift
    timeout 600 "$B/synprobe" "$@" > "$TMP/out" 2>&1; rc=$?
    if [ $rc -ne 0 ] || ls "$TMP"/tsan.* >/dev/null 2>&1; then
        echo "not ok - $label (exit $rc)"; cat "$TMP"/tsan.* "$TMP/out" 2>/dev/null | head -60; fail=1
        rm -f "$TMP"/tsan.*
    else
        echo "ok - $label"
    fi
}
sp "demo ingest" ingest --quiet --db "$TMP/p.db" --corpus demo demo/demo.conllu
sp "demo encode (SAN, token vectors)" encode --quiet --db "$TMP/p.db" --corpus demo --encoder encoder/configs/san.json --run san --token-vectors
sp "structprobe --threads 4: the two probes side by side, two threads each" structprobe --db "$TMP/p.db" --corpus demo --run san --rank 32 --max-epochs 3 --threads 4 --no-save
sp "tokprobe --threads 4: the probe and its control side by side" tokprobe --db "$TMP/p.db" --corpus demo --run san --max-epoch 4 --threads 4 --no-save
# layers side by side (structprobe/tokprobe --layer all --threads 2: two layers at a time, their
# rows and store writes in layer order): needs the MiniLM model (make models)
M=${SP_MODELS:-models}/all-MiniLM-L6-v2
if [ -f "$M/model.safetensors" ]; then
    printf '{"kind": "bert", "model": "%s"}\n' "$(cd "$M" && pwd)" >"$TMP/m.json"
    sp "demo encode (MiniLM, every layer)" encode --quiet --db "$TMP/p.db" --corpus demo --encoder "$TMP/m.json" --run lw --layers all --token-vectors
    sp "structprobe --layer all --threads 2: two layers side by side" structprobe --db "$TMP/p.db" --corpus demo --run lw --layer all --rank 16 --max-epochs 2 --threads 2
    sp "tokprobe --layer all --threads 2: two layers side by side" tokprobe --db "$TMP/p.db" --corpus demo --run lw --layer all --max-epoch 4 --threads 2
else
    echo "ok - layers side by side # SKIP $M not present (make models)"
fi
# two whole pipelines (ingest, tasks, encode, trees, probe) in two threads of one process
if [ -x "$B/tests/stages_concurrent" ]; then
    if "$B/tests/stages_concurrent" >"$TMP/out" 2>&1 && ! ls "$TMP"/tsan.* >/dev/null 2>&1; then
        echo "ok - two stage pipelines at once in one process"
    else
        echo "not ok - two stage pipelines at once in one process"; cat "$TMP"/tsan.* "$TMP/out" 2>/dev/null | head -60; fail=1
    fi
fi
[ $fail -eq 0 ] && echo "ok - test-tsan"
exit $fail
