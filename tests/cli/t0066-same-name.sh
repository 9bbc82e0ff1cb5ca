# t0066-same-name.sh — files with the same name in two folders are two documents
# tier: fast
# Files with the same name in two folders (en/dev.conllu, de/dev.conllu) are
# two documents: both ingest fully. Before, the second one's every sentence was quarantined
# ("position N already holds a dependency annotation", or its default sent_id was taken)
# (issue 10, item 10). A .mrg pairs with the .dp of its own folder (same path stem), not with
# another folder's file of the same name; the NLTK layout (combined/X.mrg, dependency/X.dp, no
# same-folder partner) still pairs by name (t0010, t2055).
. tests/cli/lib.sh
need_data
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
PTB=$DATA/ptb-sample
n() { sqlite3 "$1" "$2"; }

# ---- two folders, one file name, default sent_ids (no '# sent_id' lines): 50 + 60 sentences
mkdir -p "$TMP/c/en" "$TMP/c/de"
$PY - "$EWT" "$TMP/c/en/dev.conllu" "$TMP/c/de/dev.conllu" <<'PYEOF'
import sys
blocks = open(sys.argv[1], encoding="utf-8").read().split("\n\n")
def strip(b): return "\n".join(l for l in b.split("\n") if not l.startswith("# sent_id"))
open(sys.argv[2], "w", encoding="utf-8").write("\n\n".join(strip(b) for b in blocks[:50]) + "\n\n")
open(sys.argv[3], "w", encoding="utf-8").write("\n\n".join(strip(b) for b in blocks[50:110]) + "\n\n")
PYEOF
rc=0; "$SP" ingest --db "$TMP/a.db" --quiet "$TMP/c/en" "$TMP/c/de" >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "en/dev.conllu + de/dev.conllu: exit 0" "$rc" 0
expect_eq "both stored fully: 50 + 60 sentences, none quarantined" \
    "$(n "$TMP/a.db" 'SELECT count(*) FROM sentence') $(n "$TMP/a.db" 'SELECT count(*) FROM quarantine')" "110 0"
expect_eq "documents: dev (first) and de/dev (qualified by its folder)" \
    "$(n "$TMP/a.db" "SELECT group_concat(doc || ':' || n, ' ') FROM (SELECT doc, count(*) n FROM sentence GROUP BY doc ORDER BY min(sentence_id))")" \
    "dev:50 de/dev:60"
expect_eq "default sent_ids are unique: dev.1 and de/dev.1" \
    "$(n "$TMP/a.db" "SELECT group_concat(sent_id, ' ') FROM sentence WHERE position = 1 ORDER BY sentence_id")" "dev.1 de/dev.1"
rc=0; "$SP" ingest --db "$TMP/a.db" --quiet "$TMP/c/en" "$TMP/c/de" >"$TMP/out" 2>&1 || rc=$?
check "again: both unchanged" grep -q "2 unchanged" "$TMP/out"
# the other order, and the same two files from the same run given as files
rc=0; "$SP" ingest --db "$TMP/b.db" --quiet "$TMP/c/de/dev.conllu" "$TMP/c/en/dev.conllu" >/dev/null 2>&1 || rc=$?
expect_eq "de first, then en: both stored fully" \
    "$rc $(n "$TMP/b.db" 'SELECT count(*) FROM sentence') $(n "$TMP/b.db" 'SELECT count(*) FROM quarantine')" "0 110 0"
# in separate runs
"$SP" ingest --db "$TMP/s.db" --quiet "$TMP/c/en/dev.conllu" >/dev/null 2>&1
rc=0; "$SP" ingest --db "$TMP/s.db" --quiet "$TMP/c/de/dev.conllu" >/dev/null 2>&1 || rc=$?
expect_eq "separate runs: both stored fully" \
    "$rc $(n "$TMP/s.db" 'SELECT count(*) FROM sentence') $(n "$TMP/s.db" 'SELECT count(*) FROM quarantine')" "0 110 0"

# ---- pairing by the whole path stem: x/a.mrg + x/a.dp (wsj_0001: 2 sentences) pair;
# other/a.dp (wsj_0003: 30 sentences, other words) is a document of its own
mkdir -p "$TMP/x" "$TMP/other"
cp "$PTB/combined/wsj_0001.mrg" "$TMP/x/a.mrg"
cp "$PTB/dependency/wsj_0001.dp" "$TMP/x/a.dp"
cp "$PTB/dependency/wsj_0003.dp" "$TMP/other/a.dp"
for order in "x other" "other x"; do
    db="$TMP/p-$(echo $order | tr ' ' -).db"
    rc=0; "$SP" ingest --db "$db" --quiet $(for d in $order; do echo "$TMP/$d"; done) >/dev/null 2>&1 || rc=$?
    expect_eq "folders '$order': exit 0, 2 + 30 sentences, nothing quarantined" \
        "$rc $(n "$db" 'SELECT count(*) FROM sentence') $(n "$db" 'SELECT count(*) FROM quarantine')" "0 32 0"
    expect_eq "folders '$order': x/a.mrg's trees sit on x/a.dp's sentences" \
        "$(n "$db" "SELECT count(*) FROM sentence s JOIN source d ON d.source_id = s.dep_source_id
                    JOIN source c ON c.source_id = s.const_source_id WHERE d.path LIKE '%/x/a.dp' AND c.path LIKE '%/x/a.mrg'")" 2
done
done_testing
