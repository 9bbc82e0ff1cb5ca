#!/usr/bin/python3
"""tests/reference/structprobe_ref.py - independent NumPy reference for the trained structural
probes (docs/spec/models.md M4, M7.1).

Written from docs/spec/models.md, not from the C code. It
  1. reads real sentences (5..20 words) from the UD EWT dev file with its own CoNLL-U reader
     (multiword and empty-node lines dropped, HEAD 1-based -> 0-based, root -1): 60 for
     training, the next 20 for dev;
  2. gives every word a vector from a seeded "random encoder": a random vector per word type
     (scaled 0.3) plus a fixed random linear image of the word's path-to-root indicator (so the
     tree is linearly recoverable, up to the type noise), float32, d = 32;
  3. writes them as .npy, runs the C driver (tests/tools/probes_sptrain_dump.c), and trains its
     own probe on the same data: SplitMix64 init and shuffles, losses summed in float64, the
     gradient written straight from the definition (sum over ordered pairs of
     sgn * 2 * delta^T (delta proj), not the C code's factorised form), PyTorch's Adam in float32,
     ReduceLROnPlateau + the regimen.py checkpoint rule;
  4. compares the epoch count, the checkpoint epoch, the per-epoch train/dev loss curves
     (epoch 0 to 2e-5 relative, every epoch to 1e-3) and the final proj (1e-3 absolute).
     Why not tighter: both sides train in float32 with differently ordered sums (the C side
     accumulates each batch's gradient with sgemm, this side in float64), and Adam divides by
     sqrt(v), so a gradient entry near 0 that differs by one rounding can move its parameter by
     a whole step of the other sign; the curves agree to ~1e-5 until that drift starts
     (SP_REF_DEBUG=1 prints the per-epoch differences).

Usage: structprobe_ref.py DRIVER DATA_DIR      prints TAP lines; exit 0 = all agree.
Only /usr/bin/python3 + numpy.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

M64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.x = seed & M64

    def next(self):
        self.x = (self.x + 0x9E3779B97F4A7C15) & M64
        z = self.x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def below(self, n):
        return (self.next() * n) >> 64

    def unif(self):
        return (self.next() >> 11) * 2.0 ** -53


def read_conllu(path, limit):
    sents, words, heads = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if words:
                    sents.append((words, heads))
                    if len(sents) >= limit:
                        break
                words, heads = [], []
                continue
            if line.startswith("#"):
                continue
            col = line.split("\t")
            if "-" in col[0] or "." in col[0]:
                continue
            words.append(col[1])
            heads.append(int(col[6]) - 1)
    return sents


def depths(heads):
    out = []
    for i in range(len(heads)):
        d, a = 0, i
        while heads[a] >= 0:
            a = heads[a]
            d += 1
        out.append(d)
    return out


def path(heads, i):
    p = [i]
    while heads[p[-1]] >= 0:
        p.append(heads[p[-1]])
    return p


def distances(heads):
    n = len(heads)
    D = np.zeros((n, n))
    for i in range(n):
        pi = path(heads, i)
        for j in range(n):
            pj = path(heads, j)
            common = set(pi) & set(pj)
            # path length = steps from i to the lowest common ancestor + from j to it
            lca = next(a for a in pi if a in common)
            D[i, j] = pi.index(lca) + pj.index(lca)
    return D


def make_vectors(sents, d, rng_types, C, emb):
    X = []
    for words, heads in sents:
        for i, w in enumerate(words):
            if w not in emb:
                emb[w] = rng_types.standard_normal(d) * 0.3
            code = np.zeros(C.shape[0])
            a = i
            while heads[a] >= 0:
                code[a] = 1.0
                a = heads[a]
            X.append(emb[w] + code @ C)
    return np.asarray(X, dtype=np.float32)


def write_split(tmp, name, sents, X):
    off = np.cumsum([0] + [len(w) for w, _ in sents]).astype(np.int32)
    head = np.asarray([h for _, hs in sents for h in hs], dtype=np.int32)
    np.save(os.path.join(tmp, name + "_X.npy"), X)
    np.save(os.path.join(tmp, name + "_off.npy"), off)
    np.save(os.path.join(tmp, name + "_head.npy"), head)
    return off


def sent_loss_grad(kind, proj, H, target, want_grad):
    """L_s and dL_s/dproj from the definitions of M4.2-M4.3."""
    n = H.shape[0]
    T = H @ proj                                         # float32 (n, k)
    if kind == "distance":
        diffT = T[:, None, :] - T[None, :, :]            # (n, n, k) float32
        Dhat = (diffT * diffT).sum(axis=2, dtype=np.float32)
        r = Dhat.astype(np.float64) - target
        loss = np.abs(r).sum() / (n * n)
        if not want_grad:
            return loss, None
        s = np.sign(r)
        delta = H[:, None, :].astype(np.float64) - H[None, :, :]     # (n, n, d)
        g = 2.0 * np.einsum("ij,ijd,ijk->dk", s, delta, diffT.astype(np.float64)) / (n * n)
        return loss, g
    dhat = (T * T).sum(axis=1, dtype=np.float32)
    r = dhat.astype(np.float64) - target
    loss = np.abs(r).sum() / n
    if not want_grad:
        return loss, None
    s = np.sign(r)
    g = 2.0 * np.einsum("i,id,ik->dk", s, H.astype(np.float64), T.astype(np.float64)) / n
    return loss, g


def train(kind, rank, batch, epochs, lr, seed, tr, dv):
    """tr, dv: lists of (H float32 (n, d), target float64)."""
    d = tr[0][0].shape[1]
    k = rank if rank > 0 else d
    rng = SplitMix64(seed)
    proj = np.array([-0.05 + 0.1 * rng.unif() for _ in range(d * k)], dtype=np.float64)
    proj = proj.astype(np.float32).reshape(d, k)
    m = np.zeros_like(proj)
    v = np.zeros_like(proj)
    step = 0
    best_s, best_m, best_e = float("inf"), float("inf"), -1
    best = None
    curve = []
    N = len(tr)
    for e in range(epochs):
        perm = list(range(N))
        for i in range(N - 1, 0, -1):
            j = rng.below(i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        tsum = 0.0
        for b0 in range(0, N, batch):
            idx = perm[b0:b0 + batch]
            g = np.zeros((d, k))
            for s in idx:
                loss, gs = sent_loss_grad(kind, proj, tr[s][0], tr[s][1], True)
                tsum += loss
                g += gs / len(idx)
            g = g.astype(np.float32)
            step += 1
            m = np.float32(0.9) * m + np.float32(0.1) * g
            v = np.float32(0.999) * v + np.float32(0.001) * g * g
            bc1 = 1.0 - 0.9 ** step
            bc2 = 1.0 - 0.999 ** step
            denom = np.sqrt(v) / np.float32(np.sqrt(bc2)) + np.float32(1e-8)
            proj = proj - np.float32(lr / bc1) * (m / denom)
        dsum = sum(sent_loss_grad(kind, proj, H, t, False)[0] for H, t in dv)
        dmean = dsum / len(dv)
        curve.append((tsum / N, dmean))
        if dsum < best_s * (1 - 1e-4):
            best_s = dsum
        else:
            new = lr * 0.1
            if lr - new > 1e-8:
                lr = new
        if dmean < best_m - 0.0001:
            best_m, best_e, best = dmean, e, proj.copy()
        elif best_e < e - 4:
            break
    return best, np.asarray(curve), best_e, lr


def main():
    drv, data = sys.argv[1], sys.argv[2]
    conllu = os.path.join(data, "ud-ewt", "en_ewt-ud-dev.conllu")
    sents = [s for s in read_conllu(conllu, 400) if 5 <= len(s[0]) <= 20][:80]
    train_s, dev_s = sents[:60], sents[60:80]
    d = 32
    rng = np.random.default_rng(20261125)
    C = rng.standard_normal((20, d)) * 0.5
    emb = {}
    Xtr = make_vectors(train_s, d, rng, C, emb)
    Xdv = make_vectors(dev_s, d, rng, C, emb)
    n_fail = 0
    t = 0
    with tempfile.TemporaryDirectory() as tmp:
        otr = write_split(tmp, "train", train_s, Xtr)
        odv = write_split(tmp, "dev", dev_s, Xdv)
        for kind, rank, batch, epochs, lr, seed in (("distance", 16, 20, 12, 0.01, 3),
                                                   ("depth", 0, 7, 12, 0.01, 4)):
            res = subprocess.run([drv, kind, str(rank), str(batch), str(epochs), repr(lr), str(seed), tmp],
                                 capture_output=True, text=True)
            t += 1
            if res.returncode != 0:
                print("not ok %d - %s: driver failed: %s" % (t, kind, res.stderr.strip()))
                n_fail += 1
                continue
            info = res.stdout.split()
            c_epochs, c_best = int(info[1]), int(info[3])
            c_proj = np.load(os.path.join(tmp, "c_proj.npy"))
            c_curve = np.load(os.path.join(tmp, "c_curve.npy"))

            def split(sents, X, off):
                out = []
                for i, (w, h) in enumerate(sents):
                    H = X[off[i]:off[i + 1]]
                    tgt = distances(h) if kind == "distance" else np.asarray(depths(h), dtype=np.float64)
                    out.append((H, tgt))
                return out
            proj, curve, best_e, lr_end = train(kind, rank, batch, epochs, lr, seed,
                                                split(train_s, Xtr, otr), split(dev_s, Xdv, odv))
            checks = []
            checks.append(("epochs run %d (C) vs %d (NumPy)" % (c_epochs, len(curve)), c_epochs == len(curve)))
            checks.append(("checkpoint epoch %d (C) vs %d (NumPy)" % (c_best, best_e), c_best == best_e))
            if c_curve.shape == curve.shape:
                rel = np.max(np.abs(c_curve - curve) / np.abs(curve), axis=1)
                if os.environ.get("SP_REF_DEBUG"):
                    print("# per-epoch relative differences:", " ".join("%.1e" % x for x in rel))
                checks.append(("epoch 0 losses agree to 2e-5 relative (%.2e)" % rel[0], rel[0] <= 2e-5))
                checks.append(("loss curves agree to 1e-3 relative (max %.2e)" % rel.max(), rel.max() <= 1e-3))
            else:
                checks.append(("loss curves have the same shape", False))
            dif = float(np.max(np.abs(c_proj.astype(np.float64) - proj)))
            checks.append(("final proj agrees to 1e-3 absolute (max %.2e, entries up to %.2f)"
                           % (dif, float(np.max(np.abs(proj)))), dif <= 1e-3))
            first, last = curve[0, 1], curve[best_e, 1]
            checks.append(("dev loss falls (%.4f -> %.4f)" % (first, last), last < first))
            for desc, good in checks:
                if not good:
                    n_fail += 1
                print("%s %d - %s %s" % ("ok" if good else "not ok", t, kind, desc))
                t += 1
            t -= 1
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
