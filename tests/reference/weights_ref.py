"""weights_ref.py — the tensors an encoder config reads from a weights file, written from
schemas/encoder-weights.md and the defaults of schemas/encoder.schema.json (not from the C code),
and a safetensors writer that can break a file on purpose (tests t175-t177).

  python3 weights_ref.py expected CONFIG.json
      one line per tensor, "NAME [a,b]", in the order of schemas/encoder-weights.md
  python3 weights_ref.py write CONFIG.json OUT.safetensors [EDIT...]
      every expected tensor, F32, small finite values (seeded), tensors in sorted name order
      (another order than synprobe's writer on purpose); EDITs:
        drop=NAME            leave NAME out
        extra=NAME:a,b       add a tensor NAME of that shape
        shape=NAME:a,b       write NAME with that shape instead
        dtype=NAME:DT        write NAME as DT (F16, BF16, F64, I32; the data in that width)
        nan=NAME             NAME's element 0 is NaN
        truncate=N           cut the last N bytes off the file
        prefix=P             every name prefixed with P (a checkpoint's own naming)

Only the standard library and NumPy.
"""
import json
import struct
import sys

import numpy as np


def defaults(c):
    k = c["kind"]
    d = c.get("d_model", {"san": 512, "ssan": 512, "sg-net": 768, "ms-san": 300, "psan": 300}[k])
    g = dict(c)
    g["d_model"] = d
    g.setdefault("heads", {"san": 8, "ssan": 8, "sg-net": 12, "ms-san": 6, "psan": 1}[k])
    g.setdefault("layers", {"san": 6, "ssan": 6, "sg-net": 12, "ms-san": 1, "psan": 1}[k])
    g.setdefault("d_ff", d if k in ("ms-san", "psan") else 4 * d)
    g.setdefault("norm", "pre" if k == "ssan" else "post")
    g.setdefault("position", "seq" if k in ("san", "ssan", "sg-net") else "none")
    g.setdefault("f_abs", "tanh")
    g.setdefault("rel_pos", "none")
    g.setdefault("rel_clip", 16)
    g.setdefault("rel_seq_clip", 16)
    g.setdefault("pool_d_h", d)
    g.setdefault("sgnet_aggregation", "fixed")
    g.setdefault("levels", 3)
    g.setdefault("selective_layers", [0] if k == "ssan" else [])
    g.setdefault("d_input", d)
    return g


