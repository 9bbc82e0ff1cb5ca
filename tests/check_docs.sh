#!/bin/sh
# tests/check_docs.sh BUILD [COUNTS] — the docs agree with the code (`make check-docs`, part of
# `make test`), as git's t0012-help checks its commands' help against their option tables:
#   1. docs/architecture.md's layer line ("common < ingest < ...") and its table of folders and
#      prefixes say what tests/check_symbols.sh's table of layers (the one the build is checked
#      against) says; and no two source or script files share a name;
#   2. every command's synopsis (the first block of its --help) names only flags of its option
#      tables, and names all of them (cli/cli.c writes it from the command's cli_doc and tables);
#   3. every `synprobe CMD` that README.md and docs/*.md show (in their code blocks and `inline
#      code`) names a command, and every flag after it is a flag of CMD (named by file:line);
#   4. every relative link of README.md and docs/*.md names a file that exists;
#   5. docs/commands.md and docs/synprobe.1 are what `make docs` writes now (`synprobe help
#      --markdown`, `help --man`): a changed option table or cli_doc needs `make docs`.
# (tests/cli/t7260-docs-examples.sh runs the examples themselves.)
# TAP lines, each violation under its "not ok"; appends "PASSED FAILED SKIPPED check-docs" to COUNTS.
build=${1:?usage: tests/check_docs.sh BUILD [COUNTS]}
counts=${2:-}
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP check-docs: no python3"; [ -z "$counts" ] || echo "0 0 1 check-docs" >>"$counts"; exit 0; }
exec python3 - "$build/synprobe" "$counts" <<'PY'
import re, subprocess, sys
sp, counts = sys.argv[1], sys.argv[2]
n = fails = 0
def report(ok, what, bad=()):
    global n, fails
    n += 1
    if ok: print(f"ok {n} - {what}")
    else:
        fails += 1; print(f"not ok {n} - {what}")
        for b in bad: print(f"#   {b}")

import glob
arch_file = "docs/architecture.md"
readme = open(arch_file, encoding="utf-8").read()
doc_files = ["README.md"] + sorted(glob.glob("docs/*.md"))
sym = open("tests/check_symbols.sh", encoding="utf-8").read()
table = re.search(r"LAYERS='\n(.*?)'", sym, re.S).group(1)
layers = [l.split() for l in table.strip().splitlines()]          # rank, folder, prefixes
# 1. the layer line: folders by rank, siblings joined by ", "
ranks = {}
for r, f, _ in layers: ranks.setdefault(int(r), []).append(f)
want = " < ".join(", ".join(ranks[r]) for r in sorted(ranks))
got = re.findall(r"^common < .*$", readme, re.M)
report(got and all(g == want for g in got), f"{arch_file}'s layer line is check_symbols.sh's table",
       [f"{arch_file}: {g}" for g in got if g != want] + [f"table:  {want}"] if not got or any(g != want for g in got) else [])
rows = dict(re.findall(r"^\| `([a-z]+)/` \| ([^|]+) \|", readme, re.M))
bad = []
for r, f, p in layers:
    pre = sorted(x for x in p.split(",") if x != "main")
    if f not in rows: bad.append(f"{f}/: no row in {arch_file}'s table of layers"); continue
    doc = sorted(re.findall(r"`([a-z]+_)`", rows[f]))
    if doc != pre: bad.append(f"{f}/: {arch_file} says {doc}, check_symbols.sh {pre}")
for f in rows:
    if f not in [l[1] for l in layers]: bad.append(f"{f}/: a {arch_file} row for a folder that is no layer")
report(not bad, f"{arch_file}'s table of folders and prefixes is check_symbols.sh's table", bad)

# file names are unique across the tree (sources and scripts), so a name in a message, a backtrace
# or a review says which file it is
# (the tree walked, not `git ls-files`: a release tarball or a bare machine has no git; what is
# ignored by name below is what .gitignore keeps out of the tree: builds, models, scratch)
import collections, os
SKIP = {".git", "build", "models", "__pycache__", ".team", "synprobe-demo", "synprobe-ptb", "device-carry"}
tracked = []
for d, subs, files in os.walk("."):
    subs[:] = sorted(s for s in subs if s not in SKIP and not os.path.islink(os.path.join(d, s)))
    tracked += [os.path.relpath(os.path.join(d, f)) for f in files]
by_name = collections.defaultdict(list)
for f in tracked:
    if f.endswith((".c", ".h", ".cu", ".sh", ".py")): by_name[os.path.basename(f)].append(f)
dups = [f"{b}: {' '.join(v)}" for b, v in sorted(by_name.items()) if len(v) > 1]
report(not dups, "source and script file names are unique across the tree", dups)

