#!/usr/bin/python3
"""tests/torch/parity.py — PyTorch twin (python/synprobe_torch) vs synprobe, one encoder config.

    parity.py CONFIG DB WORKDIR [--corpus C] [--attention K] [--tol 1e-5] [--from-synprobe]
              [--weights W.safetensors --embeddings E.txt]

Random weights (every tensor, biases and LN parameters included, drawn here) are saved from
PyTorch as safetensors; random input word vectors for every word of the corpus go to a GloVe text
file; synprobe encodes the corpus with both (`encode --weights --embeddings --token-vectors
--attention K`) and exports its sentence vectors, token vectors and attention maps as npy; the twin
computes the same from the store's structures (`export --what structures`). Prints one line
"PARITY kind=... sentences=N sent=D tokens=D attn=D" (max abs differences; f64_ref: each side's sentence vectors against the twin in float64) and exits 1 when one
is above --tol (2 on a setup error). The expected values are synprobe's C forward, an independent
implementation of docs/spec/structures.md §5; neither side's output is produced by the other.
--from-synprobe: the other direction: synprobe's own seeded weights (`encode --save-weights`)
loaded into the twin with synprobe_torch.load. --weights/--embeddings: given files (a model trained
by synprobe_torch.train and its DIR/embeddings.txt) instead of random ones."""
import argparse
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import synprobe_torch as spt  # noqa: E402


def sh(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode:
        sys.stderr.write("%s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
        sys.exit(2)
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("db")
    ap.add_argument("work")
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--attention", type=int, default=-1, help="-1: the last attention layer")
    ap.add_argument("--tol", type=float, default=1e-5)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--weights", help="these weights (loaded with synprobe_torch.load) instead of random ones")
    ap.add_argument("--embeddings", help="this GloVe text file as the input vectors (with --weights)")
    ap.add_argument("--from-synprobe", action="store_true", help="weights: synprobe's seeded init, loaded in PyTorch")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.work, exist_ok=True)
    sp = spt.data.synprobe_binary()

    m = spt.load(a.config, a.weights) if a.weights else spt.Encoder(a.config)
    with torch.no_grad():                   # every tensor random, so no bias or gain goes untested
        for name, shape, init in ([] if a.weights else m.specs):
            p = m.get_parameter(name)
            if init == "glorot":
                continue
            p.copy_(torch.randn(shape) * 0.1 + (1.0 if init in ("one", "half") else 0.0))
    W = a.weights or os.path.join(a.work, "w.safetensors")
    if not a.from_synprobe and not a.weights:
        spt.save(m, W)

    sents = spt.usable(spt.read_structures(a.db, a.corpus), m.needs)
    words = sorted({w for s in sents for w in s["words"]})
    E = a.embeddings or os.path.join(a.work, "emb.txt")
    din = m.cfg["d_input"]
    a_in = np.sqrt(3.0 / din)      # the scale of synprobe's own random word vectors (unit expected norm)
    with open(os.devnull if a.embeddings else E, "w", encoding="utf-8") as f:
        for w in words:
            f.write(w + " " + " ".join("%.6f" % x for x in rng.uniform(-a_in, a_in, din)) + "\n")
    emb = spt.Embeddings(E)
    for s in sents:
        s["ids"] = emb.ids(s["words"])

    al = a.attention if a.attention >= 0 else spt.attn_layers(m.cfg) - 1
    run = "parity-" + os.path.basename(os.path.normpath(a.work))
    cmd = [sp, "encode", "--db", a.db, "--encoder", a.config, "--run", run, "--weights", W, "--embeddings", E,
           "--token-vectors", "--attention", str(al), "--threads", "1", "--quiet"]
    if a.from_synprobe:
        cmd[cmd.index("--weights")] = "--save-weights"
    cmd[4:4] = ["--corpus", a.corpus] if a.corpus else []
    sh(cmd)
    if a.from_synprobe:
        m = spt.load(a.config, W)
    ours = {}
    for what in ("vectors", "tokens", "attention"):
        out = os.path.join(a.work, what + ".npy")
        sh([sp, "export", "--db", a.db, "--run", run, "--what", what, "--format", "npy", "--out", out])
        ours[what] = np.load(out)
    lens = np.load(os.path.join(a.work, "tokens.lengths.npy"))

    sv, tv, av = spt.encode(m, emb.table, sents, attn_layer=al)
    if ours["vectors"].shape != sv.shape or list(lens) != [s["n"] for s in sents]:
        sys.stderr.write("synprobe encoded %s sentences (lengths %s), the twin %s (%s)\n"
                         % (ours["vectors"].shape, list(lens)[:8], sv.shape, [s["n"] for s in sents][:8]))
        sys.exit(2)
    d_sent = float(np.abs(ours["vectors"] - sv).max())
    d_tok = float(np.abs(ours["tokens"] - np.concatenate(tv)).max())
    d_att = max(float(np.abs(ours["attention"][i, :s["n"], :s["n"]] - av[i]).max()) for i, s in enumerate(sents))
    scale = float(np.abs(ours["vectors"]).max())
    # how far each float32 side is from the twin run in float64 (the rounding floor of the kind)
    s64, _, _ = spt.encode(m.double(), emb.table.double(), sents)
    f64 = "f64_ref: synprobe=%.2e torch=%.2e" % (float(np.abs(ours["vectors"] - s64).max()), float(np.abs(sv - s64).max()))
    worst = max(d_sent, d_tok, d_att)
    print("PARITY kind=%s config=%s weights=%s sentences=%d attn_layer=%d sent=%.2e tokens=%.2e attn=%.2e max_abs_sent=%.3g %s tol=%.0e %s"
          % (m.kind, os.path.basename(a.config), "synprobe->torch" if a.from_synprobe else "trained:torch->synprobe" if a.weights else "torch->synprobe", len(sents), al, d_sent, d_tok, d_att, scale, f64, a.tol,
             "ok" if worst <= a.tol else "ABOVE"))
    return 0 if worst <= a.tol else 1


if __name__ == "__main__":
    sys.exit(main())
