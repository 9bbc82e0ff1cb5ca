#!/usr/bin/env python3
"""tests/reference/hf_decoder_fixtures.py — the reference fixtures of decoder LMs under `"kind": "hf"` (issue 38).

    /work/venv-hf/bin/python tests/reference/hf_decoder_fixtures.py OUTDIR [EWT_DEV_CONLLU [FAMILY...]]   (`make hf-decoder-fixtures`)

For each decoder family synprobe reads, builds a tiny random causal LM with `transformers` 4.40.2
(seeded: hidden 32, 2 layers, 4 heads, 64 positions), saves it with save_pretrained (safetensors,
f32) into OUTDIR/FAMILY/ with a tokenizer that `tokenizers` trains on UD EWT dev, and writes what
`transformers` (eager attention) computes for a few fixed id sequences:
    OUTDIR/FAMILY/ref/ids_S.npy        int32 [T_S]
    OUTDIR/FAMILY/ref/hidden_S.npy     float32 [layers+1, T_S, hidden]: output_hidden_states exactly
                                       (0 = the embeddings; the LAST one has the final norm applied,
                                       ln_f / norm: transformers adds it after the norm)
    OUTDIR/FAMILY/ref/resid_S.npy      float32 [T_S, hidden]: the residual stream after the last block,
                                       before the final norm (a forward hook on the norm's input)
    OUTDIR/FAMILY/ref/attn_S.npy       float32 [layers, heads, T_S, T_S] (lower triangular)
The sequences run as ONE right-padded batch with its attention mask, except llama-dynamic's: its
inv_freq depends on the batch's (padded) length and transformers 4.40.2 keeps the last one it
computed, so each of its sentences runs alone on the model as loaded (inv_freq reset first).

Families (FAMILY names a folder):
    gpt2            GPT2LMHeadModel: learned positions, tied embeddings, Conv1D [in, out] weights,
                    gelu_new, ln_f; a byte-level BPE (add_prefix_space false, as gpt2's), no BOS
    llama           LlamaForCausalLM: RMSNorm, RoPE (theta 10000), SwiGLU, 2 KV heads for 4 query
                    heads, untied lm_head; a SentencePiece-style BPE tokenizer.json with byte
                    fallback whose post-processor adds <s> (LlamaTokenizerFast's)
    llama-linear    rope_scaling linear 2.0, attention_bias true, rope_theta 500000
    llama-dynamic   rope_scaling dynamic 2.0 with max_position_embeddings 16 (the longer sentences
                    rescale the base)
    llama3          rope_scaling llama3 (factor 8, low/high_freq_factor 1/4, original 64 positions: the head's 4
                    frequencies fall in all three bands), which 4.40.2 lacks: checked against its published
                    formula (llama3_inv_freq, transformers 4.43's _compute_llama3_parameters) set as the
                    rotary inv_freq before the forward; config.json gets the scaling after save_pretrained
    llama-bf16      llama's weights in bfloat16 (torch_dtype bfloat16), and transformers' forward in
                    bfloat16: ref/hidden_S.npy is that (cast to float32)
    mistral         MistralForCausalLM: llama's graph with sliding_window 5 (each query sees itself
                    and the 5 pieces before it: 4.40.2's eager mask), llama's tokenizer
    opt             OPTForCausalLM: learned positions offset by 2, pre-LN, separate q/k/v with biases,
                    relu; gpt2's tokenizer
    gpt_neox        GPTNeoXForCausalLM (Pythia's shape): parallel residual, partial rotary (rotary_pct 0.5),
                    q/k/v fused and interleaved per head, LayerNorms, gelu; gpt2's tokenizer
    gpt_neox-seq    the same with the sequential residual, full rotary, rotary_emb_base 500, gelu_new
    phi             PhiForCausalLM: one LayerNorm for the parallel attention and MLP, partial rotary
                    (partial_rotary_factor 0.5), q/k/v/dense and fc1/fc2 with biases, gelu_new; gpt2's tokenizer
    gemma           GemmaForCausalLM: embeddings scaled by sqrt(hidden), RMSNorm by (1 + w), GeGLU (tanh GELU),
                    2 KV heads, tied embeddings; llama's tokenizer (BOS)
    gemma-hd        the same with head_dim 16 (heads 4 × 16 = 64 wider than hidden 32, as gemma-7b's 16 × 256
                    of 3072) and hidden_activation null (4.40.2's GemmaMLP then takes gelu_pytorch_tanh)
    qwen2           Qwen2ForCausalLM: q/k/v biases (o none), tied embeddings, no BOS; gpt2's tokenizer
Every Linear and embedding gets std 0.2 weights and 0.1-std biases/norm offsets so that the
attention maps are far from uniform.

Word level, on OUTDIR/ud-sample.conllu (8 short EWT dev sentences): the ids of running text
(the words joined by single spaces: gpt2 through the tokenizer as is; llama with its <s>) and each
word's pieces, found with the pre-tokenized backend on the words with the leading-space rule
(a word after the first gets " " in front on a byte-level tokenizer; a SentencePiece-style one
puts its "▁" on every word itself). Both must give the same ids (asserted), and
    OUTDIR/FAMILY/ref/pieces.txt      a line a sentence: ids, TAB, START-END spans, TAB, 0
    OUTDIR/FAMILY/ref/words.npy       float32 [words, layers+1, hidden]: each word's LAST piece
    OUTDIR/FAMILY/ref/sents.npy       float32 [sentences, layers+1, hidden]: the mean of the words
The test (tests/cli/t2280-hf-decoders.sh) reads only these files; it never needs transformers.
tokenizers' trainers break ties in hash order, so a rerun may write other vocabularies, each with
its own consistent references.
"""
import json
import os
import sys

