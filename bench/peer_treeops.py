"""bench/peer_treeops.py — the peer of bench/treeops.sh: scipy.sparse.csgraph on the same trees.

    python peer_treeops.py [--reps R] [--method M] [--prebuilt] HEADS
    python peer_treeops.py --calibrate HEADS

HEADS: one sentence a line, 0-based heads, -1 for the root (written by bench/treeops_bench).
Reading the file into one int32 array per sentence is timed apart (read_s). Then R passes
over every sentence (seconds): the undirected tree as a CSR matrix (one edge per non-root
word, built straight from indptr/indices: cheaper than from COO pairs),
scipy.sparse.csgraph.shortest_path(method=M, directed=False, unweighted=True) for the
all-pairs tree distance D, and depth = D[root]. M is one of scipy's methods (FW, D, BF, J,
auto); --calibrate times each of FW, D, BF, J (best of two passes) and prints the fastest
as "method=M (...)", so the bench runs the peer at its best. --prebuilt: the CSR graphs are
built before the clock starts, so only shortest_path and D[root] are timed. Then the check, untimed, on the last pass's
matrices: the sum of every D, the sum of per-sentence maximum depths and the fingerprint
sum_s (s+1)*(31*sumD_s + maxdepth_s) mod 2^64 that bench/treeops_bench prints too.
The caller pins the BLAS/OpenMP threads in the environment before Python starts.
Prints one line "RESULT key=value ...".
"""
import sys
import time

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path


def main():
    args = sys.argv[1:]
    reps, method, calibrate, prebuilt = 1, "FW", False, False
    while len(args) > 1 and args[0].startswith("--"):
        if args[0] == "--calibrate":
            calibrate, args = True, args[1:]
        elif args[0] == "--prebuilt":
            prebuilt, args = True, args[1:]
        elif args[0] == "--reps":
            reps, args = int(args[1]), args[2:]
        elif args[0] == "--method":
            method, args = args[1], args[2:]
        else:
            break
    if len(args) != 1 or reps < 1 or method not in ("FW", "D", "BF", "J", "auto"):
        sys.exit("usage: peer_treeops.py [--reps R] [--method FW|D|BF|J|auto] HEADS | --calibrate HEADS")
    path = args[0]
    t0 = time.perf_counter()
    heads = []
    with open(path, encoding="ascii") as f:
        for ln, line in enumerate(f, 1):
            try:
                h = np.array([int(x) for x in line.split()], dtype=np.int32)
            except ValueError:
                sys.exit(f"{path}:{ln}: expected heads (-1 or word indices), got {line.strip()[:40]!r}")
            if h.size == 0:
                sys.exit(f"{path}:{ln}: expected a sentence's heads, got an empty line")
            heads.append(h)
    read_s = time.perf_counter() - t0

    def graph(h):
        n = h.size
        nonroot = h >= 0
        indptr = np.zeros(n + 1, dtype=np.int32)
        np.cumsum(nonroot, out=indptr[1:])
        return csr_matrix((np.ones(n - 1), h[nonroot], indptr), shape=(n, n)), int(np.flatnonzero(~nonroot)[0])

    def paths(g, root, method):
        d = shortest_path(g, method=method, directed=False, unweighted=True)
        return d, d[root]

    def structures(h, method):
        return paths(*graph(h), method)

    if calibrate:
        best = {}
        for _ in range(2):                  # two sweeps, each method's best pass
            for m in ("FW", "D", "BF", "J"):
                t0 = time.perf_counter()
                for h in heads:
                    structures(h, m)
                best[m] = min(best.get(m, 1e30), time.perf_counter() - t0)
        print("method=%s (one pass: %s)" % (min(best, key=best.get),
                                             ", ".join(f"{m} {t:.3f}s" for m, t in best.items())))
        return

    if prebuilt:
        graphs = [graph(h) for h in heads]
        t0 = time.perf_counter()
        for _ in range(reps):
            out = [paths(g, root, method) for g, root in graphs]
        sec = time.perf_counter() - t0
    else:
        t0 = time.perf_counter()
        for _ in range(reps):
            out = [structures(h, method) for h in heads]
        sec = time.perf_counter() - t0

    sum_d = sum_max = fp = 0
    for s, (d, depth) in enumerate(out):
        if not np.isfinite(d).all():
            sys.exit(f"{path}:{s + 1}: the heads do not form one tree (unreachable words)")
        sd, mx = int(d.sum()), int(depth.max())
        sum_d += sd
        sum_max += mx
        fp = (fp + (s + 1) * (31 * sd + mx)) % (1 << 64)
    tokens = sum(h.size for h in heads)
    print(f"RESULT what=dist method={method} prebuilt={int(prebuilt)} reps={reps} sentences={len(heads)} tokens={tokens} seconds={sec:.6f} "
          f"read_s={read_s:.6f} sum_dist={sum_d} sum_maxdepth={sum_max} fingerprint={fp}")


if __name__ == "__main__":
    main()
