# t5171-report-figures.sh — `report --figures DIR`: every chart as standalone SVG, PDF and PNG
# tier: fast
# Issue 24 item 6: the charts of the HTML page, one file each, for a paper. Checked independently of
# synprobe: the SVGs parse as XML (Python's parser) with one <svg> root each and as many as the
# page has charts, their titles in the page's order; the PDFs start with %PDF and end with %%EOF;
# the PNGs' IHDR size is twice the SVG's width/height attributes. --figures with --format json
# writes the same figures; bad formats, --figure-formats without --figures and a figures folder
# that is the store are refused with nothing written.
. tests/cli/lib.sh
$SP --version | grep -q 'figures svg, pdf, png' || skip_rest "this build has no librsvg (figures are SVG only): apt-get install librsvg2-dev, rebuild"
$SP demo --out $TMP/d >$TMP/demo.out 2>&1 && rc=0 || rc=$?
expect_eq "the demo runs" "$rc" 0
DB=$TMP/d/demo.db
rc=0; $SP report --db $DB --format html --out $TMP/page --figures $TMP/fig >$TMP/out 2>&1 || rc=$?
expect_eq "report --figures: exit 0" "$rc" 0
$PY - $TMP/page/report.html $TMP/fig <<'PY' >$TMP/chk
import os, re, struct, sys, xml.etree.ElementTree as ET
page, d = sys.argv[1], sys.argv[2]
html = open(page, encoding="utf-8").read()
titles = re.findall(r'<svg class="chart"[^>]*>\s*<title>(.*?)</title>', html)
svgs = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
ok_xml, got_titles, png_ok, pdf_ok = 0, [], 0, 0
for f in svgs:
    root = ET.parse(os.path.join(d, f)).getroot()
    ok_xml += root.tag == "{http://www.w3.org/2000/svg}svg"
    t = root.find("{http://www.w3.org/2000/svg}title")
    got_titles.append(t.text)
    w, h = int(root.get("width")), int(root.get("height"))
    png = open(os.path.join(d, f[:-4] + ".png"), "rb").read()
    pw, ph = struct.unpack(">II", png[16:24])
    png_ok += png[:8] == b"\x89PNG\r\n\x1a\n" and (pw, ph) == (2 * w, 2 * h)
    pdf = open(os.path.join(d, f[:-4] + ".pdf"), "rb").read()
    pdf_ok += pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
unesc = lambda s: s.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
print(len(titles), len(svgs), ok_xml, [unesc(t) for t in titles] == got_titles, png_ok, pdf_ok)
PY
set -- $(cat $TMP/chk)
check "the page has charts ($1)" test "$1" -ge 4
expect_eq "one SVG per chart" "$2" "$1"
expect_eq "every SVG is XML with an <svg> root" "$3" "$1"
expect_eq "... in the page's order, titled as on the page" "$4" True
expect_eq "every PNG is twice its SVG's size" "$5" "$1"
expect_eq "every PDF is a whole PDF" "$6" "$1"
check "the page names the figures' count on stderr" grep -q "report: $1 figures in $TMP/fig" $TMP/out

rc=0; $SP report --db $DB --format json --out $TMP/r.json --figures $TMP/fig2 --figure-formats svg >$TMP/out2 2>&1 || rc=$?
expect_eq "--figures with --format json, SVG only: exit 0" "$rc" 0
expect_eq "... the same SVGs, no PDF or PNG" "$(ls $TMP/fig2 | grep -c '\.svg$') $(ls $TMP/fig2 | grep -vc '\.svg$' || true)" "$1 0"
check "... and the JSON report" test -s $TMP/r.json

rc=0; $SP report --db $DB --format html --out $TMP/p3 --figures $TMP/fig3 --figure-formats svg,gif >$TMP/e3 2>&1 || rc=$?
expect_eq "--figure-formats svg,gif: exit 2" "$rc" 2
check "... names the format and the choices" grep -q "unknown format 'gif' (expected a comma list of svg, pdf, png)" $TMP/e3
check "... nothing written" test ! -e $TMP/fig3 -a ! -e $TMP/p3
rc=0; $SP report --db $DB --figure-formats pdf >$TMP/e4 2>&1 || rc=$?
expect_eq "--figure-formats without --figures: exit 2" "$rc" 2
check "... says so" grep -q -- "--figure-formats needs --figures DIR" $TMP/e4
cp $DB $TMP/before.db
rc=0; $SP report --db $DB --format json --figures $DB >$TMP/e5 2>&1 || rc=$?
check "--figures naming the store: refused (exit $rc)" test "$rc" -ne 0
check "... the store unchanged" cmp -s $DB $TMP/before.db
done_testing
