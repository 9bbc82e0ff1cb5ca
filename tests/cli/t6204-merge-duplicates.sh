# t6204-merge-duplicates.sh — merge refuses one shard named twice, or the target among the shards, by identity
# tier: fast
# Issue 40 item 8. `merge OUT A B` where B is A through a hard link waited 10 s and said "database
# is locked". One file among the shards twice (the same path, ./x, a hard link, a symlink, a
# symlinked folder), or the target among them (the same ways), is a usage error (exit 2) naming
# both arguments, said at once, before anything is opened: a new target is not created, an existing
# one is unchanged. Expected values: the device and inode the kernel gives (stat), not synprobe's.
. tests/cli/lib.sh
mkdir -p $TMP/j
cp demo/demo.conllu $TMP/j/
echo '{"store": "out/s.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}]}' >$TMP/j/job.json
rc=0
for k in 0 1 2; do $SP run --quiet --shard $k/3 $TMP/j/job.json >/dev/null 2>&1 || rc=$?; done
expect_eq "three shards of an ingest-only job: exit 0" "$rc" 0
S0=$TMP/j/out/s.shard-0-of-3.db S1=$TMP/j/out/s.shard-1-of-3.db S2=$TMP/j/out/s.shard-2-of-3.db
SPA=$(cd "$(dirname "$SP")" && pwd)/synprobe   # absolute: the script works in $TMP from here on
cd $TMP
ln j/out/s.shard-1-of-3.db hard1.db
ln -s j/out/s.shard-2-of-3.db soft2.db
ln -s j/out linkdir
check "the kernel says: the hard link and the symlink are the shards' files" sh -c \
    '[ "$(stat -L -c %d:%i hard1.db)" = "$(stat -c %d:%i j/out/s.shard-1-of-3.db)" ] && [ "$(stat -L -c %d:%i soft2.db)" = "$(stat -c %d:%i j/out/s.shard-2-of-3.db)" ]'
# refused OUT SHARD... WANT: exit 2 at once, the message holds WANT, no OUT made, no -wal
refused() {
    d=$1 want=$2; shift 2
    t0=$(date +%s)
    rc=0; $SPA merge "$@" >o 2>e || rc=$?
    t=$(( $(date +%s) - t0 ))
    if [ "$rc" = 2 ] && grep -qF -- "$want" e && [ ! -e "$1" ] && [ ! -e "$1-wal" ] && [ $t -lt 5 ]; then ok "$d"
    else not_ok "$d (exit $rc after $t s, target $(test -e "$1" && echo made || echo absent)): $(cat e)"; fi
}
refused "one path twice" "shard j/out/s.shard-0-of-3.db is named twice (arguments 1 and 3 of the shards)" \
    new1.db j/out/s.shard-0-of-3.db j/out/s.shard-1-of-3.db j/out/s.shard-0-of-3.db
refused "a hard link of a shard, both named" "shards j/out/s.shard-1-of-3.db and hard1.db are one file" \
    new2.db j/out/s.shard-0-of-3.db j/out/s.shard-1-of-3.db hard1.db
refused "a symlink to a shard, named first" "shards soft2.db and j/out/s.shard-2-of-3.db are one file" \
    new3.db soft2.db j/out/s.shard-1-of-3.db j/out/s.shard-2-of-3.db
refused "./ and a symlinked folder spell one shard" "shards ./j/out/s.shard-0-of-3.db and linkdir/s.shard-0-of-3.db are one file" \
    new4.db ./j/out/s.shard-0-of-3.db linkdir/s.shard-0-of-3.db
refused "an absolute and a relative path" "shards $S2 and j/out/../out/s.shard-2-of-3.db are one file" \
    new5.db $S2 j/out/../out/s.shard-2-of-3.db
# the target among the shards: a shard as its own target (new targets above; here existing files)
before=$(sqlite3 $S1 .dump | sha256sum)
rc=0; $SPA merge hard1.db j/out/s.shard-0-of-3.db j/out/s.shard-1-of-3.db >o 2>e || rc=$?
expect_eq "the target a hard link of a shard: exit 2" "$rc" 2
check "... named with the shard" grep -qF "the target hard1.db and shard j/out/s.shard-1-of-3.db are one file" e
expect_eq "... the shard is unchanged" "$(sqlite3 $S1 .dump | sha256sum)" "$before"
rc=0; $SPA merge j/out/s.shard-2-of-3.db j/out/s.shard-0-of-3.db j/out/s.shard-2-of-3.db >o 2>e || rc=$?
expect_eq "the target named again as a shard: exit 2, said so" "$rc $(grep -c 'j/out/s.shard-2-of-3.db is named as the target and as a shard' e)" "2 1"
# a merged store: the real merge works, then a shard linked to the merged store is refused
rc=0; $SPA merge m.db j/out/s.shard-0-of-3.db hard1.db soft2.db >o 2>e || rc=$?
expect_eq "the three shards, each once (through the links): exit 0" "$rc" 0
expect_eq "... the merged store holds the demo's 32 sentences" "$(sqlite3 m.db 'select count(*) from sentence')" 32
ln -s m.db m-link.db
before=$(sqlite3 m.db .dump | sha256sum)
rc=0; $SPA merge m.db m-link.db >o 2>e || rc=$?
expect_eq "a symlink to the target among the shards: exit 2" "$rc" 2
check "... naming both" grep -qF "the target m.db and shard m-link.db are one file" e
rc=0; $SPA merge m.db j/out/s.shard-0-of-3.db hard1.db j/out/s.shard-1-of-3.db >o 2>e || rc=$?
expect_eq "a duplicate into an existing target: exit 2" "$rc" 2
expect_eq "... the target is unchanged" "$(sqlite3 m.db .dump | sha256sum)" "$before"
done_testing
