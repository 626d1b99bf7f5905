#!/usr/bin/env bash
# `ncclog doctor` on this machine as it is: usage errors, the three formats,
# and --compare over hand-made node reports. Contacts nothing.
# usage: doctor.sh NCCLOG
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
expect() { # expect STATUS WHAT -- CMD...
	local want=$1 what=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	if [ "$got" -eq "$want" ]; then ok; else fail "$what: exit $got, want $want; stderr: $err"; fi
}
contains() { if grep -qF -- "$2" <<<"$1"; then ok; else fail "$3: no '$2' in: ${1:0:400}"; fi; }
one_line() { if [ "$(wc -l <"$tmp/err")" -eq 1 ]; then ok; else fail "$1: stderr has $(wc -l <"$tmp/err") lines"; fi; }

expect 0 "help" -- "$bin" doctor --help
contains "$out" "--peer HOST[:PORT]" "help lists --peer"
contains "$out" "exit status" "help documents exit codes"
expect 0 "top-level help" -- "$bin" --help
contains "$out" "doctor" "top-level help lists doctor"
expect 2 "unknown option" -- "$bin" doctor --frob
one_line "unknown option"
expect 2 "bad format" -- "$bin" doctor --format xml
contains "$err" "unknown format 'xml'" "bad format"
expect 2 "bad gpus" -- "$bin" doctor --gpus many
one_line "bad gpus"
expect 2 "bad version" -- "$bin" doctor --nccl-version 2.x
expect 2 "bad peer port" -- "$bin" doctor --peer host:99999
contains "$err" "port must be a number" "bad peer port"
expect 2 "missing peers file" -- "$bin" doctor --peers "$tmp/none"
one_line "missing peers file"
expect 2 "stray argument" -- "$bin" doctor rank0.log
expect 2 "compare without files" -- "$bin" doctor --compare

# this machine: whatever it has, the formats hold and the exit code follows the findings
env -i PATH="$PATH" "$bin" doctor --format json --gpus 0 >"$tmp/me.json" 2>"$tmp/err"
st=$?
if [ $st -le 1 ]; then ok; else fail "doctor json: exit $st: $(cat "$tmp/err")"; fi
if python3 - "$tmp/me.json" $st <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("tool", "version", "inputs", "job", "ranks", "findings", "node"):
    assert k in d, k
n = d["node"]
assert n["interfaces"] and "bootstrap" in n and "net_socket" in n, n.keys()
assert [i["file"] for i in d["inputs"]][:2] == ["doctor:ifaces", "doctor:nccl"]
errors = any(f["severity"] == "error" for f in d["findings"])
assert errors == (sys.argv[2] == "1"), (errors, sys.argv[2])
for f in d["findings"]:
    assert f["severity"] in ("error", "warning", "info") and f["evidence"], f
PY
then ok; else fail "doctor json contract"; fi
expect_any() { "$@" >"$tmp/out" 2>"$tmp/err"; st=$?; out=$(cat "$tmp/out"); [ $st -le 1 ] && ok || fail "$*: exit $st"; }
expect_any env -i PATH="$PATH" "$bin" doctor --color never
contains "$out" "network interfaces, in kernel order (doctor:ifaces)" "text sections"
contains "$out" "Bootstrap: " "text prediction"
expect_any env -i PATH="$PATH" "$bin" doctor --format markdown
contains "$out" "## ncclog report" "markdown report"
contains "$out" "doctor:nccl:2: Bootstrap" "markdown node section"
expect_any env -i PATH="$PATH" NCCL_P2P_DISABLE=1 NCCL_SOCKET_IFNAME=x "$bin" doctor --color never
contains "$out" "warning[env-override]" "risky variable"
contains "$out" "NCCL_SOCKET_IFNAME=x is ignored" "one-character value"

# --compare over made-up reports of three nodes
node() { # node FILE HOST IFACE ADDR PREFIX [ENV-JSON]
	cat >"$1" <<JSON
{"tool": "ncclog", "findings": [
  {"id": "shm-too-small", "severity": "error", "title": "t", "message": "on $2: /dev/shm has 64.0 MiB in all",
   "hint": "h", "evidence": [{"file": "doctor:node", "line": 3, "text": "/dev/shm: 64.0 MiB"}]}],
 "node": {"host": "$2", "net": "Socket",
  "interfaces": [{"name": "lo", "family": "inet", "addr": "127.0.0.1", "prefix": 8, "running": true, "kind": "loopback"},
                 {"name": "docker0", "family": "inet", "addr": "172.17.0.1", "prefix": 16, "running": true, "kind": "virtual"},
                 {"name": "eth1", "family": "inet", "addr": "192.168.1.${2: -1}", "prefix": 24, "running": true, "kind": "routable"}],
  "bootstrap": {"name": "$3", "family": "inet", "addr": "$4", "prefix": $5, "kind": "routable"},
  "env": ${6:-{\}}}}
JSON
}
node "$tmp/a.json" node-1 eth1 192.168.1.1 24
node "$tmp/b.json" node-2 eth1 192.168.1.2 24
node "$tmp/c.json" node-3 docker0 172.17.0.1 16 '{"NCCL_SOCKET_IFNAME": "docker"}'
expect 1 "compare: mismatch" -- "$bin" doctor --compare --color never "$tmp/a.json" "$tmp/b.json" "$tmp/c.json"
contains "$out" "error[socket-iface-mismatch]: node-1, node-2 would bootstrap over eth1 (192.168.1.1, subnet 192.168.1.0/24); node-3 would bootstrap over docker0" "mismatch message"
contains "$out" "help: export NCCL_SOCKET_IFNAME=eth1 on every node (present on all 3 hosts, subnet 192.168.1.0/24" "mismatch hint skips docker0"
contains "$out" "on node-1, node-2, node-3: /dev/shm has 64.0 MiB in all" "node findings folded across nodes"
contains "$out" "NCCL_SOCKET_IFNAME is set on some hosts but not on node-1, node-2" "env inconsistent"
expect 1 "compare: json" -- "$bin" doctor --compare --format json "$tmp/a.json" "$tmp/c.json"
if python3 -c 'import json,sys; d=json.load(sys.stdin); assert {"socket-iface-mismatch","shm-too-small"} <= {f["id"] for f in d["findings"]}' <"$tmp/out"; then ok; else fail "compare json"; fi
node "$tmp/c.json" node-3 eth1 192.168.1.3 24
sed -i 's/"severity": "error"/"severity": "warning"/' "$tmp/a.json" "$tmp/b.json" "$tmp/c.json"
expect 0 "compare: one subnet" -- "$bin" doctor --compare "$tmp/a.json" "$tmp/b.json" "$tmp/c.json"
expect 0 "compare: same host twice" -- "$bin" doctor --compare --color never "$tmp/a.json" "$tmp/a.json" "$tmp/c.json"
contains "$out" "warning[duplicate-hostname]" "same host twice"
echo '{"tool": "ncclog"}' >"$tmp/bad.json"
expect 2 "compare: not a doctor report" -- "$bin" doctor --compare "$tmp/bad.json" "$tmp/a.json"
contains "$err" "not the output of 'ncclog doctor --format json'" "bad report message"
expect 2 "compare: missing file" -- "$bin" doctor --compare "$tmp/none.json"

echo "doctor_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