import numpy as np
import torch
import transformers as tf

assert tf.__version__ == "4.40.2", "expected transformers 4.40.2, found " + tf.__version__
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers, decoders  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tokjson_fixtures as tj  # noqa: E402  (the EWT reader)

BODIES = [[5, 17, 42, 8, 99, 23, 61, 7], [12, 3, 77], [50 + (7 * k) % 40 for k in range(30)], [9]]
N_SAMPLE = 8


def gpt2_tokenizer(text):
    bb = Tokenizer(models.BPE())
    bb.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bb.decoder = decoders.ByteLevel()
    bb.train_from_iterator(text, trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"],
                                                     initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    bb.post_processor = processors.ByteLevel(trim_offsets=False)
    return tf.GPT2TokenizerFast(tokenizer_object=bb, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                unk_token="<|endoftext|>", add_prefix_space=False)


def llama_tokenizer(text):
    """Llama's tokenizer.json shape: BPE with byte fallback over <0xNN> tokens, Prepend + Replace normalizer"""
    t = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    t.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    # trained on words (as SentencePiece splits at "▁"), saved without a pre-tokenizer (legacy Llama)
    t.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never")
    t.train_from_iterator(text, trainers.BpeTrainer(vocab_size=140, special_tokens=["<unk>", "<s>", "</s>"],
                                                    limit_alphabet=60))
    j = json.loads(t.to_str())
    old = j["model"]["vocab"]
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab["<0x%02X>" % b] = len(vocab)
    for tok, _ in sorted(old.items(), key=lambda kv: kv[1]):
        if tok not in vocab:
            vocab[tok] = len(vocab)
    j["model"]["vocab"] = vocab
    j["pre_tokenizer"] = None
    for a in j["added_tokens"]:
        a["id"] = vocab[a["content"]]
    t = Tokenizer.from_str(json.dumps(j))
    t.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                   decoders.Strip(" ", 1, 0)])
    return tf.LlamaTokenizerFast(tokenizer_object=t, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                 add_bos_token=True, add_eos_token=False, legacy=True)


LLAMA = dict(hidden_size=32, intermediate_size=40, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
             max_position_embeddings=64, rms_norm_eps=1e-6, tie_word_embeddings=False, bos_token_id=1, eos_token_id=2,
             attn_implementation="eager")


