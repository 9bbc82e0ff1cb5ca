# t6131-job-limits.sh — jobs with hundreds of corpora and tasks load whole; NUL bytes in a job file or encoder config are refused alike everywhere
# tier: fast
# Issue 22 (findings 4, 10): the job reader kept corpora in a fixed array of 256: from 257
# corpora the task list was overwritten, from ~520 `run --check`, `submit` and `slurm` crashed.
# And `run` read a job file only up to a NUL byte (json_loads) while `submit` refused it.
. tests/cli/lib.sh
# refused RC TEXT: the command exited 1 and its stderr ($TMP/err) holds TEXT
refused() { [ "$1" = 1 ] && grep -qF -- "$2" $TMP/err; }
J=$TMP/job
mkdir -p $J
cp demo/demo.conllu encoder/configs/san.json $J/

# N corpora (all the same file), tasks built from every one, an encoder over the first
many_corpora() {
    n=$1
    {
        printf '{"store": "s.db", "corpora": ['
        i=0; while [ $i -lt $n ]; do
            [ $i -gt 0 ] && printf ', '
            printf '{"name": "c%d", "paths": ["demo.conllu"]}' $i
            i=$((i+1))
        done
        printf '], "tasks": [{"tasks": ["SentLen"], "split": "resplit"}], "encoders": [{"config": "san.json", "inputs": ["c0", "SentLen"]}], '
        printf '"probes": [{}]}\n'
    } >$J/many.json
}
for n in 300 600; do
    many_corpora $n
    rc=0; $SP run --check $J/many.json >$TMP/out 2>$TMP/err || rc=$?
    expect_eq "$n corpora: run --check exits 0 ($(head -c 300 $TMP/err))" "$rc" 0
    expect_eq "$n corpora: one ingest step each" "$(grep -c ' synprobe ingest ' $TMP/out)" "$n"
    # tasks build takes every corpus of the job, in order: c0,c1,...,c(n-1)
    want=$(i=0; while [ $i -lt $n ]; do [ $i -gt 0 ] && printf ','; printf 'c%d' $i; i=$((i+1)); done)
    got=$(sed -n 's/.*synprobe tasks build .*--corpus \([^ ]*\).*/\1/p' $TMP/out)
    expect_eq "$n corpora: tasks build names all $n corpora in order" "$got" "$want"
    rc=0; $SP submit --db $TMP/q$n.db $J/many.json >/dev/null 2>$TMP/err || rc=$?
    expect_eq "$n corpora: submit exits 0 ($(head -c 300 $TMP/err))" "$rc" 0
    rc=0; $SP slurm $J/many.json --shards 2 --out $TMP/slurm$n >/dev/null 2>$TMP/err || rc=$?
    expect_eq "$n corpora: slurm exits 0 ($(head -c 300 $TMP/err))" "$rc" 0
done

# 300 tasks (imported, one file): the job reader kept tasks in an array of 256 too
printf 'tr\t0\tone two three\n' >$J/task.txt
{
    printf '{"store": "s.db", "tasks": ['
    i=0; while [ $i -lt 300 ]; do
        [ $i -gt 0 ] && printf ', '
        printf '{"name": "t%d", "file": "task.txt"}' $i
        i=$((i+1))
    done
    printf '], "encoders": [{"config": "san.json", "inputs": ["t299"]}]}\n'
} >$J/tasks.json
rc=0; $SP run --check $J/tasks.json >$TMP/out 2>$TMP/err || rc=$?
expect_eq "300 tasks: run --check exits 0 ($(head -c 300 $TMP/err))" "$rc" 0
check "300 tasks: the encoder runs over the 300th" grep -q -- '--task t299 ' $TMP/out

# "config" and "encoder" in one entry: refused once (the entry was freed twice: a use after free
# that the sanitizer build reports)
printf '{"store": "s.db", "corpora": [{"name": "d", "paths": ["demo.conllu"]}], "encoders": [{"config": "san.json", "encoder": "san.json", "inputs": ["d"]}]}\n' >$J/both.json
rc=0; $SP run --check $J/both.json >/dev/null 2>$TMP/err || rc=$?
check "config and encoder together: refused, exit 1 ($(head -c 300 $TMP/err))" refused "$rc" 'encoders[0]: give "config" or "encoder", not both'

