#!/bin/sh
# bench/storage.sh — what `encode --store-dtype` saves and what it costs the probes. UD EWT dev
# (2,001 sentences), all-MiniLM-L6-v2, every layer in one pass (--layers all: runs L0 = embeddings
# .. L6), each type (f32, f16, bf16) in a store of its own holding the same work:
#   the corpus run with token vectors and each layer's attention (--token-vectors --layer-attention),
#   the task runs of BShift and SentLen (seeded 80/10/10 re-split; sentence vectors only);
# then per layer: the structural probes (UUAS, DSpr, root), the UPOS token probe (accuracy,
# control, selectivity), logreg on BShift and SentLen (test accuracy), dependency trees from the
# layer's attention (UAS). Sizes from `synprobe info` (SQLite dbstat) and the file. Prints a
# markdown section (append it to bench/RESULTS.md). For scale, the f32 structural probes once
# more with --probe-seed 2 (which also re-draws the 80/10/10 split): the spread of another seed.
# Not a test: no assertions.
#   sh bench/storage.sh     env: SP_DATA (../shared/data), SP_BUILD (build), SP_MODELS (models),
#                           KEEP=1 (keep the stores), SUMMARY=DIR (only print the section from a kept DIR)
set -eu
export LC_ALL=C
DATA=$(cd "${SP_DATA:-../shared/data}" 2>/dev/null && pwd) || { echo "SKIP bench/storage.sh: no data"; exit 0; }
SP=$(cd "${SP_BUILD:-build}" && pwd)/synprobe
MODELS=$(cd "${SP_MODELS:-models}" 2>/dev/null && pwd) || { echo "SKIP bench/storage.sh: no models (make models)"; exit 0; }
[ -f "$MODELS/all-MiniLM-L6-v2/model.safetensors" ] || { echo "SKIP bench/storage.sh: no MiniLM in $MODELS"; exit 0; }
if [ -n "${SUMMARY:-}" ]; then TMP=$SUMMARY; else TMP=$(mktemp -d); trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT; fi
printf '{"kind": "bert", "model": "%s/all-MiniLM-L6-v2"}\n' "$MODELS" >"$TMP/minilm.json"
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for t in f32 f16 bf16; do
    [ -z "${SUMMARY:-}" ] || break
    DB=$TMP/$t.db
    "$SP" ingest --db "$DB" --corpus ewt "$EWT" --quiet >/dev/null
    "$SP" tasks build --db "$DB" --corpus ewt --tasks BShift,SentLen --split resplit --seed 1 --quiet >/dev/null
    s0=$(date +%s.%N)
    "$SP" encode --db "$DB" --corpus ewt --encoder "$TMP/minilm.json" --run m --layers all --token-vectors \
        --layer-attention --store-dtype $t --quiet
    "$SP" encode --db "$DB" --task BShift,SentLen --encoder "$TMP/minilm.json" --run t --layers all --store-dtype $t --quiet
    s1=$(date +%s.%N)
    "$SP" info --db "$DB" >"$TMP/$t.info"
    stat -c %s "$DB" >"$TMP/$t.size"
    echo "$s0 $s1" | awk '{ printf "%.1f\n", $2 - $1 }' >"$TMP/$t.enc_s"
    "$SP" structprobe --db "$DB" --corpus ewt --run m --layer all --json --no-save --quiet >"$TMP/$t.sp.json"
    "$SP" tokprobe --db "$DB" --corpus ewt --run m --layer all --json --no-save --quiet >"$TMP/$t.tok.json"
    "$SP" probe --db "$DB" --task BShift --run t --layer all --json --no-save --quiet >"$TMP/$t.bshift.json"
    "$SP" probe --db "$DB" --task SentLen --run t --layer all --json --no-save --quiet >"$TMP/$t.sentlen.json"
    "$SP" trees --db "$DB" --corpus ewt --run m --layer all --dependency --json --no-save --quiet >"$TMP/$t.trees.json" 2>/dev/null || true
done
[ -n "${SUMMARY:-}" ] || "$SP" structprobe --db "$TMP/f32.db" --corpus ewt --run m --layer all --probe-seed 2 --json --no-save \
    --quiet >"$TMP/f32.sp2.json"
load1=$(cut -d' ' -f1-3 /proc/loadavg)
/usr/bin/python3 - "$TMP" "$(date -u +%Y-%m-%d)" "$load0" "$load1" "$(nproc)" <<'PY'
import json, re, sys
tmp, day, load0, load1, ncpu = sys.argv[1:]
T = ["f32", "f16", "bf16"]
def js(t, what):
    try:
        d = json.load(open("%s/%s.%s.json" % (tmp, t, what)))
    except Exception:
        return {}
    return {r.get("layer"): r for r in (d if isinstance(d, list) else [d])}
