"""python -m synprobe_torch.train CONFIG --store S.db --corpus C --objective mlm --steps N --seed S --out DIR

Trains one synprobe encoder kind (its PyTorch twin, synprobe_torch.Encoder) on the sentences of a
synprobe store, with an objective that does not hand it the trees it will be probed for: "mlm", a
masked-word objective over the corpus words (a share --mask of each sentence's words, at least one,
have their input vector replaced by a learned [MASK] vector; a linear head over the token vector
predicts the word among the --max-vocab most frequent corpus words + one UNK class; the head and
the [MASK] vector are not part of the encoder and are dropped). The structures the kind reads
(distances, ancestors, relative positions, phrase divisions) come from the store's cache, as
synprobe's encode uses them. This is a small-scale stand-in for the seed papers' NMT / NLI / reading
comprehension training, not a reproduction of it.

Inputs: GloVe vectors (--embeddings, default $SP_MODELS or models/glove-6b-50d when the config's
d_input is 50), or seeded random vectors (uniform in ±sqrt(3/d), as synprobe's own) for a config of
another width; either way DIR/embeddings.txt gets one row for every corpus word (a GloVe row, or a
seeded random one for a word GloVe lacks), so `synprobe encode --embeddings DIR/embeddings.txt`
sees exactly the inputs the training saw.

Writes DIR/weights.safetensors (synprobe's tensor names: `synprobe encode --encoder DIR/config.json
--weights DIR/weights.safetensors --embeddings DIR/embeddings.txt`), DIR/config.json (the config,
its "comment" the training record), DIR/train.json (the record: data hash = SHA-256 of the corpus's
`synprobe export --what structures --format jsonl` bytes, objective, steps, seed, lr, mask, losses)
and DIR/loss.tsv (step, loss), and logs the loss every --log-every steps. Same arguments, same
files (CPU, one thread)."""
import argparse
import collections
import hashlib
import json
import os
import random
import subprocess
import sys
import time

import numpy as np
import torch

from . import config as _config
from . import data as _data
from . import module as _module


