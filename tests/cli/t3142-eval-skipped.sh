# t3142-eval-skipped.sh — structprobe and trees count what they skip and name the real remedy
# tier: fast
# Issue 22, item 10 (part). Reading --conllu / --mrg files, structprobe and trees skip sentences
# the reader rejects (here one of 2,100 words, over the 2,048 a sentence read from a file may
# have, and one malformed). They used to print "0 skipped" and to say "raise --max-words", an
# ingest option they do not take. Now the summary says "N skipped (reasons)" and the message
# names the real remedy, which works: `synprobe ingest --max-words N`, then --db.
. tests/cli/lib.sh

row() { printf '%s\tw\tw\tX\tNN\t_\t%s\tdep\t_\t_\n' "$1" "$2"; }
{ printf '# sent_id = s1\n'; row 1 0; row 2 1; printf '\n# sent_id = long\n'
  i=1; while [ $i -le 2100 ]; do if [ $i = 1 ]; then row 1 0; else row $i 1; fi; i=$((i+1)); done
  printf '\n# sent_id = s3\n'; row 1 0; row 2 1; printf '\n# sent_id = bad\n'; row 1 0; row 3 1; printf '\n'; } > $TMP/long.conllu

err=$($SP structprobe --conllu $TMP/long.conllu --baseline linear 2>&1 >/dev/null) && rc=0 || rc=$?
expect_eq "structprobe --conllu: exit 0" "$rc" 0
case "$err" in *"structprobe: 2 sentences scored, 2 skipped (2 rejected when read, named above)"*) ok "structprobe: counts the 2 skipped and says why";;
    *) not_ok "structprobe: summary in '$err'";; esac
case "$err" in *"long.conllu:5: sentence of 2100 words is longer than the 2048 words read from a file here"*"synprobe ingest --max-words 2100"*"--db"*)
    ok "structprobe: the message names the cause and the remedy (ingest --max-words, then --db)";;
    *) not_ok "structprobe: message in '$err'";; esac
case "$err" in *"than --max-words"*|*"raise --max-words"*) not_ok "structprobe: names --max-words as its own option: '$err'";;
    *) ok "structprobe: does not offer --max-words as its own option";; esac
case "$err" in *"long.conllu:2113: expected word ID 2, got 3 (sentence skipped)"*) ok "structprobe: the malformed one named too";;
    *) not_ok "structprobe: malformed sentence message in '$err'";; esac
# the remedy works
$SP ingest --db $TMP/long.db --max-words 2100 $TMP/long.conllu >/dev/null 2>&1 || true
err=$($SP structprobe --db $TMP/long.db --corpus main --baseline linear --no-save 2>&1 >/dev/null) && rc=0 || rc=$?
case "$rc|$err" in "0|"*"structprobe: 3 sentences scored, 0 skipped"*) ok "structprobe --db after ingest --max-words 2100: the long sentence scored";;
    *) not_ok "structprobe --db: $rc '$err'";; esac

# trees --mrg: the same for constituency trees
{ printf '(ROOT (S (NN a) (VB b)))\n(ROOT (S'; i=0; while [ $i -lt 2100 ]; do printf ' (NN x)'; i=$((i+1)); done
  printf '))\n(ROOT (S (NN c) (VB d)))\n(ROOT (S (NN e) (VB)))\n'; } > $TMP/long.mrg
err=$($SP trees --mrg $TMP/long.mrg --baseline right 2>&1 >/dev/null) && rc=0 || rc=$?
expect_eq "trees --mrg: exit 0" "$rc" 0
case "$err" in *"trees: 2 sentences scored, 2 skipped (2 rejected when read, named above)"*) ok "trees: counts the 2 skipped and says why";;
    *) not_ok "trees: summary in '$err'";; esac
case "$err" in *"long.mrg:2: sentence of 2100 words is longer than the 2048 words read from a file here"*"synprobe ingest --max-words 2100"*)
    ok "trees: the message names the cause and the remedy";;
    *) not_ok "trees: message in '$err'";; esac
case "$err" in *"than --max-words"*|*"raise --max-words"*) not_ok "trees: names --max-words as its own option: '$err'";;
    *) ok "trees: does not offer --max-words as its own option";; esac
# the remedy works: a stored tree over 2,048 words is read back from the store
$SP ingest --db $TMP/mrg.db --max-words 2100 $TMP/long.mrg >/dev/null 2>&1 || true
err=$($SP trees --db $TMP/mrg.db --corpus main --baseline right --no-save 2>&1 >/dev/null) && rc=0 || rc=$?
case "$rc|$err" in "0|"*"trees: 3 sentences scored, 0 skipped"*) ok "trees --db after ingest --max-words 2100: the long tree scored";;
    *) not_ok "trees --db: $rc '$err'";; esac
done_testing
