# t0067-changing-input.sh — a file that changes while ingested is stored under the hash of the bytes read
# tier: fast
# A file that changes while it is ingested is stored under the hash of
# the bytes actually read (one read, one hash), so the whole file is not "unchanged" later and
# its missing sentences can be added (issue 10, item 5). The change is made deterministic with a
# FIFO at the file's path that delivers the first 1000 sentences in two stages and then ends,
# as a file truncated mid-ingest would; the full file then takes its place. A new version of the
# same path keeps the sentences an earlier version stored identically (reported as "kept"),
# adds the new ones, and quarantines only the sentences that differ.
. tests/cli/lib.sh
need_data
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
mkdir "$TMP/w"
F=$TMP/w/dev.conllu
$PY - "$EWT" "$TMP" <<'PYEOF'
import sys
blocks = open(sys.argv[1], encoding="utf-8").read().split("\n\n")
blocks = [b for b in blocks if b.strip()]
def write(name, bs): open(sys.argv[2] + "/" + name, "w", encoding="utf-8").write("\n\n".join(bs) + "\n\n")
write("part1", blocks[:500]); write("part2", blocks[500:1000]); write("first1500", blocks[:1500])
# sentence 5 with the DEPREL of its first word changed (still a valid sentence, but not the one stored)
b = blocks[4].split("\n")
k = next(i for i, l in enumerate(b) if l and l[0].isdigit() and "\t" in l)
c = b[k].split("\t"); c[7] = c[7] + "x"; b[k] = "\t".join(c)
write("edited", blocks[:4] + ["\n".join(b)] + blocks[5:])
PYEOF
n() { sqlite3 "$TMP/a.db" "$1"; }

# ---- the FIFO: two writes, then the end of the stream after 1000 sentences
mkfifo "$F"
# (under timeout: if ingest never opened the FIFO, the writer must not block the test forever)
timeout 60 sh -c '{ cat "$1"; sleep 0.3; cat "$2"; } >"$3"' sh "$TMP/part1" "$TMP/part2" "$F" &
rc=0; "$SP" ingest --db "$TMP/a.db" --quiet "$F" >/dev/null 2>&1 || rc=$?
wait
expect_eq "cut short: exit 0, the 1000 sentences read are stored" "$rc $(n 'SELECT count(*) FROM sentence')" "0 1000"
expect_eq "cut short: stored under the SHA-256 of the bytes read" "$(n 'SELECT sha256 FROM source')" \
    "$(cat "$TMP/part1" "$TMP/part2" | sha256sum | cut -d' ' -f1)"

# ---- the whole file at the same path: not "unchanged"; the missing 1001 sentences are added
rm "$F"; cp "$EWT" "$F"
rc=0; "$SP" ingest --db "$TMP/a.db" --json "$F" >"$TMP/j" 2>"$TMP/err" || rc=$?
expect_eq "whole file: exit 0" "$rc" 0
expect_eq "whole file: 1001 new, 1000 kept, none rejected" \
    "$($PY -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"][0]; print(f["status"], f["sentences"], f.get("kept"), f["rejected"])' "$TMP/j")" \
    "ingested 1001 1000 0"
expect_eq "whole file: all 2001 sentences, nothing quarantined" \
    "$(n 'SELECT count(*) FROM sentence') $(n 'SELECT count(*) FROM quarantine')" "2001 0"
expect_eq "whole file: stored under its own SHA-256" "$(n 'SELECT sha256 FROM source ORDER BY source_id DESC LIMIT 1')" \
    "$(sha256sum <"$EWT" | cut -d' ' -f1)"
Q='SELECT s.sent_id, s.position, t.i, t.form, t.head, t.deprel FROM sentence s JOIN token t USING (sentence_id) ORDER BY s.position, t.i'
"$SP" ingest --db "$TMP/ref.db" --quiet "$F" >/dev/null 2>&1
sqlite3 "$TMP/ref.db" "$Q" >"$TMP/ref.txt"
sqlite3 "$TMP/a.db" "$Q" >"$TMP/got.txt"
check "the same sentences as the whole file ingested at once" cmp -s "$TMP/got.txt" "$TMP/ref.txt"
rc=0; "$SP" ingest --db "$TMP/a.db" "$F" >"$TMP/out" 2>&1 || rc=$?
check "whole file again: unchanged" grep -q "1 unchanged" "$TMP/out"

# ---- a truncated version (first 1500 sentences): everything in it is already stored
cp "$TMP/first1500" "$F"
rc=0; "$SP" ingest --db "$TMP/a.db" --json "$F" >"$TMP/j" 2>&1 || rc=$?
expect_eq "truncated version: exit 0, 0 new, 1500 kept, 0 rejected" \
    "$rc $($PY -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"][0]; print(f["sentences"], f.get("kept"), f["rejected"])' "$TMP/j")" \
    "0 0 1500 0"
expect_eq "truncated version: still 2001 sentences" "$(n 'SELECT count(*) FROM sentence')" 2001

# ---- an edited version: only the changed sentence is a conflict, named with both places
cp "$TMP/edited" "$F"
rc=0; "$SP" ingest --db "$TMP/a.db" --json "$F" >"$TMP/j" 2>"$TMP/err" || rc=$?
expect_eq "edited version: exit 0, 0 new, 2000 kept, 1 rejected" \
    "$rc $($PY -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"][0]; print(f["sentences"], f.get("kept"), f["rejected"])' "$TMP/j")" \
    "0 0 2000 1"
expect_eq "edited version: the quarantine holds sentence 5 (line 72), saying what it conflicts with" \
    "$(n "SELECT position, reason LIKE '%/w/dev.conllu:72: %-0005: position 5 of ''dev'' differs from the sentence an earlier version of this file stored there (%/w/dev.conllu:72)' FROM quarantine")" "5|1"

# ---- the same bytes under another name with --strict: its sentence ids are taken, but the file is
# unchanged, not failed (the hash, known only at its end, decides; nothing is written)
cp "$EWT" "$TMP/copy.conllu"
"$SP" ingest --db "$TMP/ref.db" --quiet "$EWT" >/dev/null 2>&1 || true
rc=0; "$SP" ingest --db "$TMP/ref.db" --strict "$TMP/copy.conllu" >"$TMP/out" 2>&1 || rc=$?
expect_eq "--strict, same bytes under another name: exit 0, unchanged" "$rc $(grep -c '1 unchanged' "$TMP/out")" "0 1"
expect_eq "--strict, same bytes under another name: nothing added" \
    "$(sqlite3 "$TMP/ref.db" 'SELECT count(*) FROM source') $(sqlite3 "$TMP/ref.db" 'SELECT count(*) FROM quarantine')" "1 0"
head -c 1200000 "$EWT" >"$TMP/other.conllu"; cat "$TMP/part1" >>"$TMP/other.conllu"
rc=0; "$SP" ingest --db "$TMP/ref.db" --strict "$TMP/other.conllu" >"$TMP/out" 2>"$TMP/err" || rc=$?
expect_eq "--strict, other bytes with a taken sent_id: exit 1, nothing kept" \
    "$rc $(grep -c 'sent_id already used.*--strict: nothing from this file was kept' "$TMP/err") $(sqlite3 "$TMP/ref.db" 'SELECT count(*) FROM source')" "1 1 1"
done_testing