def families(toks):
    """(name, config, model class, tokenizer key, pad id)"""
    g = toks["gpt2"]
    yield ("gpt2", tf.GPT2Config(vocab_size=len(g), n_positions=64, n_embd=32, n_layer=2, n_head=4, n_inner=40,
                                 activation_function="gelu_new", layer_norm_epsilon=1e-5, bos_token_id=0, eos_token_id=0,
                                 attn_implementation="eager"), tf.GPT2LMHeadModel, "gpt2", 0)
    v = len(toks["llama"])
    yield ("llama", tf.LlamaConfig(vocab_size=v, **LLAMA), tf.LlamaForCausalLM, "llama", 0)
    yield ("llama-linear", tf.LlamaConfig(vocab_size=v, **dict(LLAMA), rope_scaling={"type": "linear", "factor": 2.0},
                                          rope_theta=500000.0, attention_bias=True), tf.LlamaForCausalLM, "llama", 0)
    yield ("llama-dynamic", tf.LlamaConfig(vocab_size=v, **dict(LLAMA, max_position_embeddings=16),
                                           rope_scaling={"type": "dynamic", "factor": 2.0}), tf.LlamaForCausalLM, "llama", 0)
    # llama3's rope_scaling (not in 4.40.2): saved with none, its inv_freq set by the published formula (llama3_inv_freq)
    # before the forward, and the scaling written into config.json afterwards (L3 below)
    yield ("llama3", tf.LlamaConfig(vocab_size=v, **LLAMA), tf.LlamaForCausalLM, "llama", 0)
    yield ("llama-bf16", tf.LlamaConfig(vocab_size=v, **LLAMA), tf.LlamaForCausalLM, "llama", 0)
    m = {k: x for k, x in LLAMA.items() if k not in ("tie_word_embeddings",)}
    yield ("mistral", tf.MistralConfig(vocab_size=v, **m, sliding_window=5, tie_word_embeddings=False),
           tf.MistralForCausalLM, "llama", 0)
    yield ("opt", tf.OPTConfig(vocab_size=len(g), hidden_size=32, ffn_dim=40, num_hidden_layers=2, num_attention_heads=4,
                               max_position_embeddings=64, word_embed_proj_dim=32, activation_function="relu",
                               bos_token_id=0, eos_token_id=0, pad_token_id=0, attn_implementation="eager"),
           tf.OPTForCausalLM, "gpt2", 0)
    yield ("gpt_neox", tf.GPTNeoXConfig(vocab_size=len(g), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                        intermediate_size=40, max_position_embeddings=64, rotary_pct=0.5, hidden_act="gelu",
                                        use_parallel_residual=True, tie_word_embeddings=False, bos_token_id=0, eos_token_id=0,
                                        attn_implementation="eager"), tf.GPTNeoXForCausalLM, "gpt2", 0)
    yield ("gpt_neox-seq", tf.GPTNeoXConfig(vocab_size=len(g), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                            intermediate_size=40, max_position_embeddings=64, rotary_pct=1.0, rotary_emb_base=500,
                                            hidden_act="gelu_new", use_parallel_residual=False, tie_word_embeddings=False,
                                            bos_token_id=0, eos_token_id=0, attn_implementation="eager"),
           tf.GPTNeoXForCausalLM, "gpt2", 0)
    yield ("phi", tf.PhiConfig(vocab_size=len(g), hidden_size=32, intermediate_size=40, num_hidden_layers=2,
                               num_attention_heads=4, max_position_embeddings=64, partial_rotary_factor=0.5,
                               hidden_act="gelu_new", layer_norm_eps=1e-5, bos_token_id=0, eos_token_id=0,
                               tie_word_embeddings=False, attn_implementation="eager"), tf.PhiForCausalLM, "gpt2", 0)
    yield ("gemma", tf.GemmaConfig(vocab_size=v, hidden_size=32, intermediate_size=40, num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, head_dim=8, max_position_embeddings=64, rms_norm_eps=1e-6,
                                   hidden_activation="gelu_pytorch_tanh", bos_token_id=1, eos_token_id=2, pad_token_id=0,
                                   attn_implementation="eager"), tf.GemmaForCausalLM, "llama", 0)
    yield ("gemma-hd", tf.GemmaConfig(vocab_size=v, hidden_size=32, intermediate_size=40, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=64,
                                      rms_norm_eps=1e-6, hidden_activation=None, bos_token_id=1, eos_token_id=2,
                                      pad_token_id=0, attn_implementation="eager"), tf.GemmaForCausalLM, "llama", 0)
    yield ("qwen2", tf.Qwen2Config(vocab_size=len(g), **dict(m, bos_token_id=0, eos_token_id=0), tie_word_embeddings=True,
                                   use_sliding_window=False), tf.Qwen2ForCausalLM, "gpt2", 0)


