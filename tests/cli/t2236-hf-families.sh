# t2236-hf-families.sh — kind "hf": every encoder family's layers and attentions equal transformers' within 1e-5
# tier: fast
# Issue 36. tests/data/hf/FAMILY holds a tiny random model of each family that save_pretrained
# wrote (bert, roberta saved with its MLM head and "roberta." prefix, xlm-roberta, camembert,
# distilbert with learned and sinusoidal positions, electra's discriminator with embedding_size
# 24 != hidden 32 and its "electra." prefix, mpnet with its MLM head, "mpnet." prefix and a
# relative attention bias scaled to move the maps, albert's pre-training model: embedding_size 24,
# one shared layer run 3 times, gelu_new) and what transformers 4.40.2 computed on four id
# sequences (mpnet: five, the last 40 pieces long, for the logarithmic buckets) run as one padded
# batch with its attention mask (tests/reference/hf_family_fixtures.py,
# `make hf-fixtures`). The driver tests/tools/encoder_bert_run.c opens each folder by its
# config.json (enc_hf_open) and runs the same ids as one packed batch on the CPU: every layer's
# hidden states (0 = embeddings) and every head's attention within 1e-5. Then `synprobe encode`
# with {"kind": "hf"} on the demo corpus for the families whose folder has a vocab.txt (the
# tokenizer.json folders: t2238); a folder whose tokenizer.json is broken is refused, naming it; and
# the ALBERT/MPNet config values synprobe cannot honour (inner_group_num 2, groups that do not
# divide the layers, fewer than MPNet's 32 buckets, another activation) are each one line naming the key.
. tests/cli/lib.sh
need_numpy
DRV=${SP_BUILD:-build}/tools/encoder_bert_run
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$DRV" >/dev/null 2>&1 || true
fi
check "the driver $DRV is built" test -x "$DRV"

compare() {  # DIR N: the C outputs against transformers', 1e-5
    "$PY" - "$@" <<'PY'
import sys, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
wh = wa = 0.0
for s in range(n):
    h, c = np.load("%s/hidden_%d.npy" % (d, s)), np.load("%s/c_hidden_%d.npy" % (d, s))
    a, ca = np.load("%s/attn_%d.npy" % (d, s)), np.load("%s/c_attn_%d.npy" % (d, s))
    assert h.shape == c.shape and a.shape == ca.shape, (h.shape, c.shape, a.shape, ca.shape)
    wh, wa = max(wh, float(np.abs(h - c).max())), max(wa, float(np.abs(a - ca).max()))
print("# max |dh| %.3g, max |dattn| %.3g (tol 1e-5)" % (wh, wa))
sys.exit(0 if wh <= 1e-5 and wa <= 1e-5 else 1)
PY
}

H=tests/data/hf
for f in bert roberta xlm-roberta camembert distilbert distilbert-sin electra mpnet albert; do
    mkdir -p "$TMP/$f"
    cp "$H/$f"/ref/ids_*.npy "$H/$f"/ref/types_*.npy "$H/$f"/ref/hidden_*.npy "$H/$f"/ref/attn_*.npy "$TMP/$f/"
    ns=$(ls "$H/$f"/ref/ids_*.npy | wc -l)
    rc=0; "$DRV" "$H/$f" "$TMP/$f" 1 >"$TMP/$f.out" 2>&1 || rc=$?
    expect_eq "$f: the C forward runs on its $ns sentences" "$rc" 0
    check "$f: all layers' hidden states and attentions within 1e-5 of transformers" compare "$TMP/$f" "$ns"
done

# the CLI path: {"kind": "hf"} through encode (the folders with a vocab.txt)
DB=$TMP/d.db
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1
for f in bert distilbert electra mpnet albert; do
    printf '{"kind": "hf", "model": "%s"}\n' "$(pwd)/$H/$f" >"$TMP/$f.json"
    rc=0; $SP encode --db $DB --corpus demo --encoder "$TMP/$f.json" --run "$f" --layers all >"$TMP/enc-$f" 2>&1 || rc=$?
    expect_eq "encode with {\"kind\": \"hf\"} on $f, --layers all: exit 0" "$rc" 0
    check "... 32 sentences encoded, 32-dim" grep -q "32 encoded" "$TMP/enc-$f"
