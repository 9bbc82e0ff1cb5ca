#!/usr/bin/env python3
"""Independent reference for the BERT tokenizer (docs/spec/models.md M1), written the way HF's slow
BertTokenizer is (BasicTokenizer + WordpieceTokenizer), on Python's own Unicode machinery:
str.lower (full mapping, Final_Sigma), unicodedata.category / normalize, str.split / isspace.
It shares no code or table with encoder/enc_tokenizer.c (which uses utf8proc), so agreement
checks the C code's use of utf8proc, its derived Cased / Case_Ignorable properties and every
rule of M1.

    bert_tokenize_ref.py DRIVER VOCAB codepoints         every assigned code point in contexts
    bert_tokenize_ref.py DRIVER VOCAB codepoints-all-modes   the same in wordpiece-only mode too
    bert_tokenize_ref.py DRIVER VOCAB words FILE...      the words of .conllu / .mrg / .dp files

DRIVER is tests/tools/encoder_tokenize. Prints TAP lines ("ok - ..." / "not ok - ...") and
the first differences. Python's Unicode version (unicodedata.unidata_version) may be older than
utf8proc's: code points unassigned in Python's version are left out (with Python 3.11, Unicode
14.0, against utf8proc 2.8, Unicode 15.0, every other code point agrees). Where Python's Unicode is
newer than utf8proc's, the code point comparison is reported as a skip when it finds differences.
"""
import re
import subprocess
import sys
import unicodedata

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PTB_WHOLE = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}",
             "``": '"', "''": '"'}


def load_vocab(path):
    vocab = {}
    with open(path, "r", encoding="utf-8", newline="\n") as f:
        for i, line in enumerate(f.readlines()):
            vocab[line.rstrip("\n")] = i
    return vocab


