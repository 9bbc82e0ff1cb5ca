#!/bin/sh
# bench/jobs.sh — what a job costs over the commands it stands for. One experiment on the PTB
# sample (ingest .mrg + .dp, all ten tasks, MS-SAN over the corpus and three tasks, logreg probes,
# trees from attention, a JSON report) is run two ways, each in a fresh folder:
#   A  the same steps typed by hand: the `synprobe ...` command lines, one process each
#   B  `synprobe run job.json`: one process, the job runner
# interleaved A B A B ..., ROUNDS times. The hand-typed sequence is the one `synprobe run --check`
# lists for the job, written into a shell script once, before the rounds, so both sides run the
# same command lines; the results of the two sides are compared (probe accuracies and tree F1 of
# the last round) so a side that skipped work cannot look fast. Prints the median and min–max wall
# seconds of each side, the ratio B/A of the medians (the issue's bar: B/A <= 1.02) and the load
# average before and after. Not a test: no assertions.
#   sh bench/jobs.sh            env: SP_DATA (../shared/data), ROUNDS (3), SP_BUILD (build)
set -eu
export LC_ALL=C
DATA=$(cd "${SP_DATA:-../shared/data}" 2>/dev/null && pwd) || { echo "SKIP bench/jobs.sh: ${SP_DATA:-../shared/data} not present"; exit 0; }
ROUNDS=${ROUNDS:-3}
SP=$(cd "${SP_BUILD:-build}" && pwd)/synprobe
CONFIGS=$(cd encoder/configs && pwd)
[ -x "$SP" ] || { echo "bench/jobs.sh: $SP not built (make)" >&2; exit 2; }
TMP=$(mktemp -d); trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT

write_job() {  # FOLDER
    mkdir -p "$1"
    cat >"$1/job.json" <<J
{
  "store": "out/store.db", "out": "out",
  "corpora": [{"name": "ptb", "paths": ["$DATA/ptb-sample/combined", "$DATA/ptb-sample/dependency"]}],
  "tasks": [{"seed": 1, "split": "resplit"}],
  "encoders": [{"config": "$CONFIGS/ms-san.json", "inputs": ["ptb", "TreeDepth", "TopConst", "BShift"], "attention": 0}],
  "probes": [{"classifier": "logreg", "seed": "1", "preset": "senteval-fast"}],
  "trees": [{}],
  "reports": [{"format": "json", "out": "results.json"}]
}
J
}
# the hand-typed side: the job's steps as command lines (run from the job's folder)
write_job "$TMP/proto"
( cd "$TMP/proto" && "$SP" run --check job.json ) | sed -n 's|^ *[a-z]*\[[0-9]*\] *synprobe \(.*\)$|"$SP" \1 --quiet|p' >"$TMP/commands.sh"
n_cmd=$(wc -l <"$TMP/commands.sh")
[ "$n_cmd" -gt 5 ] || { echo "bench/jobs.sh: could not list the job's steps" >&2; exit 2; }
sed -i "1i mkdir -p out" "$TMP/commands.sh"   # the runner makes the output folder; by hand, so does the user

now() { date +%s.%N; }
stats() { sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f", m, v[1], v[NR] }'; }
results() {  # FOLDER -> probe accuracies and tree F1, one line
    sqlite3 "$1/out/store.db" "select group_concat(v, ' ') from (select task_name || '=' || round(test_acc, 6) as v from probe_result order by task_name);
                               select group_concat(round(json_extract(result, '$.protocol_a.all.fmeasure'), 6), ' ') from tree_eval" 2>/dev/null | tr '\n' ' '
}

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}"
echo "job: PTB sample (.mrg + .dp), 10 tasks, MS-SAN over the corpus and 3 tasks, logreg probes, trees, report: $n_cmd steps"
echo "$ROUNDS rounds, A = the $n_cmd commands by hand, B = synprobe run; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$TMP/A"; : >"$TMP/B"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
    for side in A B; do
        d=$TMP/$side$r; write_job "$d"
        t0=$(now)
        if [ $side = A ]; then (cd "$d" && SP=$SP sh -e "$TMP/commands.sh") >/dev/null 2>"$d/err"
        else (cd "$d" && "$SP" run --quiet job.json) >/dev/null 2>"$d/err"; fi
        t1=$(now)
        echo "$t1 - $t0" | bc -l >>"$TMP/$side"
    done
    r=$((r + 1))
done
last=$((ROUNDS - 1))
ra=$(results "$TMP/A$last"); rb=$(results "$TMP/B$last")
set -- $(stats <"$TMP/A") $(stats <"$TMP/B")
echo
echo "| side | wall s median (min–max) |"
echo "|---|---|"
printf "| A: %d commands by hand | %s (%s–%s) |\n" "$n_cmd" "$1" "$2" "$3"
printf "| B: synprobe run job.json | %s (%s–%s) |\n" "$4" "$5" "$6"
printf "B/A = %.3f (the bar: <= 1.02)\n" "$(echo "$4 / $1" | bc -l)"
if [ -n "$ra" ] && [ "$ra" = "$rb" ]; then echo "results: the same on both sides ($ra)"
else echo "results DIFFER: A: $ra; B: $rb"; fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
