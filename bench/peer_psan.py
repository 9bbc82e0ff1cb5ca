#!/usr/bin/python3
"""bench/peer_psan.py — PyTorch eager peer of our PSAN forward (docs/spec/structures.md §5.4, phrase
division §4.4 from our export), for bench/encode.sh: the same weights, sentences and phrase ids,
written the way a PyTorch user writes multi-dimensional phrase attention: length-sorted padded
batches, the scores of every word pair as one [B, L, L, d] tensor under the block-diagonal,
diagonal-disabled phrase mask (-1e9 for masked pairs; a single-word phrase gets p̃ = 0, Q18), then
the gated memory update and the attentive summary. (Ours computes each phrase block separately,
P3's own motivation; the dense masked form is the direct transcription of the equations.)

    peer_psan.py DIR [--threads T] [--torch-threads auto|N] [--budget TOK] [--device cpu|cuda] [--reps R]

DIR and the options: bench/peer_common.py (imported first: it pins the BLAS threads before torch
loads). Prints one line "PEER key=value ...", with the largest absolute difference between the
peer's sentence vectors and ours."""
import sys

import peer_common  # noqa: F401  (pins the threads; before torch)

# the forward itself is python/synprobe_torch/models.py's (one definition for the twins and the peers)
build = peer_common.build


if __name__ == "__main__":
    sys.exit(peer_common.run("PSAN PyTorch peer", build))
