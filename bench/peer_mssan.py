#!/usr/bin/python3
"""bench/peer_mssan.py — PyTorch eager peer of our MS-SAN forward (SPEC-structures §5.2), for
bench/encode.sh: the same configuration, weights and sentences, written the way a PyTorch user
would (length-sorted padded [B, L, d] batches, additive [B, 2h, L, L] masks, -1e9 for masked
entries).

    peer_mssan.py DIR [--threads T] [--torch-threads auto|N] [--budget TOK] [--device cpu|cuda] [--reps R]

DIR and the options: bench/peer_common.py (imported first: it pins the BLAS threads before torch
loads). Prints one line "PEER key=value ..." with tokens/s and the largest absolute difference
between the peer's sentence vectors and ours (float32 rounding only: ~1e-5)."""
import math
import sys

import peer_common  # noqa: F401  (pins the threads; before torch)
import torch  # noqa: E402


def build(cfg, W, dev):
    d, H, nl = cfg["d_model"], cfg["heads"], cfg["layers"]
    h, dk = H // 2, d // H
    alpha, eps = cfg["alpha"], cfg["ln_eps"]
    strict = cfg["direction_mask"] == "strict"
    dists = [{"none": 0, "word": 1, "dep": 2}[x] for x in cfg["distances"]]
    dist = [dists[m % h] for m in range(H)]
    act = torch.relu if cfg["activation"] == "relu" else torch.nn.functional.gelu

    def masks(lens, D, L):
        """additive [B, H, L, L]: direction per head + α·(−|i−j| | −D | 0) + padding"""
        i = torch.arange(L, device=dev)
        fwd = (i[None, :] < i[:, None]) if strict else (i[None, :] <= i[:, None])    # [i, j]: j ≤ i
        bwd = (i[None, :] > i[:, None]) if strict else (i[None, :] >= i[:, None])
        word = -(i[:, None] - i[None, :]).abs().float()
        pad = i[None, :] < lens[:, None]                                              # [B, L] key valid
        M = torch.zeros(len(lens), H, L, L, device=dev)
        for m in range(H):
            ok = (fwd if m < h else bwd)[None] & pad[:, None, :]
            prior = word[None] if dist[m] == 1 else (-D.float() if dist[m] == 2 else torch.zeros(1, L, L, device=dev))
            M[:, m] = torch.where(ok, alpha * prior, torch.full_like(M[:, m], -1e9))
        return M, pad

    def forward(table, ids, lens, st):
        X = table[ids]
        if "input.proj.weight" in W:
            X = X @ W["input.proj.weight"] + W["input.proj.bias"]
        B, L, _ = X.shape
        M, pad = masks(lens, st.get("dist"), L)
        for l in range(nl):
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
            F = act(G @ W[p + "ffn.w1.weight"] + W[p + "ffn.w1.bias"]) @ W[p + "ffn.w2.weight"] + W[p + "ffn.w2.bias"]
            X = torch.nn.functional.layer_norm(G + F, (d,), W[p + "ln.weight"], W[p + "ln.bias"], eps)
        E = act(X @ W["pool.w1.weight"] + W["pool.w1.bias"]) @ W["pool.w2.weight"] + W["pool.w2.bias"]
        valid = pad[:, :, None]                                                       # [B, L, 1]
        a = torch.softmax(E.masked_fill(~valid, -1e9), 1)
        att = (a * X.masked_fill(~valid, 0.0)).sum(1)
        mx = X.masked_fill(~valid, -1e9).amax(1)
        return torch.cat([att, mx], -1)

    return forward


if __name__ == "__main__":
    sys.exit(peer_common.run("MS-SAN PyTorch peer", build))
