#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from samples/ and rules/.

usage: seed.py OUTDIR   (makes OUTDIR/lines, OUTDIR/rules, OUTDIR/analyze, OUTDIR/pickle,
                          OUTDIR/source, OUTDIR/redact, OUTDIR/system, OUTDIR/merge, OUTDIR/gate)

Seeds are cut to a few KiB so that the fuzzers stay fast. The source
target also starts from the files in fuzz/seeds/source (every gzip and zstd
form, damaged ones included), kept in the tree because they need pzstd and
zstd to make. The first bytes
of a lines or analyze seed are the target's knobs (line limit, chunking,
where the second file starts), as the targets read them. The merge seeds
are job summaries that `ncclog analyze --summary` writes of pieces of the
samples: the binary is $NCCLOG (the fuzz tests set it), else build*/ncclog.
"""
import gzip
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX = 4096


def chunks(data, size=MAX):
    """Whole lines, at most size bytes a piece."""
    out, cur = [], b""
    for line in data.splitlines(keepends=True):
        if cur and len(cur) + len(line) > size:
            out.append(cur)
            cur = b""
        cur += line[:size]
    if cur:
        out.append(cur)
    return out


def write(d, data):
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def main():
    out = pathlib.Path(sys.argv[1])
    logs = sorted(p for p in (ROOT / "samples").rglob("*") if p.is_file() and p.name != "README.md")
    for i, p in enumerate(logs):
        data = p.read_bytes()
        for k, c in enumerate(chunks(data)):
            write(out / "lines", bytes([i % 200, k % 256]) + c)
            write(out / "analyze", bytes([(i * 37 + k) % 256]) + c)
        # the same bytes as a Windows or progress-bar log would carry them
        head = chunks(data)[0] if data else b""
        write(out / "lines", b"\x10\x03" + head.replace(b"\n", b"\r\n"))
        write(out / "analyze", b"\x80" + head.replace(b"\n", b"\r"))
    # two ranks of one job in one seed: the cross-rank checks need both
    for d in sorted(p for p in (ROOT / "samples").iterdir() if p.is_dir()):
        files = sorted(f for f in d.iterdir() if f.is_file())
        if len(files) >= 2:
            a, b = (chunks(f.read_bytes(), MAX // 2)[0] for f in files[:2])
            write(out / "analyze", bytes([len(a) * 255 // (len(a) + len(b))]) + a + b)
    for p in sorted((ROOT / "rules").glob("[0-9]*.json")):
        text = p.read_bytes()
        if len(text) <= 4 * MAX:
            write(out / "rules", text)
        for r in json.loads(text)["rules"]:
            write(out / "rules", json.dumps({"rules": [r]}, indent=1).encode())
    write(out / "rules", b'{"rules": []}')
    pickle_seeds(out / "pickle")
    for p in sorted((ROOT / "fuzz" / "seeds" / "source").iterdir()):
        write(out / "source", p.read_bytes())
    # redaction: the battery's logs, one class of identifier each, and samples
    for p in sorted((ROOT / "tests" / "redact").glob("*.log")):
        for k, c in enumerate(chunks(p.read_bytes())):
            write(out / "redact", bytes([k % 256]) + c)
    for i, p in enumerate(logs[::3]):
        for c in chunks(p.read_bytes())[:2]:
            write(out / "redact", bytes([i % 256]) + c)
    for i, p in enumerate(logs[::4]):
        head = chunks(p.read_bytes(), MAX // 2)[:1]
        for c in head:
            write(out / "source", gzip.compress(c, mtime=0))
    system_seeds(out / "system", logs)
    merge_seeds(out / "merge", logs)
    gate_seeds(out / "gate", logs)


def gate_seeds(d, files):
    """The rules' literals, some at a time, over pieces of the samples: a
    knob byte, the literals a line each, a blank line, the text."""
    lits = sorted({g for p in (ROOT / "rules").glob("[0-9]*.json") for r in json.loads(p.read_bytes())["rules"]
                   for g in (r["gate"] if isinstance(r["gate"], list) else [r["gate"]])})
    for i, p in enumerate(files[::2]):
        some = lits[i * 7 % len(lits):][:40] + lits[:5]
        head = "\n".join(some).encode() + b"\n\n"
        for c in chunks(p.read_bytes(), MAX // 2)[:1]:
            write(d, bytes([i % 256]) + head + c)


def system_seeds(d, files):
    """RAS reports and events, nccl-tests runs and kernel logs of the
    samples: JSON documents whole (cut to size), text by its lines."""
    words = (b"RAS", b"NCCL DIAG", b"nccl-tests", b"# Using devices", b"NVRM", b"SXid", b"Job summary",
             b"missing_ranks", b'"results"', b'"event"')
    for p in files:
        data = p.read_bytes()
        if not any(w in data for w in words):
            continue
        if data.lstrip()[:1] == b"{" or b'"event"' in data[:400]:
            write(d, data[:4 * MAX])
        for c in chunks(data):
            if any(w in c for w in words):
                write(d, c)


def ncclog_bin():
    env = os.environ.get("NCCLOG")
    if env and os.access(env, os.X_OK):
        return env
    for p in sorted(ROOT.glob("build*/ncclog")):
        if os.access(p, os.X_OK):
            return str(p)
    return None


def merge_seeds(d, files):
    """Summaries of pieces of the samples (the head of a file, a head of
    two ranks of one job), each within the fuzzers' input limit (8 KiB)."""
    exe = ncclog_bin()
    if not exe:
        print("seed.py: no ncclog binary (set NCCLOG): no merge seeds", file=sys.stderr)
        return
    d.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)

        def summary(pieces):
            names = []
            for k, (name, data) in enumerate(pieces):
                p = tmp / str(k) / name
                p.parent.mkdir(exist_ok=True)
                p.write_bytes(data)
                names.append(str(p))
            r = subprocess.run([exe, "analyze", "--summary", *names], capture_output=True, timeout=60)
            # names as a node would have them, not this run's temporary ones
            out = r.stdout.replace(str(tmp).encode() + b"/", b"")
            if r.returncode in (0, 1) and 0 < len(out) <= 2 * MAX:
                write(d, out)

        for i, p in enumerate(files):
            summary([(p.name, chunks(p.read_bytes(), MAX // (2 + i % 3))[0] if p.stat().st_size else b"")])
        for job in sorted(q for q in (ROOT / "samples").iterdir() if q.is_dir()):
            two = sorted(f for f in job.iterdir() if f.is_file())[:2]
            if len(two) == 2:
                summary([(f.name, chunks(f.read_bytes(), MAX // 8)[0]) for f in two if f.stat().st_size])


def pickle_seeds(d):
    """Small Flight Recorder dumps of every format and FR version, and the
    hostile pickles, as tests/gen_fr.py writes them."""
    import importlib.util, tempfile
    spec = importlib.util.spec_from_file_location("gen_fr", ROOT / "tests" / "gen_fr.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        gen.hostile(str(tmp / "hostile"))
        for i, v in enumerate(gen.VERSIONS):
            for fmt in ("torch", "pickle2", "pickle4", "pickle5", "json"):
                sub = tmp / f"{v}-{fmt}"
                gen.write_job(gen.options([str(sub), "--ranks", "2", "--entries", "6", "--version", v, "--format",
                                           fmt, "--scenario", ["missing", "mismatch", "p2p"][i % 3], "--rank", "0",
                                           "--seq", "3", "--tp", "2" if i % 2 else "0", "--timing"]))
        for p in sorted(tmp.rglob("*")):
            if p.is_file() and p.name not in ("scenario.txt", "MANIFEST.tsv") and p.stat().st_size <= 2 * MAX:
                write(d, p.read_bytes())


if __name__ == "__main__":
    main()
