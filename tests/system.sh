#!/usr/bin/env bash
# What a dead job leaves besides its logs, read with them: a kernel log with
# an Xid 79 on the host of ranks 8-15, a RAS JSON report with a missing
# rank and an nccl-tests run with wrong results, each tied to its rank and
# host; the verdict leads with the Xid and the other ranks' timeouts fold
# under it, on one thread or two. Then each kind alone and broken: one
# clear line on stderr, exit 2, the other inputs still analyzed.
# usage: system.sh NCCLOG SOURCE_ROOT
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
run() { "$bin" analyze "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
has() { if grep -qE -- "$1" "$tmp/out"; then ok; else fail "$2: no /$1/ in: $(head -c 600 "$tmp/out")"; fi; }
err_has() { if grep -qE -- "$1" "$tmp/err"; then ok; else fail "$2: no /$1/ on stderr: $(head -c 400 "$tmp/err")"; fi; }

s="$root/samples/dead-job-xid"
for jobs in 1 2; do
	run -j $jobs --format json "$s"/*
	[ $rc -eq 1 ] && ok || fail "-j $jobs: exit $rc"
	python3 - "$tmp/out" <<'PY' && ok || fail "-j $jobs: the Xid leads and the rest is tied to it"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["id"]: x for x in d["findings"]}
x = d["findings"][0]
assert d["verdict"]["root"] == "gpu-xid", d["verdict"]
assert x["id"] == "gpu-xid" and x["hosts"] == ["node-b"] and x["ranks"] == [8], x
assert "Xid 79" in x["message"] and "0000:07:00" in x["message"], x["message"]
assert x["evidence"][0]["file"].endswith("node-b-dmesg.txt"), x["evidence"]
assert "RESTART_BM" in x["hint"], x["hint"]
w = f["watchdog-timeout"]
assert w["caused_by"] == "gpu-xid" and 8 not in w["ranks"] and len(w["ranks"]) == 15, w
r = f["ras-rank-missing"]
assert r["caused_by"] == "gpu-xid" and r["ranks"] == [8] and r["hosts"] == ["node-b"], r
assert r["evidence"][0]["file"].endswith("ras-status.json") and r["evidence"][0]["line"] > 1, r["evidence"]
t = f["nccl-tests-wrong-results"]
assert t["caused_by"] == "gpu-xid" and t["hosts"] == ["node-a", "node-b"] and t["ranks"] == list(range(16)), t
assert "wrong elements" in t["message"], t["message"]
assert not [y for y in d["findings"] if y["caused_by"] is None and y["id"] != "gpu-xid" and y["severity"] == "error"], \
    "another error root"
PY
done
run "$s"/*
has '^verdict: Xid 79 \(GPU has fallen off the bus' "the text verdict leads with the Xid"
has '^    [^ ]+node-a.log:[0-9]+: error\[watchdog-timeout\]: ranks 0-7,9-15 timed out' "the timeouts fold under it"

# the Xid alone, with the logs: the bus joins the rank; without them, nothing to join
run "$s/node-b-dmesg.txt" "$s/node-a.log" "$s/node-b.log"
has 'error\[gpu-xid\]: Xid 79 .* on node-b, GPU 0000:07:00 of rank 8' "the dmesg file's name gives the host"
run "$s/node-b-dmesg.txt"
has 'error\[gpu-xid\]: Xid 79 \(GPU has fallen off the bus: the driver cannot reach it over PCIe\), GPU 0000:07:00$' "an Xid without a job"

# a monitor event that names a stuck process, joined by its pid and address to the rank the logs give it
printf '[2026-02-01 10:00:00] COMM_INIT_STUCK: Process 7716 on node 10.0.0.22 managing GPU 2 stuck in bootstrap for 300s\n' >"$tmp/monitor.txt"
run "$tmp/monitor.txt" "$root/samples/ras-peer-dead/node-b.log"
has 'error\[init-incomplete\]: RAS reports COMM_INIT_STUCK for process 7716 on node-b \(10\.0\.0\.22\), rank 6' "a stuck process's event"

# RAS JSON and nccl-tests JSON cut short, a RAS "report" that is not one: one line each, exit 2, the rest analyzed
head -c 2000 "$s/ras-status.json" >"$tmp/ras-cut.json"
head -c 700 "$root/samples/nccl-tests-wrong-results/ar-gpu-31.json" >"$tmp/nt-cut.json"
printf '{"nccl_version": "2.28.9", "cuda_runtime_version": 12090, "answer": 42}\n' >"$tmp/ras-odd.json"
run "$tmp/ras-cut.json" "$tmp/nt-cut.json" "$tmp/ras-odd.json" "$s/node-a.log"
[ $rc -eq 2 ] && ok || fail "broken reports: exit $rc"
err_has 'ras-cut\.json: not valid JSON at byte [0-9]+ \(a RAS report cut short\?\)' "a cut RAS report"
err_has 'nt-cut\.json: not valid JSON at byte [0-9]+ \(a nccl-tests report cut short\?\)' "a cut nccl-tests report"
err_has 'ras-odd\.json: JSON without "communicators" or "event": not a RAS report' "not a RAS report"
[ "$(wc -l <"$tmp/err")" -eq 3 ] && ok || fail "one line per broken input: $(cat "$tmp/err")"
has '^job: 8 of 16 ranks seen' "the log is still analyzed"

# hostile bytes in a kernel log and a RAS text report: no crash, no raw control bytes out
printf '[ 4711.232921] NVRM: Xid (PCI:0000:07:00): 79, \033[2J\033]0;x\007\001\000 GPU has fallen off the bus.\r\nDEAD\nProcess 12 on node \033[31m10.0.0.1 managing GPU 0\n' >"$tmp/hostile.txt"
printf 'Errors\n======\nDEAD\n' >"$tmp/ras-head.txt"
run "$tmp/ras-head.txt" "$tmp/hostile.txt"
[ $rc -le 1 ] && ok || fail "hostile system lines: exit $rc"
if LC_ALL=C grep -q "$(printf '\033')" "$tmp/out"; then fail "a raw escape byte reached the output"; else ok; fi

echo "system: $passed passed, $failed failed"
[ $failed -eq 0 ]
