# t6085-cli-common.sh — what every command shares: --quiet, --verbose, repeated flags, --help
# tier: fast
# Issue 11: what every command shares through the option layer (cli/cli.c, common/opt.c):
# --quiet and --verbose on every command, a repeated single-valued flag is a usage error, an
# unknown option or command names the nearest one, --help is generated from the option tables.
. tests/cli/lib.sh

for cmd in demo ingest export info tasks encode probe trees evalb structprobe report run; do
    sub=; [ $cmd = tasks ] && sub=build
    err=$($SP $cmd $sub --quiet --verbose 2>&1 >/dev/null) && rc=0 || rc=$?
    expect_eq "$cmd: --quiet and --verbose both parsed (exit 2)" "$rc" 2
    case "$err" in *"--quiet and --verbose exclude each other"*) ok "$cmd: says why";; *) not_ok "$cmd: '$err'";; esac
    $SP $cmd $sub --help >$TMP/help 2>&1 && rc=0 || rc=$?
    expect_eq "$cmd --help: exit 0" "$rc" 0
    check "$cmd --help: lists --quiet and --verbose" grep -q -- "--verbose" $TMP/help
done

G=tests/data/malformed/headrange.conllu
err=$($SP ingest --db $TMP/r.db --workers 1 --workers 2 $G 2>&1 >/dev/null) && rc=0 || rc=$?
expect_eq "ingest --workers twice: exit 2" "$rc" 2
case "$err" in *"--workers given twice"*) ok "ingest --workers twice: says why";; *) not_ok "'$err'";; esac
expect_eq "a usage error creates no store" "$(ls $TMP | grep -c '^r.db')" 0

err=$($SP ingest --db $TMP/r.db --wokers 2 $G 2>&1 >/dev/null) && rc=0 || rc=$?
expect_eq "unknown option: exit 2" "$rc" 2
case "$err" in *"unknown option '--wokers'; did you mean 'workers'?"*) ok "unknown option: the nearest name";; *) not_ok "'$err'";; esac
err=$($SP injest 2>&1 >/dev/null) && rc=0 || rc=$?
expect_eq "unknown command: exit 2" "$rc" 2
case "$err" in *"unknown command 'injest'; did you mean 'ingest'?"*) ok "unknown command: the nearest name";; *) not_ok "'$err'";; esac

# --quiet: the rejection lines go (they are in the quarantine table), the summary stays
$SP ingest --db $TMP/q.db --quiet $G >$TMP/out 2>$TMP/err || true
expect_eq "ingest --quiet: nothing on stderr" "$(wc -c <$TMP/err)" 0
check "ingest --quiet: the summary on stdout" grep -q "1 rejected" $TMP/out
$SP ingest --db $TMP/v.db $G >/dev/null 2>$TMP/err || true
check "ingest: the rejection named on stderr with file:line" grep -q "headrange.conllu:[0-9]" $TMP/err
$SP ingest --db $TMP/w.db --verbose $G >/dev/null 2>$TMP/err || true
check "ingest --verbose: a timing line" grep -q "tokens/s" $TMP/err

# the generated help shows a default and the bounds come from the same table
$SP ingest --help >$TMP/help
check "ingest --help: --workers with its default" grep -q -- "--workers N .*(default 2)" $TMP/help
err=$($SP ingest --db $TMP/r.db --workers 257 $G 2>&1 >/dev/null) && rc=0 || rc=$?
case "$err" in *"--workers: expected 1..256, got '257'"*) ok "--workers 257: the table's bounds";; *) not_ok "'$err'";; esac

# the progress line: on a terminal (a pty from script(1)) "ingest: k/N files  R/s  ETA m:ss",
# redrawn in place; off a terminal, none
if command -v script >/dev/null 2>&1 && [ -d "$DATA/ptb-sample/combined" ]; then
    n=$(ls $DATA/ptb-sample/combined | grep -c '\.mrg$')
    script -qec "$SP ingest --db $TMP/p.db $DATA/ptb-sample/combined" /dev/null >$TMP/tty 2>&1 || true
    check "on a terminal: a progress line with done/total files" grep -q "ingest: [0-9]*/$n files" $TMP/tty
    check "on a terminal: redrawn in place (carriage return, erase line)" grep -q "$(printf '\r\033\\[K')" $TMP/tty
    $SP ingest --db $TMP/p2.db $DATA/ptb-sample/combined >/dev/null 2>$TMP/notty || true
    check "off a terminal: no progress line" sh -c "! grep -q 'files  ' $TMP/notty"
else
    skip "progress line: script(1) or the PTB sample missing"
fi
done_testing
