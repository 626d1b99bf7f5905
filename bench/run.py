#!/usr/bin/env python3
"""Times `ncclog analyze` against the tools a user would reach for on the same
bytes, in the same run:

  grep -E -c  the alternation of every gate literal of the rules (generated
              from the rule files, so it cannot drift), LC_ALL=C
  grep -F -c  the same literals, as fixed strings
  rg -j1 -c   ripgrep on one thread, the same alternation
  wc -l       the floor: reading the bytes

They only scan; ncclog analyzes. The tools take turns (one run of each per
round, after a warm-up round), so a machine that slows down slows all of
them alike; each ratio is the median of the per-round ratios. Reported:
median wall and CPU seconds, MB/s, peak RSS, and ncclog -j 1's time over
each tool's (below 1: ncclog is faster).

usage: run.py NCCLOG RULES_DIR INPUT... [--runs 5] [--jobs 1,2]
       run.py NCCLOG RULES_DIR --shapes DIR [--size 574M] [--only NAME,...]

INPUT: files or directories (all files below, sorted). --shapes generates
(once, with bench/gen.py) and times every shape of input:

  ranks-256     256 per-rank files
  stream        one interleaved srun -l stream of 256 ranks
  init-heavy    256 per-rank files, 80% NCCL INFO lines of communicators
  gz, zst       the 256 per-rank files compressed (the peers read them
                through zcat / zstdcat; rg with -z)
  ranks-2048    2048 per-rank files
  ranks-8192    8192 per-rank files
  literals-4x   the 256 per-rank files with four times the gate literals:
                the shipped rules and three variants of each literal that
                no log line holds (a rule table grown several-fold)
"""
import argparse, glob, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))


def inputs(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p))
        else:
            out.append(p)
    return out


def gate_literals(rules_dir):
    lits = set()
    for f in glob.glob(os.path.join(rules_dir, "[0-9]*.json")):
        for r in json.load(open(f))["rules"]:
            g = r["gate"]
            lits.update(g if isinstance(g, list) else [g])
    return sorted(lits)


def ere_escape(lit):
    """Escapes what is special to both POSIX ERE and ripgrep's regex."""
    return re.sub(r"([\\.\[\](){}*+?|^$])", r"\\\1", lit)


def variants(lit, k):
    """A literal of the same bytes' kind that the logs do not hold: one
    letter or digit every few bytes moved on by k."""
    out = list(lit)
    for i in range(k % 3, len(out), 3):
        c = out[i]
        if c.isdigit():
            out[i] = chr((ord(c) - 48 + k) % 10 + 48)
        elif "a" <= c <= "z":
            out[i] = chr((ord(c) - 97 + 7 * k) % 26 + 97)
        elif "A" <= c <= "Z":
            out[i] = chr((ord(c) - 65 + 7 * k) % 26 + 65)
    return "".join(out)


def grown_rules(lits, path):
    """Writes a rule file with three variants of each literal; returns them."""
    have, extra = set(lits), []
    for k in (1, 2, 3):
        for lit in lits:
            v = variants(lit, k)
            if v not in have and len(v) >= 4:
                have.add(v)
                extra.append(v)
    rules = [{"id": f"bench-grown-{i}", "gate": v, "pattern": "\\Q" + v.replace("\\E", "\\E\\\\E\\Q") + "\\E",
              "finding": "bench-grown", "title": "a rule of a grown table", "severity": "info",
              "message": "grown"} for i, v in enumerate(extra)]
    json.dump({"rules": rules}, open(path, "w"))
    return extra


def run_once(cmd, out):
    """Wall, CPU seconds and peak RSS (KiB) of one command and what it waited for."""
    with tempfile.NamedTemporaryFile("r") as tf:
        t0 = time.perf_counter()
        # output to a file, not /dev/null: grep stops at the first match when
        # it sees that nobody reads its output. /usr/bin/time, a small process,
        # measures: a child of this one would start at Python's size.
        subprocess.run(["/usr/bin/time", "-o", tf.name, "-f", "%U %S %M", *cmd], stdout=out,
                       stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        u, s, m = tf.read().split()[-3:]
    return wall, float(u) + float(s), int(m)


def bench(tools, runs):
    """Runs the tools in turns; returns {name: [(wall, cpu, rss), ...]}."""
    res = {name: [] for name in tools}
    with tempfile.TemporaryFile() as out:
        for r in range(runs + 1):
            for name, cmd in tools.items():
                out.seek(0)
                out.truncate()
                m = run_once(cmd, out)
                if r:  # the first round warms the page cache
                    res[name].append(m)
    return res


def report(title, size, res, base):
    mb = size / 1e6
    print(f"\n### {title}\n")
    print(f"{mb:.0f} MB; median of {len(res[base])} rounds after a warm-up; ratio: {base} time / tool time, "
          "the median of the rounds' ratios\n")
    print("| tool | wall s | CPU s | MB/s | peak RSS | ratio (wall) | ratio (CPU) |")
    print("|---|---|---|---|---|---|---|")
    b = res[base]
    for name, ms in res.items():
        wall = statistics.median(m[0] for m in ms)
        cpu = statistics.median(m[1] for m in ms)
        rss = max(m[2] for m in ms) / 1024
        rw = statistics.median(x[0] / y[0] for x, y in zip(b, ms))
        rcs = [x[1] / y[1] for x, y in zip(b, ms) if y[1] > 0]
        rc = f"{statistics.median(rcs):.2f}" if rcs else "-"
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {mb / wall:.0f} | {rss:.1f} MB | {rw:.2f} | {rc} |")
    sys.stdout.flush()


def tools_for(ncclog, files, lits, jobs, rules_extra=None, unpack=None):
    """The commands for one input; unpack ("zcat", "zstdcat") feeds the peers."""
    pat = "|".join(ere_escape(l) for l in lits)
    litfile = tempfile.NamedTemporaryFile("w", suffix=".lits", delete=False)
    litfile.write("\n".join(lits) + "\n")
    litfile.close()
    extra = ["--rules", rules_extra] if rules_extra else []
    t = {}
    for j in jobs:
        t[f"ncclog -j {j}"] = [ncclog, "analyze", "-j", str(j), *extra, *files]
    env = ["env", "LC_ALL=C"]
    if unpack:
        # the peers read what the decompressor writes, as a user would pipe it
        def piped(tool):
            return ["sh", "-c", f'{unpack} "$@" | {tool}', "sh", *files]
        qpat = "'" + pat.replace("'", "'\\''") + "'"
        t["grep -E -c"] = env + piped(f"grep -E -c -e {qpat}")
        t["grep -F -c"] = env + piped(f"grep -F -c -f {litfile.name}")
        t["rg -j1 -c"] = ["rg", "-j1", "-c", "-z", "-e", pat, *files]
        t["wc -l"] = piped("wc -l")
    else:
        t["grep -E -c"] = env + ["grep", "-E", "-c", "-e", pat, *files]
        t["grep -F -c"] = env + ["grep", "-F", "-c", "-f", litfile.name, *files]
        t["rg -j1 -c"] = ["rg", "-j1", "-c", "-e", pat, *files]
        t["wc -l"] = ["wc", "-l", *files]
    if not shutil.which("rg"):
        del t["rg -j1 -c"]
        print("note: rg (Debian's ripgrep) is not installed; it is left out", file=sys.stderr)
    return t


def gen(args, out, *extra):
    if os.path.exists(out):
        return
    subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), out, *extra], check=True, stdout=subprocess.DEVNULL)


