#!/usr/bin/env python3
"""tests/reference/hf_family_fixtures.py — the reference fixtures of `"kind": "hf"` (issue 36).

    /work/venv-hf/bin/python tests/reference/hf_family_fixtures.py OUTDIR [FAMILY...]   (`make hf-fixtures`)

For each encoder family synprobe reads, builds a tiny random model with `transformers` (seeded:
hidden 32, 2 layers, 4 heads, intermediate 37, vocab 100, 64 positions), saves it with
save_pretrained (safetensors, f32) into OUTDIR/FAMILY/, and writes what `transformers` computes
for a few fixed id sequences, run as ONE padded batch with its attention mask (the padding is
what synprobe must not see):
    OUTDIR/FAMILY/ref/ids_S.npy, types_S.npy   int32 [T_S] (the sentence's real pieces)
    OUTDIR/FAMILY/ref/hidden_S.npy             float32 [layers+1, T_S, hidden] (every layer)
    OUTDIR/FAMILY/ref/attn_S.npy               float32 [layers, heads, T_S, T_S]
MPNet gets a fifth, long sentence (40 pieces: relative distances up to 39, in the log buckets) and
    OUTDIR/mpnet/ref/buckets.npy               int32 [601] MPNet's bucket of relative position -300..300
ALBERT (3 applications of its one shared layer, embedding_size 24, gelu_new) is checked as the
others. Naming families regenerates only their folders.
Some families are saved with their pre-training heads (and so the family prefix: `roberta.`,
`electra.`), so that the names synprobe must strip and the heads it must ignore are tested.
The test (tests/cli/t236-hf-families.sh) reads only these files; it never needs transformers.
"""
import os
import sys

import numpy as np
import torch
import transformers as tf

assert tf.__version__ == "4.40.2", "expected transformers 4.40.2, found " + tf.__version__

SIZES = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
             vocab_size=100, max_position_embeddings=64)
# the fixed sentences (ids; each starts with the family's <s>/[CLS] id and ends with </s>/[SEP])
BODIES = [[5, 17, 42, 8, 99, 23, 61], [12, 3, 77], [50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 70, 80, 90], [9]]
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + ["the", "cat", "sat", "on", "mat", "dog", "a", "runs",
         "##s", "##ing", "big", "small", "house", "tree", ".", ",", "and", "of", "to", "in", "is", "it"]


def vocab_txt(path, n):
    words = WORDS + ["w%d" % i for i in range(n - len(WORDS))]
    with open(path, "w") as f:
        f.write("\n".join(words[:n]) + "\n")


def families():
    """(dir name, config, model class to save, attribute of the base model or None, bos, eos, pad, vocab.txt?)"""
    s = dict(SIZES)
    yield ("bert", tf.BertConfig(**s, hidden_act="gelu", type_vocab_size=2), tf.BertModel, None, 2, 3, 0, True)

    yield ("roberta", tf.RobertaConfig(**s, hidden_act="gelu", type_vocab_size=1, pad_token_id=1, bos_token_id=0,
                                       eos_token_id=2, layer_norm_eps=1e-5), tf.RobertaForMaskedLM, "roberta", 0, 2, 1, False)
    yield ("xlm-roberta", tf.XLMRobertaConfig(**s, hidden_act="gelu", type_vocab_size=1, pad_token_id=1, bos_token_id=0,
                                              eos_token_id=2, layer_norm_eps=1e-5), tf.XLMRobertaModel, None, 0, 2, 1, False)
    yield ("camembert", tf.CamembertConfig(**s, hidden_act="gelu", type_vocab_size=1, pad_token_id=1, bos_token_id=5,
                                           eos_token_id=6, layer_norm_eps=1e-5), tf.CamembertModel, None, 5, 6, 1, False)
    yield ("distilbert", tf.DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=4, hidden_dim=37,
                                             max_position_embeddings=64, activation="gelu", pad_token_id=0),
           tf.DistilBertModel, None, 2, 3, 0, True)
    yield ("distilbert-sin", tf.DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=4, hidden_dim=37,
                                                 max_position_embeddings=64, activation="gelu", pad_token_id=0,
                                                 sinusoidal_pos_embds=True), tf.DistilBertModel, None, 2, 3, 0, True)
    yield ("electra", tf.ElectraConfig(**s, embedding_size=24, hidden_act="gelu", type_vocab_size=2),
           tf.ElectraForPreTraining, "electra", 2, 3, 0, True)
    yield ("mpnet", tf.MPNetConfig(**s, hidden_act="gelu", pad_token_id=1, bos_token_id=0, eos_token_id=2),
           tf.MPNetForMaskedLM, "mpnet", 0, 2, 1, True)
    yield ("albert", tf.AlbertConfig(vocab_size=100, embedding_size=24, hidden_size=32, num_hidden_layers=3,
                                     num_attention_heads=4, intermediate_size=37, max_position_embeddings=64,
                                     hidden_act="gelu_new", type_vocab_size=2, pad_token_id=0, bos_token_id=2,
                                     eos_token_id=3), tf.AlbertForPreTraining, "albert", 2, 3, 0, True)


