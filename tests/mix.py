#!/usr/bin/env python3
"""Writes a log of lines drawn at random from the samples, some cut short,
indented or ended by CR: python3 mix.py ROOT OUT [SEED] [LINES]
A file read in parts must give the report one thread gives even when its
lines make no sense together (tests/parallel.sh)."""
import glob, random, sys
root, out = sys.argv[1], sys.argv[2]
random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
n = int(sys.argv[4]) if len(sys.argv) > 4 else 60000
lines = []
for f in sorted(glob.glob(root + '/samples/*/*.log')):
    lines += open(f, 'rb').read().split(b'\n')
res = []
for i in range(n):
    l = random.choice(lines)
    r = random.random()
    if r < 0.05:
        l = l[:random.randint(0, len(l))]
    elif r < 0.08:
        l = b'  ' + l
    elif r < 0.1:
        l = l + b'\r'
    res.append(l)
open(out, 'wb').write(b'\n'.join(res) + b'\n')