def _export_jsonl(store, corpus):
    cmd = [_data.synprobe_binary(), "export", "--db", store, "--corpus", corpus, "--what", "structures", "--format", "jsonl"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        sys.exit("%s: %s" % (" ".join(cmd), r.stderr.decode(errors="replace").strip()))
    return r.stdout


def _sha256_file(path):
    h = hashlib.sha256()
    if os.path.isdir(path):
        for n in ("vectors.npy", "words.txt"):
            with open(os.path.join(path, n), "rb") as f:
                h.update(f.read())
    else:
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m synprobe_torch.train", description=__doc__.split("\n\n")[1])
    ap.add_argument("config", help="a synprobe encoder config (san, ms-san, sg-net, psan, ssan)")
    ap.add_argument("--store", required=True, help="the synprobe store (.db) holding the corpus")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--objective", default="mlm", choices=["mlm"])
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True, help="output folder (created)")
    ap.add_argument("--embeddings", default=None, help="GloVe text file or vectors.npy + words.txt folder")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--mask", type=float, default=0.15, help="share of each sentence's words masked (at least one)")
    ap.add_argument("--max-vocab", type=int, default=5000, help="words predicted (most frequent); the rest: one UNK class")
    ap.add_argument("--batch-tokens", type=int, default=2048, help="padded tokens a batch")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    if a.steps < 1:
        ap.error("--steps: expected a positive number")
    if not 0 < a.mask < 1:
        ap.error("--mask: expected a share between 0 and 1")
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    rng = np.random.default_rng(a.seed)

    raw = _config.read(a.config)
    cfg = _config.resolve(raw)
    model = _module.Encoder(raw, seed=a.seed)
    din = cfg["d_input"]

    jsonl = _export_jsonl(a.store, a.corpus)
    data_hash = hashlib.sha256(jsonl).hexdigest()
    sents = _data.usable(_data.parse_structures(jsonl.decode("utf-8").splitlines(), a.store), model.needs)
    if not sents:
        sys.exit("%s: corpus %s: no sentence has the structures a %s encoder needs (%s)"
                 % (a.store, a.corpus, model.kind, ", ".join(sorted(model.needs)) or "none"))

    # inputs: one row per corpus word, written out for synprobe
    words = sorted({w for s in sents for w in s["words"]})
    emb_path = a.embeddings
    if emb_path is None and din == 50:
        for cand in (os.path.join(os.environ.get("SP_MODELS", "models"), "glove-6b-50d"), "models/glove-6b-50d"):
            if os.path.exists(os.path.join(cand, "vectors.npy")):
                emb_path = cand
                break
    glove = _data.Embeddings(emb_path, words) if emb_path else None
    if glove is not None and glove.dim != din:
        sys.exit("%s: %d-dimensional vectors, the config's d_input is %d" % (emb_path, glove.dim, din))
    amp = np.sqrt(3.0 / din)
    rows, in_glove = [], 0
    for w in words:
        r = glove.ids([w])[0] if glove is not None else -1
        if glove is not None and r != glove.oov:
            rows.append(glove.table[r].numpy())
            in_glove += 1
        else:
            rows.append(rng.uniform(-amp, amp, din).astype(np.float32))
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "embeddings.txt"), "w", encoding="utf-8") as f:
        for w, v in zip(words, rows):
            f.write(w + " " + " ".join(repr(float(x)) for x in v) + "\n")
    table = torch.from_numpy(np.stack(rows))
    index = {w: i for i, w in enumerate(words)}

    # targets: the most frequent words, the rest one UNK class
    freq = collections.Counter(w for s in sents for w in s["words"])
    vocab = [w for w, _ in sorted(freq.items(), key=lambda x: (-x[1], x[0]))[:a.max_vocab]]
    tid = {w: i for i, w in enumerate(vocab)}
    unk = len(vocab)
    for s in sents:
        s["ids"] = np.asarray([index[w] for w in s["words"]], dtype=np.int64)
        s["tgt"] = np.asarray([tid.get(w, unk) for w in s["words"]], dtype=np.int64)

    d = cfg["d_model"]
    head = torch.nn.Linear(d, unk + 1)
    mask_vec = torch.nn.Parameter(torch.zeros(din))
    params = list(model.parameters()) + list(head.parameters()) + [mask_vec]
    opt = torch.optim.Adam(params, lr=a.lr)
    batches = _data.batches(sents, a.batch_tokens, "cpu", order="sorted")
    tgts = []
    for idx, ids, lens, st in batches:
        t = torch.full(ids.shape, -100, dtype=torch.long)
        for r, i in enumerate(idx):
            t[r, :sents[i]["n"]] = torch.from_numpy(sents[i]["tgt"])
        tgts.append(t)

    print("train: %s (%s, %d parameters) on %s/%s: %d sentences, %d words (%d targets + UNK), inputs %s, "
          "objective %s, %d steps, seed %d" % (a.config, model.kind, sum(p.numel() for p in model.parameters()), a.store,
                                               a.corpus, len(sents), sum(s["n"] for s in sents), len(vocab),
                                               "%s (%d of %d words)" % (emb_path, in_glove, len(words)) if glove is not None
                                               else "seeded random %dd" % din, a.objective, a.steps, a.seed), flush=True)
    log = open(os.path.join(a.out, "loss.tsv"), "w")
    log.write("step\tloss\n")
    order, losses, t0 = [], [], time.time()
    model.train()
    for step in range(1, a.steps + 1):
        if not order:
            order = list(range(len(batches)))
            random.shuffle(order)
        b = order.pop()
        idx, ids, lens, st = batches[b]
        X = table[ids]
        L = ids.shape[1]
        valid = torch.arange(L)[None, :] < lens[:, None]
        m = (torch.rand(ids.shape) < a.mask) & valid
        for r in range(len(idx)):                      # at least one masked word a sentence
            if not m[r].any():
                m[r, int(torch.randint(int(lens[r]), (1,)))] = True
        X = torch.where(m[..., None], mask_vec.expand_as(X), X)
        out = model(X, lens, st)
        tgt = tgts[b].masked_fill(~m, -100)
        loss = torch.nn.functional.cross_entropy(head(out["tokens"]).reshape(-1, unk + 1), tgt.reshape(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
        log.write("%d\t%.6f\n" % (step, losses[-1]))
        if step % a.log_every == 0 or step == a.steps:
            k = min(a.log_every, len(losses))
            print("step %d/%d  loss %.4f (mean of the last %d: %.4f)  %.1fs" % (step, a.steps, losses[-1], k,
                                                                         sum(losses[-k:]) / k, time.time() - t0), flush=True)
    log.close()
    model.eval()

    record = {"trained_by": "synprobe_torch.train", "objective": a.objective, "steps": a.steps, "seed": a.seed,
              "lr": a.lr, "mask": a.mask, "max_vocab": a.max_vocab, "batch_tokens": a.batch_tokens,
              "store": os.path.abspath(a.store), "corpus": a.corpus, "sentences": len(sents),
              "data_hash": "sha256:" + data_hash,
              "embeddings": os.path.abspath(emb_path) if emb_path else None,
              "embeddings_hash": ("sha256:" + _sha256_file(emb_path)) if emb_path else None,
              "config": os.path.abspath(a.config), "kind": model.kind,
              "loss_first": losses[0], "loss_last": losses[-1],
              "loss_last_mean": sum(losses[-a.log_every:]) / len(losses[-a.log_every:]),
              "torch": torch.__version__}
    _module.save(model, os.path.join(a.out, "weights.safetensors"),
                 {k: record[k] for k in ("objective", "steps", "seed", "data_hash")})
    _module.save_config(model, os.path.join(a.out, "config.json"),
                        "trained by synprobe_torch.train: " + json.dumps({k: record[k] for k in (
                            "objective", "steps", "seed", "data_hash", "corpus", "lr", "mask")}, sort_keys=True))
    with open(os.path.join(a.out, "train.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %s/{weights.safetensors,config.json,embeddings.txt,train.json,loss.tsv}" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
