#!/usr/bin/python3
"""bench/peer_psan.py — PyTorch eager peer of our PSAN forward (SPEC-structures §5.4, phrase
division §4.4 from our export), for bench/encode.sh: the same weights, sentences and phrase ids,
written the way a PyTorch user writes multi-dimensional phrase attention: length-sorted padded
batches, the scores of every word pair as one [B, L, L, d] tensor under the block-diagonal,
diagonal-disabled phrase mask (-1e9 for masked pairs; a single-word phrase gets p̃ = 0, Q18), then
the gated memory update and the attentive summary. (Ours computes each phrase block separately,
P3's own motivation; the dense masked form is the direct transcription of the equations.)

    peer_psan.py DIR [--threads T] [--torch-threads auto|N] [--budget TOK] [--device cpu|cuda] [--reps R]

DIR and the options: bench/peer_common.py (imported first: it pins the BLAS threads before torch
loads). Prints one line "PEER key=value ...", with the largest absolute difference between the
peer's sentence vectors and ours."""
import sys

import peer_common  # noqa: F401  (pins the threads; before torch)
import torch  # noqa: E402

F = torch.nn.functional


def build(cfg, W, dev):
    T = cfg["levels"]
    coarse_first = cfg["psan_order"] == "coarse-to-fine"
    carry = cfg["psan_highway_carry"]

    def lin(x, name, bias=True):
        y = x @ W[name + ".weight"]
        return y + W[name + ".bias"] if bias else y

    def forward(table, ids, lens, st):
        M = table[ids]
        if "input.proj.weight" in W:
            M = lin(M, "input.proj")
        B, L, d = M.shape
        i = torch.arange(L, device=dev)
        valid = i[None, :] < lens[:, None]                                   # [B, L]
        off_diag = i[:, None] != i[None, :]
        for s in range(1, T + 1):
            t = s if coarse_first else T - s + 1                             # Q16: fine -> coarse
            p = "psa.%d." % t
            pid = st["pid"][:, t - 1]                                         # [B, L]
            ok = (pid[:, :, None] == pid[:, None, :]) & valid[:, :, None] & valid[:, None, :] & off_diag   # [B, L, L]
            q = M @ W[p + "a1.weight"]
            k = M @ W[p + "a2.weight"] + W[p + "a.bias"]
            a = F.elu(q[:, :, None, :] + k[:, None, :, :])                   # [B, L(i), L(j), d]
            w = torch.softmax(a.masked_fill(~ok[..., None], -1e9), 2) * ok[..., None]
            pt = (w * M[:, None, :, :]).sum(2)                                # p̃ [B, L, d]
            C = F.elu(lin(torch.cat([(M - pt).abs(), M * pt], -1), p + "c"))
            MC = torch.cat([M, C], -1)
            G = torch.sigmoid(lin(MC, "mem.g"))
            Mn = G * F.elu(lin(MC, "mem.m"))
            M = Mn + (1 - G) * M if carry else Mn
        e = lin(F.elu(lin(M, "sum.e1")), "sum.e2")
        m = valid[:, :, None]
        a = torch.softmax(e.masked_fill(~m, -1e9), 1)
        return (a * M.masked_fill(~m, 0.0)).sum(1)

    return forward


if __name__ == "__main__":
    sys.exit(peer_common.run("PSAN PyTorch peer", build))
