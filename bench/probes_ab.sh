#!/bin/sh
# bench/probes_ab.sh — two synprobe binaries' probe training side by side, for before/after
# figures that a drifting machine cannot flatter: on the first SENTS sentences of UD EWT dev,
# encoded once (MiniLM, all 7 layers, token vectors) with B, the commands
#   structprobe --layer all, tokprobe --task deprel --layer all, tokprobe --task upos --layer all
# each run A B A B ..., ROUNDS times, --threads TH, --no-save. Prints per command the median and
# min–max of the wall time, the median CPU time (user + sys), B/A's speed-up (A's median wall /
# B's), and whether A and B printed the same figures (a change that claims to keep the bits must
# say "same"). Not a test: no assertions.
#
#   sh bench/probes_ab.sh A_SYNPROBE B_SYNPROBE      two built binaries
#   e.g. before/after a change:
#     git worktree add /tmp/before HEAD~3 && make -C /tmp/before CUDA=0 all
#     sh bench/probes_ab.sh /tmp/before/build/synprobe build/synprobe
#   env: SP_DATA (../shared/data), SP_MODELS (models), ROUNDS (3), SENTS (500), TH (2)
set -eu
export LC_ALL=C
. "$(dirname "$0")/bench_lib.sh"
[ $# -eq 2 ] || { echo "usage: sh bench/probes_ab.sh A_SYNPROBE B_SYNPROBE" >&2; exit 2; }
A=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); B=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
for bin in "$A" "$B"; do [ -x "$bin" ] || { echo "bench/probes_ab.sh: $bin is not an executable" >&2; exit 2; }; done
DATA=${SP_DATA:-../shared/data}
MODEL=$(cd "${SP_MODELS:-models}/all-MiniLM-L6-v2" 2>/dev/null && pwd) || { echo "SKIP bench/probes_ab.sh: no all-MiniLM-L6-v2 (make models)"; exit 0; }
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
ROUNDS=${ROUNDS:-3}; SENTS=${SENTS:-500}; TH=${TH:-2}
[ -f "$EWT" ] || { echo "SKIP bench/probes_ab.sh: $EWT absent"; exit 0; }
[ -x /usr/bin/time ] || { echo "SKIP bench/probes_ab.sh: /usr/bin/time needed"; exit 0; }
TMP=$(mktemp -d /tmp/sp_bench_probes_ab.XXXXXX); trap 'rm -rf "$TMP"' EXIT

awk -v n="$SENTS" 'BEGIN { RS = ""; ORS = "\n\n" } NR <= n' "$EWT" >"$TMP/ewt.conllu"
printf '{"kind": "bert", "model": "%s", "layer": 6, "word_pool": "mean", "sent_pool": "mean"}\n' "$MODEL" >"$TMP/minilm.json"
"$B" ingest --db "$TMP/s.db" --corpus ewt "$TMP/ewt.conllu" --quiet >/dev/null 2>&1
"$B" encode --db "$TMP/s.db" --corpus ewt --encoder "$TMP/minilm.json" --run m --layers all --token-vectors \
    --threads "$TH" --quiet >/dev/null 2>&1

echo "### probe training, two builds interleaved (bench/probes_ab.sh) — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "A = $A"
echo "B = $B"
echo "machine: $(machine); load before: $(load); first $SENTS EWT dev sentences, MiniLM all 7 layers; --threads $TH; $ROUNDS rounds A B A B ..."
echo
echo "| command | A wall s median (min–max) | B wall s median (min–max) | B/A speed-up | A CPU s | B CPU s | figures |"
echo "|---|---|---|---|---|---|---|"
run_cmd() {  # LABEL ARGS...
    label=$1; shift
    for side in A B; do : >"$TMP/$side.w"; : >"$TMP/$side.c"; done
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        r=$((r + 1))
        for side in A B; do
            eval bin=\$$side
            # shellcheck disable=SC2154
            /usr/bin/time -f '%e %U %S' -o "$TMP/time" "$bin" "$@" --db "$TMP/s.db" --threads "$TH" --no-save \
                >"$TMP/$side.out.$r" 2>"$TMP/$side.err" || { echo "bench/probes_ab.sh: $side $label failed:" >&2; tail -3 "$TMP/$side.err" >&2; exit 1; }
            awk '{ print $1 }' "$TMP/time" >>"$TMP/$side.w"
            awk '{ print $2 + $3 }' "$TMP/time" >>"$TMP/$side.c"
        done
    done
    st() { stats '%.2f' <"$TMP/$1" | cut -d' ' -f"$2"; }      # FILE FIELD: 1 median, 2 min, 3 max
    aw=$(st A.w 1); amin=$(st A.w 2); amax=$(st A.w 3); ac=$(st A.c 1)
    bw=$(st B.w 1); bmin=$(st B.w 2); bmax=$(st B.w 3); bc=$(st B.c 1)
    same=same; r=0
    while [ $r -lt "$ROUNDS" ]; do r=$((r + 1)); cmp -s "$TMP/A.out.$r" "$TMP/B.out.$r" || same=DIFFER; done
    echo "| \`$label\` | $aw ($amin–$amax) | $bw ($bmin–$bmax) | $(ratio "$aw" "$bw")x | $ac | $bc | $same |"
}
run_cmd "structprobe --layer all" structprobe --corpus ewt --run m --layer all
run_cmd "tokprobe --task deprel --layer all" tokprobe --corpus ewt --run m --layer all --task deprel
run_cmd "tokprobe --task upos --layer all" tokprobe --corpus ewt --run m --layer all --task upos
echo
echo "load after: $(load)"
