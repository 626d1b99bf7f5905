#!/usr/bin/env python3
"""The job model is bounded: a 5 MB crafted log of each kind (tests/crafted.py)
is analyzed, as JSON and as the text report, in bounded memory and time, with
an ordinary exit status, and one input-cap-reached finding exactly when the
log holds more distinct keys than a cap of the model keeps.

Which caps a log reaches, and how much each drops, is computed here: the caps
are read from MODEL_CAPS and the constants of the headers, the keys of each
kind are counted in the log (crafted.FLOODS). Peak RSS is that of the child
(wait4), not asserted under a sanitizer (its shadow memory and quarantine are
not the program's); CPU time is asserted only with a generous bound, since
the machine may be loaded: bench/bounds.py measures it.

usage: bounds.py NCCLOG SOURCE_ROOT
  NCCLOG_SANITIZE=address,undefined (as b_sanitize) skips the RSS bound
"""
import concurrent.futures, json, os, re, shutil, subprocess, sys, tempfile

ncclog, root = sys.argv[1:3]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crafted  # noqa: E402

SIZE_MB = 5
RSS_MAX_KB = 64 * 1024
CPU_MAX_S = 20.0
TIME = "/usr/bin/time"
HEADERS = ["model/model.h", "model/findings.h", "model/system.h", "util/intern.h", "rules/rules.h"]

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


def sanitized():
    """True when the binary runs under ASan/UBSan (told by meson, or by its libraries)"""
    if os.environ.get("NCCLOG_SANITIZE", "none") not in ("", "none"):
        return True
    try:
        libs = subprocess.run(["ldd", ncclog], capture_output=True, text=True).stdout
    except OSError:
        return False
    return bool(re.search(r"lib(asan|ubsan|tsan|lsan)", libs))


def read_caps():
    """{cap enum: (what it keeps, its limit)} from MODEL_CAPS and the headers' #defines"""
    text = "".join(open(os.path.join(root, h)).read() for h in HEADERS)
    defs = dict(re.findall(r"^#define (\w+) (\(?[0-9][0-9xXuU <()]*\)?)", text, re.M))
    caps = {}
    for cap, what, limit in re.findall(r'X\((CAP_\w+), "([^"]+)", (\w+), "[^"]+"\)', text):
        expr = re.sub(r"(?<=[0-9])[uU]", "", defs[limit]) if limit in defs else limit
        if not re.fullmatch(r"[0-9xX <()]+", expr):
            sys.exit(f"bounds.py: cannot read the value of {limit} for {cap}")
        caps[cap] = (what, eval(expr))
    if len(caps) < 8:
        sys.exit(f"bounds.py: MODEL_CAPS not found in {HEADERS} ({len(caps)} caps)")
    return caps


def expected_drops(kind, path, caps, seeds):
    """{what: (limit, dropped)} for every cap the log at path goes past: an
    occurrence of a key not among the first LIMIT distinct ones (after the
    seeds[cap] the model holds before reading) is one dropped"""
    seen, past = {}, {}
    with open(path, errors="replace") as f:
        for cap, key in crafted.keys(kind, f):
            s = seen.setdefault(cap, set())
            if key not in s and len(s) + seeds.get(cap, 0) < caps[cap][1]:
                s.add(key)
            elif key not in s:
                past[cap] = past.get(cap, 0) + 1
    return {caps[c][0]: (caps[c][1], n) for c, n in past.items()}