# sentences only some families get (appended to BODIES)
EXTRA = {"mpnet": [[5 + (7 * k) % 90 for k in range(38)]]}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/hf"
    only = sys.argv[2:]
    for i, (name, cfg, cls, base_attr, bos, eos, pad, has_vocab) in enumerate(families()):
        if only and name not in only:
            continue
        torch.manual_seed(1000 + i)
        model = cls(cfg).eval()
        with torch.no_grad():                 # visible LayerNorms and biases (default init: 1 and 0)
            for n, p in model.named_parameters():
                if "LayerNorm" in n or "layer_norm" in n or n.endswith(".bias"):
                    p.add_(0.1 * torch.randn_like(p))
                if "relative_attention_bias" in n:     # MPNet: a bias that moves the attention (std 1)
                    p.mul_(50.0)
        d = os.path.join(out, name)
        os.makedirs(os.path.join(d, "ref"), exist_ok=True)
        model.save_pretrained(d, safe_serialization=True)
        if has_vocab:
            vocab_txt(os.path.join(d, "vocab.txt"), cfg.vocab_size)
        base = getattr(model, base_attr) if base_attr else model
        # one padded batch, with its mask
        seqs = [[bos] + b + [eos] for b in BODIES + EXTRA.get(name, [])]
        Tm = max(len(s) for s in seqs)
        ids = torch.tensor([s + [pad] * (Tm - len(s)) for s in seqs])
        mask = torch.tensor([[1] * len(s) + [0] * (Tm - len(s)) for s in seqs])
        types = torch.zeros_like(ids)
        if getattr(cfg, "type_vocab_size", 1) > 1:
            types[1, :] = 1                    # the second sentence: token type 1
        kw = dict(input_ids=ids, attention_mask=mask, output_hidden_states=True, output_attentions=True)
        if name.startswith(("bert", "electra", "albert")):
            kw["token_type_ids"] = types
        with torch.no_grad():
            o = base(**kw)
        for s, seq in enumerate(seqs):
            T = len(seq)
            np.save(os.path.join(d, "ref", "ids_%d.npy" % s), np.array(seq, dtype=np.int32))
            np.save(os.path.join(d, "ref", "types_%d.npy" % s), types[s, :T].numpy().astype(np.int32))
            h = np.stack([x[s, :T].numpy() for x in o.hidden_states]).astype(np.float32)
            a = np.stack([x[s, :, :T, :T].numpy() for x in o.attentions]).astype(np.float32)
            np.save(os.path.join(d, "ref", "hidden_%d.npy" % s), h)
            np.save(os.path.join(d, "ref", "attn_%d.npy" % s), a)
        if name == "mpnet":
            rel = torch.arange(-300, 301)
            b = tf.models.mpnet.modeling_mpnet.MPNetEncoder.relative_position_bucket(rel)
            np.save(os.path.join(d, "ref", "buckets.npy"), b.numpy().astype(np.int32))
        size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)
        print("%s: %s, %d bytes" % (d, type(model).__name__, size))


if __name__ == "__main__":
    main()
