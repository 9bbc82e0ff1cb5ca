"""synprobe_torch.data — the inputs of the forwards, from a synprobe store: sentences with their
cached structures (`synprobe export --what structures --format jsonl`, read from its output or run
on a store), input word vectors (GloVe text, or `make models`' vectors.npy + words.txt), and
length-sorted padded batches.

A sentence is a dict: n, words, and the structures the store has, as numpy arrays: depth [n],
dist [n, n], anc [n, n] (bool, row i: the ancestors of i and i itself), rel [n, n] (unclipped
relative structural positions), pid [T, n] (phrase ids of the PSAN levels 1..T)."""
import json
import os
import shutil
import subprocess

import numpy as np
import torch

_KEYS = (("depth", "depth", np.int64), ("distance", "dist", np.int64), ("ancestors", "anc", bool),
         ("rel_pos", "rel", np.int64), ("phrases", "pid", np.int64))


def synprobe_binary():
    """$SYNPROBE, else synprobe on PATH, else build/synprobe of the tree this package sits in"""
    if os.environ.get("SYNPROBE"):
        return os.environ["SYNPROBE"]
    p = shutil.which("synprobe")
    if p:
        return p
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "synprobe")
    if os.path.exists(here):
        return os.path.abspath(here)
    raise FileNotFoundError("synprobe: not on PATH, no $SYNPROBE, no build/synprobe")


def parse_structures(lines, where="structures"):
    """sentence dicts from the JSON lines of `synprobe export --what structures --format jsonl`"""
    out = []
    for k, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            o = json.loads(line)
        except ValueError as e:
            raise ValueError("%s:%d: %s" % (where, k, e)) from None
        s = {"sent_id": o.get("sent_id"), "words": o["words"], "n": len(o["words"])}
        for src, dst, ty in _KEYS:
            if src in o:
                s[dst] = np.asarray(o[src], dtype=ty)
        out.append(s)
    return out


def read_structures(source, corpus=None):
    """source: a .jsonl file written by `synprobe export --what structures --format jsonl`, or a
    store (.db), which is exported with the synprobe binary (synprobe_binary())"""
    if str(source).endswith(".jsonl"):
        with open(source, encoding="utf-8") as f:
            return parse_structures(f, str(source))
    cmd = [synprobe_binary(), "export", "--db", str(source), "--what", "structures", "--format", "jsonl"]
    if corpus:
        cmd[4:4] = ["--corpus", corpus]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), r.stderr.strip()))
    return parse_structures(r.stdout.splitlines(), str(source))


def usable(sents, need):
    """the sentences that have every structure in need (synprobe skips the others when encoding)"""
    return [s for s in sents if all(k in s for k in need)]


class Embeddings:
    """word vectors: a GloVe/word2vec text file, or a folder with vectors.npy + words.txt (`make
    models`' glove-6b-50d). Lookup as synprobe's: the exact form, then ASCII lower-case. OOV words
    get row `oov` (zeros): synprobe hashes them into seeded random buckets instead, so parity
    needs every word in the vocabulary."""

    def __init__(self, path, words=None):
        self.index, rows = {}, []
        if os.path.isdir(path):
            vec = np.load(os.path.join(path, "vectors.npy"))
            with open(os.path.join(path, "words.txt"), encoding="utf-8") as f:
                vocab = f.read().split("\n")
            keep = None if words is None else set(words) | {w.lower() for w in words}
            for r, w in enumerate(vocab[:vec.shape[0]]):
                if w not in self.index and (keep is None or w in keep):
                    self.index[w] = len(rows)
                    rows.append(vec[r])
            dim = vec.shape[1]
        else:
            dim = None
            with open(path, encoding="utf-8") as f:
                for k, line in enumerate(f, 1):
                    p = line.rstrip("\n").split(" ")
                    if k == 1 and len(p) == 2 and all(x.isdigit() for x in p):
                        continue
                    if dim is None:
                        dim = len(p) - 1
                    if len(p) < dim + 1:
                        raise ValueError("%s:%d: expected a word and %d numbers" % (path, k, dim))
                    w = " ".join(p[:-dim])
                    if w not in self.index:
                        self.index[w] = len(rows)
                        rows.append(np.asarray(p[-dim:], dtype=np.float32))
        self.dim = dim
        self.oov = len(rows)
        self.table = torch.from_numpy(np.vstack(rows + [np.zeros(dim)]).astype(np.float32))

    def ids(self, words):
        return np.asarray([self.index.get(w, self.index.get(w.lower(), self.oov)) for w in words], dtype=np.int64)


def batches(sents, budget, dev="cpu", order="sorted", nsent=0):
    """length-sorted (order "corpus": corpus order) padded batches of at most `budget` padded
    tokens, or of `nsent` sentences when nsent > 0 (at least one sentence), built once as a
    DataLoader would: (idx, ids [B,L], lens [B], struct) with struct holding the padded structures
    the sentences have (depth [B,L], dist/rel [B,L,L], anc [B,L,L] bool, pid [B,T,L]; zeros in the
    padding); sentences carry "ids" (row numbers into an embedding table)"""
    order = list(range(len(sents))) if order == "corpus" else sorted(range(len(sents)), key=lambda k: (sents[k]["n"], k))
    out, k = [], 0
    while k < len(order):
        m, L = 1, sents[order[k]]["n"]
        while k + m < len(order) and (m < nsent if nsent else (m + 1) * max(L, sents[order[k + m]]["n"]) <= budget):
            L = max(L, sents[order[k + m]]["n"])
            m += 1
        idx = order[k:k + m]
        k += m
        L = max(sents[i]["n"] for i in idx)
        ids = torch.zeros(len(idx), L, dtype=torch.long)
        st = {}
        for key in ("depth", "dist", "anc", "rel", "pid"):
            if key not in sents[idx[0]]:
                continue
            shape = (L,) if key == "depth" else (sents[idx[0]]["pid"].shape[0], L) if key == "pid" else (L, L)
            st[key] = torch.zeros((len(idx),) + shape, dtype=torch.bool if key == "anc" else torch.long)
        for r, i in enumerate(idx):
            s, n = sents[i], sents[i]["n"]
            ids[r, :n] = torch.from_numpy(np.asarray(s["ids"]).astype(np.int64))
            for key, t in st.items():
                a = torch.from_numpy(np.asarray(s[key]).astype(bool if key == "anc" else np.int64))
                if key == "depth":
                    t[r, :n] = a
                elif key == "pid":
                    t[r, :, :n] = a
                else:
                    t[r, :n, :n] = a
        lens = torch.tensor([sents[i]["n"] for i in idx])
        out.append((idx, ids.to(dev), lens.to(dev), {k2: v.to(dev) for k2, v in st.items()}))
    return out


def encode(model, table, sents, attn_layer=None, budget=4096):
    """run model over sentence dicts (with "ids" into table) -> (sent [N, dim] numpy, tokens
    [list of [n, d]], attn [list of [n, n]] or None), in the order of sents"""
    N = len(sents)
    sv, tv, av = [None] * N, [None] * N, [None] * N
    with torch.no_grad():
        for idx, ids, lens, st in batches(sents, budget, next(model.parameters()).device):
            o = model(table[ids], lens, st, attn_layer)
            for r, i in enumerate(idx):
                n = sents[i]["n"]
                sv[i] = o["sent"][r].cpu().numpy()
                tv[i] = o["tokens"][r, :n].cpu().numpy()
                if o["attn"] is not None:
                    av[i] = o["attn"][r, :n, :n].cpu().numpy()
    return np.stack(sv), tv, (av if attn_layer is not None else None)
