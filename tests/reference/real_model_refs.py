#!/usr/bin/env python3
"""tests/reference/real_model_refs.py MODELS DATA OUT.npz — what transformers 4.40.2 gives for
all-mpnet-base-v2 (make models) on the first 10 sentences of EWT dev, in pre-tokenized mode
(is_split_into_words=True): every layer's word vectors (the mean of the word's pieces, docs/spec/models.md M2.2)
and sentence vectors (the mean of the words, M2.3), kept small as their projections on 4 fixed
random unit directions (stored too), with the piece ids. Run from a venv with transformers
(`make real-model-refs HF_PYTHON=V/bin/python`); t2239-hf-real-mpnet.sh compares synprobe's vectors with these, so
no test needs transformers."""
import sys
import numpy as np, torch
from transformers import AutoModel, AutoTokenizer

models, data, out = sys.argv[1:4]
N = 10
d = f"{models}/all-mpnet-base-v2"
tok, model = AutoTokenizer.from_pretrained(d), AutoModel.from_pretrained(d).eval()
sents, cur = [], []
for line in open(f"{data}/ud-ewt/en_ewt-ud-dev.conllu", encoding="utf-8"):
    line = line.rstrip("\n")
    if not line:
        if cur: sents.append(cur)
        cur = []
        if len(sents) == N: break
    elif not line.startswith("#") and line.split("\t")[0].isdigit():
        cur.append(line.split("\t")[1])
dirs = np.random.default_rng(36).standard_normal((4, model.config.hidden_size))
dirs = (dirs / np.linalg.norm(dirs, axis=1, keepdims=True)).astype(np.float32)
W, S, ids_all = [], [], []
for words in sents:
    enc = tok(words, is_split_into_words=True)
    wid = enc.word_ids()
    ids_all.append(" ".join(map(str, enc["input_ids"])))
    with torch.no_grad():
        o = model(input_ids=torch.tensor([enc["input_ids"]]), output_hidden_states=True)
    H = np.stack([h[0].numpy() for h in o.hidden_states]).astype(np.float64)          # [L+1, T, d]
    wv = np.stack([H[:, [i for i, x in enumerate(wid) if x == w]].mean(axis=1) for w in range(len(words))])
    W.append(wv.astype(np.float32))
    S.append(wv.mean(axis=0).astype(np.float32))
W, S = np.concatenate(W), np.stack(S)                                                  # [words, L+1, d], [N, L+1, d]
np.savez_compressed(out, dirs=dirs, words=(W.astype(np.float64) @ dirs.T.astype(np.float64)).astype(np.float32),
                    sents=(S.astype(np.float64) @ dirs.T.astype(np.float64)).astype(np.float32),
                    norms=np.linalg.norm(W.astype(np.float64), axis=2).astype(np.float32), ids=np.array(ids_all))
print(out, W.shape, S.shape)
