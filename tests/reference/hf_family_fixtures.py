#!/usr/bin/env python3
"""tests/reference/hf_family_fixtures.py — the reference fixtures of `"kind": "hf"` (issue 36).

    /work/venv-hf/bin/python tests/reference/hf_family_fixtures.py OUTDIR [EWT_DEV_CONLLU [FAMILY...]]   (`make hf-fixtures`)

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
others. DeBERTa-v2 (disentangled attention) gets three folders, each with the 40-piece sentence:
deberta-v3 (v3's shape: c2p and p2c through the shared key/query projections, log buckets, the
relative embeddings LayerNorm'd, no absolute positions or token types, saved as its MaskedLM with
the "deberta." prefix, and a Unigram tokenizer.json like v3's), deberta-v2-c2p (pos_key_proj,
absolute positions, token types, embed_proj, 3 layers) and deberta-v2-p2c (pos_query_proj), and
    OUTDIR/deberta-v3/ref/buckets.npy          int32 [2, 1025] make_log_bucket_position of relative
                                               positions -512..512 with (position_buckets, max_relative_positions)
                                               (8, 16), the fixture's, and (256, 512), deberta-v3-base's Naming families regenerates only their folders.
Some families are saved with their pre-training heads (and so the family prefix: `roberta.`,
`electra.`), so that the names synprobe must strip and the heads it must ignore are tested.
The test (tests/cli/t2236-hf-families.sh) reads only these files; it never needs transformers.

The folders of roberta, xlm-roberta and camembert also carry a tokenizer that `tokenizers` trains
on UD EWT dev and the multilingual sample of tokjson_fixtures.py (a byte-level BPE saved by
RobertaTokenizerFast with add_prefix_space false, as roberta-base's; a Unigram with Metaspace,
NFKC and a whitespace Replace for XLMRobertaTokenizerFast and CamembertTokenizerFast; no
Precompiled charsmap, 250 KB: t230 tests that one), written by save_pretrained (tokenizer.json,
tokenizer_config.json, special_tokens_map.json); the model's vocab_size is the tokenizer's. On
OUTDIR/ud-sample.conllu (EWT dev sentences and hand-written Russian and Chinese ones, one of them
too long for the 62 positions), transformers in pre-tokenized mode (AutoTokenizer, with
add_prefix_space=True where the class demands it, is_split_into_words=True) gives:
    OUTDIR/FAMILY/ref/pieces.txt       a line a sentence: the ids ' '-separated, TAB, START-END spans
                                       of its words, TAB, 1 when longer than the model's positions
    OUTDIR/FAMILY/ref/words.npy        float32 [words of the sentences that fit, layers+1, hidden]:
                                       each word the mean of its pieces (docs/spec/models.md M2.2, float64)
    OUTDIR/FAMILY/ref/sents.npy        float32 [sentences that fit, layers+1, hidden]: the mean of
                                       the sentence's word vectors (M2.3)
    OUTDIR/deberta-v3/ref/wattn.npy    float32 [sentences that fit, layers, heads, Wmax, Wmax]: each
                                       head's word-level map (M2.4, as bert_attention_ref.py), zero-padded
(tests/cli/t2238-hf-tokenizer-json.sh). tokenizers' trainers break ties in hash order, so a rerun
may write other vocabularies, each with its own consistent references.
"""
import os
import sys

import numpy as np
import torch
import transformers as tf

assert tf.__version__ == "4.40.2", "expected transformers 4.40.2, found " + tf.__version__
from tokenizers import Tokenizer, Regex, models, normalizers, pre_tokenizers, processors, trainers, decoders  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tokjson_fixtures as tj  # noqa: E402  (the EWT reader and the multilingual sample)

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


