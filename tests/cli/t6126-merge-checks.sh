# t6126-merge-checks.sh — merge checks each shard's integrity; run and writing stages refuse a store with unmerged shards
# tier: fast
# Issue 22 item 5. A shard whose bytes changed (a sent_id in its table row, so the row no longer
# matches its index: SQLite's integrity_check fails) is refused by merge, named with the check's
# first message, and nothing is merged (exit 1). `synprobe run JOB` on a store that holds 1 of 3
# shards is refused naming the shard stores still missing (exit 1, nothing written), and so is a
# stage that writes to it (encode); reading it (info) still works; after the rest is merged the
# job runs.
. tests/cli/lib.sh
J=$TMP/j
mkdir -p $J
cp demo/demo.conllu encoder/configs/san.json $J/
cat >$J/job.json <<'E'
{"store": "out/store.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "encoders": [{"config": "san.json", "inputs": ["demo"], "attention": 0}]}
E
rc=0
for k in 0 1 2; do $SP run --shard $k/3 $J/job.json >$TMP/shard$k.out 2>&1 || rc=$?; done
expect_eq "three shards: exit 0 each" "$rc" 0
S=$J/out/store.shard
dump() { test -f "$1" && sqlite3 "$1" .dump | sha256sum || echo none; }

# ---- a damaged shard ----
cp $S-1-of-3.db $TMP/bad.db
sqlite3 $TMP/bad.db 'pragma wal_checkpoint(truncate)' >/dev/null
set -- $(sqlite3 -separator ' ' $TMP/bad.db "select sent_id, doc from sentence order by sentence_id limit 1")
SID=$1 DOC=$2
# the row's record holds sent_id then doc; the index entry holds sent_id then the rowid
$PY - "$TMP/bad.db" "$SID" "$DOC" <<'P'
import sys
path, sid, doc = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
b = bytearray(open(path, 'rb').read())
i = b.find(sid + doc)
assert i >= 0 and b.find(sid + doc, i + 1) < 0, "the row's sent_id is not found once"
b[i + len(sid) - 1] = ord('Z') if b[i + len(sid) - 1] != ord('Z') else ord('Y')
open(path, 'wb').write(b)
P
check "the damaged copy fails SQLite's integrity_check (independent check: sqlite3)" \
    sh -c "sqlite3 $TMP/bad.db 'pragma integrity_check' | grep -qv '^ok$'"
rc=0; $SP merge $TMP/new.db $S-0-of-3.db $TMP/bad.db $S-2-of-3.db >$TMP/o 2>$TMP/e || rc=$?
expect_eq "merge with a damaged shard: exit 1" "$rc" 1
check "... the message names the shard and the check's first message" \
    grep -q "bad.db: the shard store fails SQLite's integrity check (.*index" $TMP/e
check "... and nothing was merged (no target store left behind)" test ! -e $TMP/new.db
$SP merge $TMP/part.db $S-0-of-3.db >/dev/null 2>&1
before=$(dump $TMP/part.db)
rc=0; $SP merge $TMP/part.db $TMP/bad.db >$TMP/o 2>$TMP/e || rc=$?
expect_eq "... into a store holding shard 0: exit 1, the store unchanged" "$rc $(dump $TMP/part.db)" "1 $before"

# ---- a store with shards still missing ----
$SP merge $J/out/store.db $S-0-of-3.db >$TMP/o 2>$TMP/e
check "merge of shard 0 alone notes 2 of 3 shards missing" grep -q '2 of 3 shards are not merged yet' $TMP/e
before=$(dump $J/out/store.db)
rc=0; $SP run $J/job.json >$TMP/o 2>$TMP/e || rc=$?
expect_eq "run on it: exit 1" "$rc" 1
check "... naming the shard stores not merged yet" \
    grep -q "out/store.db holds 1 of the 3 shards of this job: .*out/store.shard-1-of-3.db, .*out/store.shard-2-of-3.db are not merged yet" \
    $TMP/o $TMP/e
expect_eq "... nothing written (no encoder run, the store unchanged)" "$(dump $J/out/store.db)" "$before"
rc=0; $SP encode --db $J/out/store.db --corpus demo --encoder $J/san.json --run san >$TMP/o 2>$TMP/e || rc=$?
expect_eq "encode --db on it: exit 1" "$rc" 1
check "... naming the shards not merged yet" grep -q 'holds 1 of 3 shards (synprobe merge): shards 1, 2 of 3 are not merged yet' $TMP/e
expect_eq "... nothing written" "$(dump $J/out/store.db)" "$before"
rc=0; $SP info --db $J/out/store.db >/dev/null 2>&1 || rc=$?
expect_eq "reading it (info) still works" "$rc" 0
$SP merge $J/out/store.db $S-1-of-3.db $S-2-of-3.db >/dev/null 2>&1
rc=0; $SP run $J/job.json >$TMP/o 2>&1 || rc=$?
expect_eq "after the other shards are merged, run: exit 0" "$rc" 0
expect_eq "... over every sentence (32 vectors of run san, cached from the shards)" \
    "$(sqlite3 $J/out/store.db "select count(*) from run_item join run using (run_id) where name = 'san'")" 32
done_testing
