# t7270-synopses.sh — every synopsis, --help, the man page and docs/commands.md come from the option tables (issue 37, item 2)
# tier: fast
# Each command's synopsis is written from its cli_doc (a shape that names options, no values) and
# its option tables (cli/cli.c), so it cannot drift from them as the 17 hand-typed ones did
# (`structprobe --help` lacked --rank). Expected: for every command and subcommand, the synopsis
# names every option its --help lists (but --help, --quiet, --verbose) and no other; a usage error
# prints the same synopsis; `tasks --help` shows its subcommands' synopses as they show them;
# `synprobe --help` lists every command with its purpose, as the man page and docs/commands.md do;
# docs/commands.md and docs/synprobe.1 are what `make docs` writes now.
. tests/cli/lib.sh

# the commands, and each one's subcommands (from its "subcommands:" line)
$SP --help >$TMP/top
sed -n '/^commands:/,$p' $TMP/top | awk 'NR > 1 && /^  [a-z]/ { print $1 }' >$TMP/cmds
: >$TMP/all
while read -r c; do
    subs=$($SP $c --help | sed -n 's/^subcommands: \([a-z, ]*\) (.*/\1/p' | tr -d ',')
    if [ -n "$subs" ]; then for s in $subs; do echo "$c $s"; done; else echo "$c"; fi
done <$TMP/cmds >$TMP/all
check "at least 21 commands, 25 with the subcommands of tasks and weights" \
    sh -c "[ $(wc -l <$TMP/cmds) -ge 21 ] && [ $(wc -l <$TMP/all) -ge 25 ]"

# every synopsis names exactly the options of its tables
bad=
while read -r cmd; do
    rc=0; $SP $cmd --help >$TMP/help 2>$TMP/help.err || rc=$?
    [ $rc = 0 ] || { bad="$bad '$cmd' (--help exit $rc: $(head -1 $TMP/help.err))"; continue; }
    sed -n '/^options:/,$p' $TMP/help | sed -n 's/^  --\([a-z0-9-]*\).*/\1/p' | grep -vx 'help\|quiet\|verbose' | sort >$TMP/opts
    sed '/^$/q' $TMP/help | grep -o -- '--[a-z][a-z0-9-]*' | sed 's/^--//' | sort -u >$TMP/named
    if [ ! -s $TMP/opts ] && [ "$cmd" != "tasks list" ] && [ "$cmd" != "cancel" ] && [ "$cmd" != "logs" ]; then
        bad="$bad '$cmd' (no options listed)"
    fi
    if ! cmp -s $TMP/opts $TMP/named; then
        bad="$bad '$cmd'"; diff $TMP/opts $TMP/named | sed -n '1,10s/^/#   /p' || true
    fi
    head -1 $TMP/help | grep -q "^usage: synprobe $cmd " || bad="$bad '$cmd' (line 1: $(head -1 $TMP/help))"
done <$TMP/all
expect_eq "each of the $(wc -l <$TMP/all) synopses names every option of its tables and no other" "${bad:-none}" none

# the issue's example: structprobe's synopsis had no --rank
$SP structprobe --help | sed '/^$/q' >$TMP/syn
expect_grep "structprobe: --rank K in the synopsis, in the --run group" '\[--rank K\]' $TMP/syn

# a usage error prints the synopsis --help prints
rc=0; $SP structprobe --no-such-flag 2>$TMP/err >/dev/null || rc=$?
$SP structprobe --help | sed '/^$/q' | sed '$d' >$TMP/want
head -n "$(wc -l <$TMP/want)" $TMP/err >$TMP/got
expect_eq "structprobe --no-such-flag: exit 2" "$rc" 2
expect_cmp "structprobe --no-such-flag: the synopsis of --help on stderr" $TMP/want $TMP/got

# tasks --help: each subcommand's synopsis as the subcommand prints it
$SP tasks --help >$TMP/tasks
for s in build import export list; do $SP tasks $s --help | sed '/^$/q' | sed '$d'; done >$TMP/want
grep -v '^subcommands:' $TMP/tasks >$TMP/got
expect_cmp "tasks --help: its subcommands' synopses" $TMP/want $TMP/got

# synprobe --help: every command with its purpose; the purpose opens the command's --help too,
# and the man page and docs/commands.md list the same commands with the same purposes
bad=
while read -r c; do
    p=$(sed -n "s/^  $c  *//p" $TMP/top)
    [ "$(echo "$p" | wc -w)" -ge 3 ] || bad="$bad '$c' (purpose '$p')"
    grep -qF "| [\`$c" docs/commands.md || bad="$bad '$c' (not in docs/commands.md's table)"
    grep -A1 -x ".B $c" docs/synprobe.1 | tail -1 | sed 's/\\-/-/g' | grep -qxF "$p" || bad="$bad '$c' (man page's COMMANDS)"
    case "$c" in tasks|weights) continue;; esac
    first=$(printf '%s' "$p" | cut -c1 | tr a-z A-Z)
    $SP $c --help | grep -qxF "$first$(printf '%s' "$p" | cut -c2-)." || bad="$bad '$c' (not in its --help)"
done <$TMP/cmds
expect_eq "synprobe --help: every command with its purpose, as its --help, the man page and docs/commands.md say" \
    "${bad:-none}" none
expect_eq "synprobe --help lists the commands the man page has sections for" \
    "$(sort $TMP/cmds | tr '\n' ' ')" \
    "$(sed -n 's/^\.SS "synprobe \([a-z]*\).*/\1/p' docs/synprobe.1 | sort -u | tr '\n' ' ')"

# docs/commands.md and docs/synprobe.1 are what `make docs` writes (its two commands, into $TMP)
check "the Makefile's docs rule runs help --markdown and help --man" \
    sh -c "grep -q 'help --markdown > \$(DOCS_DIR)/commands.md' Makefile && grep -q 'help --man > \$(DOCS_DIR)/synprobe.1' Makefile"
rc=0; $SP help --markdown >$TMP/commands.md || rc=$?
expect_eq "help --markdown: exit 0" "$rc" 0
expect_cmp "docs/commands.md is up to date (make docs)" docs/commands.md $TMP/commands.md
rc=0; $SP help --man >$TMP/synprobe.1 || rc=$?
expect_eq "help --man: exit 0" "$rc" 0
expect_cmp "docs/synprobe.1 is up to date (make docs)" docs/synprobe.1 $TMP/synprobe.1
if command -v groff >/dev/null 2>&1; then
    expect_eq "the man page: groff -man -ww, no warnings" "$(groff -man -ww -z docs/synprobe.1 2>&1 | wc -l)" 0
else
    skip "groff absent: the man page is not rendered"
fi
# each command's section of docs/commands.md: its synopsis as --help prints it, without "usage: "
bad=
while read -r cmd; do
    $SP $cmd --help | sed '/^$/q' | sed '$d' | sed 's/^usage: //; s/^   or: //; s/^       //' >$TMP/want
    awk -v h="## synprobe $cmd" '$0 == h { on = 1; next } on && /^```text$/ { p = 1; next } p && /^```$/ { exit } p' \
        docs/commands.md >$TMP/got
    cmp -s $TMP/want $TMP/got || { bad="$bad '$cmd'"; diff $TMP/want $TMP/got | sed -n '1,6s/^/#   /p' || true; }
done <$TMP/all
expect_eq "docs/commands.md: each command's synopsis is its --help's" "${bad:-none}" none
done_testing
