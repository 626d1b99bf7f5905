#!/usr/bin/env python3
"""Times ncclog against its two peers on the same files, in the same run:
`LC_ALL=C grep -E -c` with a pattern of the same signatures (scans, does not
analyze) and `wc -l` (the floor: reading the bytes). Median of N runs after a
warm-up; MB/s, ratios and peak RSS.

usage: run.py NCCLOG RULES_DIR INPUT... [--runs 5] [--ncclog-args "-j 1"]
INPUT: files or directories (all files below, sorted).
"""
import argparse, glob, json, os, re, resource, statistics, subprocess, sys, time


def inputs(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p))
        else:
            out.append(p)
    return out


def signature_pattern(rules_dir):
    lits = set()
    for f in glob.glob(os.path.join(rules_dir, "[0-9]*.json")):
        for r in json.load(open(f))["rules"]:
            g = r["gate"]
            lits.update(g if isinstance(g, list) else [g])
    return "|".join(re.escape(l).replace("\\ ", " ") for l in sorted(lits))


def timed(cmd, stdin=None):
    """Wall time and peak RSS (KiB) of one command."""
    t0 = time.perf_counter()
    # stdout to a pipe, not /dev/null: grep stops at the first match when it
    # sees that nobody reads its output
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=stdin)
    _, err = p.communicate()
    wall = time.perf_counter() - t0
    rss = int(err.decode().strip().splitlines()[-1])
    return wall, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ncclog")
    ap.add_argument("rules")
    ap.add_argument("input", nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ncclog-args", default="")
    a = ap.parse_args()
    files = inputs(a.input)
    size = sum(os.path.getsize(f) for f in files)
    pat = signature_pattern(a.rules)
    env_c = dict(os.environ, LC_ALL="C")
    tools = {
        "ncclog": [a.ncclog, "analyze", "--format", "json", *a.ncclog_args.split(), *files],
        "grep -E -c": ["env", "LC_ALL=C", "grep", "-E", "-c", pat, *files],
        "wc -l": ["wc", "-l", *files],
    }
    res = {}
    for name, cmd in tools.items():
        timed(cmd)  # warm-up: page cache
        runs = [timed(cmd) for _ in range(a.runs)]
        res[name] = (statistics.median(w for w, _ in runs), max(r for _, r in runs))
    mb = size / 1e6
    print(f"input: {len(files)} files, {mb:.0f} MB; median of {a.runs} runs after a warm-up")
    print(f"| tool | seconds | MB/s | ncclog speed vs tool | peak RSS |")
    print(f"|---|---|---|---|---|")
    t0 = res["ncclog"][0]
    for name, (t, rss) in res.items():
        print(f"| {name} | {t:.2f} | {mb / t:.0f} | {t / t0:.2f}x | {rss / 1024:.1f} MB |")


if __name__ == "__main__":
    main()
