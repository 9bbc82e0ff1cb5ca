# t2108-minilm-behaviour.sh — MiniLM's best layer beats its embeddings and random encoders on distance-probe UUAS
# tier: full
# Issue 13 item 9, behaviour: on the PTB sample, MiniLM's best layer has a higher distance-probe
# UUAS (Hewitt & Manning's trained distance probe, docs/spec/models.md M4, scored on the test partition)
# than its embedding layer L0, than the random-init encoders (SAN and MS-SAN, encoder/configs/,
# seeded random weights and embeddings; MS-SAN's attention has gold dependency distances as a
# prior) and than the linear baseline (predicted distance |i-j|).
# These are facts about the model to check, not numbers of ours: only the orderings are asserted;
# the figures are printed. To keep the test to a few minutes on 2 cores it runs on a subset: the
# first $T106_FILES (default 40) WSJ files of the sample (wsj_0001 .. wsj_0040: constituency and
# dependency trees), re-split 80/10/10 by sentence (seed 1), MiniLM layers 0, 2, 3, 4 and 6
# (the best layer is the best of these), probes of rank 64, at most 20 epochs; the trained probes
# are scored on the test partition (56 sentences), and so is the linear baseline they are compared
# with (each trained result carries it: `linear_baseline`); the `structprobe --baseline linear` row
# over every sentence of the subset (559) is printed beside. 2 minutes of CPU, under 4 minutes on
# 2 busy cores.
# The whole sample, every layer and full rank: contrib/jobs/ptb-minilm.job.json (docs/findings.md,
# "MiniLM layer by layer").
# Runs as a job, so it also exercises the "structprobes" section over layer runs. Needs the real
# model (make models) and ../shared/data; skips visibly.
. tests/cli/lib.sh
need_data
need_models
N=${T106_FILES:-40}
M=$(cd $MODELS/all-MiniLM-L6-v2 && pwd)
J=$TMP/j
mkdir -p $J/mrg $J/dp
for f in $(ls $DATA/ptb-sample/combined | sort | head -n $N); do
    b=${f%.mrg}
    ln -s "$(cd $DATA/ptb-sample && pwd)/combined/$f" $J/mrg/$f
    ln -s "$(cd $DATA/ptb-sample && pwd)/dependency/$b.dp" $J/dp/$b.dp
done
printf '{"kind": "bert", "model": "%s", "ptb_unescape": true}\n' "$M" >$J/minilm.json
cp encoder/configs/san.json encoder/configs/ms-san.json $J/
cat >$J/job.json <<'JOB'
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "ptb", "paths": ["mrg", "dp"]}],
 "encoders": [{"config": "minilm.json", "layers": [0, 2, 3, 4, 6], "inputs": ["ptb"], "token-vectors": true},
              {"config": "san.json", "inputs": ["ptb"], "token-vectors": true},
              {"config": "ms-san.json", "inputs": ["ptb"], "token-vectors": true}],
 "structprobes": [{"rank": 64, "max-epochs": 20}, {"baseline": "linear"}]}
JOB
$SP run --quiet $J/job.json >$TMP/out 2>&1 && rc=0 || rc=$?
[ "$rc" = 0 ] || tail -5 $TMP/out
expect_eq "the job runs (5 MiniLM layers, SAN, MS-SAN, 7 trained probes, the linear baseline): exit 0" "$rc" 0
sqlite3 -separator ' ' $J/out/s.db "select method, json_extract(result, '\$.uuas'), json_extract(result, '\$.dspr'),
    json_extract(result, '\$.root_acc'), json_extract(result, '\$.n_sentences'),
    ifnull(json_extract(result, '\$.linear_baseline.uuas'), '-') from tree_eval where method like 'structprobe:%'
    order by method" >$TMP/fig
echo "# distance-probe UUAS, DSpr, root accuracy, test sentences, linear UUAS on them ($N WSJ files):"
sed 's/^/#   /' $TMP/fig
uuas() { awk -v m="$1" '$1 == m { print $2 }' $TMP/fig; }
L0=$(uuas structprobe:trained:run=minilm-L0)
RAND=$(uuas structprobe:trained:run=ms-san)
SAN=$(uuas structprobe:trained:run=san)
LIN_ALL=$(uuas structprobe:linear)
BEST=$(grep 'run=minilm-L' $TMP/fig | sort -k2,2 -g | tail -1)
B=$(echo "$BEST" | awk '{ print $2 }')
LIN=$(echo "$BEST" | awk '{ print $6 }')
echo "# best MiniLM layer: $(echo "$BEST" | sed 's/.*run=//; s/ .*//') (UUAS $B)"
check "every figure is there (5 layers, SAN, MS-SAN, linear)" sh -c "[ $(wc -l <$TMP/fig) = 8 ] && [ -n '$L0' ] && [ -n '$SAN' ] && [ -n '$RAND' ] && [ -n '$LIN_ALL' ] && [ '$LIN' != - ]"
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
check "MiniLM's best layer ($B) > its embedding layer L0 ($L0)" gt "$B" "$L0"
check "MiniLM's best layer ($B) > random-init SAN ($SAN)" gt "$B" "$SAN"
check "MiniLM's best layer ($B) > random-init MS-SAN ($RAND)" gt "$B" "$RAND"
check "MiniLM's best layer ($B) > the linear baseline on the same test sentences ($LIN; on all $LIN_ALL)" gt "$B" "$LIN"
done_testing
