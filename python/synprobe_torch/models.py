"""synprobe_torch.models — the forwards of synprobe's seed encoders in PyTorch (docs/spec/structures.md §5),
one definition shared by the nn.Module twins (Encoder) and the bench peers (bench/peer_*.py).

Parameters: param_specs(cfg) lists every tensor (name, shape, init) in the order and with the names
and shapes encoder/enc_san.c registers (schemas/encoder-weights.md); linear weights are [in, out]
(y = x W + b), as synprobe stores them (not nn.Linear's [out, in]).

A forward built by forward_fn(cfg, W) (W: {name: tensor}) takes
    X     [B, L, d_input] input word vectors (padding rows anything)
    lens  [B] sentence lengths
    st    {key: padded structure}: depth [B, L], dist / rel [B, L, L] (long), anc [B, L, L] (bool),
          pid [B, T, L] (long); only the keys config.needs(cfg) names
    attn_layer  None: no map; -1: the last attention layer; k: layer k (SG-Net: k == layers is the
          SDOI layer; PSAN: memory step k)
and returns {"sent": [B, dim], "tokens": [B, L, d], "attn": [B, L, L] or None} — synprobe's sentence
vectors, token vectors and attention maps (mean over heads of the post-softmax, post-selection
weights; PSAN: mean over the d features), zero in the padding."""
import math

import numpy as np
import torch

from . import config as _config

F = torch.nn.functional

INIT_GLOROT, INIT_ZERO, INIT_ONE, INIT_HALF = "glorot", "zero", "one", "half"


# ---- parameters ----

def param_specs(cfg):
    """[(name, shape tuple, init)] in synprobe's registry order (encoder/enc_san.c model_build)"""
    c = _config.resolve(cfg)
    d, kind, out = c["d_model"], c["kind"], []

    def lin(p, rows, cols, bias=True):
        out.append((p + ".weight", (rows, cols), INIT_GLOROT))
        if bias:
            out.append((p + ".bias", (cols,), INIT_ZERO))

    def ln(p):
        out.append((p + ".weight", (d,), INIT_ONE))
        out.append((p + ".bias", (d,), INIT_ZERO))

    def san_layer(p, selective):
        dk = d // c["heads"]
        for x in "qkvo":
            lin(p + ".attn." + x, d, d)
        if selective:
            lin(p + ".attn.sel", d, 2 * d)
        if c["rel_struct"]:
            out.append((p + ".attn.rel_k_struct", (2 * c["rel_clip"] + 1, dk), INIT_GLOROT))
            out.append((p + ".attn.rel_v_struct", (2 * c["rel_clip"] + 1, dk), INIT_GLOROT))
        if c["rel_seq"]:
            out.append((p + ".attn.rel_k_seq", (2 * c["rel_seq_clip"] + 1, dk), INIT_GLOROT))
            out.append((p + ".attn.rel_v_seq", (2 * c["rel_seq_clip"] + 1, dk), INIT_GLOROT))
        ln(p + ".ln1")
        lin(p + ".ffn.w1", d, c["d_ff"])
        lin(p + ".ffn.w2", c["d_ff"], d)
        ln(p + ".ln2")

    if c["d_input"] != d:
        lin("input.proj", c["d_input"], d)
    if kind in ("san", "ssan", "sg-net"):
        if c["position"] == "seq+struct" and c["f_abs"] == "tanh":
            lin("pos.fuse", 2 * d, d)
        sel = set(c["selective_layers"])
        for l in range(c["layers"]):
            san_layer("layers.%d" % l, kind == "ssan" and l in sel)
        if c["norm"] == "pre":
            ln("final.ln")
        if kind == "sg-net":
            san_layer("sdoi", False)
            if c["sgnet_aggregation"] == "code":
                out.append(("sdoi.agg.w", (2,), INIT_HALF))
                out.append(("sdoi.agg.gamma", (1,), INIT_ONE))
    elif kind == "ms-san":
        for l in range(c["layers"]):
            p = "layers.%d" % l
            for x in "qkvo":
                lin(p + ".attn." + x, d, d, False)
            lin(p + ".gate.in", d, d, False)
            lin(p + ".gate.out", d, d, False)
            lin(p + ".gate.w1", d, d, True)
            lin(p + ".gate.w2", d, d, False)
            lin(p + ".ffn.w1", d, c["d_ff"])
            lin(p + ".ffn.w2", c["d_ff"], d)
            ln(p + ".ln")
        lin("pool.w1", d, c["pool_d_h"])
        lin("pool.w2", c["pool_d_h"], d)
    else:  # psan
        for t in range(1, c["levels"] + 1):
            p = "psa.%d" % t
            lin(p + ".a1", d, d, False)
            lin(p + ".a2", d, d, False)
            out.append((p + ".a.bias", (d,), INIT_ZERO))
            lin(p + ".c", 2 * d, d)
        lin("mem.g", 2 * d, d)
        lin("mem.m", 2 * d, d)
        lin("sum.e1", d, d)
        lin("sum.e2", d, d)
    return out


