# t6123-job-symlink.sh — a job file reached through a symlink means one thing to run, submit (the daemon) and slurm: its paths resolve against the link's folder (issue 22, item 6)
# tier: fast
# shared/job.json is linked as exp/link.json; both folders hold a demo.conllu. Before the fix
# `run exp/link.json` made exp/s.db from exp/demo.conllu while `submit` queued the target's path,
# so the daemon made shared/s.db from shared/demo.conllu, and slurm's scripts named the target too.
. tests/cli/lib.sh
mkdir -p "$TMP/shared" "$TMP/exp"
cp demo/demo.conllu "$TMP/shared/"
cp demo/demo.conllu "$TMP/exp/"
echo '{"store": "s.db", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}], "reports": [{"format": "json", "out": "r.json"}]}' \
    >"$TMP/shared/job.json"
ln -s ../shared/job.json "$TMP/exp/link.json"
EXP=$(cd "$TMP/exp" && pwd -P)
Q=$TMP/q.db
made_in_exp() { [ -s "$TMP/exp/s.db" ] && [ -s "$TMP/exp/r.json" ] && [ ! -e "$TMP/shared/s.db" ] && [ ! -e "$TMP/shared/r.json" ]; }

# ---- run ----
rc=0; "$SP" run --quiet "$TMP/exp/link.json" >/dev/null 2>&1 || rc=$?
expect_eq "run LINK: exit 0" "$rc" 0
check "run LINK: the store and the report are made in the link's folder, nothing beside the target" made_in_exp
rm -f "$TMP/exp/s.db"* "$TMP/exp/r.json"

# ---- submit, then the daemon runs it ----
id=$("$SP" submit --db "$Q" "$TMP/exp/link.json")
expect_eq "submit LINK: the queue keeps the link's path" \
    "$("$SP" status --db "$Q" --json "$id" | sed -n 's/^  "job": "\(.*\)",$/\1/p')" "$EXP/link.json"
state() { "$SP" status --db "$Q" --json "$id" | sed -n 's/^  "state": "\(.*\)",$/\1/p'; }
"$SP" daemon --db "$Q" --log "$TMP/daemon.log" --poll 0.05 &
dpid=$!
i=0
while [ "$(state)" != done ] && [ "$(state)" != failed ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
kill -TERM "$dpid"
wait "$dpid" || :
expect_eq "the daemon finishes the submitted job" "$(state)" done
check "submit LINK: the daemon made the store and the report in the link's folder too" made_in_exp

# ---- slurm ----
rc=0; "$SP" slurm "$TMP/exp/link.json" --shards 2 --out "$TMP/sl" >/dev/null 2>&1 || rc=$?
expect_eq "slurm LINK: exit 0" "$rc" 0
check "slurm LINK: the scripts run the link, not its target" grep -qxF "JOB='$EXP/link.json'" "$TMP/sl/final.sbatch"
done_testing
