# t0154-old-store.sh — a store written before --store-dtype (version 9, float32, no type recorded) migrates and reads as f32
# tier: fast
# Issue 24 item 7. The version-9 store is made by hand from a fresh one: its only difference from
# version 10 is the column encoder.store_dtype (schemas/migrations/010-store-dtype.sql), dropped
# here; its blobs are float32 little-endian, as every earlier version wrote them. Expected: the
# figures and exported arrays read from it before the drop (the same bytes), the migration's
# default f32, an unchanged fingerprint (a re-encode finds every vector cached).
. tests/cli/lib.sh
need_data
DB=$TMP/old.db
CFG=$TMP/tiny.json
cat >$CFG <<'JSON'
{"kind": "san", "d_model": 64, "heads": 4, "layers": 2, "d_ff": 128, "norm": "post", "activation": "relu",
 "ln_eps": 1e-6, "position": "seq", "emb_scale": true, "rel_pos": "none", "pooling": "mean", "seed": 1}
JSON
$SP ingest --db $DB --corpus demo $DATA/ud-ewt/en_ewt-ud-dev.conllu >/dev/null 2>&1
$SP tasks build --db $DB --corpus demo --tasks Tense --split resplit >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder $CFG --run r --token-vectors --attention 0 --json --quiet >$TMP/enc1.json
$SP encode --db $DB --task Tense --encoder $CFG --run r-Tense --quiet
export_all() {  # export_all SUFFIX: the run's three arrays
    for w in vectors tokens attention; do
        $SP export --db $DB --run r --what $w --format npy --out $TMP/$w-$1.npy --quiet 2>/dev/null
    done
}
export_all new
$SP probe --db $DB --task Tense --run r-Tense --json --quiet --no-save >$TMP/p-new.json
$SP tokprobe --db $DB --corpus demo --run r --json --quiet --no-save >$TMP/t-new.json

# back to version 9: the column goes, the version with it
sqlite3 $DB "ALTER TABLE encoder DROP COLUMN store_dtype; PRAGMA user_version = 9"
expect_eq "the hand-made store is version 9 with no type column" \
    "$(sqlite3 $DB "pragma user_version; select count(*) from pragma_table_info('encoder') where name = 'store_dtype'")" "9
0"
rc=0; $SP export --db $DB --run r --what vectors --format npy --out $TMP/x.npy --quiet 2>$TMP/ro.err || rc=$?
check "a read-only command asks for the migration (as for every older version)" \
    sh -c "[ $rc = 1 ] && grep -q 'store version 9 needs migrating; open it once read-write' $TMP/ro.err"
rc=0; $SP probe --db $DB --task Tense --run r-Tense --json --quiet >$TMP/p-old.json 2>$TMP/p.err || rc=$?
expect_eq "probe on it (a read-write open migrates it): exit 0" "$rc" 0
expect_eq "... now version 10, its encoder f32" \
    "$(sqlite3 $DB "pragma user_version; select store_dtype from encoder")" "10
f32"
acc() { $PY -c 'import json,sys; r = json.load(open(sys.argv[1])); print(r["ntest"], r["devacc"], r["acc"])' $1; }
expect_eq "... the same accuracies as before" "$(acc $TMP/p-old.json)" "$(acc $TMP/p-new.json)"
$SP tokprobe --db $DB --corpus demo --run r --json --quiet --no-save >$TMP/t-old.json
check "tokprobe: the same figures" cmp -s $TMP/t-old.json $TMP/t-new.json
export_all old
for w in vectors tokens attention; do
    check "export --what $w: the same bytes as before" cmp -s $TMP/$w-old.npy $TMP/$w-new.npy
done
$SP encode --db $DB --corpus demo --encoder $CFG --run r --token-vectors --attention 0 --json --quiet >$TMP/enc2.json
expect_eq "a re-encode in f32: the same fingerprint, every sentence cached" \
    "$($PY -c "import json; a, b = (json.load(open(f)) for f in ('$TMP/enc1.json', '$TMP/enc2.json')); print(a['fingerprint'] == b['fingerprint'], b['cached'], b['encoded'])")" \
    "True $(sqlite3 $DB "select count(*) from run_item i join run r using (run_id) where r.name = 'r'") 0"
rc=0; $SP encode --db $DB --corpus demo --encoder $CFG --run r16 --store-dtype f16 --quiet || rc=$?
expect_eq "an f16 run beside the old f32 rows: exit 0" "$rc" 0
expect_eq "... a second encoder, of type f16" "$(sqlite3 $DB "select group_concat(store_dtype, ' ') from encoder")" "f32 f16"
done_testing
