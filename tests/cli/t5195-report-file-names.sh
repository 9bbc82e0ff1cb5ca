# t5195-report-file-names.sh — file names made from data are slugs in their folder; names shown escaped (issue 40, items 2 and 8)
# tier: fast
# Corpora named with path syntax ('a/../../../OUT', '/abs/OUT2', '..'), markup ('</script><i>q'),
# control bytes (newline, tab, ESC), a byte that is no UTF-8, non-ASCII and 300 bytes: `report
# --figures` must write every figure inside the figures folder, named NN-SLUG.svg with SLUG of
# [A-Za-z0-9._-] only (the slugs below worked out by hand from the rule in
# report/figures.h), nothing anywhere else, and a whole page. Before the fix the first name
# wrote OUT-length.svg two folders up and '</script>' stopped the report with the page missing.
# The labels stay visible: escaped in the page, in each SVG's title (Python's XML parser reads
# every SVG); `report --format text` writes a newline, tab or ESC in a name as \n, \t, \x1b, so a
# row is one line.
. tests/cli/lib.sh
$SP demo --out $TMP/d --ingest-only >/dev/null 2>&1
C=$TMP/d/corpus
W=$TMP/w/x/y                                 # the report runs here: '../../..' climbs to $TMP
mkdir -p $W
LONG=$(printf 'L%.0s' $(seq 300))
ESC=$(printf '\033')
i=0
for n in 'a/../../../OUT' '/abs/OUT2' '..' '</script><i>q' "nl
x	t${ESC}[31mz" "$(printf 'bad\377utf')" 'Grüße' "$LONG" '.hid'; do
    i=$((i+1))
    $SP ingest --db $TMP/s.db --corpus "$n" $C/demo.conllu >/dev/null 2>&1
done
(cd $TMP && find . | sort) >$TMP/before
rc=0; (cd $W && $SP report --db $TMP/s.db --format html --out page --figures figs --figure-formats svg) >$TMP/out 2>&1 || rc=$?
expect_eq "report --figures with hostile corpus names: exit 0" "$rc" 0
check "... the page is whole (ends with </html>)" sh -c "tail -c 20 $W/page/report.html | grep -q '</html>'"
(cd $TMP && find . | sort) >$TMP/after
expect_eq "... nothing written outside page/ and figs/" \
    "$(comm -13 $TMP/before $TMP/after | grep -v '^\./w/x/y/page' | grep -v '^\./w/x/y/figs' |
       grep -vx '\./s\.db.*\|\./before\|\./after\|\./out' | tr '\n' ' ')" ""
check "... no OUT*-length.svg beside the store" test ! -e $TMP/OUT-length.svg -a ! -e /abs
n_svg=$(ls $W/figs 2>/dev/null | grep -c "\.svg$" || true)
expect_eq "... one length and one depth chart per corpus" "$n_svg" $((2 * i))
expect_eq "... every name is NN-SLUG.svg, SLUG of [A-Za-z0-9._-], no leading dot or dash" \
    "$(ls -A $W/figs | grep -Evc '^[0-9][0-9]+-[A-Za-z0-9_][A-Za-z0-9._-]*\.svg$' || true)" 0
expect_eq "... no name holds '..'" "$(ls -A $W/figs | grep -c '\.\.' || true)" 0
for slug in a-OUT-length abs-OUT2-depth length script-i-q-depth nl-x-t-31mz-length bad-utf-depth Gr-e-length hid-depth; do
    check "... a figure NN-$slug.svg" sh -c "ls $W/figs | grep -qx '[0-9][0-9]-$slug\.svg'"
done
check "... the 300-byte name capped: 64 bytes of slug" sh -c "ls $W/figs | grep -qx '[0-9][0-9]-$(printf 'L%.0s' $(seq 64))\.svg'"

$PY - $W/figs $W/page/report.html <<'PY' >$TMP/chk
import os, sys, xml.etree.ElementTree as ET
d, page = sys.argv[1], sys.argv[2]
titles = []
for f in sorted(os.listdir(d)):
    root = ET.parse(os.path.join(d, f)).getroot()
    titles.append(root.find("{http://www.w3.org/2000/svg}title").text)
want = ["a/../../../OUT: Sentence length", "/abs/OUT2: Sentence length", "..: Sentence length",
        "</script><i>q: Sentence length", "\\xffutf: Sentence length", "Grüße: Sentence length",
        "\\x1b[31mz: Sentence length", ".hid: Sentence length"]
print("parsed", len(titles))
for w in want:
    print("title", int(any(w in t for t in titles)), w)
html = open(page, "rb").read()
print("raw-markup", html.count(b"<i>q"))
print("escaped-markup", int(b"&lt;/script&gt;&lt;i&gt;q" in html))
print("esc-bytes", html.count(b"\x1b"))
PY
check "every SVG parses as XML ($(grep parsed $TMP/chk))" grep -qx "parsed $n_svg" $TMP/chk
grep '^title' $TMP/chk | while read -r _ got w; do echo "$got $w"; done >$TMP/titles
expect_eq "each label is a figure's title, as stored (ESC and the bad byte as \\xHH)" "$(grep -c '^0' $TMP/titles || true)" 0
expect_eq "the page has no raw <i> from a name" "$(grep '^raw-markup' $TMP/chk)" "raw-markup 0"
expect_eq "... it shows the name escaped" "$(grep '^escaped-markup' $TMP/chk)" "escaped-markup 1"
expect_eq "... and no ESC byte" "$(grep '^esc-bytes' $TMP/chk)" "esc-bytes 0"

# the same names with --format json: the figures go to the folder, the JSON where it was asked
rc=0; (cd $W && $SP report --db $TMP/s.db --format json --out r.json --figures figs2 --figure-formats svg) >$TMP/out2 2>&1 || rc=$?
expect_eq "report --format json --figures: exit 0" "$rc" 0
expect_eq "... as many figures" "$(ls $W/figs2 | grep -c '\.svg$')" "$n_svg"

# text: a tree evaluation of a corpus whose name holds a newline, a tab, ESC and a backslash
N2="two
lines	tab${ESC}[1mbold\\back"
$SP ingest --db $TMP/t.db --corpus "$N2" $C/demo.mrg >/dev/null 2>&1
$SP trees --db $TMP/t.db --corpus "$N2" --baseline right >/dev/null 2>&1
rc=0; $SP report --db $TMP/t.db --format text >$TMP/text 2>$TMP/terr || rc=$?
expect_eq "report --format text: exit 0" "$rc" 0
expect_eq "... the row is one line, the name escaped" \
    "$(grep -F ' two\nlines\ttab\x1b[1mbold\back ' $TMP/text | grep -c '^ *1  right ' || true)" 1
expect_eq "... no ESC byte in the text" "$(tr -cd '\033' <$TMP/text | wc -c)" 0
expect_eq "... 3 lines: title, head, the row" "$(wc -l <$TMP/text)" 3
done_testing
