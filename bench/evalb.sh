#!/bin/sh
# bench/evalb.sh — sentences/s of `synprobe evalb` on 10,000 gold/test pairs (best of 3 runs).
#   set A: synthetic PTB-like trees, 10..40 words (mean about 25), random n-ary bracketing, the test
#          tree a different random bracketing over the same tagged words, COLLINS.prm-style deletions;
#   set B: the shipped sample.gld/sample.tst repeated to 10,008 lines (if ../shared/data is present).
# No peer ratio: the reference evalb binary is not built here (its source is only read, never vendored).
set -u
SP=${SP_BUILD:-build}/synprobe
D=${SP_DATA:-../shared/data}/evalb
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$SP" ] || { echo "bench/evalb.sh: $SP not built"; exit 1; }

awk -v seed=1 -v n=10000 -v out="$tmp" '
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
    split("DT NN NNS VBD VBZ IN JJ , . PRP RB CC", T, " ")
    for (s = 0; s < n; s++) {
        m = 10 + int(rand() * 31)
        for (i = 0; i < m; i++) { tag[i] = T[1 + int(rand() * 12)]; word[i] = (tag[i] ~ /^[,.]$/) ? tag[i] : "w" int(rand() * 5000) }
        print "(TOP " tree(0, m) ")" > (out "/a.gld")
        print "(TOP " tree(0, m) ")" > (out "/a.tst")
    }
}'
cat > "$tmp/collins.prm" <<'EOF'
DELETE_LABEL TOP
DELETE_LABEL -NONE-
DELETE_LABEL ,
DELETE_LABEL :
DELETE_LABEL ``
DELETE_LABEL ''
DELETE_LABEL .
DELETE_LABEL_FOR_LENGTH -NONE-
EQ_LABEL ADVP PRT
MAX_ERROR 100000
EOF

rate() {   # rate NAME LINES ARGS...
    name=$1; lines=$2; shift 2
    best=
    for r in 1 2 3; do
        t0=$(date +%s.%N)
        "$SP" evalb "$@" > "$tmp/out" 2> /dev/null || { echo "bench/evalb.sh: run failed"; exit 1; }
        t1=$(date +%s.%N)
        best=$(awk -v a="$t0" -v b="$t1" -v c="${best:-1e9}" 'BEGIN { d = b - a; print (d < c ? d : c) }')
    done
    awk -v n="$lines" -v t="$best" -v name="$name" \
        'BEGIN { printf "evalb %-34s %6d sentences  %.4f s  %10.0f sentences/s\n", name, n, t, n / t }'
    grep -E '^(Bracketing FMeasure|Number of Valid)' "$tmp/out" | head -2 | sed 's/^/    /'
}

rate "synthetic 10-40 words (COLLINS)" 10000 -p "$tmp/collins.prm" "$tmp/a.gld" "$tmp/a.tst"
if [ -f "$D/sample.gld" ]; then
    i=0; : > "$tmp/b.gld"; : > "$tmp/b.tst"
    while [ $i -lt 417 ]; do cat "$D/sample.gld" >> "$tmp/b.gld"; cat "$D/sample.tst" >> "$tmp/b.tst"; i=$((i+1)); done
    rate "sample x417 (sample.prm, -e 1e6)" "$(wc -l < "$tmp/b.gld")" -p "$D/sample.prm" -e 1000000 "$tmp/b.gld" "$tmp/b.tst"
else
    echo "SKIP bench/evalb.sh sample set: $D absent"
fi
echo "peer ratio omitted: no reference evalb binary is built in this tree (source read only, not vendored)"
