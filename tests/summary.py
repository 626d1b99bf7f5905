#!/usr/bin/env python3
"""Damaged summaries are refused whole: `ncclog merge` of a summary with one
field damaged (a rank outside its communicator, an index past its table,
1.5 where an integer belongs, a string where a number does, a required
array missing) exits 2 with one line naming the file and the field, and
nothing of it reaches the report of the summaries merged with it.

usage: summary.py NCCLOG SOURCE_ROOT
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
ROOT = pathlib.Path(sys.argv[2])
failed = 0
passed = 0


def run(*args):
    p = subprocess.run([BIN, *args], capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def summarize(sample):
    files = sorted(str(f) for f in (ROOT / "samples" / sample).iterdir() if f.is_file())
    rc, out, err = run("analyze", "--summary", *files)
    assert rc in (0, 1), f"analyze --summary {sample}: exit {rc}: {err}"
    return json.loads(out)


def walk(doc, path):
    """The container and key of "comms[0].seen[2]" in doc."""
    keys = [int(k[1:-1]) if k.startswith("[") else k for k in re.findall(r"\[\d+\]|[^.\[\]]+", path)]
    for k in keys[:-1]:
        doc = doc[k]
    return doc, keys[-1]


class RAW(str):
    """A number as written in the file, one json.dumps cannot write (1e999)."""


def dumps(doc):
    raws = []

    def mark(o):
        if isinstance(o, RAW):
            raws.append(str(o))
            return f"@RAW{len(raws) - 1}@"
        if isinstance(o, dict):
            return {k: mark(v) for k, v in o.items()}
        if isinstance(o, list):
            return [mark(v) for v in o]
        return o
    text = json.dumps(mark(doc))
    for i, raw in enumerate(raws):
        text = text.replace(f'"@RAW{i}@"', raw)
    return text


def put(path, value):
    def mutate(doc):
        box, key = walk(doc, path)
        box[key] = value
    return mutate


def drop(path):
    def mutate(doc):
        box, key = walk(doc, path)
        del box[key]
    return mutate


def check(name, ok, why):
    global failed, passed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}: {why}")


tmp = pathlib.Path(tempfile.mkdtemp())
xid = summarize("dead-job-xid")      # processes, a communicator, watchdog, system events, nccl-tests, findings
env = summarize("env-override")      # environment settings
nstr, nin, nprocs = len(xid["strings"]), len(xid["inputs"]), len(xid["procs"])
nranks = xid["comms"][0]["nranks"]
# a process of the communicator, with its init line
pi = next(i for i, p in enumerate(xid["procs"]) if p["ev_init"] and p["nranks"] == nranks)
BIG = 2 ** 31

# (base, damage, field named, reason)
CASES = [
    # ranks of a communicator: negative, past nranks, far past any int
    (xid, put("comms[0].seen[0]", -5), "comms[0].seen[0]", f"rank -5 outside [0, {nranks})"),
    (xid, put("comms[0].seen[2]", 70000), "comms[0].seen[2]", f"rank 70000 outside [0, {nranks})"),
    (xid, put("comms[0].done[1]", 1e12), "comms[0].done[1]", f"rank 1000000000000 outside [0, {nranks})"),
    (xid, put("comms[0].rank_proc[3][0]", nranks), "comms[0].rank_proc[3][0]", f"rank {nranks} outside [0, {nranks})"),
    (xid, put("comms[0].nranks", 0), "comms[0].nranks", "nranks 0 outside [1, 16777216]"),
    (xid, put("comms[0].nranks", 2.0 ** 40), "comms[0].nranks", "nranks 1099511627776 outside [1, 16777216]"),
    # not an integer where one belongs
    (xid, put("procs[0].pid", 1.5), "procs[0].pid", "pid 1.5 is not an integer"),
    (xid, put("comms[0].seen[1]", 0.5), "comms[0].seen[1]", "rank 0.5 is not an integer"),
    (xid, put("watchdog[0][2]", 4822.25), "watchdog[0][2]", "sequence number 4822.25 is not an integer"),
    # an index past its table
    (xid, put("procs[0].host", nstr + 60), "procs[0].host", f"string id {nstr + 60} outside [-1, {nstr})"),
    (xid, put("procs[1].file", nin), "procs[1].file", f"input index {nin} outside [0, {nin})"),
    (xid, put("procs[2].comm", 3), "procs[2].comm", "communicator index 3 outside [-1, 1)"),
    (xid, put("comms[0].rank_proc[0][1]", nprocs), "comms[0].rank_proc[0][1]",
     f"process index {nprocs} outside [0, {nprocs})"),
    (xid, put("watchdog[0][0]", -1), "watchdog[0][0]", f"process index -1 outside [0, {nprocs})"),
    (xid, put("findings[0].procs[0]", BIG), "findings[0].procs[0]", f"process index {BIG} outside [0, {nprocs})"),
    (xid, put("findings[0].ev[0][0]", nin + 1), "findings[0].ev[0][0]", f"input index {nin + 1} outside [-1, {nin})"),
    (xid, put("findings[0].ev[0][2]", nprocs), "findings[0].ev[0][2]", f"process index {nprocs} outside [-1, {nprocs})"),
    (xid, put("nccl_tests[0][12][0]", nprocs + 7), "nccl_tests[0][12][0]",
     f"process index {nprocs + 7} outside [0, {nprocs})"),
    (xid, put("system[0][1]", nstr), "system[0][1]", f"string id {nstr} outside [-1, {nstr})"),
    (xid, put(f"procs[{pi}].ev_init[0]", nin), f"procs[{pi}].ev_init[0]", f"input index {nin} outside [0, {nin})"),
    # a process and a cited line are of an input: reports name it
    (xid, put("procs[0].file", -1), "procs[0].file", f"input index -1 outside [0, {nin})"),
    (xid, put(f"procs[{pi}].ev_init[0]", -1), f"procs[{pi}].ev_init[0]", f"input index -1 outside [0, {nin})"),
    (env, put("env[0][2]", 10 ** 6), "env[0][2]", f"process index 1000000 outside [0, {len(env['procs'])})"),
    # values outside what their kind allows
    (xid, put("procs[0].phase", 99), "procs[0].phase", "phase 99 outside [0, 7]"),
    (xid, put("procs[0].init_done", 2), "procs[0].init_done", "flag 2 outside [0, 1]"),
    (xid, put(f"procs[{pi}].rank", 40), f"procs[{pi}].rank", f"rank 40 outside [-1, {nranks})"),
    (xid, put("system[0][0]", 99), "system[0][0]", "event kind 99 outside [0, 11]"),
    (xid, put("findings[0].severity", 7), "findings[0].severity", "severity 7 outside [0, 2]"),
    (xid, put("findings[0].pids", [-3]), "findings[0].pids[0]", "pid -3 outside [0, 2147483647]"),
    (xid, put("inputs[0][1]", -1), "inputs[0][1]", "line count -1 outside [0, 18446744073709551616]"),
    (xid, put("dropped[2]", -4), "dropped[2]", "count -4 outside [0, 18446744073709551616]"),
    (xid, put("procs[3].first_time", RAW("1e999")), "procs[3].first_time", "time inf is not finite"),
    (xid, put("findings[0].id", "framework-err\x1b[2Jor"), "findings[0].id", "not a finding id (1 to 64 of a-z 0-9 - . _)"),
    # a string where a number belongs, and the other way round
    (xid, put("procs[0].rank", "3"), "procs[0].rank", "a string where a number belongs"),
    (xid, put("comms[0].seen[0]", "0"), "comms[0].seen[0]", "a string where a number belongs"),
    (xid, put("findings[0].id", 5), "findings[0].id", "a number where a string belongs"),
    (xid, put("inputs[0][0]", None), "inputs[0][0]", "null where a string belongs"),
    (xid, put("strings[3]", ["x"]), "strings[3]", "an array where a string belongs"),
    (xid, put(f"procs[{pi}].ev_init[3]", 12), f"procs[{pi}].ev_init[3]", "a number where a string belongs"),
    # a required array missing, or of the wrong shape
    (xid, drop("comms"), "comms", "missing, an array belongs here"),
    (xid, drop("strings"), "strings", "missing, an array belongs here"),
    (xid, drop("findings[0].ranks"), "findings[0].ranks", "missing, an array belongs here"),
    (xid, drop("procs[1].file"), "procs[1].file", "missing, a number belongs here"),
    (xid, drop("procs[1].ev_warn"), "procs[1].ev_warn", "missing, an array or null belongs here"),
    (xid, drop("killed"), "killed", "missing, an array or null belongs here"),
    (xid, put("procs", {}), "procs", "an object where an array belongs"),
    (xid, put("watchdog[0]", xid["watchdog"][0][:5]), "watchdog[0]", "5 items where 9 belong"),
    (xid, put("procs[0].socket", [[0, 0]] * 17), "procs[0].socket", "17 items, more than 16"),
    # a field the format does not have, or one given twice
    (xid, put("procs[0].colour", 1), "procs[0]", f"field {len(xid['procs'][0]) + 1} is none this format has"),
    (xid, put("comms[0].tag", -1), "comms[0]", f"field {len(xid['comms'][0]) + 1} is none this format has"),
    (xid, lambda d: d.__setitem__("extra", []), "", f"field {len(xid) + 1} is none this format has"),
    (xid, put(f"procs[{pi}].comm", RAW('0,"comm":-1')), f"procs[{pi}].comm", "given twice"),
    # the same key twice
    (xid, lambda d: d["watchdog"].append(d["watchdog"][0]), f"watchdog[{len(xid['watchdog'])}]",
     "a second report of this process and rank"),
    (xid, lambda d: d["comms"].append(d["comms"][0]), "comms[1].key", "a second communicator with this key"),
]

good = tmp / "good.json"
good.write_text(json.dumps(xid))
rc_good, out_good, err_good = run("merge", "--format", "json", str(good))
check("undamaged", rc_good in (0, 1) and out_good and not err_good, f"exit {rc_good}: {err_good}")

for i, (base, damage, field, reason) in enumerate(CASES):
    doc = json.loads(json.dumps(base))
    damage(doc)
    bad = tmp / f"bad{i}.json"
    bad.write_text(dumps(doc))
    want = f"ncclog: {bad}: summary field {field}: {reason}\n" if field else f"ncclog: {bad}: summary: {reason}\n"
    rc, out, err = run("merge", str(bad))
    name = f"{field} = {reason}"
    check(name, rc == 2 and err == want and not out, f"exit {rc}, stdout {len(out)} bytes, stderr {err!r}, want {want!r}")
    # merged with a good one: refused whole, the report is the good one's
    rc, out, err = run("merge", "--format", "json", str(good), str(bad))
    check(name + " (merged)", rc == 2 and err == want and out == out_good, f"exit {rc}, stderr {err!r}")

# what a file name holds is escaped: one line, no raw control byte
odd = tmp / "node\x1b]52;c;aGk=\x07\nb.json"
doc = json.loads(json.dumps(xid))
doc["comms"][0]["seen"][0] = -1
odd.write_text(json.dumps(doc))
rc, out, err = run("merge", str(odd))
check("escaped name", rc == 2 and err.count("\n") == 1 and "\x1b" not in err and "\x07" not in err
      and "summary field comms[0].seen[0]" in err, f"exit {rc}, stderr {err!r}")

# equal strings in the table (the writer cuts a name at a NUL byte): one id
doc = json.loads(json.dumps(xid))
doc["strings"].append(doc["strings"][1])
dup = tmp / "dup.json"
dup.write_text(json.dumps(doc))
rc, out, err = run("merge", "--format", "json", str(dup))
check("repeated string", rc == rc_good and out == out_good and not err, f"exit {rc}, stderr {err!r}")

# a sum a log made overflow (wrong elements of nccl-tests) is still a number
head = (ROOT / "samples" / "dead-job-xid" / "nccl-tests-burnin.log").read_text().splitlines(keepends=True)
cols = next(i for i, line in enumerate(head) if "#wrong" in line)
row = "    {0}  {1}  float  sum  -1  94.5  177.48  332.78  1e308  94.3  177.84  333.45  1e308\n"
huge = tmp / "huge-wrong.log"
huge.write_text("".join(head[:cols + 1]) + row.format(16777216, 4194304) + row.format(33554432, 8388608))
rc, out, err = run("analyze", "--summary", str(huge))
(tmp / "huge.json").write_bytes(out)
rc, out, err = run("merge", str(tmp / "huge.json"))
check("overflowed sum", rc == 1 and b"nccl-tests-wrong-results" in out and not err, f"exit {rc}, stderr {err!r}")

# no summary readable: exit 2, a line for each, no report
rc, out, err = run("merge", str(tmp / "absent.json"), str(tmp / "bad0.json"))
check("none readable", rc == 2 and not out and err.count("\n") == 2, f"exit {rc}, stderr {err!r}")

# inputs that once crashed the fuzz target: an ordinary exit, one line when
# refused, a terminal-safe report when taken


def safe(out):
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not any((ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) < 0xa0 or 0x202a <= ord(c) <= 0x202e
                   or 0x2066 <= ord(c) <= 0x2069 for c in text)


for f, fmt in ((f, fmt) for f in sorted((ROOT / "tests" / "regress" / "merge").glob("*")) for fmt in ("text", "json")):
    rc, out, err = run("merge", "--format", fmt, str(f))
    check(f"regress {f.name} ({fmt})", (rc in (0, 1) and not err and safe(out)) or (rc == 2 and err.count("\n") == 1 and not out),
          f"exit {rc}, stdout safe {safe(out)}, stderr {err[:400]!r}")

print(f"summary: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
