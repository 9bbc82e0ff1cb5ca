# t3180-structprobe-threads-kernels.sh — trained structural probes: the same stored bits for any --threads and SP_GEMM_KERNEL
# tier: fast
# Issue 26 item 1: `structprobe --run R` trains on synprobe's own GEMM (common/gemm.h) and its
# threads, so the figures and the training record it stores are the same bytes with --threads 1
# and 2 and under every kernel this CPU runs (avx512, avx2, c), as the encoder's vectors are.
# What may differ between the runs is only what says how it ran: the manifest's timestamp,
# command line and the threads option. Also: the option's bounds, and that it is in --help.
. tests/cli/lib.sh
$PY - demo/demo.conllu $TMP <<'P'
import sys
sents = open(sys.argv[1], encoding="utf-8").read().strip("\n").split("\n\n")
cut = {"train": sents[:22], "dev": sents[22:27], "test": sents[27:]}
for k, v in cut.items():
    open("%s/demo-ud-%s.conllu" % (sys.argv[2], k), "w", encoding="utf-8").write("\n\n".join(v) + "\n\n")
P
DB=$TMP/s.db
for s in train dev test; do $SP ingest --db $DB --corpus ud --split $s $TMP/demo-ud-$s.conllu >/dev/null 2>&1; done
$SP encode --db $DB --corpus ud --encoder encoder/configs/san.json --run san --token-vectors --quiet >/dev/null 2>&1
# the stored row without what says how it ran
strip() {
    sqlite3 $DB "select result from tree_eval where eval_id = (select max(eval_id) from tree_eval)" | $PY -c "
import json, sys
r = json.load(sys.stdin)
m = r['manifest']
for k in ('timestamp', 'command'): m.pop(k, None)
m['options'].pop('threads', None)
print(json.dumps(r, sort_keys=True))"
}
n=0
# --threads 2: the distance and the depth probe side by side, one thread each; 4: two each, the
# products split
for kn in avx512 avx2 c; do
    for th in 1 2 4; do
        SP_GEMM_KERNEL=$kn $SP structprobe --db $DB --corpus ud --run san --rank 64 --max-epochs 8 --threads $th --json \
            >$TMP/o-$kn-$th.json 2>$TMP/e-$kn-$th && rc=0 || rc=$?
        expect_eq "SP_GEMM_KERNEL=$kn --threads $th: exit 0" "$rc" 0
        strip >$TMP/r-$kn-$th.json
        n=$((n + 1))
    done
done
check "the stored training record is there (distance and depth probe, epochs)" $PY -c "
import json; t = json.load(open('$TMP/r-c-1.json'))['manifest']['source']['training']
assert t['distance']['epochs'] >= 1 and t['depth']['epochs'] >= 1 and t['distance']['rank'] == 64, t"
for kn in avx512 avx2 c; do
    for th in 1 2 4; do
        [ "$kn-$th" = c-1 ] && continue
        check "SP_GEMM_KERNEL=$kn --threads $th: printed figures byte for byte those of c, 1 thread" cmp -s $TMP/o-$kn-$th.json $TMP/o-c-1.json
        check "SP_GEMM_KERNEL=$kn --threads $th: stored row byte for byte (less timestamp, command, threads)" \
            cmp -s $TMP/r-$kn-$th.json $TMP/r-c-1.json
    done
done
expect_eq "the manifest records the threads" "$(sqlite3 $DB "select json_extract(result, '$.manifest.options.threads') from tree_eval where eval_id = (select max(eval_id) from tree_eval)")" 4
$SP structprobe --db $DB --corpus ud --run san --threads 0 >/dev/null 2>$TMP/e0 && rc=0 || rc=$?
check "--threads 0: usage error naming the option" sh -c "[ $rc = 2 ] && grep -q -- '--threads' $TMP/e0"
check "--help lists --threads" sh -c "$SP structprobe --help 2>&1 | grep -q -- '--threads K'"
done_testing
