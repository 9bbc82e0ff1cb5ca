#!/usr/bin/python3
"""bench/peer_mssan.py — PyTorch eager peer of our MS-SAN forward (SPEC-structures §5.2), for
bench/encode.sh: the same configuration, weights and sentences, written the way a PyTorch user
would (padded [B, L, d] batches, additive [B, 2h, L, L] masks, -1e9 for masked entries).

    peer_mssan.py DIR CONFIG.json --threads N [--device cpu|cuda] [--order corpus|sorted] [--batch 32] [--reps R]

DIR holds what `encode_bench --export DIR` wrote: sents.bin (ids, lengths, tree distances),
table.f32 (embedding rows), weights.safetensors (our weights), ours.f32 (our sentence vectors).
N threads means N OpenBLAS threads (set before torch loads) and the faster of N or 1 torch
intra-op threads. Prints one line "PEER key=value ..." with tokens/s (best of R runs) and the largest absolute
difference between the peer's sentence vectors and ours (a check that both compute the same
function: it should be ~1e-5, float32 rounding only)."""
import argparse
import json
import math
import struct
import sys
import time

import os


def _threads_from_argv():
    for k, x in enumerate(sys.argv):
        if x == "--threads" and k + 1 < len(sys.argv):
            return sys.argv[k + 1]
    return "1"


# Debian's torch does its fp32 matrix products in OpenBLAS (pthreads), whose pool ignores
# torch.set_num_threads and starts one thread per core unless told before it loads: without
# this, "1 thread" ran its GEMMs on both cores of a 2-core machine.
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = _threads_from_argv()

import numpy as np  # noqa: E402
import torch  # noqa: E402


def load(dirn):
    with open(dirn + "/sents.bin", "rb") as f:
        raw = f.read()
    assert raw[:8] == b"SPBENCH1", "sents.bin: bad magic"
    B, din, rows = struct.unpack_from("<3i", raw, 8)
    at = 20
    sents = []
    for _ in range(B):
        (n,) = struct.unpack_from("<i", raw, at); at += 4
        ids = np.frombuffer(raw, "<i4", n, at); at += 4 * n
        dist = np.frombuffer(raw, "<i4", n * n, at).reshape(n, n); at += 4 * n * n
        sents.append((ids, dist))
    table = np.fromfile(dirn + "/table.f32", "<f4").reshape(rows, din)
    with open(dirn + "/weights.safetensors", "rb") as f:
        (hl,) = struct.unpack("<Q", f.read(8))
        hdr = json.loads(f.read(hl))
        data = f.read()
    W = {}
    for k, t in hdr.items():
        if k == "__metadata__":
            continue
        a, b = t["data_offsets"]
        W[k] = torch.from_numpy(np.frombuffer(data[a:b], "<f4").reshape(t["shape"]).copy())
    ours = np.fromfile(dirn + "/ours.f32", "<f4").reshape(B, -1)
    return sents, torch.from_numpy(table.copy()), W, ours


