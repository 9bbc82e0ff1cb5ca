#!/usr/bin/python3
"""Gold/test bracketings from the real PTB sample for bench/evalb.sh (standard library only).

Usage: gen_evalb_ptb.py MRG_DIR OUT_DIR [SEED]
Reads every *.mrg under MRG_DIR (sorted by name) and writes, one tree a line:
  OUT/ptb.gld      the gold trees, outer empty-label bracket renamed TOP (docs/spec/probing.md A25);
  OUT/ptb_pert.tst a parser-like test tree per gold tree: -NONE- leaves and the brackets they
                   leave empty removed, function tags cut, then seeded perturbations: a bracket
                   deleted (10%), relabelled (8%), or widened over its next sibling (8%), a
                   non-punctuation tag replaced (4%); 1% of sentences get a changed word (EVALB
                   "Words unmatch" error) and 0.5% an empty line (skip);
  OUT/ptb_rb.tst   right-branching trees (label X) over the gold tokens after -NONE- removal,
                   gold tags (the docs/spec/probing.md §5.4 baseline, scored with Protocol A).
Sentences the reference binary cannot take (docs/spec/probing.md §4.7: > 200 terminals or brackets, a
line of 4,900 bytes or more, labels of 30 or words of 100 characters) are left out, on all sides.
Prints "kept K of N trees" on stdout.
"""
import os
import random
import sys

PUNCT = {",", ".", ":", "``", "''", "-LRB-", "-RRB-", "#", "$"}
TAGS = ["NN", "NNS", "NNP", "VB", "VBD", "VBZ", "VBN", "VBG", "VBP", "JJ", "RB", "IN", "DT", "CD",
        "PRP", "CC", "TO", "MD"]
LABELS = ["NP", "VP", "PP", "S", "SBAR", "ADJP", "ADVP", "QP", "WHNP", "PRN"]


def tokens(text):
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "()":
            yield c
            i += 1
        elif c.isspace():
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "()":
                j += 1
            yield text[i:j]
            i = j


def read_trees(text):
    """Trees as nested lists [label, child...]; a terminal is (tag, word)."""
    stack, out = [], []
    toks = list(tokens(text))
    k = 0
    while k < len(toks):
        t = toks[k]
        if t == "(":
            label = ""
            if k + 1 < len(toks) and toks[k + 1] not in "()":
                label = toks[k + 1]
                k += 1
            # (TAG word) terminal
            if label and k + 2 < len(toks) and toks[k + 1] not in "()" and toks[k + 2] == ")":
                node = (label, toks[k + 1])
                k += 3
                stack[-1].append(node)
                continue
            stack.append([label])
        elif t == ")":
            node = stack.pop()
            if stack:
                stack[-1].append(node)
            else:
                out.append(node)
        else:
            raise SystemExit("gen_evalb_ptb.py: stray token %r" % t)
        k += 1
    return out


def show(node):
    if isinstance(node, tuple):
        return "(%s %s)" % node
    return "(" + node[0] + "".join(" " + show(c) for c in node[1:]) + ")"


def leaves(node):
    if isinstance(node, tuple):
        return [node]
    return [x for c in node[1:] for x in leaves(c)]


def count_brackets(node):
    return 0 if isinstance(node, tuple) else 1 + sum(count_brackets(c) for c in node[1:])


def labels(node):
    if isinstance(node, tuple):
        return [node[0]]
    return [node[0]] + [x for c in node[1:] for x in labels(c)]


def strip(node):
    """Without -NONE- leaves and the brackets left empty; function tags cut (NP-SBJ-1 -> NP)."""
    if isinstance(node, tuple):
        return None if node[0] == "-NONE-" else node
    kids = [k for k in (strip(c) for c in node[1:]) if k is not None]
    if not kids:
        return None
    lab = node[0]
    if lab and not lab.startswith("-"):
        for sep in "-=":
            lab = lab.split(sep)[0]
    return [lab] + kids


def perturb(node, rng, root=True):
    if isinstance(node, tuple):
        if node[0] not in PUNCT and rng.random() < 0.04:
            return [(rng.choice([t for t in TAGS if t != node[0]]), node[1])]
        return [node]
    kids = []
    for c in node[1:]:
        kids.extend(perturb(c, rng, False))
    # widen: a bracket child swallows its next sibling
    i = 0
    while i + 1 < len(kids):
        if isinstance(kids[i], list) and rng.random() < 0.08:
            kids[i] = kids[i] + [kids.pop(i + 1)]
        i += 1
    lab = node[0]
    if not root:
        if rng.random() < 0.10:
            return kids
        if rng.random() < 0.08:
            lab = rng.choice([x for x in LABELS if x != lab])
    return [[lab] + kids]


def right_branching(terms):
    if len(terms) == 1:
        return terms[0]
    return ["X", terms[0], right_branching(terms[1:])]


def fits(line, tree):
    lv = leaves(tree)
    return (len(line.encode()) < 4900 and len(lv) <= 200 and count_brackets(tree) <= 200
            and all(len(x) < 30 for x in labels(tree)) and all(len(w) < 100 for _, w in lv))


def main():
    src, out = sys.argv[1], sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    names = sorted(f for f in os.listdir(src) if f.endswith(".mrg"))
    trees = []
    for f in names:
        with open(os.path.join(src, f), encoding="utf-8") as fh:
            trees.extend(read_trees(fh.read()))
    os.makedirs(out, exist_ok=True)
    kept = 0
    with open(os.path.join(out, "ptb.gld"), "w") as g, open(os.path.join(out, "ptb_pert.tst"), "w") as p, \
            open(os.path.join(out, "ptb_rb.tst"), "w") as r:
        for t in trees:
            gold = ["TOP"] + t[1:] if t[0] == "" else t
            s = strip(gold)
            pert = perturb(s, rng)[0]
            terms = leaves(s)
            rb = ["TOP", right_branching(terms)]
            lines = [show(gold), show(pert), show(rb)]
            if not all(fits(x, y) for x, y in zip(lines, [gold, pert, rb])):
                continue
            u = rng.random()
            if u < 0.005:
                lines[1] = ""
            elif u < 0.015:
                lines[1] = lines[1].replace(" %s)" % terms[0][1], " XXX)", 1)
            g.write(lines[0] + "\n")
            p.write(lines[1] + "\n")
            r.write(lines[2] + "\n")
            kept += 1
    print("kept %d of %d trees" % (kept, len(trees)))


if __name__ == "__main__":
    main()
