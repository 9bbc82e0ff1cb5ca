# t2238-hf-tokenizer-json.sh — kind "hf" folders with only tokenizer.json give transformers' pieces and word vectors
# tier: fast
# Issue 36. tests/data/hf/{roberta,xlm-roberta,camembert} carry a tokenizer trained on EWT (a
# byte-level BPE saved as roberta-base's, add_prefix_space false; a Unigram with Metaspace) and
# what transformers 4.40.2 gives in pre-tokenized mode (is_split_into_words=True, add_prefix_space=
# True where RobertaTokenizerFast demands it) on tests/data/hf/ud-sample.conllu (10 EWT dev
# sentences, one too long for the model's 62 positions, and Russian and Chinese ones): the piece
# ids, and every layer's word vectors (mean of the pieces) and sentence vectors (mean of the
# words) (tests/reference/hf_family_fixtures.py, `make hf-fixtures`). Checked: the folder's
# tokenizer as kind hf opens it (tests/tools/encoder_hf_pieces.c) gives identical ids and spans;
# `synprobe encode --layers all --token-vectors` and a job file of the MiniLM jobs' shape give
# the same vectors within 1e-5 (synprobe export) and skip the too-long sentence; the prefix-space
# rule follows the tokenizer class (tokenizer_config.json, else config.json's model_type); the
# fingerprint covers tokenizer.json, tokenizer_config.json and a sharded checkpoint's shards.
. tests/cli/lib.sh
need_numpy
DRV=${SP_BUILD:-build}/tools/encoder_hf_pieces
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$DRV" >/dev/null 2>&1 || true
fi
check "the driver $DRV is built" test -x "$DRV"
H=tests/data/hf
# the sample's words, one sentence a line, TAB-separated
"$PY" - "$H/ud-sample.conllu" >"$TMP/words.tsv" <<'PY'
import sys
cur = []
for l in open(sys.argv[1], encoding="utf-8"):
    l = l.rstrip("\n")
    if not l:
        if cur: print("\t".join(cur)); cur = []
    elif not l.startswith("#") and l.split("\t")[0].isdigit():
        cur.append(l.split("\t")[1])
PY
expect_eq "the sample: 16 sentences" "$(wc -l <"$TMP/words.tsv" | tr -d ' ')" 16

# compare RUN-OR-FILES REFDIR: export's tokens and vectors (layers axis second) against words.npy, sents.npy
compare() {
    "$PY" - "$@" <<'PY'
import sys, numpy as np
w, v, ref = np.load(sys.argv[1]), np.load(sys.argv[2]), sys.argv[3]
rw, rv = np.load(ref + "/words.npy"), np.load(ref + "/sents.npy")
assert w.shape == rw.shape and v.shape == rv.shape, (w.shape, rw.shape, v.shape, rv.shape)
dw, dv = float(np.abs(w - rw).max()), float(np.abs(v - rv).max())
print("# max |dword| %.3g, max |dsent| %.3g (tol 1e-5)" % (dw, dv))
sys.exit(0 if dw <= 1e-5 and dv <= 1e-5 else 1)
PY
}

DB=$TMP/d.db
$SP ingest --db $DB --corpus ud "$H/ud-sample.conllu" >/dev/null 2>&1
for f in roberta xlm-roberta camembert; do
    rc=0; "$DRV" "$H/$f" <"$TMP/words.tsv" >"$TMP/$f.pieces" 2>"$TMP/$f.what" || rc=$?
    expect_eq "$f: the folder's tokenizer runs on the sample" "$rc" 0
    check "$f: piece ids, word spans and the too-long flag identical to transformers'" cmp -s "$TMP/$f.pieces" "$H/$f/ref/pieces.txt"
    printf '{"kind": "hf", "model": "%s", "word_pool": "mean", "sent_pool": "mean"}\n' "$(pwd)/$H/$f" >"$TMP/$f.json"
    rc=0; $SP encode --db $DB --corpus ud --encoder "$TMP/$f.json" --run "$f" --layers all --token-vectors \
        >"$TMP/enc-$f" 2>&1 || rc=$?
    expect_eq "$f: encode --layers all --token-vectors: exit 0" "$rc" 0
    check "$f: 15 sentences encoded, the one of more than 62 pieces skipped" \
        grep -q "run $f-L2 (hf on cpu, 32-dim): 0 cached, 15 encoded, 1 skipped" "$TMP/enc-$f"
    $SP export --db $DB --corpus ud --run "$f" --what tokens --layers all --out "$TMP/$f-w.npy" 2>/dev/null
    $SP export --db $DB --corpus ud --run "$f" --what vectors --layers all --out "$TMP/$f-v.npy" 2>/dev/null
    check "$f: word and sentence vectors of layers 0..2 within 1e-5 of transformers" \
        compare "$TMP/$f-w.npy" "$TMP/$f-v.npy" "$H/$f/ref"
