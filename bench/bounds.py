#!/usr/bin/env python3
"""Memory and time of `ncclog analyze` on crafted hostile logs: each kind of
tests/crafted.py floods one keyed table of the job model. Every kind is run
at 5 MB and at the size that holds --keys distinct keys (10 M by default),
or at --max-mb when that is smaller (the disk, and a minute per run), as
JSON and as the text report, one run at a time.

Printed per run: the input (MB, distinct keys), wall and CPU seconds (user +
system), peak RSS (GNU time), the exit status and the caps the
input-cap-reached finding names (what was dropped, "-" when none).

The distinct keys of a large input are estimated: the keys per byte of a
1 MB sample (crafted.FLOODS), times the size, and no more than a kind can
make (collide: 2^18 names, job: 16384 ranks, settings: 8192 processes
times 16 variables).

usage: bounds.py NCCLOG [--kinds hosts,pids,...] [--keys 1e7] [--max-mb 1024]
                 [--tmp DIR] [--small-only] [--markdown]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import crafted  # noqa: E402

TIME = "/usr/bin/time"
SMALL_MB = 5
# what a kind cannot go past, whatever its size: the names its blocks
# make, the ranks of its job, its processes times their settings
MAX_KEYS = {"collide": 1 << 18, "job": 16384, "settings": 8192 * 16}
# a rule file is read whole (it is configuration, not a log), and refused
# past 64 MB: its memory grows with its size up to there
RULES_MAX_MB = 63


def keys_per_mb(kind):
    """distinct keys (lines for a kind that floods nothing keyed) in 1 MB"""
    with tempfile.TemporaryFile("w+") as f:
        crafted.write(kind, 1 << 20, f)
        f.seek(0)
        if not crafted.FLOODS[kind]:
            return sum(1 for _ in f)
        seen = {}
        for cap, key in crafted.keys(kind, f):
            seen.setdefault(cap, set()).add(key)
        return max(len(s) for s in seen.values())


def run(ncclog, args):
    with tempfile.NamedTemporaryFile("r") as usage, tempfile.TemporaryFile() as out:
        p = subprocess.run([TIME, "-f", "%e %U %S %M", "-o", usage.name, ncclog] + args,
                           stdout=out, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        wall, user, sys_, rss = usage.read().splitlines()[-1].split()
        out.seek(0)
        return p.returncode, out.read(), float(wall), float(user) + float(sys_), int(rss)


def caps_named(fmt, out):
    """the tables the cap finding says were full, or [] when it is absent"""
    text = out.decode(errors="replace")
    if fmt == "json":
        try:
            fs = json.loads(text).get("findings", [])
        except ValueError:
            return ["(not JSON)"]
        msgs = [f.get("message", "") for f in fs if f.get("id") == "input-cap-reached"]
    else:
        msgs = re.findall(r"^(?:\S+: )?warning\[input-cap-reached\]: (.*)$", text, re.M)
    names = []
    for m in msgs:
        body = m.split(": ", 1)[1] if ": " in m else ""
        names += [w.strip() for w in re.findall(r"([^:;]+): \d+ kept", body)]
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ncclog")
    ap.add_argument("--kinds", default=",".join(crafted.KINDS))
    ap.add_argument("--keys", type=float, default=1e7)
    ap.add_argument("--max-mb", type=float, default=1024)
    ap.add_argument("--tmp", default=None, help="where the inputs are written (each removed after its runs)")
    ap.add_argument("--small-only", action="store_true", help=f"only the {SMALL_MB} MB runs")
    ap.add_argument("--markdown", action="store_true", help="rows of a Markdown table")
    a = ap.parse_args()
    if not os.access(TIME, os.X_OK):
        sys.exit(f"bounds.py: {TIME} (GNU time) is needed")
    kinds = [k for k in a.kinds.split(",") if k]
    bad = [k for k in kinds if k not in crafted.KINDS]
    if bad:
        sys.exit(f"bounds.py: unknown kind {', '.join(bad)} (tests/crafted.py --list)")
    tmp = tempfile.mkdtemp(prefix="ncclog-bench-bounds.", dir=a.tmp)
    mark = os.path.join(tmp, "mark.log")
    with open(mark, "w") as f:
        f.write("marker0000000 a\n")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(tmp, "config")  # no user rules of this machine's
    if a.markdown:
        print("| kind | input | keys | format | wall s | CPU s | peak RSS | exit | caps reached |")
        print("|---|---|---|---|---|---|---|---|---|")
    else:
        print(f"{'kind':10} {'MB':>7} {'keys':>9} {'fmt':4} {'wall s':>7} {'CPU s':>6} {'RSS MB':>7} exit caps")
    for kind in kinds:
        rate = keys_per_mb(kind)
        sizes = [SMALL_MB]
        if not a.small_only:
            big = min(a.keys / rate, a.max_mb, RULES_MAX_MB if kind == "rules" else a.max_mb)
            if kind in MAX_KEYS:
                big = min(big, MAX_KEYS[kind] / rate * 1.05)
            if big > SMALL_MB * 1.5:
                sizes.append(big)
        for mb in sizes:
            path = os.path.join(tmp, f"{kind}.log")
            with open(path, "w") as f:
                crafted.write(kind, int(mb * (1 << 20)), f)
            real_mb = os.path.getsize(path) / (1 << 20)
            keys = min(rate * real_mb, MAX_KEYS.get(kind, float("inf")))
            inputs = ["--rules", path, mark] if kind == "rules" else [path]
            for fmt in ("json", "text"):
                status, out, wall, cpu, rss = run(a.ncclog, ["analyze", "-f", fmt] + inputs)
                caps = ", ".join(caps_named(fmt, out)) or "-"
                kdesc = f"{keys / 1e6:.2f} M" if keys >= 1e5 else f"{keys / 1e3:.0f} k"
                if a.markdown:
                    print(f"| {kind} | {real_mb:.0f} MB | {kdesc} | {fmt} | {wall:.2f} | {cpu:.2f} | "
                          f"{rss / 1024:.1f} MB | {status} | {caps} |")
                else:
                    print(f"{kind:10} {real_mb:7.1f} {kdesc:>9} {fmt:4} {wall:7.2f} {cpu:6.2f} "
                          f"{rss / 1024:7.1f} {status:4} {caps}")
                sys.stdout.flush()
            os.unlink(path)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
