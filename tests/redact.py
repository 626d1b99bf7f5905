#!/usr/bin/env python3
"""Redaction over every sample folder and the battery in tests/redact:
`ncclog redact` copies and `analyze --redact` give the same findings (id,
severity and ranks) as the originals; the copies hold none of the original
host names, addresses or user names (the battery: none of the identifiers
its NAME.gone lists, each class in each position, and all of NAME.keep);
pseudonyms are consistent and keep subnets and special ranges, not the
host part of an address.

usage: redact.py NCCLOG SAMPLES_DIR [BATTERY_DIR]"""
import ipaddress
import json
import os
import re
import subprocess
import sys
import tempfile

ncclog, samples = sys.argv[1], sys.argv[2]
battery = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "redact")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run(args, **kw):
    return subprocess.run([ncclog] + args, capture_output=True, **kw)


def findings(args, env=None):
    p = run(["analyze", "-f", "json"] + args, env=env)
    if p.returncode not in (0, 1):
        fail(f"analyze {args}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
        return None, None
    doc = json.loads(p.stdout)
    return sorted({(f["severity"], f["id"], tuple(sorted(r for r in f["ranks"] if r is not None)))
                   for f in doc["findings"]}), doc


PREFIX = re.compile(rb"(?:^|[\s\]:)])([A-Za-z0-9_.-]+):(\d+):(\d+) \[\d+\]")
IPV4 = re.compile(rb"(?<![\w.])(\d{1,3}(?:\.\d{1,3}){3})(?![\w]|\.\d)")
IPV6 = re.compile(rb"(?<![\w:])([0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{0,4}){2,7})(?=%|<|\s|$|\]|,)")
USER = re.compile(rb"/(?:home|Users)/([^/\s:'\"]+)")


def secrets(data, doc):
    """The original values that must not survive: hosts, addresses, users."""
    hosts = {h for h in doc["job"]["hosts"] if h}
    hosts |= {m.group(1).split(b".")[0].decode() for m in PREFIX.finditer(data)}
    hosts.discard("localhost")
    ips = set()
    for rx in (IPV4, IPV6):
        for m in rx.finditer(data):
            try:
                a = ipaddress.ip_address(m.group(1).decode())
            except ValueError:
                continue
            if a.is_loopback or a.is_unspecified or a.is_multicast or str(a).startswith("0."):
                continue
            ips.add(m.group(1).decode())
    users = {m.group(1).decode() for m in USER.finditer(data)}
    return hosts, ips, users


def word(s):
    return re.compile(rb"(?<![\w-])" + re.escape(s.encode()) + rb"(?![\w-])")


folders = sorted(d for d in os.listdir(samples) if os.path.isdir(os.path.join(samples, d)))
with tempfile.TemporaryDirectory() as tmp:
    for name in folders:
        files = sorted(os.path.join(samples, name, f) for f in os.listdir(os.path.join(samples, name))
                       if f.endswith(".log"))
        if not files:
            continue  # no logs: doctor reports, which golden.py compares
        want, doc = findings(files)
        if want is None:
            continue
        out = os.path.join(tmp, name)
        # one key for both runs: the copies are then read in the order of the
        # originals (which analyze --redact names), as the ranks may depend on it
        keyed = dict(os.environ, NCCLOG_REDACT_KEY="order")
        p = run(["redact", "-o", out] + files, env=keyed)
        if p.returncode != 0:
            fail(f"{name}: redact exit {p.returncode}: {p.stderr.decode(errors='replace')}")
            continue
        got, rdoc = findings(["--redact"] + files, env=keyed)
        if got != want:
            fail(f"{name}: analyze --redact gives {got}, original {want}")
        order = [os.path.basename(i["file"]) for i in rdoc["inputs"]] if rdoc else []
        copies = [os.path.join(out, f) for f in order]
        if sorted(order) != sorted(os.listdir(out)) or len(copies) != len(files):
            fail(f"{name}: {len(files)} inputs, redacted files {sorted(os.listdir(out))}, inputs named {order}")
            continue
        got, _ = findings(copies)
        if got != want:
            fail(f"{name}: redacted copy gives {got}, original {want}")
        data = b"".join(open(f, "rb").read() for f in files)
        red = b"".join(open(f, "rb").read() for f in copies)
        nl_red, nl_orig = red.count(b"\n"), data.count(b"\n")
        if nl_red != nl_orig + sum(1 for f in files if not open(f, "rb").read().endswith(b"\n")):
            fail(f"{name}: the copy has {nl_red} lines, the original {nl_orig}")
        hosts, ips, users = secrets(data, doc)
        report = rdoc and json.dumps(rdoc).encode() or b""
        names = " ".join(os.path.basename(f) for f in copies).encode()
        for h in hosts:
            for what, text in (("copy", red), ("analyze --redact", report), ("file names", names)):
                if word(h).search(text):
                    fail(f"{name}: host {h} left in the {what}")
        for ip in ips:
            rx = re.compile(rb"(?<![\w.:])" + re.escape(ip.encode()) + rb"(?![\w]|\.\d)")
            for what, text in (("copy", red), ("analyze --redact", report)):
                if rx.search(text):
                    fail(f"{name}: address {ip} left in the {what}")
        for u in users:
            for pre in (b"/home/", b"/Users/"):
                if pre + u.encode() in red:
                    fail(f"{name}: user {u} left in the copy")
        # at least something was hidden in every sample that names a host
        if doc["job"]["hosts"] and not hosts:
            fail(f"{name}: no host found to hide")

    # special ranges and subnets: a handmade log
    log = (b"node-a:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>\n"
           b"node-b:200:201 [0] NCCL INFO Bootstrap : Using eth0:10.1.2.4<0>\n"
           b"node-c:300:300 [0] NCCL INFO Bootstrap : Using eth0:10.1.7.4<0>\n"
           b"node-a:100:100 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0> [1]docker0:172.17.0.1<0> "
           b"[2]ib0:169.254.3.9<0> [3]ib1:fe80::ba59:9f03:c4:8e2a%ib1<0> [4]eth1:192.168.1.5<0>\n"
           b"node-a:100:100 [0] NCCL INFO comm 0x55d0c3a0e2c0 rank 0 nranks 2 commId 0x7a3e9c5f2b1d4e8a - Init START\n"
           b"node-b:200:201 [0] NCCL INFO comm 0x55d0C3A0E2C0 rank 1 nranks 2 commId 0x7a3e9c5f2b1d4e8a - Init START\n"
           b"(pid: 100) Traceback in /home/alice/train.py and /Users/alice/x; MASTER_ADDR=node-a.example.com\n"
           b"c10::DistBackendError at 10:22:33 on fd00:1:2::7 and localGid ::ffff:10.1.2.3\n")
    path = os.path.join(tmp, "hand.log")
    open(path, "wb").write(log)
    env = dict(os.environ, NCCLOG_REDACT_KEY="test-key")
    a = run(["redact", path], env=env).stdout
    b = run(["redact", path], env=env).stdout
    c = run(["redact", path]).stdout
    if a != b:
        fail("the same key gives different pseudonyms")
    if a == c:
        fail("a random key gives the same pseudonyms as a fixed one")
    lines = a.split(b"\n")
    v4 = [re.search(rb"eth0:([\d.]+)<", lines[i]).group(1).decode() for i in range(3)]
    n = [ipaddress.ip_address(x) for x in v4]
    if ipaddress.ip_network(f"{n[0]}/24", strict=False) != ipaddress.ip_network(f"{n[1]}/24", strict=False):
        fail(f"10.1.2.3 and 10.1.2.4 no longer share a /24: {v4}")
    if ipaddress.ip_network(f"{n[0]}/24", strict=False) == ipaddress.ip_network(f"{n[2]}/24", strict=False):
        fail(f"10.1.2.3 and 10.1.7.4 now share a /24: {v4}")
    if ipaddress.ip_network(f"{n[0]}/16", strict=False) != ipaddress.ip_network(f"{n[2]}/16", strict=False):
        fail(f"10.1.2.3 and 10.1.7.4 no longer share a /16: {v4}")
    if not all(x.startswith("10.") for x in v4) or "10.1." in " ".join(v4):
        fail(f"10/8 addresses: {v4}")
    socket = lines[3].decode()
    for rx, what in ((r"lo:127\.0\.0\.1<", "loopback kept"), (r"docker0:172\.17\.\d+\.\d+<", "docker bridge in 172.17/16"),
                     (r"ib0:169\.254\.\d+\.\d+<", "link-local in 169.254/16"), (r"ib1:fe80::[0-9a-f:]+%ib1<", "fe80::/10"),
                     (r"eth1:192\.168\.\d+\.\d+<", "192.168/16")):
        if not re.search(rx, socket):
            fail(f"{what}: {socket}")
    for old in ("172.17.0.1", "169.254.3.9", "fe80::ba59:9f03:c4:8e2a", "192.168.1.5", "0x55d0c3a0e2c0",
                "0x7a3e9c5f2b1d4e8a", "alice", "node-a", "node-b", "fd00:1:2::7", "::ffff:10.1.2.3"):
        if old.encode() in a or old.upper().encode() in a:
            fail(f"{old} left in {a!r}")
    comm0 = re.search(rb"comm (0x\w+)", lines[4]).group(1)
    comm1 = re.search(rb"comm (0x\w+)", lines[5]).group(1)
    if comm0.lower() != comm1.lower() or len(comm0) != 14 or not re.fullmatch(rb"0x[0-9A-F]+", comm1):
        fail(f"pointers: same value, same length, same case: {comm0} {comm1}")
    if re.search(rb"commId (0x\w+)", lines[4]).group(1) != re.search(rb"commId (0x\w+)", lines[5]).group(1):
        fail("commIds: one value, one pseudonym")
    pid_a = re.match(rb"(host-\w+):(\d+):(\d+)", lines[0])
    pid_b = re.match(rb"(host-\w+):(\d+):(\d+)", lines[1])
    if pid_a.group(2) != pid_a.group(3) or pid_b.group(2) == pid_b.group(3) or pid_a.group(2) == b"100":
        fail(f"pid == tid kept, pid != tid kept, pids changed: {lines[0]!r} {lines[1]!r}")
    if b"(pid: " + pid_a.group(2) + b")" not in lines[6]:
        fail(f"a pid named in the text maps like the prefix: {lines[6]!r}")
    if lines[6].count(b"/user-") != 2 or re.findall(rb"/home/(user-\w+)/", lines[6]) != re.findall(rb"/Users/(user-\w+)/", lines[6]):
        fail(f"user names: {lines[6]!r}")
    if not re.search(re.escape(pid_a.group(1)) + rb"\.domain-\w+\.example\b", lines[6]) or b"example.com" in lines[6]:
        fail(f"a host name in the text maps like the prefix, its domain hidden: {lines[6]!r}")
    if not lines[7].startswith(b"c10::DistBackendError at 10:22:33 on fd00:") or b"::ffff:10." not in lines[7]:
        fail(f"C++ scopes and times untouched, IPv6 mapped: {lines[7]!r}")
    if a.count(b"\n") != log.count(b"\n"):
        fail("one line out per line in")
    # standard input: one pass, the prefix of a line teaches its host before the line is written
    p = run(["redact"], input=log)
    if p.returncode != 0 or b"node-a" in p.stdout or b"alice" in p.stdout or p.stdout.count(b"\n") != log.count(b"\n"):
        fail(f"redact of standard input: exit {p.returncode}: {p.stdout[:300]!r}")
    # pointers: distinct values stay distinct, with as many digits
    ptrs = [f"0x{0x7f0000000000 + 4096 * i:012x}" for i in range(20000)] + [f"0x{i:08x}" for i in range(3000)]
    p = run(["redact"], input=("".join(f"buffer {x} registered\n" for x in ptrs)).encode())
    got = re.findall(rb"buffer (0x[0-9a-f]+) registered", p.stdout)
    if len(got) != len(ptrs) or len(set(got)) != len(ptrs) or [len(g) for g in got] != [len(x) for x in ptrs]:
        fail(f"pointers: {len(set(got))} distinct pseudonyms for {len(ptrs)} pointers")
    if sum(1 for x, g in zip(ptrs, got) if x.encode() == g) > 2:
        fail("pointers: many left as they were")

    # the battery: one synthetic log per class of identifier and position
    def gone_rx(x):
        b = re.escape(x.encode())
        head = rb"(?<![A-Za-z0-9_])" + (rb"(?<!-)" if re.match(r"\w", x) else b"")
        tail = rb"(?![A-Za-z0-9_])(?!\.\d)" + (rb"(?!-)" if re.search(r"\w$", x) else b"")
        return re.compile(head + b + tail, re.I)
    cases = sorted(f[:-4] for f in os.listdir(battery) if f.endswith(".log"))
    for case in cases:
        src = os.path.join(battery, case + ".log")
        gone = [x for x in open(os.path.join(battery, case + ".gone")).read().split("\n") if x]
        keep = [x for x in open(os.path.join(battery, case + ".keep")).read().split("\n") if x]
        want, _ = findings([src])
        if not want:
            fail(f"battery {case}: the log gives no finding to compare")
        out = os.path.join(tmp, "battery-" + case)
        p = run(["redact", "-o", out, src])
        if p.returncode != 0:
            fail(f"battery {case}: redact exit {p.returncode}: {p.stderr.decode(errors='replace')}")
            continue
        copy = os.path.join(out, os.listdir(out)[0])
        got, _ = findings([copy])
        if got != want:
            fail(f"battery {case}: redacted copy gives {got}, original {want}")
        got, rdoc = findings(["--redact", src])
        if got != want:
            fail(f"battery {case}: analyze --redact gives {got}, original {want}")
        red = open(copy, "rb").read()
        report = json.dumps(rdoc).encode() if rdoc else b""
        for x in gone:
            for what, text in (("copy", red), ("analyze --redact", report)):
                m = gone_rx(x).search(text)
                if m:
                    line = text[:m.start()].count(b"\n") + 1 if what == "copy" else 0
                    fail(f"battery {case}: {x!r} left in the {what} (line {line}: "
                         f"{text.split(chr(10).encode())[line - 1][:160] if line else m.group(0)!r})")
        for x in keep:
            if x.encode() not in red:
                fail(f"battery {case}: {x!r} should stay, missing from the copy")
        if red.count(b"\n") != open(src, "rb").read().count(b"\n"):
            fail(f"battery {case}: one line out per line in")

    # IPv4: the subnet stays, the host part does not (no node numbering)
    addrs = [f"10.20.30.{i}" for i in range(1, 201)]
    # (a fixed key: how many last octets land on themselves by chance varies with it)
    p = run(["redact"], input=("".join(f"node {a} up\n" for a in addrs)).encode(),
            env=dict(os.environ, NCCLOG_REDACT_KEY="octets"))
    got = [m.decode() for m in re.findall(rb"node ([\d.]+) up", p.stdout)]
    nets = {g.rsplit(".", 1)[0] for g in got}
    same_host = sum(1 for a, g in zip(addrs, got) if a.rsplit(".", 1)[1] == g.rsplit(".", 1)[1])
    lasts = [int(g.rsplit(".", 1)[1]) for g in got]
    if len(got) != len(addrs) or len(set(got)) != len(addrs) or len(nets) != 1 or "10.20.30" in nets:
        fail(f"IPv4: one /24 maps to one other /24, one to one: {sorted(nets)[:5]}, {len(set(got))} distinct")
    if same_host > 20 or lasts == sorted(lasts):
        fail(f"IPv4: {same_host} of {len(addrs)} last octets kept, order kept: {lasts == sorted(lasts)}")
    # a cloud name that spells an address maps as the address does
    p = run(["redact"], input=b"host ip-172-25-226-197 has 172.25.226.197 and 172-25-226-197.ns.pod.cluster.local\n")
    m = re.match(rb"host ip-(\d+)-(\d+)-(\d+)-(\d+) has (\d+)\.(\d+)\.(\d+)\.(\d+) and (\d+)-(\d+)-(\d+)-(\d+)\.", p.stdout)
    if not m or m.groups()[:4] != m.groups()[4:8] or m.groups()[:4] != m.groups()[8:12] or b"226-197" in p.stdout:
        fail(f"cloud names: the address in the name maps as the address: {p.stdout!r}")

print("redact: %d folders, %d battery logs, %s" % (len(folders), len(cases), "ok" if not failures else f"{len(failures)} failures"))
sys.exit(1 if failures else 0)
