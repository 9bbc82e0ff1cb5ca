# t0071-max-words.sh — sentences longer than --max-words are quarantined quickly with a small RSS
# tier: fast
# Issue 10, item 7: the structures of an n-word sentence are quadratic (about 11*n^2 bytes in a
# worker), so sentences longer than --max-words (default 2048) are quarantined before they are
# built. A 20,000-word sentence (4.3 GB before) must be rejected quickly with a small RSS.
. tests/cli/lib.sh

# gen N: one .dp sentence of N words, a chain (word 1 is the root, word k hangs from k-1)
gen() { awk -v n=$1 'BEGIN { for (i = 1; i <= n; i++) printf "w%d\tNN\t%d\n", i, i - 1; print "" }'; }
small() { printf 'a\tDT\t2\nb\tNN\t0\n\n'; }

{ small; gen 20000; small; } > $TMP/big.dp
limit=""
case $SP in *san*) ;; *) limit="ulimit -v 2097152;";; esac   # ASan reserves more address space
sh -c "$limit /usr/bin/time -v $SP ingest --db $TMP/big.db $TMP/big.dp" >$TMP/out 2>$TMP/err && rc=0 || rc=$?
expect_eq "20,000-word sentence: exit 0 (the others ingested)" "$rc" 0
case "$(cat $TMP/err)" in *"$TMP/big.dp:4: big.2: sentence of 20000 words is longer than --max-words 2048"*)
    ok "says why, at file:line";; *) not_ok "stderr: $(cat $TMP/err)";; esac
rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' $TMP/err)
check "max RSS ${rss} KiB < 200 MiB" test "${rss:-999999999}" -lt 204800
secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print int(s) }' $TMP/err)
check "rejected in ${secs} s (< 20 s)" test "${secs:-99}" -lt 20
expect_eq "the long sentence is in the quarantine with the reason, the two short ones are stored" \
    "$(sqlite3 $TMP/big.db "select (select count(*) from sentence) || '|' || (select count(*) || ':' || min(line) || ':' || min(reason like '%20000 words%') from quarantine)")" "2|1:4:1"

# --max-words lowers the limit: sentences of 2, 3 and 4 words, limit 3
{ small; gen 3; gen 4; } > $TMP/three.dp
err=$($SP ingest --db $TMP/three.db --max-words 3 $TMP/three.dp 2>&1 >/dev/null) || true
expect_eq "--max-words 3: the 2- and 3-word sentences kept" "$(sqlite3 $TMP/three.db 'select group_concat(n_words) from sentence')" "2,3"
case "$err" in *"three.dp:8: three.3: sentence of 4 words is longer than --max-words 3"*) ok "--max-words 3: the 4-word one rejected";;
    *) not_ok "--max-words 3: $err";; esac

# ... and raises it: 2049 words are one too many by default, fine with --max-words 2049
gen 2049 > $TMP/d2049.dp
$SP ingest --db $TMP/def.db $TMP/d2049.dp >/dev/null 2>&1 || true
expect_eq "2049 words, default limit: quarantined" "$(sqlite3 $TMP/def.db 'select count(*) from quarantine')" 1
$SP ingest --db $TMP/raise.db --max-words 2049 $TMP/d2049.dp >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "2049 words, --max-words 2049: stored with its structures" \
    "$rc|$(sqlite3 $TMP/raise.db 'select s.n_words, d.max_depth from sentence s join dep_structure d using (sentence_id)')" "0|2049|2048"

# over 65,535 words the message says the store cannot hold it (not "does not form a usable tree")
gen 70000 > $TMP/huge.dp
err=$($SP ingest --db $TMP/huge.db --max-words 65535 $TMP/huge.dp 2>&1 >/dev/null) || true
case "$err" in *"sentence of 70000 words is longer than the 65535 words a stored sentence can have"*) ok "70,000 words: says 65535 is the most a stored sentence can have";;
    *) not_ok "70,000 words: $err";; esac
expect_eq "70,000 words: quarantined" "$(sqlite3 $TMP/huge.db 'select count(*) from quarantine')" 1

for bad in 0 65536 x; do
    $SP ingest --db $TMP/u.db --max-words $bad $TMP/three.dp >/dev/null 2>&1 && rc=0 || rc=$?
    expect_eq "--max-words $bad: usage error" "$rc" 2
done

# real treebanks are far below the default: the longest sentences of the shared data
need_data
$SP ingest --db $TMP/real.db --quiet $DATA/ud-ewt/en_ewt-ud-dev.conllu $DATA/ptb-sample/dependency >/dev/null 2>&1 || true
longest=$(sqlite3 $TMP/real.db 'select max(n_words) from sentence')
expect_eq "no real sentence quarantined for its length" "$(sqlite3 $TMP/real.db "select count(*) from quarantine where reason like '%max-words%'")" 0
check "longest real sentence ($longest words) is under an eighth of the default 2048" test "$longest" -lt 256
done_testing