done
check "roberta: the tokenizer is read as RobertaTokenizer with add_prefix_space=True" \
    grep -q "tokenizer.json (RobertaTokenizer, add_prefix_space=True)" "$TMP/roberta.what"
check "xlm-roberta: as XLMRobertaTokenizer, Metaspace as the file says" grep -q "tokenizer.json (XLMRobertaTokenizer)$" "$TMP/xlm-roberta.what"

# a job file of the MiniLM jobs' shape (t2104, contrib/jobs/ewt-minilm.job.json) on both folders
mkdir -p "$TMP/j"
cp "$H/ud-sample.conllu" "$TMP/roberta.json" "$TMP/xlm-roberta.json" "$TMP/j/"
cat >"$TMP/j/job.json" <<'J'
{"store": "out/s.db", "out": "out", "corpora": [{"name": "ud", "paths": ["ud-sample.conllu"]}],
 "encoders": [{"config": "roberta.json", "run": "roberta", "layers": "all", "inputs": ["ud"], "token-vectors": true, "attention": 1},
              {"config": "xlm-roberta.json", "run": "xlmr", "layers": "all", "inputs": ["ud"], "token-vectors": true, "attention": 1}],
 "trees": [{"dependency": true}], "tokprobes": [{"task": "upos", "seed": 1}],
 "reports": [{"format": "json", "out": "r.json"}]}
