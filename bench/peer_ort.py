#!/usr/bin/python3
"""bench/peer_ort.py — onnxruntime peer of synprobe's BERT forward, for bench/bert.sh.

    peer_ort.py export MODEL_DIR OUT.onnx
        (a Python with torch) a PyTorch module built from the model's own model.safetensors
        (bench/peer_bert.py's reader), written the way Hugging Face's BertModel is (separate
        query/key/value Linears, the additive (1 - mask)·-10000 key mask, erf GELU), so that
        onnxruntime's BERT fusions recognise it; every layer's hidden state is an output
        (synprobe's enc_bert_forward delivers them all). torch.onnx.export, opset 14, batch and
        length dynamic. Inputs input_ids, attention_mask, token_type_ids (int64 [B, T]).
    peer_ort.py export-hf MODEL_DIR OUT.onnx
        (a Python with transformers, /work/venv-hf) the folder's own transformers module
        (AutoModel.from_pretrained: MPNetModel for all-mpnet-base-v2, its relative attention bias
        and position ids included, eager, float32), exported the same way with every hidden state
        an output (output_hidden_states). Inputs input_ids, attention_mask (int64 [B, T]).
    peer_ort.py optimize IN.onnx OUT.onnx HEADS HIDDEN
        (a Python with onnxruntime) onnxruntime.transformers.optimizer, model_type "bert"
        (Attention, SkipLayerNormalization, BiasGelu, EmbedLayerNormalization fusions); prints
        the fused op counts.
    peer_ort.py run ONNX EXPORT_DIR --threads N [--batch B] [--reps R] [--pad ID]
        (a Python with onnxruntime) one InferenceSession, intra_op_num_threads = inter_op = N / 1,
        ORT_ENABLE_ALL, sequential; the pieces synprobe tokenized (EXPORT_DIR/pieces.bin, sentences
        in length order) in length-sorted padded batches of B (32; padding piece ID, 0), every
        layer fetched; the graph's inputs among input_ids, attention_mask, token_type_ids (zeros).
        Timed: the runs, after one untimed warm-up batch. Prints "PEER pieces_s= pieces_user_s=
        ... maxdiff= hdiff=" (maxdiff: largest absolute difference of the per-sentence mean of the
        last layer from synprobe's EXPORT_DIR/ours.f32; hdiff: of every layer's hidden states of
        the check sentences, EXPORT_DIR/check.bin; checks that both compute the same function).
"""
import os
import resource
import sys
import time


def _arg(name, default):
    for k, x in enumerate(sys.argv):
        if x == name and k + 1 < len(sys.argv):
            return sys.argv[k + 1]
    return default