# A NUL byte after a valid job: every command refuses the file, naming it and the NUL's offset
printf '{"store": "s.db", "corpora": [{"name": "d", "paths": ["demo.conllu"]}]}\n' >$J/nul.json
off=$(wc -c <$J/nul.json | tr -d ' ')
printf '\000{"garbage": 1}\n' >>$J/nul.json
want="$J/nul.json: a NUL byte at offset $off"
before=$(ls $J | sort | tr '\n' ' ')
for cmd in "run --check" "run" "submit --db $TMP/qnul.db" "slurm --shards 2 --out $TMP/slurmnul"; do
    set -- $cmd
    rc=0
    if [ "$1" = slurm ]; then shift; $SP slurm $J/nul.json "$@" >/dev/null 2>$TMP/err || rc=$?
    else $SP "$@" $J/nul.json >/dev/null 2>$TMP/err || rc=$?; fi
    check "NUL in the job file: $cmd refuses it (exit $rc), naming the file and the offset ($(cat $TMP/err))" \
        refused "$rc" "$want"
done
check "NUL in the job file: no queue store" [ ! -e $TMP/qnul.db ]
check "NUL in the job file: no Slurm folder" [ ! -e $TMP/slurmnul ]
expect_eq "NUL in the job file: nothing created in the job's folder" "$(ls $J | sort | tr '\n' ' ')" "$before"

# A NUL byte in an encoder config: the job is refused when loaded, before ingest writes the store
head -c 20 encoder/configs/san.json >$J/nulcfg.json
printf '\000' >>$J/nulcfg.json
tail -c +21 encoder/configs/san.json >>$J/nulcfg.json
printf '{"store": "s.db", "corpora": [{"name": "d", "paths": ["demo.conllu"]}], "encoders": [{"config": "nulcfg.json", "inputs": ["d"]}]}\n' >$J/cfg.json
for cmd in "run --check" "run" "submit --db $TMP/qcfg.db"; do
    rc=0; $SP $cmd $J/cfg.json >/dev/null 2>$TMP/err || rc=$?
    check "NUL in the encoder config: $cmd refuses the job (exit $rc), naming encoders[0].config and the offset ($(cat $TMP/err))" \
        refused "$rc" "encoders[0].config: $J/nulcfg.json: a NUL byte at offset 20"
done
check "NUL in the encoder config: no job store written" [ ! -e $J/s.db ]
check "NUL in the encoder config: no queue store written" [ ! -e $TMP/qcfg.db ]
# encode on the command line reads the config the same way
$SP ingest --db $TMP/e.db demo/demo.conllu >/dev/null 2>&1
rc=0; $SP encode --db $TMP/e.db --corpus main --encoder $J/nulcfg.json --run x --quiet >/dev/null 2>$TMP/err || rc=$?
check "NUL in the encoder config: encode refuses it (exit $rc: $(cat $TMP/err))" \
    refused "$rc" "$J/nulcfg.json: a NUL byte at offset 20"

# A NUL byte inside a weights file's JSON header: refused (the header was read as a C string, so
# whatever followed the NUL was ignored)
if [ -x "$PY" ]; then
    rc=0; $SP encode --db $TMP/e.db --corpus main --encoder encoder/configs/san.json --run w0 --save-weights $TMP/w.safetensors \
        --device cpu >/dev/null 2>$TMP/err || rc=$?
    expect_eq "encode --save-weights exits 0 ($(head -c 300 $TMP/err))" "$rc" 0
    $PY - $TMP/w.safetensors $TMP/wnul.safetensors <<'PYEOF'
import sys
b = open(sys.argv[1], 'rb').read()
hl = int.from_bytes(b[:8], 'little')
hdr = b[8:8 + hl].rstrip(b' ') + b'\0{"junk": [1, 2, 3]}'
hdr += b' ' * (-len(hdr) % 8)
open(sys.argv[2], 'wb').write(len(hdr).to_bytes(8, 'little') + hdr + b[8 + hl:])
PYEOF
    rc=0; $SP encode --db $TMP/e.db --corpus main --encoder encoder/configs/san.json --run w1 --weights $TMP/wnul.safetensors \
        --device cpu >/dev/null 2>$TMP/err || rc=$?
    check "a NUL in the weights header: encode refuses the file (exit $rc: $(head -c 300 $TMP/err))" \
        sh -c '[ "$1" != 0 ] && grep -qF "wnul.safetensors: header is not a JSON object" "$2"' - "$rc" $TMP/err
else
    skip "no $PY: the weights header case needs it to write the file"
fi
done_testing
