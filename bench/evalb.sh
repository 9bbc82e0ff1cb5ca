#!/bin/sh
# bench/evalb.sh — `synprobe evalb` against the reference EVALB (Sekine & Collins 1997, with the
# 2005 compiler fixes and the 2006 quote fix) on the same files with the same parameter file,
# interleaved A B A B ... ROUNDS times: A = synprobe evalb, B = evalb. Prints per side the median
# and min–max wall seconds (process start to exit, output to a file) and sentences/s at the median,
# the ratio B/A of the medians (above 1: synprobe is faster), the load average before and after,
# and for every set whether both computed the same thing: the summary figures of the "All" and
# "len<=40" blocks and the totals row, key by key, then the per-sentence rows and the error
# messages (`synprobe evalb` prints EVALB's exact text, so whole outputs are compared too).
#
# Sets (gold line k scored against test line k; MAX_ERROR lifted with -e on both sides, given
# AFTER -p because EVALB lets a later -p reset it — synprobe's -e wins wherever it stands):
#   synthetic   N (10,000) PTB-like trees, 10..40 words (mean about 25), random n-ary bracketing,
#               the test tree another random bracketing over the same words, 5% of the word tags
#               changed; COLLINS.prm (what every parsing paper reports with)
#   sample      EVALB's shipped sample.gld/.tst (24 lines: errors, skips, a 44-word sentence)
#               repeated REPEAT (417) times, 10,008 lines; sample.prm
#   ptb-pert    the real PTB sample trees of ../shared/data (3,913 of 3,914: the 249-word one is
#               beyond the reference binary's limits, docs/spec/probing.md §4.7) against a parser-like
#               perturbed copy (bench/gen_evalb_ptb.py: brackets dropped, relabelled, widened,
#               tags changed, 1% word errors, 0.5% empty lines), repeated PTB_REPEAT (3) times;
#               COLLINS.prm
#   ptb-rb      the same gold against right-branching trees, COLLINS.prm with LABELED 0 (Protocol A,
#               the scoring `synprobe trees` does; docs/spec/probing.md §5.4 gives F 34.88 for it)
#   startup     one sentence: the fixed cost of a run (process start, dynamic libraries, reading
#               the parameter file, and the timer's own `date` call), to read the rows above against
# The peer is the unmodified evalb.c of EVALB_DIR, compiled into a temporary folder with
# `cc -O2` (its Makefile builds with plain `gcc -Wall -g`, no optimisation; -O2 is the fair C
# peer). It is single-threaded and uses no BLAS; OPENBLAS/OMP/MKL_NUM_THREADS are still pinned
# to 1 for both sides. Without EVALB_DIR the synprobe side runs alone and the peer is skipped with
# one line. Not a test: no assertions.
#
#   EVALB_DIR=/path/to/EVALB sh bench/evalb.sh
#   env: EVALB_DIR (folder with evalb.c; https://nlp.cs.nyu.edu/evalb/), ROUNDS (3), N (10000),
#        REPEAT (417), PTB_REPEAT (3), SETS ("synthetic sample ptb-pert ptb-rb startup"),
#        SP_DATA (../shared/data), SP_BUILD (build), KEEP (1: keep the temporary folder)
set -eu
export LC_ALL=C
ncpu=$(nproc)   # before the pins: GNU nproc honours OMP_NUM_THREADS
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
SP=${SP_BUILD:-build}/synprobe
DATA=${SP_DATA:-../shared/data}
ROUNDS=${ROUNDS:-3}; N=${N:-10000}; REPEAT=${REPEAT:-417}; PTB_REPEAT=${PTB_REPEAT:-3}
SETS=${SETS:-"synthetic sample ptb-pert ptb-rb startup"}
[ -x "$SP" ] || { echo "bench/evalb.sh: $SP not built (make)" >&2; exit 2; }
TMP=$(mktemp -d); trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
notes=$TMP/notes; : >"$notes"
note() { echo "$*" >>"$notes"; }

# ---- the peer: EVALB's own evalb.c, -O2, built outside the repository ----
EV=""
if [ -z "${EVALB_DIR:-}" ]; then
    note "SKIP peer EVALB: EVALB_DIR is not set; point it at the folder with evalb.c (EVALB by Sekine & Collins, https://nlp.cs.nyu.edu/evalb/ , or the EVALB/ folder of github.com/nikitakit/self-attentive-parser)"
elif [ ! -f "$EVALB_DIR/evalb.c" ]; then
    note "SKIP peer EVALB: no evalb.c in EVALB_DIR=$EVALB_DIR; get EVALB from https://nlp.cs.nyu.edu/evalb/"
