#!/usr/bin/python3
"""bench/peer_san.py — PyTorch eager peer of our SAN-family forwards (docs/spec/structures.md §5.1, §5.3,
§5.5, §5.6), for bench/encode.sh: one Transformer layer written once in torch ops, with the
kind's additions switched on by the resolved config: vanilla SAN (post- or pre-LN), absolute
sequential/structural position encodings (sum or tanh fusion), Shaw relative structural and
sequential positions (clip 16, tables shared by the heads), SSAN's selector (inference
A = [E_s > 0], in its selective layers), SG-Net's extra SDOI layer and its aggregation. The same
weights and sentences as ours, length-sorted padded batches, masks as a PyTorch user writes them
(-1e9 for masked keys; a row with no allowed key gives zero weights, as ours).

    peer_san.py DIR [--threads T] [--torch-threads auto|N] [--budget TOK] [--device cpu|cuda] [--reps R]

DIR and the options: bench/peer_common.py (imported first: it pins the BLAS threads before torch
loads). Prints one line "PEER key=value ...", with the largest absolute difference between the
peer's sentence vectors and ours."""
import sys

import peer_common  # noqa: F401  (pins the threads; before torch)

# the forward itself is python/synprobe_torch/models.py's (one definition for the twins and the peers)
build = peer_common.build


if __name__ == "__main__":
    sys.exit(peer_common.run("SAN-family PyTorch peer", build))