def attn_layers(cfg):
    c = _config.resolve(cfg)
    return c["layers"] + 1 if c["kind"] == "sg-net" else c["levels"] if c["kind"] == "psan" else c["layers"]


def sinusoid(rows, d):
    """PE(pos) for pos < rows (docs/spec/structures.md §5.6, interleaved sin/cos), computed in double as synprobe does"""
    pos = np.arange(rows, dtype=np.float64)[:, None]
    k2 = (np.arange(d) & ~1).astype(np.float64)
    ang = pos / np.power(10000.0, k2 / d)
    pe = np.where(np.arange(d) % 2 == 1, np.cos(ang), np.sin(ang))
    return torch.from_numpy(pe.astype(np.float32))


def _act(name):
    return torch.relu if name == "relu" else F.gelu if name == "gelu" else F.elu   # exact-erf GELU, as synprobe


# ---- forwards ----

def forward_fn(cfg, W):
    """the kind's forward over W ({name: tensor}, looked up at every call: a live mapping of a
    module's parameters works)"""
    c = _config.resolve(cfg)
    return {"ms-san": _mssan, "psan": _psan}.get(c["kind"], _san)(c, W)


def _lin(W, x, name):
    y = x @ W[name + ".weight"]
    b = name + ".bias"
    return y + W[b] if b in W else y


def _san(cfg, W):
    """SAN family: vanilla SAN (post/pre-LN), absolute seq/struct PE (sum or tanh fusion), Shaw
    relative struct/seq positions, SSAN's selector (A = [E_s > 0]), SG-Net's SDOI layer"""
    kind = cfg["kind"]
    d, H, nl, eps = cfg["d_model"], cfg["heads"], cfg["layers"], cfg["ln_eps"]
    dk = d // H
    scale = 1.0 / math.sqrt(dk)
    post = cfg["norm"] == "post"
    act = _act(cfg["activation"])
    pos = cfg["position"]
    seq_pe, str_pe = pos in ("seq", "seq+struct"), pos in ("struct", "seq+struct")
    fuse = pos == "seq+struct" and cfg["f_abs"] == "tanh"
    selective = set(cfg["selective_layers"]) if kind == "ssan" else set()
    rc, rsc = cfg["rel_clip"], cfg["rel_seq_clip"]
    pe_tab = {}

    def pe(rows, dev, dtype):
        t = pe_tab.get((dev, dtype))
        if t is None or rows > t.shape[0]:
            t = pe_tab[(dev, dtype)] = sinusoid(max(512, 2 * rows), d).to(dev, dtype)
        return t

    def lin(x, name):
        return _lin(W, x, name)

    def ln(x, name):
        return F.layer_norm(x, (d,), W[name + ".weight"], W[name + ".bias"], eps)

    def heads(x, B, L):
        return x.view(B, L, H, dk).transpose(1, 2)                        # [B, H, L, dk]

    def mha(x, p, ok, rel_b, seq_b, sel, amap):
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
        if amap is not None:
            amap.append(P.mean(1))
        O = P @ v
        if rel_b is not None:
            nb = 2 * rc + 1
            O = O + P.new_zeros(B, H, L, nb).scatter_add(-1, rel_b.expand(B, H, L, L), P) @ W[p + "attn.rel_v_struct"]
        if seq_b is not None:
            nb = 2 * rsc + 1
            O = O + P.new_zeros(B, H, L, nb).scatter_add(-1, seq_b.expand(B, H, L, L), P) @ W[p + "attn.rel_v_seq"]
        return lin(O.transpose(1, 2).reshape(B, L, d), p + "attn.o")

    def layer(x, p, ok, rel_b, seq_b, sel, post_ln, amap):
        if post_ln:
            x = ln(x + mha(x, p, ok, rel_b, seq_b, sel, amap), p + "ln1")
            return ln(x + lin(act(lin(x, p + "ffn.w1")), p + "ffn.w2"), p + "ln2")
        x = x + mha(ln(x, p + "ln1"), p, ok, rel_b, seq_b, sel, amap)
        return x + lin(act(lin(ln(x, p + "ln2"), p + "ffn.w1")), p + "ffn.w2")

    def forward(X, lens, st, attn_layer=None):
        dev = X.device
        if "input.proj.weight" in W:
            X = lin(X, "input.proj")
        B, L, _ = X.shape
        al = None if attn_layer is None else (nl if kind == "sg-net" else nl - 1) if attn_layer < 0 else attn_layer
        i = torch.arange(L, device=dev)
        valid = i[None, :] < lens[:, None]                                # [B, L]
        ok = valid[:, None, None, :].expand(B, 1, L, L)
        if cfg["emb_scale"]:
            X = X * math.sqrt(d)
        if seq_pe or str_pe:
            depth = st.get("depth")
            tab = pe(max(L, int(depth.max()) + 1 if depth is not None else 0), dev, X.dtype)
            p1 = tab[:L][None].expand(B, L, d) if seq_pe else None
            p2 = tab[depth] if str_pe else None
            if fuse:
                X = X + torch.tanh(lin(torch.cat([p1, p2], -1), "pos.fuse"))
            else:
                X = X + (p1 if seq_pe else 0) + (p2 if str_pe else 0)
        rel_b = (st["rel"].clamp(-rc, rc) + rc)[:, None] if cfg["rel_struct"] else None
        seq_b = ((i[None, :] - i[:, None]).clamp(-rsc, rsc) + rsc)[None, None] if cfg["rel_seq"] else None
        amap = []
        for l in range(nl):
            X = layer(X, "layers.%d." % l, ok, rel_b, seq_b, l in selective, post, amap if l == al else None)
        if not post:
            X = ln(X, "final.ln")
        if kind == "sg-net":                                              # SDOI layer, row = query
            if cfg["sgnet_aggregation"] == "code":
                w = torch.softmax(W["sdoi.agg.w"], 0) * W["sdoi.agg.gamma"]
                a0, a1 = w[0], w[1]
            else:
                a0, a1 = cfg["sgnet_alpha"], 1.0 - cfg["sgnet_alpha"]
            X = a0 * X + a1 * layer(X, "sdoi.", st["anc"][:, None], None, None, False, True, amap if al == nl else None)
        m = valid[:, :, None]
        X = X.masked_fill(~m, 0.0)
        if cfg["pooling"] == "mean":
            s = X.sum(1) / lens[:, None].to(X.dtype)
        elif cfg["pooling"] == "max":
            s = X.masked_fill(~m, -1e9).amax(1)
        else:
            s = X[:, 0]
        return {"sent": s, "tokens": X, "attn": _pad_map(amap, valid)}

    return forward


