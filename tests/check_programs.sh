#!/bin/sh
# tests/check_programs.sh [COUNTS] — every program the tests run comes from a package that
# contrib/setup/packages.txt lists, or from one a bare Debian has (`make check-programs`, part of
# `make test`). A `debootstrap --variant=minbase` root holds the packages of priority "required"
# (and the Essential ones) plus apt; anything else a test calls must be on the list, or the README's
# second set-up command fails on a bare machine (issue 40 item 9: t0071's /usr/bin/time, t7090's man).
#
# The programs are read from the text of the scripts under tests/ and the Makefile: in a shell
# script every word in command position (line start, after | ; & && || $( ` ( { ! and after the
# words then do else elif if while until exec env command timeout time nice xargs; after a quote
# too, so `sh -c "prog ..."` counts), in Python the literal first element of a subprocess list, in
# both any absolute /usr/bin, /bin, /usr/sbin or /sbin path. A word counts when it names an
# executable on this machine's PATH (with the sbin folders); its package comes from `dpkg -S`.
# Words that are no program here (functions, messages) are ignored, so the check is only as
# complete as this machine's installed packages: run where the test tier is installed (CI is).
# Programs run by programs (systemd-analyze verify runs man) cannot be read from the text; they
# are listed by hand in packages.txt with the reason.
# TAP lines; appends "PASSED FAILED SKIPPED check-programs" to COUNTS; exits non-zero on a miss.
counts=${1:-}
if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    echo "1..0 # SKIP check-programs: needs dpkg-query and python3 (a Debian machine)"
    [ -z "$counts" ] || echo "0 0 1 check-programs" >>"$counts"
    exit 0
fi
exec python3 - "$counts" <<'PY'
import os, re, shutil, subprocess, sys
counts = sys.argv[1]

listed = {}                                            # package -> tier
for line in open("contrib/setup/packages.txt", encoding="utf-8"):
    f = line.split("#", 1)[0].split()
    if len(f) >= 2: listed[f[1]] = f[0]

scripts = ["Makefile"]
for d, subs, files in os.walk("tests"):
    subs[:] = sorted(s for s in subs if s not in ("corpus", "__pycache__"))
    scripts += [os.path.join(d, f) for f in sorted(files) if f.endswith((".sh", ".py"))]

KEYWORDS = {"then", "do", "else", "elif", "if", "while", "until", "exec", "env", "command",
            "timeout", "time", "nice", "xargs", "!", "sudo", "su", "chroot"}
SEP = re.compile(r"\|\||&&|\$\(|[|;&`(){}]")
ABS = re.compile(r"(?<![\w./-])(/(?:usr/)?s?bin/[\w.+-]+)")
QUOTED = re.compile(r"'[^']*'?|\"(?:[^\"\\]|\\.)*\"?")
uses = {}                                              # word -> first "file:line"
def use(w, where):
    if w and w not in uses: uses[w] = where

def scan_shell(code, where, funcs, depth=0):
    """The words in command position of one line of shell. A quoted string is one word, except
    that the $(...) inside double quotes and the script of `sh -c '...'` are scanned as shell."""
    if depth > 3: return
    for m in ABS.finditer(code): use(m.group(1), where)
    # `command -v prog` / `command -v "${CC:-prog}"`: the program a test looks for is one it runs
    for m in re.finditer(r"command -v [\"']?(?:\$\{\w+:-)?([A-Za-z][\w.+-]*)", code): use(m.group(1), where)
    inner = []
    def hide(m):
        q = m.group(0)
        before = code[:m.start()].split()
        if len(before) >= 2 and before[-1] == "-c" and before[-2] in ("sh", "bash", "dash"):
            inner.append(q[1:].rstrip(q[0]))           # sh -c "script": the script itself
        elif q.startswith('"'):
            inner.extend(re.findall(r"\$\(([^()]*)", q) + re.findall(r"`([^`]*)`", q))
        return " Q "
    plain = QUOTED.sub(hide, code)
    for piece in SEP.split(plain):
        words = piece.split()
        while words and (words[0] in KEYWORDS or re.match(r"^\w+=", words[0])
                         or words[0].startswith("-") or re.match(r"^\d+[smh]?$", words[0])):
            words.pop(0)                               # timeout -k 5 20 prog, env X=1 prog
        if words and words[0] not in funcs and re.match(r"^[A-Za-z][\w.+-]*$", words[0]):
            use(words[0], where)
    for s in inner: scan_shell(s, where, funcs, depth + 1)

