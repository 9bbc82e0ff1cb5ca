"""tests/reference/tokjson_fixtures.py — tokenizer.json fixtures for the C reader (encoder/enc_tokjson.c).

Run by `make tokjson-fixtures` in /work/venv-hf (tokenizers 0.19, transformers 4.40.2,
sentencepiece): trains small tokenizers on UD EWT dev plus a multilingual sample written here, and
writes under tests/data/hf/tok/:
  sample.words            the multilingual sample: one sentence a line, words in UTF-8 hex, ' '-separated
  random.words            400 sentences of random words over many scripts and kinds of character
  NAME/tokenizer.json.gz  the tokenizer (vocabulary of a few hundred to 2k; gzip: a Precompiled
                          charsmap alone is 250 KB)
  NAME/sample.expected    the ids for sample.words (NAME/random.expected: for random.words)
  NAME/ewt.expected.gz    the ids for every sentence of EWT dev (syntactic words, no multiword tokens)
An expected line: the ids (post-processor's specials included) ' '-separated, a TAB, then one
START-END piece span per word. The ids come from transformers' AutoTokenizer-style fast classes
called with is_split_into_words=True (checked equal to tokenizers' encode(is_pretokenized=True));
the one rule synprobe adds: a word that gets no piece gets the unknown token.
tokenizers' trainers break ties in hash order, so a rerun writes other vocabularies (each with its
own expected ids, as consistent as the committed ones; t230 passes on either).
Usage: python tests/reference/tokjson_fixtures.py EWT_DEV_CONLLU OUTDIR"""
import gzip, json, os, random, sys, tempfile

import sentencepiece as spm
from tokenizers import (Tokenizer, Regex, models, normalizers, pre_tokenizers, processors,
                        trainers, decoders)
from transformers import (PreTrainedTokenizerFast, RobertaTokenizerFast, BertTokenizerFast,
                          XLMRobertaTokenizer, AlbertTokenizer, LlamaTokenizer)
from transformers.convert_slow_tokenizer import convert_slow_tokenizer

SAMPLE = [
    ["Москва", "—", "столица", "России", ",", "ЁЖИК", "ёжик", "."],
    ["我们", "在", "北京", "学习", "中文", "。", "東京", "ｶﾀｶﾅ", "カタカナ"],
    ["اللُّغَةُ", "العربية", "جميلة", "،", "١٢٣", "؟"],
    ["हिन्दी", "भाषा", "क़", "ज़िंदगी", "।", "स्त्री"],
    ["👨\u200d👩\u200d👧", "🏳️\u200d🌈", "👍🏽", "🇫🇷", "\u200d", "a\u200db", "x\u200by"],
    ["ctrl\x07x", "\x07", "\x1f", "tab\there", "\x7f", "\u0085", "\ufeff", "\u00a0", "\ufffd", "a\u00adb"],
    ["Supercalifragilisticexpialidocious" * 4, "x" * 150, "ab" * 60,
     "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz" "Donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamtengesellschaft"],
    ["Café", "cafe\u0301", "naïve", "ＡＢＣ", "ﬁne", "½", "①", "Å", "ǅ", "ΣΊΣΥΦΟΣ", "İstanbul", "ß"],
    ["``", "Hello", "''", "New York", "3 1/2", "U.S.", "McDonald's", "--", "...", "12345", "3.14", "e-mail"],
    ["한국어", "조선말", "ไทย", "ภาษา", "Ελληνικά", "עִבְרִית", "ქართული"],
    ["<s>", "</s>", "<unk>", "[CLS]", "[UNK]", "<mask>", "[MASK]", "a<s>b"],
    ["  spaced ", "\u3000", "x  y", "end."],
]


# random words over many scripts, marks, controls, format characters, private use, tags,
# unassigned code points and emoji: 400 sentences, fixed seed
RANGES = [(0x20, 0x7e)] * 6 + [(0x1, 0x1f), (0x7f, 0xbf), (0xc0, 0x24f), (0x300, 0x36f), (0x370, 0x3ff), (0x400, 0x4ff),
          (0x590, 0x6ff), (0x8a0, 0x8ff), (0x900, 0x97f), (0xe00, 0xe7f), (0x1100, 0x11ff), (0x2000, 0x206f),
          (0x2e00, 0x2e5f), (0x3000, 0x30ff), (0x4e00, 0x4e80), (0xac00, 0xac80), (0xe000, 0xe010), (0xfe00, 0xfe0f),
          (0xff00, 0xffef), (0xfff0, 0xfffd), (0x10000, 0x1007f), (0x1f300, 0x1f6ff), (0x1f900, 0x1f9ff), (0xe0000, 0xe007f)]


def random_sentences(n=400, seed=36):
    rng = random.Random(seed)
    def word():
        w = "".join(chr(rng.randint(*rng.choice(RANGES))) for _ in range(rng.randint(1, 12)))
        return w.replace("\x00", "") or "x"
    return [[word() for _ in range(rng.randint(1, 6))] for _ in range(n)]


