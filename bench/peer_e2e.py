#!/usr/bin/python3
"""bench/peer_e2e.py — the Python side of bench/e2e.sh: the researcher's job (ingest, encode
MiniLM all layers, structural probes, token probes, SentEval-style sentence tasks) written as a
researcher would write it with the usual tools, one script per step, the steps handing files on:

    peer_e2e.py ingest     CONLLU OUT.pkl                         [--split-seed 1]
    peer_e2e.py encode     INGEST.pkl TASKDIR MODEL_DIR OUT.h5     [--batch 32]
    peer_e2e.py structprobe INGEST.pkl VEC.h5 OUT.json             [--rank K] [--batch 20] [--max-epoch 40]
    peer_e2e.py tokprobe   INGEST.pkl VEC.h5 OUT.json
    peer_e2e.py tasks      TASKDIR VEC.h5 OUT.json
    peer_e2e.py check      INGEST.pkl VEC.h5 TOKENS.npy           (untimed: our vectors vs synprobe's export)
every step takes --threads N (default 1): OMP/OPENBLAS/MKL_NUM_THREADS set before torch loads and
torch.set_num_threads(N), as bench/peer_common.py pins them.

ingest      own CoNLL-U reader (multiword ranges and empty nodes dropped, HEAD 1-based -> 0-based),
            the tree distance matrix (BFS from every word) and depths, and the 80/10/10 re-split of
            the sentences that synprobe makes for a corpus without a recorded split (SplitMix64
            Fisher-Yates, seed 1: stages/partition.c), so both sides train and score on the same
            sentences; written with pickle.
encode      HF `tokenizers` (BertWordPieceTokenizer over the model's vocab.txt, lower-casing, words
            given pre-split, word_ids for the spans); the MiniLM forward of bench/peer_bert.py (one
            definition: the model's own model.safetensors, torch ops, length-sorted padded batches
            of --batch sentences); every layer (embeddings + 6) pooled to words by the mean of the
            word's pieces (synprobe's default word_pool, docs/spec/models.md M2.2); a sentence vector =
            the mean of its word vectors (M2.3). HDF5 (h5py) as Hewitt & Manning's scripts keep
            it: one dataset per corpus sentence, (layers, words, dim), and per task
            "task/NAME" (layers, items, dim). TASKDIR holds the SentEval files (tr|va|te TAB
            label TAB sentence) that `synprobe tasks export` writes, the way SentEval's probing
            data is downloaded: the peer does not build tasks.
structprobe Hewitt & Manning's regimen (docs/spec/models.md M4, their regimen.py/probe.py/loss.py) in
            PyTorch, on every layer: a distance and a depth probe, rank K (default d), Adam lr
            1e-3, batches of 20 padded sentences, at most 40 epochs, ReduceLROnPlateau(factor 0.1,
            patience 0) on the dev loss sum, checkpoint on the dev mean (1e-4), stop 5 epochs
            after the last checkpoint; L1 loss normalised by n^2 (n for depth), batch mean; the
            squared distances in the Gram form (|t_i|^2 + |t_j|^2 - 2 t_i.t_j) instead of H&M's
            (B, n, n, k) difference tensor. Scored on test: UUAS (Kruskal over non-punctuation
            words, M4.5), DSpr, root accuracy, NSpr.
tokprobe    UPOS and DEPREL of every word from its layer vector, on every layer: SentEval's
            PyTorchClassifier protocol (logistic regression, Adam, batch 64, epoch_size 4,
            tenacity 5, max_epoch 200, no l2; early stopping on dev accuracy) fitted twice, on the
            gold labels and on Hewitt & Liang's control task (a random training label per word
            type), as `synprobe tokprobe` does.
tasks       every task of TASKDIR on every layer: SentEval's SplitClassifier protocol (l2 grid
            1e-5..1e-2, one fit each with the settings above, the best dev accuracy kept, its
            test accuracy; no re-fit of the chosen l2, as synprobe keeps the selected fit).
Each step writes its results (JSON) and prints one line "STEP name seconds=S" (time inside the
process, after the imports).
"""
import os
import sys


def _arg(name, default):
    for k, x in enumerate(sys.argv):
        if x == name and k + 1 < len(sys.argv):
            return sys.argv[k + 1]
    return default


