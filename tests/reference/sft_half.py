#!/usr/bin/env python3
"""tests/reference/sft_half.py — rewrite a safetensors file's F32 tensors as F16 or BF16 (NumPy only).

    sft_half.py IN.safetensors OUT_DIR DTYPE      DTYPE: f16 | bf16

Writes OUT_DIR/model.safetensors with every F32 tensor converted (f16: NumPy's round to nearest
even; bf16: the float's top 16 bits rounded to nearest even on the dropped 16, by bit
arithmetic), other dtypes copied, and OUT_DIR/widened/model.safetensors holding the same halves
widened back to F32 exactly: the f32 model whose forward a half model must match bit for bit.
Independent of synprobe (used by tests/cli/t2208-bert-half.sh)."""
import json
import struct
import sys
import os

import numpy as np


def read(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        hdr = json.loads(f.read(n))
        data = f.read()
    meta = hdr.pop("__metadata__", None)
    return hdr, data, meta


def to_bf16(a):
    u = np.ascontiguousarray(a, dtype="<f4").view("<u4").astype(np.uint64)
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return r.astype("<u2")


def write(path, tensors, meta):
    hdr, off, blobs = {}, 0, []
    for name, (dt, shape, raw) in tensors.items():
        hdr[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        blobs.append(raw)
    if meta is not None:
        hdr["__metadata__"] = meta
    h = json.dumps(hdr).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def main():
    src, out, dtype = sys.argv[1], sys.argv[2], sys.argv[3]
    hdr, data, meta = read(src)
    half, wide = {}, {}
    for name, e in sorted(hdr.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        b0, b1 = e["data_offsets"]
        raw = data[b0:b1]
        if e["dtype"] != "F32":
            half[name] = wide[name] = (e["dtype"], e["shape"], raw)
            continue
        a = np.frombuffer(raw, dtype="<f4")
        if dtype == "f16":
            h = a.astype("<f2")
            w = h.astype("<f4")
            half[name] = ("F16", e["shape"], h.tobytes())
        else:
            h = to_bf16(a)
            w = (h.astype(np.uint32) << 16).view("<f4")
            half[name] = ("BF16", e["shape"], h.tobytes())
        wide[name] = ("F32", e["shape"], w.astype("<f4").tobytes())
    write(os.path.join(out, "model.safetensors"), half, meta)
    write(os.path.join(out, "widened", "model.safetensors"), wide, meta)


if __name__ == "__main__":
    main()