def _pad_map(amap, valid):
    if not amap:
        return None
    return amap[0] * (valid[:, :, None] & valid[:, None, :])


def _mssan(cfg, W):
    """MS-SAN (§5.2): 2h direction-masked heads with WORD/DEP/NONE distance priors, fusion gate,
    FFN + LN; attentive + max pooling"""
    d, H, nl = cfg["d_model"], cfg["heads"], cfg["layers"]
    h, dk = H // 2, d // H
    alpha, eps = cfg["alpha"], cfg["ln_eps"]
    strict = cfg["direction_mask"] == "strict"
    dists = [{"none": 0, "word": 1, "dep": 2}[x] for x in cfg["distances"]]
    dist = [dists[m % h] for m in range(H)]
    act = _act(cfg["activation"])

    def masks(lens, D, L, dev):
        """[B, H, L, L]: additive direction + α·(−|i−j| | −D | 0) + padding, and the allowed keys"""
        i = torch.arange(L, device=dev)
        fwd = (i[None, :] < i[:, None]) if strict else (i[None, :] <= i[:, None])    # [i, j]: j ≤ i
        bwd = (i[None, :] > i[:, None]) if strict else (i[None, :] >= i[:, None])
        word = -(i[:, None] - i[None, :]).abs().float()
        pad = i[None, :] < lens[:, None]                                              # [B, L] key valid
        M = torch.zeros(len(lens), H, L, L, device=dev)
        OK = torch.zeros(len(lens), H, L, L, dtype=torch.bool, device=dev)
        for m in range(H):
            ok = (fwd if m < h else bwd)[None] & pad[:, None, :]
            prior = word[None] if dist[m] == 1 else (-D.float() if dist[m] == 2 else torch.zeros(1, L, L, device=dev))
            M[:, m] = torch.where(ok, alpha * prior, torch.full_like(M[:, m], -1e9))
            OK[:, m] = ok
        return M, OK, pad

    def forward(X, lens, st, attn_layer=None):
        dev = X.device
        if "input.proj.weight" in W:
            X = _lin(W, X, "input.proj")
        B, L, _ = X.shape
        al = None if attn_layer is None else nl - 1 if attn_layer < 0 else attn_layer
        M, OK, pad = masks(lens, st.get("dist"), L, dev)
        amap = []
        for l in range(nl):
            p = "layers.%d." % l
            q = (X @ W[p + "attn.q.weight"]).view(B, L, H, dk).transpose(1, 2)
            k = (X @ W[p + "attn.k.weight"]).view(B, L, H, dk).transpose(1, 2)
            v = (X @ W[p + "attn.v.weight"]).view(B, L, H, dk).transpose(1, 2)
            P = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dk) + M, -1) * OK     # a row with no key: zeros
            if l == al:
                amap.append(P.mean(1))
            O = (P @ v).transpose(1, 2).reshape(B, L, d) @ W[p + "attn.o.weight"]
            Ih = X @ W[p + "gate.in.weight"]
            Oh = O @ W[p + "gate.out.weight"]
            f = torch.sigmoid(Ih @ W[p + "gate.w1.weight"] + W[p + "gate.w1.bias"] + Oh @ W[p + "gate.w2.weight"])
            G = f * Ih + (1 - f) * Oh
            Fo = act(G @ W[p + "ffn.w1.weight"] + W[p + "ffn.w1.bias"]) @ W[p + "ffn.w2.weight"] + W[p + "ffn.w2.bias"]
            X = F.layer_norm(G + Fo, (d,), W[p + "ln.weight"], W[p + "ln.bias"], eps)
        E = act(X @ W["pool.w1.weight"] + W["pool.w1.bias"]) @ W["pool.w2.weight"] + W["pool.w2.bias"]
        valid = pad[:, :, None]                                                       # [B, L, 1]
        a = torch.softmax(E.masked_fill(~valid, -1e9), 1)
        X = X.masked_fill(~valid, 0.0)
        att = (a * X).sum(1)
        mx = X.masked_fill(~valid, -1e9).amax(1)
        return {"sent": torch.cat([att, mx], -1), "tokens": X, "attn": _pad_map(amap, pad)}

    return forward