THREADS = _arg("--threads", "1")
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = THREADS

import json  # noqa: E402
import pickle  # noqa: E402
import time  # noqa: E402
from collections import deque  # noqa: E402

import numpy as np  # noqa: E402

PUNCT_XPOS = {"''", "``", ",", ".", ":", "-LRB-", "-RRB-"}   # docs/spec/models.md M0.1 set P (H&M's list)
M64 = (1 << 64) - 1


def _torch():
    import torch
    torch.set_num_threads(int(_arg("--torch-threads", THREADS)))
    return torch


# ---------------------------------------------------------------- ingest

def read_conllu(path):
    sents, cur = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if cur and cur["words"]:
                    sents.append(cur)
                cur = None
                continue
            if line.startswith("#"):
                continue
            c = line.split("\t")
            if "-" in c[0] or "." in c[0]:
                continue
            if cur is None:
                cur = {"words": [], "upos": [], "xpos": [], "deprel": [], "head": []}
            cur["words"].append(c[1])
            cur["upos"].append(c[3])
            cur["xpos"].append(c[4])
            cur["deprel"].append(c[7])
            cur["head"].append(int(c[6]) - 1)
    if cur and cur["words"]:
        sents.append(cur)
    return sents


def tree_targets(head):
    """(distance matrix, depths) of a dependency tree, heads 0-based, root -1"""
    n = len(head)
    adj = [[] for _ in range(n)]
    for i, h in enumerate(head):
        if h >= 0:
            adj[i].append(h)
            adj[h].append(i)
    dist = np.zeros((n, n), dtype=np.float32)
    for s in range(n):
        seen = [-1] * n
        seen[s] = 0
        q = deque([s])
        while q:
            u = q.popleft()
            for v in adj[u]:
                if seen[v] < 0:
                    seen[v] = seen[u] + 1
                    q.append(v)
        dist[s] = seen
    root = head.index(-1)
    return dist, dist[root].copy()


def splitmix_partition(n, seed):
    """0 train / 1 dev / 2 test per sentence: synprobe's seeded 80/10/10 re-split"""
    x = seed & M64

    def nxt():
        nonlocal x
        x = (x + 0x9E3779B97F4A7C15) & M64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)
    idx = list(range(n))
    for i in range(n - 1, 0, -1):
        j = (nxt() * (i + 1)) >> 64
        idx[i], idx[j] = idx[j], idx[i]
    ntr, nva = int(np.floor(0.8 * n + 0.5)), int(np.floor(0.1 * n + 0.5))
    part = [0] * n
    for i, k in enumerate(idx):
        part[k] = 0 if i < ntr else 1 if i < ntr + nva else 2
    return part


def step_ingest(a):
    t0 = time.perf_counter()
    sents = read_conllu(a[0])
    for s in sents:
        s["dist"], s["depth"] = tree_targets(s["head"])
    part = splitmix_partition(len(sents), int(_arg("--split-seed", "1")))
    with open(a[1], "wb") as f:
        pickle.dump({"sents": sents, "part": part}, f, protocol=pickle.HIGHEST_PROTOCOL)
    return time.perf_counter() - t0, {"sentences": len(sents), "words": sum(len(s["words"]) for s in sents)}


# ---------------------------------------------------------------- encode

def read_task(path):
    """SentEval file -> (split list, label list, word lists)"""
    sp, lab, words = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            sp.append(c[0])
            lab.append(c[1])
            words.append(c[2].split(" "))
    return sp, lab, words


def task_names(taskdir):
    return sorted(x[:-4] for x in os.listdir(taskdir) if x.endswith(".txt"))