def run(args):
    """(exit status, stdout, stderr, peak RSS KiB, CPU s) of one ncclog run; the
    status is -N when signal N ended it. /usr/bin/time measures: a child of
    this process would keep this process's peak RSS as its own across exec"""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as usage:
        p = subprocess.run([TIME, "-f", "%M %U %S", "-o", usage.name, ncclog] + args,
                           stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        lines = usage.read().splitlines()
        sig = re.search(r"terminated by signal (\d+)", " ".join(lines))
        rss, user, sys_ = lines[-1].split()
        out.seek(0)
        err.seek(0)
        return (-int(sig.group(1)) if sig else p.returncode), out.read(), err.read(), int(rss), \
            float(user) + float(sys_)


DROPPED = re.compile(r"([^:;]+): (\d+) kept, (\d+) [^;]*? dropped")


def parse_drops(message):
    """{what: (kept, dropped)} from an input-cap-reached message"""
    body = message.split(": ", 1)[1] if ": " in message else ""
    return {w.strip(): (int(k), int(n)) for w, k, n in DROPPED.findall(body)}


def main():
    if not os.access(TIME, os.X_OK):
        sys.exit(f"bounds.py: {TIME} (GNU time) is needed to measure peak RSS")
    caps = read_caps()
    san = sanitized()
    tmp = tempfile.mkdtemp(prefix="ncclog-bounds.")
    try:
        return check_all(caps, san, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_kind(kind, caps, san, seeds, tmp, mark):
    """the report lines and the failures of one kind, both formats"""
    log, bad = [], []
    path = os.path.join(tmp, kind + ".log")
    with open(path, "w") as f:
        crafted.write(kind, SIZE_MB * 1024 * 1024, f)
    want = expected_drops(kind, path, caps, seeds)
    inputs = ["--rules", path, mark] if kind == "rules" else [path]
    got_msgs = {}
    for fmt in ("json", "text"):
        what = f"{kind} ({fmt})"
        status, out, err, rss, cpu = run(["analyze", "-f", fmt] + inputs)
        errs = err.decode(errors="replace")
        log.append(f"{what}: exit {status}, {cpu:.2f} s CPU, peak RSS {rss / 1024:.1f} MB, "
                   f"caps {sorted(want) or 'none'}")
        if status not in (0, 1):
            bad.append(f"{what}: exit status {status}, want 0 or 1: {errs[:300]}")
            continue
        if not san and rss > RSS_MAX_KB:
            bad.append(f"{what}: peak RSS {rss} KiB > {RSS_MAX_KB} KiB")
        if cpu > CPU_MAX_S:
            bad.append(f"{what}: {cpu:.1f} s CPU > {CPU_MAX_S} s")
        if re.search(r"Sanitizer|runtime error:", errs):
            bad.append(f"{what}: a sanitizer report: {errs[:600]}")
        # only the rules past RULES_MAX are worth a line on stderr
        if kind == "rules":
            if "rules" in want and "more than" not in errs:
                bad.append(f"{what}: no word on stderr of the rules not loaded: {errs[:300]}")
        elif errs:
            bad.append(f"{what}: stderr: {errs[:300]}")
        if fmt == "json":
            try:
                doc = json.loads(out)
            except ValueError as e:
                bad.append(f"{what}: not JSON: {e}")
                continue
            msgs = [f.get("message", "") for f in doc.get("findings", []) if f.get("id") == "input-cap-reached"]
            if kind == "rules" and not any(f.get("id") == "site-r0" for f in doc.get("findings", [])):
                bad.append(f"{what}: the first user rule, kept, did not fire")
        else:
            text = out.decode(errors="replace")
            msgs = re.findall(r"^(?:\S+: )?warning\[input-cap-reached\]: (.*)$", text, re.M)
        if len(msgs) != (1 if want else 0):
            bad.append(f"{what}: {len(msgs)} input-cap-reached findings, want {1 if want else 0}")
        for m in msgs:
            drops = parse_drops(m)
            if drops != want:
                bad.append(f"{what}: dropped {drops}, want {want}: {m[:300]}")
            got_msgs[fmt] = m
    if len(got_msgs) == 2 and got_msgs["json"] != got_msgs["text"]:
        bad.append(f"{kind}: the cap finding says one thing in JSON and another in text")
    os.unlink(path)
    return log, bad


def check_all(caps, san, tmp):
    # no user rules of this machine's, no colour
    os.environ.update(XDG_CONFIG_HOME=os.path.join(tmp, "config"), NO_COLOR="1")
    # the shipped rules count towards RULES_MAX before a user's
    listed = subprocess.run([ncclog, "rules", "list"], capture_output=True, text=True)
    if listed.returncode != 0 or not listed.stdout.strip():
        sys.exit(f"bounds.py: ncclog rules list: exit {listed.returncode}: {listed.stderr[:300]}")
    seeds = {"CAP_RULES": len(listed.stdout.splitlines())}
    mark = os.path.join(tmp, "mark.log")
    with open(mark, "w") as f:
        f.write("marker0000000 a\n")
    # two at a time: one kind's log is written and counted while another's runs
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda k: check_kind(k, caps, san, seeds, tmp, mark), crafted.KINDS)
        for log, bad in results:
            for line in log:
                print(line)
            for b in bad:
                fail(b)

    if failures:
        print(f"{len(failures)} failed")
        return 1
    print(f"bounds: {len(crafted.KINDS)} kinds at {SIZE_MB} MB, json and text: ok"
          + (" (peak RSS not asserted: sanitizer build)" if san else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