else
    for flags in "-O2" "-O2 -fcommon -w"; do
        # shellcheck disable=SC2086
        if cc $flags -o "$TMP/evalb" "$EVALB_DIR/evalb.c" 2>"$TMP/cc.err"; then EV=$TMP/evalb; break; fi
    done
    if [ -n "$EV" ]; then
        peer_build="cc $flags -o evalb $EVALB_DIR/evalb.c ($(cc --version | head -1); EVALB's own Makefile: gcc -Wall -g, no -O)"
    else
        note "SKIP peer EVALB: $EVALB_DIR/evalb.c does not compile with cc -O2: $(head -1 "$TMP/cc.err")"
    fi
fi

# ---- parameter files: the same file on both sides ----
if [ -f "$DATA/evalb/COLLINS.prm" ]; then COLLINS=$DATA/evalb/COLLINS.prm
elif [ -n "${EVALB_DIR:-}" ] && [ -f "$EVALB_DIR/COLLINS.prm" ]; then COLLINS=$EVALB_DIR/COLLINS.prm
else
    COLLINS=$TMP/COLLINS.prm   # COLLINS.prm's settings, for a run with neither present
    printf '%s\n' "DEBUG 0" "MAX_ERROR 10" "CUTOFF_LEN 40" "LABELED 1" "DELETE_LABEL TOP" "DELETE_LABEL -NONE-" \
        "DELETE_LABEL ," "DELETE_LABEL :" "DELETE_LABEL \`\`" "DELETE_LABEL ''" "DELETE_LABEL ." \
        "DELETE_LABEL_FOR_LENGTH -NONE-" "EQ_LABEL ADVP PRT" >"$COLLINS"
fi
sed 's/^LABELED.*/LABELED 0/' "$COLLINS" >"$TMP/protocolA.prm"
SAMPLE=""
if [ -f "$DATA/evalb/sample.gld" ]; then SAMPLE=$DATA/evalb
elif [ -n "${EVALB_DIR:-}" ] && [ -f "$EVALB_DIR/sample/sample.gld" ]; then SAMPLE=$EVALB_DIR/sample; fi

# ---- the sets: "name gold test prm" lines ----
: >"$TMP/sets"
repeat() {  # FILE TIMES OUT
    i=0; : >"$3"
    while [ "$i" -lt "$2" ]; do cat "$1" >>"$3"; i=$((i + 1)); done
}
for s in $SETS; do
    case $s in
    synthetic)
        awk -v seed=1 -v n="$N" -v out="$TMP" '
        function tree(lo, hi,    s, i, len) {
            if (hi - lo == 1 && rand() < 0.7) return sprintf("(%s %s)", tag[lo], word[lo])
            s = "(" lab[int(rand() * 6)]
            for (i = lo; i < hi; i += len) {
                len = 1 + int(rand() * (hi - i))
                if (len == hi - lo) len = 1 + int((hi - lo - 1) * rand())
                if (len < 1) len = 1
                s = s " " ((len == 1 && rand() < 0.8) ? sprintf("(%s %s)", tag[i], word[i]) : tree(i, i + len))
            }
            return s ")"
        }
        BEGIN {
            srand(seed)
            split("NP VP PP S SBAR ADJP", L, " "); for (k = 1; k <= 6; k++) lab[k - 1] = L[k]
            split("DT NN NNS VBD VBZ IN JJ PRP RB CC , .", T, " ")   # T[11], T[12]: deleted by COLLINS.prm
            for (s = 0; s < n; s++) {
                m = 10 + int(rand() * 31)
                for (i = 0; i < m; i++) { tag[i] = T[1 + int(rand() * 12)]; word[i] = (tag[i] ~ /^[,.]$/) ? tag[i] : "w" int(rand() * 5000) }
                print "(TOP " tree(0, m) ")" > (out "/synthetic.gld")
                for (i = 0; i < m; i++) if (tag[i] !~ /^[,.]$/ && rand() < 0.05) tag[i] = T[1 + int(rand() * 10)]
                print "(TOP " tree(0, m) ")" > (out "/synthetic.tst")
            }
        }'
        echo "synthetic $TMP/synthetic.gld $TMP/synthetic.tst $COLLINS" >>"$TMP/sets" ;;
    sample)
        if [ -z "$SAMPLE" ]; then note "SKIP set sample: no sample.gld in $DATA/evalb or \$EVALB_DIR/sample"; continue; fi
        repeat "$SAMPLE/sample.gld" "$REPEAT" "$TMP/sample.gld"
        repeat "$SAMPLE/sample.tst" "$REPEAT" "$TMP/sample.tst"
        echo "sample $TMP/sample.gld $TMP/sample.tst $SAMPLE/sample.prm" >>"$TMP/sets" ;;
    ptb-pert|ptb-rb)
        if [ ! -d "$DATA/ptb-sample/combined" ]; then note "SKIP set $s: $DATA/ptb-sample/combined absent (see ../shared/data/README.md)"; continue; fi
        if [ ! -x /usr/bin/python3 ]; then note "SKIP set $s: /usr/bin/python3 (standard library only) needed to make the trees"; continue; fi
        if [ ! -f "$TMP/ptb/ptb.gld" ]; then
            /usr/bin/python3 "$(dirname "$0")/gen_evalb_ptb.py" "$DATA/ptb-sample/combined" "$TMP/ptb" 1 >"$TMP/ptb.log"
            for f in ptb.gld ptb_pert.tst ptb_rb.tst; do repeat "$TMP/ptb/$f" "$PTB_REPEAT" "$TMP/x$f"; done
            note "PTB sets: $(cat "$TMP/ptb.log") (gen_evalb_ptb.py), each repeated $PTB_REPEAT times"
        fi
        if [ "$s" = ptb-pert ]; then echo "ptb-pert $TMP/xptb.gld $TMP/xptb_pert.tst $COLLINS" >>"$TMP/sets"
        else echo "ptb-rb $TMP/xptb.gld $TMP/xptb_rb.tst $TMP/protocolA.prm" >>"$TMP/sets"; fi ;;
    startup)
        echo "(TOP (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)))" >"$TMP/startup.gld"
        echo "(TOP (S (NP (DT The)) (NN cat) (VP (VBD sat)) (. .)))" >"$TMP/startup.tst"
        echo "startup $TMP/startup.gld $TMP/startup.tst $COLLINS" >>"$TMP/sets" ;;
    *) echo "bench/evalb.sh: unknown set '$s' (synthetic sample ptb-pert ptb-rb startup)" >&2; exit 2 ;;
    esac