J
rc=0; $SP run --quiet "$TMP/j/job.json" >"$TMP/job.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || tail -5 "$TMP/job.out"
expect_eq "the job runs" "$rc" 0
for f in roberta:roberta xlmr:xlm-roberta; do
    r=${f%%:*}; d=${f#*:}
    $SP export --db "$TMP/j/out/s.db" --corpus ud --run "$r" --what tokens --layers all --out "$TMP/j-$r-w.npy" 2>/dev/null
    $SP export --db "$TMP/j/out/s.db" --corpus ud --run "$r" --what vectors --layers all --out "$TMP/j-$r-v.npy" 2>/dev/null
    check "job: $r's vectors of every layer within 1e-5 of transformers" compare "$TMP/j-$r-w.npy" "$TMP/j-$r-v.npy" "$H/$d/ref"
done
check "job: the report has the UPOS probe and the attention trees of each layer of both" "$PY" -c "
import json, sys; r = json.load(open('$TMP/j/out/r.json'))
want = set('%s-L%d' % (n, k) for n in ('roberta', 'xlmr') for k in range(3))
sys.exit(0 if set(x['run'] for x in r['probe_results']) == want and set(x['run'] for x in r['tree_evals']) == want else 1)"

# the prefix-space rule: the class of tokenizer_config.json, else config.json's model_type
R=$TMP/rob
cp -r "$H/roberta" "$R" && rm -rf "$R/ref" && rm "$R/tokenizer_config.json"
"$DRV" "$R" <"$TMP/words.tsv" >"$TMP/rob.pieces" 2>"$TMP/rob.what"
check "roberta without tokenizer_config.json: its model_type's RobertaTokenizerFast, the same ids" \
    sh -c "cmp -s $TMP/rob.pieces $H/roberta/ref/pieces.txt && grep -q 'RobertaTokenizerFast, add_prefix_space=True' $TMP/rob.what"
printf '{"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 1000000000000000019884624838656}\n' >"$R/tokenizer_config.json"
"$DRV" "$R" <"$TMP/words.tsv" >"$TMP/gen.pieces" 2>"$TMP/gen.what"
check "as PreTrainedTokenizerFast: the file's add_prefix_space (false), so other ids" \
    sh -c "! cmp -s $TMP/gen.pieces $H/roberta/ref/pieces.txt && grep -q '(PreTrainedTokenizerFast)$' $TMP/gen.what"
"$PY" - "$R/tokenizer.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [j["pre_tokenizer"]]}
json.dump(j, open(sys.argv[1], "w"))
PY
rm "$R/tokenizer_config.json"
"$DRV" "$R" <"$TMP/words.tsv" >"$TMP/seq.pieces" 2>/dev/null
check "RobertaTokenizerFast with its ByteLevel inside a Sequence: the file's false, as transformers leaves it" \
    cmp -s "$TMP/seq.pieces" "$TMP/gen.pieces"
printf '{"tokenizer_class": 3}\n' >"$R/tokenizer_config.json"
rc=0; "$DRV" "$R" <"$TMP/words.tsv" >/dev/null 2>"$TMP/bad.err" || rc=$?
check "tokenizer_class not a string: exit 1, naming the file and the key" \
    sh -c "[ $rc = 1 ] && grep -q 'rob/tokenizer_config.json: tokenizer_class: expected a string' $TMP/bad.err"
printf '{"kind": "hf", "model": "%s", "tokenizer_mode": "wordpiece-only"}\n' "$(pwd)/$H/roberta" >"$TMP/wp.json"
rc=0; $SP encode --db $DB --corpus ud --encoder "$TMP/wp.json" --run wp >/dev/null 2>"$TMP/wp.err" || rc=$?
check "tokenizer_mode wordpiece-only with tokenizer.json: refused, saying why" \
    sh -c "[ $rc != 0 ] && grep -q 'wordpiece-only\" applies to a vocab.txt tokenizer' $TMP/wp.err"

# the fingerprint: tokenizer_config.json and a sharded checkpoint's shards are part of the weights
X=$TMP/xlmr
cp -r "$H/xlm-roberta" "$X" && rm -rf "$X/ref"
printf '{"kind": "hf", "model": "%s"}\n' "$X" >"$TMP/x.json"
$SP encode --db $DB --corpus ud --encoder "$TMP/x.json" --run x1 >/dev/null 2>&1
$SP encode --db $DB --corpus ud --encoder "$TMP/x.json" --run x2 >"$TMP/x2" 2>&1
check "the same folder again: all cached" grep -q "15 cached, 0 encoded" "$TMP/x2"
"$PY" - "$X/tokenizer_config.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["comment"] = "edited"; json.dump(j, open(sys.argv[1], "w"))
PY
$SP encode --db $DB --corpus ud --encoder "$TMP/x.json" --run x3 >"$TMP/x3" 2>&1
check "tokenizer_config.json edited: another encoder (nothing cached)" grep -q "0 cached, 15 encoded" "$TMP/x3"
"$PY" - "$X" <<'PY'
import sys, json, struct, os
d = sys.argv[1]
with open(d + "/model.safetensors", "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]; hdr = json.loads(f.read(n)); data = f.read()
hdr.pop("__metadata__", None)
names = sorted(hdr); parts = [names[: len(names) // 2], names[len(names) // 2 :]]; wm = {}
for k, part in enumerate(parts):
    fn = "model-%05d-of-00002.safetensors" % (k + 1); h, off, blobs = {}, 0, []
    for nm in part:
        b0, b1 = hdr[nm]["data_offsets"]
        h[nm] = {"dtype": hdr[nm]["dtype"], "shape": hdr[nm]["shape"], "data_offsets": [off, off + b1 - b0]}
        off += b1 - b0; blobs.append(data[b0:b1]); wm[nm] = fn
    j = json.dumps(h).encode(); j += b" " * ((8 - len(j) % 8) % 8)
    with open(d + "/" + fn, "wb") as f:
        f.write(struct.pack("<Q", len(j))); f.write(j); [f.write(b) for b in blobs]
json.dump({"metadata": {"total_size": len(data)}, "weight_map": wm}, open(d + "/model.safetensors.index.json", "w"))
os.remove(d + "/model.safetensors")
PY
rc=0; $SP encode --db $DB --corpus ud --encoder "$TMP/x.json" --run xs --layers all --token-vectors >"$TMP/xs" 2>&1 || rc=$?
expect_eq "xlm-roberta as two shards and an index: encode exit 0" "$rc" 0
$SP export --db $DB --corpus ud --run xs --what tokens --layers all --out "$TMP/xs-w.npy" 2>/dev/null
$SP export --db $DB --corpus ud --run xs --what vectors --layers all --out "$TMP/xs-v.npy" 2>/dev/null
check "... the same vectors within 1e-5 of transformers" compare "$TMP/xs-w.npy" "$TMP/xs-v.npy" "$H/xlm-roberta/ref"
$SP encode --db $DB --corpus ud --encoder "$TMP/x.json" --run xs2 --layers all >"$TMP/xs2" 2>&1
check "... again: all cached" grep -q "xs2-L2 (hf on cpu, 32-dim): 15 cached, 0 encoded" "$TMP/xs2"
"$PY" - "$X/model-00002-of-00002.safetensors" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[-1] ^= 1; open(sys.argv[1], "wb").write(bytes(b))
PY
$SP encode --db $DB --corpus ud --encoder "$TMP/x.json" --run xs3 --layers all >"$TMP/xs3" 2>&1
check "... a byte of the second shard changed: another encoder (nothing cached)" grep -q "xs3-L2 (hf on cpu, 32-dim): 0 cached, 15 encoded" "$TMP/xs3"
done_testing