def sample(ewt_path, out):
    blocks, cur = [], []
    with open(ewt_path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if line:
                cur.append(line)
                continue
            if cur:
                rows = [r.split("\t") for r in cur if not r.startswith("#")]
                if all(r[0].isdigit() for r in rows) and 4 <= len(rows) <= 10:
                    blocks.append((cur, [r[1] for r in rows]))
                cur = []
    blocks = blocks[:N_SAMPLE]
    with open(os.path.join(out, "ud-sample.conllu"), "w", encoding="utf-8") as f:
        for b, _ in blocks:
            f.write("\n".join(b) + "\n\n")
    return [w for _, w in blocks]


def word_pieces(tok, words, byte_level):
    """ids and word spans: the pre-tokenized backend on the words with the leading-space rule"""
    ws = [w if i == 0 or not byte_level else " " + w for i, w in enumerate(words)]
    enc = tok.backend_tokenizer.encode(ws, is_pretokenized=True, add_special_tokens=True)
    ids, wid = enc.ids, enc.word_ids
    run = tok(" ".join(words))["input_ids"]
    assert run == ids, ("running text differs", words, run, ids)
    spans = []
    for w in range(len(words)):
        at = [i for i, x in enumerate(wid) if x == w]
        assert at and at == list(range(at[0], at[-1] + 1)), (words, w, wid)
        spans.append((at[0], at[-1] + 1))
    return ids, spans


L3 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64,
      "rope_type": "llama3"}


def llama3_inv_freq(inv_freq, sc):
    """transformers' _compute_llama3_parameters (4.43+, Meta's published rule), float32 tensors as there"""
    import math
    factor, lo, hi, old = sc["factor"], sc["low_freq_factor"], sc["high_freq_factor"], sc["original_max_position_embeddings"]
    low_wl, high_wl = old / lo, old / hi
    wavelen = 2 * math.pi / inv_freq
    inv_l = torch.where(wavelen > low_wl, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - lo) / (hi - lo)
    smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
    medium = ~(wavelen < high_wl) * ~(wavelen > low_wl)
    return torch.where(medium, smoothed, inv_l)


def init(model, gemma=False):
    """gemma: its RMSNorm multiplies by (1 + w) and its embeddings by sqrt(hidden): w around 0 and the
    table divided by sqrt(hidden) keep the activations the size of the others' (and 1e-5 meaningful)"""
    with torch.no_grad():
        for n, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.2 / (32 ** 0.5 if gemma and "embed" in n else 1.0))
            elif "norm" in n or "ln_" in n:
                p.copy_((0.0 if gemma else 1.0) + 0.1 * torch.randn_like(p))
            else:
                p.copy_(0.1 * torch.randn_like(p))


