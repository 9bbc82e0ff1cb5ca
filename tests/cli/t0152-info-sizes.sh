# t0152-info-sizes.sh — `info` shows the store's size per table (summing to the file) and the vectors' bytes per token per layer
# tier: fast
# Issue 24 item 7. Expected values: the file's size (stat) is the sum of the tables' bytes and
# the free pages (SQLite's dbstat counts every page of every b-tree; page 1 is sqlite_schema's);
# bytes per token per layer and per sentence by hand: width x element size (64 x 4 for f32,
# 64 x 2 for f16); the f16 store's vector table at most about half the f32 store's.
. tests/cli/lib.sh
need_data
CFG=$TMP/tiny.json
cat >$CFG <<'JSON'
{"kind": "san", "d_model": 64, "heads": 4, "layers": 2, "d_ff": 128, "norm": "post", "activation": "relu",
 "ln_eps": 1e-6, "position": "seq", "emb_scale": true, "rel_pos": "none", "pooling": "mean", "seed": 1}
JSON
for t in f32 f16; do
    $SP ingest --db $TMP/$t.db --corpus ewt $DATA/ud-ewt/en_ewt-ud-dev.conllu --quiet >/dev/null 2>&1
    $SP encode --db $TMP/$t.db --corpus ewt --encoder $CFG --run c --token-vectors --attention 1 --store-dtype $t --quiet
    rc=0; $SP info --db $TMP/$t.db >$TMP/$t.txt 2>$TMP/$t.err || rc=$?
    expect_eq "$t: info exits 0" "$rc" 0
    # the table rows: between the header naming dbstat and the encoded-vectors line
    sed -n '/SQLite dbstat/,/^encoded vectors/p' $TMP/$t.txt | sed '1d;$d' >$TMP/$t.tables
    size=$(stat -c %s $TMP/$t.db)
    expect_eq "$t: the tables' bytes (and free pages) sum to the file's size" \
        "$(awk '{ gsub(",", "", $(NF-1)); s += $(NF-1) } END { print s }' $TMP/$t.tables)" "$size"
    check "$t: the store line gives the file's size" \
        grep -q "^store: $(echo $size | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') bytes" $TMP/$t.txt
    check "$t: every table of the store is listed once" sh -c "[ \"\$(awk '{print \$1}' $TMP/$t.tables | sort | uniq -d)\" = '' ] && \
        [ \"\$(grep -c -v '(free pages)' $TMP/$t.tables)\" = \"\$(sqlite3 $TMP/$t.db \"select count(*) + 1 from sqlite_schema where type = 'table'\")\" ]"
    check "$t: the shares sum to 100% (within rounding)" sh -c \
        "awk '{ sub(\"%\", \"\", \$NF); s += \$NF } END { exit !(s > 99.0 && s < 101.0) }' $TMP/$t.tables"
    check "$t: the vector table is the largest" sh -c "head -1 $TMP/$t.tables | grep -q '^  vector '"
done
row() { grep -A2 '^encoded vectors' $TMP/$1.txt | tail -1 | awk '{ print $1, $2, $3, $4, $5, $6, $7 }'; }
# rows: one per distinct input (repeated sentences share one), tokens: their words
n=$(sqlite3 $TMP/f32.db "select count(*) from vector")
w=$(sqlite3 $TMP/f32.db "select printf('%,d', sum(n_tokens)) from vector")
expect_eq "f32: 64-dim, 1 encoder, its sentence rows at 64 x 4 = 256 bytes, its tokens at 256 bytes per layer" \
    "$(row f32)" "f32 64 1 $n 256 $w 256"
expect_eq "f16: the same rows, 64 x 2 = 128 bytes a sentence and a token" "$(row f16)" "f16 64 1 $n 128 $w 128"
vec() { awk '$1 == "vector" { gsub(",", "", $2); print $2 }' $TMP/$1.tables; }
# the payload halves (t2150); the pages shrink at least as much: fewer rows spill to overflow pages
check "the f16 store's vector table takes at most 55% of the f32 store's" sh -c \
    "awk -v a=$(vec f32) -v b=$(vec f16) 'BEGIN { exit !(b > 0 && b <= 0.55 * a) }'"
check "the help says where the sizes come from" sh -c "$SP info --help | grep -q 'dbstat'"
done_testing
