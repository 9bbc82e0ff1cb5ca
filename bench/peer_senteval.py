#!/usr/bin/python3
"""Peer for bench/probe.sh: SentEval's OWN probing classifier code, driven on a task file and a
.npy of vectors. Nothing of the protocol is re-implemented here:

  * senteval/probing.py  PROBINGEval.loadFile: reads the task file, maps labels to classes
  * senteval/tools/validation.py  SplitClassifier.run: the l2 grid 1e-5..1e-2, one fit each with
    early stopping on dev, the first best rounded dev score, then SentEval's re-fit with the
    chosen l2 and its test score
  * senteval/tools/classifier.py  MLP / PyTorchClassifier: the model (nhid 0 = logistic
    regression), Adam, batches, epoch_size, tenacity, max_epoch

SENTEVAL_DIR (or --senteval-dir) is the folder that contains the `senteval` package (a clone of
github.com/facebookresearch/SentEval). Its senteval/__init__.py imports every task module, so the
package is registered here as a bare namespace and only the three modules above are loaded from
its files, unchanged. Shims, applied here and listed in the output ("shims"):
  * inspect.getargspec (removed in Python 3.11; utils.get_optimizer calls it) -> getfullargspec
  * .cuda() on tensors and modules -> no-op: the peer runs on the CPU (classifier.py calls .cuda()
    unconditionally; config cudaEfficient=True keeps the data on the CPU as SentEval does)
  * sklearn, only if it is not installed: validation.py imports it at load time, but the PyTorch
    path (usepytorch=True) never uses it (SplitClassifier.run builds a LogisticRegression object
    and drops it); a stub whose objects raise on any use stands in
The wrappers around trainepoch/fit only count passes and record each fit; they call SentEval's
methods unchanged.

Threads: OMP/OPENBLAS/MKL_NUM_THREADS are set from --threads before numpy and torch are
imported, and torch.set_num_threads(--threads).

Usage: peer_senteval.py --task-file T --vectors X.npy [--classifier logreg|mlp] [--nhid N]
       [--dropout P] [--preset senteval-default|senteval-fast] [--seed S] [--threads K]
       [--max-epoch N] [--senteval-dir DIR]
Prints one JSON object: devacc, acc (test), l2reg, grid (one entry per fit, the re-fit last),
seconds (SplitClassifier.run), example_passes (training rows x passes over every fit).
"""
import argparse
import json
import os
import sys
import time
import types


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--task-file", required=True)
    ap.add_argument("--vectors", required=True)
    ap.add_argument("--classifier", default="logreg", choices=["logreg", "mlp"])
    ap.add_argument("--nhid", type=int, default=50)
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--preset", default="senteval-default", choices=["senteval-default", "senteval-fast"])
    ap.add_argument("--seed", type=int, default=1111)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-epoch", type=int, default=200)
    ap.add_argument("--senteval-dir", default=os.environ.get("SENTEVAL_DIR", ""))
    return ap.parse_args()


def load_senteval(root):
    """Register `senteval` and `senteval.tools` as bare packages over ROOT's files (their
    __init__.py is not run) and import the probing, validation and classifier modules."""
    import importlib
    sys.dont_write_bytecode = True  # leave no __pycache__ in the peer's folder
    pkg_dir = os.path.join(root, "senteval")
    if not os.path.isfile(os.path.join(pkg_dir, "tools", "classifier.py")):
        sys.exit("peer_senteval.py: %s/tools/classifier.py not found (SENTEVAL_DIR must contain the senteval package)"
                 % pkg_dir)
    shims = []
    for name, path in (("senteval", pkg_dir), ("senteval.tools", os.path.join(pkg_dir, "tools"))):
        m = types.ModuleType(name)
        m.__path__ = [path]
        sys.modules[name] = m
    import inspect
    if not hasattr(inspect, "getargspec"):
        inspect.getargspec = inspect.getfullargspec
        shims.append("inspect.getargspec=getfullargspec")
    import torch
    torch.Tensor.cuda = lambda self, *a, **k: self
    torch.nn.Module.cuda = lambda self, *a, **k: self
    shims.append("cuda()=no-op (CPU)")
    try:
        import sklearn  # noqa: F401
    except ImportError:
        class Unused:
            """SplitClassifier.run builds a LogisticRegression even on the PyTorch path and
            drops it unused; any use of it raises."""
            def __init__(self, *a, **k):
                pass

            def __getattr__(self, name):
                raise RuntimeError("sklearn stub: the PyTorch path should not use sklearn (%s)" % name)

        sk = types.ModuleType("sklearn")
        sk.__version__ = "0.18.0"
        lm = types.ModuleType("sklearn.linear_model")
        lm.LogisticRegression = Unused
        ms = types.ModuleType("sklearn.model_selection")
        ms.StratifiedKFold = Unused
        sk.linear_model, sk.model_selection = lm, ms
        sys.modules.update({"sklearn": sk, "sklearn.linear_model": lm, "sklearn.model_selection": ms})
        shims.append("sklearn stub (not installed; unused on the PyTorch path)")
    classifier = importlib.import_module("senteval.tools.classifier")
    validation = importlib.import_module("senteval.tools.validation")
    probing = importlib.import_module("senteval.probing")
    return classifier, validation, probing, shims