def step_encode(a):
    torch = _torch()
    import h5py
    from tokenizers import BertWordPieceTokenizer
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import peer_bert
    t0 = time.perf_counter()
    with open(a[0], "rb") as f:
        corpus = pickle.load(f)["sents"]
    taskdir, model, out = a[1], a[2], a[3]
    batch = int(_arg("--batch", "32"))
    cfg = json.load(open(os.path.join(model, "config.json")))
    net = peer_bert.Bert(cfg, peer_bert.read_safetensors(os.path.join(model, "model.safetensors")))
    tok = BertWordPieceTokenizer(os.path.join(model, "vocab.txt"), lowercase=True)
    unk = tok.token_to_id("[UNK]")
    tasks = [(t,) + read_task(os.path.join(taskdir, t + ".txt")) for t in task_names(taskdir)]
    # every sentence to encode: the corpus's, then each task's items
    todo = [s["words"] for s in corpus]
    for _, _, _, ws in tasks:
        todo.extend(ws)
    enc = tok.encode_batch(todo, is_pretokenized=True)
    ids, spans = [], []
    for e, ws in zip(enc, todo):
        wid = e.word_ids
        pid = e.ids
        n = len(ws)
        first, last = [None] * n, [None] * n
        for p, w in enumerate(wid):
            if w is None:
                continue
            if first[w] is None:
                first[w] = p
            last[w] = p
        if any(x is None for x in first):        # a word left with no piece gets one [UNK] (M1)
            core, sp = [], []
            for w in range(n):
                ps = [pid[p] for p in range(len(pid)) if wid[p] == w] or [unk]
                sp.append((len(core) + 1, len(core) + 1 + len(ps)))
                core.extend(ps)
            ids.append([pid[0]] + core + [pid[-1]])
            spans.append(sp)
        else:
            ids.append(pid)
            spans.append([(first[w], last[w] + 1) for w in range(n)])
    L = cfg["num_hidden_layers"] + 1
    d = cfg["hidden_size"]
    words = [None] * len(todo)                     # (L, n, d) per sentence
    order = sorted(range(len(todo)), key=lambda i: len(ids[i]))
    with torch.inference_mode():
        for b0 in range(0, len(order), batch):
            bi = order[b0:b0 + batch]
            T = max(len(ids[i]) for i in bi)
            x = torch.zeros(len(bi), T, dtype=torch.long)
            mask = torch.zeros(len(bi), T)
            pool = torch.zeros(len(bi), max(len(spans[i]) for i in bi), T)
            for k, i in enumerate(bi):
                x[k, :len(ids[i])] = torch.tensor(ids[i])
                mask[k, :len(ids[i])] = 1
                for w, (s, e) in enumerate(spans[i]):
                    pool[k, w, s:e] = 1.0 / (e - s)
            hs = torch.stack(net.forward(x, mask), 1)            # (B, L, T, d)
            wv = torch.einsum("bwt,bltd->blwd", pool, hs)        # (B, L, words, d)
            for k, i in enumerate(bi):
                words[i] = wv[k, :, :len(spans[i])].numpy()
    with h5py.File(out, "w") as f:
        for i in range(len(corpus)):
            f.create_dataset(str(i), data=words[i])
        at = len(corpus)
        for name, _, _, ws in tasks:
            sv = np.stack([words[at + j].mean(1) for j in range(len(ws))], 1)   # (L, items, d)
            f.create_dataset("task/" + name, data=sv.astype(np.float32))
            at += len(ws)
    return time.perf_counter() - t0, {"sentences": len(todo), "pieces": sum(len(x) for x in ids), "layers": L, "dim": d}


# ---------------------------------------------------------------- structural probes

def load_layer(h5, n, layer):
    return [np.asarray(h5[str(i)][layer]) for i in range(n)]


def sp_collate(torch, X, tgt, idx):
    """padded (B, n, d) vectors, targets, lengths for the sentences idx"""
    n = max(X[i].shape[0] for i in idx)
    d = X[idx[0]].shape[1]
    xb = torch.zeros(len(idx), n, d)
    tb = torch.zeros((len(idx), n, n) if tgt[idx[0]].ndim == 2 else (len(idx), n))
    ln = torch.zeros(len(idx))
    for k, i in enumerate(idx):
        m = X[i].shape[0]
        xb[k, :m] = torch.from_numpy(X[i])
        if tgt[i].ndim == 2:
            tb[k, :m, :m] = torch.from_numpy(tgt[i])
        else:
            tb[k, :m] = torch.from_numpy(tgt[i])
        ln[k] = m
    return xb, tb, ln


def sp_predict(torch, proj, xb, kind):
    t = xb @ proj                                         # (B, n, k)
    if kind == "depth":
        return (t * t).sum(-1)                            # (B, n)
    g = t @ t.transpose(1, 2)                             # Gram (B, n, n)
    sq = torch.diagonal(g, dim1=1, dim2=2)
    return sq[:, :, None] + sq[:, None, :] - 2 * g