done

now() { date +%s.%N; }
tab=$(printf '\t')
stats() { sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f %.4f %.4f", m, v[1], v[NR] }'; }
# the figures EVALB prints below its rows, one "block.key<TAB>value" a line, sorted: the totals row
# (the row after the last "=====" line) as total.*, the two blocks as All.* and le<CUTOFF>.*
summary() {
    awk '/^=+$/ { getline; tot = $0; next }
         /^-- All --/ { b = "All" } /^-- len<=/ { b = $2; sub(/len<=/, "le", b) }
         b != "" && / = / { split($0, kv, "="); key = kv[1]; sub(/ +$/, "", key); gsub(/ +/, "_", key)
                            val = kv[2]; gsub(/ /, "", val); print b "." key "\t" val }
         END { n = split(tot, v, " "); split("recall prec match gold test cross words tags tagacc", k, " ")
               for (i = 1; i <= n; i++) print "total." k[i] "\t" v[i] }' "$1" | sort
}
run_side() {  # SIDE GOLD TEST PRM OUTPREFIX -> appends seconds to OUTPREFIX.t
    t0=$(now)
    if [ "$1" = A ]; then "$SP" evalb -p "$4" -e 100000000 "$2" "$3" >"$5.out" 2>"$5.err" </dev/null || echo "exit $?" >>"$5.fail"
    else "$EV" -p "$4" -e 100000000 "$2" "$3" >"$5.out" 2>"$5.err" </dev/null || echo "exit $?" >>"$5.fail"; fi
    t1=$(now)
    echo "$t1 - $t0" | bc -l >>"$5.t"
}

date_utc=$(date -u '+%Y-%m-%d %H:%M UTC')
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
while read -r name gold test prm; do
    r=0
    while [ "$r" -lt "$ROUNDS" ]; do
        run_side A "$gold" "$test" "$prm" "$TMP/$name.A"
        [ -z "$EV" ] || run_side B "$gold" "$test" "$prm" "$TMP/$name.B"
        r=$((r + 1))
    done
done <"$TMP/sets"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "### bench/evalb.sh — synprobe evalb vs EVALB, $date_utc"
echo
echo "machine: $ncpu CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}; OPENBLAS/OMP/MKL_NUM_THREADS=1"
echo "A = $SP evalb ($(git rev-parse --short HEAD 2>/dev/null || echo '?')); B = ${peer_build:-EVALB (skipped, below)}"
echo "rounds: $ROUNDS, A B A B ...; wall seconds of the whole process (output to a file); load before: $load_before; after: $load_after"
cat "$notes"
echo
if [ -n "$EV" ]; then
    echo "| set | sentences | parameter file | A synprobe s median (min–max) | A sent/s | B EVALB -O2 s median (min–max) | B sent/s | B/A | same result |"
    echo "|---|---|---|---|---|---|---|---|---|"
else
    echo "| set | sentences | parameter file | A synprobe s median (min–max) | A sent/s |"
    echo "|---|---|---|---|---|"
fi
: >"$TMP/checks"
while read -r name gold test prm; do
    n=$(wc -l <"$gold")
    # shellcheck disable=SC2046
    set -- $(stats <"$TMP/$name.A.t")
    ma=$1; ra="$1 ($2–$3)"
    ratea=$(echo "$n / $ma" | bc -l)
    failed=""
    [ ! -f "$TMP/$name.A.fail" ] || failed="A failed ($(head -1 "$TMP/$name.A.fail"): $(tail -1 "$TMP/$name.A.err")) "
    if [ -z "$EV" ]; then
        printf "| %s | %d | %s | %s | %.0f |\n" "$name" "$n" "$(basename "$prm")" "$ra" "$ratea"
        [ -z "$failed" ] || echo "$name: $failed" >>"$TMP/checks"
        continue
    fi
    # shellcheck disable=SC2046
    set -- $(stats <"$TMP/$name.B.t")
    mb=$1; rb="$1 ($2–$3)"
    rateb=$(echo "$n / $mb" | bc -l)
    [ ! -f "$TMP/$name.B.fail" ] || failed="${failed}B failed ($(head -1 "$TMP/$name.B.fail")) "
    # the check, on the last round's outputs
    summary "$TMP/$name.A.out" >"$TMP/$name.A.sum"; summary "$TMP/$name.B.out" >"$TMP/$name.B.sum"
    nk=$(wc -l <"$TMP/$name.B.sum")
    diffkeys=$(join -t "$tab" -a1 -a2 -e '(none)' -o 0,1.2,2.2 "$TMP/$name.A.sum" "$TMP/$name.B.sum" \
               | awk -F '\t' '$2 != $3 { printf "%s%s: A %s, B %s", (n++ ? "; " : ""), $1, $2, $3 }')
    if [ "$nk" -eq 0 ]; then same="no summary from B"; verdict=differs
    elif [ -z "$diffkeys" ] && [ -z "$failed" ]; then same="equal"; verdict=equal
    else same="differs"; verdict=differs; fi
    printf "| %s | %d | %s | %s | %.0f | %s | %.0f | %.2f | %s |\n" "$name" "$n" "$(basename "$prm")" "$ra" "$ratea" "$rb" "$rateb" \
        "$(echo "$mb / $ma" | bc -l)" "$verdict"
    {
        figs=$(grep -E "^All\.(Bracketing_(Recall|Precision|FMeasure)|Complete_match|Tagging_accuracy|Number_of_(Valid|Error|Skip)_sentence)$tab|^total\.(match|gold|test)$tab" \
               "$TMP/$name.B.sum" | sed "s/^All\.//; s/Bracketing_//; s/Number_of_//; s/_sentence//; s/$tab/ /" | paste -sd, - | sed 's/,/, /g')
        echo "- $name: ${failed}summary figures ($nk keys, All + len<=40 + totals row): $same${diffkeys:+ — $diffkeys}; EVALB's: $figs"
        if cmp -s "$TMP/$name.A.out" "$TMP/$name.B.out"; then
            echo "  per-sentence rows and the whole stdout: identical ($(wc -l <"$TMP/$name.A.out") lines, $(wc -c <"$TMP/$name.A.out") bytes)"
        else
            k=$(cmp "$TMP/$name.A.out" "$TMP/$name.B.out" 2>&1 | sed -n 's/.* line \([0-9]*\).*/\1/p')
            echo "  stdout differs from line ${k:-?} on: A \`$(sed -n "${k:-1}p" "$TMP/$name.A.out")\`, B \`$(sed -n "${k:-1}p" "$TMP/$name.B.out")\`"
        fi
        if cmp -s "$TMP/$name.A.err" "$TMP/$name.B.err"; then
            echo "  error messages on stderr: identical ($(wc -l <"$TMP/$name.A.err") lines)"
        else
            k=$(cmp "$TMP/$name.A.err" "$TMP/$name.B.err" 2>&1 | sed -n 's/.* line \([0-9]*\).*/\1/p')
            echo "  error messages on stderr differ from line ${k:-?} on: A \`$(sed -n "${k:-1}p" "$TMP/$name.A.err")\`, B \`$(sed -n "${k:-1}p" "$TMP/$name.B.err")\`"
        fi
    } >>"$TMP/checks"
done <"$TMP/sets"
echo
[ -z "$EV" ] || echo "B/A = ratio of the median seconds, EVALB over synprobe (above 1: synprobe faster); sent/s at the median."
if [ -s "$TMP/checks" ]; then echo; echo "Same result? (last round's outputs of both sides)"; echo; cat "$TMP/checks"; fi
if grep -q '^ptb-rb ' "$TMP/sets"; then
    f=$(summary "$TMP/ptb-rb.A.out" | awk -F "$tab" '$1 == "All.Bracketing_FMeasure" { print $2 }')
    echo "- ptb-rb: synprobe's All F = $f (docs/spec/probing.md §5.4, right-branching, Protocol A: 34.88)"
fi