# hand-written UD-like sentences of other scripts (CoNLL-U columns ID FORM UPOS HEAD DEPREL)
OTHER = [
    ("ru-1", "Москва — столица России.", [("Москва", "PROPN", 3, "nsubj"), ("—", "PUNCT", 3, "punct"),
                                            ("столица", "NOUN", 0, "root"), ("России", "PROPN", 3, "nmod"),
                                            (".", "PUNCT", 3, "punct")]),
    ("zh-1", "我们在北京学习中文。", [("我们", "PRON", 4, "nsubj"), ("在", "ADP", 3, "case"), ("北京", "PROPN", 4, "obl"),
                                   ("学习", "VERB", 0, "root"), ("中文", "NOUN", 4, "obj"), ("。", "PUNCT", 4, "punct")]),
    ("ru-2", "Ёжик любит яблоки и грибы.", [("Ёжик", "NOUN", 2, "nsubj"), ("любит", "VERB", 0, "root"),
                                             ("яблоки", "NOUN", 2, "obj"), ("и", "CCONJ", 5, "cc"),
                                             ("грибы", "NOUN", 3, "conj"), (".", "PUNCT", 2, "punct")]),
    ("zh-2", "東京是日本的首都。", [("東京", "PROPN", 5, "nsubj"), ("是", "AUX", 5, "cop"), ("日本", "PROPN", 5, "nmod"),
                                 ("的", "PART", 3, "case"), ("首都", "NOUN", 0, "root"), ("。", "PUNCT", 5, "punct")]),
    ("ru-3", "Мы любим Café 👍🏽!", [("Мы", "PRON", 2, "nsubj"), ("любим", "VERB", 0, "root"), ("Café", "PROPN", 2, "obj"),
                                    ("👍🏽", "SYM", 2, "discourse"), ("!", "PUNCT", 2, "punct")]),
]
N_EWT = 10            # short EWT dev sentences (4..10 words), then one too long for 62 positions


def ewt_blocks(path):
    """EWT dev's sentence blocks (lines) without multiword tokens or empty nodes, and their words"""
    blocks, cur = [], []
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if line:
                cur.append(line)
                continue
            if cur:
                rows = [r.split("\t") for r in cur if not r.startswith("#")]
                if all(r[0].isdigit() for r in rows):
                    blocks.append((cur, [r[1] for r in rows]))
                cur = []
    return blocks


