# t6121-out-input.sh — no output replaces an input of its command, or another output of it (issue 22, items 1-2)
# tier: fast
# The gold trees, the attention maps, the encoder config, the weights, a task file, a corpus file
# are the command's inputs: an output naming one (directly, through a symlink, a hard link or a
# symlinked folder) is refused before anything runs, exit 2, both paths named, nothing changed.
# An output known only late (export's FILE.lengths.npy) is checked when it is opened. Before the
# fix each of these exited 0 (or 1 after writing) and the input was replaced.
. tests/cli/lib.sh
need_numpy
"$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>&1
DB=$TMP/d/demo.db
MRG=$TMP/d/corpus/demo.mrg
mkdir "$TMP/in"
cp encoder/configs/san.json "$TMP/in/san.json"
"$SP" encode --db "$DB" --corpus demo --encoder "$TMP/in/san.json" --run r --token-vectors --quiet \
    --save-weights "$TMP/in/w.safetensors" >/dev/null 2>&1
TASK=$TMP/in/task.txt                # a SentEval file: partition, label, sentence
printf 'tr\t0\tA dog barks .\ntr\t1\tDogs bark .\nte\t0\tA cat sleeps .\nte\t1\tCats sleep .\n' >"$TASK"
$PY -c "import numpy as np,sys; np.save(sys.argv[1], np.ones((12,64,64),np.float32))" "$TMP/in/A.npy"
ln -s "$TMP/d/corpus" "$TMP/cl"      # a symlinked folder holding the gold trees
ln "$MRG" "$TMP/hard.mrg"            # a hard link to them
ln -s "$TMP/in/san.json" "$TMP/cfg-link.json"

# every file's name and content (SQLite's -wal and -shm come and go as it opens the store: left out)
state() { (cd "$TMP" && find d in cl hard.mrg cfg-link.json ! -name '*-wal' ! -name '*-shm' -print | sort &&
           find d in -type f ! -name '*-wal' ! -name '*-shm' -exec sha256sum {} + | sort); }

# refused DESC OUT SHOWN CMD...: exit 2, OUT and SHOWN named, nothing changed
refused() {
    what=$1 out=$2 shown=$3
    shift 3
    before=$(state)
    rc=0; "$@" >"$TMP/stdout" 2>"$TMP/err" || rc=$?
    expect_eq "$what: exit 2" "$rc" 2
    check "$what: the message names $out and $shown" sh -c "grep -qF -- '$out:' '$TMP/err' && grep -qF -- ' $shown;' '$TMP/err'"
    expect_eq "$what: the inputs and the store are unchanged" "$(state)" "$before"
}

refused "trees --mrg F --out F" "$MRG" "$MRG" "$SP" trees --mrg "$MRG" --baseline right --out "$MRG"
refused "trees --mrg F --gold-out F via a symlinked folder" "$TMP/cl/demo.mrg" "$MRG" \
    "$SP" trees --mrg "$MRG" --baseline right --gold-out "$TMP/cl/demo.mrg"
refused "trees --mrg F --out (a hard link to F)" "$TMP/hard.mrg" "$MRG" "$SP" trees --mrg "$MRG" --baseline right --out "$TMP/hard.mrg"
refused "trees --attention A --out A" "$TMP/in/A.npy" "$TMP/in/A.npy" \
    "$SP" trees --db "$DB" --corpus demo --attention "$TMP/in/A.npy" --no-save --out "$TMP/in/A.npy"
refused "trees --out X --gold-out X (two outputs, one file)" "$TMP/in/../x.txt" "$TMP/x.txt" \
    "$SP" trees --mrg "$MRG" --baseline right --out "$TMP/x.txt" --gold-out "$TMP/in/../x.txt"
check "... x.txt was not made" test ! -e "$TMP/x.txt"
refused "encode --save-weights = --encoder (through a symlink)" "$TMP/cfg-link.json" "$TMP/in/san.json" \
    "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/in/san.json" --run w2 --save-weights "$TMP/cfg-link.json"
refused "encode --save-weights = --weights" "$TMP/in/w.safetensors" "$TMP/in/w.safetensors" \
    "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/in/san.json" --weights "$TMP/in/w.safetensors" --run w3 \
    --save-weights "$TMP/in/w.safetensors"
refused "probe --task-file T --save T" "$TASK" "$TASK" "$SP" probe --task-file "$TASK" --run r --save "$TASK"
refused "tasks build --corpus-files F --out F" "$TMP/d/corpus/demo.conllu" "$TMP/d/corpus/demo.conllu" \
    "$SP" tasks build --corpus-files "$TMP/d/corpus/demo.conllu" --tasks SentLen --out "$TMP/d/corpus/demo.conllu"
refused "tasks build --corpus-files DIR --out (a file in DIR)" "$TMP/cl/demo.mrg" "$TMP/d/corpus" \
    "$SP" tasks build --corpus-files "$TMP/d/corpus" --tasks SentLen --out "$TMP/cl/demo.mrg"
refused "trees --mrg DIR --out (a new file in DIR, via a link to DIR)" "$TMP/cl/new.txt" "$TMP/d/corpus" \
    "$SP" trees --mrg "$TMP/d/corpus" --baseline right --out "$TMP/cl/new.txt"

# export --what tokens writes FILE.lengths.npy too: when that is (a link to) the store it is refused as it is opened
ln -s "$DB" "$TMP/tok.lengths.npy"
refused "export tokens: FILE.lengths.npy is (a link to) the store" "$TMP/tok.lengths.npy" "$DB" \
    "$SP" export --db "$DB" --what tokens --run r --format npy --out "$TMP/tok.npy"
check "... FILE.npy was not left behind either" test ! -e "$TMP/tok.npy"
check "... no temporary file left" sh -c "! ls -a '$TMP' | grep -q '\.tmp-'"

# outputs that are none of the inputs are written as before
rc=0; "$SP" trees --mrg "$TMP/cl/demo.mrg" --baseline right --out "$TMP/cl/pred.txt" --gold-out "$TMP/gold.txt" >/dev/null 2>&1 || rc=$?
expect_eq "trees with new outputs (one in the gold trees' folder): exit 0" "$rc" 0
expect_eq "... the predicted trees: one line per scored sentence" "$(wc -l <"$TMP/d/corpus/pred.txt" | tr -d ' ')" 12
done_testing
