# t7260-docs-examples.sh — every example of README.md and docs/*.md runs, or says why it cannot
# tier: fast
# The documentation's examples are extracted and executed (issue 37). The convention, for every
# ```sh block (and any other block a reader is meant to run), on the line before its fence:
#   <!-- run -->                  run it with sh -e; a failure is "not ok FILE:LINE" with its output
#   <!-- run: needs models -->    run it where `make models` put the models (else a visible skip)
#   <!-- run: needs data -->      run it where the shared treebanks are ($SP_DATA)
#   <!-- run: sqlite3 STORE -->   a ```sql block: piped into `sqlite3 -bail STORE`
#   <!-- skip: REASON -->         not run here (root, a cluster, a GPU, a corpus we lack): a SKIP
#                                 line naming FILE:LINE and REASON
# A ```sh block without a marker is a failure: no example goes unrun silently. The blocks of one
# file run in order in one scratch folder of their own, where demo/, encoder/, contrib/, schemas/,
# build/ and models/ are the checkout's and `synprobe` is the binary under test, so an example
# makes its store from the demo corpus (`synprobe ingest --db demo.db ... demo/demo.conllu`) and
# later blocks of the same file use it. Last, every command of `synprobe help` must be run by some
# example. The flags the docs name are checked against the option tables by `make check-docs`
# (tests/check_docs.sh).
. tests/cli/lib.sh
command -v "$PY" >/dev/null 2>&1 || skip_rest "no $PY"
root=$(pwd)
spabs=$(cd "$(dirname "$SP")" && pwd)/synprobe
builddir=$(dirname "$spabs")
mkdir -p "$TMP/bin"
ln -s "$spabs" "$TMP/bin/synprobe"
case $MODELS in /*) models=$MODELS;; *) models=$root/$MODELS;; esac
case $DATA in /*) data=$DATA;; *) data=$root/$DATA;; esac

# the examples, one line each: FILE LINE KIND ARG (KIND run, needs, sql, skip, nomarker); the
# block's text in $TMP/blocks/N
"$PY" - "$TMP/blocks" README.md docs/*.md >"$TMP/list" <<'PYEOF'
import os, re, sys
out = sys.argv[1]; os.makedirs(out)
n = 0
for path in sys.argv[2:]:
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        l = lines[i]
        if not l.startswith("```"): i += 1; continue
        lang = l[3:].strip()
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"): j += 1
        body = "\n".join(lines[i+1:j]) + "\n"
        k = i - 1
        while k >= 0 and not lines[k].strip(): k -= 1
        m = re.match(r"<!-- (run|skip)(?::\s*(.*?))?\s*-->$", lines[k].strip()) if k >= 0 else None
        if m:
            kind, arg = m.group(1), (m.group(2) or "").strip()
            if kind == "run" and arg.startswith("needs "): kind, arg = "needs", arg[6:]
            elif kind == "run" and arg.startswith("sqlite3 "): kind, arg = "sql", arg[8:]
            elif kind == "run" and arg: kind, arg = "bad", f"unknown marker '{lines[k].strip()}'"
        elif lang == "sh": kind, arg = "nomarker", ""
        else: i = j + 1; continue
        n += 1
        open(f"{out}/{n}", "w", encoding="utf-8").write(body)
        print(n, path, i + 1, kind, arg.replace(" ", "_") or "-")
        i = j + 1
PYEOF

ran=0
while read -r id file line kind arg; do
    arg=$(printf '%s' "$arg" | tr _ ' ')
    where="$file:$line"
    dir=$TMP/run/$(printf '%s' "$file" | tr / _)
    if [ ! -d "$dir" ]; then
        mkdir -p "$dir"
        for d in demo encoder contrib schemas; do ln -s "$root/$d" "$dir/$d"; done
        ln -s "$builddir" "$dir/build"
        ln -s "$models" "$dir/models"
    fi
    case $kind in
        skip) skip "$where: $arg"; continue;;
        nomarker) not_ok "$where: a sh block without <!-- run --> or <!-- skip: why --> before it"; continue;;
        bad) not_ok "$where: $arg"; continue;;
        needs)
            case $arg in
                models) if [ ! -f "$models/all-MiniLM-L6-v2/model.safetensors" ]; then skip "$where: needs the models (make models)"; continue; fi;;
                data) if [ ! -d "$data" ]; then skip "$where: needs $data"; continue; fi;;
                *) not_ok "$where: unknown need '$arg'"; continue;;
            esac;;
    esac
    rc=0; t0=$(date +%s)
    if [ "$kind" = sql ]; then
        if ! command -v sqlite3 >/dev/null 2>&1; then skip "$where: no sqlite3 shell"; continue; fi
        (cd "$dir" && sqlite3 -bail "$arg" <"$TMP/blocks/$id") >"$TMP/out" 2>&1 || rc=$?
    else
        (cd "$dir" && PATH="$TMP/bin:$PATH" SP_DATA="$data" timeout 120 sh -e "$TMP/blocks/$id") >"$TMP/out" 2>&1 || rc=$?
    fi
    ran=$((ran+1)); cat "$TMP/blocks/$id" >>"$TMP/ran"
    if [ "$rc" -eq 0 ]; then ok "$where: the example runs ($(( $(date +%s) - t0 )) s)"
    else
        not_ok "$where: the example exits $rc"
        sed 's/^/#   /' "$TMP/blocks/$id"; echo "#   --- its output (the last 30 lines):"
        tail -n 30 "$TMP/out" | sed 's/^/#   /'
    fi
done <"$TMP/list"
check "examples found and run ($ran)" test "$ran" -gt 5
# every command (and subcommand) of `synprobe help` is run by some example that ran
cmds=$("$SP" help | sed -n '/^commands:/,$s/^  \([a-z][a-z]*\)  .*/\1/p')
check "synprobe help lists its commands ($(echo $cmds | wc -w))" test "$(echo $cmds | wc -w)" -gt 10
missing=
for c in $cmds; do
    case $c in tasks) subs="tasks_build tasks_import tasks_export tasks_list";; weights) subs="weights_check weights_list";; *) subs=$c;; esac
    for w in $subs; do
        w=$(printf '%s' "$w" | tr _ ' ')
        grep -Eq "(^|[^a-z_-])synprobe $w( |\$)" "$TMP/ran" 2>/dev/null || missing="$missing '$w'"
    done
done
expect_eq "every command of synprobe help is run by an example (missing:${missing:- none})" "${missing:-none}" none
done_testing
