# t0065-stream-inputs.sh — pipes, FIFOs and gzip inputs are read once and stored under the right hash
# tier: fast
# Inputs that are not regular files are read once, and stored under the
# SHA-256 of exactly the bytes parsed: a pipe ('-'), /dev/stdin, a FIFO, gzip (.gz, and gzip on
# standard input). Before: the whole stream was hashed, rewind() failed silently, 0 sentences
# were stored under the real hash and the real file was "unchanged" ever after (issue 10, item 4).
. tests/cli/lib.sh
need_data
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
MRG=$DATA/ptb-sample/combined/wsj_0001.mrg
SHA=$(sha256sum <"$EWT" | cut -d' ' -f1)
n_sent() { sqlite3 "$1" 'SELECT count(*) FROM sentence'; }

# ---- standard input as '-': EWT dev has 2001 sentences (t0010)
rc=0; cat "$EWT" | "$SP" ingest --db "$TMP/pipe.db" --quiet - >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "'-' from a pipe: exit 0" "$rc" 0
expect_eq "'-' from a pipe: all 2001 sentences stored" "$(n_sent "$TMP/pipe.db")" 2001
expect_eq "'-' is recorded as <stdin> with the hash of the bytes read" \
    "$(sqlite3 "$TMP/pipe.db" 'SELECT path, sha256, n_sentences FROM source')" "<stdin>|$SHA|2001"
rc=0; "$SP" ingest --db "$TMP/pipe.db" --quiet "$EWT" >"$TMP/out" 2>&1 || rc=$?
check "the same bytes as a regular file afterwards: unchanged" grep -q "1 unchanged" "$TMP/out"

# ---- /dev/stdin fed by a pipe (a FIFO, not a regular file)
rc=0; cat "$EWT" | "$SP" ingest --db "$TMP/devstdin.db" --quiet /dev/stdin >/dev/null 2>&1 || rc=$?
expect_eq "/dev/stdin from a pipe: exit 0" "$rc" 0
expect_eq "/dev/stdin from a pipe: all 2001 sentences" "$(n_sent "$TMP/devstdin.db")" 2001

# ---- a named FIFO
mkfifo "$TMP/f.conllu"
timeout 60 sh -c 'cat "$1" >"$2"' sh "$EWT" "$TMP/f.conllu" &   # never blocks the test forever
rc=0; "$SP" ingest --db "$TMP/fifo.db" --quiet "$TMP/f.conllu" >/dev/null 2>&1 || rc=$?
wait
expect_eq "FIFO: exit 0" "$rc" 0
expect_eq "FIFO: all 2001 sentences, under the hash of the bytes sent" \
    "$(sqlite3 "$TMP/fifo.db" 'SELECT sha256, n_sentences FROM source')" "$SHA|2001"
rc=0; "$SP" ingest --db "$TMP/fifo.db" --quiet "$EWT" >/dev/null 2>&1 || rc=$?
expect_eq "the real file after the FIFO: nothing lost, nothing twice" "$(n_sent "$TMP/fifo.db")" 2001

# ---- gzip: the same stored sentences as the plain file; the hash is of the decompressed bytes
gzip -c "$EWT" >"$TMP/en_ewt-ud-dev.conllu.gz"
"$SP" ingest --db "$TMP/plain.db" --quiet "$EWT" >/dev/null 2>&1
rc=0; "$SP" ingest --db "$TMP/gz.db" --quiet "$TMP/en_ewt-ud-dev.conllu.gz" >/dev/null 2>&1 || rc=$?
expect_eq ".gz: exit 0" "$rc" 0
Q='SELECT s.sent_id, s.doc, s.position, s.text, t.i, t.form, t.lemma, t.upos, t.xpos, t.feats, t.head, t.deprel, t.deps, t.misc
   FROM sentence s JOIN token t USING (sentence_id) ORDER BY s.sentence_id, t.i'
sqlite3 "$TMP/plain.db" "$Q" >"$TMP/plain.txt"
sqlite3 "$TMP/gz.db" "$Q" >"$TMP/gz.txt"
check ".gz: the same sentences and tokens as the plain file" cmp -s "$TMP/plain.txt" "$TMP/gz.txt"
expect_eq ".gz: stored under the SHA-256 of the decompressed bytes" "$(sqlite3 "$TMP/gz.db" 'SELECT sha256 FROM source')" "$SHA"
rc=0; "$SP" ingest --db "$TMP/gz.db" --quiet "$EWT" >"$TMP/out" 2>&1 || rc=$?
check ".gz then the plain file: unchanged" grep -q "1 unchanged" "$TMP/out"
mkdir "$TMP/dir"; cp "$TMP/en_ewt-ud-dev.conllu.gz" "$TMP/dir/"
"$SP" ingest --db "$TMP/dir.db" --quiet "$TMP/dir" >/dev/null 2>&1 || true
expect_eq "a folder's .conllu.gz is a treebank file" "$(n_sent "$TMP/dir.db")" 2001
rc=0; gzip -c "$EWT" | "$SP" ingest --db "$TMP/gzin.db" --quiet - >/dev/null 2>&1 || rc=$?
expect_eq "gzip on standard input: all 2001 sentences" "$rc $(n_sent "$TMP/gzin.db")" "0 2001"

# ---- a damaged .gz: a clear error, nothing stored
head -c 200000 "$TMP/en_ewt-ud-dev.conllu.gz" >"$TMP/cut.conllu.gz"
rc=0; "$SP" ingest --db "$TMP/cut.db" --quiet "$TMP/cut.conllu.gz" >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "truncated .gz: exit 1" "$rc" 1
check "truncated .gz: the message names the file and the read error" grep -q "cut.conllu.gz: read error" "$TMP/err"
expect_eq "truncated .gz: nothing stored" "$(sqlite3 "$TMP/cut.db" 'SELECT count(*) FROM source') $(n_sent "$TMP/cut.db")" "0 0"

# ---- --stdin-name: the name decides the format and the document (default sent_ids)
rc=0; "$SP" ingest --db "$TMP/named.db" --quiet --stdin-name wsj_0001.mrg - <"$MRG" >/dev/null 2>&1 || rc=$?
expect_eq "--stdin-name wsj_0001.mrg: PTB, sentence ids wsj_0001.N" \
    "$rc $(sqlite3 "$TMP/named.db" "SELECT format FROM source") $(sqlite3 "$TMP/named.db" "SELECT sent_id FROM sentence ORDER BY position LIMIT 1")" \
    "0 ptb wsj_0001.1"
rc=0; "$SP" ingest --db "$TMP/named.db" --stdin-name - - </dev/null >/dev/null 2>&1 || rc=$?
expect_eq "--stdin-name -: usage error" "$rc" 2
rc=0; "$SP" ingest --db "$TMP/empty.db" - </dev/null >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "empty standard input: exit 1" "$rc" 1
check "empty standard input: says so" grep -q "<stdin>: empty file" "$TMP/err"
done_testing
