# t3151-store-dtype-probes.sh — f16/bf16 runs through probe, tokprobe and structprobe give f32's results within half precision's tolerance
# tier: fast
# Issue 24 item 7: encode -> probe round trip on UD EWT dev with a small random-init SAN (64-dim,
# cheap enough for the fast tier), the same corpus and tasks stored as f32, f16 and bf16.
# Tolerances. A stored value is within half an ulp of the float (relative 2^-11 for f16, 2^-8 for
# bf16; t2150 checks it), so a fitted logistic regression's decision changes only for an item
# whose margin lies within that perturbation of zero: a sentence probe may differ by at most one
# test item (100/n points), the token probe (2,315 test tokens) by 0.5 points. The structural
# probes are trained by SGD with early stopping, which carries any difference in its inputs into
# a different fit: their tolerance is the spread one other probe seed gives on f32 vectors
# (bench/RESULTS.md "storage", MiniLM on EWT dev: UUAS up to 2.9 points, DSpr 0.011, root 5),
# so UUAS 3 points, DSpr and NSpr 0.015, root accuracy 5 points (10 of 200 sentences): f16 and
# bf16 must not move them more than re-seeding does.
. tests/cli/lib.sh
need_numpy
need_data
DB=$TMP/t.db
CFG=$TMP/tiny.json
cat >$CFG <<'JSON'
{"kind": "san", "d_model": 64, "heads": 4, "layers": 2, "d_ff": 128, "norm": "post", "activation": "relu",
 "ln_eps": 1e-6, "position": "seq", "emb_scale": true, "rel_pos": "none", "pooling": "mean", "seed": 1}
JSON
$SP ingest --db $DB --corpus ewt --split dev $DATA/ud-ewt/en_ewt-ud-dev.conllu --quiet >/dev/null 2>&1
$SP tasks build --db $DB --corpus ewt --tasks SentLen,Tense --split resplit --quiet >/dev/null 2>&1
for t in f32 f16 bf16; do
    rc=0
    $SP encode --db $DB --corpus ewt --encoder $CFG --run c-$t --token-vectors --store-dtype $t --quiet || rc=$?
    $SP encode --db $DB --task SentLen,Tense --encoder $CFG --run s-$t --store-dtype $t --quiet || rc=$?
    expect_eq "$t: corpus and task runs encoded" "$rc" 0
    for k in SentLen Tense; do
        $SP probe --db $DB --task $k --run s-$t-$k --json --quiet --no-save >$TMP/p-$t-$k.json
    done
    $SP tokprobe --db $DB --corpus ewt --run c-$t --json --quiet --no-save >$TMP/tok-$t.json
    $SP structprobe --db $DB --corpus ewt --run c-$t --json --quiet --no-save >$TMP/sp-$t.json
done
for t in f16 bf16; do
    check "$t: sentence probes within one test item of f32" $PY -c "
import json
for k in ('SentLen', 'Tense'):
    a, b = (json.load(open('$TMP/p-%s-%s.json' % (x, k))) for x in ('f32', '$t'))
    n = a['ntest']
    assert n == b['ntest'] and n > 0, (n, b['ntest'])
    assert abs(a['acc'] - b['acc']) <= 100.0 / n + 1e-9, (k, a['acc'], b['acc'], n)"
    check "$t: token probe (UPOS) within 0.5 points of f32, control task too" $PY -c "
import json
a, b = (json.load(open('$TMP/tok-%s.json' % x)) for x in ('f32', '$t'))
assert a['ntest'] == b['ntest'] > 1000, (a['ntest'], b['ntest'])
assert abs(a['acc'] - b['acc']) <= 0.5 and abs(a['control_acc'] - b['control_acc']) <= 0.5, (a, b)"
    check "$t: structural probe within a probe seed's spread of f32: UUAS 3 points, DSpr/NSpr 0.015, root 5" $PY -c "
import json
a, b = (json.load(open('$TMP/sp-%s.json' % x)) for x in ('f32', '$t'))
assert a['n_sentences'] == b['n_sentences'] == 200, (a['n_sentences'], b['n_sentences'])
assert abs(a['uuas'] - b['uuas']) <= 3.0, (a['uuas'], b['uuas'])
assert abs(a['dspr'] - b['dspr']) <= 0.015 and abs(a['nspr'] - b['nspr']) <= 0.015, (a, b)
assert abs(a['root_acc'] - b['root_acc']) <= 5.0, (a['root_acc'], b['root_acc'])"
done
expect_eq "the f16 and bf16 token vectors take half the f32 bytes" \
    "$(sqlite3 $DB "select group_concat(b, ' ') from (select sum(length(v.tokens)) * (e.store_dtype = 'f32') + 2 * sum(length(v.tokens)) * (e.store_dtype <> 'f32') b from vector v join encoder e using (encoder_id) where v.tokens is not null group by e.encoder_id order by e.encoder_id)")" \
    "$(sqlite3 $DB "select b || ' ' || b || ' ' || b from (select sum(length(tokens)) b from vector where encoder_id = 1)")"
done_testing
