# t6093-slurm.sh — the scripts `synprobe slurm` writes run on a single-node Slurm cluster
# tier: full, serial: starts slurmctld, slurmd and munged (ports probed free, then taken: two clusters at once could race for them)
# Issue 12 item 6 (Slurm half): a single-node Slurm cluster on this machine (Debian's slurm-wlm and
# munge: slurmctld + slurmd + munged, state, spool, key and sockets in a temp folder, ports of our
# own) runs the scripts `synprobe slurm` writes with sbatch: a job array of shards, then the
# dependent job that merges and runs the rest. The result must equal a one-machine run of the job.
# Skips visibly where Slurm cannot start. Every daemon it started is stopped by its pid.
. tests/cli/lib.sh
. tests/cli/shards.sh
for b in slurmctld slurmd sbatch squeue scontrol sinfo; do
    command -v $b >/dev/null 2>&1 || [ -x /usr/sbin/$b ] || skip_rest "$b not installed (apt-get install slurm-wlm munge)"
done
PATH=$PATH:/usr/sbin
[ "$(id -u)" = 0 ] || skip_rest "needs root: slurmd starts each job as its user (CI runs as root)"
D=$TMP/slurm
mkdir -p $D/state $D/spool $D/log $D/munge
stop_daemons() {  # by the pids they wrote, in reverse order of starting
    for p in $D/slurmd.pid $D/slurmctld.pid $D/munge/munged.pid; do
        [ -s $p ] && kill "$(cat $p 2>/dev/null)" 2>/dev/null || true
    done
    i=0; while [ $i -lt 50 ]; do
        alive=0
        for p in $D/slurmd.pid $D/slurmctld.pid $D/munge/munged.pid; do
            [ -s $p ] && kill -0 "$(cat $p 2>/dev/null)" 2>/dev/null && alive=1
        done
        [ $alive = 0 ] && break
        sleep 0.1; i=$((i+1))
    done
}
trap 't93_rc=$?; stop_daemons; (exit $t93_rc); t_exit' EXIT
why() { for f in "$@"; do [ -f $f ] && tail -3 $f | sed 's/^/    /'; done; }

# authentication: munge on a key and socket of our own; auth/none where munged is absent and
# this Slurm still has the plugin (22.05 has it)
if command -v munged >/dev/null 2>&1 || [ -x /usr/sbin/munged ]; then
    dd if=/dev/urandom of=$D/munge/munge.key bs=1024 count=1 2>/dev/null
    chmod 400 $D/munge/munge.key; chmod 711 $D/munge
    munged -f --socket=$D/munge/munge.sock --key-file=$D/munge/munge.key --log-file=$D/munge/munged.log \
        --pid-file=$D/munge/munged.pid --seed-file=$D/munge/munged.seed 2>$D/munge/start.err \
        || skip_rest "munged does not start here: $(cat $D/munge/start.err)"
    AUTH="AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.sock
