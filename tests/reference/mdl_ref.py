#!/usr/bin/python3
"""tests/reference/mdl_ref.py - the online codelength of `synprobe mdl` (Voita & Titov 2020, §2.2)
recomputed independently from the per-block probes' predictions it dumps (`--dump FILE`).

The dump: per code ("task", "control") a header line "#CODE TAB n TAB K", then one line per
transmitted item "CODE TAB block TAB row TAB label TAB logits" (block 0-based, logits K numbers
separated by spaces, "-" for an item sent with the uniform code).

Checked here, with NumPy in float64 and exact fractions, against RESULT.json (the stored result,
`select result from probe_result`, or `mdl --json`):
  - the block sizes are floor(n * f) - floor(n * f_prev) for the paper's fractions
    0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.25, 12.5, 25, 50, 100 %, and the dump's items fall in them;
  - each item is sent once (no row twice), every label in 0..K-1;
  - a block is sent with the uniform code exactly when nothing precedes it: |block| log2 K bits;
  - any other block: sum over its items of -log2 softmax(logits)[label];
  - codelength = the sum of the blocks, uniform = n log2 K, compression = uniform / codelength,
    selectivity_bits = control codelength - task codelength.
Relative tolerance TOL (default 1e-11: the JSON's 17 digits and a different summation order).

Usage: mdl_ref.py DUMP RESULT.json [TOL]. Prints one line per check; exit 1 on any mismatch.
"""
import json
import math
import sys
from fractions import Fraction

import numpy as np

FRACS = [Fraction(1, 1000), Fraction(2, 1000), Fraction(4, 1000), Fraction(8, 1000), Fraction(16, 1000),
         Fraction(32, 1000), Fraction(1, 16), Fraction(1, 8), Fraction(1, 4), Fraction(1, 2), Fraction(1)]


def read_dump(path):
    codes = {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            code, n, k = line[1:].split("\t")
            codes[code] = {"n": int(n), "k": int(k), "items": []}
            continue
        code, block, row, label, logits = line.split("\t")
        # %.9g gives the float32 back exactly when read as a float32, not as a float64
        lg = None if logits == "-" else np.array(logits.split(" "), dtype=np.float32).astype(np.float64)
        codes[code]["items"].append((int(block), int(row), int(label), lg))
    return codes


def bits_of(lg, y):
    m = lg.max()
    return (m + math.log(np.exp(lg - m).sum()) - lg[y]) / math.log(2.0)


def close(a, b, tol):
    return abs(a - b) <= tol * max(abs(a), abs(b)) + 1e-12


def check_code(name, c, res, tol, fails):
    n, k = c["n"], c["k"]
    ends = [math.floor(n * f) for f in FRACS]
    starts = [0] + ends[:-1]
    sizes = [e - s for s, e in zip(starts, ends)]
    blocks = res["blocks"]
    got_sizes = [b["size"] for b in blocks]
    if got_sizes != sizes or [b["start"] for b in blocks] != starts:
        fails.append(f"{name}: block sizes {got_sizes}, expected {sizes}")
    per_block = [[] for _ in FRACS]
    for b, row, y, lg in c["items"]:
        per_block[b].append((row, y, lg))
    if [len(v) for v in per_block] != sizes:
        fails.append(f"{name}: the dump has {[len(v) for v in per_block]} items per block, expected {sizes}")
    rows = [item[1] for item in c["items"]]
    if len(rows) != len(set(rows)) or len(rows) != n:
        fails.append(f"{name}: {len(rows)} items sent, {len(set(rows))} distinct rows, n = {n}")
    total = 0.0
    for i, items in enumerate(per_block):
        uniform = starts[i] == 0
        if uniform:
            want = sizes[i] * math.log2(k)
            if any(lg is not None for _, _, lg in items):
                fails.append(f"{name}: block {i} has nothing before it but was sent with a probe")
        else:
            if any(lg is None or len(lg) != k or not 0 <= y < k for _, y, lg in items):
                fails.append(f"{name}: block {i}: an item without {k} logits or with a bad label")
                continue
            want = sum(bits_of(lg, y) for _, y, lg in items)
        got = blocks[i]["bits"]
        if (blocks[i]["code"] == "uniform") != uniform:
            fails.append(f"{name}: block {i} code {blocks[i]['code']}, expected {'uniform' if uniform else 'probe'}")
        if not close(got, want, tol):
            fails.append(f"{name}: block {i} bits {got!r}, reference {want!r}")
        total += want
    print(f"# {name}: n {n}, K {k}, sizes {sizes}, codelength {total:.6f} bits (program {res['codelength_bits']:.6f})")
    if not close(res["codelength_bits"], total, tol):
        fails.append(f"{name}: codelength {res['codelength_bits']!r}, reference {total!r}")
    if not close(res["codelength_bits"], sum(b["bits"] for b in blocks), tol):
        fails.append(f"{name}: codelength is not the sum of its blocks")
    uni = n * math.log2(k)
    if res["labels"] != k or res["ntrain"] != n or not close(res["uniform_bits"], uni, tol):
        fails.append(f"{name}: labels {res['labels']}, ntrain {res['ntrain']}, uniform {res['uniform_bits']!r}; "
                     f"expected {k}, {n}, {uni!r}")
    if not close(res["compression"], uni / total, tol):
        fails.append(f"{name}: compression {res['compression']!r}, reference {uni / total!r}")
    return total


def main():
    dump, result = sys.argv[1], sys.argv[2]
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-11
    codes = read_dump(dump)
    res = json.load(open(result, encoding="utf-8"))
    fails = []
    if "task" not in codes:
        fails.append("the dump has no task code")
    else:
        t = check_code("task", codes["task"], res, tol, fails)
        if "control" in codes:
            c = check_code("control", codes["control"], res["control"], tol, fails)
            if not close(res["selectivity_bits"], c - t, tol):
                fails.append(f"selectivity {res['selectivity_bits']!r}, reference {c - t!r}")
        elif "control" in res:
            fails.append("the result has a control code the dump lacks")
    for f in fails:
        print("# MISMATCH " + f)
    print("# the codelengths agree" if not fails else f"# {len(fails)} mismatches")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
