# t3045-tasks.sh — `synprobe tasks build`: SentEval files from the PTB sample and EWT dev
# tier: fast
# `synprobe tasks build` (docs/spec/probing.md §2): SentEval files from the PTB sample and
# EWT dev. Expected counts come from §2.3 (SentLen bins: smallest bin 188 -> 6 x 188 items;
# TreeDepth D = 7..10 -> 716 items), the file format from §1.1, and the skip rules from the brief
# (TopConst/TreeDepth need constituency trees; Tense/SubjNum need trees or UD relations).
. tests/cli/lib.sh
need_data
PTB=$DATA/ptb-sample

# usage errors
rc=0; "$SP" tasks >/dev/null 2>&1 || rc=$?; expect_eq "no subcommand -> exit 2" "$rc" 2
rc=0; "$SP" tasks build --corpus-files "$PTB/combined/wsj_0001.mrg" --tasks Nope >/dev/null 2>&1 || rc=$?; expect_eq "unknown task -> exit 2" "$rc" 2
rc=0; "$SP" tasks build --tasks SentLen >/dev/null 2>&1 || rc=$?; expect_eq "no input -> exit 2" "$rc" 2
rc=0; "$SP" tasks build --corpus-files "$TMP/missing.mrg" 2>"$TMP/err" >/dev/null || rc=$?; expect_eq "missing file -> exit 1" "$rc" 1
check "missing file named" grep -q "missing.mrg" "$TMP/err"

# the PTB sample, trees + heads (sections 00-01: no official partitions, so the re-split is asked for)
"$SP" tasks build --split resplit --corpus-files "$PTB/combined" "$PTB/dependency" --seed 5 --out "$TMP/a" >"$TMP/sum.txt"
for f in sentence_length word_content tree_depth top_constituents bigram_shift past_present subj_number \
         obj_number odd_man_out coordination_inversion; do
    check "$f.txt written" test -s "$TMP/a/$f.txt"
done
check "tasks.json records the seed" grep -q '"seed": 5' "$TMP/a/tasks.json"
# §1.1 format: three TAB fields, partition tr|va|te, files ordered tr, va, te
bad=$(awk -F'\t' 'NF != 3 || ($1 != "tr" && $1 != "va" && $1 != "te") || $2 == "" || $3 == "" {n++} END {print n+0}' "$TMP"/a/*.txt)
expect_eq "every line is split TAB label TAB sentence" "$bad" 0
order=$(for f in "$TMP"/a/*.txt; do cut -f1 "$f" | uniq | tr '\n' ' '; echo; done | sort -u | tr -d '\n')
expect_eq "partitions in order tr va te" "$order" "tr va te "
expect_eq "SentLen: 6 x 188 items" "$(wc -l <"$TMP/a/sentence_length.txt" | tr -d ' ')" 1128
for b in 0 1 2 3 4 5; do
    expect_eq "SentLen bin $b: 188 items" "$(awk -F'\t' -v b=$b '$2 == b' "$TMP/a/sentence_length.txt" | wc -l | tr -d ' ')" 188
done
# SentLen labels agree with the token count of the sentence (SentEval splits on whitespace)
badlen=$(awk -F'\t' '{n = split($3, w, " "); b = n<=8?0:n<=12?1:n<=16?2:n<=20?3:n<=25?4:5; if (b != $2 || n < 5 || n > 28) e++} END {print e+0}' "$TMP/a/sentence_length.txt")
expect_eq "SentLen labels match token counts" "$badlen" 0
expect_eq "TreeDepth: 716 items (D = 7..10)" "$(wc -l <"$TMP/a/tree_depth.txt" | tr -d ' ')" 716
for f in bigram_shift past_present subj_number obj_number odd_man_out coordination_inversion; do
    bal=$(awk -F'\t' '{c[$1 FS $2]++; l[$2]=1; p[$1]=1} END {for (q in p) {m=-1; for (x in l) {v=c[q FS x]+0; if (m<0) m=v; else if (v!=m) bad++}} print bad+0}' "$TMP/a/$f.txt")
    expect_eq "$f: classes balanced in every partition" "$bal" 0
done
check "summary names every task" sh -c "grep -c '^[A-Za-z]* *[0-9]* items' '$TMP/sum.txt' | grep -qx 10"

# determinism: same seed -> same bytes; another seed -> other files
"$SP" tasks build --split resplit --corpus-files "$PTB/combined" "$PTB/dependency" --seed 5 --out "$TMP/b" >/dev/null
same=0; for f in "$TMP"/a/*.txt; do cmp -s "$f" "$TMP/b/$(basename "$f")" || same=1; done
expect_eq "same seed, identical files" "$same" 0
"$SP" tasks build --split resplit --corpus-files "$PTB/combined" --seed 6 --tasks SentLen --out "$TMP/c" >/dev/null
check "another seed, another SentLen file" sh -c "! cmp -s '$TMP/a/sentence_length.txt' '$TMP/c/sentence_length.txt'"

# from a store: the same sentences give the same files
"$SP" ingest --db "$TMP/s.db" --corpus ptb --quiet "$PTB/combined" "$PTB/dependency" >/dev/null 2>&1
"$SP" tasks build --split resplit --db "$TMP/s.db" --corpus ptb --seed 5 --out "$TMP/db" >/dev/null
same=0; for f in "$TMP"/a/*.txt; do cmp -s "$f" "$TMP/db/$(basename "$f")" || same=1; done
expect_eq "--db build equals --corpus-files build" "$same" 0
rc=0; "$SP" tasks build --db "$TMP/s.db" --corpus nope >/dev/null 2>&1 || rc=$?; expect_eq "unknown corpus -> exit 1" "$rc" 1

# EWT dev: no trees -> TreeDepth/TopConst skipped with the reason, UD rules give Tense/SubjNum;
# WC (2 items a target word) has no test items after the 80/10/10 split -> skipped too (issue 24)
"$SP" tasks build --split resplit --corpus-files "$DATA/ud-ewt/en_ewt-ud-dev.conllu" --json --out "$TMP/e" >"$TMP/e.json"
check "EWT summary is JSON" $PY -c "import json,sys; json.load(open(sys.argv[1]))" "$TMP/e.json"
skipped=$($PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(t['name'] for t in d['tasks'] if not t['built']))" "$TMP/e.json")
expect_eq "EWT: WC, TreeDepth and TopConst skipped" "$skipped" "WC TreeDepth TopConst"
check "EWT: reason names constituency trees" grep -q 'needs constituency trees' "$TMP/e.json"
check "EWT: no tree_depth.txt" test ! -e "$TMP/e/tree_depth.txt"
check "EWT: past_present.txt written" test -s "$TMP/e/past_present.txt"

# .dp alone (heads, no relations): the subject/verb tasks are skipped
"$SP" tasks build --split resplit --corpus-files "$PTB/dependency" --tasks Tense,SubjNum,SentLen --json >"$TMP/d.json"
built=$($PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(t['name'] for t in d['tasks'] if t['built']))" "$TMP/d.json")
expect_eq ".dp only: only SentLen built" "$built" "SentLen"
done_testing
