#!/bin/sh
# bench/queue.sh — the daemon's queue under load (issue 12 item 7, second half). Per round, a fresh
# queue store and one daemon (--workers 4); 4 concurrent clients each submit JOBS trivial jobs, one
# `synprobe submit` process per job (a job with one report step, all into one job store). Prints, per round and as median (min–max) over ROUNDS rounds:
#   submitted/s  jobs / seconds from the first submit to the last client's end
#   completed/s  jobs / seconds from the first submit to the last job done
# and checks by counting that none was lost or run twice: every job done with one attempt, one
# attempt header and one "done" line per job in the logs. A trivial job is one report to stdout
# (its log): the first job's report is recorded in the job store's ledger and the others find
# it done, so a job costs what the queue costs. The daemon runs such a job (nothing to do) itself,
# without forking a process (daemon/daemon.c); FORK=1 gives each job a report of its own
# (its own output file), which every job then runs in its own process.
# The issue's floor: 200 jobs/s handled. Not a test: it prints, and exits 1 only if a job was lost
# or ran twice.
#   sh bench/queue.sh          env: ROUNDS (3), JOBS (100 per client), BATCH (1 job file per submit), FORK (0), SP_BUILD (build)
set -eu
export LC_ALL=C
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-100}
BATCH=${BATCH:-1}      # job files per `synprobe submit` process
FORK=${FORK:-0}
CLIENTS=4
# A submit never computes, but OpenBLAS starts its thread pool (threads spinning on sched_yield)
# when any synprobe process starts; on a busy 2-CPU machine that doubles a submit's wall time.
# Scripts that submit many jobs can do the same; CLIENT_BLAS_THREADS= (empty) measures without.
CLIENT_BLAS_THREADS=${CLIENT_BLAS_THREADS-1}
SP=$(cd "${SP_BUILD:-build}" && pwd)/synprobe
[ -x "$SP" ] || { echo "bench/queue.sh: $SP not built (make)" >&2; exit 2; }
TMP=$(mktemp -d); trap 'kill $dpid 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
dpid=
now() { date +%s.%N; }
stats() { sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f (%.0f-%.0f)", m, v[1], v[NR] }'; }
total=$((CLIENTS * JOBS))
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$ROUNDS rounds: $CLIENTS clients x $JOBS trivial jobs ($BATCH per submit process) = $total jobs per round, one daemon --workers 4; FORK=$FORK"
: >"$TMP/sub"; : >"$TMP/done"; : >"$TMP/cpu"
bad=0
r=0
while [ "$r" -lt "$ROUNDS" ]; do
    d=$TMP/r$r; mkdir -p "$d/jobs"
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
    cpu_ms=$(echo "$ticks * 1000 / $(getconf CLK_TCK) / $total" | bc -l)
    echo "$cpu_ms" >>"$TMP/cpu"
    sub=$(echo "$total / ($t1 - $t0)" | bc -l); done_rate=$(echo "$total / ($t2 - $t0)" | bc -l)
    echo "$sub" >>"$TMP/sub"; echo "$done_rate" >>"$TMP/done"
    # none lost, none run twice
    q=$(sqlite3 "$d/q.db" "select count(*), sum(state = 'done' and attempts = 1) from queue_job" | tr '|' ' ')
    headers=$(cat "$d/q.db.logs"/*.log | grep -c '^==== job ')
    runs=$(cat "$d/q.db.logs"/*.log | grep -c '^synprobe run: \(done\|nothing to do\)')
    inproc=$(cat "$d/q.db.logs"/*.log | grep -c 'checked by the daemon' || :)
    printf 'round %d: submitted %.0f jobs/s, completed %.0f jobs/s, daemon + job processes %.2f CPU ms/job; queue rows, done at the first attempt: %s; log headers %s, runs done %s (%s without a process)\n' \
        $r "$sub" "$done_rate" "$cpu_ms" "$q" "$headers" "$runs" "$inproc"
    [ "$q" = "$total $total" ] && [ "$headers" = $total ] && [ "$runs" = $total ] || bad=1
    r=$((r+1))
done
echo "submitted jobs/s: median $(stats <"$TMP/sub")"
echo "completed jobs/s: median $(stats <"$TMP/done")   (issue floor: 200)"
echo "daemon + job processes, CPU ms per job: median $(awk '{ printf "%.0f\n", $1 * 100 }' "$TMP/cpu" | stats | awk '{ printf "%.2f", $1 / 100 }')"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ $bad = 0 ] && echo "none lost, none run twice" || { echo "bench/queue.sh: a job was lost or ran twice" >&2; exit 1; }
