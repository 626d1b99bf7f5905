#!/usr/bin/env python3
"""Times reading the Flight Recorder dumps of a job against reading its logs.

The dumps (tests/gen_fr.py: RANKS dumps of ENTRIES entries, PyTorch's own
pickle format, a rank that never joins a collective) are read, decoded and
matched by frbench, one dump at a time, as analyze will; the logs of the
same job (bench/gen.py, the same ranks on RANKS/8 hosts) by ncclog analyze.
Median wall time of N runs after a warm-up, MB/s and peak RSS.

usage: fr.py NCCLOG FRBENCH [--ranks 1024] [--entries 2000] [--size 2G]
             [--runs 3] [--dir /tmp/ncclog-frbench] [--jobs 1,2]
The inputs are written once under --dir and kept for the next run.
"""
import argparse, os, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd):
    """Wall time, peak RSS (KiB) and stdout of one command."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    rss = int(p.stderr.decode().strip().splitlines()[-1])
    return wall, rss, p.stdout.decode()


def size_of(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


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
    tools = [("FR dumps", dumps, "frbench", [a.frbench, dumps])]
    for j in a.jobs.split(","):
        tools.append(("logs", logs, f"ncclog analyze -j {j}",
                      [a.ncclog, "analyze", "--format", "json", "-j", j, logs]))
    print(f"| input | tool | seconds | MB/s | peak RSS |")
    print(f"|---|---|---|---|---|")
    for what, path, name, cmd in tools:
        mb = size_of(path) / 1e6
        timed(cmd)  # warm-up: the page cache
        runs = [timed(cmd) for _ in range(a.runs)]
        wall = statistics.median(r[0] for r in runs)
        rss = max(r[1] for r in runs)
        n = len([f for f in os.listdir(path) if not f.startswith(".") and f != "scenario.txt"])
        label = f"{mb / 1000:.2f} GB in {n} files ({what})" if mb >= 1000 else f"{mb:.0f} MB in {n} files ({what})"
        print(f"| {label} | `{name}` | {wall:.2f} | {mb / wall:.0f} | {rss / 1024:.1f} MB |")
        if name == "frbench":
            for line in runs[-1][2].splitlines():
                print(f"<!-- {line} -->")


if __name__ == "__main__":
    main()