def expected_bert(cfg):
    """docs/spec/models.md M3.2: a Hugging Face BertModel's tensors, Linear weights [out, in]"""
    h = json.load(open(cfg["model"] + "/config.json"))
    d, F = h["hidden_size"], h["intermediate_size"]
    out = [("embeddings.word_embeddings.weight", [h["vocab_size"], d]),
           ("embeddings.position_embeddings.weight", [h["max_position_embeddings"], d]),
           ("embeddings.token_type_embeddings.weight", [h["type_vocab_size"], d]),
           ("embeddings.LayerNorm.weight", [d]), ("embeddings.LayerNorm.bias", [d])]
    for l in range(h["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        for nm, o, i in (("attention.self.query", d, d), ("attention.self.key", d, d), ("attention.self.value", d, d),
                         ("attention.output.dense", d, d), ("attention.output.LayerNorm", d, 0),
                         ("intermediate.dense", F, d), ("output.dense", d, F), ("output.LayerNorm", d, 0)):
            out.append((p + nm + ".weight", [o, i] if i else [o]))
            out.append((p + nm + ".bias", [o]))
    return out


def expected(cfg):
    if cfg["kind"] == "bert":
        return expected_bert(cfg)
    c = defaults(cfg)
    k, d, ff = c["kind"], c["d_model"], c["d_ff"]
    dk = d // c["heads"]
    out = []

    def lin(name, rows, cols, bias=True):
        out.append((name + ".weight", [rows, cols]))
        if bias:
            out.append((name + ".bias", [cols]))

    def ln(name):
        out.append((name + ".weight", [d]))
        out.append((name + ".bias", [d]))

    def base_layer(p, selective):
        for m in "qkvo":
            lin(f"{p}.attn.{m}", d, d)
        if selective:
            lin(f"{p}.attn.sel", d, 2 * d)
        if "struct" in c["rel_pos"]:
            cl = c["rel_clip"]
            out.append((f"{p}.attn.rel_k_struct", [2 * cl + 1, dk]))
            out.append((f"{p}.attn.rel_v_struct", [2 * cl + 1, dk]))
        if "seq" in c["rel_pos"]:
            cl = c["rel_seq_clip"]
            out.append((f"{p}.attn.rel_k_seq", [2 * cl + 1, dk]))
            out.append((f"{p}.attn.rel_v_seq", [2 * cl + 1, dk]))
        ln(f"{p}.ln1")
        lin(f"{p}.ffn.w1", d, ff)
        lin(f"{p}.ffn.w2", ff, d)
        ln(f"{p}.ln2")

    if c["d_input"] != d:
        lin("input.proj", c["d_input"], d)
    if k in ("san", "ssan", "sg-net"):
        if c["position"] == "seq+struct" and c["f_abs"] == "tanh":
            lin("pos.fuse", 2 * d, d)
        for l in range(c["layers"]):
            base_layer(f"layers.{l}", k == "ssan" and l in c["selective_layers"])
        if c["norm"] == "pre":
            ln("final.ln")
        if k == "sg-net":
            base_layer("sdoi", False)
            if c["sgnet_aggregation"] == "code":
                out.append(("sdoi.agg.w", [2]))
                out.append(("sdoi.agg.gamma", [1]))
    elif k == "ms-san":
        for l in range(c["layers"]):
            p = f"layers.{l}"
            for m in "qkvo":
                lin(f"{p}.attn.{m}", d, d, bias=False)
            lin(f"{p}.gate.in", d, d, bias=False)
            lin(f"{p}.gate.out", d, d, bias=False)
            lin(f"{p}.gate.w1", d, d)
            lin(f"{p}.gate.w2", d, d, bias=False)
            lin(f"{p}.ffn.w1", d, ff)
            lin(f"{p}.ffn.w2", ff, d)
            out.append((f"{p}.ln.weight", [d]))
            out.append((f"{p}.ln.bias", [d]))
        lin("pool.w1", d, c["pool_d_h"])
        lin("pool.w2", c["pool_d_h"], d)
    elif k == "psan":
        for t in range(1, c["levels"] + 1):
            out.append((f"psa.{t}.a1.weight", [d, d]))
            out.append((f"psa.{t}.a2.weight", [d, d]))
            out.append((f"psa.{t}.a.bias", [d]))
            lin(f"psa.{t}.c", 2 * d, d)
        lin("mem.g", 2 * d, d)
        lin("mem.m", 2 * d, d)
        lin("sum.e1", d, d)
        lin("sum.e2", d, d)
    else:
        raise SystemExit(f"weights_ref.py: kind {k}: not described here")
    return out


def as_dtype(a, dt):
    if dt == "F32":
        return a.astype("<f4").tobytes()
    if dt == "F16":
        return a.astype("<f2").tobytes()
    if dt == "BF16":
        return (a.astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()
    if dt == "F64":
        return a.astype("<f8").tobytes()
    if dt == "I32":
        return a.astype("<i4").tobytes()
    raise SystemExit(f"weights_ref.py: dtype {dt}: not written here")


def write(cfg, path, edits):
    rng = np.random.default_rng(7)
    tensors = {n: (s, "F32") for n, s in expected(cfg)}
    prefix, cut = "", 0
    nan = set()
    for e in edits:
        key, val = e.split("=", 1)
        if key == "drop":
            del tensors[val]
        elif key in ("extra", "shape"):
            n, sh = val.split(":")
            tensors[n] = ([int(x) for x in sh.split(",")], tensors.get(n, (None, "F32"))[1])
        elif key == "dtype":
            n, dt = val.split(":")
            tensors[n] = (tensors[n][0], dt)
        elif key == "nan":
            nan.add(val)
        elif key == "truncate":
            cut = int(val)
        elif key == "prefix":
            prefix = val
        else:
            raise SystemExit(f"weights_ref.py: edit {e}: unknown")
    hdr, blobs, off = {}, [], 0
    for n in sorted(tensors):
        sh, dt = tensors[n]
        a = rng.uniform(-0.1, 0.1, size=int(np.prod(sh))).reshape(sh)
        if n in nan:
            a.flat[0] = np.nan
        b = as_dtype(a, dt)
        hdr[prefix + n] = {"dtype": dt, "shape": sh, "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    js = json.dumps(hdr).encode("utf-8")
    js += b" " * ((8 - len(js) % 8) % 8)
    data = struct.pack("<Q", len(js)) + js + b"".join(blobs)
    with open(path, "wb") as f:
        f.write(data[:len(data) - cut])


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "expected":
        for n, s in expected(json.load(open(sys.argv[2]))):
            print(n, "[" + ",".join(str(x) for x in s) + "]")
    elif len(sys.argv) >= 4 and sys.argv[1] == "write":
        write(json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