def info(t):
    text = open("%s/%s.info" % (tmp, t)).read()
    tables = dict((m.group(1), int(m.group(2).replace(",", ""))) for m in re.finditer(r"^  (\w+) +([\d,]+) +[\d.]+%$", text, re.M))
    vec = [l.split() for l in text.split("encoded vectors")[1].splitlines()[2:] if l.strip() and not l.strip().startswith("(")]
    return tables, vec
print("## storage: --store-dtype on MiniLM, EWT dev (%s, %s CPUs, load %s -> %s)" % (day, ncpu, load0, load1))
print()
print("UD EWT dev (2,001 sentences, 25,147 words), all-MiniLM-L6-v2, 7 layer runs (L0 = embeddings .. L6) in")
print("one pass per type, each type in its own store: the corpus run with token vectors and each layer's")
print("attention, the BShift and SentLen task runs (sentence vectors). `bench/storage.sh`.")
print()
print("| type | store file, bytes | vector table | attention table | bytes / token / layer | bytes / sentence / layer | encode s |")
print("|---|--:|--:|--:|--:|--:|--:|")
base = None
for t in T:
    tables, vec = info(t)
    size = int(open("%s/%s.size" % (tmp, t)).read())
    base = base or size
    row = [v for v in vec if v[0] == t and v[1] == "384"]
    btok = row[0][6] if row else "?"
    bsent = row[0][4] if row else "?"
    print("| %s | %s (%.0f%%) | %s | %s | %s | %s | %s |" % (t, format(size, ","), 100.0 * size / base,
          format(tables.get("vector", 0), ","), format(tables.get("attention", 0), ","), btok, bsent,
          open("%s/%s.enc_s" % (tmp, t)).read().strip()))
print()
metrics = [("sp", "uuas", "UUAS"), ("sp", "dspr", "DSpr"), ("sp", "root_acc", "root"), ("tok", "acc", "UPOS"),
           ("tok", "selectivity", "UPOS sel."), ("bshift", "acc", "BShift"), ("sentlen", "acc", "SentLen"),
           ("trees", "uas", "dep. UAS")]
def val(r, k):
    if k == "uas":
        for key in ("uas", "UAS"):
            if key in r: return r[key]
        u = r.get("unlabeled") or r.get("dependency") or {}
        return u.get("uas") if isinstance(u, dict) else None
    return r.get(k)
data = {t: {w: js(t, w) for w in ("sp", "tok", "bshift", "sentlen", "trees")} for t in T}
layers = sorted(k for k in data["f32"]["sp"] if k is not None)
print("Per layer, f32 and the difference f16 − f32 / bf16 − f32 (test sets: 200 sentences for the")
print("structural probes, %s tokens for UPOS, %s items BShift, %s SentLen):" % (
      data["f32"]["tok"].get(layers[0], {}).get("ntest", "?") if layers else "?",
      data["f32"]["bshift"].get(layers[0], {}).get("ntest", "?") if layers else "?",
      data["f32"]["sentlen"].get(layers[0], {}).get("ntest", "?") if layers else "?"))
print()
print("| layer | " + " | ".join(m[2] for m in metrics) + " |")
print("|---|" + "--:|" * len(metrics))
worst = {m[2]: {"f16": 0.0, "bf16": 0.0} for m in metrics}
for L in layers:
    cells = []
    for w, k, name in metrics:
        a = val(data["f32"][w].get(L, {}), k)
        if a is None:
            cells.append("–"); continue
        ds = []
        for t in ("f16", "bf16"):
            b = val(data[t][w].get(L, {}), k)
            if b is None:
                ds.append("?"); continue
            d = b - a
            worst[name][t] = max(worst[name][t], abs(d))
            ds.append(("%+.4f" if k in ("dspr",) else "%+.2f") % d)
        cells.append(("%.4f" if k == "dspr" else "%.2f") % a + " (" + " / ".join(ds) + ")")
    print("| L%s | " % L + " | ".join(cells) + " |")
print()
seed2 = js("f32", "sp2")
if seed2:
    spread = {k: max(abs(seed2[L][k] - data["f32"]["sp"][L][k]) for L in layers) for k in ("uuas", "dspr", "root_acc")}
    print("For scale, f32 with --probe-seed 2 (its own 80/10/10 re-split) against seed 1, largest |difference|")
    print("over the layers: UUAS %.2f, DSpr %.4f, root %.2f." % (spread["uuas"], spread["dspr"], spread["root_acc"]))
    print()
print("Largest |difference| over the 7 layers: " + "; ".join("%s f16 %s, bf16 %s" % (
      n, ("%.4f" if n == "DSpr" else "%.2f") % worst[n]["f16"], ("%.4f" if n == "DSpr" else "%.2f") % worst[n]["bf16"])
      for n in worst) + ".")
PY
