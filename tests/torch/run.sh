#!/bin/sh
# tests/torch/run.sh [-c COUNTS] [BUILD] — the PyTorch twins (python/synprobe_torch) against
# synprobe, every encoder kind (make test-torch; part of make test-all).
# For each kind: tests/torch/configs/KIND.json (small, every option of the kind switched on that the
# shipped config leaves off) in both directions — random weights saved from PyTorch and loaded by
# `synprobe encode --weights`, and synprobe's seeded weights (`--save-weights`) loaded by
# synprobe_torch.load — then each shipped encoder/configs/*.json (full size) PyTorch -> synprobe,
# then each small config trained 40 steps by `python -m synprobe_torch.train` (masked words on the
# demo corpus) and encoded by synprobe with the files the training wrote.
# Each compares sentence vectors, token vectors and one layer's attention map over the demo
# corpus (tests/torch/parity.py): max abs difference <= 1e-5. One line per check names the kind;
# the last line is "N passed, N failed, N skipped"; COUNTS (BUILD/test-counts convention) gets
# "PASSED FAILED SKIPPED torch parity (tests/torch/run.sh)". Without torch in /usr/bin/python3
# (Debian python3-torch) every check is skipped visibly.
counts=""
if [ "${1:-}" = -c ]; then counts=$2; shift 2; fi
B=${1:-${SP_BUILD:-build}}
PY=${SP_TORCH_PY:-/usr/bin/python3}   # SP_TORCH_PY: another interpreter (one without torch shows the skips)
# one BLAS thread: torch's sums in one order run to run (synprobe's are fixed whatever the threads)
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1; export OPENBLAS_NUM_THREADS OMP_NUM_THREADS
TOL=${TORCH_TOL:-1e-5}
SYNPROBE=$(cd "$(dirname "$B/synprobe")" && pwd)/synprobe
export SYNPROBE
pass=0 fail=0 skip=0
checks() {
    for k in san san-structpe ms-san sg-net psan ssan; do
        echo "$k tests/torch/configs/$k.json torch"
        echo "$k tests/torch/configs/$k.json synprobe"
    done
    for k in san san-structpe ms-san sg-net psan ssan; do echo "$k encoder/configs/$k.json torch"; done
    for k in san san-structpe ms-san sg-net psan ssan; do echo "$k tests/torch/configs/$k.json trained"; done
    # variants, and the attention map of the first layer (SG-Net: a base layer; PSAN: the first memory step)
    for k in san-struct-first:san ms-san-strict:ms-san psan-coarse:psan sg-net:sg-net; do
        echo "${k#*:} tests/torch/configs/${k%:*}.json torch 0"
    done
}
if ! $PY -c 'import torch, numpy' 2>/dev/null; then
    checks | while read -r k cfg dir _; do echo "SKIP $k ($cfg, $dir weights): $PY has no torch (apt-get install python3-torch)"; done
    skip=$(checks | wc -l)
elif [ ! -x "$SYNPROBE" ]; then
    echo "tests/torch/run.sh: $SYNPROBE: not built (make)" >&2
    fail=1
else
    TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
    "$SYNPROBE" ingest --db "$TMP/d.db" --corpus demo demo/demo.conllu demo/demo.mrg >/dev/null 2>&1 ||
        { echo "tests/torch/run.sh: cannot ingest the demo corpus" >&2; exit 1; }
    n=0
    checks >"$TMP/list"
    while read -r k cfg dir att; do
        n=$((n + 1))
        w=""; [ "$dir" = synprobe ] && w=--from-synprobe
        [ -n "$att" ] && w="--attention $att"
        if [ "$dir" = trained ]; then      # 40 masked-word steps (python -m synprobe_torch.train), then its files
            PYTHONPATH=python $PY -m synprobe_torch.train "$cfg" --store "$TMP/d.db" --corpus demo --objective mlm \
                --steps 40 --seed 1 --batch-tokens 256 --log-every 40 --out "$TMP/t$n" >"$TMP/t$n.log" 2>&1 || cat "$TMP/t$n.log"
            cfg=$TMP/t$n/config.json; w="--weights $TMP/t$n/weights.safetensors --embeddings $TMP/t$n/embeddings.txt"
        fi
        if out=$($PY tests/torch/parity.py "$cfg" "$TMP/d.db" "$TMP/w$n" --corpus demo --tol "$TOL" $w 2>&1); then
            pass=$((pass + 1)); echo "ok     $k ($(echo "$cfg" | sed "s|^$TMP/||"), $dir weights): $(echo "$out" | tail -1 | sed 's/^PARITY //')"
        else
            fail=$((fail + 1)); echo "not ok $k ($cfg, $dir weights):"; echo "$out" | sed 's/^/    /'
        fi
    done <"$TMP/list"
fi
[ -n "$counts" ] && echo "$pass $fail $skip torch parity (tests/torch/run.sh)" >>"$counts"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