def compressed(src, dst, tool):
    if os.path.isdir(dst):
        return
    os.makedirs(dst + ".tmp", exist_ok=True)
    for f in sorted(os.listdir(src)):
        with open(os.path.join(src, f), "rb") as i, open(os.path.join(dst + ".tmp", f + "." + tool[1]), "wb") as o:
            subprocess.run(tool[0], stdin=i, stdout=o, check=True)
    os.rename(dst + ".tmp", dst)


def shapes(a, lits):
    d, size = a.shapes, a.size
    os.makedirs(d, exist_ok=True)
    base = ["--size", size]
    plan = {
        "ranks-256": lambda: (gen(a, f"{d}/ranks-256", "--ranks", "256", *base), f"{d}/ranks-256"),
        "stream": lambda: (gen(a, f"{d}/stream.log", "--ranks", "256", "--stream", *base), f"{d}/stream.log"),
        "init-heavy": lambda: (gen(a, f"{d}/init-heavy", "--ranks", "256", "--reinit", "0.8", *base), f"{d}/init-heavy"),
        "gz": lambda: (gen(a, f"{d}/ranks-256", "--ranks", "256", *base),
                       compressed(f"{d}/ranks-256", f"{d}/gz", (["gzip", "-c"], "gz")), f"{d}/gz"),
        "zst": lambda: (gen(a, f"{d}/ranks-256", "--ranks", "256", *base),
                        compressed(f"{d}/ranks-256", f"{d}/zst", (["zstd", "-c", "-q"], "zst")), f"{d}/zst"),
        "ranks-2048": lambda: (gen(a, f"{d}/ranks-2048", "--ranks", "2048", *base), f"{d}/ranks-2048"),
        "ranks-8192": lambda: (gen(a, f"{d}/ranks-8192", "--ranks", "8192", *base), f"{d}/ranks-8192"),
        "literals-4x": lambda: (gen(a, f"{d}/ranks-256", "--ranks", "256", *base), f"{d}/ranks-256"),
    }
    only = a.only.split(",") if a.only else list(plan)
    for name in only:
        path = plan[name]()[-1]
        files = inputs([path])
        size_b = sum(os.path.getsize(f) for f in files)
        unpack = {"gz": "zcat", "zst": "zstdcat"}.get(name)
        if unpack:
            size_b = sum(os.path.getsize(f) for f in inputs([f"{d}/ranks-256"]))  # MB/s of the logs
        rules_extra, lit = None, lits
        if name == "literals-4x":
            rules_extra = f"{d}/grown-rules.json"
            lit = lits + grown_rules(lits, rules_extra)
        t = tools_for(a.ncclog, files, lit, a.jobs, rules_extra, unpack)
        res = bench(t, a.runs)
        what = f"{name}: {len(files)} files, {len(lit)} literals"
        report(what, size_b, res, f"ncclog -j {a.jobs[0]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ncclog")
    ap.add_argument("rules")
    ap.add_argument("input", nargs="*")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", default="1,2", help="ncclog -j values to time (default 1,2)")
    ap.add_argument("--shapes", metavar="DIR", help="generate every shape into DIR and time them")
    ap.add_argument("--size", default="574M", help="bytes of each generated shape (default 574M)")
    ap.add_argument("--only", help="comma-separated shape names")
    a = ap.parse_args()
    a.jobs = [int(j) for j in a.jobs.split(",")]
    lits = gate_literals(a.rules)
    print(f"{a.ncclog}; {len(lits)} gate literals in {a.rules}; {os.cpu_count()} processors")
    if a.shapes:
        shapes(a, lits)
        return
    if not a.input:
        ap.error("give inputs or --shapes DIR")
    files = inputs(a.input)
    res = bench(tools_for(a.ncclog, files, lits, a.jobs), a.runs)
    report(f"{len(files)} files", sum(os.path.getsize(f) for f in files), res, f"ncclog -j {a.jobs[0]}")


if __name__ == "__main__":
    main()
