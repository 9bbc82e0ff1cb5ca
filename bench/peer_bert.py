#!/usr/bin/python3
"""bench/peer_bert.py — PyTorch eager peer of synprobe's BERT forward (docs/spec/models.md M3), for
bench/bert.sh: the model's own model.safetensors, a BertModel forward written out in torch ops
(no Hugging Face code needed), on the pieces synprobe tokenized, batched as a PyTorch user would:
length-sorted, padded to the longest of the batch, an additive -inf-like mask on padded keys.

    peer_bert.py MODEL_DIR EXPORT_DIR --threads N [--batch B] [--torch-threads K] [--device cuda] [--reps R]

EXPORT_DIR holds what `bert_bench encode --export` wrote: pieces.bin (sentences in length order)
and ours.f32 (synprobe's per-sentence mean of the last layer). N threads = N OpenBLAS/OpenMP
threads, set before torch loads (Debian's torch does its fp32 products in OpenBLAS, whose pool
ignores torch.set_num_threads); torch's intra-op threads = K (default N). Every layer's hidden
state is computed and, on cuda, copied to host memory, as synprobe's enc_bert_forward delivers
them (on the CPU they are there already). Timed: the forwards and those copies, after one
untimed warm-up batch.
Prints "PEER pieces_s= pieces_user_s= ... maxdiff= hdiff=" (pieces per second of wall time and of the
process's user CPU time) (maxdiff: largest absolute difference of the
per-sentence means from synprobe's; hdiff: of every layer's hidden states of the check sentences,
EXPORT_DIR/check.bin; checks that both compute the same function)."""
import json
import math
import os
import resource
import struct
import sys
import time


def _arg(name, default):
    for k, x in enumerate(sys.argv):
        if x == name and k + 1 < len(sys.argv):
            return sys.argv[k + 1]
    return default


THREADS = _arg("--threads", "1")
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = THREADS

import numpy as np  # noqa: E402
import torch  # noqa: E402

import bert_pieces  # noqa: E402  (after the thread variables, as numpy)


def read_safetensors(path):
    with open(path, "rb") as f:
        (hl,) = struct.unpack("<Q", f.read(8))
        hdr = json.loads(f.read(hl))
        data = f.read()
    dt = {"F32": "<f4", "F16": "<f2"}
    W = {}
    for k, t in hdr.items():
        if k == "__metadata__" or t["dtype"] not in dt:
            continue
        a, b = t["data_offsets"]
        arr = np.frombuffer(data[a:b], dt[t["dtype"]]).astype(np.float32).reshape(t["shape"])
        name = k[5:] if k.startswith("bert.") else k
        name = name.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")
        W[name] = torch.from_numpy(arr.copy())
    return W


class Bert:
    def __init__(self, cfg, W):
        self.L, self.d, self.H = cfg["num_hidden_layers"], cfg["hidden_size"], cfg["num_attention_heads"]
        self.eps = cfg.get("layer_norm_eps", 1e-12)
        self.W = W
        p = "encoder.layer.%d."
        self.qkv = []
        for l in range(self.L):   # the usual fused QKV of an inference port
            q = [W[(p % l) + "attention.self.%s.%s" % (x, y)] for x in ("query", "key", "value") for y in ("weight", "bias")]
            self.qkv.append((torch.cat([q[0], q[2], q[4]], 0).contiguous(), torch.cat([q[1], q[3], q[5]], 0).contiguous()))

    def forward(self, ids, mask):
        F = torch.nn.functional
        W, d, H = self.W, self.d, self.H
        dh = d // H
        B, T = ids.shape
        x = W["embeddings.word_embeddings.weight"][ids] + W["embeddings.token_type_embeddings.weight"][0] \
            + W["embeddings.position_embeddings.weight"][:T]
        x = F.layer_norm(x, (d,), W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], self.eps)
        hidden = [x]
        add = ((1.0 - mask) * -1e9)[:, None, None, :]
        for l in range(self.L):
            p = "encoder.layer.%d." % l
            qkv = F.linear(x, *self.qkv[l]).view(B, T, 3, H, dh).permute(2, 0, 3, 1, 4)
            s = torch.matmul(qkv[0], qkv[1].transpose(-1, -2)) * (1.0 / math.sqrt(dh)) + add
            ctx = torch.matmul(torch.softmax(s, -1), qkv[2]).permute(0, 2, 1, 3).reshape(B, T, d)
            a = F.linear(ctx, W[p + "attention.output.dense.weight"], W[p + "attention.output.dense.bias"])
            x = F.layer_norm(a + x, (d,), W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"], self.eps)
            h = F.gelu(F.linear(x, W[p + "intermediate.dense.weight"], W[p + "intermediate.dense.bias"]))
            o = F.linear(h, W[p + "output.dense.weight"], W[p + "output.dense.bias"])
            x = F.layer_norm(o + x, (d,), W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"], self.eps)
            hidden.append(x)
        return hidden


def main():
    model, exp = sys.argv[1], sys.argv[2]
    batch = int(_arg("--batch", "32"))
    dev = _arg("--device", "cpu")
    reps = int(_arg("--reps", "1"))
    torch.set_num_threads(int(_arg("--torch-threads", THREADS)))
    cfg = json.load(open(os.path.join(model, "config.json")))
    W = {k: v.to(dev) for k, v in read_safetensors(os.path.join(model, "model.safetensors")).items()}
    m = Bert(cfg, W)
    sents, ours = bert_pieces.read(exp)
    check = bert_pieces.read_check(exp, sents)
    n = len(sents)
    batches = []
    for i in range(0, n, batch):   # already length-sorted
        bs = sents[i:i + batch]
        T = max(len(s) for s in bs)
        ids = torch.zeros(len(bs), T, dtype=torch.long)
        mask = torch.zeros(len(bs), T)
        for k, s in enumerate(bs):
            ids[k, :len(s)] = torch.from_numpy(s)
            mask[k, :len(s)] = 1
        batches.append((ids.to(dev), mask.to(dev)))
    pieces = sum(len(s) for s in sents)
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    with torch.inference_mode():
        m.forward(*batches[-1])
        sync()
        for r in range(reps):      # the last repetition's figures are printed (earlier ones warm up)
            t0, u0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF).ru_utime
            outs, hdiff = [], 0.0
            for b, (ids, mask) in enumerate(batches):
                hs = m.forward(ids, mask)
                if dev == "cuda":                  # every layer to the host, as synprobe delivers them
                    hs = [h.cpu() for h in hs]
                outs.append(hs[-1])
                if check and any(b * batch + k in check for k in range(ids.shape[0])):
                    hdiff = max(hdiff, bert_pieces.check_diff(check, b * batch, [h.numpy() for h in hs]))
            sync()
            wall, user = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_utime - u0
        means = []
        for (ids, mask), x in zip(batches, outs):
            mask = mask.to(x.device)
            means.append(((x * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True)).cpu().numpy())
    diff = float(np.abs(np.concatenate(means) - ours).max())
    print("PEER device=%s pieces=%d wall_s=%.3f user_s=%.3f pieces_s=%.0f pieces_user_s=%.0f batch=%d threads=%s torch_threads=%d maxdiff=%.2e hdiff=%s torch=%s"
          % (dev, pieces, wall, user, pieces / wall, pieces / user, batch, THREADS, torch.get_num_threads(), diff,
             "%.2e" % hdiff if check else "-", torch.__version__))


if __name__ == "__main__":
    main()
