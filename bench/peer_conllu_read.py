"""bench/peer_conllu_read.py — the peers of bench/ingest.sh: reading a CoNLL-U file, nothing else.

    python peer_conllu_read.py udpipe|conllu FILE

udpipe  UDPipe 1 (PyPI ufal.udpipe): the file read into one string, InputFormat "conllu"
        (InputFormat.newInputFormat("conllu")), setText, then nextSentence into one Sentence
        until the end of the file; words = len(sentence.words) - 1 (words[0] is UDPipe's root).
conllu  the `conllu` package: conllu.parse_incr over the open file; words = tokens whose id is
        an integer (multiword ranges and empty nodes left out, as synprobe counts them).
Timed: from opening the file to the end of the loop (the interpreter's start and the import
are not), as synprobe's `ingest --json` reports its own seconds. The caller pins the
BLAS/OpenMP threads in the environment before Python starts.
Prints one line "RESULT peer=NAME version=V sentences=N tokens=N seconds=S".
"""
import sys
import time
from importlib import metadata


def read_udpipe(path):
    from ufal.udpipe import InputFormat, ProcessingError, Sentence
    t0 = time.perf_counter()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    fmt = InputFormat.newInputFormat("conllu")
    fmt.setText(text)
    s, err = Sentence(), ProcessingError()
    ns = nw = 0
    while fmt.nextSentence(s, err):
        ns += 1
        nw += len(s.words) - 1
    if err.occurred():
        sys.exit(f"{path}: UDPipe: {err.message}")
    return ns, nw, time.perf_counter() - t0, metadata.version("ufal.udpipe")


def read_conllu(path):
    import conllu
    t0 = time.perf_counter()
    ns = nw = 0
    with open(path, encoding="utf-8") as f:
        for s in conllu.parse_incr(f):
            ns += 1
            nw += sum(1 for tok in s if isinstance(tok["id"], int))
    return ns, nw, time.perf_counter() - t0, metadata.version("conllu")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("udpipe", "conllu"):
        sys.exit("usage: peer_conllu_read.py udpipe|conllu FILE")
    name, path = sys.argv[1], sys.argv[2]
    ns, nw, sec, ver = (read_udpipe if name == "udpipe" else read_conllu)(path)
    print(f"RESULT peer={name} version={ver} sentences={ns} tokens={nw} seconds={sec:.6f}")


if __name__ == "__main__":
    main()
