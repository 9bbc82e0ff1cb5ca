#!/usr/bin/python3
"""tests/reference/bert_attention_ref.py - the word-level attention maps `synprobe encode --attention
LAYER --heads` must cache, computed independently: the words of each sentence tokenized by
bert_tokenize_ref.py (docs/spec/models.md M1), the float64 forward of bert_ref.py (M3), then docs/spec/models.md M2.4:
W_h[a][b] = (1/|span a|) sum_{p in a} sum_{q in b} P_h[p][q] without [CLS]/[SEP]; per head each row of
W_h divided by its sum; the layer's map is the mean of the W_h, renormalised once.

Usage: bert_attention_ref.py MODEL_DIR ATTN_LAYER SENTENCES.txt OUT   (one sentence a line, words
separated by single spaces). Writes OUT/heads.npy (n, H, Lmax, Lmax) and OUT/mean.npy (n, Lmax, Lmax),
float64, zero-padded (the layout of `synprobe export --what attention [--heads]`).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bert_ref            # noqa: E402
import bert_tokenize_ref   # noqa: E402


def renorm(W):
    s = W.sum(axis=1, keepdims=True)
    return np.divide(W, s, out=np.zeros_like(W), where=s != 0)


def main():
    model, layer, sents, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    cfg = bert_ref.json.load(open(os.path.join(model, "config.json")))
    W = bert_ref.read_safetensors(os.path.join(model, "model.safetensors"))
    vocab = bert_tokenize_ref.load_vocab(os.path.join(model, "vocab.txt"))
    cls, sep = vocab["[CLS]"], vocab["[SEP]"]
    heads, means = [], []
    for line in open(sents, encoding="utf-8"):
        words = line.rstrip("\n").split(" ")
        ids, spans = [cls], []
        for w in words:
            p, _ = bert_tokenize_ref.tokenize_word(w, vocab, "basic+wordpiece", False)
            spans.append((len(ids), len(ids) + len(p)))
            ids += p
        ids.append(sep)
        _, attn = bert_ref.forward(cfg, W, np.array(ids), np.zeros(len(ids), dtype=np.int64))
        P = attn[layer]                                    # [H, T, T], row = query
        n = len(words)
        Wh = np.zeros((P.shape[0], n, n))
        for a, (s0, e0) in enumerate(spans):
            for b, (s1, e1) in enumerate(spans):
                Wh[:, a, b] = P[:, s0:e0, s1:e1].sum(axis=(1, 2)) / (e0 - s0)
        heads.append(np.stack([renorm(w) for w in Wh]))
        means.append(renorm(Wh.mean(axis=0)))
    L = max(m.shape[0] for m in means)
    H = heads[0].shape[0]
    hp, mp = np.zeros((len(means), H, L, L)), np.zeros((len(means), L, L))
    for k, (h, m) in enumerate(zip(heads, means)):
        n = m.shape[0]
        hp[k, :, :n, :n] = h
        mp[k, :n, :n] = m
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "heads.npy"), hp)
    np.save(os.path.join(out, "mean.npy"), mp)


if __name__ == "__main__":
    main()
