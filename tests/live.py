#!/usr/bin/env python3
"""Tests of `ncclog live` in pipe mode, fed by this script in stages.

- Every finding is printed before the input ends, within 200 ms of the line
  that triggers it.
- A rank that goes silent while the others keep logging is flagged.
- Fed the same bytes, live and analyze report the same finding ids (every
  sample).
- A silent rank is flagged after --settle seconds (not a multiple of it),
  with its last line as evidence.
- --follow follows growth, truncation, rotation and a file that appears,
  says so, and cites the lines of each generation by its name.
- The JSON "end" event carries the totals and the exit status.
- --exec runs a command once per new error finding, the finding as JSON on
  its standard input, without a shell; its failures are reported and
  change nothing else.
- SIGINT exits 130 after the report of what was read; a closed reader ends
  it quietly.

usage: live.py NCCLOG SOURCE_ROOT
"""
import gzip, json, os, select, signal, subprocess, sys, tempfile, threading, time

BIN, ROOT = sys.argv[1], sys.argv[2]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


class Live:
    """A live process whose JSON events are collected with arrival times."""

    def __init__(self, *args):
        self.p = subprocess.Popen([BIN, "live", "--no-tui", "--format", "json", *args],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.events = []
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.p.stdout:
            self.events.append((time.monotonic(), json.loads(line)))

    def send(self, text):
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()
        return time.monotonic()

    def wait_for(self, pred, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for t, e in self.events:
                if pred(e):
                    return t, e
            time.sleep(0.005)
        return None, None

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(timeout=20)
        self.t.join(timeout=5)
        return rc


def host(i, pid):
    return f"node-{'ab'[i // 2]}:{pid}:{pid}"


# ---- latency: each finding within 200 ms of its triggering line ----
lv = Live("--settle", "30")
lv.send("".join(f"{host(r, 100 + r)} [{r % 2}] NCCL INFO NCCL version 2.21.5+cuda12.4\n" for r in range(4)))
time.sleep(0.5)
check(not lv.events, f"no finding from healthy lines: {lv.events[:1]}")
latencies = []
for text, fid in [
    ("node-a:100:100 [0] NCCL INFO Bootstrap : Using eth1:192.168.1.101<0>\n"
     "node-b:102:102 [0] NCCL INFO Bootstrap : Using docker0:172.17.0.1<0>\n", "socket-iface-virtual"),
    ("\nnode-a:100:140 [0] misc/socket.cc:538 NCCL WARN socketPollConnect: Connect to 172.17.0.1<41523> returned 113(No route to host) errno 115(Operation now in progress)\n",
     "bootstrap-connect-failed"),
    ("node-a:100:140 [0] NCCL INFO misc/socket.cc:579 -> 2\n", "nccl-system-error"),
    ("\nnode-b:103:150 [1] include/shm.h:48 NCCL WARN Error: failed to extend /dev/shm/nccl-x to 9637892 bytes\n", "shm-too-small"),
]:
    sent = lv.send(text)
    got, ev = lv.wait_for(lambda e: e.get("id") == fid, 3)
    check(got is not None, f"{fid} printed before the input ended")
    if got:
        latencies.append(got - sent)
        check(got - sent < 0.2, f"{fid} within 200 ms: {1000 * (got - sent):.0f} ms")
rc = lv.close()
check(rc == 1, f"exit status 1 at the end of input, got {rc}")
if latencies:
    print(f"latency line -> finding: max {1000 * max(latencies):.0f} ms, "
          f"median {1000 * sorted(latencies)[len(latencies) // 2]:.0f} ms")

# ---- a silent rank is flagged while the others keep logging ----
lv = Live("--settle", "0.5")
lv.send("".join(f"{host(r, 200 + r)} [{r % 2}] NCCL INFO Bootstrap : Using eth0:10.0.0.{11 + r // 2}<0>\n" for r in range(4)))
flagged = None
t0 = time.monotonic()
while time.monotonic() - t0 < 6 and flagged is None:
    lv.send("".join(f"{host(r, 200 + r)} [{r % 2}] NCCL INFO Channel 00/0 : {r}[0] -> {(r + 1) % 4}[0] via P2P/IPC\n"
                    for r in (0, 1, 3)))
    time.sleep(0.2)
    flagged, ev = lv.wait_for(lambda e: e.get("id") == "rank-silent", 0.01)
check(flagged is not None and ev["hosts"] == ["node-b"], f"rank-silent while others log: {ev}")
check(ev is not None and ev["evidence"] and "node-b:202:202" in ev["evidence"][0]["text"],
      f"rank-silent cites the silent rank's line: {ev and ev['evidence']}")
check(ev is not None and "last heard at <stdin>:" in ev["message"], f"and says where it was last heard: {ev and ev['message']}")
lv.close()

# ---- --settle SECS is the silence that counts, not a multiple of it ----
lv = Live("--settle", "3")
lv.send("".join(f"{host(r, 300 + r)} [{r % 2}] NCCL INFO Bootstrap : Using eth0:10.0.0.{11 + r // 2}<0>\n" for r in range(4)))
quiet_since = time.monotonic()
flagged = None
while time.monotonic() - quiet_since < 20 and flagged is None:
    lv.send("".join(f"{host(r, 300 + r)} [{r % 2}] NCCL INFO Channel 00/0 : {r}[0] -> {(r + 1) % 4}[0] via P2P/IPC\n"
                    for r in (0, 1, 3)))
    time.sleep(0.2)
    flagged, ev = lv.wait_for(lambda e: e.get("id") == "rank-silent", 0.01)
after = flagged - quiet_since if flagged else None
check(after is not None and 3 <= after < 12, f"--settle 3: silence counts after 3 s, not 12: {after}")
lv.close()

# ---- the same bytes give the same ids as analyze ----
samples = os.path.join(ROOT, "samples")
for name in sorted(os.listdir(samples)):
    d = os.path.join(samples, name)
    if not os.path.isdir(d) or all(f.endswith(".json") for f in os.listdir(d)):
        continue  # doctor reports are compared, not analyzed
    # a compressed sample is fed as its text: the same bytes to both
    data = b"".join(gzip.decompress(open(os.path.join(d, f), "rb").read()) if f.endswith(".gz")
                    else open(os.path.join(d, f), "rb").read() + b"\n" for f in sorted(os.listdir(d)))
    a = subprocess.run([BIN, "analyze", "--format", "json", "-"], input=data, capture_output=True)
    l = subprocess.run([BIN, "live", "--no-tui", "--format", "json"], input=data, capture_output=True)
    ids_a = sorted({f["id"] for f in json.loads(a.stdout)["findings"]})
    events = [json.loads(x) for x in l.stdout.splitlines()]
    ids_l = sorted({e["id"] for e in events if e.get("event") != "end"})
    check(ids_a == ids_l, f"{name}: live {ids_l} != analyze {ids_a}")
    check(a.returncode == l.returncode, f"{name}: exit {l.returncode} != {a.returncode}")
    end = events[-1] if events else {}
    doc = json.loads(a.stdout)
    sev = [f["severity"] for f in doc["findings"]]
    check(end.get("event") == "end" and end.get("status") == l.returncode and end.get("interrupted") is False,
          f"{name}: the end event says the exit status: {end}")
    check((end.get("errors"), end.get("warnings"), end.get("info"), end.get("findings")) ==
          (sev.count("error"), sev.count("warning"), sev.count("info"), len(sev)),
          f"{name}: the end event's totals are analyze's: {end}")
    check(end.get("ranks_seen") == doc["job"]["ranks_seen"] and end.get("lines") == doc["inputs"][0]["lines"],
          f"{name}: the end event counts ranks and lines: {end}")

# ---- --follow: growth, truncation, rotation, a file that appears ----
tmp = tempfile.mkdtemp()
f1, f2 = os.path.join(tmp, "rank0.log"), os.path.join(tmp, "rank1.log")
open(f1, "w").write("node-a:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n")
p = subprocess.Popen([BIN, "live", "--no-tui", "--format", "json", "--follow", f1, f2],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
events = []
threading.Thread(target=lambda: [events.append(json.loads(x)) for x in p.stdout], daemon=True).start()


def seen(fid, timeout=3):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(e.get("id") == fid for e in events):
            return True
        time.sleep(0.02)
    return False


with open(f1, "a") as f:  # growth
    f.write("\nnode-a:1:2 [0] include/shm.h:48 NCCL WARN Error: failed to extend /dev/shm/nccl-a to 9637892 bytes\n")
check(seen("shm-too-small"), "follow: growth")
open(f1, "w").write("node-a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init START\n")  # truncation
with open(f1, "a") as f:
    f.write("node-a:1:1 [0] include/alloc.h:48 NCCL WARN Cuda failure 'out of memory'\n")
check(seen("cuda-oom"), "follow: truncation")
oom = [e for e in events if e.get("id") == "cuda-oom"][0]
check(oom["evidence"][0]["file"] == f1 + " (generation 2)", f"follow: evidence names the generation: {oom['evidence']}")
check(any(e.get("event") == "notice" and e["what"] == "truncated" and e["file"] == f1 and e["generation"] == 2
          for e in events), "follow: a notice says the file was truncated")
os.rename(f1, f1 + ".1")  # rotation
open(f1, "w").write("\nnode-a:1:3 [0] init.cc:1 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1000\n")
check(seen("duplicate-gpu"), "follow: rotation")
check(any(e.get("event") == "notice" and e["what"] == "rotated" and e["generation"] == 3 and
          e["input"] == f1 + " (generation 3)" for e in events), "follow: a notice says the file was rotated")
open(f2, "w").write("\nnode-b:2:2 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer 10.0.0.1<1> with error 12, opcode 0, len 0, vendor err 129\n")
check(seen("ib-completion-error"), "follow: a file that appears")
check(any(e.get("event") == "notice" and e["what"] == "appeared" and e["file"] == f2 and e["generation"] == 1
          for e in events), "follow: a notice says the file appeared")
ib = [e for e in events if e.get("id") == "ib-completion-error"][0]
check(ib["evidence"][0]["file"] == f2, f"follow: the first generation goes by the file's name: {ib['evidence']}")
p.send_signal(signal.SIGINT)
rc = p.wait(timeout=10)
check(rc == 130, f"SIGINT exits 130, got {rc}")
end = None
deadline = time.monotonic() + 5
while time.monotonic() < deadline and end is None:
    end = next((e for e in events if e.get("event") == "end"), None)
    time.sleep(0.02)
check(end is not None and end["status"] == 130 and end["interrupted"] is True,
      f"SIGINT: the end event says so, with the status: {end}")

# ---- --exec: once per new error finding, the finding on its stdin ----
job = b"".join(open(os.path.join(samples, "lightning-2node-docker0", f), "rb").read()
               for f in sorted(os.listdir(os.path.join(samples, "lightning-2node-docker0"))))
hookdir = tempfile.mkdtemp()
hook = os.path.join(hookdir, "hook.sh")
open(hook, "w").write('#!/bin/sh\ncat >"$0.$NCCLOG_FINDING_ID.json"\necho "hook $NCCLOG_FINDING_ID"\n')
os.chmod(hook, 0o755)
r = subprocess.run([BIN, "live", "--no-tui", "--format", "json", "--exec", hook], input=job, capture_output=True)
events = [json.loads(x) for x in r.stdout.splitlines()]
errors = sorted({e["id"] for e in events if e.get("severity") == "error"})
ran = sorted(f[len("hook.sh."):-len(".json")] for f in os.listdir(hookdir) if f.endswith(".json"))
check(ran == errors and errors, f"--exec: once per error finding: ran {ran}, errors {errors}")
for fid in ran:
    doc = json.load(open(os.path.join(hookdir, f"hook.sh.{fid}.json")))
    check(doc["id"] == fid and doc["severity"] == "error" and doc["evidence"], f"--exec: {fid} gets its finding as JSON")
check(r.stderr.decode().count("hook ") == len(ran) and b"hook " not in r.stdout,
      f"--exec: the command's output goes to stderr, not into the findings: {r.stderr[:200]}")
check(r.returncode == 1 and events[-1].get("exec") == {"run": len(ran), "failed": 0, "dropped": 0},
      f"--exec: counted in the end event: {events[-1]}")
# no shell: nothing is expanded; quotes group words
r = subprocess.run([BIN, "live", "--no-tui", "--exec", "printf '%s|' \"$HOME\" 'a b' c\\ d"], input=job,
                   capture_output=True)
check(b"$HOME|a b|c d|" in r.stderr, f"--exec: split like a shell, nothing expanded: {r.stderr[:200]}")
# failures are reported, never fatal
r = subprocess.run([BIN, "live", "--no-tui", "--format", "json", "--exec", "sh -c 'exit 3'"], input=job,
                   capture_output=True)
err = r.stderr.decode()
check("--exec for error[" in err and "sh exited with status 3" in err and r.returncode == 1,
      f"--exec: a failing command is reported, the status is analyze's: {r.returncode} {err[:200]}")
check(sorted({e["id"] for e in map(json.loads, r.stdout.splitlines()) if e.get("event") != "end"}) ==
      sorted({e["id"] for e in events if e.get("event") != "end"}), "--exec: its failure changes no finding")
r = subprocess.run([BIN, "live", "--no-tui", "--exec", os.path.join(hookdir, "missing")], input=job, capture_output=True)
check(b"cannot be run: No such file or directory" in r.stderr and r.returncode == 1,
      f"--exec: a command that does not exist: {r.stderr[:200]}")
t0 = time.monotonic()
r = subprocess.run([BIN, "live", "--no-tui", "--format", "json", "--exec-timeout", "0.5", "--exec", "sleep 600"],
                   input=job, capture_output=True, timeout=120)
check(b"sleep stopped after 0.5 s (--exec-timeout)" in r.stderr and time.monotonic() - t0 < 100,
      f"--exec: a command past its timeout is stopped: {r.stderr[:200]}")
check(json.loads(r.stdout.splitlines()[-1])["exec"]["failed"] == len(ran), "--exec: the stopped runs are counted")
for bad in (["--exec-timeout", "0"], ["--exec-timeout", "x"], ["--settle", "nan"]):
    r = subprocess.run([BIN, "live", *bad], input=b"", capture_output=True)
    check(r.returncode == 2 and r.stderr.count(b"\n") == 1 and b"takes seconds" in r.stderr,
          f"{bad}: one line and exit 2: {r.returncode} {r.stderr}")
r = subprocess.run([BIN, "live", "--exec", "'open"], input=b"", capture_output=True)
check(r.returncode == 2 and b"--exec: the single quote is not closed" in r.stderr, f"--exec: bad quoting: {r.stderr}")

# ---- a reader that goes away: quiet exit ----
p = subprocess.Popen(f"yes 'node-a:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>' | head -c 2000000 | {BIN} live --no-tui | head -c 10 >/dev/null",
                     shell=True, stderr=subprocess.PIPE)
_, err = p.communicate(timeout=60)
check(not err, f"closed reader: quiet, got {err[:200]}")

print(f"live: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
