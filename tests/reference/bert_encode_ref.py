#!/usr/bin/python3
"""tests/reference/bert_encode_ref.py - what `synprobe encode` with a bert config must give, computed
independently: the words of each sentence tokenized by bert_tokenize_ref.py (docs/spec/models.md M1,
Python's own Unicode data), the forward of bert_ref.py (M3, float64), then M2 pooling: word vector
= mean of its pieces' vectors at LAYER, sentence vector = mean of the word vectors.

Usage: bert_encode_ref.py MODEL_DIR LAYER SENTENCES.txt OUT   (one sentence a line, words separated
by single spaces). Writes OUT/tokens.npy float64 (total words, d) and OUT/sent.npy (n, d).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bert_ref            # noqa: E402
import bert_tokenize_ref   # noqa: E402


def main():
    model, layer, sents, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    cfg = bert_ref.json.load(open(os.path.join(model, "config.json")))
    W = bert_ref.read_safetensors(os.path.join(model, "model.safetensors"))
    vocab = bert_tokenize_ref.load_vocab(os.path.join(model, "vocab.txt"))
    cls, sep = vocab["[CLS]"], vocab["[SEP]"]
    toks, sents_out = [], []
    for line in open(sents, encoding="utf-8"):
        words = line.rstrip("\n").split(" ")
        ids, spans = [cls], []
        for w in words:
            p, _ = bert_tokenize_ref.tokenize_word(w, vocab, "basic+wordpiece", False)
            spans.append((len(ids), len(ids) + len(p)))
            ids += p
        ids.append(sep)
        hidden, _ = bert_ref.forward(cfg, W, np.array(ids), np.zeros(len(ids), dtype=np.int64))
        X = hidden[layer]
        wv = np.stack([X[a:b].mean(axis=0) for a, b in spans])
        toks.append(wv)
        sents_out.append(wv.mean(axis=0))
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "tokens.npy"), np.concatenate(toks))
    np.save(os.path.join(out, "sent.npy"), np.stack(sents_out))


if __name__ == "__main__":
    main()
