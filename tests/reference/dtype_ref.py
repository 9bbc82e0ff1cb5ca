"""tests/reference/dtype_ref.py — float32 -> IEEE half and bfloat16, independently of
common/dtype.c: half through NumPy's own conversion (numpy.float16: round to nearest even,
subnormals, overflow to inf), bfloat16 by bit manipulation on NumPy arrays (NumPy has no bf16):
round the dropped low 16 bits to nearest, ties to even; a NaN stays a NaN (quiet bit set).

Used by tests/cli/t2150-store-dtype.sh:
  dtype_ref.py values OUT.f32              write the test values (specials, ties, subnormals,
                                           random over the whole range) as float32 LE
  dtype_ref.py check f16|bf16 IN.f32 OUT   OUT = the driver's packed bits then its widened
                                           floats; prints one line per disagreement, exits 1 on any
  dtype_ref.py store DB                    every f16/bf16 run's blobs against the f32 run of the
                                           same model and input (see below)
"""
import sqlite3
import sys

import numpy as np


def f16_bits(x):
    return np.asarray(x, dtype=np.float32).astype(np.float16).view(np.uint16)


def bf16_bits(x):
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    r = np.where(nan, ((u >> 16) | 0x40) & 0xFFFF, r)
    return r.astype(np.uint16)


def widen(bits, t):
    bits = np.asarray(bits, dtype=np.uint16)
    if t == "f16":
        return bits.view(np.float16).astype(np.float32)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def is_nan_bits(bits, t):
    bits = np.asarray(bits, dtype=np.uint16).astype(np.uint32)
    if t == "f16":
        return ((bits & 0x7C00) == 0x7C00) & ((bits & 0x3FF) != 0)
    return ((bits & 0x7F80) == 0x7F80) & ((bits & 0x7F) != 0)


def test_values():
    one = np.float32(1)
    special = [0.0, -0.0, 1.0, -2.0, 0.1, 1 / 3, 65504.0, 65519.996, 65520.0, 65536.0, -1e6, 3e38,
               np.inf, -np.inf, np.nan, -np.nan,
               2.0 ** -14, 2.0 ** -24, 2.0 ** -25, 1.5 * 2.0 ** -24, 2.5 * 2.0 ** -24,
               1023.5 * 2.0 ** -24, 1e-10, 1e-45, -1e-40,
               1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8]
    v = np.array(special, dtype=np.float32)
    # ties and their neighbours for half (13 dropped bits) and bf16 (16 dropped bits)
    rng = np.random.default_rng(150)
    base = rng.integers(0, 0x7F7F0000, 4000, dtype=np.uint64).astype(np.uint32)
    ties = np.concatenate([(base & ~np.uint32(0x1FFF)) | np.uint32(0x1000),
                           (base & ~np.uint32(0xFFFF)) | np.uint32(0x8000)])
    ties = np.concatenate([ties, ties + 1, ties - 1])
    rand = rng.integers(0, 2 ** 32, 200000, dtype=np.uint64).astype(np.uint32)   # every sign/exponent
    normal = rng.normal(0, 1, 100000).astype(np.float32)                          # vector-like values
    out = np.concatenate([v, ties.view(np.float32), rand.view(np.float32), normal])
    return out.astype("<f4")


def check(t, vals, out):
    n = len(vals)
    got = np.frombuffer(out[:2 * n], dtype="<u2")
    back = np.frombuffer(out[2 * n:2 * n + 4 * n], dtype="<f4")
    want = f16_bits(vals) if t == "f16" else bf16_bits(vals)
    nan = np.isnan(vals)
    bad = np.flatnonzero(np.where(nan, ~is_nan_bits(got, t), got != want))
    wide = widen(want, t)
    badw = np.flatnonzero(np.where(nan, ~np.isnan(back), back.view(np.uint32) != wide.view(np.uint32)))
    for i in bad[:10]:
        print("%s: 0x%08x -> 0x%04x, NumPy 0x%04x" % (t, vals.view(np.uint32)[i], got[i], want[i]))
    for i in badw[:10]:
        print("%s: 0x%08x widened to %r, NumPy %r" % (t, vals.view(np.uint32)[i], back[i], wide[i]))
    return len(bad) + len(badw)


def store(db):
    """For every (model, input) held both as f32 and as f16/bf16 (encoders of the same config):
    the narrow blob is exactly the reference conversion of the f32 blob, and half its size.
    Prints 'rows N' (rows compared) and one line per mismatch."""
    c = sqlite3.connect(db)
    bad = rows = 0
    pairs = c.execute("SELECT a.encoder_id, b.encoder_id, b.store_dtype FROM encoder a JOIN encoder b "
                      "ON a.config = b.config AND a.kind = b.kind WHERE a.store_dtype = 'f32' AND "
                      "b.store_dtype <> 'f32'").fetchall()
    for a, b, t in pairs:
        conv = f16_bits if t == "f16" else bf16_bits
        q = ("SELECT x.text_hash, x.data, y.data, x.tokens, y.tokens FROM vector x JOIN vector y "
             "ON y.text_hash = x.text_hash WHERE x.encoder_id = ? AND y.encoder_id = ?")
        blobs = []
        for h, d32, d, t32, tn in c.execute(q, (a, b)):
            blobs += [(h, "data", d32, d), (h, "tokens", t32, tn)]
        q = ("SELECT x.text_hash || ' layer ' || x.layer, x.data, y.data FROM attention x JOIN attention y "
             "ON y.text_hash = x.text_hash AND y.layer = x.layer WHERE x.encoder_id = ? AND y.encoder_id = ?")
        for h, d32, d in c.execute(q, (a, b)):
            blobs.append((h, "attention", d32, d))
        for h, what, wide, narrow in blobs:
            if wide is None and narrow is None:
                continue
            rows += 1
            if wide is None or narrow is None or 2 * len(narrow) != len(wide):
                bad += 1
                print("%s %s %s: sizes %s and %s" % (t, h, what, wide and len(wide), narrow and len(narrow)))
                continue
            want = conv(np.frombuffer(wide, dtype="<f4")).astype("<u2").tobytes()
            if want != narrow:
                bad += 1
                print("%s %s %s: differs from the reference conversion" % (t, h, what))
    print("rows %d" % rows)
    return bad


def main():
    if sys.argv[1] == "values":
        test_values().tofile(sys.argv[2])
        return 0
    if sys.argv[1] == "check":
        vals = np.fromfile(sys.argv[3], dtype="<f4")
        out = open(sys.argv[4], "rb").read()
        with np.errstate(over="ignore", invalid="ignore"):
            return 1 if check(sys.argv[2], vals, out) else 0
    if sys.argv[1] == "store":
        with np.errstate(over="ignore", invalid="ignore"):
            return 1 if store(sys.argv[2]) else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