def sp_loss(torch, pred, tb, ln, kind):
    n = pred.shape[1]
    ar = torch.arange(n)
    valid = (ar[None, :] < ln[:, None]).float()           # (B, n)
    if kind == "distance":
        valid = valid[:, :, None] * valid[:, None, :]
        norm = ln * ln
    else:
        norm = ln
    per = (torch.abs(pred - tb) * valid).flatten(1).sum(1) / norm
    return per.mean(), per


def train_probe(torch, X, tgt, tr, dv, kind, rank, batch, max_epoch, seed):
    d = X[tr[0]].shape[1]
    g = torch.Generator().manual_seed(seed)
    proj = torch.nn.Parameter(torch.rand(d, rank, generator=g) * 0.1 - 0.05)
    opt = torch.optim.Adam([proj], lr=1e-3)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.1, patience=0)
    dev_batches = [sp_collate(torch, X, tgt, dv[i:i + batch]) for i in range(0, len(dv), batch)]
    best_m, best_e, best_p, epochs = 1e30, -1, proj.detach().clone(), 0
    for e in range(max_epoch):
        epochs = e + 1
        perm = torch.randperm(len(tr), generator=g).tolist()
        for i in range(0, len(tr), batch):
            xb, tb, ln = sp_collate(torch, X, tgt, [tr[j] for j in perm[i:i + batch]])
            opt.zero_grad()
            loss, _ = sp_loss(torch, sp_predict(torch, proj, xb, kind), tb, ln, kind)
            loss.backward()
            opt.step()
        with torch.no_grad():
            dev_sum = sum(float(sp_loss(torch, sp_predict(torch, proj, xb, kind), tb, ln, kind)[1].sum()) for xb, tb, ln in dev_batches)
        sched.step(dev_sum)
        dev_mean = dev_sum / len(dv)
        if dev_mean < best_m - 1e-4:
            best_m, best_e, best_p = dev_mean, e, proj.detach().clone()
        elif best_e < e - 4:
            break
    return best_p, epochs, best_m


def spearman_rows(a, b):
    """Spearman correlation of each row of a with the same row of b (average ranks for ties)"""
    def rank(x):
        o = np.argsort(x, axis=1, kind="stable")
        r = np.empty_like(x, dtype=np.float64)
        for i in range(x.shape[0]):
            xs = x[i, o[i]]
            rr = np.empty(len(xs))
            k = 0
            while k < len(xs):
                j = k
                while j + 1 < len(xs) and xs[j + 1] == xs[k]:
                    j += 1
                rr[k:j + 1] = (k + j) / 2.0
                k = j + 1
            r[i, o[i]] = rr
        return r
    ra, rb = rank(a), rank(b)
    ra -= ra.mean(1, keepdims=True)
    rb -= rb.mean(1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ra * rb).sum(1) / np.sqrt((ra * ra).sum(1) * (rb * rb).sum(1))


def kruskal(M, q):
    pairs = sorted(((M[i, j], i, j) for i in q for j in q), key=lambda x: x[0])
    par = {i: i for i in q}

    def find(x):
        while par[x] != x:
            par[x] = par[par[x]]
            x = par[x]
        return x
    edges = set()
    for _, i, j in pairs:
        ri, rj = find(i), find(j)
        if ri != rj:
            par[ri] = rj
            edges.add((min(i, j), max(i, j)))
    return edges


def by_length_mean(vals):
    """mean over the lengths 5..50 of each length's mean (H&M's reporter)"""
    means = [np.mean(v) for n, v in sorted(vals.items()) if 5 <= n <= 50]
    return float(np.mean(means)) if means else None


