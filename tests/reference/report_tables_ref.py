"""Independent readers of `synprobe report --format latex` and `--format md` (and the numbers of the
text, JSON and CSV reports) for tests/cli/t5165-t5167: each format is parsed here on its own, every
cell normalised to one plain form, and the expected cells are computed from the per-seed results in
the JSON report, not from the aggregates the program computed (the bootstrap interval excepted: it is
checked against stats_ref.py in t95).

Normal form of a cell: plain UTF-8 text, "±" between mean and sd, "–" for no value, "a–b" for a
range of counts, "**x**" for bold, footnote marks "†" (small test set), "*" (wide interval), "‡" (no
interval) at the end.

  python3 report_tables_ref.py REPORT.json REPORT.txt REPORT.csv REPORT.tex REPORT.md
prints one line per mismatch, then "cells N mismatches M"; exit status 1 when M > 0.
"""
import csv
import json
import math
import re
import statistics
import sys

# ---- numbers as the reports round them ----


def fmt(v, prec=1):
    """v with prec decimals; a value that rounds to zero has no sign; None/NaN: the missing mark"""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    s = "%.*f" % (prec, v)
    if s.startswith("-") and not re.search(r"[1-9]", s):
        s = s[1:]
    return s


def mean_sd(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None, None
    m = sum(vals) / len(vals)
    sd = statistics.stdev(vals) if len(vals) > 1 else None
    return m, sd


def meansd_cell(vals, prec=1):
    m, sd = mean_sd(vals)
    if m is None:
        return "–"
    return fmt(m, prec) + ("" if sd is None else " ± " + fmt(sd, prec))


# ---- LaTeX ----

LATEX_MACROS = [
    (r"\textbackslash{}", "\\"), (r"\textasciitilde{}", "~"), (r"\textasciicircum{}", "^"), (r"\textless{}", "<"),
    (r"\textgreater{}", ">"), (r"\textbar{}", "|"), (r"\textasciigrave{}", "`"), ("$\\pm$", "±"), ("$-$", "-"),
    ("$+$", "+"), ("$^{\\dagger}$", "†"), ("$^{*}$", "*"), ("$^{\\ddagger}$", "‡"), ("$\\le$", "≤"), ("$\\ge$", "≥"),
    ("$\\times$", "×"), ("$\\dagger$", "†"), ("$\\ddagger$", "‡"), ("-{}", "-"), ("---", "—"), ("--", "–"),
] + [("\\" + c, c) for c in "&%$#_{}"]
_latex_re = re.compile("|".join(re.escape(a) for a, _ in LATEX_MACROS))
_latex_map = dict(LATEX_MACROS)


def latex_text(s):
    """LaTeX text (our escapes only) back to plain text, in one pass"""
    return _latex_re.sub(lambda m: _latex_map[m.group(0)], s)


def split_unescaped(s, sep):
    """split s at sep characters not escaped by a backslash (a backslash escapes the next char)"""
    out, cur, i = [], "", 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            cur += s[i:i + 2]
            i += 2
            continue
        if s[i] == sep:
            out.append(cur)
            cur = ""
        else:
            cur += s[i]
        i += 1
    out.append(cur)
    return out


def braces_balanced(s):
    depth = 0
    i = 0
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == "{":
            depth += 1
        elif s[i] == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


def strip_group(s, opener):
    """'{\\footnotesize X}' -> X (opener '{\\footnotesize '), '\\textbf{X}' -> '**X**' (opener '\\textbf{')"""
    if s.startswith(opener) and s.endswith("}"):
        return s[len(opener):-1]
    return None


_escape_token = re.compile("|".join(re.escape(a) for a, _ in LATEX_MACROS if a.startswith(("\\", "$", "-{"))))


def bare_specials(s):
    """the characters of s that LaTeX would not print as themselves once our escapes are taken out"""
    return sorted(set(ch for ch in _escape_token.sub("", s) if ch in "&%$#_{}~^\\"))


def latex_cell(raw, problems=None):
    s = raw.strip()
    if s.startswith("{}"):      # a row may not start with [ or * (the \\ above would take it)
        s = s[2:]
    if s.startswith("\\quad"):
        s = s[len("\\quad"):]
    inner = strip_group(s, "{\\footnotesize ")
    if inner is not None:
        s = inner
    m = re.match(r"^\\textbf\{(.*?)\}(.*)$", s)
    if m:
        s = "**" + m.group(1) + "**" + m.group(2)
    if problems is not None and bare_specials(s.replace("**", "")):
        problems.append("unescaped %s in cell %r" % ("".join(bare_specials(s)), raw))
    return latex_text(s)


def latex_escape(s, first_cell=False):
    """plain text -> LaTeX text, written here from the LaTeX rules (not from the program's table); a
    row's first cell may not start with [ or *: the \\\\ ending the row above would read it"""
    out = ["{}"] if first_cell and s[:1] in ("[", "*") else []
    for i, ch in enumerate(s):
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch in "~^\\<>|`":
            out.append({"~": "\\textasciitilde{}", "^": "\\textasciicircum{}", "\\": "\\textbackslash{}",
                        "<": "\\textless{}", ">": "\\textgreater{}", "|": "\\textbar{}", "`": "\\textasciigrave{}"}[ch])
        elif ch == "-" and s[i + 1:i + 2] == "-":
            out.append("-{}")
        else:
            out.append(ch)
    return "".join(out)


def md_escape(s):
    """plain text -> GitHub Markdown text: a backslash before every punctuation mark that could format"""
    return "".join("\\" + ch if ch in "\\`*_|<>[]~$&" else ch for ch in s)


def parse_latex(text):
    """the tables of a LaTeX report: [{id, caption, ncol, head: [[cells]], rows: [[cells]], legend, problems}]"""
    tables = []
    for m in re.finditer(r"\\begin\{table\}\[htbp\]\n(.*?)\\end\{table\}\n", text, re.S):
        body = m.group(1)
        t = {"problems": []}
        cap = re.search(r"\\caption\{(.*)\}\n\\label\{tab:synprobe-([a-z0-9-]+)\}\n", body)
        t["caption"], t["id"] = (latex_text(cap.group(1)), cap.group(2)) if cap else ("", "")
        if not cap:
            t["problems"].append("no caption/label")
        if not braces_balanced(body):
            t["problems"].append("unbalanced braces")
        tab = re.search(r"\\begin\{tabular\}\{([lrc]+)\}\n\\toprule\n(.*?)\\bottomrule\n\\end\{tabular\}", body, re.S)
        if not tab:
            t["problems"].append("no booktabs tabular")
            tables.append(t)
            continue
        t["ncol"] = len(tab.group(1))
        t["head"], t["rows"] = [], []
        seen_body = False
        for line in tab.group(2).split("\n"):
            if not line or line.startswith("\\cmidrule"):
                continue
            if line == "\\midrule":
                seen_body = True
                continue
            if not line.endswith(" \\\\"):
                t["problems"].append("a row without \\\\: " + line)
                continue
            cells, n = [], 0
            for raw in split_unescaped(line[:-3], "&"):
                mc = re.match(r"^\s*\\multicolumn\{(\d+)\}\{c\}\{(.*)\}\s*$", raw)
                if mc:
                    span = int(mc.group(1))
                    cells += [latex_cell(mc.group(2), t["problems"])] * span
                    n += span
                else:
                    cells.append(latex_cell(raw, t["problems"]))
                    n += 1
            if n != t["ncol"]:
                t["problems"].append("%d cells, %d columns: %s" % (n, t["ncol"], line))
            (t["rows"] if seen_body else t["head"]).append(cells)
        t["legend"] = [latex_text(x) for x in re.findall(r"^(\$\^\{.*?\}\$ .*)\.\\par$", body, re.M)]
        tables.append(t)
    return tables


# ---- Markdown ----


def md_text(s):
    return re.sub(r"\\(.)", r"\1", s)


def parse_md(text):
    """the tables of a Markdown report: [{caption, ncol, head: [cells], rows: [[cells]], legend, problems}]"""
    tables = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^\*\*Table (\d+)\.\*\* (.*)$", lines[i])
        if not m:
            i += 1
            continue
        t = {"caption": md_text(m.group(2)), "problems": [], "rows": [], "legend": []}
        i += 1
        while i < len(lines) and not lines[i].startswith("|"):
            i += 1
        block = []
        while i < len(lines) and lines[i].startswith("|"):
            block.append(lines[i])
            i += 1
        split = [split_unescaped(l, "|") for l in block]
        for l, parts in zip(block, split):
            if parts[0] != "" or parts[-1] != "" or not l.endswith(" |"):
                t["problems"].append("a row not between pipes: " + l)
        cells = [[c.strip() for c in p[1:-1]] for p in split]
        t["ncol"] = len(cells[0]) if cells else 0
        for l, c in zip(block, cells):
            if len(c) != t["ncol"]:
                t["problems"].append("%d cells, %d columns: %s" % (len(c), t["ncol"], l))
        if len(cells) < 2 or not all(re.fullmatch(r":?-+:?", c) for c in cells[1]):
            t["problems"].append("no delimiter row")
        t["head"] = [md_text(c) for c in cells[0]] if cells else []
        for c in cells[2:]:
            row = [md_text(x) for x in c]
            if row and row[0].startswith("↳ "):
                row[0] = row[0][2:]
            t["rows"].append(row)
        while i < len(lines) and not lines[i].startswith("**Table "):
            if re.match(r"^(†|\\\*|‡) ", lines[i]):
                t["legend"].append(md_text(lines[i]).rstrip("."))
            i += 1
        tables.append(t)
    return tables


# ---- text, CSV ----


def parse_text_aggregates(text):
    """{(encoder, task, classifier): {test, ci, majority, length, selectivity, n}} from the text report"""
    out = {}
    lines = text.split("\n")
    for k, l in enumerate(lines):
        if l.startswith("encoder ") and " 95% interval " in l:
            for row in lines[k + 1:]:
                if not row.strip() or row.startswith("majority:"):
                    break
                m = re.match(r"^(\S+)\s+(\S+)\s+(\S+)\s+(\d+)(!?)\s+(\d+)\s+(\S+(?: ± \S+)?)\s+(\[\S+, \S+\]|-)( \*)?\s+"
                             r"(\S+)\s+(\S+)\s+(\S+(?: ± \S+)?)$", row)
                if not m:
                    out.setdefault("unparsed", []).append(row)
                    continue
                out[(m.group(1), m.group(2), m.group(3))] = {
                    "n": m.group(4), "seeds": m.group(6), "test": m.group(7), "ci": m.group(8), "majority": m.group(10),
                    "length": m.group(11), "selectivity": m.group(12)}
    return out


def parse_text_trees(text):
    """{method: [A all, A le40, B all, B le40, B corpus]} and {method: [UUAS, DSpr, root, NSpr]}"""
    trees, sp = {}, {}
    for l in text.split("\n"):
        m = re.match(r"^\s*\d+\s+(\S+)\s+\S+\s+(?:\S+\s+)?(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", l)
        if m and not m.group(1).startswith("structprobe:"):
            trees[m.group(1)] = list(m.group(3, 4, 5, 6, 7))
        m = re.match(r"^\s*\d+\s+(structprobe:\S+)\s+\S+\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", l)
        if m:
            sp[m.group(1)] = list(m.group(3, 4, 5, 6))
    return trees, sp


# ---- the checks ----


class Checker:
    def __init__(self):
        self.n = 0
        self.bad = []

    def eq(self, what, got, want):
        self.n += 1
        if got != want:
            self.bad.append("%s: got %r, want %r" % (what, got, want))


def label_of(p):
    run, task = p["run"], p["task"]
    return run[: -len(task) - 1] if run.endswith("-" + task) else run


def layer_of(label):
    m = re.match(r"^(.*)-L(\d+)$", label)
    return (m.group(1), int(m.group(2))) if m else (None, None)


def check_all(rep, text, csv_text, tex, md):
    c = Checker()
    T, M = parse_latex(tex), parse_md(md)
    for t in T:
        for p in t["problems"]:
            c.bad.append("latex %s: %s" % (t.get("id"), p))
    for t in M:
        for p in t["problems"]:
            c.bad.append("md %s: %s" % (t["caption"][:30], p))
    c.eq("as many Markdown tables as LaTeX tables", len(M), len(T))
    # LaTeX = Markdown, cell by cell (the head rows joined per column as Markdown joins them)
    for k, (t, m) in enumerate(zip(T, M)):
        c.eq("table %d caption" % k, m["caption"], t["caption"])
        head = [" ".join(x for x in col if x) for col in zip(*t["head"])] if t["head"] else []
        # a spanned head covers its columns with one text: latex_cell repeated it per column
        c.eq("table %d head" % k, m["head"], head)
        c.eq("table %d rows" % k, m["rows"], t["rows"])
        c.eq("table %d legend" % k, m["legend"], t["legend"])
    by_id = {t["id"]: t for t in T}

    # expected cells from the per-seed results
    groups = {}
    for p in rep["probe_results"]:
        groups.setdefault((label_of(p), p["task"], p["classifier"]), []).append(p)
    aggs = {(a["encoder"], a["task"], a["classifier"]): a for a in rep["aggregates"]}

    def bl(p, path):
        x = p["result"].get("baselines") or {}
        for k in path.split("."):
            x = x.get(k) if isinstance(x, dict) else None
        return x

    txt = parse_text_aggregates(text)
    for row in txt.get("unparsed", []):
        c.bad.append("text: unparsed aggregate row %r" % row)
    for (enc, task, clf), mem in groups.items():
        a = aggs[(enc, task, clf)]
        test = [p["test_acc"] for p in mem]
        sel = [bl(p, "control.selectivity") for p in mem]
        ctl = [bl(p, "control.acc") for p in mem]
        maj = bl(mem[0], "majority.acc")
        iv = a["test_acc"].get("ci95")
        flag_iv = ("*" if iv and iv["wide_ci"] else "") if iv else "‡"
        iv1 = "[%s, %s]" % (fmt(iv["lo"]), fmt(iv["hi"])) if iv else "–"
        ntest = mem[0]["result"]["ntest"]
        nflag = "†" if ntest < 97 else ""
        # text = JSON (two decimals)
        tr = txt.get((enc, task, clf))
        if tr is None:
            c.bad.append("text: no aggregate row for %s" % ((enc, task, clf),))
        else:
            c.eq("text %s test" % enc, tr["test"], meansd_cell(test, 2).replace("–", "-"))
            c.eq("text %s interval" % enc, tr["ci"], "[%s, %s]" % (fmt(iv["lo"], 2), fmt(iv["hi"], 2)) if iv else "-")
            c.eq("text %s majority" % enc, tr["majority"], fmt(maj, 2).replace("–", "-"))
            c.eq("text %s selectivity" % enc, tr["selectivity"], meansd_cell(sel, 2).replace("–", "-"))
            c.eq("text %s n" % enc, tr["n"], str(ntest))
        if task.startswith("token:"):
            t = by_id.get("token-" + clf)
            if not t:
                c.bad.append("no token table for " + clf)
                continue
            hi = t["head"][0].index(task)
            r = [x for x in t["rows"] if x[0] == enc]
            ri = t["rows"].index(r[0]) if r else -1
            c.eq("token %s %s accuracy" % (enc, task), r[0][hi] if r else None, meansd_cell(test))
            c.eq("token %s %s control" % (enc, task), r[0][hi + 1] if r else None, meansd_cell(ctl).split(" ±")[0])
            c.eq("token %s %s selectivity" % (enc, task), r[0][hi + 2] if r else None, meansd_cell(sel).split(" ±")[0])
            c.eq("token %s %s interval" % (enc, task), t["rows"][ri + 1][hi] if r else None, iv1 + flag_iv)
        else:
            t = by_id.get("probing-" + clf)
            if not t:
                c.bad.append("no probing table for " + clf)
                continue
            col = t["head"][0].index(task)
            rows = {x[0]: i for i, x in enumerate(t["rows"])}
            ri = rows.get(enc)
            c.eq("probing %s %s mean ± sd" % (enc, task), t["rows"][ri][col] if ri is not None else None, meansd_cell(test))
            c.eq("probing %s %s interval" % (enc, task), t["rows"][ri + 1][col] if ri is not None else None, iv1 + flag_iv)
            c.eq("probing %s %s selectivity" % (enc, task), t["rows"][ri + 2][col] if ri is not None else None,
                 meansd_cell(sel).split(" ±")[0])
            c.eq("probing majority %s" % task, t["rows"][rows["majority class"]][col], fmt(maj))
            c.eq("probing n %s" % task, t["rows"][rows["n (test items)"]][col], str(ntest) + nflag)
            c.eq("probing seeds %s" % task, t["rows"][rows["seeds"]][col], str(len(mem)))
        base, k = layer_of(enc)
        if base is not None:
            t = by_id.get(re.sub(r"-+", "-", re.sub(r"[^a-z0-9]", "-", ("layers-%s-%s" % (base, clf)).lower())).strip("-"))
            if not t:
                c.bad.append("no layer table for %s" % base)
                continue
            r = [x for x in t["rows"] if x[0] == task]
            want = fmt(mean_sd(test)[0])
            best = max((mean_sd([q["test_acc"] for q in v])[0], kk) for kk, v in groups.items()
                       if kk[1] == task and kk[2] == clf and layer_of(kk[0])[0] == base)[0]
            if fmt(best) == want:
                want = "**" + want + "**"
            c.eq("layer %s L%d %s" % (base, k, task), r[0][1 + k] if r else None, want)

    # CSV = JSON: the aggregate rows
    for row in csv.DictReader(csv_text.splitlines()):
        if row["kind"] != "aggregate" or row["split"] != "test" or row["metric"] not in ("accuracy_mean", "selectivity_mean", "control_accuracy_mean"):
            continue
        mem = groups[(row["run"], row["task"], row["classifier"])]
        key = {"accuracy_mean": None, "selectivity_mean": "control.selectivity", "control_accuracy_mean": "control.acc"}
        vals = [p["test_acc"] if key[row["metric"]] is None else bl(p, key[row["metric"]]) for p in mem]
        m, _ = mean_sd(vals)
        got = float(row["value"]) if row["value"] else None
        c.eq("csv %s %s %s" % (row["run"], row["task"], row["metric"]),
             None if got is None else abs(got - m) <= 1e-8 * max(1, abs(m)), None if m is None else True)

    # trees, structural probes, dependency trees: the stored figures
    ttrees, tsp = parse_text_trees(text)
    for e in rep["tree_evals"]:
        meth, r = e["method"], e["result"]
        if meth.startswith("structprobe:"):
            t = by_id["structural-probes"]
            label = {"structprobe:linear": "linear baseline (whole corpus)"}.get(meth, meth[len("structprobe:"):])
            row = [x for x in t["rows"] if x[0] == label]
            want = [e["corpus"], str(r["n_sentences"]), fmt(r["uuas"]), fmt(r["dspr"], 2), fmt(r["root_acc"]), fmt(r["nspr"], 2)]
            c.eq("structprobe " + meth, row[0][1:] if row else None, want)
            c.eq("text structprobe " + meth, tsp.get(meth),
                 [fmt(r["uuas"], 2), fmt(r["dspr"], 4), fmt(r["root_acc"], 2), fmt(r["nspr"], 4)])
            lb = r.get("linear_baseline")
            if lb:
                row = [x for x in t["rows"] if x[0].startswith("linear baseline (the trained")]
                c.eq("structprobe linear baseline of " + meth, row[0][2:] if row else None,
                     [str(lb["n_sentences"]), fmt(lb["uuas"]), fmt(lb["dspr"], 2), fmt(lb["root_acc"]), fmt(lb["nspr"], 2)])
        elif meth.startswith("dependency:"):
            t = by_id["dependency-trees"]
            row = [x for x in t["rows"] if x[0] == meth[len("dependency:"):]]
            c.eq("dependency " + meth, row[0][2:] if row else None,
                 [str(r["n_sentences"]), fmt(r.get("uas")), fmt(r.get("uuas_dir")), fmt(r.get("uuas_mst"))])
        else:
            t = by_id["tree-extraction"]
            row = [x for x in t["rows"] if x[0] == meth]
            pa, pb = r["protocol_a"], r["protocol_b"]
            c.eq("trees " + meth, row[0][1:] if row else None,
                 [e["corpus"], str(r["n_sentences"]), fmt(pa["all"]["fmeasure"]), fmt(pa["le40"]["fmeasure"]),
                  fmt(pb["sentence_f1"]["all"]), fmt(pb["sentence_f1"]["le40"]), fmt(pb["sentence_f1"]["le10"]),
                  fmt(pb["corpus_f1"]["all"])])
            c.eq("text trees " + meth, ttrees.get(meth),
                 [fmt(pa["all"]["fmeasure"], 2), fmt(pa["le40"]["fmeasure"], 2), fmt(pb["sentence_f1"]["all"], 2),
                  fmt(pb["sentence_f1"]["le40"], 2), fmt(pb["corpus_f1"]["all"], 2)])
    return c


def main(argv):
    rep = json.load(open(argv[1], encoding="utf-8"))
    text, csv_text, tex, md = (open(p, encoding="utf-8").read() for p in argv[2:6])
    c = check_all(rep, text, csv_text, tex, md)
    for b in c.bad:
        print(b)
    print("cells %d mismatches %d" % (c.n, len(c.bad)))
    return 1 if c.bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
