"""synprobe_torch.safetensors_io — read and write safetensors (F32): with the `safetensors` package
when it is installed, else a small reader/writer of the format: u64 LE header length N, N bytes of
JSON {name: {dtype, shape, data_offsets}} (+ "__metadata__"), then the raw little-endian data."""
import json
import struct

import numpy as np
import torch

try:  # optional
    import safetensors.torch as _st  # type: ignore
except Exception:  # pragma: no cover - depends on the machine
    _st = None


def read(path):
    """-> ({name: float32 tensor}, metadata dict)"""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError("%s: not a safetensors file (shorter than its 8-byte header length)" % path)
    (hl,) = struct.unpack_from("<Q", raw, 0)
    if 8 + hl > len(raw):
        raise ValueError("%s: header length %d runs past the end of the file (%d bytes)" % (path, hl, len(raw)))
    hdr = json.loads(raw[8:8 + hl])
    data = memoryview(raw)[8 + hl:]
    meta = hdr.pop("__metadata__", {}) or {}
    out = {}
    for k, t in hdr.items():
        a, b = t["data_offsets"]
        if t["dtype"] != "F32":
            raise ValueError("%s: %s: dtype %s, expected F32" % (path, k, t["dtype"]))
        if b > len(data) or b - a != 4 * int(np.prod(t["shape"], dtype=np.int64)):
            raise ValueError("%s: %s: data_offsets [%d, %d] do not fit its shape %s" % (path, k, a, b, t["shape"]))
        out[k] = torch.from_numpy(np.frombuffer(data[a:b], "<f4").reshape(t["shape"]).copy())
    return out, meta


def write(path, tensors, metadata=None):
    """tensors: {name: tensor} written F32 in the given order; metadata: {str: str}"""
    tensors = {k: v.detach().to("cpu", torch.float32).contiguous() for k, v in tensors.items()}
    meta = {str(k): str(v) for k, v in (metadata or {}).items()}
    if _st is not None:
        _st.save_file(tensors, path, metadata=meta or None)
        return
    hdr, off, blobs = {}, 0, []
    if meta:
        hdr["__metadata__"] = meta
    for k, v in tensors.items():
        b = v.numpy().astype("<f4").tobytes()
        hdr[k] = {"dtype": "F32", "shape": list(v.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    js = json.dumps(hdr, separators=(",", ":")).encode()
    js += b" " * ((8 - (8 + len(js)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(js)))
        f.write(js)
        for b in blobs:
            f.write(b)
