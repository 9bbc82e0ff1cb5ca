#!/usr/bin/env python3
"""tests/reference/real_tokenizer_ids.py MODELS DATA OUT — the piece ids transformers 4.40.2 gives the
real models' tokenizers (make models) on a whole UD treebank in pre-tokenized mode
(is_split_into_words=True), as one SHA-256 per model and treebank: each sentence's ids joined by
spaces, one line a sentence. Run from a venv with transformers (`make real-tokenizer-ids
HF_PYTHON=V/bin/python`); t2231-tokjson-real.sh compares the C reader's ids with these sums, so no test needs
transformers. Writes OUT: lines "SHA256 MODEL TREEBANK SENTENCES"."""
import hashlib, sys
from transformers import AutoTokenizer

models, data, out = sys.argv[1:4]
TREEBANKS = ["ud-ewt/en_ewt-ud-dev.conllu"]
MODELS = ["all-mpnet-base-v2"]

def sentences(path):
    words = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            if words: yield words
            words = []
        elif not line.startswith("#"):
            f = line.split("\t")
            if f[0].isdigit(): words.append(f[1])      # words only: no multiword ranges, no empty nodes
    if words: yield words

rows = []
for m in MODELS:
    tok = AutoTokenizer.from_pretrained(f"{models}/{m}")
    for tb in TREEBANKS:
        h, n = hashlib.sha256(), 0
        for words in sentences(f"{data}/{tb}"):
            ids = tok(words, is_split_into_words=True)["input_ids"]
            h.update((" ".join(map(str, ids)) + "\n").encode())
            n += 1
        rows.append(f"{h.hexdigest()} {m} {tb} {n}")
with open(out, "w") as f:
    f.write("\n".join(rows) + "\n")
print("\n".join(rows))
