# t6086-demo-steps.sh — the demo is a job whose printed steps, typed by hand, find the work done
# tier: fast
# Issues 11 and 12: the demo is a job (DIR/demo.job.json) run by the job runner, which calls the
# stages directly and prints each step as the command that would do the same; typed by hand,
# those commands find the demo's work done (same runs, same numbers).
. tests/cli/lib.sh
$SP demo --out $TMP/d >$TMP/out 2>&1 || { not_ok "demo exits 0"; done_testing; exit 1; }
ok "demo exits 0"
grep '^  \$ synprobe ' $TMP/out | sed 's/^  \$ //' >$TMP/steps
expect_eq "steps printed: ingest, tasks build, 4 corpus encodes + 4 trees, 9 task encodes + 9 probes, 2 baselines, 2 reports (JSON, HTML)" \
    "$(wc -l <$TMP/steps | tr -d ' ')" 32
check "the log has every step and its lines" test "$(grep -c '^\$ synprobe ' $TMP/d/pipeline.log)" -eq 32
check "the demo wrote its job file" test -s $TMP/d/demo.job.json
out=$($SP run $TMP/d/demo.job.json 2>&1) && rc=0 || rc=$?
expect_eq "synprobe run on the demo's job: exit 0" "$rc" 0
case "$out" in *"nothing to do"*) ok "synprobe run on the demo's job: nothing to do (the demo ran it)";; *) not_ok "run: $out";; esac

# the printed encode of the MS-SAN corpus run, typed again: the same run, everything cached
line=$(grep '^synprobe encode .*--corpus demo .*ms-san.json' $TMP/steps | head -1)
check "an encode step is printed with its attention layer" sh -c "echo '$line' | grep -q -- '--attention 0'"
out=$(eval "\$SP ${line#synprobe } --json --quiet") && rc=0 || rc=$?
expect_eq "the printed encode, typed by hand: exit 0" "$rc" 0
expect_eq "... finds all 32 sentences cached (same options, same fingerprint)" \
    "$(echo "$out" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["cached"], d["encoded"])')" "32 0"

# the printed probe of san-Tense, typed again without storing: the stored test accuracy
line=$(grep '^synprobe probe .*--run san-Tense' $TMP/steps | head -1)
got=$(eval "\$SP ${line#synprobe } --no-save --json --quiet" | $PY -c 'import json,sys; print("%.4f" % json.load(sys.stdin)["acc"])')
want=$(sqlite3 $TMP/d/demo.db "select printf('%.4f', test_acc) from probe_result join run using (run_id) where run.name = 'san-Tense'")
expect_eq "the printed probe, typed by hand: the demo's stored test accuracy" "$got" "$want"

# the engine is the stages' (no command function called with an argv array, no fd juggling)
check "cli/cmd_demo.c and daemon/run.c call no cmd_* function and no dup2" \
    sh -c "! grep -nE 'dup2|cmd_[a-z]+\\(' cli/cmd_demo.c daemon/run.c | grep -v ':int cmd_demo'"
done_testing
