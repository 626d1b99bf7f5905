#!/usr/bin/env python3
"""Times reading the Flight Recorder dumps of a job against reading its logs.

The dumps (tests/gen_fr.py: RANKS dumps of ENTRIES entries, PyTorch's own
pickle format, a rank that never joins a collective) are read, decoded and
matched by frbench, one dump at a time, as analyze will; the logs of the
same job (bench/gen.py, the same ranks on RANKS/8 hosts) by ncclog analyze.
Median wall and user CPU time of N runs after a warm-up, the tools taking
turns so that both see the same load; MB/s (of wall time) and peak RSS.

usage: fr.py NCCLOG FRBENCH [--ranks 1024] [--entries 2000] [--size 2G]
             [--runs 3] [--dir /tmp/ncclog-frbench] [--jobs 1,2]
The inputs are written once under --dir and kept for the next run.
"""
import argparse, os, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd):
    """Wall time, user CPU time, peak RSS (KiB) and stdout of one command."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%U %M", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    user, rss = p.stderr.decode().strip().splitlines()[-1].split()
    return wall, float(user), int(rss), p.stdout.decode()


def files_of(path):
    return sorted(os.path.join(path, f) for f in os.listdir(path) if not f.startswith(".") and f != "scenario.txt")


def ensure(path, cmd):
    stamp = os.path.join(path, ".done")
    want = " ".join(cmd)
    if os.path.exists(stamp) and open(stamp).read() == want:
        return
    print("writing", path, file=sys.stderr)
    subprocess.run(["rm", "-rf", path], check=True)
    subprocess.run(cmd, check=True)
    with open(stamp, "w") as f:
        f.write(want)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ncclog")
    ap.add_argument("frbench")
    ap.add_argument("--ranks", type=int, default=1024)
    ap.add_argument("--entries", type=int, default=2000)
    ap.add_argument("--size", default="2G", help="bytes of logs, all ranks together")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/ncclog-frbench")
    ap.add_argument("--jobs", default="1,2", help="analyze -j values to time")
    a = ap.parse_args()
    dumps = os.path.join(a.dir, f"dumps-{a.ranks}x{a.entries}")
    logs = os.path.join(a.dir, f"logs-{a.ranks}-{a.size}")
    os.makedirs(a.dir, exist_ok=True)
    rank = a.ranks * 3 // 5
    ensure(dumps, [sys.executable, os.path.join(ROOT, "tests", "gen_fr.py"), dumps, "--ranks", str(a.ranks),
                   "--entries", str(a.entries), "--seq", "1000", "--tp", "8", "--scenario", "missing",
                   "--rank", str(rank), "--format", "torch"])
    ensure(logs, [sys.executable, os.path.join(ROOT, "bench", "gen.py"), logs, "--ranks", str(a.ranks),
                  "--hosts", str(max(1, a.ranks // 8)), "--size", a.size, "--fault", "watchdog"])
    tools = [("FR dumps", dumps, "frbench", [a.frbench, *files_of(dumps)])]
    for j in a.jobs.split(","):
        tools.append(("logs", logs, f"ncclog analyze -j {j}",
                      [a.ncclog, "analyze", "--format", "json", "-j", j, *files_of(logs)]))
    for t in tools:
        timed(t[3])  # warm-up: the page cache
    runs = {t[2]: [] for t in tools}
    for _ in range(a.runs):
        for t in tools:
            runs[t[2]].append(timed(t[3]))
    print("| input | tool | seconds | user CPU s | MB/s | peak RSS |")
    print("|---|---|---|---|---|---|")
    for what, path, name, cmd in tools:
        files = files_of(path)
        mb = sum(os.path.getsize(f) for f in files) / 1e6
        r = runs[name]
        wall = statistics.median(x[0] for x in r)
        user = statistics.median(x[1] for x in r)
        rss = max(x[2] for x in r)
        size = f"{mb / 1000:.2f} GB" if mb >= 1000 else f"{mb:.0f} MB"
        print(f"| {size} in {len(files)} files ({what}) | `{name}` | {wall:.2f} | {user:.2f} | {mb / wall:.0f} "
              f"| {rss / 1024:.1f} MB |")
    for line in runs["frbench"][-1][3].splitlines():
        print(f"<!-- frbench: {line} -->")


if __name__ == "__main__":
    main()