def step_structprobe(a):
    torch = _torch()
    import h5py
    t0 = time.perf_counter()
    with open(a[0], "rb") as f:
        ing = pickle.load(f)
    sents, part = ing["sents"], ing["part"]
    tr = [i for i, p in enumerate(part) if p == 0]
    dv = [i for i, p in enumerate(part) if p == 1]
    te = [i for i, p in enumerate(part) if p == 2]
    batch, max_epoch = int(_arg("--batch", "20")), int(_arg("--max-epoch", "40"))
    dist = [s["dist"] for s in sents]
    depth = [s["depth"] for s in sents]
    rows = []
    with h5py.File(a[1], "r") as h5:
        L = h5["0"].shape[0]
        for layer in range(L):
            X = load_layer(h5, len(sents), layer)
            rank = int(_arg("--rank", str(X[0].shape[1])))
            pd, ed, _ = train_probe(torch, X, dist, tr, dv, "distance", rank, batch, max_epoch, 1000 + layer)
            pe, ee, _ = train_probe(torch, X, depth, tr, dv, "depth", rank, batch, max_epoch, 2000 + layer)
            hit = tot = root_ok = 0
            dspr, nspr = {}, {}
            with torch.no_grad():
                for i in te:
                    s = sents[i]
                    x = torch.from_numpy(X[i])[None]
                    D = sp_predict(torch, pd, x, "distance")[0].numpy()
                    dep = sp_predict(torch, pe, x, "depth")[0].numpy()
                    n = len(s["words"])
                    q = [k for k in range(n) if s["xpos"][k] not in PUNCT_XPOS]
                    gold = kruskal(s["dist"], q)
                    hit += len(kruskal(D, q) & gold)
                    tot += len(gold)
                    cand = q if q else list(range(n))
                    root_ok += min(cand, key=lambda k: (dep[k], k)) == s["head"].index(-1)
                    dspr.setdefault(n, []).extend(spearman_rows(D.astype(np.float64), s["dist"].astype(np.float64)).tolist())
                    nspr.setdefault(n, []).append(spearman_rows(dep[None].astype(np.float64), s["depth"][None].astype(np.float64))[0])
            rows.append({"layer": layer, "uuas": 100.0 * hit / max(tot, 1), "dspr": by_length_mean(dspr),
                         "root_acc": 100.0 * root_ok / len(te), "nspr": by_length_mean(nspr),
                         "epochs_distance": ed, "epochs_depth": ee, "n_test": len(te)})
    with open(a[2], "w") as f:
        json.dump(rows, f)
    return time.perf_counter() - t0, {"layers": len(rows)}


# ---------------------------------------------------------------- classifiers (SentEval's protocol)

def fit_senteval(torch, Xtr, ytr, Xdv, ydv, nclass, l2, seed, batch=64, epoch_size=4, tenacity=5, max_epoch=200):
    """SentEval's PyTorchClassifier (nhid 0): Linear + CrossEntropy, Adam (weight_decay l2),
    epoch_size passes between dev evaluations, stop after tenacity evaluations without a better
    dev accuracy; returns the best model"""
    torch.manual_seed(seed)
    rng = np.random.RandomState(seed)
    model = torch.nn.Linear(Xtr.shape[1], nclass)
    lossf = torch.nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=l2)
    best_acc, best, nepoch, count, stop = -1.0, None, 0, 0, False
    while not stop and nepoch <= max_epoch:
        model.train()
        for _ in range(epoch_size):
            perm = torch.from_numpy(rng.permutation(len(Xtr)))
            for i in range(0, len(Xtr), batch):
                idx = perm[i:i + batch]
                opt.zero_grad()
                loss = lossf(model(Xtr[idx]), ytr[idx])
                loss.backward()
                opt.step()
        nepoch += epoch_size
        acc = score(torch, model, Xdv, ydv)
        if acc > best_acc:
            best_acc, best = acc, {k: v.clone() for k, v in model.state_dict().items()}
        else:
            if count >= tenacity:
                stop = True
            count += 1
    model.load_state_dict(best)
    return model, best_acc


def score(torch, model, X, y):
    model.eval()
    with torch.no_grad():
        return 100.0 * float((model(X).argmax(1) == y).float().mean())


def label_ids(labels):
    names = sorted(set(labels))
    m = {x: k for k, x in enumerate(names)}
    return [m[x] for x in labels], len(names)