def ud_sample(ewt_path, out):
    """OUTDIR/ud-sample.conllu; returns its sentences' words"""
    blocks = ewt_blocks(ewt_path)
    short = [b for b in blocks if 4 <= len(b[1]) <= 10][:N_EWT]
    long_one = next(b for b in blocks if 45 <= len(b[1]) <= 60)
    lines, sents = [], []
    for b, words in short + [long_one]:
        lines += b + [""]
        sents.append(words)
    for sid, text, rows in OTHER:
        lines += ["# sent_id = %s" % sid, "# text = %s" % text]
        for i, (form, upos, head, rel) in enumerate(rows):
            lines.append("\t".join([str(i + 1), form, form, upos, "_", "_", str(head), rel, "_", "_"]))
        lines.append("")
        sents.append([r[0] for r in rows])
    with open(os.path.join(out, "ud-sample.conllu"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return sents


def train_tokenizers(ewt_path):
    """{family: a transformers fast tokenizer} trained on EWT dev and the multilingual sample"""
    text = tj.corpus(tj.ewt_sentences(ewt_path)) + [" ".join(r[0] for r in rows) for _, _, rows in OTHER] * 3
    special = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    bb = Tokenizer(models.BPE())        # RoBERTa's: byte-level BPE, saved with add_prefix_space false
    bb.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bb.decoder = decoders.ByteLevel()
    bb.train_from_iterator(text, trainers.BpeTrainer(vocab_size=420, special_tokens=special,
                                                     initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    bb.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), add_prefix_space=False)
    toks = {"roberta": tf.RobertaTokenizerFast(tokenizer_object=bb, add_prefix_space=False)}
    uni = Tokenizer(models.Unigram())   # XLM-R's shape: Unigram, Metaspace (no Precompiled charsmap)
    uni.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    uni.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    uni.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    uni.train_from_iterator(text, trainers.UnigramTrainer(vocab_size=500, special_tokens=special[:4], unk_token="<unk>"))
    uni.add_special_tokens(["<mask>"])
    uni.post_processor = processors.TemplateProcessing(single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
                                                       special_tokens=[("<s>", 0), ("</s>", 2)])
    kw = dict(bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>", unk_token="<unk>", pad_token="<pad>",
              mask_token="<mask>")
    toks["xlm-roberta"] = tf.XLMRobertaTokenizerFast(tokenizer_object=uni, **kw)
    toks["camembert"] = tf.CamembertTokenizerFast(tokenizer_object=Tokenizer.from_str(uni.to_str()), **kw)
    for t in toks.values():
        assert t.convert_tokens_to_ids(special[:4]) == [0, 1, 2, 3], t
    # deberta-v3's converted tokenizer (DebertaV2Converter): quotes normalised, WhitespaceSplit then
    # Metaspace, a Unigram, [CLS] $A [SEP] (no Precompiled charsmap, as above)
    dv = Tokenizer(models.Unigram())
    dv.normalizer = normalizers.Sequence([normalizers.Replace("``", '"'), normalizers.Replace("''", '"'),
                                          normalizers.Replace(Regex(" {2,}"), " ")])
    dv.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")])
    dv.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    dspecial = ["[PAD]", "[CLS]", "[SEP]", "[UNK]"]
    dv.train_from_iterator(text, trainers.UnigramTrainer(vocab_size=400, special_tokens=dspecial, unk_token="[UNK]"))
    dv.add_special_tokens(["[MASK]"])
    dv.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
                                                      special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    toks["deberta-v3"] = tf.DebertaV2TokenizerFast(tokenizer_object=dv)
    assert toks["deberta-v3"].convert_tokens_to_ids(dspecial) == [0, 1, 2, 3]
    return toks


def families(toks):
    """(dir name, config, model class to save, attribute of the base model or None, bos, eos, pad, vocab.txt?)"""
    s = dict(SIZES)
    yield ("bert", tf.BertConfig(**s, hidden_act="gelu", type_vocab_size=2), tf.BertModel, None, 2, 3, 0, True)

    s["vocab_size"] = len(toks["roberta"])
    yield ("roberta", tf.RobertaConfig(**s, hidden_act="gelu", type_vocab_size=1, pad_token_id=1, bos_token_id=0,
                                       eos_token_id=2, layer_norm_eps=1e-5), tf.RobertaForMaskedLM, "roberta", 0, 2, 1, False)
    s["vocab_size"] = len(toks["xlm-roberta"])
    yield ("xlm-roberta", tf.XLMRobertaConfig(**s, hidden_act="gelu", type_vocab_size=1, pad_token_id=1, bos_token_id=0,
                                              eos_token_id=2, layer_norm_eps=1e-5), tf.XLMRobertaModel, None, 0, 2, 1, False)
    s["vocab_size"] = len(toks["camembert"])
    yield ("camembert", tf.CamembertConfig(**s, hidden_act="gelu", type_vocab_size=1, pad_token_id=1, bos_token_id=5,
                                           eos_token_id=6, layer_norm_eps=1e-5), tf.CamembertModel, None, 5, 6, 1, False)
    yield ("distilbert", tf.DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=4, hidden_dim=37,
                                             max_position_embeddings=64, activation="gelu", pad_token_id=0),
           tf.DistilBertModel, None, 2, 3, 0, True)
    yield ("distilbert-sin", tf.DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=4, hidden_dim=37,
                                                 max_position_embeddings=64, activation="gelu", pad_token_id=0,
                                                 sinusoidal_pos_embds=True), tf.DistilBertModel, None, 2, 3, 0, True)
    s["vocab_size"] = SIZES["vocab_size"]
    yield ("electra", tf.ElectraConfig(**s, embedding_size=24, hidden_act="gelu", type_vocab_size=2),
           tf.ElectraForPreTraining, "electra", 2, 3, 0, True)
    yield ("mpnet", tf.MPNetConfig(**s, hidden_act="gelu", pad_token_id=1, bos_token_id=0, eos_token_id=2),
           tf.MPNetForMaskedLM, "mpnet", 0, 2, 1, True)
    yield ("albert", tf.AlbertConfig(vocab_size=100, embedding_size=24, hidden_size=32, num_hidden_layers=3,
                                     num_attention_heads=4, intermediate_size=37, max_position_embeddings=64,
                                     hidden_act="gelu_new", type_vocab_size=2, pad_token_id=0, bos_token_id=2,
                                     eos_token_id=3), tf.AlbertForPreTraining, "albert", 2, 3, 0, True)
    # DeBERTa-v3's shape: disentangled attention (c2p and p2c through the shared key_proj/query_proj),
    # 8 log buckets up to 16 (the 40-piece sentence's distances reach them and the clamp), the
    # relative embeddings LayerNorm'd, no absolute positions, no token types
    s["vocab_size"] = len(toks["deberta-v3"])
    yield ("deberta-v3", tf.DebertaV2Config(**s, hidden_act="gelu", relative_attention=True, position_buckets=8,
                                            max_relative_positions=16, pos_att_type=["p2c", "c2p"],
                                            norm_rel_ebd="layer_norm", share_att_key=True, position_biased_input=False,
                                            type_vocab_size=0, layer_norm_eps=1e-7, pad_token_id=0),
           tf.DebertaV2ForMaskedLM, "deberta", 1, 2, 0, False)
    s["vocab_size"] = SIZES["vocab_size"]
    # the other branches: separate pos_key_proj (c2p only), absolute positions, token types, an
    # embed_proj (embedding_size 24), 3 layers, no buckets (relative positions clamped at ±8)
    yield ("deberta-v2-c2p", tf.DebertaV2Config(**dict(s, num_hidden_layers=3), embedding_size=24, hidden_act="gelu",
                                                relative_attention=True, max_relative_positions=8, pos_att_type=["c2p"],
                                                share_att_key=False, position_biased_input=True, type_vocab_size=2,
                                                layer_norm_eps=1e-7, pad_token_id=0),
           tf.DebertaV2Model, None, 2, 3, 0, True)
    # and pos_query_proj (p2c only, as DeBERTa v2's "p2c" string), log buckets without the LayerNorm
    yield ("deberta-v2-p2c", tf.DebertaV2Config(**s, hidden_act="gelu", relative_attention=True, position_buckets=6,
                                                max_relative_positions=20, pos_att_type="p2c", share_att_key=False,
                                                position_biased_input=True, type_vocab_size=0, layer_norm_eps=1e-7,
                                                pad_token_id=0),
           tf.DebertaV2Model, None, 2, 3, 0, True)


