#!/usr/bin/python3
"""Synthetic probing task for bench/probe.sh: K Gaussian classes in d dimensions.

Writes OUT/task.txt (SentEval format: tr/va/te TAB label TAB sentence) and OUT/X.npy (float32,
row i = line i). Class means are N(0, sep^2/d) per coordinate, rows add N(0, 1) noise, so the
task is learnable but not trivial. Usage: gen_probe_data.py OUT NTRAIN NDEV NTEST DIM K [SEED] [SEP]
"""
import os
import sys

import numpy as np


def main():
    out, ntr, ndv, nte, d, k = sys.argv[1], *map(int, sys.argv[2:7])
    seed = int(sys.argv[7]) if len(sys.argv) > 7 else 7
    sep = float(sys.argv[8]) if len(sys.argv) > 8 else 3.0
    rng = np.random.default_rng(seed)
    means = rng.normal(0.0, sep / np.sqrt(d), size=(k, d)).astype(np.float32)
    n = ntr + ndv + nte
    y = rng.integers(0, k, size=n)
    X = means[y] + rng.normal(0.0, 1.0, size=(n, d)).astype(np.float32)
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "X.npy"), X.astype(np.float32))
    tags = ["tr"] * ntr + ["va"] * ndv + ["te"] * nte
    with open(os.path.join(out, "task.txt"), "w", encoding="utf-8") as f:
        for i in range(n):
            f.write("%s\tc%d\tsentence number %d .\n" % (tags[i], y[i], i))


if __name__ == "__main__":
    main()
