#!/usr/bin/env python3
"""Tests of `ncclog live` in pipe mode, fed by this script in stages.

- Every finding is printed before the input ends, within 200 ms of the line
  that triggers it.
- A rank that goes silent while the others keep logging is flagged.
- Fed the same bytes, live and analyze report the same finding ids (every
  sample).
- --follow follows growth, truncation, rotation and a file that appears.
- SIGINT exits 130; a closed reader ends it quietly.

usage: live.py NCCLOG SOURCE_ROOT
"""
import json, os, select, signal, subprocess, sys, tempfile, threading, time

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
lv.close()

# ---- the same bytes give the same ids as analyze ----
samples = os.path.join(ROOT, "samples")
for name in sorted(os.listdir(samples)):
    d = os.path.join(samples, name)
    if not os.path.isdir(d) or all(f.endswith(".json") for f in os.listdir(d)):
        continue  # doctor reports are compared, not analyzed
    data = b"".join(open(os.path.join(d, f), "rb").read() + b"\n" for f in sorted(os.listdir(d)))
    a = subprocess.run([BIN, "analyze", "--format", "json", "-"], input=data, capture_output=True)
    l = subprocess.run([BIN, "live", "--no-tui", "--format", "json"], input=data, capture_output=True)
    ids_a = sorted({f["id"] for f in json.loads(a.stdout)["findings"]})
    ids_l = sorted({json.loads(x)["id"] for x in l.stdout.splitlines() if b'"event":"end"' not in x})
    check(ids_a == ids_l, f"{name}: live {ids_l} != analyze {ids_a}")
    check(a.returncode == l.returncode, f"{name}: exit {l.returncode} != {a.returncode}")

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
os.rename(f1, f1 + ".1")  # rotation
open(f1, "w").write("\nnode-a:1:3 [0] init.cc:1 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1000\n")
check(seen("duplicate-gpu"), "follow: rotation")
open(f2, "w").write("\nnode-b:2:2 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer 10.0.0.1<1> with error 12, opcode 0, len 0, vendor err 129\n")
check(seen("ib-completion-error"), "follow: a file that appears")
p.send_signal(signal.SIGINT)
rc = p.wait(timeout=10)
check(rc == 130, f"SIGINT exits 130, got {rc}")

# ---- a reader that goes away: quiet exit ----
p = subprocess.Popen(f"yes 'node-a:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>' | head -c 2000000 | {BIN} live --no-tui | head -c 10 >/dev/null",
                     shell=True, stderr=subprocess.PIPE)
_, err = p.communicate(timeout=60)
check(not err, f"closed reader: quiet, got {err[:200]}")

print(f"live: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
