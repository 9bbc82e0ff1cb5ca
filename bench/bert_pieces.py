"""bench/bert_pieces.py — the word-piece file bert_bench writes for the BERT peers (no torch, so that
onnxruntime's venv can import it): EXP/pieces.bin = int32 n, then per sentence int32 T and T piece
ids (length-sorted); EXP/ours.f32 = synprobe's vectors, n rows."""
import os
import struct

import numpy as np


def read(exp):
    """-> (list of int64 id arrays, synprobe's vectors as an [n, -1] float32 array)"""
    raw = open(os.path.join(exp, "pieces.bin"), "rb").read()
    (n,) = struct.unpack_from("<i", raw, 0)
    at, sents = 4, []
    for _ in range(n):
        (T,) = struct.unpack_from("<i", raw, at)
        sents.append(np.frombuffer(raw, "<i4", T, at + 4).astype(np.int64))
        at += 4 + 4 * T
    return sents, np.fromfile(os.path.join(exp, "ours.f32"), "<f4").reshape(n, -1)
