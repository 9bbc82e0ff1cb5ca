# t0014-migrate.sh — store versioning: a version-1 store is migrated forward, a newer one refused
# tier: fast
# Store versioning: a version-1 store is migrated forward; a newer store is refused.
. tests/cli/lib.sh
DB=$TMP/v1.db
# build a version-1 store by hand, exactly as version 1 of synprobe wrote it
sqlite3 $DB < schemas/store.sql
sqlite3 $DB "pragma application_id = 1397781090; pragma user_version = 1;
  insert into corpus (name) values ('old');"
err=$($SP info --db $DB 2>&1) && rc=0 || rc=$?
case "$err" in *"needs migrating"*) ok "read-only open of an old store says it needs migrating";; *) not_ok "old store read-only: $err";; esac
check "a write opens and migrates it" $SP ingest --db $DB --corpus old --quiet tests/data/malformed/dup/one.conllu
expect_eq "user_version is now the latest" "$(sqlite3 $DB 'pragma user_version')" "$(ls schemas/migrations/*.sql | wc -l | awk '{print $1 + 1}')"
expect_eq "tables of migration 2 exist, data kept" "$(sqlite3 $DB "select count(*) from task; select name from corpus")" "0
old"
sqlite3 $DB "pragma user_version = 99"
err=$($SP info --db $DB 2>&1) && rc=0 || rc=$?
expect_eq "a newer store is refused (exit 1)" "$rc" 1
case "$err" in *"newer than this synprobe supports"*) ok "refusal says why";; *) not_ok "newer store: $err";; esac
err=$($SP ingest --db $DB tests/data/malformed/dup/two.conllu 2>&1) && rc=0 || rc=$?
expect_eq "writing to a newer store is refused too" "$rc" 1
sqlite3 $TMP/other.db "create table x (a); insert into x values (1)"
err=$($SP ingest --db $TMP/other.db tests/data/malformed/dup/one.conllu 2>&1) && rc=0 || rc=$?
case "$rc:$err" in 1:*"not a synprobe store"*) ok "a foreign SQLite file is refused";; *) not_ok "foreign db: $rc $err";; esac
expect_eq "store pragmas: WAL, application_id" "$(sqlite3 $DB 'pragma journal_mode; pragma application_id')" "wal
1397781090"
done_testing
