# t2177-weights-list.sh — weights list: each config's tensors as the spec names them; the docs' blocks are its output
# tier: fast
# Issue 25 item 5. For every shipped config (encoder/configs/*.json) and the reference variants
# (tests/reference/configs/*.json): `synprobe weights list` gives the names, shapes and order that
# tests/reference/weights_ref.py derives from schemas/encoder-weights.md (written from the
# schema, not from the C code); --json the same list; --compact lines expand to exactly the full
# list. docs/encoders-and-models.md's "Bringing your own weights" shows `weights list --compact`
# for the shipped configs: each block must be the command's output (the bert block where `make
# models` ran).
# Before this change `synprobe weights` did not exist (exit 2).
. tests/cli/lib.sh
need_numpy
REF=tests/reference/weights_ref.py

for f in encoder/configs/*.json tests/reference/configs/*.json; do
    "$PY" $REF expected "$f" >"$TMP/ref"
    rc=0; "$SP" weights list --quiet "$f" >"$TMP/out" 2>"$TMP/err" || rc=$?
    awk '{ print $1, $2 }' "$TMP/out" >"$TMP/got"
    check "$f: weights list (exit $rc) = the spec's $(wc -l <"$TMP/ref" | tr -d ' ') tensors, same names, shapes and order" \
        sh -c '[ "$1" = 0 ] && [ -s "$2" ] && cmp -s "$2" "$3"' - "$rc" "$TMP/ref" "$TMP/got"
    "$SP" weights list --json "$f" >"$TMP/j" 2>/dev/null
    "$SP" weights list --compact --quiet "$f" >"$TMP/c" 2>/dev/null
    check "$f: --json and --compact give the same list" "$PY" - "$TMP/j" "$TMP/c" "$TMP/ref" <<'PYEOF'
import json, re, sys
j = json.load(open(sys.argv[1]))
ref = [(l.split()[0], l.split()[1]) for l in open(sys.argv[3])]
got = [(t["name"], "[" + ",".join(map(str, t["shape"])) + "]") for t in j["expected"]]
assert got == ref and j["tensors"] == len(ref) and all(t["dtype"] == "F32" for t in j["expected"]), got[:3]
def expand(name):
    m = re.search(r"\{(\d+)\.\.(\d+)\}|\{([\d,]+)\}", name)
    if not m:
        return [name]
    nums = range(int(m.group(1)), int(m.group(2)) + 1) if m.group(1) else [int(x) for x in m.group(3).split(",")]
    return [name[:m.start()] + str(k) + name[m.end():] for k in nums]
full = set()
n = 0
for line in open(sys.argv[2]):
    name, shape, dt = line.split()
    for x in expand(name):
        full.add((x, shape)); n += 1
assert full == set(ref) and n == len(ref), (len(full), len(ref))
PYEOF
done

# docs/encoders-and-models.md's blocks: "$ synprobe weights list --compact CONFIG" and what follows, to the fence
"$PY" - docs/encoders-and-models.md "$TMP/blocks" <<'PYEOF'
import re, sys
text = open(sys.argv[1]).read()
sec = text.split("## Bringing your own weights", 1)[1].split("\n## ", 1)[0]
blocks = re.findall(r"```\n\$ synprobe weights list --compact (\S+)\n(.*?)```", sec, re.S)
import os
os.makedirs(sys.argv[2], exist_ok=True)
with open(sys.argv[2] + "/list", "w") as f:
    for i, (cfg, body) in enumerate(blocks):
        open(f"{sys.argv[2]}/{i}", "w").write(body)
        f.write(f"{i} {cfg}\n")
PYEOF
for f in encoder/configs/*.json; do
    check "docs/encoders-and-models.md shows $f" grep -q " $f\$" "$TMP/blocks/list"
done
while read -r i cfg; do
    case $cfg in contrib/jobs/minilm.json)
        if [ ! -f "$MODELS/all-MiniLM-L6-v2/model.safetensors" ] || [ ! -d models/all-MiniLM-L6-v2 ]; then
            skip "the docs' $cfg block: no models/all-MiniLM-L6-v2 (make models)"; continue
        fi;;
    esac
    "$SP" weights list --compact --quiet "$cfg" >"$TMP/out" 2>/dev/null
    check "the docs' block for $cfg is weights list --compact's output" cmp -s "$TMP/out" "$TMP/blocks/$i"
done <"$TMP/blocks/list"
done_testing
