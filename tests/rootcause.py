#!/usr/bin/env python3
"""The root cause leads on a generated 64-rank job: one rank stops in init
(topology phase) while the others complete it and time out in their first
collective. The first finding is that rank's init-incomplete, the
timeouts are its consequences, no performance finding is anyone's cause,
and the verdict names the rank, its host and its last phase.
usage: rootcause.py NCCLOG SOURCE_ROOT
"""
import json, os, subprocess, sys, tempfile

ncclog, root = sys.argv[1:3]
failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL: {msg}")


tmp = tempfile.mkdtemp(prefix="ncclog-root.")
job = os.path.join(tmp, "job")
subprocess.run([sys.executable, os.path.join(root, "bench", "gen.py"), job, "--ranks", "64", "--size", "1M",
                "--fault", "init-hang"], check=True)
files = sorted(os.path.join(job, f) for f in os.listdir(job))
p = subprocess.run([ncclog, "analyze", "-f", "json", *files], capture_output=True)
if p.returncode != 1:
    fail(f"exit {p.returncode}, want 1: {p.stderr.decode(errors='replace')}")
doc = json.loads(p.stdout)
fs = doc["findings"]
first = fs[0] if fs else {}
# gen.py stops rank ranks // 3 = 21, on its third host
if first.get("id") != "init-incomplete" or first.get("ranks") != [21]:
    fail(f"first finding {first.get('id')} ranks {first.get('ranks')}, want init-incomplete of rank 21")
wd = [f for f in fs if f["id"] == "watchdog-timeout"]
if not wd or any(f.get("caused_by") != "init-incomplete" for f in wd):
    fail(f"the watchdog timeouts are not consequences of init-incomplete: {[(f['id'], f.get('caused_by')) for f in wd]}")
kinds = {f["id"]: f.get("kind") for f in fs}
for f in fs:
    if f.get("caused_by") and kinds.get(f["caused_by"]) == "performance":
        fail(f"{f['id']} is said to be caused by the performance finding {f['caused_by']}")
v = doc.get("verdict", {}).get("text", "")
for word in ("rank 21", "gpu-node-0002", "topology"):
    if word not in v:
        fail(f"the verdict does not name {word!r}: {v!r}")
text = subprocess.run([ncclog, "analyze", "--color", "never", *files], capture_output=True).stdout.decode()
if not text.startswith("verdict: rank 21 on gpu-node-0002"):
    fail(f"the text report does not lead with the rank: {text[:120]!r}")
subprocess.run(["rm", "-rf", tmp])
print(f"rootcause: {'ok' if not failures else f'{len(failures)} failures'}")
sys.exit(1 if failures else 0)
