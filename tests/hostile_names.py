#!/usr/bin/env python3
"""File names and arguments that try to drive a terminal: OSC 52 (writes
the clipboard), CSI (clears the screen), C1 controls as UTF-8 and as raw
bytes, a newline (forges a line), U+202E (reverses what follows). Passed
to analyze (as an input, a missing input, a damaged one, a rule file),
explain, redact, rules and merge, none may reach stdout or stderr raw, in
any output format; the error lines stay one line each.

usage: hostile_names.py NCCLOG SOURCE_ROOT"""
import gzip
import os
import subprocess
import sys
import tempfile

ncclog, root = sys.argv[1].encode(), sys.argv[2]
failures = []

NAMES = {
    "osc52": b"\x1b]52;c;aGVsbG8=\x07",
    "csi": b"\x1b[2J\x1b[H",
    "c1-utf8": b"c1-\xc2\x9b2J",
    "c1-raw": b"raw-\x9b2J",
    "newline": b"two\nncclog: forged",
    "rlo": b"rlo-\xe2\x80\xaegol",
}
BIDI = {chr(c) for c in list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A))}


def inert(data):
    """Why data could act on a terminal, or None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"invalid UTF-8 at {e.start}: {data[max(0, e.start - 20):e.start + 4]!r}"
    for i, ch in enumerate(text):
        o = ord(ch)
        if (o < 0x20 and ch not in "\n\t") or o == 0x7F:
            return f"control byte {o:#04x} near {text[max(0, i - 20):i + 4]!r}"
        if 0x80 <= o <= 0x9F:
            return f"C1 control U+{o:04X} near {text[max(0, i - 20):i + 4]!r}"
        if ch in BIDI:
            return f"bidi control U+{o:04X} near {text[max(0, i - 20):i + 4]!r}"
    return None


def check(what, args, want_rc=None, one_line_errors=True):
    try:
        p = subprocess.run([ncclog] + args, capture_output=True, timeout=60, env=dict(os.environ, NO_COLOR="1"))
    except subprocess.TimeoutExpired:
        failures.append(f"{what}: no end after 60 s")
        return None
    for stream, data in (("stdout", p.stdout), ("stderr", p.stderr)):
        why = inert(data)
        if why:
            failures.append(f"{what}: {stream}: {why}")
    if want_rc is not None and p.returncode not in want_rc:
        failures.append(f"{what}: exit {p.returncode}, want {want_rc}: {p.stderr[:200]!r}")
    if one_line_errors:
        for line in p.stderr.split(b"\n"):
            if line and not line.startswith(b"ncclog: "):
                failures.append(f"{what}: stderr line without the ncclog: prefix: {line[:120]!r}")
            if line.startswith(b"ncclog: forged"):
                failures.append(f"{what}: a forged stderr line: {line[:120]!r}")
    return p


log = open(os.path.join(root, "samples", "socket-iface-loopback", "pdsh.log"), "rb").read()
rule = b'{"rules": [{"id": "site-x", "gate": "SITE X", "pattern": "SITE X", "finding": "site-x", ' \
       b'"title": "a site rule", "severity": "warning", "message": "x", "samples": ["SITE X"]}]}'
with tempfile.TemporaryDirectory() as tmp:
    t = tmp.encode()
    for label, bad in NAMES.items():
        d = os.path.join(t, label.encode())
        os.mkdir(d)
        name = os.path.join(d, bad + b".log")
        open(name, "wb").write(log)
        missing = os.path.join(d, b"missing-" + bad + b".log")
        damaged = os.path.join(d, bad + b".gz")
        open(damaged, "wb").write(gzip.compress(log)[:300])
        rules = os.path.join(d, bad + b".json")
        open(rules, "wb").write(rule)
        broken = os.path.join(d, b"broken-" + bad + b".json")
        open(broken, "wb").write(b'{"rules": [ {"id": ')
        rdir = os.path.join(d, b"rules.d")
        os.mkdir(rdir)
        os.mkfifo(os.path.join(rdir, bad + b".json"))
        for fmt in (b"text", b"json", b"markdown"):
            check(f"{label}: analyze -f {fmt.decode()}", [b"analyze", b"-f", fmt, name], {1})
        check(f"{label}: analyze a missing file", [b"analyze", name, missing], {2})
        check(f"{label}: analyze a damaged file", [b"analyze", damaged], {2})
        check(f"{label}: analyze --rules broken", [b"analyze", b"--rules", broken, name], {2})
        check(f"{label}: analyze --rules DIR with a FIFO", [b"analyze", b"--rules", rdir, name], {1})
        check(f"{label}: analyze --redact", [b"analyze", b"--redact", b"-f", b"json", name], {1})
        check(f"{label}: an unknown option", [b"analyze", b"--" + bad], {2})
        check(f"{label}: explain", [b"explain", bad], {2})
        check(f"{label}: redact", [b"redact", name], {0})
        check(f"{label}: redact a missing file", [b"redact", missing], {2})
        check(f"{label}: redact -o", [b"redact", b"-o", os.path.join(d, b"out-" + bad), name], {0})
        check(f"{label}: rules list", [b"rules", b"list", b"--rules", rules], {0})
        check(f"{label}: rules test", [b"rules", b"test", rules], {0})
        check(f"{label}: rules test broken", [b"rules", b"test", broken], {2})
        # merge's exit status and its handling of no summary at all are merge's business
        check(f"{label}: merge a missing summary", [b"merge", missing], one_line_errors=False)

print("hostile names: %d names, %s" % (len(NAMES), "ok" if not failures else f"{len(failures)} failures"))
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
