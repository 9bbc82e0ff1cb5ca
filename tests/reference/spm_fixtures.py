"""tests/reference/spm_fixtures.py — SentencePiece-only model folders for encoder/enc_spm.c (issue 36).

Run by `make spm-fixtures` in /work/venv-hf (transformers 4.40.2, tokenizers 0.19, sentencepiece):
trains four small SentencePiece models on UD EWT dev plus the multilingual sample of
tokjson_fixtures.py, saves each through a slow transformers tokenizer (save_pretrained writes the
.model, tokenizer_config.json and special_tokens_map.json, as a slow checkpoint has them), and writes
under tests/data/hf/spm/:
  MODEL.model.gz          the SentencePiece models (gzip: a charsmap alone is 250 KB):
                          uni-nfkc (unigram, nmt_nfkc charsmap, <unk> <s> </s> = 0 1 2),
                          uni-cf (unigram, nmt_nfkc_cf, <pad> <unk> 0 1, [CLS] [SEP] [MASK] control),
                          uni-deberta (unigram, identity, [PAD] [CLS] [SEP] [UNK] = 0..3),
                          bpe (BPE, identity, <unk> <s> </s> = 0 1 2),
                          uni-small (300 pieces: fits t238's tiny XLM-R model, t241 encodes with it)
  NAME/                   a folder as save_pretrained of the slow class writes it, without its
                          .model (MODEL names it: the test puts MODEL.model there under FILE)
  NAME/source             "MODEL FILE"
  NAME/sample.expected    ids for tokjson's sample.words (NAME/random.expected: random.words)
  NAME/ewt.sha256         SHA-256 of the expected lines (ids TAB spans, "\\n"-ended) of EWT dev
The ids come from AutoTokenizer(use_fast=True) on the folder (transformers converts the .model with
convert_slow_tokenizer.py), is_split_into_words=True; the line format and the one rule synprobe
adds (a word with no piece gets the unknown token) are tokjson_fixtures.expected's. The script also
compares with the slow (sentencepiece) tokenizer on EWT and prints how many sentences agree.
Also writes the BERT do_lower_case fixtures under tests/data/hf/lower/ (see bert_lower below).
Usage: python tests/reference/spm_fixtures.py EWT_DEV_CONLLU OUTDIR"""
import gzip, hashlib, json, os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sentencepiece as spm
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
from transformers import (AutoTokenizer, AlbertTokenizer, XLMRobertaTokenizer, CamembertTokenizer,
                          DebertaV2Tokenizer, T5Tokenizer, BertTokenizerFast, PreTrainedTokenizerFast)
from tokjson_fixtures import SAMPLE, random_sentences, ewt_sentences, corpus, expected

MODELS = {
    "uni-nfkc": dict(vocab_size=1000, model_type="unigram", normalization_rule_name="nmt_nfkc"),
    "uni-cf": dict(vocab_size=800, model_type="unigram", normalization_rule_name="nmt_nfkc_cf",
                   control_symbols=["[CLS]", "[SEP]", "[MASK]"], pad_id=0, unk_id=1, bos_id=-1, eos_id=-1),
    "uni-deberta": dict(vocab_size=600, model_type="unigram", normalization_rule_name="identity",
                        pad_id=0, bos_id=1, eos_id=2, unk_id=3, pad_piece="[PAD]", bos_piece="[CLS]",
                        eos_piece="[SEP]", unk_piece="[UNK]"),
    "bpe": dict(vocab_size=900, model_type="bpe", normalization_rule_name="identity"),
    "uni-small": dict(vocab_size=300, model_type="unigram", normalization_rule_name="identity"),
}

# NAME: (slow class, MODEL, extra arguments)
FOLDERS = {
    "albert": (AlbertTokenizer, "uni-cf", {}),
    "albert-cased": (AlbertTokenizer, "uni-cf", dict(do_lower_case=False, keep_accents=True)),
    "xlm-roberta": (XLMRobertaTokenizer, "uni-nfkc", {}),
    "camembert": (CamembertTokenizer, "bpe", {}),
    "camembert-uni": (CamembertTokenizer, "uni-nfkc", {}),
    "deberta-v2": (DebertaV2Tokenizer, "uni-deberta", {}),
    "deberta-v2-punct": (DebertaV2Tokenizer, "uni-deberta", dict(split_by_punct=True, do_lower_case=True)),
    "t5": (T5Tokenizer, "uni-nfkc", dict(extra_ids=5, legacy=False)),
    "xlm-roberta-small": (XLMRobertaTokenizer, "uni-small", {}),
}