def _psan(cfg, W):
    """PSAN (§5.4): multi-dimensional phrase attention per level under the block-diagonal,
    diagonal-disabled phrase mask (a single-word phrase gets p̃ = 0, Q18), gated memory update
    (Q16 order, Q19 highway carry), attentive summary"""
    T = cfg["levels"]
    coarse_first = cfg["psan_order"] == "coarse-to-fine"
    carry = cfg["psan_highway_carry"]

    def lin(x, name):
        return _lin(W, x, name)

    def forward(X, lens, st, attn_layer=None):
        dev = X.device
        M = X
        if "input.proj.weight" in W:
            M = lin(M, "input.proj")
        B, L, d = M.shape
        al = None if attn_layer is None else T - 1 if attn_layer < 0 else attn_layer
        i = torch.arange(L, device=dev)
        valid = i[None, :] < lens[:, None]                                   # [B, L]
        off_diag = i[:, None] != i[None, :]
        amap = []
        for s in range(1, T + 1):
            t = s if coarse_first else T - s + 1                             # Q16: fine -> coarse
            p = "psa.%d." % t
            pid = st["pid"][:, t - 1]                                         # [B, L]
            ok = (pid[:, :, None] == pid[:, None, :]) & valid[:, :, None] & valid[:, None, :] & off_diag   # [B, L, L]
            q = M @ W[p + "a1.weight"]
            k = M @ W[p + "a2.weight"] + W[p + "a.bias"]
            a = F.elu(q[:, :, None, :] + k[:, None, :, :])                   # [B, L(i), L(j), d]
            w = torch.softmax(a.masked_fill(~ok[..., None], -1e9), 2) * ok[..., None]
            if s - 1 == al:
                amap.append(w.mean(-1))
            pt = (w * M[:, None, :, :]).sum(2)                                # p̃ [B, L, d]
            C = F.elu(lin(torch.cat([(M - pt).abs(), M * pt], -1), p + "c"))
            MC = torch.cat([M, C], -1)
            G = torch.sigmoid(lin(MC, "mem.g"))
            Mn = G * F.elu(lin(MC, "mem.m"))
            M = Mn + (1 - G) * M if carry else Mn
        e = lin(F.elu(lin(M, "sum.e1")), "sum.e2")
        m = valid[:, :, None]
        a = torch.softmax(e.masked_fill(~m, -1e9), 1)
        M = M.masked_fill(~m, 0.0)
        return {"sent": (a * M).sum(1), "tokens": M, "attn": _pad_map(amap, valid)}

    return forward
