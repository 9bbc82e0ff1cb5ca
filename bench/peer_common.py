"""bench/peer_common.py — what the PyTorch peers of bench/encode.sh share (bench/peer_mssan.py,
bench/peer_san.py, bench/peer_psan.py): thread pinning before torch loads, reading what `encode_bench --export DIR`
wrote, length-sorted padded batches, the timed loop with the intra-op thread count chosen by
measurement, and the check against our vectors.

Import this module BEFORE torch: importing it pins the BLAS/OpenMP pools to --threads (Debian's
torch does its fp32 products in OpenBLAS, whose pthread pool ignores torch.set_num_threads and
starts one thread per core unless told before it loads).

Command line of every peer (peer_X.py DIR [options]):
    DIR                  what encode_bench --export wrote (sents.bin, table.f32, weights.safetensors,
                         ours.f32, config.json)
    --threads T          BLAS/OpenMP threads (pinned before torch loads) (1)
    --torch-threads N    torch intra-op threads; "auto": time one pass with each of 1..T and keep
                         the faster (prints which) (auto)
    --budget TOK[,TOK..] padded tokens a batch (length-sorted, fairseq's max_tokens); with several,
                         one pass with each and the fastest kept (prints which) (4096)
    --device cpu|cuda    (cpu)
    --reps R             timed passes, the best reported (1)
    --order sorted|corpus, --batch N   corpus-order batches, N sentences a batch (older callers)
Prints one line "PEER key=value ...": tok_s (wall), tok_per_user_s (of the kept pass), budget
and torch_intra_op kept, the tried settings (budget/intra:tok_s, or intra:tok_s), max_abs_diff (largest |peer - ours| over every sentence vector) and max_abs_ours (the
scale it compares to)."""
import os
import sys


def _argv_value(name, default):
    for k, x in enumerate(sys.argv):
        if x == name and k + 1 < len(sys.argv):
            return sys.argv[k + 1]
    return default


THREADS = _argv_value("--threads", "1")
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = THREADS

import argparse  # noqa: E402
import json  # noqa: E402
import struct  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

# the forwards and the batching are the PyTorch twins' (python/synprobe_torch): one definition
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import synprobe_torch  # noqa: E402

NEED_DEPTH, NEED_DIST, NEED_ANC, NEED_REL, NEED_PID = 1, 2, 4, 8, 16


def load_export(dirn):
    """-> (cfg, sents, table, W, ours); sents: dicts with ids and the structures the kind needs"""
    with open(dirn + "/sents.bin", "rb") as f:
        raw = f.read()
    if raw[:8] != b"SPBENCH2":
        sys.exit("%s/sents.bin: not an encode_bench export (SPBENCH2)" % dirn)
    B, din, rows, need, T = struct.unpack_from("<5i", raw, 8)
    at = 28
    sents = []
    for _ in range(B):
        (n,) = struct.unpack_from("<i", raw, at)
        at += 4
        s = {"n": n}
        s["ids"] = np.frombuffer(raw, "<i4", n, at)
        at += 4 * n
        if need & NEED_DEPTH:
            s["depth"] = np.frombuffer(raw, "<i4", n, at)
            at += 4 * n
        if need & NEED_DIST:
            s["dist"] = np.frombuffer(raw, "<i4", n * n, at).reshape(n, n)
            at += 4 * n * n
        if need & NEED_ANC:
            s["anc"] = np.frombuffer(raw, "u1", n * n, at).reshape(n, n)
            at += n * n
        if need & NEED_REL:
            s["rel"] = np.frombuffer(raw, "<i4", n * n, at).reshape(n, n)
            at += 4 * n * n
        if need & NEED_PID:
            s["pid"] = np.frombuffer(raw, "<i4", T * n, at).reshape(T, n)
            at += 4 * T * n
        sents.append(s)
    table = np.fromfile(dirn + "/table.f32", "<f4").reshape(rows, din)
    with open(dirn + "/weights.safetensors", "rb") as f:
        (hl,) = struct.unpack("<Q", f.read(8))
        hdr = json.loads(f.read(hl))
        data = f.read()
    W = {}
    for k, t in hdr.items():
        if k == "__metadata__":
            continue
        a, b = t["data_offsets"]
        W[k] = torch.from_numpy(np.frombuffer(data[a:b], "<f4").reshape(t["shape"]).copy())
    ours = np.fromfile(dirn + "/ours.f32", "<f4").reshape(B, -1)
    with open(dirn + "/config.json") as f:
        cfg = json.load(f)
    return cfg, sents, torch.from_numpy(table.copy()), W, ours