def is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_chinese(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def basic_tokenize(text, lower):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or is_control(ch):
            continue
        out.append(" " if is_whitespace(ch) else ch)
    text = "".join(" %s " % c if is_chinese(ord(c)) else c for c in out)
    text = unicodedata.normalize("NFC", text)          # HF does it; M1.3 step 3 says it cannot matter
    tokens = []
    for tok in text.split():
        if tok in SPECIALS:                              # HF: never_split = all_special_tokens
            tokens.append(tok)
            continue
        if lower:
            tok = tok.lower()
            tok = "".join(c for c in unicodedata.normalize("NFD", tok) if unicodedata.category(c) != "Mn")
        cur = []
        for ch in tok:
            if is_punctuation(ch):
                if cur:
                    tokens.append("".join(cur))
                    cur = []
                tokens.append(ch)
            else:
                cur.append(ch)
        if cur:
            tokens.append("".join(cur))
    return [t for t in tokens if t]


def wordpiece(token, vocab, max_chars=100):
    chars = list(token)
    if len(chars) > max_chars:
        return [vocab["[UNK]"]]
    ids, start = [], 0
    while start < len(chars):
        end, cur = len(chars), None
        while start < end:
            sub = "".join(chars[start:end])
            if start > 0:
                sub = "##" + sub
            if sub in vocab:
                cur = vocab[sub]
                break
            end -= 1
        if cur is None:
            return [vocab["[UNK]"]]
        ids.append(cur)
        start = end
    return ids


def tokenize_word(word, vocab, mode, ptb, lower=True):
    """(ids, basic tokens) of one word, as M1.2-M1.5 say."""
    if ptb:
        word = PTB_WHOLE.get(word, word.replace("\\/", "/").replace("\\*", "*"))
    if mode == "wordpiece-only":
        basic = word.split()
        ids = [i for t in basic for i in wordpiece(t, vocab)]
    else:
        specials = [s for s in SPECIALS if s in vocab]
        parts = re.split("(" + "|".join(re.escape(s) for s in specials) + ")", word) if specials else [word]
        basic, ids = [], []
        for k, part in enumerate(parts):
            if k % 2:                                   # a special token (step 0)
                basic.append(part)
                ids.append(vocab[part])
            else:
                for t in basic_tokenize(part, lower):
                    basic.append(t)
                    ids.extend(wordpiece(t, vocab))
    if not ids:
        ids = [vocab["[UNK]"]]                          # D4
    return ids, basic


def run_driver(driver, vocab_path, opts, words):
    inp = "".join(w.encode("utf-8", "surrogatepass").hex() + "\n" for w in words)
    r = subprocess.run([driver, vocab_path] + opts, input=inp.encode(), stdout=subprocess.PIPE, check=True)
    out = r.stdout.decode().split("\n")
    assert out[-1] == "" and len(out) == len(words) + 1, "driver gave %d lines for %d words" % (len(out) - 1, len(words))
    res = []
    for line in out[:-1]:
        ids, basic = line.split("\t")
        res.append(([int(x) for x in ids.split()], bytes.fromhex(basic).decode("utf-8")))
    return res


def version_tuple(v):
    return tuple(int(x) for x in v.split(".")[:3])


def compare(name, driver, vocab_path, vocab, mode, ptb, words, newer_python=False):
    """One TAP line. newer_python: Python's Unicode is newer than utf8proc's, so code points
    assigned in between are kept by Python and dropped (Cn) by the C code: differences are then
    reported as a skip, not a failure."""
    opts = (["wordpiece-only"] if mode == "wordpiece-only" else []) + (["ptb"] if ptb else [])
    got = run_driver(driver, vocab_path, opts, words)
    bad = []
    for w, (gids, gbasic) in zip(words, got):
        ids, basic = tokenize_word(w, vocab, mode, ptb)
        if gids != ids or gbasic != " ".join(basic):
            bad.append((w, gids, ids, gbasic, " ".join(basic)))
    for w, gids, ids, gb, b in bad[:8]:
        print("#   differs %r: C ids %s basic %r; reference ids %s basic %r" % (w, gids[:8], gb[:40], ids[:8], b[:40]))
    if bad and newer_python:
        print("ok - # SKIP %s: %d of %d words differ, Python's Unicode %s is newer than utf8proc's"
              % (name, len(bad), len(words), unicodedata.unidata_version))
        return True
    print("%s - %s: %d words, %d differ" % ("not ok" if bad else "ok", name, len(words), len(bad)))
    return not bad


def codepoint_words():
    """Every code point assigned in Python's Unicode (a few of each private-use block), alone
    and in the Final_Sigma contexts that decide its Cased and Case_Ignorable properties."""
    words = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        cat = unicodedata.category(ch)
        if cat == "Cn" or (cat == "Co" and cp not in (0xE000, 0xF8FF, 0xF0000, 0x100000)):
            continue
        words += [ch, "\u0391\u03a3" + ch, ch + "\u03a3", "\u0391" + ch + "\u03a3", "x" + ch + "\u0301y"]
    # special tokens: whole (step 0), glued, and appearing only after cleaning (HF never_split)
    words += ["[SEP]", "a[SEP]b[CLS]", "[unk]", "[CL\x07S]", "[cl\x07s]", "a[SE\x07P]", "x\xa0[UN\u200bK]",
              "[MASK][PAD]", "[[UNK]]", "[UNK", "\u0130[SEP]\u03a3"]
    return words


def treebank_words(paths):
    words = []
    leaf = re.compile(r"\(([^\s()]+) ([^\s()]+)\)")
    for p in paths:
        with open(p, encoding="utf-8") as f:
            text = f.read()
        if p.endswith(".conllu"):
            for line in text.split("\n"):
                if line and not line.startswith("#"):
                    cols = line.split("\t")
                    if len(cols) == 10 and cols[0].isdigit():
                        words.append(cols[1])
        else:
            words += [m.group(2) for m in leaf.finditer(text)]
    return sorted(set(words))


def main():
    driver, vocab_path, what = sys.argv[1], sys.argv[2], sys.argv[3]
    vocab = load_vocab(vocab_path)
    ok = True
    if what in ("codepoints", "codepoints-all-modes"):
        words = codepoint_words()
        cver = subprocess.run([driver, "--unicode-version"], stdout=subprocess.PIPE, check=True).stdout.decode().strip()
        newer = version_tuple(unicodedata.unidata_version) > version_tuple(cver)
        print("# Python %s, Unicode %s; utf8proc Unicode %s: %d words"
              % (sys.version.split()[0], unicodedata.unidata_version, cver, len(words)))
        for mode in ("basic+wordpiece", "wordpiece-only")[:2 if what == "codepoints-all-modes" else 1]:
            ok &= compare("every code point, %s" % mode, driver, vocab_path, vocab, mode, False, words, newer)
    else:
        paths = sys.argv[4:]
        words = treebank_words(paths)
        ptb = any(not p.endswith(".conllu") for p in paths)
        for mode in ("basic+wordpiece", "wordpiece-only"):
            files = paths[0].split("/")[-1] + ("" if len(paths) == 1 else " and %d more files" % (len(paths) - 1))
            ok &= compare("%d word types of %s, %s%s" % (len(words), files, mode, ", ptb_unescape" if ptb else ""),
                          driver, vocab_path, vocab, mode, ptb, words)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
