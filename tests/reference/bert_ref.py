#!/usr/bin/python3
"""tests/reference/bert_ref.py - independent NumPy forward of a Hugging Face BertModel directory.

Written from docs/spec/models.md M3 (not from the C code): reads DIR/config.json and DIR/model.safetensors
with its own parser (pooler.*, cls.* and embeddings.position_ids skipped), runs the forward in
float64 and writes, for a few seeded sentences of different lengths ([CLS] ... [SEP]; the last one
with token type 1 everywhere, M0 D2), into OUT:
    ids_S.npy    int32 [T]            piece ids
    types_S.npy  int32 [T]            token type ids
    hidden_S.npy float64 [L+1, T, d]  X^0 (embeddings after LayerNorm) .. X^L
    attn_S.npy   float64 [L, H, T, T] P_h per layer and head (row = query)
Each sentence is run on its own (no padding), which is what the padding mask of M3.4 gives.

Usage: bert_ref.py DIR OUT [SEED [LENGTHS]]      LENGTHS: comma-separated piece counts (default
3,7,12,max_position_embeddings,9). Only /usr/bin/python3 + numpy.
"""
import json
import math
import os
import struct
import sys

import numpy as np

DT = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32}
ERF = np.vectorize(math.erf)


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    hdr = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, t in hdr.items():
        if name == "__metadata__":
            continue
        b0, b1 = t["data_offsets"]
        out[name] = np.frombuffer(data[b0:b1], dtype=np.dtype(DT[t["dtype"]]).newbyteorder("<")).reshape(t["shape"])
    return out


def layer_norm(x, g, b, eps):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def forward(c, W, ids, types):
    d, H, L = c["hidden_size"], c["num_attention_heads"], c["num_hidden_layers"]
    dh, eps = d // H, c["layer_norm_eps"]
    T = len(ids)

    def lin(x, name):                               # nn.Linear: y = x W^T + b, W [out, in]
        return x @ W[name + ".weight"].T + W[name + ".bias"]

    e = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.token_type_embeddings.weight"][types]
    e = e + W["embeddings.position_embeddings.weight"][np.arange(T)]
    x = layer_norm(e, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], eps)
    hidden, attn = [x], []
    for l in range(L):
        p = "encoder.layer.%d." % l
        q, k, v = lin(x, p + "attention.self.query"), lin(x, p + "attention.self.key"), lin(x, p + "attention.self.value")
        ctx, probs = np.zeros((T, d)), []
        for h in range(H):
            cs = slice(h * dh, (h + 1) * dh)
            s = q[:, cs] @ k[:, cs].T / math.sqrt(dh)
            s = np.exp(s - s.max(axis=1, keepdims=True))
            pr = s / s.sum(axis=1, keepdims=True)
            probs.append(pr)
            ctx[:, cs] = pr @ v[:, cs]
        attn.append(np.stack(probs))
        y = layer_norm(lin(ctx, p + "attention.output.dense") + x, W[p + "attention.output.LayerNorm.weight"],
                       W[p + "attention.output.LayerNorm.bias"], eps)
        z = lin(y, p + "intermediate.dense")
        z = 0.5 * z * (1.0 + ERF(z / math.sqrt(2.0)))  # hidden_act "gelu": exact erf GELU
        x = layer_norm(lin(z, p + "output.dense") + y, W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"], eps)
        hidden.append(x)
    return np.stack(hidden), np.stack(attn)


def main():
    if len(sys.argv) not in (3, 4, 5):
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) >= 4 else 5
    with open(os.path.join(src, "config.json")) as f:
        c = json.load(f)
    assert c.get("hidden_act", "gelu") == "gelu"
    W = {}
    for name, a in read_safetensors(os.path.join(src, "model.safetensors")).items():
        if name.startswith("bert."):
            name = name[5:]
        if name.startswith(("pooler.", "cls.")) or name == "embeddings.position_ids":
            continue
        W[name] = a.astype(np.float64)
    with open(os.path.join(src, "vocab.txt")) as f:
        vocab = [line.rstrip("\n") for line in f]
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    rng = np.random.default_rng(seed)
    os.makedirs(out, exist_ok=True)
    lengths = [3, 7, 12, c["max_position_embeddings"], 9]
    if len(sys.argv) == 5:
        lengths = [int(x) for x in sys.argv[4].split(",")]
    for s, T in enumerate(lengths):
        ids = np.concatenate([[cls], rng.integers(5, c["vocab_size"], T - 2), [sep]]).astype(np.int32)
        types = np.full(T, 1 if s == len(lengths) - 1 else 0, dtype=np.int32)
        hid, att = forward(c, W, ids, types)
        np.save(os.path.join(out, "ids_%d.npy" % s), ids)
        np.save(os.path.join(out, "types_%d.npy" % s), types)
        np.save(os.path.join(out, "hidden_%d.npy" % s), hid)
        np.save(os.path.join(out, "attn_%d.npy" % s), att)


if __name__ == "__main__":
    main()