# sentences only some families get (appended to BODIES)
LONG = [5 + (7 * k) % 90 for k in range(38)]
EXTRA = {"mpnet": [LONG], "deberta-v3": [LONG], "deberta-v2-c2p": [LONG], "deberta-v2-p2c": [LONG]}


def word_refs(d, base, cfg, sents):
    """What transformers gives for the sample's words on the folder d (its saved tokenizer)"""
    kw = dict(add_prefix_space=True) if cfg.model_type == "roberta" else {}
    tok = tf.AutoTokenizer.from_pretrained(d, **kw)
    max_pieces = cfg.max_position_embeddings - (0 if cfg.model_type == "deberta-v2" else cfg.pad_token_id + 1)
    lines, W, S, A = [], [], [], []
    for words in sents:
        enc = tok(words, is_split_into_words=True)
        ids, wid = enc["input_ids"], enc.word_ids()
        spans = []
        for w in range(len(words)):
            at = [i for i, x in enumerate(wid) if x == w]
            assert at and at == list(range(at[0], at[-1] + 1)), (words, w, wid)   # every word has pieces
            spans.append((at[0], at[-1] + 1))
        long_ = len(ids) > max_pieces
        lines.append("%s\t%s\t%d" % (" ".join(map(str, ids)), " ".join("%d-%d" % sp for sp in spans), long_))
        if long_:
            continue
        with torch.no_grad():
            o = base(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                     output_hidden_states=True, output_attentions=True)
        H = np.stack([h[0].numpy() for h in o.hidden_states]).astype(np.float64)   # [L+1, T, d]
        if cfg.model_type == "deberta-v2":   # each layer's and head's word-level map (M2.4, bert_attention_ref.py)
            P = np.stack([a[0].numpy() for a in o.attentions]).astype(np.float64)   # [L, heads, T, T]
            n = len(spans)
            Wa = np.zeros(P.shape[:2] + (n, n))
            for a, (s0, e0) in enumerate(spans):
                for b, (s1, e1) in enumerate(spans):
                    Wa[:, :, a, b] = P[:, :, s0:e0, s1:e1].sum(axis=(2, 3)) / (e0 - s0)
            A.append(Wa / Wa.sum(axis=3, keepdims=True))
        wv = np.stack([H[:, a:b].mean(axis=1) for a, b in spans]).astype(np.float32)  # [n, L+1, d]
        W.append(wv)
        S.append(wv.astype(np.float64).mean(axis=0).astype(np.float32))
    assert any(x.endswith("\t1") for x in lines), "the sample has no sentence too long for the model"
    with open(os.path.join(d, "ref", "pieces.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    np.save(os.path.join(d, "ref", "words.npy"), np.concatenate(W))
    np.save(os.path.join(d, "ref", "sents.npy"), np.stack(S))
    if A:                                     # float32 [sentences that fit, layers, heads, Wmax, Wmax], zero-padded
        Wm = max(x.shape[-1] for x in A)
        wa = np.zeros((len(A),) + A[0].shape[:2] + (Wm, Wm), dtype=np.float32)
        for k, x in enumerate(A):
            wa[k, :, :, :x.shape[-1], :x.shape[-1]] = x
        np.save(os.path.join(d, "ref", "wattn.npy"), wa)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tests/data/hf"
    ewt_path = sys.argv[2] if len(sys.argv) > 2 else "../shared/data/ud-ewt/en_ewt-ud-dev.conllu"
    only = sys.argv[3:]
    toks = train_tokenizers(ewt_path)
    os.makedirs(out, exist_ok=True)
    sents = ud_sample(ewt_path, out)
    for i, (name, cfg, cls, base_attr, bos, eos, pad, has_vocab) in enumerate(families(toks)):
        if only and name not in only:
            continue
        torch.manual_seed(1000 + i)
        model = cls(cfg).eval()
        with torch.no_grad():                 # visible LayerNorms and biases (default init: 1 and 0)
            for n, p in model.named_parameters():
                if "LayerNorm" in n or "layer_norm" in n or n.endswith(".bias"):
                    p.add_(0.1 * torch.randn_like(p))
                if "relative_attention_bias" in n or "rel_embeddings" in n:   # MPNet, DeBERTa: std 1, moving the maps
                    p.mul_(50.0)
        d = os.path.join(out, name)
        os.makedirs(os.path.join(d, "ref"), exist_ok=True)
        model.save_pretrained(d, safe_serialization=True)
        if has_vocab:
            vocab_txt(os.path.join(d, "vocab.txt"), cfg.vocab_size)
        if name in toks:
            toks[name].save_pretrained(d)
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
        if name.startswith(("bert", "electra", "albert", "deberta")):
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
        if name in toks:
            word_refs(d, base, cfg, sents)
        if name == "mpnet":
            rel = torch.arange(-300, 301)
            b = tf.models.mpnet.modeling_mpnet.MPNetEncoder.relative_position_bucket(rel)
            np.save(os.path.join(d, "ref", "buckets.npy"), b.numpy().astype(np.int32))
        if name == "deberta-v3":             # make_log_bucket_position of -512..512: the fixture's (8, 16), v3-base's (256, 512)
            rel = torch.arange(-512, 513)
            mk = tf.models.deberta_v2.modeling_deberta_v2.make_log_bucket_position
            b = torch.stack([mk(rel, 8, 16), mk(rel, 256, 512)]).to(torch.long)
            np.save(os.path.join(d, "ref", "buckets.npy"), b.numpy().astype(np.int32))
        size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)
        print("%s: %s, %d bytes" % (d, type(model).__name__, size))


if __name__ == "__main__":
    main()