def ewt_sentences(path):
    sents, cur = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if cur: sents.append(cur); cur = []
                continue
            if line.startswith("#"): continue
            cols = line.split("\t")
            if "-" in cols[0] or "." in cols[0]: continue
            cur.append(cols[1])
    if cur: sents.append(cur)
    return sents


def corpus(ewt):
    text = [" ".join(s) for s in ewt]
    text += [" ".join(s) for s in SAMPLE] * 3
    return text


def expected(tok, sents, unk_id, raw):
    """One line per sentence: ids, TAB, spans. tok: a transformers fast tokenizer; raw: the
    tokenizers.Tokenizer it wraps (cross-check)."""
    out = []
    # the post-processor's leading specials, counted once on a word that has pieces (a sentence
    # whose words all have none shows only specials)
    probe = tok([["a"]], is_split_into_words=True, add_special_tokens=True).word_ids(0)
    n_pre = probe.index(0)
    encs = tok(sents, is_split_into_words=True, add_special_tokens=True)
    rawencs = raw.encode_batch(sents, is_pretokenized=True, add_special_tokens=True)
    for i, s in enumerate(sents):
        ids = encs["input_ids"][i]
        assert ids == rawencs[i].ids, (s, ids, rawencs[i].ids)
        wid = encs.word_ids(i)
        pre, post, per = list(ids[:n_pre]), [], [[] for _ in s]
        assert all(w is None for w in wid[:n_pre])
        for t, w in zip(ids[n_pre:], wid[n_pre:]):
            if w is None:
                post.append(t)
            else:
                assert not post, "special token between words"
                per[w].append(t)
        res, spans = list(pre), []
        for w in range(len(s)):
            p = per[w] or [unk_id]
            spans.append("%d-%d" % (len(res), len(res) + len(p)))
            res += p
        res += post
        out.append(" ".join(map(str, res)) + "\t" + " ".join(spans))
    return out


def save(outdir, name, tok, raw, unk_id, ewt):
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    with gzip.GzipFile(os.path.join(d, "tokenizer.json.gz"), "wb", mtime=0) as f:
        f.write(raw.to_str().encode())
    with open(os.path.join(d, "sample.expected"), "w", encoding="utf-8") as f:
        f.write("\n".join(expected(tok, SAMPLE, unk_id, raw)) + "\n")
    with open(os.path.join(d, "random.expected"), "w", encoding="utf-8") as f:
        f.write("\n".join(expected(tok, random_sentences(), unk_id, raw)) + "\n")
    with gzip.GzipFile(os.path.join(d, "ewt.expected.gz"), "wb", mtime=0) as f:
        f.write(("\n".join(expected(tok, ewt, unk_id, raw)) + "\n").encode())
    print("wrote", d)


def wrap(raw, cls=PreTrainedTokenizerFast, **kw):
    with tempfile.TemporaryDirectory() as td:
        p = os.path.join(td, "tokenizer.json")
        raw.save(p)
        return cls(tokenizer_file=p, **kw)


