# t6125-slurm-values.sh — `synprobe slurm` refuses values that break a script line, quotes the rest (stub sbatch)
# tier: fast
# Issue 22 item 3. A control character (newline, CR, tab, 0x7f) in any value the scripts would hold
# (the job file's path, the store, the output folder, --partition, --time, --out) and '%' or '\'
# in the scripts' folder (sbatch reads the log names as filename patterns) are refused: exit 2,
# the value named, nothing written, and no injected command ever runs. Odd but valid names
# (spaces, quotes, $(), backticks, a leading '-', UTF-8) work end to end: a stub sbatch on PATH
# records its arguments and runs the scripts with sh as Slurm would (array tasks, then the
# dependent job), and the merged store holds every sentence of the corpus.
. tests/cli/lib.sh
SPA=$(cd "$(dirname "$SP")" && pwd)/$(basename "$SP")
STUB=$TMP/stub
mkdir -p $STUB/bin
# the stub: every argument on a line of args.ID; --output's %a replaced by the task index; a job
# whose dependency failed does not run (afterok); prints the job id as --parsable does. Injected
# commands below touch MARK* files (relative: a file name cannot hold '/'), so they are looked for
# in the stub's folder, in $TMP and here.
cat >$STUB/bin/sbatch <<'S'
#!/bin/sh
n=$(cat "$STUB/next" 2>/dev/null || echo 100); echo $((n + 1)) >"$STUB/next"
out=/dev/null script= dep=
for a in "$@"; do
    printf '%s\n' "$a" >>"$STUB/args.$n"
    case $a in --output=*) out=${a#--output=} ;; --dependency=afterok:*) dep=${a#--dependency=afterok:} ;; -*) ;; *) script=$a ;; esac
done
sh -n "$script" || { echo "sbatch stub: $script: not valid sh" >&2; exit 1; }
[ -n "$dep" ] && [ -e "$STUB/failed.$dep" ] && { echo "sbatch stub: dependency $dep failed" >&2; exit 1; }
cd "$STUB"   # Slurm runs a batch script where sbatch ran; here in the stub's folder
last=$(sed -n 's/^#SBATCH --array=0-\([0-9]*\)$/\1/p' "$script")
if [ -n "$last" ]; then
    i=0
    while [ $i -le $last ]; do
        o=$(printf '%s' "$out" | sed "s/%a/$i/g")
        SLURM_ARRAY_JOB_ID=$n SLURM_ARRAY_TASK_ID=$i sh "$script" >>"$o" 2>&1 || touch "$STUB/failed.$n"
        i=$((i + 1))
    done
else
    SLURM_JOB_ID=$n sh "$script" >>"$out" 2>&1 || touch "$STUB/failed.$n"
fi
echo "$n"
S
chmod +x $STUB/bin/sbatch
export STUB
STUBPATH=$STUB/bin:$PATH
job() {  # job FOLDER FILE-NAME [STORE [OUT]]: the demo corpus and a job that ingests it
    mkdir -p "$1"
    cp demo/demo.conllu "$1/"
    printf '{"store": "%s", "out": "%s", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}]}\n' \
        "${3:-out/store.db}" "${4:-out}" >"$1/$2"
}
marks() { { find $TMP -name 'MARK*'; ls -d MARK* 2>/dev/null || true; } | wc -l | tr -d ' '; }

# ---- refused: exit 2, the value named, nothing written, nothing run ----
NL='
'
CR=$(printf '\r')
TAB=$(printf '\t')
DEL=$(printf '\177')
refused() {  # refused DESC WHAT-THE-MESSAGE-NAMES FOLDER SLURM-ARGS...
    desc=$1 what=$2 dir=$3; shift 3
    rc=0; (cd "$dir" && "$SPA" slurm "$@") >$TMP/o 2>$TMP/e || rc=$?
    expect_eq "$desc: exit 2" "$rc" 2
    check "... the message names $what" grep -qF -- "$what" $TMP/e
    # the scripts of an unfixed build would be run as sbatch would run them: nothing may run
    find "$dir" -name submit.sh -exec env PATH="$STUBPATH" sh {} \; >/dev/null 2>&1 || true
    expect_eq "... no script was written and no injected command ran" "$(find "$dir" -name '*.sbatch' | wc -l | tr -d ' ') $(marks)" "0 0"
}
D=$TMP/r1; job $D "a${NL}touch MARK1${NL}.json"
refused "a newline in the job file's name" "the job file's path" $D "a${NL}touch MARK1${NL}.json" --shards 2
D=$TMP/r2; job $D "a${CR}touch MARK2${CR}.json"
refused "a CR in the job file's name" "the job file's path" $D "a${CR}touch MARK2${CR}.json" --shards 2
D=$TMP/r3; job $D "a${TAB}b.json"
refused "a tab in the job file's name" 'a\x09b.json' $D "a${TAB}b.json" --shards 2
D=$TMP/r4; job $D job.json
refused "a newline in --partition" "--partition 'p\x0atouch" $D job.json --shards 2 --partition "p${NL}touch MARK4"
refused "a newline in --time" "--time" $D job.json --shards 2 --time "1:00${NL}touch MARK5"
refused "a CR in --time" "--time '1:00\x0d" $D job.json --shards 2 --time "1:00${CR}"
refused "a DEL byte in --partition" "(byte 0x7f" $D job.json --shards 2 --partition "p${DEL}"
refused "'%' in --out (sbatch's filename patterns)" "holds '%'" $D job.json --shards 2 --out "logs%a"
refused "'\\' in --out" "holds '\\'" $D job.json --shards 2 --out 'logs\x'
D=$TMP/r5; job $D job.json 'out/s\ntouch MARK6\n.db'
refused "a newline in the job's store" "the job's store" $D job.json --shards 2
D=$TMP/r6; job $D job.json out/store.db 'o\rut'
refused "a CR in the job's output folder" "the job's output folder" $D job.json --shards 2

# ---- odd but valid names: quoted, and they work end to end ----
ODD="$TMP/dir with space 'q' \"dq\" \$(touch MARKa) \`touch MARKb\` ü"
JF="-job 'ü' \$(touch MARKc).json"
job "$ODD" "$JF"
PART="-p 'q' \$(touch MARKd) \`touch MARKe\` é"
rc=0; (cd "$ODD" && "$SPA" slurm "./$JF" --shards 2 --partition "$PART" --time 1-00:00:00) >$TMP/o 2>$TMP/e || rc=$?
expect_eq "odd names: synprobe slurm exit 0 ($(cat $TMP/e))" "$rc" 0
S="$ODD/out/slurm"
check "every script parses (sh -n)" sh -c 'for f in "$1"/*.sbatch "$1"/submit.sh; do sh -n "$f" || exit 1; done' sh "$S"
expect_eq "#SBATCH lines hold fixed words only (nothing a user named)" \
    "$(grep -h '^#SBATCH' "$S"/*.sbatch | grep -cvE '^#SBATCH --(open-mode=append|requeue|signal=B:USR1@60|array=0-1)$')" 0
rc=0; PATH=$STUBPATH sh "$S/submit.sh" >$TMP/o 2>$TMP/e || rc=$?
expect_eq "submit.sh through the stub sbatch: exit 0 ($(cat $TMP/e))" "$rc" 0
expect_eq "... it printed both job ids" "$(cat "$S/jobs")" "100 101"
expect_eq "... sbatch got --partition as given" "$(grep -c -xF -- "--partition=$PART" $STUB/args.100 $STUB/args.101 | cut -d: -f2 | paste -sd' ')" "1 1"
expect_eq "... and --time" "$(grep -c -xF -- "--time=1-00:00:00" $STUB/args.100 $STUB/args.101 | cut -d: -f2 | paste -sd' ')" "1 1"
expect_eq "... the job name" "$(grep -xF -- "--job-name=synprobe--job 'ü' \$(touch MARKc)" $STUB/args.100 | wc -l | tr -d ' ')" 1
expect_eq "... the array's log files" "$(sed -n 's/^--output=//p' $STUB/args.100)" "$S/logs/shard-%a.out"
check "... each shard task ran into its log" grep -q 'shard 1/2' "$S/logs/shard-1.out"
check "... the final job merged both shards" grep -q 'holds 2 of 2 shards: 32 sentences' "$S/logs/final.out"
check "... and ran the job on the merged store" grep -q 'synprobe run: ' "$S/logs/final.out"
expect_eq "the merged store holds every sentence of the corpus (32, one per sent_id line)" \
    "$(sqlite3 "$ODD/out/store.db" 'select count(*) from sentence')" "$(grep -c '^# sent_id' demo/demo.conllu)"
expect_eq "no injected command ran anywhere" "$(marks)" 0
done_testing
