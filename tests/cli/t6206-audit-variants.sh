# t6206-audit-variants.sh — issue 40's audit classes with fresh variants: files written through planted links, numbers beyond float32
# tier: fast
# An independent re-run of issue 40's audit with variants the audit did not list. Found and
# fixed (each check below failed before its fix):
# - `daemon --log F`: fopen("a") followed a symlink planted at F (the text file it named grew by
#   the daemon's lines), hung on a FIFO, and SIGHUP's freopen did the same with a link put there
#   since. Now: a symlink, a FIFO or a file with another hard link is refused, naming F.
# - A store's side files: a hard link planted at STORE-shm had even `info` (read-only) overwrite
#   the other file with SQLite's wal-index, at STORE-wal an ingest wrote WAL frames into it; a
#   symlinked -wal said only "unable to open database file". Now refused naming the side file.
# - Embeddings text: "1e-40" (a float32 subnormal) and "1e-50" (rounds to 0) were refused as
#   "expected a number" (strtof's ERANGE on underflow); "1e39" is now named as beyond float32's
#   range. probe --vectors with a float64 1e39 said "infinite", which the file never held.
# HELD (tried, no bug): output paths through sp_out_open (export --out, tasks build files, report
# pages and figures, slurm scripts) replace a planted symlink, hard link or FIFO rather than write
# through it; export --out / --out ./X / the store's -wal / FILE.lengths.npy = the store, encode
# --db = its --encoder config: refused before writing; daemon --log = the store: refused; run
# names with | \ $ { } newline in md, latex, csv and text reports: escaped; --shards, --shard K/N,
# --nhid, --threads, --seed, --dropout beyond their ranges (2^63, 2^64+1, 1e3, nan): usage
# errors; safetensors shapes [2^63-1], [2^64], [3,2^32,2^32], 37 dims, 64.0, offsets reversed,
# negative, past the end, near 2^63: named errors; the SQL extension's functions with indices
# 2^63-1, -2^63, 2^32, 1e300, '1x' and blobs of the wrong kind or size: NULL; probe --vectors
# with inf, -inf, NaN (float32 and float64) and float16 data: refused naming row and column.
. tests/cli/lib.sh
need_numpy
sum() { cksum <"$1"; }
SPA=$(cd "$(dirname "$SP")" && pwd)/synprobe   # absolute: the script works in $TMP from here on
cp demo/demo.conllu $TMP/
cd $TMP
printf 'precious words\nline two\n' >victim.txt
v0=$(sum victim.txt)

