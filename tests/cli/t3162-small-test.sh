# t3162-small-test.sh — a task whose test set is below the report's threshold is said too small at build time
# tier: fast
# Issue 24 item 4: test sets of 4-76 items ran, and 49 of 63 results carried the report's "too few
# items" flag only afterwards. Now tasks build warns once, naming each such task, its test items and
# the threshold (97, PRB_SMALL_TEST: 1.96*sqrt(0.25/n) < 0.10 needs n >= 97), and stores the flag
# (params.test_items, params.small_test); tasks list marks it. run --check cannot know (the
# counts come from the data after balancing); the run prints the same warning.
# Independent expectations: each task's test items counted in its SentEval file (awk over the
# "te" lines), and 97 from the formula above (python).
. tests/cli/lib.sh
need_data
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
expect_eq "the threshold: the smallest n with 1.96*sqrt(0.25/n) < 0.10" \
    "$($PY -c 'import math; print(next(n for n in range(1, 1000) if 1.96 * math.sqrt(0.25 / n) < 0.10))')" 97
$SP ingest --db $TMP/s.db --corpus ewt --quiet $EWT >/dev/null 2>&1
rc=0; $SP tasks build --db $TMP/s.db --corpus ewt --split resplit --tasks SentLen,BShift,Tense,SOMO,CoordInv --out $TMP/t >$TMP/out 2>$TMP/err || rc=$?
expect_eq "tasks build: exit 0" "$rc" 0
te() { awk -F'\t' '$1 == "te"' $TMP/t/$1.txt | wc -l | tr -d ' '; }
n_sl=$(te sentence_length); n_bs=$(te bigram_shift); n_te=$(te past_present); n_so=$(te odd_man_out); n_ci=$(te coordination_inversion)
small=""; for p in SentLen:$n_sl BShift:$n_bs Tense:$n_te SOMO:$n_so CoordInv:$n_ci; do
    [ ${p#*:} -lt 97 ] && small="$small${small:+, }${p%:*} ${p#*:}"
done
check "some of them are below 97 and some not (the case under test: '$small')" sh -c "[ -n '$small' ] && [ $n_bs -ge 97 ]"
expect_eq "one warning names each small task with its test items, and the threshold" \
    "$(grep 'warning: test sets too small' $TMP/err)" \
    "synprobe tasks build: warning: test sets too small (below 97 items: too few to tell a 10-point difference from chance; their results carry the too-few-items flag): $small"
expect_eq "stored: test_items and small_test per task" \
    "$(sqlite3 $TMP/s.db "select group_concat(name || ':' || json_extract(params, '$.test_items') || ':' || json_extract(params, '$.small_test'), ' ') from (select * from task order by name)")" \
    "BShift:$n_bs:$([ $n_bs -lt 97 ] && echo 1 || echo 0) CoordInv:$n_ci:1 SOMO:$n_so:$([ $n_so -lt 97 ] && echo 1 || echo 0) SentLen:$n_sl:1 Tense:$n_te:1"
$SP tasks list --db $TMP/s.db >$TMP/list
check "tasks list marks SentLen (and not BShift) as too small" sh -c "
    grep -A2 '^SentLen ' $TMP/list | grep -q '^    test set too small: $n_sl items, below 97\$' &&
    ! grep -A2 '^BShift ' $TMP/list | grep -q 'too small'"
expect_eq "tasks build --json: small_test per task" \
    "$($SP tasks build --corpus-files $EWT --split resplit --tasks SentLen,BShift --json 2>/dev/null | $PY -c 'import json,sys; print(" ".join("%s:%s" % (t["name"], t["small_test"]) for t in json.load(sys.stdin)["tasks"]))')" \
    "SentLen:True BShift:False"
done_testing