batches = synprobe_torch.batches     # (moved to python/synprobe_torch/data.py)
sinusoid = synprobe_torch.sinusoid   # (moved to python/synprobe_torch/models.py)


def build(cfg, W, dev):
    """the kind's forward (synprobe_torch.forward_fn) as the peers call it:
    forward(table, ids, lens, struct) -> [B, dim] sentence vectors"""
    f = synprobe_torch.forward_fn(cfg, W)
    return lambda table, ids, lens, st: f(table[ids], lens, st)["sent"]


def arg_parser(doc):
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("dir")
    ap.add_argument("config", nargs="?", help="ignored: DIR/config.json is the resolved config (kept for old callers)")
    ap.add_argument("--order", default="sorted", choices=["sorted", "corpus"])
    ap.add_argument("--batch", type=int, default=0, help="N sentences a batch instead of --budget")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--torch-threads", default="auto")
    ap.add_argument("--budget", default="4096", help="padded tokens a batch; several, comma-separated: the fastest kept")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--reps", type=int, default=1)
    return ap


def run(name, build, argv=None):
    """build(cfg, W, dev) -> forward(table, ids, lens, struct) -> [B, dim] sentence vectors.
    Times the forward over every batch and prints the PEER line."""
    a = arg_parser(name).parse_args(argv)
    cfg, sents, table, W, ours = load_export(a.dir)
    dev = torch.device(a.device)
    W = {k: v.to(dev) for k, v in W.items()}
    table = table.to(dev)
    forward = build(cfg, W, dev)
    budgets = [int(x) for x in a.budget.split(",")]
    tokens = sum(s["n"] for s in sents)
    if a.torch_threads == "auto":
        intras = list(range(1, a.threads + 1)) if dev.type == "cpu" else [a.threads]
    else:
        intras = [int(a.torch_threads)]

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    # every (budget, intra-op threads) setting once (R passes), the fastest kept
    res, best, best_u, best_set, tried = None, 1e30, 1e30, None, []
    with torch.inference_mode():
        for budget in budgets:
            bt = batches(sents, budget, dev, a.order, a.batch)
            for intra in intras:
                torch.set_num_threads(intra)
                # warm-up, untimed: the largest batch (on a GPU it loads the kernels the timed
                # pass's shapes use, as ours warms up on a whole batch of its longest sentences)
                forward(table, *max(bt, key=lambda b: len(b[0]) * b[1].shape[1])[1:])
                for _ in range(a.reps):
                    sync()
                    t0, u0 = time.perf_counter(), os.times()
                    out = [(b[0], forward(table, *b[1:])) for b in bt]
                    sync()
                    dt, du = time.perf_counter() - t0, os.times().user - u0.user
                    tag = "%d/%d" % (budget, intra) if len(budgets) > 1 else "%d" % intra
                    tried.append("%s:%.0f" % (tag, tokens / dt))
                    if dt < best:
                        best, best_u, best_set, res = dt, du, (budget, intra, bt), out
    budget, best_intra, bt = best_set
    padded = sum(len(b[0]) * b[1].shape[1] for b in bt)
    vec = np.zeros_like(ours)
    for idx, v in res:
        vec[idx] = v.float().cpu().numpy()
    diff = float(np.abs(vec - ours).max())
    print("PEER impl=pytorch-%s kind=%s device=%s threads=%d torch_intra_op=%d tried=%s order=%s budget=%d batch=%d batches=%d sentences=%d tokens=%d "
          "padded_tokens=%d wall_s=%.3f tok_s=%.0f sent_s=%.1f tok_per_user_s=%.0f max_abs_diff=%.2e max_abs_ours=%.3g"
          % (torch.__version__, cfg["kind"], a.device, a.threads, best_intra, ",".join(tried), a.order, budget, a.batch, len(bt), len(sents),
             tokens, padded, best, tokens / best, len(sents) / best, tokens / max(best_u, 1e-9), diff, float(np.abs(ours).max())))
