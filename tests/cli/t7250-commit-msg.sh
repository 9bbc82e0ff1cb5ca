# t7250-commit-msg.sh — contrib/git-hooks/commit-msg: the commit-message rule, each way to break it named
# tier: fast
# Issue 37 item 5. The hook takes the message file git gives it; a good message passes silently, a
# broken one exits 1 with one line per broken rule. Expected messages written by hand here.
. tests/cli/lib.sh
HOOK=contrib/git-hooks/commit-msg
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

hook() {  # NAME: run the hook on $T/NAME, stderr to $T/NAME.err, the status echoed
    if sh "$HOOK" "$T/$1" 2>"$T/$1.err"; then echo 0; else echo $?; fi
}
good() { printf '%s' "$2" >"$T/$1"; expect_eq "accepted: $1" "$(hook "$1")" 0; expect_eq "silent: $1" "$(cat "$T/$1.err")" ""; }
bad() {  # NAME MESSAGE EXPECTED-FRAGMENT
    printf '%s' "$2" >"$T/$1"
    expect_eq "refused: $1" "$(hook "$1")" 1
    expect_grep "says why: $1" "$3" "$T/$1.err"
}

good plain 'Add the commit-msg hook

Subjects were 159 characters on average; the hook keeps them short.
'
good area 'encoder: Refuse deberta v1 with the list of families
'
good subject-only 'Fix a typo in the README'
good seventy-two "$(printf 'Add %068d' 0)"
good merge "Merge branch 'wk-deb': the deberta-v2 family, with a subject far longer than seventy-two characters"
good comments '# a comment line git strips
Fix the tokenizer offsets

# Please enter the commit message
'
bad long "$(printf 'Add %069d' 0)" 'the subject is 73 characters; at most 72'
bad period 'Fix the tokenizer offsets.' 'ends with a period'
bad past 'Added the hook' "starts with .Added."
bad gerund 'encoder: Adding deberta' "starts with .Adding."
bad third 'Adds the hook' "starts with .Adds."
bad no-blank 'Fix the offsets
and the body starts at once' 'the second line is not blank'
bad empty '
body only' 'the subject line is empty'
printf '%s' 'Added a very long subject line that goes on and on past the limit of the rule.' >"$T/two"
expect_eq "refused: two rules" "$(hook two)" 1
expect_eq "two rules, two lines" "$(wc -l <"$T/two.err" | tr -d ' ')" 3
done_testing
