# t0063-readonly.sh — read-only commands on stores they cannot or must not write to
# tier: fast
# Read-only commands (info, export, report) on stores they cannot or must not write to
# (issue 10, item 15):
#   A. a store in a folder the user cannot write to (WAL needs a -shm beside the store, which
#      SQLite cannot create there): the commands answer as they do on a writable copy;
#   B. a store whose first ingest was SIGKILLed while bulk-loading under a rollback journal (a
#      hot journal left behind; a read-only connection cannot roll it back), and
#   C. a populated store with a hot journal over it (a transaction killed mid-way after SQLite
#      spilled pages into the store file): the commands read the committed state, write nothing
#      (store and journal byte-identical, the journal still there), and answer exactly as on a
#      copy that sqlite3 recovered.
# Root ignores folder permissions: A runs the commands as nobody (setpriv), else under a
# read-only bind mount, else it is skipped visibly.
. tests/cli/lib.sh
sum() { sha256sum "$1" | cut -d' ' -f1; }
IN1=tests/data/malformed/dup/one.conllu
IN2=tests/data/malformed/dup/two.conllu

# the three commands, stdout and exit status, the store's folder replaced by DIR
answers() {   # answers RUNNER DB
    for c in "info --json" "export --corpus c --what conllu" "report --format json"; do
        rc=0; $1 $SP $c --db $2 >$TMP/ans.out 2>$TMP/ans.err || rc=$?
        echo "== $c: exit $rc"; sed "s|$(dirname $2)|DIR|g" $TMP/ans.out $TMP/ans.err
    done
}
plain() { "$@"; }

# ---- A. read-only folder
mkdir -p $TMP/ro
$SP ingest --db $TMP/ro/s.db --corpus c --quiet $IN1 $IN2 >/dev/null
answers plain $TMP/ro/s.db >$TMP/want.A
sqlite3 $TMP/ro/s.db "pragma wal_checkpoint(truncate)" >/dev/null   # the last connection removes -wal, -shm
expect_eq "A: a cleanly closed store, alone in its folder" "$(ls $TMP/ro)" "s.db"
grep -q "exit 0" $TMP/want.A && [ "$(grep -c 'exit 0' $TMP/want.A)" = 3 ] || not_ok "reference answers of a writable store: $(cat $TMP/want.A)"
before=$(sum $TMP/ro/s.db)
chmod 755 $TMP; chmod 555 $TMP/ro; chmod 444 $TMP/ro/s.db
runner=
if setpriv --reuid=nobody --regid=nogroup --clear-groups $SP --help >/dev/null 2>&1; then
    asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
    runner=asnobody; how="as nobody (setpriv)"
elif mount --bind -o ro $TMP/ro $TMP/ro 2>/dev/null; then
    trap 'umount $TMP/ro 2>/dev/null; rm -rf "$TMP"' EXIT
    runner=plain; how="under a read-only bind mount"
fi
if [ -n "$runner" ]; then
    rc=0; $runner sh -c "touch $TMP/ro/probe" 2>/dev/null || rc=$?
    check "A: the folder really is read-only $how" [ "$rc" != 0 ]
    answers $runner $TMP/ro/s.db >$TMP/got.A
    expect_eq "A: info, export, report in a read-only folder answer as on a writable one ($how)" "$(cat $TMP/got.A)" "$(cat $TMP/want.A)"
    expect_eq "A: nothing written beside the store" "$(ls $TMP/ro)" "s.db"
    expect_eq "A: the store is unchanged" "$(sum $TMP/ro/s.db)" "$before"
else
    skip "A: neither setpriv to nobody nor a read-only bind mount works here"
fi

# ---- B. first ingest SIGKILLed while its rollback journal exists
EWT=${DATA}/ud-ewt/en_ewt-ud-dev.conllu
got_hot=0
if [ -f $EWT ]; then
    for k in 1 2 3; do sed "s/^# sent_id = /# sent_id = c$k-/" $EWT >$TMP/copy$k.conllu; done
    for try in 1 2 3 4 5 6; do
        DB=$TMP/b/k.db; rm -rf $TMP/b; mkdir -p $TMP/b
        $SP ingest --db $DB --corpus c --workers 2 --quiet $TMP/copy1.conllu $TMP/copy2.conllu $TMP/copy3.conllu >/dev/null 2>&1 &
        pid=$!
        i=0; while [ $i -lt 3000 ] && ! { [ -s $DB ] && [ -s $DB-journal ]; }; do sleep 0.003; i=$((i+1)); done
        kill -9 $pid 2>/dev/null || true; wait $pid 2>/dev/null || true
        # hot: the journal's header was written (its magic number), so SQLite must roll it back
        if [ -s $DB-journal ] && [ "$(od -An -tx1 -N8 $DB-journal | tr -d ' ')" = d9d505f920a163d7 ]; then got_hot=1; break; fi
    done
fi
if [ $got_hot = 1 ]; then
    mkdir $TMP/bref; cp $DB $DB-journal $TMP/bref/
    sqlite3 $TMP/bref/k.db "pragma integrity_check" >/dev/null      # sqlite3 rolls the copy back
    answers plain $TMP/bref/k.db >$TMP/want.B
    b1=$(sum $DB); b2=$(sum $DB-journal)
    answers plain $DB >$TMP/got.B
    expect_eq "B: killed first ingest: info, export, report answer as on the recovered copy" "$(cat $TMP/got.B)" "$(cat $TMP/want.B)"
    expect_eq "B: store and hot journal byte-identical afterwards" "$(sum $DB) $(sum $DB-journal)" "$b1 $b2"
    expect_eq "B: nothing else written beside it" "$(ls $TMP/b | tr '\n' ' ')" "k.db k.db-journal "
else
    skip "B: no hot journal caught in 6 tries (or $EWT missing)"
fi

# ---- C. a populated store with a hot journal: the committed corpus is read, not the torn file
# (the expected answers are taken before the killed transaction)
mkdir -p $TMP/c
DB=$TMP/c/s.db
$SP ingest --db $DB --corpus c --quiet $IN1 $IN2 >/dev/null
answers plain $DB >$TMP/want.C
sqlite3 $DB "pragma journal_mode = delete" >/dev/null
( $PY - $DB <<'PYEOF'
import os, signal, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("pragma cache_size = 1")        # spill: modified pages reach the store file before commit
c.execute("begin")
c.execute("delete from token")
c.execute("delete from sentence")
c.execute("update corpus set name = 'torn'")
os.kill(os.getpid(), signal.SIGKILL)
PYEOF
) 2>/dev/null || true    # killed, as intended (the shell's notice hidden)
if [ -s $DB-journal ]; then
    c1=$(sum $DB); c2=$(sum $DB-journal)
    # the private copy goes to a TMPDIR of our own: other programs' copies in /tmp do not count
    mkdir $TMP/snap
    (TMPDIR=$TMP/snap; export TMPDIR; answers plain $DB) >$TMP/got.C
    expect_eq "C: hot journal over a store: info, export, report read the committed corpus" "$(cat $TMP/got.C)" "$(cat $TMP/want.C)"
    expect_eq "C: store and hot journal byte-identical afterwards" "$(sum $DB) $(sum $DB-journal)" "$c1 $c2"
    expect_eq "C: no private copy left in \$TMPDIR" "$(ls $TMP/snap | grep -c '^synprobe-snapshot-' || true)" 0
else
    not_ok "C: the killed transaction left no hot journal (test setup)"
fi
done_testing