def run(model, ids_list, pad, together, final_norm, l3=False):
    """per sentence: (hidden [L+1, T, d], resid [T, d], attn [L, H, T, T]) as float32 numpy"""
    cap = {}
    hook = final_norm.register_forward_hook(lambda m, i, o: cap.__setitem__("x", i[0].detach()))
    outs = []
    groups = [ids_list] if together else [[s] for s in ids_list]
    for grp in groups:
        Tm = max(len(s) for s in grp)
        ids = torch.tensor([s + [pad] * (Tm - len(s)) for s in grp])
        mask = torch.tensor([[1] * len(s) + [0] * (Tm - len(s)) for s in grp])
        rot = [m for m in model.modules() if hasattr(m, "inv_freq")]
        for m in rot:                            # llama-dynamic: the base inv_freq back (see the docstring)
            m.inv_freq = 1.0 / (m.base ** (torch.arange(0, m.dim, 2, dtype=torch.int64).float() / m.dim))
            if l3:                               # llama3: the published rule on it
                m.inv_freq = llama3_inv_freq(m.inv_freq, L3)
        with torch.no_grad():
            o = model(input_ids=ids, attention_mask=mask, output_hidden_states=True, output_attentions=True)
        for s, seq in enumerate(grp):
            T = len(seq)
            h = np.stack([x[s, :T].float().numpy() for x in o.hidden_states]).astype(np.float32)
            a = np.stack([x[s, :, :T, :T].float().numpy() for x in o.attentions]).astype(np.float32)
            outs.append((h, cap["x"][s, :T].float().numpy().astype(np.float32), a))
    hook.remove()
    return outs


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/hf-dec"
    ewt_path = sys.argv[2] if len(sys.argv) > 2 else "../shared/data/ud-ewt/en_ewt-ud-dev.conllu"
    only = sys.argv[3:]
    text = tj.corpus(tj.ewt_sentences(ewt_path))
    toks = {"gpt2": gpt2_tokenizer(text), "llama": llama_tokenizer(text)}
    os.makedirs(out, exist_ok=True)
    sents = sample(ewt_path, out)
    for i, (name, cfg, cls, tk, pad) in enumerate(families(toks)):
        if only and name not in only:
            continue
        torch.manual_seed(2000 + i)
        model = cls(cfg).eval()
        init(model, name.startswith("gemma"))
        bf16 = name.endswith("-bf16")
        if bf16:
            model = model.to(torch.bfloat16)
        d = os.path.join(out, name)
        os.makedirs(os.path.join(d, "ref"), exist_ok=True)
        model.save_pretrained(d, safe_serialization=True)
        toks[tk].save_pretrained(d)
        neox = name.startswith("gpt_neox")
        base = model.transformer if name == "gpt2" else model.model.decoder if name == "opt" else model.gpt_neox if neox else model.model
        norm = (base.ln_f if name == "gpt2" else base.final_layer_norm if name == "opt" or neox
                else base.final_layernorm if name == "phi" else base.norm)
        bos = [] if name in ("gpt2", "qwen2", "opt", "phi") or neox else [1]
        seqs = [bos + b for b in BODIES]
        for s, (h, r, a) in enumerate(run(model, seqs, pad, name != "llama-dynamic", norm, name == "llama3")):
            np.save(os.path.join(d, "ref", "ids_%d.npy" % s), np.array(seqs[s], dtype=np.int32))
            np.save(os.path.join(d, "ref", "hidden_%d.npy" % s), h)
            np.save(os.path.join(d, "ref", "resid_%d.npy" % s), r)
            np.save(os.path.join(d, "ref", "attn_%d.npy" % s), a)
        if name in ("gpt2", "llama"):            # the word level, on the sample
            lines, W, S = [], [], []
            for words in sents:
                ids, spans = word_pieces(toks[tk], words, name == "gpt2")
                lines.append("%s\t%s\t0" % (" ".join(map(str, ids)), " ".join("%d-%d" % sp for sp in spans)))
                (h, _, _), = run(model, [ids], pad, True, norm)
                wv = np.stack([h[:, e - 1] for _, e in spans]).astype(np.float32)    # [n, L+1, d]: the last piece
                W.append(wv)
                S.append(wv.astype(np.float64).mean(axis=0).astype(np.float32))
            with open(os.path.join(d, "ref", "pieces.txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
            np.save(os.path.join(d, "ref", "words.npy"), np.concatenate(W))
            np.save(os.path.join(d, "ref", "sents.npy"), np.stack(S))
        if name == "llama3":                     # the scaling 4.40.2 cannot save
            cp = os.path.join(d, "config.json")
            c = json.load(open(cp))
            c["rope_scaling"] = L3
            json.dump(c, open(cp, "w"), indent=2)
        size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)
        print("%s: %s, %d bytes" % (d, type(model).__name__, size))


if __name__ == "__main__":
    main()
