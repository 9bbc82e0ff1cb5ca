# t7265-spec-citations.sh — citations name docs/spec files and their sections, nothing outside
# tier: fast
# Issue 37 item 3: the normative definitions live in docs/spec/ (structures.md, probing.md,
# models.md), and comments cite those files, not documents outside the repository. Checked on
# every text file git tracks (a copy without .git: every file under the checkout):
#   1. no file cites the old shared specifications (the word SPEC followed by "-", " " or ".md")
#      or a document of ../shared (a name starting with a capital letter: the design, style and
#      spec notes), or the shared style notes by name (STYLE.md, "STYLE §": docs/style.md restates
#      what the code cites); ../shared/data, the treebanks the tests read, stays allowed;
#   2. every "docs/spec/NAME.md" named exists;
#   3. every section identifier written right after such a name exists in that file: §N.N as a
#      heading of structures.md / probing.md, MN.N as a heading of models.md, AN / QN / DN / TN as
#      a table row there, TV-X anywhere in it. Lists ("§1.4–§1.10", "M2.2/M2.3", "§2.1, §3.7")
#      are followed; a bare number after a § identifier is a § identifier too ("§6.1–6.3").
. tests/cli/lib.sh
# the patterns are split so that this file does not match itself
S=SP; S=${S}EC
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z | xargs -0 grep -IsnE -- '.' /dev/null >$TMP/all 2>/dev/null || true
else
    find . -path ./.git -prune -o -path ./build -prune -o -type f -print0 | xargs -0 grep -IsnE -- '.' /dev/null >$TMP/all 2>/dev/null || true
fi
grep -v '^tests/cli/t7265-spec-citations.sh:' $TMP/all | grep -v '^\./tests/cli/t7265-spec-citations.sh:' >$TMP/lines || true
expect_grep "the files were read" 'docs/spec/models\.md' $TMP/lines

# 1. nothing outside the repository
grep -E "\\b$S([- ]|\\.md)|\\.\\./shared/[A-Z]|\\bSTYLE(\\.md| §)" $TMP/lines | grep -v '^[./]*docs/' >$TMP/outside || true
expect_eq "no citation of the shared specifications or of ../shared documents" "$(cat $TMP/outside)" ""

# 2, 3. docs/spec citations: one "NAME ID FILE:LINE" row per identifier (or "NAME - FILE:LINE")
awk '
function isid(s) { return s ~ /^(§[0-9]+(\.[0-9]+)*|M[0-9]+(\.[0-9]+)*|A[0-9]+|Q[0-9]+|D[0-9]+|T[0-9]+b?|TV-[A-Za-z0-9]+|[0-9]+(\.[0-9]+)*)/ }
{
    loc = $0; sub(/:.*/, "", loc); rest = $0; sub(/^[^:]*:/, "", rest); ln = rest; sub(/:.*/, "", ln)
    loc = loc ":" ln; sub(/^[^:]*:/, "", rest)
    while (match(rest, /docs\/spec\/[A-Za-z0-9_-]+\.md/)) {
        name = substr(rest, RSTART + 10, RLENGTH - 13)
        rest = substr(rest, RSTART + RLENGTH)
        print name " - " loc
        if (substr(rest, 1, 1) != " ") continue
        t = substr(rest, 2); prev = ""
        while (match(t, /^(§[0-9]+(\.[0-9]+)*|M[0-9]+(\.[0-9]+)*|A[0-9]+|Q[0-9]+|D[0-9]+|T[0-9]+b?|TV-[A-Za-z0-9]+|[0-9]+(\.[0-9]+)*)/)) {
            id = substr(t, 1, RLENGTH); t = substr(t, RLENGTH + 1)
            if (id ~ /^[0-9]/) { if (prev ~ /^§/) id = "§" id; else break }
            sub(/\.+$/, "", id)
            if (substr(t, 1, 1) ~ /[A-Za-z0-9_]/) break     # a word, not an identifier
            print name " " id " " loc; prev = id
            if (match(t, /^(, and |, | and |\/|–|-)/)) t = substr(t, RLENGTH + 1); else break
        }
    }
}' $TMP/lines >$TMP/cites
expect_grep "citations of docs/spec were found" '^models M2\.2 ' $TMP/cites

: >$TMP/missing
while read -r name id loc; do
    f=docs/spec/$name.md
    if [ ! -f "$f" ]; then echo "$loc: $f does not exist" >>$TMP/missing; continue; fi
    [ "$id" = - ] && continue
    re=$(printf '%s' "$id" | sed 's/\./\\./g')
    case $id in
        §*|M[0-9]*) pat="^#+ $re( |\$)" ;;
        TV-*) pat="$re([^A-Za-z0-9]|\$)" ;;
        *) pat="^\\| $re \\|" ;;
    esac
    grep -Eq -- "$pat" "$f" || echo "$loc: $id is not in $f" >>$TMP/missing
done <$TMP/cites
expect_eq "every docs/spec file and section cited exists ($(wc -l <$TMP/cites) citations)" "$(cat $TMP/missing)" ""

# the section identifiers the code cites most are headings of the right file
expect_grep "structures.md has §2.1" '^### §2\.1 ' docs/spec/structures.md
expect_grep "probing.md has §3.6" '^### §3\.6 ' docs/spec/probing.md
expect_grep "models.md has M4.4" '^### M4\.4 ' docs/spec/models.md
done_testing