def export(model, out):
    import json
    import math
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch
    from peer_bert import read_safetensors

    cfg = json.load(open(os.path.join(model, "config.json")))
    W = read_safetensors(os.path.join(model, "model.safetensors"))
    L, d, H = cfg["num_hidden_layers"], cfg["hidden_size"], cfg["num_attention_heads"]
    eps = cfg.get("layer_norm_eps", 1e-12)
    nn = torch.nn

    def linear(pfx):
        w = W[pfx + ".weight"]
        m = nn.Linear(w.shape[1], w.shape[0])
        m.weight.data.copy_(w)
        m.bias.data.copy_(W[pfx + ".bias"])
        return m

    def ln(pfx):
        m = nn.LayerNorm(d, eps=eps)
        m.weight.data.copy_(W[pfx + ".weight"])
        m.bias.data.copy_(W[pfx + ".bias"])
        return m

    class Layer(nn.Module):
        def __init__(self, p):
            super().__init__()
            self.q, self.k, self.v = linear(p + "attention.self.query"), linear(p + "attention.self.key"), linear(p + "attention.self.value")
            self.o, self.ln1 = linear(p + "attention.output.dense"), ln(p + "attention.output.LayerNorm")
            self.f1, self.f2, self.ln2 = linear(p + "intermediate.dense"), linear(p + "output.dense"), ln(p + "output.LayerNorm")

        def heads(self, x):
            return x.view(x.size(0), x.size(1), H, d // H).permute(0, 2, 1, 3)

        def forward(self, x, add):
            q, k, v = self.heads(self.q(x)), self.heads(self.k(x)), self.heads(self.v(x))
            s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // H) + add
            c = torch.matmul(torch.softmax(s, -1), v).permute(0, 2, 1, 3).contiguous()
            c = c.view(c.size(0), c.size(1), d)
            x = self.ln1(self.o(c) + x)
            return self.ln2(self.f2(nn.functional.gelu(self.f1(x))) + x)

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.word = nn.Embedding.from_pretrained(W["embeddings.word_embeddings.weight"])
            self.pos = nn.Embedding.from_pretrained(W["embeddings.position_embeddings.weight"])
            self.types = nn.Embedding.from_pretrained(W["embeddings.token_type_embeddings.weight"])
            self.register_buffer("position_ids", torch.arange(cfg["max_position_embeddings"]).expand((1, -1)))
            self.ln = ln("embeddings.LayerNorm")
            self.layers = nn.ModuleList([Layer("encoder.layer.%d." % l) for l in range(L)])

        def forward(self, input_ids, attention_mask, token_type_ids):
            T = input_ids.size(1)
            x = self.word(input_ids) + self.types(token_type_ids) + self.pos(self.position_ids[:, :T])
            x = self.ln(x)
            add = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
            hs = [x]
            for layer in self.layers:
                x = layer(x, add)
                hs.append(x)
            return tuple(hs)

    m = Bert().eval()
    ids = torch.ones(2, 8, dtype=torch.long)
    names = ["hidden_%d" % l for l in range(L + 1)]
    dyn = {n: {0: "batch", 1: "seq"} for n in ["input_ids", "attention_mask", "token_type_ids"] + names}
    with torch.no_grad():
        torch.onnx.export(m, (ids, torch.ones_like(ids), torch.zeros_like(ids)), out, input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=names, dynamic_axes=dyn, opset_version=14, do_constant_folding=True)
    print("exported %s (%d layers, d %d, %d heads, torch %s)" % (out, L, d, H, torch.__version__))


def export_hf(model, out):
    import torch
    from transformers import AutoModel
    m = AutoModel.from_pretrained(model, torch_dtype=torch.float32).eval()
    L = m.config.num_hidden_layers

    class AllLayers(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask):
            return tuple(self.m(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True).hidden_states)

    ids = torch.full((2, 8), 5, dtype=torch.long)
    names = ["hidden_%d" % l for l in range(L + 1)]
    dyn = {n: {0: "batch", 1: "seq"} for n in ["input_ids", "attention_mask"] + names}
    with torch.no_grad():
        torch.onnx.export(AllLayers().eval(), (ids, torch.ones_like(ids)), out, input_names=["input_ids", "attention_mask"],
                          output_names=names, dynamic_axes=dyn, opset_version=14, do_constant_folding=True)
    print("exported %s (%s, %d layers, d %d, %d heads, torch %s)" % (out, type(m).__name__, L, m.config.hidden_size,
                                                                     m.config.num_attention_heads, torch.__version__))


def optimize(inp, out, heads, hidden):
    from onnxruntime.transformers import optimizer
    m = optimizer.optimize_model(inp, model_type="bert", num_heads=heads, hidden_size=hidden, opt_level=0)
    m.save_model_to_file(out)
    ops = {}
    for node in m.model.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    print("optimized %s: %s" % (out, " ".join("%s=%d" % kv for kv in sorted(ops.items()))))


def run(onnx_path, exp):
    threads = int(_arg("--threads", "1"))
    batch = int(_arg("--batch", "32"))
    reps = int(_arg("--reps", "1"))
    pad = int(_arg("--pad", "0"))
    import numpy as np
    import bert_pieces
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
    sents, ours = bert_pieces.read(exp)
    check = bert_pieces.read_check(exp, sents)
    wanted = [i.name for i in sess.get_inputs()]
    n = len(sents)
    batches = []
    for i in range(0, n, batch):      # already length-sorted
        bs = sents[i:i + batch]
        T = max(len(s) for s in bs)
        ids = np.full((len(bs), T), pad, np.int64)
        mask = np.zeros((len(bs), T), np.int64)
        for k, s in enumerate(bs):
            ids[k, :len(s)] = s
            mask[k, :len(s)] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        batches.append({k: feed[k] for k in wanted})
    pieces = sum(len(s) for s in sents)
    sess.run(None, batches[-1])
    for r in range(reps):              # the last repetition's figures are printed
        t0, u0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF).ru_utime
        outs, hdiff = [], 0.0
        for b, feed in enumerate(batches):
            hs = sess.run(None, feed)
            outs.append(hs[-1])
            if check and any(b * batch + k in check for k in range(len(feed["input_ids"]))):
                hdiff = max(hdiff, bert_pieces.check_diff(check, b * batch, hs))
        wall, user = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_utime - u0
    means = []
    for feed, x in zip(batches, outs):
        m = feed["attention_mask"].astype(np.float32)
        means.append((x * m[:, :, None]).sum(1) / m.sum(1, keepdims=True))
    diff = float(np.abs(np.concatenate(means) - ours).max())
    print("PEER pieces=%d wall_s=%.3f user_s=%.3f pieces_s=%.0f pieces_user_s=%.0f batch=%d threads=%d maxdiff=%.2e hdiff=%s onnxruntime=%s graph=%s"
          % (pieces, wall, user, pieces / wall, pieces / user, batch, threads, diff, "%.2e" % hdiff if check else "-",
             ort.__version__, os.path.basename(onnx_path)))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "export-hf":
        export_hf(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 6 and sys.argv[1] == "optimize":
        optimize(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
