#!/usr/bin/env python3
"""Prints the byte frequency table that rules/gate.c chooses anchors by:
how often each byte occurs in log text, half from NCCL logs (the samples)
and half from a training job's output (bench/gen.py's noise), per 65536
bytes, at least 1.

usage: bytefreq.py SAMPLES_DIR GENERATED_LOG...
"""
import os, sys


def count(paths):
    c = [0] * 256
    for p in paths:
        data = open(p, "rb").read()
        for b in range(256):
            c[b] += data.count(bytes([b]))
    total = sum(c) or 1
    return [x / total for x in c]


def main():
    samples = [os.path.join(d, f) for d, _, fs in os.walk(sys.argv[1]) for f in fs
               if not f.endswith((".ids", ".md", ".json", ".pickle", ".gz", ".zst"))]
    a, b = count(samples), count(sys.argv[2:])
    freq = [max(1, round((x + y) / 2 * 65536)) for x, y in zip(a, b)]
    for row in range(16):
        print("\t" + ", ".join(f"{v:5d}" for v in freq[row * 16:row * 16 + 16]) + ",")


if __name__ == "__main__":
    main()
