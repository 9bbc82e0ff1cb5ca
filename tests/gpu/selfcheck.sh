#!/bin/sh
# make test-gpu-selfcheck (part of make test-all): the CUDA-vs-CPU harness checked without a GPU.
#  1. --cpu-vs-cpu on every config make test-gpu uses: the CPU backend on both sides, so every
#     config must pass (loading, weight perturbation, batching, grouping and comparison agree
#     with themselves);
#  2. --cpu-vs-cpu --perturb on a SAN and an SSAN config: the second side's outputs are shifted
#     as encoder_cuda_vs_cpu.c's perturb_outs says, so every config must fail, and each count of
#     values out of tolerance must be exactly the number shifted: per B-sentence batch, B sentence
#     values, B + 1 token values (1 NaN), B attention weights; one by one 3B + 1; R copies 3RB + 1.
#   tests/gpu/selfcheck.sh [BUILD]
set -u
B=${1:-build}
BIN=$B/gpu/encoder_cuda_vs_cpu
DATA=${SP_DATA:-../shared/data}
if [ ! -x "$BIN" ]; then
    make -s --no-print-directory BUILD="$B" "$BIN" || { echo "not ok - gpu selfcheck: cannot build $BIN"; exit 1; }
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sp-gpuself.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
fail=0
ok()     { echo "ok - gpu selfcheck: $1"; }
not_ok() { echo "not ok - gpu selfcheck: $1"; fail=1; }

rc=0
"$BIN" --cpu-vs-cpu "$DATA" "$TMP" encoder/configs/*.json tests/reference/configs/*.json tests/gpu/configs/*.json >"$TMP/plain.log" 2>&1 || rc=$?
n_ok=$(grep -c '^ok ' "$TMP/plain.log"); n_bad=$(grep -c '^not ok ' "$TMP/plain.log")
if [ "$rc" -eq 0 ] && [ "$n_ok" -gt 0 ] && [ "$n_bad" -eq 0 ]; then ok "cpu vs cpu: $n_ok config layers agree"
else not_ok "cpu vs cpu: exit $rc, $n_ok ok, $n_bad not ok"; sed 's/^/#   /' "$TMP/plain.log"; fi

rc=0
"$BIN" --cpu-vs-cpu --perturb "$DATA" "$TMP" tests/reference/configs/san-pre-gelu-max.json tests/reference/configs/ssan-multi.json \
    >"$TMP/pert.log" 2>&1 || rc=$?
if [ "$rc" -eq 1 ]; then ok "perturbed: exit 1"; else not_ok "perturbed: exit $rc, expected 1"; fi
n_ok=$(grep -c '^ok ' "$TMP/pert.log"); n_bad=$(grep -c '^not ok ' "$TMP/pert.log")
if [ "$n_ok" -eq 0 ] && [ "$n_bad" -eq 4 ]; then ok "perturbed: all 4 config layers fail"
else not_ok "perturbed: $n_ok ok, $n_bad not ok, expected 0 and 4"; fi
# every count out of tolerance equals the number of values shifted
bad=$(awk '
    /^(not )?ok [0-9]+ - / { for (i = 1; i <= NF; i++) if ($(i + 1) == "sentences,") nb = $i; next }
    /^#   multi-group batch: / { copies = $4; next }
    /^#   (sentence|tokens|attention|1-by-1|groups) +[0-9]+ values, / {
        what = $2; got = $5 " " $9 " " $10
        want = what == "sentence" || what == "attention" ? nb " (0 non-finite)," : what == "tokens" ? nb + 1 " (1 non-finite)," \
             : what == "1-by-1" ? 3 * nb + 1 " (1 non-finite)," : 3 * nb * copies + 1 " (1 non-finite),"
        if (got != want) { printf "%s: %s, expected %s\n", what, got, want; n++ }
        seen++
    }
    END { if (seen != 4 * 3 + 2 * 2) printf "%d count lines, expected 16\n", seen }' "$TMP/pert.log")
if [ -z "$bad" ]; then ok "perturbed: exactly the shifted values are counted (16 count lines)"
else not_ok "perturbed: counts"; echo "$bad" | sed 's/^/#   /'; sed 's/^/#   /' "$TMP/pert.log"; fi

# 3. the bert harness (tests/gpu/bert_cuda_vs_cpu.c) on the real MiniLM (make models), else skipped:
#    CPU vs CPU agrees; perturbed, exactly 2 values per sentence are counted, in both comparisons
BERT_BIN=$B/gpu/bert_cuda_vs_cpu
MODEL=${SP_MODELS:-models}/all-MiniLM-L6-v2
if [ ! -f "$MODEL/model.safetensors" ]; then
    echo "ok - gpu selfcheck: bert # SKIP $MODEL absent (make models)"
else
    rc=0; "$BERT_BIN" --cpu-vs-cpu "$MODEL" "$DATA" >"$TMP/bert.log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] && [ "$(grep -c '^ok ' "$TMP/bert.log")" -eq 2 ]; then ok "bert cpu vs cpu: both comparisons agree"
    else not_ok "bert cpu vs cpu: exit $rc"; sed 's/^/#   /' "$TMP/bert.log"; fi
    rc=0; "$BERT_BIN" --cpu-vs-cpu --perturb "$MODEL" "$DATA" >"$TMP/bertp.log" 2>&1 || rc=$?
    n=$(sed -n 's/^# sentences: //p' "$TMP/bertp.log")
    got=$(sed -n 's/^# values out: //p' "$TMP/bertp.log" | tr '\n' ' ')
    if [ "$rc" -eq 1 ] && [ -n "$n" ] && [ "$got" = "$((2 * n)) $((2 * n)) " ]; then
        ok "bert perturbed: exit 1, exactly 2 x $n shifted values counted in each comparison"
    else not_ok "bert perturbed: exit $rc, counts '$got' for $n sentences"; sed 's/^/#   /' "$TMP/bertp.log"; fi
fi
# 4. the same harness, CPU vs CPU, on the tiny DeBERTa-v2 folders of kind hf (tests/data/hf; no
#    model download): the disentangled attention's forward agrees with itself batched and one by one
for d in tests/data/hf/deberta-v2-c2p tests/data/hf/deberta-v2-p2c; do
    rc=0; "$BERT_BIN" --cpu-vs-cpu "$d" "$DATA" >"$TMP/deb.log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] && [ "$(grep -c '^ok ' "$TMP/deb.log")" -eq 2 ]; then ok "$d cpu vs cpu: both comparisons agree"
    else not_ok "$d cpu vs cpu: exit $rc"; sed 's/^/#   /' "$TMP/deb.log"; fi
done
exit $fail
