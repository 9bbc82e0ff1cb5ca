#!/usr/bin/python3
"""bench/peer_san.py — PyTorch eager peer of our SAN-family forwards (SPEC-structures §5.1, §5.3,
§5.5, §5.6), for bench/encode.sh: one Transformer layer written once in torch ops, with the
kind's additions switched on by the resolved config: vanilla SAN (post- or pre-LN), absolute
sequential/structural position encodings (sum or tanh fusion), Shaw relative structural and
sequential positions (clip 16, tables shared by the heads), SSAN's selector (inference
A = [E_s > 0], in its selective layers), SG-Net's extra SDOI layer and its aggregation. The same
weights and sentences as ours, length-sorted padded batches, masks as a PyTorch user writes them
(-1e9 for masked keys; a row with no allowed key gives zero weights, as ours).

    peer_san.py DIR [--threads T] [--torch-threads auto|N] [--budget TOK] [--device cpu|cuda] [--reps R]

DIR and the options: bench/peer_common.py (imported first: it pins the BLAS threads before torch
loads). Prints one line "PEER key=value ...", with the largest absolute difference between the
peer's sentence vectors and ours."""
import math
import sys

import peer_common  # noqa: F401  (pins the threads; before torch)
import torch  # noqa: E402

F = torch.nn.functional


def build(cfg, W, dev):
    kind = cfg["kind"]
    d, H, nl, eps = cfg["d_model"], cfg["heads"], cfg["layers"], cfg["ln_eps"]
    dk = d // H
    scale = 1.0 / math.sqrt(dk)
    post = cfg["norm"] == "post"
    act = torch.relu if cfg["activation"] == "relu" else F.gelu     # exact-erf GELU, as ours
    pos = cfg["position"]
    seq_pe, str_pe = pos in ("seq", "seq+struct"), pos in ("struct", "seq+struct")
    fuse = pos == "seq+struct" and cfg["f_abs"] == "tanh"
    selective = set(cfg["selective_layers"]) if kind == "ssan" else set()
    rc, rsc = cfg["rel_clip"], cfg["rel_seq_clip"]
    pe_tab = [peer_common.sinusoid(512, d).to(dev)]
    if kind == "sg-net":
        if cfg["sgnet_aggregation"] == "code":
            w = torch.softmax(W["sdoi.agg.w"].double(), 0) * W["sdoi.agg.gamma"].double()
            agg = (float(w[0]), float(w[1]))
        else:
            agg = (cfg["sgnet_alpha"], 1.0 - cfg["sgnet_alpha"])

    def pe(rows):
        if rows > pe_tab[0].shape[0]:
            pe_tab[0] = peer_common.sinusoid(2 * rows, d).to(dev)
        return pe_tab[0]

    def lin(x, name):
        y = x @ W[name + ".weight"]
        return y + W[name + ".bias"] if name + ".bias" in W else y

    def ln(x, name):
        return F.layer_norm(x, (d,), W[name + ".weight"], W[name + ".bias"], eps)

    def heads(x, B, L):
        return x.view(B, L, H, dk).transpose(1, 2)                        # [B, H, L, dk]

    def mha(x, p, ok, rel_b, seq_b, sel):
        """x [B, L, d]; ok [B, 1, L, L] allowed keys; rel_b/seq_b [B or 1, 1, L, L] buckets"""
        B, L, _ = x.shape
        q, k, v = heads(lin(x, p + "attn.q"), B, L), heads(lin(x, p + "attn.k"), B, L), heads(lin(x, p + "attn.v"), B, L)
        S = q @ k.transpose(-1, -2)                                       # [B, H, L, L]
        if rel_b is not None:
            S = S + (q @ W[p + "attn.rel_k_struct"].t()).gather(-1, rel_b.expand(B, H, L, L))
        if seq_b is not None:
            S = S + (q @ W[p + "attn.rel_k_seq"].t()).gather(-1, seq_b.expand(B, H, L, L))
        if sel:                                                           # SSAN: A = [Q_s K_sᵀ > 0]
            z = lin(x, p + "attn.sel")
            E = heads(z[..., :d].contiguous(), B, L) @ heads(z[..., d:].contiguous(), B, L).transpose(-1, -2)
            ok = ok & (E > 0)
        P = torch.softmax((S * scale).masked_fill(~ok, -1e9), -1) * ok   # an empty row: zeros
        O = P @ v
        if rel_b is not None:
            nb = 2 * rc + 1
            O = O + P.new_zeros(B, H, L, nb).scatter_add_(-1, rel_b.expand(B, H, L, L), P) @ W[p + "attn.rel_v_struct"]
        if seq_b is not None:
            nb = 2 * rsc + 1
            O = O + P.new_zeros(B, H, L, nb).scatter_add_(-1, seq_b.expand(B, H, L, L), P) @ W[p + "attn.rel_v_seq"]
        return lin(O.transpose(1, 2).reshape(B, L, d), p + "attn.o")

    def layer(x, p, ok, rel_b, seq_b, sel, post_ln):
        if post_ln:
            x = ln(x + mha(x, p, ok, rel_b, seq_b, sel), p + "ln1")
            return ln(x + lin(act(lin(x, p + "ffn.w1")), p + "ffn.w2"), p + "ln2")
        x = x + mha(ln(x, p + "ln1"), p, ok, rel_b, seq_b, sel)
        return x + lin(act(lin(ln(x, p + "ln2"), p + "ffn.w1")), p + "ffn.w2")

    def forward(table, ids, lens, st):
        X = table[ids]
        if "input.proj.weight" in W:
            X = lin(X, "input.proj")
        B, L, _ = X.shape
        i = torch.arange(L, device=dev)
        valid = i[None, :] < lens[:, None]                                # [B, L]
        ok = valid[:, None, None, :].expand(B, 1, L, L)
        if cfg["emb_scale"]:
            X = X * math.sqrt(d)
        if seq_pe or str_pe:
            depth = st.get("depth")
            tab = pe(max(L, int(depth.max()) + 1 if depth is not None else 0))
            p1 = tab[:L][None].expand(B, L, d) if seq_pe else None
            p2 = tab[depth] if str_pe else None
            if fuse:
                X = X + torch.tanh(lin(torch.cat([p1, p2], -1), "pos.fuse"))
            else:
                X = X + (p1 if seq_pe else 0) + (p2 if str_pe else 0)
        rel_b = (st["rel"].clamp(-rc, rc) + rc)[:, None] if cfg["rel_struct"] else None
        seq_b = ((i[None, :] - i[:, None]).clamp(-rsc, rsc) + rsc)[None, None] if cfg["rel_seq"] else None
        for l in range(nl):
            X = layer(X, "layers.%d." % l, ok, rel_b, seq_b, l in selective, post)
        if not post:
            X = ln(X, "final.ln")
        if kind == "sg-net":                                              # SDOI layer, row = query
            X = agg[0] * X + agg[1] * layer(X, "sdoi.", st["anc"][:, None], None, None, False, True)
        m = valid[:, :, None]
        if cfg["pooling"] == "mean":
            return X.masked_fill(~m, 0.0).sum(1) / lens[:, None].to(X.dtype)
        if cfg["pooling"] == "max":
            return X.masked_fill(~m, -1e9).amax(1)
        return X[:, 0]

    return forward


if __name__ == "__main__":
    sys.exit(peer_common.run("SAN-family PyTorch peer", build))
