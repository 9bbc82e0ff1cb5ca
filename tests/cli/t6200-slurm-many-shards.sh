# t6200-slurm-many-shards.sh — `slurm --shards 10000` with a long store path writes a small final.sbatch that merges through `merge --from-list` (issue 40, item 7)
# tier: fast
# Before the fix final.sbatch named every shard store on merge's command line: 4.5 MB for 10,000
# shards and a ~200-character store path, past the kernel's argument limit and Slurm's 4 MB script
# limit. Now the shard stores go to DIR/shards.list, one a line, and final.sbatch runs
# `merge STORE --from-list DIR/shards.list`. The list's expected lines are built here from the
# documented naming (OUT/<store base>.shard-K-of-N<ext>); a real merge of 3 shards through a list
# must equal the merge of the same shards named on the command line; every bad line of a list is
# refused naming FILE:LINE, with no target store left behind.
. tests/cli/lib.sh
. tests/cli/shards.sh
SPA=$(cd "$(dirname "$SP")" && pwd)/$(basename "$SP")
long() { printf "%${2}s" "" | tr ' ' "$1"; }
L=$TMP/$(long p 70)/$(long q 70)/$(long r 40)          # store path: ~200 characters
mkdir -p "$L"; cp demo/demo.conllu "$L/"
echo '{"store": "out/the-store.v2.db", "out": "out", "corpora": [{"name": "d", "paths": ["demo.conllu"]}]}' >"$L/job.json"
rc=0; $SP slurm "$L/job.json" --shards 10000 --out $TMP/sl >$TMP/o 2>$TMP/e || rc=$?
expect_eq "slurm --shards 10000: exit 0" "$rc" 0
size=$(wc -c <$TMP/sl/final.sbatch)
check "final.sbatch is small ($size bytes; was 4.5 MB): under 8 KB" test "$size" -lt 8192
check "final.sbatch parses (sh -n)" sh -n $TMP/sl/final.sbatch
expect_eq "final.sbatch merges through the list" \
    "$(grep -c -F -- "merge '$L/out/the-store.v2.db' --from-list '$TMP/sl/shards.list' || exit \$?" $TMP/sl/final.sbatch)" 1
awk -v d="$L/out" 'BEGIN { for (k = 0; k < 10000; k++) printf "%s/the-store.v2.shard-%d-of-10000.db\n", d, k }' >$TMP/want.list
check "shards.list names the 10000 shard stores, one absolute path a line, in order" cmp -s $TMP/sl/shards.list $TMP/want.list
# the same with 3 shards, fewer than the list's: the script's size does not depend on N
$SP slurm "$L/job.json" --shards 3 --out $TMP/sm >/dev/null
expect_eq "final.sbatch for 3 shards has the same size as for 10000" "$(wc -c <$TMP/sm/final.sbatch)" "$size"

# ---- a real merge through a list equals a merge of the same shards named ----
J=$TMP/j; mkdir -p $J; cp demo/demo.conllu demo/demo.mrg $J/
echo '{"store": "out/s.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}]}' >$J/job.json
for k in 0 1 2; do $SP run --quiet --shard $k/3 $J/job.json >/dev/null 2>&1; done
O=$J/out
rc=0; $SP merge $TMP/named.db $O/s.shard-0-of-3.db $O/s.shard-1-of-3.db $O/s.shard-2-of-3.db >/dev/null 2>$TMP/e || rc=$?
expect_eq "merge of 3 shards named: exit 0" "$rc" 0
# the list: two absolute, one relative to the current folder through a symlink, out of order; no final newline
ln -s $O/s.shard-1-of-3.db $TMP/link-1.db
printf '%s\n%s\n%s' "$O/s.shard-2-of-3.db" "link-1.db" "$O/s.shard-0-of-3.db" >$TMP/three.list
rc=0; (cd $TMP && $SPA merge listed.db --from-list three.list) >$TMP/o 2>$TMP/e || rc=$?
expect_eq "merge --from-list of the same 3: exit 0" "$rc" 0
check "... it says the store holds 3 of 3 shards" grep -q 'holds 3 of 3 shards: 32 sentences' $TMP/o
expect_eq "... the store equals the named merge in every part" "$(same_parts $TMP/listed.db $TMP/named.db)" ""
# named and listed together: one shard named, two listed
printf '%s\n%s\n' "$O/s.shard-1-of-3.db" "$O/s.shard-2-of-3.db" >$TMP/two.list
rc=0; (cd $O && $SPA merge $TMP/mixed.db s.shard-0-of-3.db --from-list $TMP/two.list) >/dev/null 2>$TMP/e || rc=$?
expect_eq "one shard named (relative), two listed: exit 0" "$rc" 0
expect_eq "... equal to the named merge" "$(same_parts $TMP/mixed.db $TMP/named.db)" ""

# ---- bad lists: FILE:LINE, exit 1, no target left ----
bad() {
    desc=$1 want=$2
    rc=0; $SP merge $TMP/new.db --from-list $TMP/bad.list >/dev/null 2>$TMP/e || rc=$?
    expect_eq "$desc: exit 1" "$rc" 1
    check "... the message names $want" grep -qF -- "$want" $TMP/e
    check "... no target store written" test ! -e $TMP/new.db
}
printf '%s\n\n%s\n' "$O/s.shard-0-of-3.db" "$O/s.shard-1-of-3.db" >$TMP/bad.list
bad "an empty line" "$TMP/bad.list:2: an empty line"
printf '%s\r\n' "$O/s.shard-0-of-3.db" >$TMP/bad.list
bad "a DOS line end" "$TMP/bad.list:1: byte 0x0d"
printf '%s\n%s\n%s\n' "$O/s.shard-0-of-3.db" "$O/s.shard-1-of-3.db" "$O/no-such-shard.db" >$TMP/bad.list
bad "a missing store on line 3" "$TMP/bad.list:3: $O/no-such-shard.db: No such file"
printf '%s\n' "$O" >$TMP/bad.list
bad "a folder" "$TMP/bad.list:1: $O: not a regular file"
printf '%s\tx\n' "$O/s.shard-0-of-3.db" >$TMP/bad.list
bad "a tab in a path" "$TMP/bad.list:1: byte 0x09 at column $((${#O} + 19))"
: >$TMP/bad.list
bad "an empty list" "$TMP/bad.list: no shard store listed"
rc=0; $SP merge $TMP/new.db --from-list $TMP/none.list >/dev/null 2>$TMP/e || rc=$?
expect_eq "a list that does not exist: exit 1, named, no target" "$rc $(grep -c "$TMP/none.list" $TMP/e) $(test -e $TMP/new.db && echo made)" "1 1 "
cp $TMP/named.db $TMP/t.db; ln -s t.db $TMP/t-link.db
printf '%s\n' "$O/s.shard-0-of-3.db" "$TMP/t-link.db" >$TMP/bad.list
rc=0; $SP merge $TMP/t.db --from-list $TMP/bad.list >/dev/null 2>$TMP/e || rc=$?
expect_eq "the target listed (through a link): exit 1" "$rc" 1
check "... named with its line" grep -qF "$TMP/bad.list:2: $TMP/t-link.db is the target $TMP/t.db itself" $TMP/e
rc=0; $SP merge $TMP/new.db >/dev/null 2>&1 || rc=$?
expect_eq "neither shards nor a list: usage error (exit 2)" "$rc" 2
done_testing
