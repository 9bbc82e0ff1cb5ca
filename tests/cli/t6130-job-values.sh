# t6130-job-values.sh — every value in a job file is checked at load time, as strictly as the command line checks it (cases generated from the option tables)
# tier: fast
# Issue 22 (finding 8): "dropout": 1.0 or "seed": ["-5"] passed `run --check` and failed only
# after ingest and encode had written. tests/tools/daemon_jobvalues.c writes, for every option of
# every table a job file is read through, values below the minimum, above the maximum, of the
# wrong JSON type, negative where unsigned, not whole where an integer is wanted, an unknown word
# of a choice; each must make `run --check` exit 1 (an invalid job file: cli/cmd_run.c) naming the
# JSON path, with nothing created in the job's folder. Values within the bounds (each bound, each
# choice) must not be refused for that value.
. tests/cli/lib.sh
TOOL=${SP_TOOLS:-${SP_BUILD:-build}/tools}/daemon_jobvalues
[ -x "$TOOL" ] || skip_rest "$TOOL not built (make test-cli builds it)"
J=$TMP/job
mkdir -p $J
cp demo/demo.conllu encoder/configs/san.json $J/
printf 'tr\t0\tone two three\n' >$J/task.txt
"$TOOL" $J >$TMP/cases
rc=0; $SP run --check $J/base.json >$TMP/out 2>$TMP/err || rc=$?
expect_eq "the base job passes run --check" "$rc" 0
n_bad=$(grep -c "	bad	" $TMP/cases || true)
n_ok=$(grep -c "	ok	" $TMP/cases || true)
check "the tables give bad cases ($n_bad)" [ "$n_bad" -gt 300 ]
check "the tables give cases within bounds ($n_ok)" [ "$n_ok" -gt 50 ]
before=$(ls $J | grep -v '^v[0-9]*\.json$' | sort | tr '\n' ' ')
TAB=$(printf '\t')
fails_bad=0; fails_ok=0
while IFS=$TAB read -r file kind path value; do
    rc=0; $SP run --check $J/$file >/dev/null 2>$TMP/err || rc=$?
    named=0; { grep -qF -- "$path:" $TMP/err || grep -qF -- "$path[" $TMP/err; } && named=1
    if [ "$kind" = bad ]; then
        if [ "$rc" = 1 ] && [ "$named" = 1 ]; then ok "$path = $value refused"
        else not_ok "$path = $value refused (exit $rc: $(cat $TMP/err))"; fails_bad=$((fails_bad+1)); fi
    else
        if [ "$rc" = 0 ] || { [ "$rc" = 1 ] && [ "$named" = 0 ]; }; then ok "$path = $value not refused for its value"
        else not_ok "$path = $value not refused for its value (exit $rc: $(cat $TMP/err))"; fails_ok=$((fails_ok+1)); fi
    fi
done <$TMP/cases
after=$(ls $J | grep -v '^v[0-9]*\.json$' | sort | tr '\n' ' ')
expect_eq "nothing created in the job's folder (no store, no output)" "$after" "$before"

# the same through submit: refused before the queue's store is opened
rc=0; $SP submit --db $TMP/q.db $J/$(grep "	probes\[0\]\.dropout	1.5" $TMP/cases | cut -f1 | head -1) >/dev/null 2>$TMP/err || rc=$?
check "submit refuses the job (exit $rc), naming the path" sh -c '[ "$1" = 1 ] && grep -qF "probes[0].dropout:" "$2"' - "$rc" $TMP/err
check "submit created no queue store" [ ! -e $TMP/q.db ]
# and through slurm: refused before its scripts are written
rc=0; $SP slurm $J/$(grep "	probes\[0\]\.seed	\[-1\]" $TMP/cases | cut -f1 | head -1) --shards 2 --out $TMP/slurm >/dev/null 2>$TMP/err || rc=$?
check "slurm refuses the job (exit $rc), naming the path" sh -c '[ "$1" = 1 ] && grep -qF "probes[0].seed[0]:" "$2"' - "$rc" $TMP/err
check "slurm wrote no scripts" [ ! -e $TMP/slurm ]
done_testing