def main():
    ewt_path, outdir = sys.argv[1], sys.argv[2]
    ewt = ewt_sentences(ewt_path)
    text = corpus(ewt)
    os.makedirs(outdir, exist_ok=True)
    for fn, sents in (("sample.words", SAMPLE), ("random.words", random_sentences())):
        with open(os.path.join(outdir, fn), "w") as f:
            for s in sents:
                f.write(" ".join(w.encode().hex() for w in s) + "\n")

    # 1. BERT-like WordPiece, uncased
    wp = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=100))
    wp.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
    wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wp.train_from_iterator(text, trainers.WordPieceTrainer(vocab_size=1500, limit_alphabet=400,
                           special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    cls, sep = wp.token_to_id("[CLS]"), wp.token_to_id("[SEP]")
    wp.post_processor = processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls))
    save(outdir, "wordpiece", wrap(wp, BertTokenizerFast), wp, wp.token_to_id("[UNK]"), ewt)

    # 2. the same vocabulary cased, other components: NFD + StripAccents, Whitespace + Digits,
    #    a short piece limit, a template post-processor
    wp2 = Tokenizer.from_str(wp.to_str())
    wp2.model = models.WordPiece(wp.get_vocab(), unk_token="[UNK]", max_input_chars_per_word=12, continuing_subword_prefix="##")
    wp2.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Strip()])
    wp2.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(), pre_tokenizers.Digits(individual_digits=True)])
    wp2.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                      special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    save(outdir, "wordpiece-cased", wrap(wp2), wp2, wp.token_to_id("[UNK]"), ewt)

    # 3. RoBERTa-like byte-level BPE; saved with add_prefix_space false (as roberta-base's), used
    #    the way transformers requires for is_split_into_words: add_prefix_space=True
    bb = Tokenizer(models.BPE())
    bb.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bb.decoder = decoders.ByteLevel()
    bb.train_from_iterator(text, trainers.BpeTrainer(vocab_size=1200, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
                           initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    bb.post_processor = processors.RobertaProcessing(("</s>", bb.token_to_id("</s>")), ("<s>", bb.token_to_id("<s>")), add_prefix_space=False)
    rt = wrap(bb, RobertaTokenizerFast, add_prefix_space=True)
    save(outdir, "bytelevel-bpe", rt, rt.backend_tokenizer, bb.token_to_id("<unk>"), ewt)
    # the saved file keeps add_prefix_space false
    with gzip.GzipFile(os.path.join(outdir, "bytelevel-bpe", "tokenizer.json.gz"), "wb", mtime=0) as f:
        f.write(bb.to_str().encode())

    # 4. BPE with unk, fuse_unk, ## prefix and </w> suffix; NFKC, lowercase, replace; split by a
    #    regex, punctuation, whitespace
    bp = Tokenizer(models.BPE(unk_token="[UNK]", fuse_unk=True, continuing_subword_prefix="##", end_of_word_suffix="</w>"))
    bp.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase(), normalizers.Replace(Regex("[0-9]+"), "0"),
                                          normalizers.Replace("``", '"')])
    bp.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"\p{L}+|\p{N}+"), behavior="isolated"),
        pre_tokenizers.Punctuation(behavior="contiguous"), pre_tokenizers.WhitespaceSplit()])
    bp.train_from_iterator(text[:1500], trainers.BpeTrainer(vocab_size=900, special_tokens=["[UNK]", "[CLS]", "[SEP]"],
                           continuing_subword_prefix="##", end_of_word_suffix="</w>", limit_alphabet=150))
    bp.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    save(outdir, "bpe-unk", wrap(bp), bp, 0, ewt)

    with tempfile.TemporaryDirectory() as td:
        src = os.path.join(td, "text.txt")
        with open(src, "w") as f:
            f.write("\n".join(text) + "\n")
        # 5. XLM-R-like: SentencePiece unigram (nmt_nfkc: a Precompiled charsmap), converted
        spm.SentencePieceTrainer.train(input=src, model_prefix=os.path.join(td, "uni"), vocab_size=1000, model_type="unigram",
                                       character_coverage=0.995, byte_fallback=True, normalization_rule_name="nmt_nfkc",
                                       minloglevel=2)
        xs = XLMRobertaTokenizer(vocab_file=os.path.join(td, "uni.model"))
        xr = convert_slow_tokenizer(xs)
        xr.add_special_tokens(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
        save(outdir, "unigram-xlmr", wrap(xr), xr, 3, ewt)
        # 6. the same model with byte fallback on and Metaspace's prepend_scheme "first"
        j = json.loads(xr.to_str())
        j["model"]["byte_fallback"] = True
        j["pre_tokenizer"]["prepend_scheme"] = "first"
        j["normalizer"]["normalizers"][0] = {"type": "NFKC"}  # no second copy of the charsmap
        xf = Tokenizer.from_str(json.dumps(j))
        save(outdir, "unigram-bytefallback", wrap(xf), xf, 3, ewt)
        # 7. ALBERT-like: Replace, NFKD, StripAccents, Lowercase, Precompiled
        spm.SentencePieceTrainer.train(input=src, model_prefix=os.path.join(td, "alb"), vocab_size=800, model_type="unigram",
                                       character_coverage=0.995, normalization_rule_name="nmt_nfkc_cf", minloglevel=2,
                                       control_symbols=["[CLS]", "[SEP]", "[MASK]"], pad_id=0, unk_id=1, bos_id=-1, eos_id=-1)
        at = AlbertTokenizer(vocab_file=os.path.join(td, "alb.model"))
        al = convert_slow_tokenizer(at)
        al.add_special_tokens(["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"])
        save(outdir, "unigram-albert", wrap(al), al, al.token_to_id("<unk>"), ewt)
        # 8. Llama-like: SentencePiece BPE with byte fallback (Prepend + Replace normalizer, BPE
        #    byte_fallback, fuse_unk), legacy; and non-legacy (Metaspace split false, "first")
        spm.SentencePieceTrainer.train(input=src, model_prefix=os.path.join(td, "bpe"), vocab_size=900, model_type="bpe",
                                       character_coverage=0.995, byte_fallback=True, normalization_rule_name="identity",
                                       minloglevel=2)
        lt = LlamaTokenizer(vocab_file=os.path.join(td, "bpe.model"), legacy=True)
        ll = convert_slow_tokenizer(lt)
        save(outdir, "bpe-llama", wrap(ll), ll, 0, ewt)
        j = json.loads(ll.to_str())
        j["normalizer"] = None
        j["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": False}
        ll2 = Tokenizer.from_str(json.dumps(j))
        save(outdir, "bpe-llama-metaspace", wrap(ll2), ll2, 0, ewt)


if __name__ == "__main__":
    main()
