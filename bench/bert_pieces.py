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



def read_check(exp, sents):
    """-> {place in the length order: synprobe's hidden states [layers+1, T, d]} of the check set
    (EXP/check.bin: int32 K, layers+1, d, then K places; EXP/hidden.f32), {} when absent"""
    path = os.path.join(exp, "check.bin")
    if not os.path.exists(path):
        return {}
    head = np.fromfile(path, "<i4")
    k, l1, d, idx = head[0], head[1], head[2], head[3:]
    assert len(idx) == k, path
    h = np.fromfile(os.path.join(exp, "hidden.f32"), "<f4")
    out, at = {}, 0
    for i in idx:
        n = l1 * len(sents[i]) * d
        out[int(i)] = h[at:at + n].reshape(l1, len(sents[i]), d)
        at += n
    assert at == h.size, "%s: %d floats, expected %d" % (path, h.size, at)
    return out


def check_diff(check, first, layers):
    """largest |peer - synprobe| over every layer of the check sentences in one padded batch
    (sentences first.. of the length order; layers: the peer's [layers+1] arrays [B, Tmax, d])"""
    m = 0.0
    for b in range(layers[0].shape[0]):
        ref = check.get(first + b)
        if ref is not None:
            T = ref.shape[1]
            got = np.stack([x[b, :T] for x in layers])
            m = max(m, float(np.abs(got - ref).max()))
    return m