# ---- daemon --log: never through a link, never a FIFO ----
# refused DESC LOG: the daemon exits non-zero within 10 s naming LOG, victim.txt unchanged
log_refused() {
    rc=0; timeout -k 2 10 $SPA daemon --db q.db --log "$2" >out 2>err || rc=$?
    check "daemon --log $1: refused at once (exit $rc)" [ "$rc" -ne 0 -a "$rc" -ne 124 -a "$rc" -ne 137 ]
    check "daemon --log $1: the message names $2" grep -qF "$2: is " err
    expect_eq "daemon --log $1: the link's target keeps its bytes" "$(sum victim.txt)" "$v0"
}
ln -s victim.txt sym.log
log_refused "a symlink to a text file" sym.log
ln -s nothing-here.log dangling.log
log_refused "a dangling symlink" dangling.log
check "daemon --log a dangling symlink: its target is not made" [ ! -e nothing-here.log ]
ln victim.txt hard.log
log_refused "a hard link to a text file" hard.log
mkfifo fifo.log
log_refused "a FIFO with no reader" fifo.log
# SIGHUP: the log rotated away and a symlink put at its name meanwhile is not followed
$SPA daemon --db q.db --log d.log --poll 0.05 >/dev/null 2>hup.err & dpid=$!
i=0; while [ ! -s d.log ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
mv d.log d.log.1
ln -s victim.txt d.log
kill -HUP $dpid
i=0; while ! grep -q 'reopen' hup.err && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
check "SIGHUP with a symlink at the log's name: the daemon says so" grep -qF "cannot reopen the log file: d.log: is a symbolic link" hup.err
check "... and keeps serving" kill -0 $dpid
kill -TERM $dpid; rc=0; wait $dpid || rc=$?
expect_eq "... then drains on SIGTERM: exit 0" "$rc" 0
expect_eq "... the symlink's target keeps its bytes" "$(sum victim.txt)" "$v0"
rm d.log
$SPA daemon --db q.db --log d.log --poll 0.05 >/dev/null 2>&1 & dpid=$!
i=0; while [ ! -s d.log ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
kill -TERM $dpid; rc=0; wait $dpid || rc=$?
expect_eq "a plain --log file: the daemon runs and drains (exit 0)" "$rc" 0
check "... writing its lines there" grep -q 'drained' d.log

# ---- a store's side files are never written through a link ----
$SPA ingest --db s.db --corpus c demo.conllu >/dev/null 2>&1
rm -f s.db-wal s.db-shm
corpora() { $PY -c "import sqlite3,sys; print(sqlite3.connect('file:'+sys.argv[1]+'?immutable=1', uri=True).execute('select count(*) from corpus').fetchone()[0])" s.db; }
n0=$(corpora)
# side_refused DESC SIDE CMD...: exit 1 naming SIDE, victim.txt unchanged, no corpus added
side_refused() {
    d=$1 side=$2; shift 2
    rc=0; "$@" >out 2>err || rc=$?
    expect_eq "$d: exit 1" "$rc" 1
    check "$d: the message names $side" grep -qF "$side: " err
    expect_eq "$d: the other file keeps its bytes" "$(sum victim.txt)" "$v0"
    expect_eq "$d: the store is unchanged" "$(corpora)" "$n0"
    rm -f "$side"
}
ln victim.txt s.db-shm
side_refused "info with a hard link at s.db-shm" s.db-shm $SPA info --db s.db
ln victim.txt s.db-wal
side_refused "ingest with a hard link at s.db-wal" s.db-wal $SPA ingest --db s.db --corpus c2 demo.conllu
ln -s victim.txt s.db-wal
side_refused "ingest with a symlink at s.db-wal" s.db-wal $SPA ingest --db s.db --corpus c3 demo.conllu
ln -s victim.txt s.db-journal
side_refused "export with a symlink at s.db-journal" s.db-journal $SPA export --db s.db --corpus c --what sentences
mkfifo s.db-shm
side_refused "info with a FIFO at s.db-shm" s.db-shm timeout -k 2 10 $SPA info --db s.db
rc=0; $SPA ingest --db s.db --corpus c4 demo.conllu >/dev/null 2>&1 || rc=$?
expect_eq "the links removed: ingest runs (exit 0)" "$rc" 0
expect_eq "... and adds its corpus" "$(corpora)" "$((n0 + 1))"

# ---- numbers beyond float32: named; tiny ones kept ----
printf '{"kind": "san", "d_model": 8, "heads": 2, "layers": 1, "d_ff": 16, "seed": 3}\n' >small.json
emb() {  # emb VALUE: an embeddings line for "the" with VALUE as field 6
    printf 'the 0.5 0 0 0 %s 0 0 0\n' "$1" >emb.txt
    rc=0; $SPA encode --db s.db --corpus c --encoder small.json --run "e$2" --embeddings emb.txt --quiet >out 2>err || rc=$?
}
emb 1e-40 a
expect_eq "embeddings with 1e-40 (a float32 subnormal): encoded (exit 0)" "$rc" 0
emb 1e-50 b
expect_eq "embeddings with 1e-50 (rounds to 0): encoded (exit 0)" "$rc" 0
emb -1e39 c
expect_eq "embeddings with -1e39: exit 1" "$rc" 1
check "... named as beyond float32's range, with file:line and field" grep -qF 'emb.txt:1: field 6: "-1e39" is beyond float32' err
emb 1e3x d
check "embeddings with 1e3x: still 'expected a number'" grep -qF 'field 6: expected a number, got "1e3x"' err
# probe --vectors: a float64 value float32 cannot hold is named, not called infinite
$PY - <<'EOF'
import numpy as np
lines = []
for s, n in (('tr', 20), ('va', 6), ('te', 6)):
    lines += ['%s\t%d\tsentence %d' % (s, i % 2, i) for i in range(n)]
open('task.txt', 'w').write('\n'.join(lines) + '\n')
X = np.random.RandomState(7).randn(32, 3)
X[17, 2] = -2.5e39
np.save('big.npy', X)
EOF
rc=0; $SPA probe --task-file task.txt --vectors big.npy --max-epoch 2 >out 2>err || rc=$?
expect_eq "probe --vectors float64 with -2.5e39: exit 1" "$rc" 1
check "... names row 17, column 2, the value and float32's range" grep -qF 'big.npy: row 17, column 2 (0-based): -2.5e+39 is beyond float32' err
done_testing
