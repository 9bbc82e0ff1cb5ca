# t5170-report-legible.sh — every chart of the HTML report stays legible at 1280 and 800 px in Chromium
# tier: fast
# Issue 24, items 1-3 and its tests: a job with 13 encoders whose long names are "layers" 0-12
# (more series than the palette's 12 colours) is reported as HTML and rendered in headless Chromium
# at 1280 and 800 px. A harness page (the report itself stays script-free) loads the report in a
# frame of that width and measures every chart as the browser laid it out: every text lies inside
# its SVG, every series has a legend entry (one-series charts are named by their title), legend
# entries do not overlap, no colour repeats within a chart. The checker is checked on a bad chart
# first. The heatmap is the page's first section, names every layer and shows every cell's value.
# Screenshots are kept in $SP_BUILD/test-screens/ (t5170-1280.png, t5170-800.png). Skips visibly
# without chromium.
. tests/cli/lib.sh
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip_rest "chromium not installed (apt-get install chromium)"
SHOTS=${SP_BUILD:-build}/test-screens
mkdir -p "$SHOTS"

# the measuring harness: report (argument 1) in a frame of width (argument 2); one line per chart
cat >$TMP/harness.js <<'JS'
function measure(doc) {
  const lines = [];
  doc.querySelectorAll('svg.chart').forEach(svg => {
    const r = svg.getBoundingClientRect(), name = svg.querySelector('title').textContent;
    let outside = [];
    svg.querySelectorAll('text').forEach(t => {
      const b = t.getBoundingClientRect();
      if (b.width === 0) return;
      if (b.left < r.left - 1 || b.right > r.right + 1 || b.top < r.top - 1 || b.bottom > r.bottom + 1) outside.push(t.textContent);
    });
    const series = [...svg.querySelectorAll('g[data-series]')].filter(g => g.dataset.series !== 'mark');
    const colours = new Set(series.map(g => g.getAttribute('stroke') || g.getAttribute('fill')));
    let missing = 0;
    if (series.length > 1) series.forEach(g => { if (!svg.querySelector('g[data-legend="' + g.dataset.series + '"]')) missing++; });
    const boxes = [...svg.querySelectorAll('g[data-legend]')].map(g => g.getBoundingClientRect());
    let overlaps = 0;
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) overlaps++;
    }
    lines.push(['CHART', name.replace(/\t/g, ' '), series.length, colours.size, missing, overlaps, outside.length,
                outside.slice(0, 3).join('|')].join('\t'));
  });
  return lines.join('\n');
}
window.addEventListener('load', () => {
  const out = document.createElement('pre');
  out.id = 'measured';
  out.textContent = measure(document.getElementById('page').contentDocument) + '\nDONE';
  document.body.appendChild(out);
});
JS
measure() {  # report.html width -> $TMP/m-WIDTH (one line per chart)
    { printf '<!DOCTYPE html><html><body style="margin:0"><iframe id="page" src="file://%s" style="border:0;width:%spx;height:900px"></iframe><script>' "$1" "$2"
      cat $TMP/harness.js
      printf '</script></body></html>'; } >$TMP/harness-$2.html
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --allow-file-access-from-files \
        --user-data-dir=$TMP/chrome --virtual-time-budget=5000 --window-size=$(($2 + 20)),900 --dump-dom \
        "file://$TMP/harness-$2.html" 2>/dev/null | sed -n '/<pre id="measured">/,/DONE/p' | sed 's/.*<pre id="measured">//' \
        | grep '^CHART' >$TMP/m-$2 || true
}

# the checker can fail: a chart with a text outside it, two series of one colour and no legend
cat >$TMP/bad.html <<'H'
<!DOCTYPE html><html><body><svg class="chart" viewBox="0 0 200 100" width="200" height="100"><title>bad</title>
<text x="190" y="50">far too long a label for this chart</text>
<g data-series="0" fill="#0072B2"><rect x="10" y="10" width="10" height="10"/></g>
<g data-series="1" fill="#0072B2"><rect x="30" y="10" width="10" height="10"/></g></svg></body></html>
H
measure $TMP/bad.html 1280
expect_eq "the checker sees the bad chart: 2 series, 1 colour, 2 without legend, 1 text outside" \
    "$(cut -f3-7 $TMP/m-1280)" "$(printf '2\t1\t2\t0\t1')"

