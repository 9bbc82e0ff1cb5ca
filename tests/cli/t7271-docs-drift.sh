# t7271-docs-drift.sh — an option added to a table reaches the synopsis by itself, and check-docs fails until `make docs` is run
# tier: fast
# Issue 37 item 2 ("the CLI synopses and the man page are generated from the option tables and a
# check fails when they differ"). A copy of the checkout (its tracked files, and BUILD's objects
# so only what changed recompiles) gains one option in evalb's table and nothing else. Expected:
# the copy's `evalb --help` names it in the synopsis and the list; tests/check_docs.sh fails
# naming docs/commands.md and docs/synprobe.1 and the new line; after `make docs` it passes and
# the two generated files are all git sees changed besides the table. Then a synopsis shape that
# names an option no table has: --help exits 1 naming it, and `make docs` fails, writing nothing.
. tests/cli/lib.sh
command -v git >/dev/null 2>&1 || skip_rest "git not installed"
git rev-parse --git-dir >/dev/null 2>&1 || skip_rest "not a git checkout (the copy is made of its tracked files)"
command -v python3 >/dev/null 2>&1 || skip_rest "no python3 (tests/check_docs.sh needs it)"
B=${SP_BUILD:-build}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir "$T/src"
git ls-files -z | xargs -0 tar cf - | (cd "$T/src" && tar xf -)
(cd "$T/src" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -q --no-verify -m base)
case $B in /*) ;; *) B=$PWD/$B ;; esac
if [ -d "$B" ]; then   # the objects, dates kept: make rebuilds what the edit changes
    mkdir -p "$T/src/build" && (cd "$B" && tar cf - --exclude=./san --exclude=./tests --exclude=./fuzz .) | (cd "$T/src/build" && tar xf -)
fi
mk() { (cd "$T/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory CUDA=0 BUILD=build "$@"); }
S=$T/src/build/synprobe

# one option more in evalb's table: a third debug level
sed -i 's|^    { "debug-2", SP_OPT_FLAG.*|&\n    { "debug-3", SP_OPT_FLAG, O(debug), .flag_value = 3, .help = "DEBUG 3 (t271)" },|' "$T/src/cli/cmd_evalb.c"
expect_eq "the edit is one line of cli/cmd_evalb.c" "$(cd "$T/src" && git diff --numstat | tr '\t' ' ')" "1 0 cli/cmd_evalb.c"
mk build/synprobe >"$T/make.log" 2>&1 || true
check "the copy builds" test -x "$S"
[ -x "$S" ] || sed -n '1,20s/^/#   /p' "$T/make.log"
"$S" evalb --help >"$T/help" 2>&1 || true
sed '/^$/q' "$T/help" >"$T/syn"
expect_grep "evalb --help: the new option in the synopsis, though no shape names it" '\[--debug-3\]' "$T/syn"
expect_grep "evalb --help: and in the list of options" '^  --debug-3 +DEBUG 3 \(t271\)' "$T/help"

rc=0; (cd "$T/src" && sh tests/check_docs.sh build) >"$T/check1" 2>&1 || rc=$?
expect_eq "check-docs with the docs not regenerated: fails" "$rc" 1
expect_grep "... naming docs/commands.md" '^not ok [0-9]+ - docs/commands.md is what `make docs` writes' "$T/check1"
expect_grep "... naming docs/synprobe.1" '^not ok [0-9]+ - docs/synprobe.1 is what `make docs` writes' "$T/check1"
expect_grep "... showing the line it lacks" '^#   \+\| `--debug-3` \| DEBUG 3 \(t271\) \|' "$T/check1"

rc=0; mk docs >"$T/docs.log" 2>&1 || rc=$?
expect_eq "make docs: exit 0" "$rc" 0
rc=0; (cd "$T/src" && sh tests/check_docs.sh build) >"$T/check2" 2>&1 || rc=$?
expect_eq "check-docs after make docs: passes" "$rc" 0
[ "$rc" = 0 ] || grep -A5 '^not ok' "$T/check2" | sed -n '1,20s/^/#   /p'
expect_eq "git sees the table and the two generated files changed" \
    "$(cd "$T/src" && git status --porcelain | awk '{print $2}' | sort | tr '\n' ' ')" \
    "cli/cmd_evalb.c docs/commands.md docs/synprobe.1 "
(cd "$T/src" && git add -A && git -c user.name=t -c user.email=t@t commit -q --no-verify -m docs)

# a shape that names an option of no table
sed -i 's|\.synopsis = "\[options\] GOLD TEST"|.synopsis = "[--no-such-option] [options] GOLD TEST"|' "$T/src/cli/cmd_evalb.c"
expect_eq "the shape edited" "$(cd "$T/src" && git diff --numstat | tr '\t' ' ')" "1 1 cli/cmd_evalb.c"
mk build/synprobe >"$T/make2.log" 2>&1 || true
rc=0; "$S" evalb --help >"$T/help2" 2>"$T/err2" || rc=$?
expect_eq "evalb --help with a broken shape: exit 1" "$rc" 1
expect_grep "... naming the option and where it is declared" \
    '^synprobe evalb: the synopsis in its cli_doc: --no-such-option: no option of its tables' "$T/err2"
rc=0; mk docs >"$T/docs2.log" 2>&1 || rc=$?
check "make docs with a broken shape: fails" test "$rc" -ne 0
expect_eq "... and leaves the committed docs as they were" \
    "$(cd "$T/src" && git status --porcelain | awk '{print $2}' | tr '\n' ' ')" "cli/cmd_evalb.c "
done_testing
