#!/usr/bin/env bash
# `ncclog doctor` on this machine as it is: usage errors, the three formats,
# and --compare over hand-made node reports; then the libraries it finds
# (test libraries built here with $CC, the way the loader would find them),
# broken libraries, a fake /sys, /proc and /etc/hosts (NCCLOG_DOCTOR_ROOT),
# MASTER_ADDR. Contacts nothing.
# usage: doctor.sh NCCLOG SOURCE_ROOT
set -u
bin=$1
src=${2:-$(dirname "$0")/..}
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


# a report without the members of newer releases: nothing is claimed about them
node "$tmp/a.json" node-1 eth1 192.168.1.1 24
python3 - "$tmp/a.json" "$tmp/b.json" "$tmp/c.json" <<'PY'
import json, sys
for path, ver in zip(sys.argv[1:], ["2.21.5", "2.19.3", None]):
    d = json.load(open(path))
    if ver:
        d["node"]["nccl"] = {"version": ver, "path": "/opt/nccl/lib/libnccl.so.2"}
    json.dump(d, open(path, "w"), indent=2)
PY
expect 1 "compare: versions, one unknown" -- "$bin" doctor --compare --color never "$tmp/a.json" "$tmp/b.json" "$tmp/c.json"
contains "$out" "error[nccl-version-mismatch]: the nodes would load different NCCL versions: 2.21.5 on node-1; 2.19.3 on node-2 (unknown on node-3)" "versions with one unknown"
contains "$out" "NCCL 2.21.5" "evidence names the version"

