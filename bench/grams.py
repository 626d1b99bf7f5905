#!/usr/bin/env python3
"""Prints the table of common 4-byte sequences that rules/gate.c places
its windows by: how often each occurs in log text, half from NCCL logs
(the samples) and half from a training job's output (bench/gen.py), per
65536 positions; the commonest, printable ones, sorted by their bytes.
A window on one of them stops the scan on many positions that hold no
literal: "rank", "node" and "INFO" are everywhere in NCCL text, though
none of their bytes is rare.

usage: grams.py SAMPLES_DIR GENERATED_LOG... [--top 600]
"""
import collections, os, sys


def count(paths):
    c, total = collections.Counter(), 0
    for p in paths:
        data = open(p, "rb").read()
        for line in data.split(b"\n"):
            for i in range(len(line) - 3):
                c[line[i:i + 4]] += 1
            total += max(0, len(line) - 3)
    return c, total or 1


def c_string(g):
    out = ""
    for b in g:
        ch = chr(b)
        out += "\\" + ch if ch in '"\\' else ch
    return '"' + out + '"'


def main():
    args = sys.argv[1:]
    top = 600
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    samples = [os.path.join(d, f) for d, _, fs in os.walk(args[0]) for f in fs
               if not f.endswith((".ids", ".md", ".json", ".pickle", ".gz", ".zst"))]
    (a, na), (b, nb) = count(samples), count(args[1:])
    freq = {g: (a[g] / na + b[g] / nb) / 2 * 65536 for g in set(a) | set(b)}
    printable = [g for g in freq if all(32 <= x < 127 for x in g)]
    best = sorted(printable, key=lambda g: -freq[g])[:top]
    for g in sorted(best):
        print(f"\t{{ {c_string(g)}, {max(1, round(freq[g]))} }},")


if __name__ == "__main__":
    main()