done
# kind "bert" on the same BertModel folder still works; on a RoBERTa folder it says what hf reads
printf '{"kind": "bert", "model": "%s"}\n' "$(pwd)/$H/bert" >"$TMP/b.json"
rc=0; $SP encode --db $DB --corpus demo --encoder "$TMP/b.json" --run kb >/dev/null 2>&1 || rc=$?
expect_eq "kind bert on the BertModel folder: exit 0" "$rc" 0
cp -r "$H/roberta" "$TMP/rob" && rm -rf "$TMP/rob/ref" && printf '{}\n' >"$TMP/rob/tokenizer.json"
cp -r "$TMP/rob" "$TMP/rob-v" && cp "$H/bert/vocab.txt" "$TMP/rob-v/"
printf '{"kind": "bert", "model": "%s"}\n' "$TMP/rob-v" >"$TMP/kb-rob.json"
rc=0; $SP encode --db $DB --corpus demo --encoder "$TMP/kb-rob.json" --run kr >/dev/null 2>"$TMP/e1" || rc=$?
check "kind bert on a RoBERTa folder: exit 1, points to kind hf" sh -c "[ $rc = 1 ] && grep -q 'model_type: \"roberta\" is not supported.*\"kind\": \"hf\" reads' $TMP/e1"
printf '{"kind": "hf", "model": "%s"}\n' "$TMP/rob" >"$TMP/hf-rob.json"
rc=0; $SP encode --db $DB --corpus demo --encoder "$TMP/hf-rob.json" --run hr >/dev/null 2>"$TMP/e2" || rc=$?
check "kind hf on a folder whose tokenizer.json is {}: exit 1, naming the file and its JSON path" \
    sh -c "[ $rc = 1 ] && grep -q 'rob/tokenizer.json: model: missing' $TMP/e2"
# MPNet's and ALBERT's config keys that synprobe cannot honour: one line naming the key
bad() {  # NAME FAMILY SED-EXPR: a copy of FAMILY's folder with its config.json edited; rc, lines
    rm -rf "$TMP/$1"; cp -r "$H/$2" "$TMP/$1"; rm -rf "$TMP/$1/ref"; sed -i "$3" "$TMP/$1/config.json"
    printf '{"kind": "hf", "model": "%s"}\n' "$TMP/$1" >"$TMP/$1.json"
    rc=0; $SP encode --device cpu --db $DB --corpus demo --encoder "$TMP/$1.json" --run "$1" >/dev/null 2>"$TMP/$1.err" || rc=$?
    lines=$(grep -c . "$TMP/$1.err" || true)
}
bad inner albert 's/"inner_group_num": 1/"inner_group_num": 2/'
check "albert, inner_group_num 2: exit 1, one line naming it" \
    sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'inner_group_num: 2 is not supported' $TMP/inner.err"
bad groups albert 's/"num_hidden_groups": 1/"num_hidden_groups": 2/'
check "albert, 2 groups for 3 layers: exit 1, one line naming it" \
    sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'num_hidden_groups: 2 does not divide num_hidden_layers 3' $TMP/groups.err"
bad buckets mpnet 's/"relative_attention_num_buckets": 32/"relative_attention_num_buckets": 16/'
check "mpnet, 16 relative buckets (MPNet indexes 32): exit 1, one line naming the key" \
    sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'relative_attention_num_buckets: expected an integer >= 32' $TMP/buckets.err"
bad act albert 's/"gelu_new"/"gelu_fast"/'
check "albert, hidden_act gelu_fast: exit 1, one line naming it" \
    sh -c "[ $rc = 1 ] && [ $lines = 1 ] && grep -q 'hidden_act: \"gelu_fast\" is not supported' $TMP/act.err"
done_testing