class MSSAN(torch.nn.Module):
    def __init__(self, cfg, W):
        super().__init__()
        self.d, self.H, self.L = cfg["d_model"], cfg["heads"], cfg.get("layers", 1)
        self.alpha = cfg.get("alpha", 1.0)
        self.eps = cfg.get("ln_eps", 1e-6)
        self.strict = cfg.get("direction_mask", "inclusive") == "strict"
        h = self.H // 2
        dmap = {"word": 1, "dep": 2, "none": 0}
        dists = [dmap[x] for x in cfg.get("distances", ["word", "dep", "none"])]
        self.dist = [dists[m % h] for m in range(self.H)]
        self.W = {k: v for k, v in W.items()}
        self.act = torch.relu if cfg.get("activation", "relu") == "relu" else torch.nn.functional.gelu

    def to(self, dev):
        self.W = {k: v.to(dev) for k, v in self.W.items()}
        return self

    def masks(self, lens, D, L, dev):
        """additive [B, H, L, L]: direction per head + α·(−|i−j| | −D | 0) + padding"""
        H, h = self.H, self.H // 2
        i = torch.arange(L, device=dev)
        fwd = (i[None, :] < i[:, None]) if self.strict else (i[None, :] <= i[:, None])   # [i, j]: j ≤ i
        bwd = (i[None, :] > i[:, None]) if self.strict else (i[None, :] >= i[:, None])
        word = -(i[:, None] - i[None, :]).abs().float()
        pad = i[None, :] < lens[:, None]                                                 # [B, L] key valid
        M = torch.zeros(len(lens), H, L, L, device=dev)
        for m in range(H):
            ok = (fwd if m < h else bwd)[None] & pad[:, None, :]
            prior = word[None] if self.dist[m] == 1 else (-D.float() if self.dist[m] == 2 else torch.zeros(1, L, L, device=dev))
            M[:, m] = torch.where(ok, self.alpha * prior, torch.full_like(M[:, m], -1e9))
        return M, pad

    def forward(self, X, lens, D):
        B, L, d = X.shape
        H, dk, W = self.H, d // self.H, self.W
        M, pad = self.masks(lens, D, L, X.device)
        for l in range(self.L):
            p = "layers.%d." % l
            q = (X @ W[p + "attn.q.weight"]).view(B, L, H, dk).transpose(1, 2)
            k = (X @ W[p + "attn.k.weight"]).view(B, L, H, dk).transpose(1, 2)
            v = (X @ W[p + "attn.v.weight"]).view(B, L, H, dk).transpose(1, 2)
            S = q @ k.transpose(-1, -2) / math.sqrt(dk) + M
            O = (torch.softmax(S, -1) @ v).transpose(1, 2).reshape(B, L, d) @ W[p + "attn.o.weight"]
            Ih = X @ W[p + "gate.in.weight"]
            Oh = O @ W[p + "gate.out.weight"]
            f = torch.sigmoid(Ih @ W[p + "gate.w1.weight"] + W[p + "gate.w1.bias"] + Oh @ W[p + "gate.w2.weight"])
            G = f * Ih + (1 - f) * Oh
            F = self.act(G @ W[p + "ffn.w1.weight"] + W[p + "ffn.w1.bias"]) @ W[p + "ffn.w2.weight"] + W[p + "ffn.w2.bias"]
            X = torch.nn.functional.layer_norm(G + F, (d,), W[p + "ln.weight"], W[p + "ln.bias"], self.eps)
        E = self.act(X @ W["pool.w1.weight"] + W["pool.w1.bias"]) @ W["pool.w2.weight"] + W["pool.w2.bias"]
        valid = pad[:, :, None]                                                          # [B, L, 1]
        a = torch.softmax(E.masked_fill(~valid, -1e9), 1)
        att = (a * X.masked_fill(~valid, 0.0)).sum(1)
        mx = X.masked_fill(~valid, -1e9).amax(1)
        return torch.cat([att, mx], -1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("config")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--order", default="corpus", choices=["corpus", "sorted"])
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--reps", type=int, default=1)
    a = ap.parse_args()
    cfg = json.load(open(a.config))
    sents, table, W, ours = load(a.dir)
    dev = torch.device(a.device)
    model = MSSAN(cfg, W).to(dev)
    table = table.to(dev)
    order = list(range(len(sents)))
    if a.order == "sorted":
        order.sort(key=lambda k: (len(sents[k][0]), k))
    # padded batches of a.batch sentences (built once, outside the timed loop, as a DataLoader would)
    batches = []
    for s in range(0, len(order), a.batch):
        idx = order[s:s + a.batch]
        L = max(len(sents[k][0]) for k in idx)
        ids = torch.zeros(len(idx), L, dtype=torch.long)
        D = torch.zeros(len(idx), L, L, dtype=torch.int32)
        lens = torch.tensor([len(sents[k][0]) for k in idx])
        for r, k in enumerate(idx):
            n = len(sents[k][0])
            ids[r, :n] = torch.from_numpy(sents[k][0].astype(np.int64))
            D[r, :n, :n] = torch.from_numpy(sents[k][1].copy())
        batches.append((idx, ids.to(dev), lens.to(dev), D.to(dev), L))
    tokens = sum(len(s[0]) for s in sents)
    padded = sum(len(b[0]) * b[4] for b in batches)
    out = np.zeros_like(ours)
    best, best_intra = 1e30, a.threads
    # With N BLAS threads, torch's own intra-op pool of N threads competes with them on the
    # element-wise ops between products (2 threads ran at half the speed of 1 on 2 cores);
    # the peer gets the better of both settings.
    for intra in sorted({a.threads, 1}, reverse=True) if dev.type == "cpu" else [a.threads]:
        torch.set_num_threads(intra)
        with torch.inference_mode():
            for _ in range(a.reps):
                if dev.type == "cuda":
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
                res = []
                for idx, ids, lens, D, L in batches:
                    res.append((idx, model(table[ids], lens, D)))
                if dev.type == "cuda":
                    torch.cuda.synchronize()
                dt = time.perf_counter() - t0
                if dt < best:
                    best, best_intra = dt, intra
    for idx, v in res:
        out[idx] = v.float().cpu().numpy()
    err = float(np.abs(out - ours).max())
    print("PEER impl=pytorch-%s device=%s threads=%d torch_intra_op=%d order=%s batch=%d sentences=%d tokens=%d padded_tokens=%d wall_s=%.3f tok_s=%.0f "
          "sent_s=%.1f max_abs_diff_vs_ours=%.2e" % (torch.__version__, a.device, a.threads, best_intra, a.order, a.batch, len(sents), tokens, padded,
                                                     best, tokens / best, len(sents) / best, err))


if __name__ == "__main__":
    sys.exit(main())