# folders written by hand, as older checkpoints have them: NAME: (MODEL, FILE, {file: JSON})
MINIMAL = {
    "xlm-roberta-min": ("uni-nfkc", "sentencepiece.bpe.model", {"tokenizer_config.json": {"tokenizer_class": "XLMRobertaTokenizer"}}),
    "albert-min": ("uni-cf", "spiece.model", {"config.json": {"model_type": "albert"}}),
    "deberta-v2-min": ("uni-deberta", "spm.model", {"tokenizer_config.json": {"do_lower_case": True, "split_by_punct": True},
                                                    "config.json": {"model_type": "deberta-v2"}}),
    "camembert-min": ("bpe", "sentencepiece.bpe.model", {"tokenizer_config.json": {"tokenizer_class": "CamembertTokenizer"},
                                                         "special_tokens_map.json": {"mask_token": "<mask>", "cls_token": "<s>"}}),
    "t5-min": ("uni-nfkc", "spiece.model", {"tokenizer_config.json": {"tokenizer_class": "T5Tokenizer", "extra_ids": 3}}),
}


def lines_sha(lines):
    return hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()


def main():
    ewt_path, outdir = sys.argv[1], sys.argv[2]
    ewt = ewt_sentences(ewt_path)
    text = corpus(ewt)
    words_dir = os.path.join(os.path.dirname(outdir.rstrip("/")), "tok")
    rnd = random_sentences()
    sd = os.path.join(outdir, "spm")
    shutil.rmtree(sd, ignore_errors=True)
    os.makedirs(sd)
    with tempfile.TemporaryDirectory() as td:
        src = os.path.join(td, "text.txt")
        with open(src, "w") as f:
            f.write("\n".join(text) + "\n")
        for name, kw in MODELS.items():
            spm.SentencePieceTrainer.train(input=src, model_prefix=os.path.join(td, name), character_coverage=0.995,
                                           minloglevel=2, **kw)
            with open(os.path.join(td, name + ".model"), "rb") as f, \
                    gzip.GzipFile(os.path.join(sd, name + ".model.gz"), "wb", mtime=0) as g:
                g.write(f.read())
        for name in list(FOLDERS) + list(MINIMAL):
            fd = os.path.join(td, "f-" + name)
            if name in FOLDERS:
                cls, model, kw = FOLDERS[name]
                slow = cls(vocab_file=os.path.join(td, model + ".model"), **kw)
                slow.save_pretrained(fd)
            else:
                model, fn, files = MINIMAL[name]
                os.makedirs(fd)
                shutil.copy(os.path.join(td, model + ".model"), os.path.join(fd, fn))
                for f, j in files.items():
                    with open(os.path.join(fd, f), "w") as g:
                        json.dump(j, g)
            fast = AutoTokenizer.from_pretrained(fd, use_fast=True)
            slow = AutoTokenizer.from_pretrained(fd, use_fast=False)
            cls = type(slow)
            assert fast.is_fast and type(fast).__name__ == cls.__name__ + "Fast", (type(fast), cls)
            od = os.path.join(sd, name)
            os.makedirs(od)
            mfile = None
            for fn in sorted(os.listdir(fd)):   # (config.json too, for the -min folders)
                if fn.endswith(".model"):
                    mfile = fn
                elif fn != "added_tokens.json":
                    shutil.copy(os.path.join(fd, fn), od)
            assert mfile, os.listdir(fd)
            with open(os.path.join(od, "source"), "w") as f:
                f.write("%s %s\n" % (model, mfile))
            raw = fast.backend_tokenizer
            unk = fast.unk_token_id
            with open(os.path.join(od, "sample.expected"), "w", encoding="utf-8") as f:
                f.write("\n".join(expected(fast, SAMPLE, unk, raw)) + "\n")
            with open(os.path.join(od, "random.expected"), "w", encoding="utf-8") as f:
                f.write("\n".join(expected(fast, rnd, unk, raw)) + "\n")
            ew = expected(fast, ewt, unk, raw)
            with open(os.path.join(od, "ewt.sha256"), "w") as f:
                f.write(lines_sha(ew) + "\n")
            # the converted tokenizer.json, for comparing by hand (not read by the tests)
            with open(os.path.join(td, name + ".tokenizer.json"), "w") as f:
                f.write(raw.to_str(pretty=True))
            if os.environ.get("SPM_DUMP"):
                shutil.copy(os.path.join(td, name + ".tokenizer.json"), os.environ["SPM_DUMP"])
            agree = sum(slow(s, is_split_into_words=True)["input_ids"] == fast(s, is_split_into_words=True)["input_ids"]
                        for s in ewt)
            print("wrote %s (%s, %s): slow and fast agree on %d of %d EWT sentences" % (od, cls.__name__, model, agree, len(ewt)))
    bert_lower(ewt, os.path.join(outdir, "lower"))


