# t0060-store-identity.sh — unknown store versions and files that are not ours are refused untouched
# tier: fast
# Store identity (issue 10, items 1 and 13): a store version this build does not know, below or
# above, is a clear refusal (a negative user_version used to index the migration table and
# crash); a file that is not ours (another application's SQLite file, a non-SQLite file, an
# empty SQLite file with a version set) is refused before anything in it changes: same bytes,
# no -wal/-shm/-journal left beside it.
. tests/cli/lib.sh
IN=tests/data/malformed/dup/one.conllu
sum() { sha256sum "$1" | cut -d' ' -f1; }

# a real store, then its header damaged by hand
$SP ingest --db $TMP/good.db --corpus c --quiet $IN
for v in -1 -1000000 -2147483648 0; do
    cp $TMP/good.db $TMP/v.db
    sqlite3 $TMP/v.db "pragma user_version = $v"
    before=$(sum $TMP/v.db)
    for cmd in ingest info; do
        if [ $cmd = ingest ]; then args="--corpus c --quiet $IN"; else args=""; fi
        rc=0; err=$($SP $cmd --db $TMP/v.db $args 2>&1) || rc=$?
        expect_eq "user_version $v: $cmd exits 1 (no crash)" "$rc" 1
        case "$err" in *"store version $v is not one synprobe ever wrote"*) ok "user_version $v: $cmd says the version is unknown";;
            *) not_ok "user_version $v: $cmd message: $err";; esac
    done
    expect_eq "user_version $v: store unchanged" "$(sum $TMP/v.db)" "$before"
done
cp $TMP/good.db $TMP/v.db
sqlite3 $TMP/v.db "pragma user_version = 2147483647"
rc=0; err=$($SP ingest --db $TMP/v.db --corpus c --quiet $IN 2>&1) || rc=$?
case "$rc:$err" in 1:*"newer than this synprobe supports"*) ok "user_version 2147483647: refused as newer";; *) not_ok "newer: $rc $err";; esac

# files that are not ours: refused, and byte for byte as they were
sqlite3 $TMP/foreign.db "create table x (a); insert into x values (1)"                 # application_id 0
sqlite3 $TMP/other-app.db "pragma application_id = 12345; create table y (b)"
sqlite3 $TMP/empty-ver.db "pragma user_version = 3"                                     # no tables, a version
printf 'just some text, not SQLite at all\n%.0s' $(seq 1 200) > $TMP/text.db
head -c 8192 /dev/urandom > $TMP/random.db
for f in foreign other-app empty-ver text random; do
    p=$TMP/$f.db
    before=$(sum $p)
    mode=$(sqlite3 $p 'pragma journal_mode' 2>/dev/null || true)
    for cmd in ingest info; do
        if [ $cmd = ingest ]; then args="--corpus c --quiet $IN"; else args=""; fi
        rc=0; err=$($SP $cmd --db $p $args 2>&1) || rc=$?
        expect_eq "$f: $cmd refuses (exit 1)" "$rc" 1
        case "$err" in *"not a synprobe store"*|*"not a database"*) ok "$f: $cmd says it is not a store";;
            *) not_ok "$f: $cmd message: $err";; esac
    done
    expect_eq "$f: same bytes after the refusals" "$(sum $p)" "$before"
    expect_eq "$f: nothing left beside it" "$(ls $TMP | grep -c "^$f.db-")" 0
    if [ -n "$mode" ]; then expect_eq "$f: journal mode unchanged" "$(sqlite3 $p 'pragma journal_mode')" "$mode"; fi
done
done_testing
