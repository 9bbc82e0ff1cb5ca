#!/bin/sh
# bench/queue.sh — the daemon's queue under load (issue 12 item 7, second half), interleaved with a
# peer: huey's SqliteHuey (a maintained single-machine job queue on SQLite, `pip install huey`,
# bench/peer_huey.py). Per round, three sides, each with a fresh queue and one consumer with 4
# workers, 4 concurrent clients submitting JOBS trivial jobs each:
#   A  synprobe: `synprobe daemon --workers 4`; one `synprobe submit` process per BATCH job files
#      (a job with one report step, all into one job store)
#   B  huey, as A: `huey_consumer -w 4`; one Python process per BATCH enqueues (the same
#      process count as A: what a shell script that submits jobs does)
#   C  huey, as huey users enqueue: each client enqueues all its JOBS tasks from one process
#      (its counterpart on our side: BATCH=JOBS, one `synprobe submit` of all a client's jobs)
# in the order A B C every round. Prints, per round and per side as median (min–max) over ROUNDS:
#   submitted/s  jobs / seconds from the first submit to the last client's end
#   completed/s  jobs / seconds from the first submit to the last job done
# (the same clock points on every side: the consumer is started and ready first; "done" is polled
# every 0.02 s: A counts finished queue rows, B and C count the lines the tasks wrote), and the
# ratios of the medians. Checks by counting that none was lost or run twice: A, every job done at
# its first attempt, one attempt header and one "done" line per job in the logs; B and C, every
# task's id written exactly once (total lines, distinct ids, the expected set), huey's queue empty
# and one stored result per task.
# A trivial job: A, one report to stdout (its log): the first job's report is recorded in the job
# store's ledger and the others find it done, so a job costs what the queue costs; the daemon runs
# such a job itself, without forking a process (daemon/daemon.c). FORK=1 gives each job a report
# of its own (its own output file), which every job then runs in its own process (huey has no
# matching setting: its workers never fork per task). B, C: a task appending its id to a file
# (one O_APPEND write) and returning it (huey stores the result).
# What is compared, durability: synprobe's queue store is SQLite in WAL mode with synchronous =
# NORMAL (store/st_open.c): a commit is not fsynced, the WAL is at checkpoints; every submit and
# every state change is committed (one transaction each, BEGIN IMMEDIATE), survives any process
# crash, and a power loss may lose the last commits but never corrupts the queue. huey as it comes
# (SqliteHuey, fsync=None) runs WAL with SQLite's default synchronous = FULL on Debian: the WAL is
# fsynced at every commit (each enqueue, dequeue and result), more durable and slower on a disk.
# By default B and C run huey with synchronous = NORMAL (HUEY_SYNC=normal: one pragma added after
# huey's own connection setup, bench/peer_huey.py) so both sides pay the same fsyncs;
# HUEY_SYNC=full measures huey as it comes, HUEY_SYNC=off huey's fsync=False (never fsynced).
# The header prints the setting read back from a live huey connection.
# Polling: the daemon looks for new jobs every 0.05 s when idle (--poll default); huey's
# consumer is run with the same (-d 0.05 -m 0.05; huey's own defaults: 0.1 s, backing off to 10 s
# while idle, which would only add idle waits here).
# The issue's floor: 200 jobs/s handled (A's completed/s; printed: met or not). Not a test: it
# prints, and exits 1 only if a job was lost or ran twice (on any side).
#   sh bench/queue.sh          env: ROUNDS (3), JOBS (100 per client), BATCH (1 job per submit /
#       enqueue process), FORK (0), SP_BUILD (build), HUEY_SYNC (normal|full|off),
#       HUEY_WORKER (thread|process), PEER_PY (a Python with huey; default the bench venv,
#       ${XDG_CACHE_HOME:-$HOME/.cache}/synprobe-bench/venv; add huey with its bin/pip install huey), KEEP (keep the
#       round folders)
set -eu
export LC_ALL=C
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-100}
BATCH=${BATCH:-1}      # job files per `synprobe submit` process; tasks per enqueue process on side B
FORK=${FORK:-0}
HUEY_SYNC=${HUEY_SYNC:-normal}
HUEY_WORKER=${HUEY_WORKER:-thread}
CLIENTS=4
# A submit never computes, but OpenBLAS starts its thread pool (threads spinning on sched_yield)
# when any synprobe process starts; on a busy 2-CPU machine that doubles a submit's wall time.
# Scripts that submit many jobs can do the same; CLIENT_BLAS_THREADS= (empty) measures without.
CLIENT_BLAS_THREADS=${CLIENT_BLAS_THREADS-1}
SP=$(cd "${SP_BUILD:-build}" && pwd)/synprobe
BENCH=$(cd "$(dirname "$0")" && pwd)
[ -x "$SP" ] || { echo "bench/queue.sh: $SP not built (make)" >&2; exit 2; }
PY=${PEER_PY:-${XDG_CACHE_HOME:-$HOME/.cache}/synprobe-bench/venv/bin/python}
TMP=$(mktemp -d); trap 'for p in $dpid $hpid; do kill $p 2>/dev/null || :; done; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
dpid=; hpid=
now() { date +%s.%N; }
stats() { sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f %.0f %.0f", m, v[1], v[NR] }'; }
total=$((CLIENTS * JOBS))
# the peer's threads pinned before its imports (it imports no BLAS; the bench rule all the same)
peer() { OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH="$BENCH" "$PY" "$@"; }
mkdir -p "$TMP/probe"; export HUEY_DB=$TMP/probe/h.db HUEY_RAN=$TMP/probe/ran   # importing peer_huey makes its store
huey=1; skip=
if ! [ -x "$PY" ] || ! peer -c 'import huey, peer_huey' >/dev/null 2>&1; then
    huey=0
    skip="SKIP peer huey: not importable by $PY (${XDG_CACHE_HOME:-$HOME/.cache}/synprobe-bench/venv/bin/pip install huey, or PEER_PY=a Python with huey); measuring synprobe alone"
fi
sides="sides A B C interleaved"; [ $huey = 1 ] || sides="side A alone"
case $HUEY_SYNC in normal|full|off) ;; *) echo "bench/queue.sh: HUEY_SYNC must be normal, full or off" >&2; exit 2;; esac
case $HUEY_WORKER in thread|process) ;; *) echo "bench/queue.sh: HUEY_WORKER must be thread or process" >&2; exit 2;; esac
huey_setting=
if [ $huey = 1 ]; then
    huey_setting=$(HUEY_SYNC=$HUEY_SYNC peer -c 'import peer_huey; peer_huey.init()')
    huey_version=$(peer -c 'import huey; print(huey.__version__)')