# 13 encoders named as layers 0-12 of one long name, two tasks
mkdir -p $TMP/L
cp demo/demo.conllu demo/demo.mrg $TMP/L/
E=a-rather-long-encoder-name-to-wrap-the-legend
encs=""
for k in 0 1 2 3 4 5 6 7 8 9 10 11 12; do
    cp encoder/configs/san.json $TMP/L/$E-L$k.json
    encs="$encs${encs:+, }{\"config\": \"$E-L$k.json\", \"inputs\": [\"demo\", \"Tense\", \"BShift\"], \"seed\": $((k + 1)), \"attention\": 0, \"token-vectors\": true}"
done
cat >$TMP/L/job.json <<J
{"store": "out/s.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
 "tasks": [{"tasks": ["Tense", "BShift"], "seed": 1, "split": "resplit"}],
 "encoders": [$encs],
 "probes": [{"classifier": ["logreg"], "seed": [1], "preset": "senteval-fast"}],
 "structprobes": [{"rank": 8}],
 "reports": [{"format": "html", "out": "html"}]}
J
$SP run --quiet $TMP/L/job.json >$TMP/L.out 2>&1 && rc=0 || { rc=$?; cat $TMP/L.out; }
expect_eq "the 13-encoder job runs" "$rc" 0
P=$TMP/L/out/html/report.html
check "the page's first section is the heatmap" sh -c "grep -o '<section id=\"[a-z]*\"' $P | head -1 | grep -q findings"
$PY - $P >$TMP/hm <<'PY'
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
sec = h[h.index('<section id="findings">'):h.index('</section>', h.index('<section id="findings">'))]
cols = re.findall(r'font-weight="bold">(\d+)</text>', sec)
rows = sec.count('<g data-row=')
cells = len(re.findall(r'<text x="[0-9.]+" y="\d+" text-anchor="middle" fill="#(?:fff|111)"', sec))
print(",".join(cols), rows, cells)
PY
expect_eq "the heatmap: layers 0-12 as columns, Tense, BShift, UUAS, DSpr as rows, a value in every cell" \
    "$(cat $TMP/hm)" "0,1,2,3,4,5,6,7,8,9,10,11,12 4 52"
for w in 1280 800; do
    measure $P $w
    n=$(wc -l <$TMP/m-$w | tr -d ' ')
    check "at $w px: the harness measured the charts ($n)" test "$n" -ge 6
    bad=$(awk -F'\t' '$7 > 0 { print $2 ": " $8 }' $TMP/m-$w)
    expect_eq "at $w px: every chart's text lies inside its SVG" "$bad" ""
    expect_eq "at $w px: every series has a legend entry" "$(awk -F'\t' '$5 > 0 { print $2 }' $TMP/m-$w)" ""
    expect_eq "at $w px: legend entries do not overlap" "$(awk -F'\t' '$6 > 0 { print $2 }' $TMP/m-$w)" ""
    expect_eq "at $w px: no colour repeats within a chart" "$(awk -F'\t' '$3 != $4 { print $2 }' $TMP/m-$w)" ""
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=$TMP/chrome \
        --window-size=$w,800 --screenshot="$SHOTS/t170-$w.png" "file://$P" >/dev/null 2>&1 || true
    check "at $w px: the first screen is kept ($SHOTS/t170-$w.png)" sh -c "head -c 8 '$SHOTS/t170-$w.png' | grep -q PNG"
done
# 13 encoders, 12 colours: the bar chart of the probing tasks is drawn as two small multiples
expect_eq "13 series become small multiples of 12 and 1 series, each in its own colours" \
    "$(grep 'encoder (logreg) (part' $TMP/m-1280 | cut -f2-4 | tr '\t' ' ' | tr '\n' ';')" \
    "Test accuracy by task and encoder (logreg) (part 1 of 2) 12 12;Test accuracy by task and encoder (logreg) (part 2 of 2) 1 1;"
done_testing
