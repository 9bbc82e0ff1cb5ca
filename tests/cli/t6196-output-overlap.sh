# t6196-output-overlap.sh — two outputs of one command or job never meet, checked by the files each writes (issue 40, items 3 and 8)
# tier: fast
# A report's --out is a file, or with --format html a folder holding report.html; --figures a
# folder holding NN-NAME.svg/.pdf/.png (report/figures.h); tasks build --out a folder of
# the task files and tasks.json. Refused with exit 2 before anything is written, both named:
# an output where another's folder writes (a JSON report named like a figure, a page's
# report.html), a folder inside a file output, two figures folders that are one, and a file
# output that is '.', ends in '/' or is an existing folder (`"out": "."` passed --check before).
# Accepted: --out D --figures D (report.html is no figure name; it was refused before), a JSON
# beside the figures under another name, a task folder and a page in one folder.
. tests/cli/lib.sh
$SP demo --out $TMP/d --ingest-only >/dev/null 2>&1
DB=$TMP/d/demo.db
cd $TMP
mkdir existing
: >afile

# refused DESC NEEDLE1 NEEDLE2 ARGS...: exit 2, both named, nothing new in $TMP
refused() {
    what=$1 a=$2 b=$3; shift 3
    before=$(find . | sort)
    rc=0; $SP "$@" >out 2>err || rc=$?
    expect_eq "$what: exit 2" "$rc" 2
    check "$what: names $a and $b" sh -c "grep -qF -- '$a' err && grep -qF -- '$b' err"
    expect_eq "$what: nothing written" "$(find . ! -name out ! -name err | sort)" "$(echo "$before" | grep -vx '\./out\|\./err')"
}
refused "json --out F/01-demo-length.svg --figures F" "--figures F" "output --out F/01-demo-length.svg" \
    report --db $DB --format json --out F/01-demo-length.svg --figures F
refused "csv --out G/07-x-depth.png --figures G (a PNG name)" "--figures G" "output --out G/07-x-depth.png" \
    report --db $DB --format csv --out G/07-x-depth.png --figures G
refused "md --out ./F2/123-any.pdf --figures F2/ (./, a trailing slash)" "--figures F2/" "output --out ./F2/123-any.pdf" \
    report --db $DB --format md --out ./F2/123-any.pdf --figures F2/
refused "html --out E --figures E/report.html" "--figures E/report.html" "output --out E/report.html" \
    report --db $DB --format html --out E --figures E/report.html
refused "json --out K --figures K/figs (a folder inside a file)" "--figures K/figs" "output --out K, which is a file" \
    report --db $DB --format json --out K --figures K/figs
refused "json --out ." "--out ." "names a folder, and a file is expected" report --db $DB --format json --out .
refused "text --out sub/" "--out sub/" "names a folder, and a file is expected" report --db $DB --format text --out sub/
refused "csv --out an existing folder" "--out existing" "an existing folder, and a file is expected" \
    report --db $DB --format csv --out existing
refused "csv --out the store's folder" "--out d" "an existing folder, and a file is expected" \
    report --db $DB --format csv --out d
refused "html --out an existing file" "--out afile" "an existing file, and a folder is expected" \
    report --db $DB --format html --out afile
refused "tasks build --out a file" "--out afile" "an existing file, and a folder is expected" \
    tasks build --corpus-files d/corpus/demo.conllu --out afile

rc=0; $SP report --db $DB --format html --out D --figures D --figure-formats svg >out 2>err || rc=$?
expect_eq "html --out D --figures D: exit 0" "$rc" 0
check "... the page and the figures, side by side" sh -c "test -s D/report.html && ls D | grep -q '^01-demo-length\.svg$'"
mkdir D2
rc=0; $SP report --db $DB --format json --out D2/notes.json --figures D2 --figure-formats svg >out 2>err || rc=$?
expect_eq "json --out D2/notes.json --figures D2: exit 0 (not a figure's name)" "$rc" 0
check "... both written" sh -c "test -s D2/notes.json && test -s D2/01-demo-length.svg"
rc=0; $SP report --db $DB --format html --out . >out 2>err || rc=$?
expect_eq "html --out . (a folder holding report.html): exit 0" "$rc" 0

# jobs: run --check refuses, and run writes nothing (no store either)
J=$TMP/j
mkdir -p $J
cp d/corpus/demo.conllu $J/
job() { printf '{"store": "s.db", "out": "o", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}], %s}\n' "$1" >$J/job.json; }
jrefused() {
    what=$1 a=$2 b=$3
    for how in "run --check" "run"; do
        rc=0; $SP $how $J/job.json >out 2>err || rc=$?
        expect_eq "$what: $how: exit 2" "$rc" 2
        check "$what: $how: names $a and $b" sh -c "grep -qF -- '$a' err && grep -qF -- '$b' err"
    done
    check "$what: no store, no output folder" test ! -e $J/s.db -a ! -e $J/o
}
jaccepted() {
    rc=0; $SP run --check $J/job.json >out 2>err || rc=$?
    expect_eq "$1: run --check: exit 0" "$rc" 0
}
job '"reports": [{"format": "html", "out": "h"}, {"format": "json", "out": "h/report.html"}]'
jrefused "html h + json h/report.html" "reports[1].out $J/o/h/report.html" "output reports[0].out $J/o/h/report.html"
job '"reports": [{"format": "json", "out": "f/02-demo-depth.svg"}, {"format": "html", "out": "p", "figures": "f"}]'
jrefused "json f/02-demo-depth.svg + figures f" "reports[1].figures $J/o/f" "output reports[0].out $J/o/f/02-demo-depth.svg"
job '"reports": [{"format": "html", "out": "a", "figures": "f"}, {"format": "latex", "out": "b.tex", "figures": "f"}]'
jrefused "two figures folders that are one" "reports[1].figures $J/o/f" "output reports[0].figures $J/o/f"
job '"tasks": [{"tasks": ["SentLen"], "split": "resplit", "out": "t"}], "reports": [{"format": "json", "out": "t/tasks.json"}]'
jrefused "json t/tasks.json + the tasks folder t" "reports[0].out $J/o/t/tasks.json" "output tasks[0].out $J/o/t/tasks.json"
job '"reports": [{"format": "json", "out": "."}]'
jrefused '"out": "."' "reports[0].out $J/o/." "names a folder"
job '"reports": [{"format": "html", "out": "h"}, {"format": "json", "out": "h/other.json"}]'
jaccepted "html h + json h/other.json"
job '"reports": [{"format": "html", "out": "h", "figures": "h"}, {"format": "csv", "out": "h/r.csv"}]'
jaccepted "html h, figures h, csv h/r.csv"
job '"reports": [{"format": "html", "out": "t"}], "tasks": [{"tasks": ["SentLen"], "split": "resplit", "out": "t"}]'
jaccepted "a page and the task files in one folder"
done_testing