# 2. synopses against the tables
def run(*a):
    return subprocess.run([sp, *a], capture_output=True, text=True).stdout
cmds = re.findall(r"^  ([a-z]+) {2,}", run("help").split("commands:")[1], re.M)
subs = {"tasks": ["build", "import", "export", "list"], "weights": ["check", "list"]}
common = {"help", "quiet", "verbose"}
flags_of = {}
for c in cmds:
    for words in ([c] if c not in subs else [[c, s] for s in subs[c]]):
        words = words if isinstance(words, list) else [words]
        h = run(*words, "--help")
        name = " ".join(words)
        if "\noptions:\n" not in h: report(False, f"{name} --help lists its options", ["no 'options:' section"]); continue
        syn = h.split("\n\n")[0]
        opts = set(re.findall(r"^  --([a-z][a-z0-9-]*)", h.split("\noptions:\n")[1], re.M))
        flags_of[name] = opts
        named = set(re.findall(r"--([a-z][a-z0-9-]*)", syn))
        bad = [f"--{f}: in the synopsis, not a flag of {name}" for f in sorted(named - opts)]
        bad += [f"--{f}: a flag of {name} the synopsis does not name" for f in sorted(opts - named - common)]
        report(not bad, f"synprobe {name}: the synopsis and the option tables agree", bad)

# 3. README.md and docs/*.md: `synprobe CMD` names a command, and its flags are CMD's; each
# span is a line of a code block or an `inline code` span, named by its file:line
bad, unknown, seen = [], [], 0
# docs/commands.md is written from the option tables (check 5); its prose mentions other commands
for path in [f for f in doc_files if f != "docs/commands.md"]:
    lines = open(path, encoding="utf-8").read().split("\n")
    spans, fence = [], False
    for ln, l in enumerate(lines, 1):
        if l.startswith("```"): fence = not fence; continue
        if fence: spans.append((ln, l)); continue
        spans += [(ln, m) for m in re.findall(r"`(synprobe [^`]+)`", l)]
        # `encode --layers all`: inline code that starts with a command and shows a flag
        spans += [(ln, "synprobe " + m) for m in re.findall(r"`((?:" + "|".join(cmds) + r")(?: [^`]*)? --[^`]*)`", l)]
    for ln, s in spans:
        for m in re.finditer(r"synprobe ([a-z]+)(?: (build|import|export|list|check)\b)?((?:[^|;&#]|\|(?=[a-z]))*)", s):
            seen += 1
            c = m.group(1) + (" " + m.group(2) if m.group(1) in subs and m.group(2) else "")
            if c == "tasks": c = "tasks build"
            if c not in flags_of:
                at_start = s.lstrip().startswith("synprobe " + m.group(1))
                if m.group(1) not in cmds and m.group(1) != "help" and (at_start or re.match(r"\s*(-|$|\[)", m.group(3))):
                    unknown.append(f"{path}:{ln}: synprobe {m.group(1)}: no such command ({s.strip()[:90]})")
                continue
            for f in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", m.group(3)):
                if f not in flags_of[c] | common: bad.append(f"{path}:{ln}: synprobe {c} ... --{f}: no such flag ({s.strip()[:90]})")
report(not unknown, f"every `synprobe CMD` README.md and docs/*.md show names a command ({seen} seen)", unknown)
report(not bad, "every flag README.md and docs/*.md show after `synprobe CMD` is a flag of CMD", bad)
# 4. every relative link of README.md and docs/*.md names a file that exists
bad = []
for path in doc_files:
    for ln, l in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        for t in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", l):
            if re.match(r"[a-z]+:", t): continue
            if not os.path.exists(os.path.join(os.path.dirname(path), t)): bad.append(f"{path}:{ln}: {t}: no such file")
report(not bad, "every relative link of README.md and docs/*.md names a file", bad)

# 5. the generated files, as committed, against what the binary writes now
import difflib
for path, how in (("docs/commands.md", "--markdown"), ("docs/synprobe.1", "--man")):
    want = subprocess.run([sp, "help", how], capture_output=True, text=True)
    try: have = open(path, encoding="utf-8").read()
    except OSError as e: have = None; why = [f"{path}: {e.strerror}; run `make docs`"]
    if have is not None:
        why = [f"{path} differs from `synprobe help {how}`; run `make docs` (first lines of the diff:)"]
        why += [l.rstrip("\n") for l in difflib.unified_diff(have.splitlines(True), want.stdout.splitlines(True),
                                                              path, f"synprobe help {how}", n=1)][:30]
    report(want.returncode == 0 and have == want.stdout, f"{path} is what `make docs` writes", why)
print(f"1..{n}")
if counts:
    open(counts, "a").write(f"{n - fails} {fails} 0 check-docs\n")
sys.exit(1 if fails else 0)
PY