fi

echo "### queue: synprobe daemon vs huey ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "$skip" ] || echo "$skip"
echo "$ROUNDS rounds, $sides: $CLIENTS concurrent clients x $JOBS trivial jobs = $total jobs per round and side, one consumer with 4 workers; FORK=$FORK"
echo "A: synprobe daemon --workers 4, one \`synprobe submit\` process per $BATCH job file(s); queue store WAL, synchronous=NORMAL"
if [ $huey = 1 ]; then
    echo "B: huey $huey_version SqliteHuey, huey_consumer -w 4 -k $HUEY_WORKER -d 0.05 -m 0.05, one Python process per $BATCH enqueue(s); HUEY_SYNC=$HUEY_SYNC: $huey_setting"
    echo "C: as B, each client enqueues its $JOBS tasks from one Python process (how huey users enqueue; A's counterpart: BATCH=$JOBS)"
    if [ "$FORK" = 1 ]; then echo "note: FORK=1 makes every synprobe job a process of its own; huey's workers never fork per task (no matching setting)"; fi
fi
echo
for s in A B C; do : >"$TMP/sub$s"; : >"$TMP/done$s"; : >"$TMP/cpu$s"; : >"$TMP/check$s"; done
bad=

cpu_of() {  # PID -> CPU clock ticks of it and its children (reaped or alive)
    t=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$1/stat)
    for k in $(cat /proc/$1/task/*/children 2>/dev/null); do
        t=$((t + $(awk '{ print $14 + $15 }' /proc/$k/stat 2>/dev/null || echo 0)))
    done
    echo $t
}
record() {  # SIDE T0 T1 T2 TICKS -> the rates and CPU per job appended to the side's files
    echo "$total / ($3 - $2)" | bc -l >>"$TMP/sub$1"
    echo "$total / ($4 - $2)" | bc -l >>"$TMP/done$1"
    echo "$5 * 1000 / $(getconf CLK_TCK) / $total" | bc -l >>"$TMP/cpu$1"
}
last() { tail -n1 "$1"; }

side_a() {  # ROUND
    d=$TMP/A$1; mkdir -p "$d/jobs"
    c=0
    while [ $c -lt $CLIENTS ]; do
        i=0
        while [ $i -lt $JOBS ]; do
            if [ "$FORK" = 1 ]; then
                printf '{"store": "../s.db", "out": "..", "reports": [{"format": "csv", "out": "out/c%d-%d.csv"}]}\n' $c $i >"$d/jobs/c$c-$i.json"
            else
                printf '{"store": "../s.db", "comment": "client %d job %d", "reports": [{"format": "csv"}]}\n' $c $i >"$d/jobs/c$c-$i.json"
            fi
            i=$((i+1))
        done
        c=$((c+1))
    done
    "$SP" daemon --db "$d/q.db" --workers 4 --log "$d/daemon.log" &
    dpid=$!
    sleep 0.3
    t0=$(now)
    c=0; clients=
    while [ $c -lt $CLIENTS ]; do
        ( i=0
          while [ $i -lt $JOBS ]; do
              files=; k=0
              while [ $k -lt $BATCH ] && [ $i -lt $JOBS ]; do files="$files $d/jobs/c$c-$i.json"; i=$((i+1)); k=$((k+1)); done
              OPENBLAS_NUM_THREADS=$CLIENT_BLAS_THREADS "$SP" submit --db "$d/q.db" $files >/dev/null
          done ) &
        clients="$clients $!"
        c=$((c+1))
    done
    for p in $clients; do wait $p; done
    t1=$(now)
    while [ "$(sqlite3 "$d/q.db" "select count(*) from queue_job where state in ('done', 'failed', 'cancelled')")" -lt $total ]; do sleep 0.02; done
    t2=$(now)
    # CPU of the daemon and its (reaped) job processes: utime stime cutime cstime, in clock ticks
    ticks=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$dpid/stat)
    kill -TERM $dpid; wait $dpid || true; dpid=
    record A "$t0" "$t1" "$t2" "$ticks"
    # none lost, none run twice
    q=$(sqlite3 "$d/q.db" "select count(*), sum(state = 'done' and attempts = 1) from queue_job" | tr '|' ' ')
    headers=$(cat "$d/q.db.logs"/*.log | grep -c '^==== job ')
    runs=$(cat "$d/q.db.logs"/*.log | grep -c '^synprobe run: \(done\|nothing to do\)')
    inproc=$(cat "$d/q.db.logs"/*.log | grep -c 'checked by the daemon' || :)
    if [ "$q" = "$total $total" ] && [ "$headers" = $total ] && [ "$runs" = $total ]; then ok=ok; else ok=FAILED; bad="$bad A"; fi
    echo "$ok" >>"$TMP/checkA"
    printf 'round %d A synprobe: submitted %.0f jobs/s, completed %.0f jobs/s, daemon + job processes %.2f CPU ms/job; queue rows, done at the first attempt: %s; log headers %s, runs done %s (%s without a process): %s\n' \
        "$1" "$(last "$TMP/subA")" "$(last "$TMP/doneA")" "$(last "$TMP/cpuA")" "$q" "$headers" "$runs" "$inproc" $ok
}

side_huey() {  # ROUND SIDE(B|C)
    d=$TMP/$2$1; mkdir -p "$d"
    export HUEY_DB=$d/huey.db HUEY_RAN=$d/ran HUEY_SYNC
    : >"$HUEY_RAN"
    peer -c 'import peer_huey; peer_huey.init()' >/dev/null    # the tables, before any client races to make them
    (cd "$d" && OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH="$BENCH" \
        exec "$PY" -m huey.bin.huey_consumer peer_huey.huey -w 4 -k "$HUEY_WORKER" -d 0.05 -m 0.05 -l "$d/consumer.log" >/dev/null 2>&1) &
    hpid=$!
    w=0; until grep -q 'consumer started' "$d/consumer.log" 2>/dev/null; do
        w=$((w+1)); [ $w -lt 1000 ] || { echo "bench/queue.sh: huey_consumer did not start ($d/consumer.log)" >&2; exit 2; }; sleep 0.02
    done
    sleep 0.3
    if [ "$2" = B ]; then per=$BATCH; else per=$JOBS; fi
    t0=$(now)
    c=0; clients=
    while [ $c -lt $CLIENTS ]; do
        ( i=0
          while [ $i -lt $JOBS ]; do
              k=$per; [ $((i + k)) -le $JOBS ] || k=$((JOBS - i))
              peer -c 'import sys, peer_huey; peer_huey.enqueue(*sys.argv[1:])' c$c $i $k
              i=$((i + k))
          done ) &
        clients="$clients $!"
        c=$((c+1))
    done
    for p in $clients; do wait $p; done
    t1=$(now)
    # done: the tasks' lines; a count that stops moving for 30 s means a lost task (checked below)
    n=0; still=0
    while n2=$(wc -l <"$HUEY_RAN") && [ "$n2" -lt $total ] && [ $still -lt 1500 ]; do
        if [ "$n2" = "$n" ]; then still=$((still+1)); else still=0; n=$n2; fi; sleep 0.02
    done
    t2=$(now)
    ticks=$(cpu_of $hpid)
    kill -INT $hpid; wait $hpid || true; hpid=
    record "$2" "$t0" "$t1" "$t2" "$ticks"
    lines=$(wc -l <"$HUEY_RAN"); distinct=$(sort -u "$HUEY_RAN" | wc -l)
    c=0; while [ $c -lt $CLIENTS ]; do seq -f "c$c-%.0f" 0 $((JOBS - 1)); c=$((c+1)); done | sort >"$d/expected"
    same=$(sort "$HUEY_RAN" | cmp -s - "$d/expected" && echo yes || echo no)
    left=$(peer -c 'import peer_huey; print(peer_huey.huey.pending_count(), peer_huey.results())')
    if [ "$lines" = $total ] && [ "$distinct" = $total ] && [ $same = yes ] && [ "$left" = "0 $total" ]; then ok=ok; else ok=FAILED; bad="$bad $2"; fi
    echo "$ok" >>"$TMP/check$2"
    printf 'round %d %s huey: submitted %.0f jobs/s, completed %.0f jobs/s, consumer %.2f CPU ms/job; ids run %s, distinct %s, the expected set: %s; left queued, results stored: %s: %s\n' \
        "$1" "$2" "$(last "$TMP/sub$2")" "$(last "$TMP/done$2")" "$(last "$TMP/cpu$2")" "$lines" "$distinct" $same "$left" $ok
}

r=0
while [ "$r" -lt "$ROUNDS" ]; do
    side_a $r
    if [ $huey = 1 ]; then side_huey $r B; side_huey $r C; fi
    r=$((r+1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

checks() { n=$(grep -c '^ok$' "$1" || :); echo "$n/$ROUNDS rounds ok"; }
cpu_med() { awk '{ printf "%.0f\n", $1 * 100 }' "$1" | stats | awk '{ printf "%.2f", $1 / 100 }'; }
row() {  # SIDE LABEL
    set -- "$1" "$2" $(stats <"$TMP/sub$1") $(stats <"$TMP/done$1")
    printf '| %s | %s (%s–%s) | %s (%s–%s) | %s | %s |\n' "$2" $3 $4 $5 $6 $7 $8 "$(cpu_med "$TMP/cpu$1")" "$(checks "$TMP/check$1")"
}
med() { stats <"$1" | cut -d' ' -f1; }
echo
echo "| side | submitted jobs/s median (min–max) | completed jobs/s median (min–max) | consumer CPU ms/job | each job run exactly once |"
echo "|---|---|---|---|---|"
row A "A synprobe, a \`submit\` per $BATCH job(s)"
if [ $huey = 1 ]; then
    row B "B huey ($HUEY_WORKER, sync $HUEY_SYNC), a process per $BATCH enqueue(s)"
    row C "C huey ($HUEY_WORKER, sync $HUEY_SYNC), a process per client"
    for s in B C; do
        printf 'A/%s, ratio of medians: submitted %.2f, completed %.2f\n' $s \
            "$(echo "$(med "$TMP/subA") / $(med "$TMP/sub$s")" | bc -l)" "$(echo "$(med "$TMP/doneA") / $(med "$TMP/done$s")" | bc -l)"
    done
fi
m=$(med "$TMP/doneA")
if [ "$m" -ge 200 ]; then echo "issue floor, 200 jobs/s handled: met (synprobe completed/s median $m)"
else echo "issue floor, 200 jobs/s handled: NOT met (synprobe completed/s median $m)"; fi
echo "load after: $load_after"
if [ -z "$bad" ]; then echo "check: none lost, none run twice (every round, every side)"
else echo "bench/queue.sh: a job was lost or ran twice on side(s):$bad" >&2; exit 1; fi