CredType=cred/munge"
elif ls /usr/lib/*/slurm-wlm/auth_none.so >/dev/null 2>&1; then
    AUTH="AuthType=auth/none
CredType=cred/none"
else
    skip_rest "neither munged nor Slurm's auth/none plugin is installed"
fi
# ports of our own (other Slurm tests may run beside this one)
P=$((20000 + ($$ * 7) % 20000))
if command -v ss >/dev/null 2>&1; then
    while ss -ltn | grep -q ":$P \|:$((P+1)) "; do P=$((P+2)); done
fi
NODE=$(slurmd -C 2>/dev/null | head -1)
case "$NODE" in NodeName=*) ;; *) skip_rest "slurmd -C does not describe this machine: $NODE";; esac
cat >$D/slurm.conf <<C
ClusterName=synprobe-t93
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=$P
SlurmdPort=$((P+1))
$AUTH
SlurmUser=$(id -un)
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
SchedulerParameters=sched_interval=2
KillWait=5
$NODE NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=t93 Nodes=ALL Default=YES MaxTime=INFINITE State=UP
C
export SLURM_CONF=$D/slurm.conf
slurmctld -f $D/slurm.conf -i >$D/log/ctld.start 2>&1 || skip_rest "slurmctld does not start: $(why $D/log/ctld.start $D/log/slurmctld.log)"
slurmd -f $D/slurm.conf >$D/log/d.start 2>&1 || skip_rest "slurmd does not start: $(why $D/log/d.start $D/log/slurmd.log)"
i=0
while [ $i -lt 100 ] && [ "$(sinfo -h -o %t 2>/dev/null)" != idle ]; do sleep 0.2; i=$((i+1)); done
[ "$(sinfo -h -o %t 2>/dev/null)" = idle ] || skip_rest "the Slurm node did not come up in 20 s (state '$(sinfo -h -o %t 2>&1)'): $(why $D/log/slurmctld.log $D/log/slurmd.log)"
ok "a single-node Slurm cluster is up in $((i / 5)).$((i % 5 * 2)) s ($(sinfo -V), $(echo "$AUTH" | head -1))"

# the one-machine run, and the same job through Slurm
mkjob $TMP/one
$SP run $TMP/one/job.json >$TMP/one.out 2>&1 && rc=0 || rc=$?
expect_eq "one machine: exit 0" "$rc" 0
mkjob $TMP/sl
$SP slurm $TMP/sl/job.json --shards 3 --partition t93 >$TMP/slurm.out 2>&1 && rc=0 || rc=$?
expect_eq "synprobe slurm: exit 0" "$rc" 0
S=$TMP/sl/out/slurm
check "the array script: 3 tasks, requeue, a signal before the time limit, one shard per task" \
    sh -c "grep -qx '#SBATCH --array=0-2' $S/shards.sbatch && grep -qx '#SBATCH --requeue' $S/shards.sbatch &&
           grep -q '^#SBATCH --signal=B:' $S/shards.sbatch && grep -q 'run --shard \"\$SLURM_ARRAY_TASK_ID/3\"' $S/shards.sbatch"
check "the submit script chains the final job with --dependency=afterok" grep -q 'dependency=afterok:\$array' $S/submit.sh
sh $S/submit.sh >$TMP/submit.out 2>&1 && rc=0 || rc=$?
expect_eq "submit.sh: exit 0 ($(cat $TMP/submit.out))" "$rc" 0
set -- $(cat $S/jobs 2>/dev/null || echo 0 0)
ARRAY=$1 FINAL=$2
i=0
while [ $i -lt 900 ] && [ -n "$(squeue -h -j $ARRAY,$FINAL 2>/dev/null)" ]; do sleep 0.2; i=$((i+1)); done
expect_eq "both Slurm jobs finished within 180 s" "$(squeue -h -j $ARRAY,$FINAL 2>/dev/null)" ""
state() { scontrol show job $1 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort | uniq -c | tr -s ' ' | sed 's/^ //' | paste -sd, -; }
expect_eq "the 3 shard tasks completed" "$(state $ARRAY)" "3 COMPLETED"
expect_eq "the merge/probe/report job completed after them" "$(state $FINAL)" "1 COMPLETED"
check "... its log says the merged store holds 3 of 3 shards" grep -q 'holds 3 of 3 shards: 32 sentences' $S/logs/final.out
check "... and that the corpus runs were cached (encoded by the shards)" grep -q 'run san: 0 encoded, 32 cached' $S/logs/final.out
expect_eq "Slurm run = one machine in every part ($PARTS)" "$(same_parts $TMP/sl/out/store.db $TMP/one/out/store.db)" ""
expect_eq "merged store: integrity_check" "$(sqlite3 $TMP/sl/out/store.db 'pragma integrity_check')" ok

# odd but valid names (t6125 has the hostile ones): a folder and job file with spaces, quotes, $()
# and UTF-8 reach the real sbatch as the job name and the log files' folder
ODD="$TMP/odd 'q' \$(touch MARK) ü"
mkjob $TMP/oddsrc
mkdir -p "$ODD"
cp $TMP/oddsrc/* "$ODD/"
mv "$ODD/job.json" "$ODD/a 'b' é.json"
$SP slurm "$ODD/a 'b' é.json" --shards 2 --partition t93 >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "odd names: synprobe slurm exit 0" "$rc" 0
sh "$ODD/out/slurm/submit.sh" >$TMP/odd.out 2>&1 && rc=0 || rc=$?
expect_eq "odd names: submit.sh exit 0 ($(cat $TMP/odd.out))" "$rc" 0
set -- $(cat "$ODD/out/slurm/jobs" 2>/dev/null || echo 0 0)
OA=$1 OF=$2
i=0
while [ $i -lt 900 ] && [ -n "$(squeue -h -j $OA,$OF 2>/dev/null)" ]; do sleep 0.2; i=$((i+1)); done
expect_eq "odd names: both jobs completed" "$(state $OA) / $(state $OF)" "2 COMPLETED / 1 COMPLETED"
expect_eq "... under the job name given" "$(scontrol show job $OF 2>/dev/null | sed -n 's/.*JobName=//p')" "synprobe-a 'b' é"
check "... logging into the odd folder (the final job merged 2 of 2 shards)" grep -q 'holds 2 of 2 shards: 32 sentences' "$ODD/out/slurm/logs/final.out"
expect_eq "... no injected command ran" "$(find $TMP / -maxdepth 1 -name MARK 2>/dev/null | wc -l | tr -d ' ')" 0

# preemption: a shard task told to stop (the signal the array asks for before the time limit)
# checkpoints, requeues itself and resumes; the result is still the one-machine run's
mkjob $TMP/pre
$SP slurm $TMP/pre/job.json --shards 2 --partition t93 >/dev/null 2>&1
sh $TMP/pre/out/slurm/submit.sh >/dev/null 2>&1
set -- $(cat $TMP/pre/out/slurm/jobs 2>/dev/null || echo 0 0)
PA=$1 PF=$2
i=0
while [ $i -lt 300 ] && ! grep -q 'synprobe encode' $TMP/pre/out/slurm/logs/shard-0.out 2>/dev/null; do sleep 0.02; i=$((i+1)); done
scancel --batch --signal=USR1 ${PA}_0 2>/dev/null || true
# Slurm holds a requeued job back for 2 minutes (EligibleTime); a test need not wait that long
i=0
while [ $i -lt 100 ] && ! squeue -h -j ${PA}_0 -o %r 2>/dev/null | grep -q BeginTime; do sleep 0.1; i=$((i+1)); done
scontrol update JobId=${PA}_0 StartTime=now 2>/dev/null || true
i=0
while [ $i -lt 900 ] && [ -n "$(squeue -h -j $PA,$PF 2>/dev/null)" ]; do sleep 0.2; i=$((i+1)); done
got="$(state $PA) / $(state $PF)"
expect_eq "preempted run: both jobs finished, completed" "$got" "2 COMPLETED / 1 COMPLETED"
[ "$got" = "2 COMPLETED / 1 COMPLETED" ] || sed 's/^/# shard-0.out: /' $TMP/pre/out/slurm/logs/shard-0.out
if grep -q 'requeueing' $TMP/pre/out/slurm/logs/shard-0.out; then
    ok "shard 0 stopped at a checkpoint on USR1 and requeued itself"
    check "... the requeued task resumed and finished" grep -q 'synprobe run: done\|nothing to do' $TMP/pre/out/slurm/logs/shard-0.out
else
    skip "shard 0 finished before USR1 reached it: nothing to requeue"
fi
expect_eq "preempted run = one machine in every part" "$(same_parts $TMP/pre/out/store.db $TMP/one/out/store.db)" ""
done_testing