def step_tokprobe(a):
    torch = _torch()
    import h5py
    t0 = time.perf_counter()
    with open(a[0], "rb") as f:
        ing = pickle.load(f)
    sents, part = ing["sents"], ing["part"]
    rows = []
    with h5py.File(a[1], "r") as h5:
        L = h5["0"].shape[0]
        for layer in range(L):
            X = load_layer(h5, len(sents), layer)
            for task in ("upos", "deprel"):
                xs, ys, forms = {0: [], 1: [], 2: []}, {0: [], 1: [], 2: []}, {0: [], 1: [], 2: []}
                for i, s in enumerate(sents):
                    xs[part[i]].append(X[i])
                    ys[part[i]].extend(s[task])
                    forms[part[i]].extend(s["words"])
                # Hewitt & Liang's control task: one label per word type, a random training token's
                ctl_rng = np.random.RandomState(1)
                ctl = {}
                for p in (0, 1, 2):
                    for w in forms[p]:
                        if w not in ctl:
                            ctl[w] = ys[0][ctl_rng.randint(len(ys[0]))]
                res = {"layer": layer, "label": task}
                for kind in ("task", "control"):
                    lab = {p: (ys[p] if kind == "task" else [ctl[w] for w in forms[p]]) for p in (0, 1, 2)}
                    ids, nclass = label_ids(lab[0] + lab[1] + lab[2])
                    n0, n1 = len(lab[0]), len(lab[1])
                    Y = torch.tensor(ids)
                    Xt = {p: torch.from_numpy(np.concatenate(xs[p])) for p in (0, 1, 2)}
                    model, dev = fit_senteval(torch, Xt[0], Y[:n0], Xt[1], Y[n0:n0 + n1], nclass, 0.0, 1111)
                    res["acc" if kind == "task" else "control_acc"] = score(torch, model, Xt[2], Y[n0 + n1:])
                res["selectivity"] = res["acc"] - res["control_acc"]
                rows.append(res)
    with open(a[2], "w") as f:
        json.dump(rows, f)
    return time.perf_counter() - t0, {"rows": len(rows)}


def step_tasks(a):
    torch = _torch()
    import h5py
    t0 = time.perf_counter()
    rows = []
    with h5py.File(a[1], "r") as h5:
        for name in task_names(a[0]):
            sp, lab, _ = read_task(os.path.join(a[0], name + ".txt"))
            ids, nclass = label_ids(lab)
            V = np.asarray(h5["task/" + name])
            for layer in range(V.shape[0]):
                X = torch.from_numpy(V[layer])
                Y = torch.tensor(ids)
                sel = {p: torch.tensor([i for i, s in enumerate(sp) if s == p]) for p in ("tr", "va", "te")}
                best = None
                for l2 in (1e-5, 1e-4, 1e-3, 1e-2):
                    model, dev = fit_senteval(torch, X[sel["tr"]], Y[sel["tr"]], X[sel["va"]], Y[sel["va"]], nclass, l2, 1111)
                    if best is None or dev > best[0]:
                        best = (dev, l2, score(torch, model, X[sel["te"]], Y[sel["te"]]))
                rows.append({"task": name, "layer": layer, "devacc": best[0], "l2": best[1], "acc": best[2]})
    with open(a[2], "w") as f:
        json.dump(rows, f)
    return time.perf_counter() - t0, {"rows": len(rows)}


def step_check(a):
    """our word vectors against synprobe's export (n_tokens, layers, d), corpus order"""
    import h5py
    with open(a[0], "rb") as f:
        n = len(pickle.load(f)["sents"])
    theirs = np.load(a[2])
    with h5py.File(a[1], "r") as h5:
        ours = np.concatenate([np.asarray(h5[str(i)]).transpose(1, 0, 2) for i in range(n)])
    if ours.shape != theirs.shape:
        return 0.0, {"shape_ours": list(ours.shape), "shape_synprobe": list(theirs.shape)}
    return 0.0, {"max_abs_diff": float(np.abs(ours - theirs).max()), "max_abs": float(np.abs(theirs).max())}


STEPS = {"ingest": step_ingest, "encode": step_encode, "structprobe": step_structprobe,
         "tokprobe": step_tokprobe, "tasks": step_tasks, "check": step_check}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in STEPS:
        sys.exit("usage: peer_e2e.py ingest|encode|structprobe|tokprobe|tasks|check ARGS... [--threads N] (see the header)")
    pos, k = [], 2
    while k < len(sys.argv):
        if sys.argv[k].startswith("--"):
            k += 2
            continue
        pos.append(sys.argv[k])
        k += 1
    sec, info = STEPS[sys.argv[1]](pos)
    print("STEP %s seconds=%.3f threads=%s %s" % (sys.argv[1], sec, THREADS, " ".join("%s=%s" % kv for kv in info.items())))


if __name__ == "__main__":
    main()
