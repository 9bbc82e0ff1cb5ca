#!/usr/bin/python3
"""bench/peer_mssan.py — PyTorch eager peer of our MS-SAN forward (docs/spec/structures.md §5.2), for
bench/encode.sh: the same configuration, weights and sentences, written the way a PyTorch user
would (length-sorted padded [B, L, d] batches, additive [B, 2h, L, L] masks, -1e9 for masked
entries).

    peer_mssan.py DIR [--threads T] [--torch-threads auto|N] [--budget TOK] [--device cpu|cuda] [--reps R]

DIR and the options: bench/peer_common.py (imported first: it pins the BLAS threads before torch
loads). Prints one line "PEER key=value ..." with tokens/s and the largest absolute difference
between the peer's sentence vectors and ours (float32 rounding only: ~1e-5)."""
import sys

import peer_common  # noqa: F401  (pins the threads; before torch)

# the forward itself is python/synprobe_torch/models.py's (one definition for the twins and the peers)
build = peer_common.build


if __name__ == "__main__":
    sys.exit(peer_common.run("MS-SAN PyTorch peer", build))
