# t0013-sigkill.sh — an ingest killed with SIGKILL mid-way leaves every file whole or absent
# tier: fast
# An ingest killed with SIGKILL at any moment leaves the store consistent: every file is
# either fully present or absent. Kills land at staggered moments of a multi-file ingest into
# a new store, i.e. while it is bulk-loaded under a rollback journal (st_bulk_begin); the
# sqlite3 reading it afterwards rolls a hot journal back.
. tests/cli/lib.sh
need_data
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
# four different files (different bytes, different sent_ids): EWT dev with a per-copy prefix
for k in 1 2 3 4; do sed "s/^# sent_id = /# sent_id = c$k-/" $EWT > $TMP/copy$k.conllu; done
consistent() {
    # every source row's sentences are all there (2,001 each), no orphans, integrity ok
    sqlite3 $1 "pragma integrity_check; pragma foreign_key_check;
        select count(*) from source where n_sentences != 2001;
        select count(*) from sentence s where not exists (select 1 from source where source_id = s.dep_source_id);
        select (select count(*) from sentence) = 2001 * (select count(*) from source);
        select (select count(*) from token) = 25147 * (select count(*) from source);" 2>&1
}
# Where each kill landed: before the store file existed, while its schema was being created,
# mid-way (the store there, some files still to come), or after the last file was in.
before=0; creating=0; midway=0; after=0
for delay in 0.02 0.05 0.1 0.15 0.2 0.3 0.45 0.6; do
    db=$TMP/kill.db
    rm -f $db $db-wal $db-shm $db-journal
    $SP ingest --db $db --workers 2 --quiet $TMP/copy1.conllu $TMP/copy2.conllu $TMP/copy3.conllu $TMP/copy4.conllu >/dev/null 2>&1 &
    pid=$!
    sleep $delay
    killed=0; kill -9 $pid 2>/dev/null && killed=1
    wait $pid 2>/dev/null || true
    if [ ! -f $db ]; then
        before=$((before+1)); ok "killed after ${delay}s before the store existed"; continue
    fi
    if [ "$(sqlite3 $db 'select count(*) from sqlite_schema')" = 0 ]; then
        # the schema is created in one transaction: killed before it committed, the file is empty
        creating=$((creating+1))
        ok "killed after ${delay}s while the store was being created: empty, no partial schema"
    else
        expect_eq "killed after ${delay}s: store consistent, files whole or absent" "$(consistent $db | tr '\n' ' ')" "ok 0 0 1 1 "
        files=$(sqlite3 $db 'select count(*) from source')
        if [ $killed = 1 ] && [ "$files" -lt 4 ]; then midway=$((midway+1)); else after=$((after+1)); fi
    fi
    # and the next run completes the job
    $SP ingest --db $db --quiet $TMP/copy1.conllu $TMP/copy2.conllu $TMP/copy3.conllu $TMP/copy4.conllu >/dev/null 2>&1
    expect_eq "after ${delay}s kill, a re-run completes all four files" "$(sqlite3 $db 'select count(*) from source')" 4
    expect_eq "after ${delay}s kill and re-run, the store is in WAL mode" "$(sqlite3 $db 'pragma journal_mode')" wal
done
# The consistency checks above only mean something for kills that land mid-way.
check "at least one kill landed mid-way: the store there, files still to come (before the store: $before, creating it: $creating, mid-way: $midway, after the last file: $after)" \
    test $midway -ge 1
# Many files with attachments (.dp onto .mrg) into a new store: the first commit is under the
# rollback journal while parsing goes on; it once waited on a lock held by the reading thread's
# connection (1 run in 7 hung). Three runs, each bounded.
PTB=$DATA/ptb-sample
for k in 1 2 3; do
    rm -f $TMP/p.db $TMP/p.db-wal $TMP/p.db-shm $TMP/p.db-journal
    rc=0; out=$(timeout 120 $SP ingest --db $TMP/p.db --corpus ptb --workers 2 --quiet $PTB/combined $PTB/dependency 2>&1) || rc=$?
    expect_eq "new store from the PTB sample, run $k: completes (exit 0)" "$rc" 0
    expect_eq "run $k: 3,914 sentences with both trees, WAL" \
        "$(sqlite3 $TMP/p.db "select count(*) from sentence where dep_source_id is not null and const_source_id is not null; pragma journal_mode" | tr '\n' ' ')" "3914 wal "
done
done_testing
