#!/usr/bin/python3
"""Peer for bench/probe.sh: SentEval's PyTorch probing classifier, re-implemented from the
description in SPEC-probing §1.2, §1.4, §1.5 (not copied from SentEval).

  * classes: distinct train labels sorted byte-wise (§1.2)
  * model: Linear (logreg) or Linear -> Dropout -> Sigmoid -> Linear (MLP), PyTorch default init
  * loss: CrossEntropyLoss (mean over the batch); optimizer Adam(lr 1e-3, weight_decay = l2reg)
    or RMSprop (lr 1e-2) for the fast preset
  * fit: while not stop and nepoch <= max_epoch: epoch_size passes (np.random.permutation per
    pass, batches X[idx]), dev accuracy; strict improvement keeps a deep copy; otherwise
    "if counter >= tenacity: stop; counter += 1" (never reset); restore the best copy
  * SplitClassifier: l2reg in 1e-5..1e-2, each a new classifier reseeded with the seed, score
    round(100*dev, 2); first maximum; then a new classifier with that l2reg is fitted again and
    scored on test (as SentEval does)

Usage: peer_senteval.py --task-file T --vectors X.npy [--classifier logreg|mlp] [--nhid N]
       [--dropout P] [--preset senteval-default|senteval-fast] [--seed S] [--threads K] [--no-refit]
Prints one JSON object.
"""
import argparse
import copy
import json
import time

import numpy as np
import torch
from torch import nn


def load_task(path):
    tags = {"tr": 0, "va": 1, "te": 2}
    split, labels = [], []
    with open(path, "r", encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip().split("\t")
            split.append(tags[fields[0]])
            labels.append(fields[1])
    split = np.array(split)
    classes = sorted(set(l for l, s in zip(labels, split) if s == 0), key=lambda s: s.encode("utf-8"))
    index = {c: i for i, c in enumerate(classes)}
    y = np.array([index[l] for l in labels], dtype=np.int64)
    return split, y, classes


class Probe:
    """One classifier instance: reseeds numpy and torch at construction (§1.7)."""

    def __init__(self, d, k, nhid, dropout, l2reg, seed, optim, batch_size, tenacity, epoch_size, max_epoch):
        np.random.seed(seed)
        torch.manual_seed(seed)
        if nhid == 0:
            self.model = nn.Sequential(nn.Linear(d, k))
        else:
            self.model = nn.Sequential(nn.Linear(d, nhid), nn.Dropout(p=dropout), nn.Sigmoid(), nn.Linear(nhid, k))
        self.loss_fn = nn.CrossEntropyLoss()
        if optim == "adam":
            self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3, weight_decay=l2reg)
        else:
            self.optimizer = torch.optim.RMSprop(self.model.parameters(), lr=1e-2, weight_decay=l2reg)
        self.batch_size, self.tenacity = batch_size, tenacity
        self.epoch_size, self.max_epoch = epoch_size, max_epoch
        self.nepoch = 0
        self.passes = 0

    def trainepoch(self, X, y):
        self.model.train()
        for _ in range(self.epoch_size):
            permutation = np.random.permutation(len(X))
            for i in range(0, len(X), self.batch_size):
                idx = torch.from_numpy(permutation[i:i + self.batch_size]).long()
                output = self.model(X[idx])
                loss = self.loss_fn(output, y[idx])
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.passes += 1
        self.nepoch += self.epoch_size

    def score(self, X, y):
        self.model.eval()
        correct = 0
        with torch.no_grad():
            for i in range(0, len(X), self.batch_size):
                pred = self.model(X[i:i + self.batch_size]).argmax(1)
                correct += (pred == y[i:i + self.batch_size]).sum().item()
        return correct / len(X)

    def fit(self, X, y, Xd, yd):
        best, stop, counter, best_model = -1.0, False, 0, None
        self.nevals = 0
        while not stop and self.nepoch <= self.max_epoch:
            self.trainepoch(X, y)
            acc = self.score(Xd, yd)
            self.nevals += 1
            if acc > best:
                best = acc
                best_model = copy.deepcopy(self.model)
            else:
                if counter >= self.tenacity:
                    stop = True
                counter += 1
        self.model = best_model
        return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--task-file", required=True)
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--classifier", default="logreg")
    ap.add_argument("--nhid", type=int, default=50)
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--preset", default="senteval-default")
    ap.add_argument("--seed", type=int, default=1111)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-epoch", type=int, default=200)
    ap.add_argument("--no-refit", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    if a.preset == "senteval-fast":
        optim, bs, ten, es = "rmsprop", 128, 3, 2
    else:
        optim, bs, ten, es = "adam", 64, 5, 4
    nhid = a.nhid if a.classifier == "mlp" else 0
    split, y, classes = load_task(a.task_file)
    X = np.load(a.vectors).astype(np.float32)
    tr, dv, te = (split == 0), (split == 1), (split == 2)
    Xtr, ytr = torch.from_numpy(X[tr]), torch.from_numpy(y[tr])
    Xdv, ydv = torch.from_numpy(X[dv]), torch.from_numpy(y[dv])
    Xte, yte = torch.from_numpy(X[te]), torch.from_numpy(y[te])
    d, k = X.shape[1], len(classes)

    t0 = time.time()
    regs = [10.0 ** t for t in range(-5, -1)]
    scores, fits, passes = [], [], 0
    kept = None
    for reg in regs:
        clf = Probe(d, k, nhid, a.dropout, reg, a.seed, optim, bs, ten, es, a.max_epoch)
        clf.fit(Xtr, ytr, Xdv, ydv)
        s = round(100 * clf.score(Xdv, ydv), 2)
        passes += clf.passes
        fits.append({"l2reg": reg, "devacc": s, "evaluations": clf.nevals, "passes": clf.passes})
        if not scores or s > max(scores):
            kept = clf
        scores.append(s)
    best = int(np.argmax(scores))
    if a.no_refit:
        clf = kept
    else:
        clf = Probe(d, k, nhid, a.dropout, regs[best], a.seed, optim, bs, ten, es, a.max_epoch)
        clf.fit(Xtr, ytr, Xdv, ydv)
        passes += clf.passes
    testacc = round(100 * clf.score(Xte, yte), 2)
    secs = time.time() - t0
    print(json.dumps({"peer": "pytorch " + torch.__version__, "classifier": a.classifier, "nhid": nhid,
                      "dropout": a.dropout, "devacc": scores[best], "acc": testacc, "l2reg": regs[best],
                      "grid": fits, "seconds": secs, "example_passes": passes * int(tr.sum()),
                      "threads": a.threads, "refit": not a.no_refit}))


if __name__ == "__main__":
    main()