# BERT-style folders whose tokenizer_config.json's do_lower_case disagrees with tokenizer.json's
# BertNormalizer: BertTokenizerFast (4.40.2) rebuilds the normalizer with tokenizer_config's
# do_lower_case (default True), strip_accents (None) and tokenize_chinese_chars (True) when one of
# them differs from the file. NAME/tokenizer.json.gz is gunzipped by the test.
def bert_lower(ewt, od):
    shutil.rmtree(od, ignore_errors=True)
    os.makedirs(od)
    wp = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=100))
    wp.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=False)
    wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wp.train_from_iterator(corpus(ewt), trainers.WordPieceTrainer(vocab_size=1200, limit_alphabet=400,
                           special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    wp.post_processor = processors.BertProcessing(("[SEP]", wp.token_to_id("[SEP]")), ("[CLS]", wp.token_to_id("[CLS]")))
    cases = {   # NAME: (normalizer lowercase in tokenizer.json, tokenizer_config.json's keys; None: no file)
        "json-cased-cfg-lower": (False, {"do_lower_case": True}),
        "json-cased-cfg-cased": (False, {"do_lower_case": False}),
        "json-cased-cfg-none": (False, {}),
        "json-lower-cfg-cased": (True, {"do_lower_case": False}),
        "json-cased-cfg-accents": (False, {"do_lower_case": False, "strip_accents": True}),
        "json-lower-no-cfg": (True, None),
        "vocab-cfg-cased": (None, {"do_lower_case": False}),     # vocab.txt only: BertConverter
        "vocab-cfg-lower": (None, {"do_lower_case": True}),
    }
    for name, (lower, cfg) in cases.items():
        j = json.loads(wp.to_str())
        j["normalizer"]["lowercase"] = lower
        d = os.path.join(od, name)
        os.makedirs(d)
        with tempfile.TemporaryDirectory() as td:
            if lower is None:
                with open(os.path.join(td, "vocab.txt"), "w", encoding="utf-8") as f:
                    f.write("".join(t + "\n" for t, _ in sorted(wp.get_vocab().items(), key=lambda x: x[1])))
            else:
                with open(os.path.join(td, "tokenizer.json"), "w") as f:
                    json.dump(j, f)
            if cfg is not None:
                with open(os.path.join(td, "tokenizer_config.json"), "w") as f:
                    json.dump(dict(cfg, tokenizer_class="BertTokenizer"), f)
            else:
                with open(os.path.join(td, "config.json"), "w") as f:
                    json.dump({"model_type": "bert"}, f)
            tok = AutoTokenizer.from_pretrained(td)
            assert type(tok) is BertTokenizerFast, type(tok)
            for fn in os.listdir(td):
                if fn != "tokenizer.json":
                    shutil.copy(os.path.join(td, fn), d)
            if lower is not None:
                with open(os.path.join(td, "tokenizer.json"), "rb") as f, \
                        gzip.GzipFile(os.path.join(d, "tokenizer.json.gz"), "wb", mtime=0) as g:
                    g.write(f.read())
            with open(os.path.join(d, "sample.expected"), "w", encoding="utf-8") as f:
                f.write("\n".join(expected(tok, SAMPLE, tok.unk_token_id, tok.backend_tokenizer)) + "\n")
            with open(os.path.join(d, "ewt.sha256"), "w") as f:
                f.write(lines_sha(expected(tok, ewt, tok.unk_token_id, tok.backend_tokenizer)) + "\n")
        print("wrote", d)


if __name__ == "__main__":
    main()
