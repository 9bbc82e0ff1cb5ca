#!/usr/bin/python3
"""tests/reference/make_tiny_bert.py - writes a tiny synthetic Hugging Face BertModel directory.

DIR/config.json, DIR/model.safetensors, DIR/vocab.txt, laid out as a real BERT checkpoint
(docs/spec/models.md M3.1, M3.2): 2 layers, hidden 8, 2 heads, FFN 16, 24 word pieces, 16 positions,
2 token types, GELU (erf), LayerNorm eps 1e-12. Linear weights are stored [out, in] as
nn.Linear does; the checkpoint also carries what a real one carries and synprobe must ignore:
pooler.dense.* and the int64 buffer embeddings.position_ids. Weights are seeded (numpy
default_rng(SEED)), float32, scaled so that the attention is far from uniform.

Usage: make_tiny_bert.py DIR [SEED]      Only /usr/bin/python3 + numpy; the safetensors file is
written here (8-byte little-endian header length, JSON header, raw data).
"""
import json
import os
import struct
import sys

import numpy as np

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "dog", "cat", "sat", "on", "mat",
         "run", "##s", "##ing", "go", "##es", ".", ",", "zo", "##e", "to", "u", "s"]
CONFIG = {
    "architectures": ["BertModel"], "model_type": "bert", "vocab_size": len(VOCAB), "hidden_size": 8,
    "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 16, "max_position_embeddings": 16,
    "type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
    "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02, "position_embedding_type": "absolute",
    "pad_token_id": 0,
}


def tensors(rng):
    c = CONFIG
    V, d, F, P, T = c["vocab_size"], c["hidden_size"], c["intermediate_size"], c["max_position_embeddings"], c["type_vocab_size"]

    def w(*shape, s=0.5):
        return (rng.standard_normal(shape) * s).astype(np.float32)

    def gamma(n):
        return (1.0 + 0.2 * rng.standard_normal(n)).astype(np.float32)

    t = {}
    t["embeddings.word_embeddings.weight"] = w(V, d, s=1.0)
    t["embeddings.position_embeddings.weight"] = w(P, d, s=0.5)
    t["embeddings.token_type_embeddings.weight"] = w(T, d, s=0.5)
    t["embeddings.LayerNorm.weight"] = gamma(d)
    t["embeddings.LayerNorm.bias"] = w(d, s=0.1)
    t["embeddings.position_ids"] = np.arange(P, dtype=np.int64).reshape(1, P)
    for l in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % l
        for nm in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            t[p + nm + ".weight"] = w(d, d, s=0.6)       # [out, in]
            t[p + nm + ".bias"] = w(d, s=0.1)
        t[p + "attention.output.LayerNorm.weight"] = gamma(d)
        t[p + "attention.output.LayerNorm.bias"] = w(d, s=0.1)
        t[p + "intermediate.dense.weight"] = w(F, d, s=0.5)
        t[p + "intermediate.dense.bias"] = w(F, s=0.1)
        t[p + "output.dense.weight"] = w(d, F, s=0.3)
        t[p + "output.dense.bias"] = w(d, s=0.1)
        t[p + "output.LayerNorm.weight"] = gamma(d)
        t[p + "output.LayerNorm.bias"] = w(d, s=0.1)
    t["pooler.dense.weight"] = w(d, d)
    t["pooler.dense.bias"] = w(d)
    return t


def write_safetensors(path, t):
    dt = {np.dtype(np.float32): "F32", np.dtype(np.int64): "I64"}
    hdr, off, blobs = {"__metadata__": {"format": "pt"}}, 0, []
    for name in sorted(t):
        a = np.ascontiguousarray(t[name])
        b = a.astype(a.dtype.newbyteorder("<")).tobytes()
        hdr[name] = {"dtype": dt[a.dtype], "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(hdr, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) == 3 else 13
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)
    with open(os.path.join(out, "vocab.txt"), "w") as f:
        f.write("".join(v + "\n" for v in VOCAB))
    write_safetensors(os.path.join(out, "model.safetensors"), tensors(np.random.default_rng(seed)))


if __name__ == "__main__":
    main()
