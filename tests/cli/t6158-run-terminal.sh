# t6158-run-terminal.sh — `run` on a terminal: one status line "step k/N  what  elapsed  ETA" redrawn in place
# tier: fast
# Issue 24 item 5, under a pseudo-terminal (`script -qec`, util-linux): stderr is a terminal, so
# run draws one status line, "step K/N  WHAT  elapsed M:SS  ETA M:SS", redrawn in place (\r, then
# ESC [K to clear it) for every step 1..N, "ETA —" until a step has finished, then a time; no
# "[k/N]" step lines while stdout is the terminal too, and the line cleared before the summary.
# With stdout redirected to a file (stderr still the terminal), the file gets the step lines.
# Expected: the usage text's description of both forms.
. tests/cli/lib.sh
command -v script >/dev/null 2>&1 || skip_rest "script (util-linux) not installed"
J=$TMP/j
mkdir -p $J
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json $J/
cat >$J/job.json <<'JOB'
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
 "tasks": [{"tasks": ["Tense", "SubjNum"], "seed": 1, "split": "resplit"}],
 "encoders": [{"config": "san.json", "inputs": ["demo", "Tense", "SubjNum"]}],
 "probes": [{"classifier": ["logreg"], "seed": [1, 2], "preset": "senteval-fast"}],
 "reports": [{"format": "json", "out": "r.json"}]}
JOB
N=10
SP_ABS=$(cd "$(dirname "$SP")" && pwd)/$(basename "$SP")
rc=0; script -qec "$SP_ABS run $J/job.json" /dev/null >$TMP/tty.out 2>&1 </dev/null || rc=$?
expect_eq "run under a pseudo-terminal: exit 0" "$rc" 0
# the redraws, one per line: split at \r
tr '\r' '\n' <$TMP/tty.out | sed 's/\x1b\[K//g' >$TMP/lines
expect_eq "the status line is drawn for every step 1..N" \
    "$(grep -oE '^step [0-9]+/10  [a-z]' $TMP/lines | cut -d' ' -f2 | sort -u | sort -n | tr '\n' ' ')" \
    "$(seq 1 $N | sed "s/\$/\/$N/" | tr '\n' ' ')"
check "... with the time elapsed" grep -qE '^step [0-9]+/10  .*  elapsed [0-9]+:[0-9][0-9]  ETA ' $TMP/lines
expect_eq "... 'ETA —' on step 1 (nothing finished yet), a time from step 2 on" \
    "$(grep -qE '^step 1/10  .*  ETA —' $TMP/lines && echo yes) $(grep -E '^step [2-9]/10|^step 10/10' $TMP/lines | grep -vcE '  ETA [0-9]+:[0-9][0-9]')" "yes 0"
check "... redrawn in place: carriage return and clear-to-end-of-line before each" grep -q "$(printf '\r')$(printf '\033')\[Kstep 2/10" $TMP/tty.out
expect_eq "no [k/N] step lines on the terminal; the summary and the closing line are there" \
    "$(grep -cE '^\[[0-9]+/10\] ' $TMP/lines) $(grep -c '^summary: ' $TMP/lines) $(grep -c 'synprobe run: done: ' $TMP/lines)" "0 1 1"
# stdout to a file, stderr the terminal: the status line there, the step lines in the file
rc=0; script -qec "$SP_ABS run $J/job.json >$TMP/file.out" /dev/null >$TMP/tty2.out 2>&1 </dev/null || rc=$?
expect_eq "stdout redirected: exit 0; the file has the N step lines and no carriage return; the terminal has the status line" \
    "$rc $(grep -cE '^\[[0-9]+/10\] ' $TMP/file.out) $(grep -c "$(printf '\r')" $TMP/file.out) $(tr '\r' '\n' <$TMP/tty2.out | grep -q '^.\[Kstep 1/10' && echo yes)" "0 10 0 yes"
done_testing