def main():
    a = parse()
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[v] = str(a.threads)
    if not a.senteval_dir:
        sys.exit("peer_senteval.py: SENTEVAL_DIR not set (git clone https://github.com/facebookresearch/SentEval; "
                 "SENTEVAL_DIR=that folder)")
    import numpy as np
    import torch
    torch.set_num_threads(a.threads)
    classifier, validation, probing, shims = load_senteval(a.senteval_dir)

    # counters around SentEval's own methods (they call the originals unchanged)
    fits = []
    trainepoch, fit = classifier.PyTorchClassifier.trainepoch, classifier.PyTorchClassifier.fit

    def counted_trainepoch(self, X, y, epoch_size=1):
        trainepoch(self, X, y, epoch_size=epoch_size)
        fits[-1]["passes"] += epoch_size
        fits[-1]["rows"] = len(X)

    def recorded_fit(self, *args, **kw):
        fits.append({"l2reg": self.l2reg, "passes": 0, "rows": 0})
        best = fit(self, *args, **kw)
        fits[-1]["devacc"] = round(100 * best, 2)
        fits[-1]["evaluations"] = fits[-1]["passes"] // self.epoch_size
        return best

    classifier.PyTorchClassifier.trainepoch = counted_trainepoch
    classifier.PyTorchClassifier.fit = recorded_fit

    # SentEval's loader: labels -> classes, rows of each partition in file order
    ev = probing.PROBINGEval("bench", a.task_file, seed=a.seed)
    tags = []
    with open(a.task_file, "r", encoding="utf-8") as f:
        for line in f:
            tags.append(line.split("\t", 1)[0])
    tags = np.array(tags)
    X = np.load(a.vectors).astype(np.float32)
    if len(X) != len(tags):
        sys.exit("peer_senteval.py: %s has %d rows, %s has %d lines" % (a.vectors, len(X), a.task_file, len(tags)))
    parts = {"train": "tr", "valid": "va", "test": "te"}
    names = {"train": "train", "valid": "dev", "test": "test"}
    Xs = {k: X[tags == t] for k, t in parts.items()}
    ys = {k: np.array(ev.task_data[names[k]]["y"]) for k in parts}

    if a.preset == "senteval-fast":
        clf_cfg = {"optim": "rmsprop", "batch_size": 128, "tenacity": 3, "epoch_size": 2}
    else:
        clf_cfg = {"optim": "adam", "batch_size": 64, "tenacity": 5, "epoch_size": 4}
    nhid = a.nhid if a.classifier == "mlp" else 0
    clf_cfg.update({"nhid": nhid, "dropout": a.dropout if nhid else 0.0, "max_epoch": a.max_epoch})
    config = {"nclasses": ev.nclasses, "seed": a.seed, "usepytorch": True, "classifier": clf_cfg,
              "cudaEfficient": True}

    t0 = time.time()
    split = validation.SplitClassifier(X=Xs, y=ys, config=config)
    devacc, testacc = split.run()
    secs = time.time() - t0

    ntr = len(Xs["train"])
    print(json.dumps({
        "peer": "SentEval %s (torch %s, numpy %s)" % (a.senteval_dir, torch.__version__, np.__version__),
        "shims": shims, "classifier": a.classifier, "nhid": nhid, "dropout": clf_cfg["dropout"],
        "preset": a.preset, "seed": a.seed, "threads": a.threads, "torch_threads": torch.get_num_threads(), "n_train": ntr,
        "devacc": float(devacc), "acc": float(testacc), "l2reg": fits[-1]["l2reg"],
        "grid": fits, "n_fits": len(fits), "seconds": secs,
        "example_passes": sum(g["passes"] * g["rows"] for g in fits)}))


if __name__ == "__main__":
    main()
