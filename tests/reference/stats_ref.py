#!/usr/bin/python3
"""tests/reference/stats_ref.py - docs/spec/models.md M7 written from the spec, not from the C code:
SplitMix64 (M7.1) and the index lists of the bootstrap (M7.3: B resamples of N indices, each
below(N) = the high 64 bits of next() * N, drawn one after the other from one stream)."""

M64 = (1 << 64) - 1


def splitmix(seed):
    x = seed
    while True:
        x = (x + 0x9E3779B97F4A7C15) & M64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        yield z ^ (z >> 31)


def resamples(n, B=1000, seed=1111):
    g = splitmix(seed)
    for _ in range(B):
        yield [(next(g) * n) >> 64 for _ in range(n)]
