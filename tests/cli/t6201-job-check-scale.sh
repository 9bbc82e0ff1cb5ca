# t6201-job-check-scale.sh — run --check on a job with tens of thousands of outputs: every clash found, SIGTERM/SIGINT stop it with a message (issue 40, item 7)
# tier: fast
# Before the fix `run --check` compared each output with every output before it (quadratic: a job
# with 600k report entries ran for more than ten minutes) and ignored SIGTERM until it was done.
# The expected clashes are made here by construction: two entries far apart naming one file by
# other words ("./x", a hard link, a symlinked folder), and the rule sp_guard_check_options
# always followed (the earliest output that is an earlier one's file, named with the first such
# one). The stop checks send the signal while the check runs and wait at most 10 s for the exit.
. tests/cli/lib.sh
J=$TMP/j; mkdir -p $J/out/sub; cp demo/demo.conllu $J/
ln -s sub $J/out/via-link
# mkjob FILE N [EXTRA_PY]: a job with N report entries out/rK.json and N trees entries out/tK.txt;
# EXTRA_PY edits the dict j before it is written
mkjob() {
    $PY - "$1" "$2" "${3:-}" <<'P'
import json, sys
path, n, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3]
j = {"store": "s.db", "out": "out", "corpora": [{"name": "d", "paths": ["demo.conllu"]}],
     "trees": [{"baseline": "right", "out": "t%d.txt" % i} for i in range(n)],
     "reports": [{"format": "json", "out": "r%d.json" % i} for i in range(n)]}
exec(extra)
json.dump(j, open(path, "w"))
P
}
mkjob $J/ok.json 10000
rc=0; $SP run --check $J/ok.json >$TMP/o 2>$TMP/e || rc=$?
expect_eq "20,000 distinct outputs: run --check exit 0" "$rc" 0
check "... it lists the last report entry" grep -q 'reports\[9999\]' $TMP/o

# refused J WHERE SHOWN: run --check exits 2 naming both
refused() {
    rc=0; $SP run --check $J/bad.json >/dev/null 2>$TMP/e || rc=$?
    expect_eq "$1: exit 2" "$rc" 2
    check "... names $2 and $3" grep -qF -- "$2: the same file as output $3;" $TMP/e
}
mkjob $J/bad.json 10000 'j["reports"][9999]["out"] = "./r0.json"'
refused "reports[9999] and reports[0] one file by other words" "reports[9999].out $J/out/./r0.json" "reports[0].out $J/out/r0.json"
: >$J/out/existing.txt; ln $J/out/existing.txt $J/out/hard.json
mkjob $J/bad.json 10000 'j["trees"][5]["out"] = "existing.txt"; j["reports"][8765]["out"] = "hard.json"'
refused "a hard link in reports[8765] to trees[5]'s file" "reports[8765].out $J/out/hard.json" "trees[5].out $J/out/existing.txt"
mkjob $J/bad.json 10000 'j["trees"][7000]["out"] = "sub/a.txt"; j["reports"][3]["out"] = "via-link/a.txt"; j["reports"][9]["out"] = "t2.txt"'
refused "three clashes: the earliest later output named (reports[3]), with its first partner" \
    "reports[3].out $J/out/via-link/a.txt" "trees[7000].out $J/out/sub/a.txt"
mkjob $J/bad.json 10000 'j["reports"][7]["out"] = "t7.txt"; j["reports"][8]["out"] = "t7.txt"'
refused "one file three times: the second named with the first" "reports[7].out $J/out/t7.txt" "trees[7].out $J/out/t7.txt"

# ---- a stop while it checks: exit 130/143 with a message, soon ----
mkjob $J/big.json 100000
# stopped SIG STATUS CMD...: CMD in the background, SIG after 0.5 s; the exit within 10 s
stopped() {
    sig=$1 want=$2; shift 2
    "$@" >/dev/null 2>$TMP/e & pid=$!
    sleep 0.5
    kill -$sig $pid 2>/dev/null || true
    i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
    if kill -0 $pid 2>/dev/null; then kill -9 $pid; fi
    rc=0; wait $pid || rc=$?
    expect_eq "$* : $sig after 0.5 s: exit $want within 10 s" "$rc" "$want"
    check "... it says it was stopped, and where" grep -qE 'stopped (by a signal )?while (reading|checking)' $TMP/e
}
stopped TERM 143 $SP run --check $J/big.json
stopped INT 130 $SP run --check $J/big.json
stopped TERM 143 $SP submit --db $TMP/q.db $J/big.json
check "... submit queued nothing (no queue store)" test ! -e $TMP/q.db
stopped TERM 143 $SP slurm $J/big.json --shards 4 --out $TMP/sl
check "... slurm wrote no script" test ! -e $TMP/sl/final.sbatch
done_testing
