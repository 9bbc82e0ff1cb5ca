# tests/cli/shards.sh — sourced by t6091-shards.sh and t6093-slurm.sh (after lib.sh): the t6087 demo job
# and a dump of everything a job's result is made of, to compare a sharded run with a one-machine run.
mkjob() {  # folder: the demo corpus, the SAN configs and a job over them (the job of t6087)
    mkdir -p $1
    cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json encoder/configs/ms-san.json $1/
    cat >$1/job.json <<'J'
{
  "store": "out/store.db",
  "out": "out",
  "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"], "strict": true}],
  "tasks": [{"tasks": ["Tense", "SubjNum", "SOMO"], "seed": 1, "split": "resplit"}],
  "encoders": [{"config": "san.json", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "attention": 0},
               {"config": "ms-san.json", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "attention": 0}],
  "probes": [{"classifier": ["logreg", "mlp"], "seed": [1, 2], "preset": "senteval-fast"}],
  "trees": [{}, {"baseline": "right"}],
  "reports": [{"format": "json", "out": "results.json"}]
}
J
}
# dump_part DB PART: one part of a store, in a canonical order, ids included (they must agree too)
dump_part() {
    case $2 in
    sentences) q="select sentence_id, c.name, sent_id, doc, position, split, text, comments, n_words, dep_source_id, dep_line,
                 const_source_id, const_line, warn, warnings from sentence join corpus c using (corpus_id) order by sentence_id" ;;
    tokens) q="select sentence_id, i, form, lemma, upos, xpos, feats, head, deprel, deps, misc from token order by 1, 2" ;;
    structures) q="select sentence_id, n, root, max_depth, projective, hex(depth), hex(distance), hex(ancestors), hex(rel_pos)
                 from dep_structure order by 1; select sentence_id, tree, tree_depth, top_const, phrase_levels, hex(phrases),
                 n_phrases, hex(spans) from const_structure order by 1" ;;
    sources) q="select source_id, corpus_id, replace(path, rtrim(path, replace(path, '/', '')), ''), stem, sha256, format, mode, n_sentences, n_rejected, n_words from source order by 1;
                select source_id, line, position, sent_id, reason from quarantine order by quarantine_id" ;;
    vectors) q="select e.fingerprint, v.text_hash, v.dim, hex(v.data), hex(v.tokens), v.n_tokens from vector v
                join encoder e using (encoder_id) order by 1, 2" ;;
    attention) q="select e.fingerprint, a.text_hash, a.layer, a.n, hex(a.data) from attention a join encoder e using (encoder_id)
                order by 1, 2, 3" ;;
    runs) q="select r.name, e.fingerprint, i.ordinal, i.sentence_id, i.task_ordinal, i.text_hash from run_item i
                join run r using (run_id) join encoder e using (encoder_id) order by 1, 3" ;;
    tasks) q="select t.name, t.kind, t.seed, i.ordinal, i.split, i.label, i.text, i.sentence_id from task_item i
                join task t using (task_id) order by 1, 4" ;;
    probes) q="select run_id, task_name, classifier, seed, dev_acc, test_acc, json_extract(result, '\$.manifest.data.sha256'),
                json_remove(result, '\$.manifest', '\$.seconds', '\$.db') from probe_result order by 1, 2, 3, 4" ;;
    trees) q="select run_id, method, json_remove(result, '\$.manifest', '\$.seconds') from tree_eval order by 1, 2" ;;
    esac
    sqlite3 "$1" "$q" | sed -E 's/"seconds": ?[0-9.e+-]+,?//g'   # times: the only part allowed to differ
}
PARTS="sentences tokens structures sources vectors attention runs tasks probes trees"
# (sources: the file's base name, not its path: the jobs compared sit in different folders)
# same_parts A B: the parts that differ between two stores ("" when none), each with its row count
same_parts() {
    for p in $PARTS; do
        dump_part $1 $p >$TMP/dump-a; dump_part $2 $p >$TMP/dump-b
        cmp -s $TMP/dump-a $TMP/dump-b || printf '%s(%s vs %s rows) ' $p $(wc -l <$TMP/dump-a) $(wc -l <$TMP/dump-b)
    done
}
