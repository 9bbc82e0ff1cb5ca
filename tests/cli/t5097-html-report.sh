# t5097-html-report.sh — the demo's HTML report renders in headless Chromium without errors
# tier: fast
# Issue 14 items 5 and 6: the demo's HTML report, rendered in a real browser (headless Chromium,
# Debian's `chromium`): a screenshot is taken, and the test fails on a console message of level
# error or warning, a missing chart, an empty table, or any reference to a file or the network
# (the page must be self-contained). The checker itself is checked on a page that logs an error.
# Skips visibly without chromium.
. tests/cli/lib.sh
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip_rest "chromium not installed (apt-get install chromium)"
render() {  # page.html -> $TMP/dom (the DOM after load), $TMP/console (console lines), $TMP/shot.png
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --enable-logging=stderr --v=0 \
        --user-data-dir=$TMP/chrome --window-size=1200,3000 --dump-dom "file://$1" >$TMP/dom 2>$TMP/chrome.err || return 1
    grep -a 'CONSOLE' $TMP/chrome.err >$TMP/console || true
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=$TMP/chrome \
        --window-size=1200,3000 --screenshot=$TMP/shot.png "file://$1" >/dev/null 2>&1
}
# the checker can fail: a page that logs an error is caught
printf '<!DOCTYPE html><html><body><script>console.error("broken")</script><p>x</p></body></html>' >$TMP/bad.html
render $TMP/bad.html || true
check "a page with a console error is caught" grep -q 'broken' $TMP/console

$SP demo --out $TMP/d >$TMP/demo.out 2>&1 && rc=0 || rc=$?
expect_eq "the demo runs (its job writes report/report.html)" "$rc" 0
P=$TMP/d/report/report.html
check "the page exists" test -s $P
render $P && rc=0 || rc=$?
expect_eq "chromium renders it" "$rc" 0
expect_eq "no console messages" "$(wc -l <$TMP/console | tr -d ' ')" 0
check "a screenshot was taken (PNG, over 20 kB)" sh -c "[ \$(wc -c <$TMP/shot.png) -gt 20000 ] && head -c 8 $TMP/shot.png | grep -q PNG"
cat >$TMP/dom.py <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.svg = 0; self.rects = 0; self.tables = []; self.in_td = 0; self.refs = []; self.ids = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "chart" in (a.get("class") or ""): self.svg += 1
        if tag in ("rect", "circle"): self.rects += 1
        if tag == "table": self.tables.append(0)
        if tag == "td" and self.tables: self.tables[-1] += 1
        if tag == "section": self.ids.append(a.get("id"))
        for k in ("src", "href"):
            v = a.get(k)
            if v and not v.startswith("#"): self.refs.append(v)
        if tag == "link": self.refs.append(str(a))
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
print(p.svg, p.rects > 20, min(p.tables) if p.tables else 0, len(p.tables), len(p.refs), ",".join(i or "" for i in p.ids))
PY
set -- $($PY $TMP/dom.py $TMP/dom)
check "charts: at least 4 (probing, trees, 2 histograms), got $1" test "$1" -ge 4
expect_eq "the charts have bars" "$2" True
check "every table has cells (the emptiest has $3)" test "$3" -gt 0
check "tables: at least 3 (probing, trees, corpora), got $4" test "$4" -ge 3
expect_eq "no reference to another file or the network" "$5" 0
expect_eq "the sections" "$6" "findings,probing,control,layers,trees,corpora,manifest"
check "the page says the demo's numbers are not findings" grep -q 'so they are not findings' $P
check "... every task's column names its n" grep -q '<th>Tense<br><small>n [0-9]*</small></th>' $P
check "... and flags its too-small test sets" grep -q '<span class="flag">!</span>' $P
# accuracy by layer: runs named NAME-L<k> give one line per (encoder, task, classifier)
mkdir -p $TMP/L
cp demo/demo.conllu demo/demo.mrg $TMP/L/
for k in 0 1 2; do cp encoder/configs/san.json $TMP/L/enc-L$k.json; done
cat >$TMP/L/job.json <<'J'
{"store": "out/s.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
 "tasks": [{"tasks": ["Tense", "BShift"], "seed": 1, "split": "resplit"}],
 "encoders": [{"config": "enc-L0.json", "inputs": ["Tense", "BShift"], "seed": 1}, {"config": "enc-L1.json", "inputs": ["Tense", "BShift"], "seed": 2},
              {"config": "enc-L2.json", "inputs": ["Tense", "BShift"], "seed": 3}],
 "probes": [{"classifier": ["logreg"], "seed": [1], "preset": "senteval-fast"}],
 "reports": [{"format": "html", "out": "html"}]}
J
$SP run --quiet $TMP/L/job.json >$TMP/L.out 2>&1 && rc=0 || rc=$?
expect_eq "a job with runs of three 'layers'" "$rc" 0
$PY - $TMP/L/out/html/report.html >$TMP/L.chk <<'PY'
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
sec = h[h.index('<section id="layers">'):h.index('</section>', h.index('<section id="layers">'))]
print(sec.count('fill="none" stroke-width="2"'), sec.count("<circle"), "<title>enc: test accuracy by layer</title>" in sec,
      ">Tense</text>" in sec and ">BShift</text>" in sec)
PY
expect_eq "the layer chart of encoder enc: 2 lines (one per task), 3 points each, in the legend by task" "$(cat $TMP/L.chk)" "2 6 True True"
done_testing