# hostile reports: escape sequences in names, more of everything than a node has
python3 - "$tmp/a.json" "$tmp/evil.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = d["node"]
n["host"] = "node-\x1b[2J\x1b]0;owned\x07"
n["nccl"] = {"version": "2.\x1b[31m21.5", "path": "/x"}
n["peers"] = [{"host": f"peer{i}", "addr": f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}"} for i in range(60000)]
n["env"] = {f"NCCL_X{i}": "\x1b[1m" * 3 for i in range(60000)}
n["interfaces"] = n["interfaces"] * 20000
d["findings"] = [dict(d["findings"][0], message=f"m{i}", evidence=d["findings"][0]["evidence"] * 50) for i in range(8000)]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_any "$bin" doctor --compare --color never "$tmp/evil.json" "$tmp/b.json"
if printf '%s' "$out" | grep -q $'\x1b'; then fail "an escape sequence from a report reached the output"; else ok; fi
contains "$out" "node-\\x1b[2J" "escaped, not dropped"
expect_any "$bin" doctor --compare --format json "$tmp/evil.json" "$tmp/b.json"
if python3 -c 'import json, sys; json.load(sys.stdin)' <<<"$out"; then ok; else fail "compare of hostile reports: JSON"; fi

# ---- the NCCL a job would load
cc=${CC:-cc}
build() { # build OUT KIND FLAGS...: a test library from tests/doctor/lib/KIND.c
	local out=$1 kind=$2
	shift 2
	mkdir -p "$(dirname "$out")"
	# shellcheck disable=SC2086
	$cc -shared -fPIC -o "$out" "$src/tests/doctor/lib/$kind.c" "$@"
}
if ! command -v "${cc%% *}" >/dev/null; then
	echo "doctor_cli: no C compiler, the library cases are skipped"
	echo "doctor_cli: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi
build "$tmp/l1/libnccl.so.2" nccl -DCODE=22105 '-DVERSION="2.21.5"' '-DCUDA="12.4"'
build "$tmp/crash/libnccl.so.2" nccl -DCODE=22105 -DBROKEN=1
build "$tmp/hang/libnccl.so.2" nccl -DCODE=22105 -DBROKEN=2
build "$tmp/nosym/libnccl.so.2" nccl -DNOVERSION '-DVERSION="2.23.4"' '-DCUDA="12.6"'
build "$tmp/named/libnccl.so.2.18.1" nccl -DNOVERSION -DNOBANNER
ln -s libnccl.so.2.18.1 "$tmp/named/libnccl.so.2"
mkdir -p "$tmp/notelf" && echo '#!/bin/sh' >"$tmp/notelf/libnccl.so.2"
site=$tmp/venv/lib/python3.11/site-packages
build "$site/nvidia/nccl/lib/libnccl.so.2" nccl -DNOVERSION -DNOBANNER
mkdir -p "$site/nvidia_nccl_cu12-2.20.5.dist-info"
printf 'Metadata-Version: 2.1\nName: nvidia-nccl-cu12\nVersion: 2.20.5\n' >"$site/nvidia_nccl_cu12-2.20.5.dist-info/METADATA"
build "$tmp/pre/libnccl.so.2.19.3" nccl -DCODE=21903 '-DVERSION="2.19.3"' '-DCUDA="12.2"'
build "$tmp/cuda/libcuda.so.1" cuda -DDRIVER=11080
build "$tmp/net/libnccl-net-foo.so" net '-DNAME="FooNet"'
empty=$tmp/empty
mkdir -p "$empty/etc"
printf '127.0.0.1 localhost\n10.1.2.3 node-x\n' >"$empty/etc/hosts"
run() { expect_any env -i PATH="$PATH" NCCLOG_DOCTOR_ROOT="$empty" "$@"; } # run [VAR=VALUE...] NCCLOG ARGS...
json_ok() { # json_ok WHAT PYTHON [ARG...]: the program, over the report d (and sys.argv), must not fail
	local what=$1 prog=$2
	shift 2
	if printf '%s' "$out" | python3 -c "import json, sys; d = json.load(sys.stdin); n = d['node']
$prog" "$@"; then ok; else fail "$what"; fi
}

run "$bin" doctor --color never --gpus 0
contains "$out" "NCCL: none found (searched LD_PRELOAD, LD_LIBRARY_PATH, the nvidia/nccl/lib of Python environments" "none found"
contains "$out" "predicted for NCCL 2.30.7 (the latest known: no NCCL version found; --nccl-version or --nccl-lib to change)" "what it assumed"
run LD_LIBRARY_PATH="$tmp/none:$tmp/l1" "$bin" doctor --color never --gpus 0
contains "$out" "NCCL: $tmp/l1/libnccl.so.2, through LD_LIBRARY_PATH" "found through LD_LIBRARY_PATH"
contains "$out" "version 2.21.5, from ncclGetVersion(); built for CUDA 12.4" "version from ncclGetVersion"
contains "$out" "predicted for NCCL 2.21.5 (the NCCL found on this node)" "predicts for the NCCL found"
run LD_LIBRARY_PATH="$tmp/l1" "$bin" doctor --color never --gpus 0 --nccl-version 2.27.3
contains "$out" "predicted for NCCL 2.27.3 (--nccl-version)" "--nccl-version wins"
run LD_LIBRARY_PATH="$tmp/l1" "$bin" doctor --color never --gpus 0 --no-dlopen
contains "$out" "version 2.21.5, from the version string in the library; built for CUDA 12.4" "--no-dlopen reads the file"
run "$bin" doctor --color never --gpus 0 --nccl-lib "$tmp/l1"
contains "$out" "NCCL: $tmp/l1/libnccl.so.2, through --nccl-lib" "--nccl-lib DIR"
run "$bin" doctor --color never --gpus 0 --nccl-lib "$tmp/pre/libnccl.so.2.19.3"
contains "$out" "version 2.19.3, from ncclGetVersion(); built for CUDA 12.2" "--nccl-lib FILE"
expect 2 "--nccl-lib of nothing" -- "$bin" doctor --nccl-lib "$tmp/nothing"
one_line "--nccl-lib of nothing"
contains "$err" "doctor: --nccl-lib $tmp/nothing: No such file or directory" "--nccl-lib message"
run LD_LIBRARY_PATH="$tmp/crash" "$bin" doctor --color never --gpus 0
contains "$out" "not asked: loading it crashed (signal 11" "a library that crashes while loading"
contains "$out" "version 2.21.5, from the version string in the library" "still read from the file"
run LD_LIBRARY_PATH="$tmp/hang" "$bin" doctor --color never --gpus 0 --timeout 300
contains "$out" "not asked: loading it did not finish in 300 ms" "a library that never finishes loading"
run LD_LIBRARY_PATH="$tmp/nosym" "$bin" doctor --color never --gpus 0
contains "$out" "not asked: it exports no ncclGetVersion" "a library without ncclGetVersion"
contains "$out" "version 2.23.4, from the version string in the library; built for CUDA 12.6" "version string instead"
run LD_LIBRARY_PATH="$tmp/notelf" "$bin" doctor --color never --gpus 0
contains "$out" "not asked: the file is not an ELF file" "not a library"
contains "$out" "version unknown" "no version from a file that is no library"
run LD_LIBRARY_PATH="$tmp/named" "$bin" doctor --color never --gpus 0
contains "$out" "NCCL: $tmp/named/libnccl.so.2 -> $tmp/named/libnccl.so.2.18.1" "the link and its file"
contains "$out" "version 2.18.1, from the file name" "version from the file name"
run VIRTUAL_ENV="$tmp/venv" "$bin" doctor --color never --gpus 0
contains "$out" "NCCL: $site/nvidia/nccl/lib/libnccl.so.2, through a Python environment" "the wheel's NCCL"
contains "$out" "version 2.20.5, from the wheel's metadata" "version from the wheel"
contains "$out" "installed by the wheel nvidia_nccl_cu12-2.20.5.dist-info" "the wheel named"
run VIRTUAL_ENV="$tmp/venv" LD_LIBRARY_PATH="$tmp/l1" "$bin" doctor --color never --gpus 0
contains "$out" "NCCL: $tmp/l1/libnccl.so.2, through LD_LIBRARY_PATH" "LD_LIBRARY_PATH before the wheel (PyTorch's RUNPATH)"
contains "$out" "also found: $site/nvidia/nccl/lib/libnccl.so.2, through a Python environment: NCCL 2.20.5; the job loads the one above" "the other copy"
# (LD_PRELOAD loads the library into doctor too: a sanitizer build must be told that is fine)
run LD_PRELOAD="$tmp/pre/libnccl.so.2.19.3" ASAN_OPTIONS=verify_asan_link_order=0 LD_LIBRARY_PATH="$tmp/l1" "$bin" doctor --format json --gpus 0
json_ok "LD_PRELOAD first" '
assert n["nccl"]["found_through"] == "LD_PRELOAD" and n["nccl"]["version"] == "2.19.3", n["nccl"]
assert n["nccl"]["others"][0]["version"] == "2.21.5" and n["nccl_version"] == "2.19.3", n["nccl"]'

# the CUDA driver against the CUDA NCCL was built for: the finding and hint of analyze's
# check of cudaDriverVersion against "+cudaX.Y" ("the CUDA driver supports ...")
run LD_LIBRARY_PATH="$tmp/l1:$tmp/cuda" "$bin" doctor --format json --gpus 0
[ "$st" -eq 1 ] && ok || fail "an old driver: exit $st, want 1"
theirs=$("$bin" analyze --format json "$src/samples/cuda-driver-too-old/"* | python3 -c '
import json, sys
print([f for f in json.load(sys.stdin)["findings"]
       if f["id"] == "cuda-driver-too-old" and "the CUDA driver supports" in f["message"]][0]["hint"])')
json_ok "cuda-driver-too-old as analyze says it" '
mine = [f for f in d["findings"] if f["id"] == "cuda-driver-too-old"][0]
assert mine["severity"] == "error" and mine["hint"] == sys.argv[1], (mine, sys.argv[1])
assert "the CUDA driver supports CUDA 11.8 but NCCL was built for CUDA 12.4" in mine["message"]
assert n["cuda_driver"]["cuda"] == "11.8" and n["cuda_driver"]["cuda_from"] == "cuDriverGetVersion"' "$theirs"

# the net plugin NCCL would open
run NCCL_NET_PLUGIN=foo "$bin" doctor --color never --gpus 0
contains "$out" "warning[net-plugin-error]" "a named plugin that is missing"
contains "$out" "net plugin: foo not found" "the plugin line"
run NCCL_NET_PLUGIN=foo LD_LIBRARY_PATH="$tmp/net" "$bin" doctor --color never --gpus 0
contains "$out" "net plugin: $tmp/net/libnccl-net-foo.so (\"FooNet\", ncclNetPlugin_v8), through LD_LIBRARY_PATH" "NAME finds libnccl-net-NAME.so"
contains "$out" "Using network FooNet" "the plugin's network"
run NCCL_NET_PLUGIN=none "$bin" doctor --color never --gpus 0
contains "$out" "net plugin: none (NCCL_NET_PLUGIN=none)" "no plugin on request"

# a node described by files: the driver by NVIDIA's table, RDMA ports and their GIDs
expect_any env -i PATH="$PATH" NCCLOG_DOCTOR_ROOT="$src/tests/doctor/roots/ib" "$bin" doctor --color never --gpus 0
contains "$out" "CUDA driver 535.104.05 supports CUDA 12.2 (/proc/driver/nvidia/version, by NVIDIA's table of minimum drivers)" "the driver from /proc"
contains "$out" "RDMA mlx5_0 port 1: ACTIVE, link layer InfiniBand, firmware 20.31.1014, 100 Gb/sec (4X EDR)" "an IB port"
expect_any env -i PATH="$PATH" NCCLOG_DOCTOR_ROOT="$src/tests/doctor/roots/roce" "$bin" doctor --color never --gpus 0 --nccl-version 2.19.3
contains "$out" "GID 3: ::ffff:192.168.90.2, RoCE v2, eth1" "the GID table"
contains "$out" "NCCL 2.19.3 uses GID 0 (fe80::e42:a1ff:fe6b:91c4, RoCE v1, eth1): the default before 2.21.5" "the GID NCCL uses"
contains "$out" "warning[ib-setup-failed]" "GID 0 while a RoCE v2 IPv4 GID exists"
expect_any env -i PATH="$PATH" NCCLOG_DOCTOR_ROOT="$src/tests/doctor/roots/roce" "$bin" doctor --color never --gpus 0 --nccl-version 2.21.5
contains "$out" "NCCL 2.21.5 uses GID 3 (::ffff:192.168.90.2, RoCE v2, eth1): its scan for an IPv4 RoCE v2 GID" "2.21.5 scans"

# names: this node's, a peer's from /etc/hosts, MASTER_ADDR
me=$(uname -n)
mkdir -p "$tmp/debian/etc"
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$me" >"$tmp/debian/etc/hosts"
expect_any env -i PATH="$PATH" NCCLOG_DOCTOR_ROOT="$tmp/debian" "$bin" doctor --color never --gpus 0
contains "$out" "warning[hostname-loopback]: on $me: this node's host name $me resolves to 127.0.1.1" "Debian's 127.0.1.1"
contains "$out" "replace line 2 of /etc/hosts with" "the line to change"
run "$bin" doctor --format json --gpus 0 --peer node-x
json_ok "a peer from /etc/hosts" '
p = n["peers"][0]
assert p["addr"] == "10.1.2.3" and p["hosts_line"] == 2, p'
run MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 "$bin" doctor --color never --gpus 0
contains "$out" "MASTER_ADDR=127.0.0.1 resolves to 127.0.0.1" "MASTER_ADDR in the names section"
contains "$out" "warning[hostname-loopback]" "MASTER_ADDR on loopback"
run MASTER_ADDR=10.1.2.3 MASTER_PORT=port "$bin" doctor --color never --gpus 0
[ "$st" -eq 1 ] && ok || fail "a bad MASTER_PORT: exit $st, want 1"
contains "$out" "error[bootstrap-connect-failed]: on $me: MASTER_PORT=port is not a port number" "a bad MASTER_PORT"
run MASTER_ADDR=nowhere.invalid "$bin" doctor --color never --gpus 0
contains "$out" "MASTER_ADDR=nowhere.invalid does not resolve" "an unresolvable MASTER_ADDR"
run MASTER_ADDR=10.1.2.3 MASTER_PORT=29500 LD_LIBRARY_PATH="$tmp/l1" "$bin" doctor --format json --gpus 0
json_ok "the JSON of the new facts" '
for k in ("nccl", "cuda_driver", "net_plugin", "hostname", "master", "nccl_version_from"):
    assert k in n, k
assert n["master"] == {"addr": "10.1.2.3", "port": "29500", "resolved": "10.1.2.3"}, n["master"]
assert [i["file"] for i in d["inputs"]][-2:] == ["doctor:libs", "doctor:names"], d["inputs"]
assert all("driver" in i and "mtu" in i for i in n["interfaces"])'
run "$bin" doctor --format markdown --gpus 0
contains "$out" "doctor:libs:1: NCCL: none found" "markdown: the libraries section"

echo "doctor_cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