for path in scripts:
    text = open(path, encoding="utf-8", errors="replace").read()
    funcs = set(re.findall(r"^\s*([A-Za-z_][\w-]*)\s*\(\)", text, re.M))
    heredoc = None                                     # the terminator of the body being skipped
    for no, line in enumerate(text.splitlines(), 1):
        where = f"{path}:{no}"
        if heredoc is not None:                        # a here-document is data (or Python), not shell
            if line.strip() == heredoc: heredoc = None
            continue
        if path.endswith(".py"):
            code = re.sub(r"(^|\s)#.*", "", line)
            for m in ABS.finditer(code): use(m.group(1), where)
            for m in re.finditer(r"subprocess\.\w+\(\s*\[\s*[\"']([\w.+-]+)[\"']", code): use(m.group(1), where)
            for m in re.finditer(r"shutil\.which\(\s*[\"']([\w.+-]+)[\"']", code): use(m.group(1), where)
            continue
        if path == "Makefile" and not line.startswith("\t"): continue   # recipes only
        code = re.sub(r"(^|\s)#.*", "", line)
        scan_shell(code, where, funcs)
        m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", code)
        if m: heredoc = m.group(1)

PATH = "/usr/sbin:/usr/bin:/sbin:/bin"              # a Debian machine's, not this shell's
def candidates(exe):                                  # the names dpkg may know exe by (usrmerge)
    for p in (exe, os.path.realpath(exe)):
        yield p
        yield p.replace("/usr/", "/", 1) if p.startswith("/usr/") else "/usr" + p
exes = {}
for w in uses:
    exe = w if w.startswith("/") else shutil.which(w, path=PATH)
    if exe and os.path.isfile(exe) and os.access(exe, os.X_OK): exes[w] = exe
owners = {}                                            # path -> package, one dpkg-query for all
paths = sorted({c for e in exes.values() for c in candidates(e)})
out = subprocess.run(["dpkg-query", "-S", *paths], capture_output=True, text=True).stdout if paths else ""
for line in out.splitlines():                          # skip "diversion by dash from: /bin/sh"
    if line.startswith("diversion ") or ": " not in line: continue
    pkg, path = line.split(": ", 1)
    owners.setdefault(path.strip(), pkg.split(",")[0].split(":")[0].strip())
def owner(w):
    if w not in exes: return None, None
    for c in candidates(exes[w]):
        if c in owners: return exes[w], owners[c]
    return exes[w], ""                                 # an executable no package owns (/usr/local)

# What installing the list brings: the listed packages and everything they depend on (Depends,
# Pre-Depends; every alternative and what provides a virtual one), from the installed packages'
# records; plus a bare Debian's: priority required, Essential, apt.
fields = subprocess.run(["dpkg-query", "-W", "-f=${Package}\t${Priority}\t${Essential}\t${Depends}, ${Pre-Depends}\t${Provides}\n"],
                        capture_output=True, text=True).stdout
deps, provides, bare = {}, {}, {"apt"}
for row in fields.splitlines():
    pkg, pri, ess, dep, prov = (row.split("\t") + [""] * 5)[:5]
    deps[pkg] = [d.split()[0].split(":")[0] for d in re.split(r"[,|]", dep) if d.strip()]
    for v in re.split(r",", prov):
        if v.strip(): provides.setdefault(v.split()[0], []).append(pkg)
    if pri == "required" or ess == "yes": bare.add(pkg)
def closure(roots):
    got, todo = set(), list(roots)
    while todo:
        p = todo.pop()
        if p in got: continue
        got.add(p)
        todo += deps.get(p, []) + provides.get(p, [])
    return got
brought = closure(listed)
base = closure(bare)

n = fails = 0
def report(ok, what, bad=()):
    global n, fails
    n += 1
    print(("ok" if ok else "not ok"), n, "-", what)
    if not ok: fails += 1
    for b in bad: print("#  ", b)

bad_tier = [f"{p}: tier '{t}' (expected build or test)" for p, t in listed.items() if t not in ("build", "test")]
report(not bad_tier, "packages.txt: every line is 'build|test PACKAGE'", bad_tier)

missing, seen, local = [], {}, []
for w, where in sorted(uses.items()):
    exe, pkg = owner(w)
    if exe is None: continue
    if pkg == "":
        local.append(f"{w} ({exe}, {where}): no Debian package owns it")
        continue
    seen.setdefault(pkg, []).append(w)
    if pkg not in brought and pkg not in base:
        missing.append(f"{w} ({where}): package {pkg}: neither in packages.txt (nor what it brings) nor in a bare Debian")
report(not missing, f"every program the tests run is on the list or in a bare Debian ({len(uses)} words, "
       f"{sum(len(v) for v in seen.values())} programs from {len(seen)} packages)", missing)
report(not local, "no test runs a program outside Debian's packages (/usr/local, /opt)", local)
print(f"1..{n}")
if counts:
    with open(counts, "a") as f: f.write(f"{n - fails} {fails} 0 check-programs\n")
sys.exit(1 if fails else 0)
PY
