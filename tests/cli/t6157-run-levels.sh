# t6157-run-levels.sh — `run --quiet` prints only warnings and errors; the default no stage chatter; --verbose all of it
# tier: fast
# Issue 24 item 5: `run --quiet` on a clean run prints nothing at all (stdout and stderr empty) and
# on a run with a warning prints the warning and nothing else; by default (off a terminal) stdout
# holds only the header, one line per step, the summary and the closing line, and stderr only
# warnings (the stages' own lines, "encoder: ...", "probe: 1 run ...", are gone); --verbose keeps
# each step's command, the stages' lines and the result under each command. Expected: the spec
# (the usage text) and the demo's known gap: 20 of its 32 sentences have no constituency tree.
. tests/cli/lib.sh
J=$TMP/j
mkdir -p $J
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json $J/
# a clean run has nothing to warn about: no probing tasks (on the demo's 32 sentences every task's
# test set is below 97 items, and the tasks would be a re-split: both are said), a token probe
cat >$J/clean.json <<'JOB'
{"store": "out/c.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "encoders": [{"config": "san.json", "inputs": ["demo"], "token-vectors": true, "device": "auto"}],
 "tokprobes": [{"task": "upos", "max-epoch": 20}],
 "reports": [{"format": "json", "out": "c.json"}]}
JOB
sed -e 's/c\.db/w.db/; s/c\.json/w.json/; s/"demo.conllu"\]/"demo.conllu", "demo.mrg"]/' \
    -e 's/"token-vectors": true, "device": "auto"/"attention": 0/; s/"tokprobes": .*/"trees": [{}],/' $J/clean.json >$J/warn.json
cp $J/clean.json $J/clean2.json; sed -i 's/c\.db/c2.db/; s/c\.json/c2.json/' $J/clean2.json
cp $J/clean.json $J/clean3.json; sed -i 's/c\.db/c3.db/; s/c\.json/c3.json/' $J/clean3.json

rc=0; $SP run --quiet $J/clean.json >$TMP/q.out 2>$TMP/q.err || rc=$?
expect_eq "--quiet, clean run: exit 0, stdout and stderr empty" "$rc $(wc -c <$TMP/q.out) $(wc -c <$TMP/q.err)" "0 0 0"
check "... and the steps ran (the report is there)" test -s $J/out/c.json
rc=0; $SP run --quiet $J/warn.json >$TMP/w.out 2>$TMP/w.err || rc=$?
expect_eq "--quiet, a run with a warning: exit 0, stdout empty, the warning on stderr" \
    "$rc $(wc -c <$TMP/w.out) $(grep -c '^synprobe run: warning: 20 of 32 sentences have no constituency tree, skipped$' $TMP/w.err)" "0 0 1"
expect_eq "... and nothing else on stderr" "$(grep -vc '^synprobe run: warning: ' $TMP/w.err)" 0
rc=0; $SP run --quiet $J/nosuch.json >$TMP/e.out 2>$TMP/e.err || rc=$?
expect_eq "--quiet, an error: exit 1, the error on stderr" "$rc $(wc -c <$TMP/e.out) $(grep -c 'nosuch.json' $TMP/e.err)" "1 0 1"

rc=0; $SP run $J/clean2.json >$TMP/d.out 2>$TMP/d.err || rc=$?
expect_eq "default, clean run off a terminal: exit 0, stderr empty (no stage lines)" "$rc $(wc -c <$TMP/d.err)" "0 0"
expect_eq "... stdout: the header, 4 step lines (ingest, encode, tokprobe, report), the summary (title, columns, the token probe's row, the small-test note), the closing line" \
    "$(grep -c '^synprobe run: ' $TMP/d.out) $(grep -cE '^\[[1-4]/4\] ' $TMP/d.out) $(grep -c '^summary: ' $TMP/d.out) $(grep -cE '^kind +task +best' $TMP/d.out) $(grep -cE '^token +upos +san ' $TMP/d.out) $(grep -c '^! ' $TMP/d.out) $(wc -l <$TMP/d.out)" \
    "2 4 1 1 1 1 10"

rc=0; $SP run --verbose $J/clean3.json >$TMP/v.out 2>$TMP/v.err || rc=$?
expect_eq "--verbose: exit 0; each step's command on stdout, the token probe's result line under its command" \
    "$rc $(grep -c '^  \$ synprobe ' $TMP/v.out) $(grep -A1 '^  \$ synprobe tokprobe ' $TMP/v.out | grep -cE '^    token:upos, run san: accuracy [0-9.]+, control [0-9.]+')" "0 4 1"
expect_eq "... the stages' lines on stderr (the ingest's, the encoder's)" \
    "$(grep -c '^ingest: 1 files' $TMP/v.err) $(grep -c '^run san (san on cpu, 512-dim)' $TMP/v.err)" "1 1"
expect_eq "... and the summary" "$(grep -c '^summary: ' $TMP/v.out)" 1
done_testing
