# t1011-sql.sh — the SQL extension in the sqlite3 shell: the queries of docs/sql.md against Python
# tier: fast
# The SQL extension in the stock sqlite3 shell: the queries of docs/sql.md, checked against an
# independent Python computation straight from the treebank files.
. tests/cli/lib.sh
need_data
DB=$TMP/sql.db
$SP ingest --db $DB --corpus ptb --quiet $DATA/ptb-sample/combined $DATA/ptb-sample/dependency >/dev/null
$SP ingest --db $DB --corpus ewt --quiet $DATA/ud-ewt/en_ewt-ud-dev.conllu >/dev/null
sql() { sqlite3 -batch $DB ".load $SQLEXT" "$1"; }

# Python reference: heads from the .dp files, depth by walking head chains
$PY - $DATA/ptb-sample/dependency > $TMP/ref.txt <<'PYEOF'
import os, sys
d = sys.argv[1]
sents = []
for f in sorted(os.listdir(d)):
    stem = f[:-3]; k = 0; cur = []
    for line in open(os.path.join(d, f)).read().split("\n") + [""]:
        if line.strip() == "":
            if cur: k += 1; sents.append((f"{stem}.{k}", cur)); cur = []
            continue
        w, pos, h = line.split("\t")[:3]; cur.append(int(h))
def depth(heads, i):
    n = 0
    while heads[i] != 0: i = heads[i] - 1; n += 1
    return n
deep = sorted(((max(depth(h, i) for i in range(len(h))), -idx, sid) for idx, (sid, h) in enumerate(sents)), reverse=True)[:3]
print("deepest", " ".join(f"{sid}:{md}" for md, _, sid in deep))
print("longarcs", sum(1 for _, h in sents for i, x in enumerate(h) if x != 0 and abs(x - 1 - i) >= 5))
PYEOF
expect_eq "deepest sentences (sp_depth over all words) match Python" \
    "deepest $(sql "select group_concat(sent_id || ':' || md, ' ') from (select s.sent_id, (select max(sp_depth(d.depth, value)) from generate_series(0, d.n - 1)) md from sentence s join dep_structure d using (sentence_id) join corpus c using (corpus_id) where c.name = 'ptb' order by md desc, s.sentence_id limit 3)")" \
    "$(grep deepest $TMP/ref.txt)"
# the same question through the max_depth column
expect_eq "deepest sentences (max_depth column) match Python" \
    "deepest $(sql "select group_concat(sent_id || ':' || max_depth, ' ') from (select s.sent_id, d.max_depth from sentence s join dep_structure d using (sentence_id) join corpus c using (corpus_id) where c.name = 'ptb' order by d.max_depth desc, s.sentence_id limit 3)")" \
    "$(grep deepest $TMP/ref.txt)"
expect_eq "long arcs (tree distance 1, word distance >= 5) through sp_pairs match Python" \
    "longarcs $(sql "select count(*) from sentence s join corpus c using (corpus_id) join dep_structure d using (sentence_id), sp_pairs(d.distance, d.ancestors, d.rel_pos) p where c.name = 'ptb' and p.i < p.j and p.tree_distance = 1 and p.word_distance >= 5")" \
    "$(grep longarcs $TMP/ref.txt)"

# mean dependency distance by UPOS on EWT, reference from the CoNLL-U file itself
$PY - $DATA/ud-ewt/en_ewt-ud-dev.conllu > $TMP/upos_ref.txt <<'PYEOF'
import sys, collections
tot = collections.defaultdict(lambda: [0, 0])
for line in open(sys.argv[1], encoding="utf-8"):
    f = line.rstrip("\n").split("\t")
    if len(f) != 10 or not f[0].isdigit() or f[6] == "0": continue
    t = tot[f[3]]; t[0] += abs(int(f[6]) - int(f[0])); t[1] += 1
for u in sorted(tot, key=lambda u: (-tot[u][1], u))[:6]:
    print(f"{u}|{tot[u][0] / tot[u][1]:.4f}|{tot[u][1]}")
PYEOF
sql "select upos, printf('%.4f', avg(abs(t.head - t.i))), count(*) from token t join sentence s using (sentence_id) join corpus c using (corpus_id) join dep_structure d using (sentence_id) where c.name = 'ewt' and t.head >= 0 group by upos order by 3 desc, 1 limit 6" > $TMP/upos.txt
check "mean dependency distance by UPOS matches Python" cmp -s $TMP/upos.txt $TMP/upos_ref.txt

# TV-6 cells (docs/spec/structures.md §3.7) through the scalar functions (wsj_0001.2)
W="from sentence s join dep_structure d using (sentence_id) where s.sent_id = 'wsj_0001.2'"
expect_eq "sp_distance row of 'group' (TV-6)" \
    "$(sql "select group_concat(sp_distance(d.distance, 11, j), ',') from (select 0 j union all select 1 union all select 2 union all select 3 union all select 4 union all select 5 union all select 6 union all select 7 union all select 8 union all select 9 union all select 10 union all select 11 union all select 12) join sentence s join dep_structure d using (sentence_id) where s.sent_id = 'wsj_0001.2'")" \
    "5,4,3,2,1,2,1,1,1,1,1,0,4"
expect_eq "sp_is_ancestor SDOI row of 'group' = {2,3,4,11} (TV-6)" \
    "$(sql "select group_concat(p.j, ',') from (select d.* $W) d, sp_pairs(d.distance, d.ancestors) p where p.i = 11 and p.is_ancestor")" "2,3,4"
expect_eq "sp_depth / sp_rel_pos / sp_phrase / sp_n" \
    "$(sql "select sp_depth(d.depth, 5), sp_rel_pos(d.rel_pos, 3, 0), sp_rel_pos(d.rel_pos, 0, 3), sp_n(d.distance), (select sp_phrase(k.phrases, 2, 3) from const_structure k where k.sentence_id = s.sentence_id) $W")" \
    "5|-3|3|13|2"
expect_eq "bad arguments give NULL, not a crash" "$(sql "select coalesce(sp_distance(x'00', 0, 1), 'null'), coalesce(sp_depth(d.depth, 99), 'null') $W")" "null|null"
done_testing
