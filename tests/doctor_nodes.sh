#!/usr/bin/env bash
# `ncclog doctor` on several nodes, then `doctor --compare`: each node is a
# network namespace with its own host name (a UTS namespace), its own NCCL
# (a test libnccl.so.2 built here, on LD_LIBRARY_PATH) and its own /sys,
# /proc and /etc/hosts (a tree of tests/doctor/roots given as
# NCCLOG_DOCTOR_ROOT, so names resolve from that /etc/hosts alone). Every
# address exists only inside these namespaces; nothing is contacted.
# usage: doctor_nodes.sh NCCLOG SOURCE_ROOT [--save DIR]
#        exit 77 (skip) where namespaces are not permitted
# --save DIR writes the node reports of each scenario to DIR/NAME/ with the
# temporary paths replaced by /opt: how samples/doctor-* were made.
set -u
bin=$(readlink -f "$1")
src=$(readlink -f "$2")
save=
[ "${3:-}" = --save ] && save=$(readlink -f "$4")
cc=${CC:-cc}
ns_tag=ncn$$
# shellcheck source=tests/doctor_ns.sh
. "$src/tests/doctor_ns.sh"
command -v "${cc%% *}" >/dev/null || skip "no C compiler to build the test libraries"
unshare -u true 2>/dev/null || skip "UTS namespaces are not permitted here"

tmp=$(mktemp -d)
cleanup() {
	ns_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
link_up() { carrier "$1" "$2" || fail "$2 in $1 has no carrier after 10 s"; }

# lib DIR KIND [-DNAME=VALUE...]: builds tests/doctor/lib/KIND.c as the library NCCL's users load
lib() {
	local dir=$1 kind=$2 name
	shift 2
	case $kind in
	nccl) name=libnccl.so.2 ;;
	cuda) name=libcuda.so.1 ;;
	net) name=libnccl-net.so ;;
	esac
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	$cc -shared -fPIC -o "$dir/$name" "$src/tests/doctor/lib/$kind.c" "$@" || skip "cannot build the test $kind library"
}

# node NS HOST ROOT LIBDIR OUT [VAR=VALUE...] -- [ARGS...]: doctor --format json on node HOST
node() {
	local ns=$1 host=$2 root=$3 libs=$4 out=$5 vars=()
	shift 5
	while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	inns "$ns" unshare -u sh -c 'hostname "$0" && exec "$@"' "$host" \
		env -i PATH="$PATH" NCCLOG_DOCTOR_ROOT="$root" LD_LIBRARY_PATH="$libs" \
		${NCCLOG_RULES_DIR:+NCCLOG_RULES_DIR=$NCCLOG_RULES_DIR} "${vars[@]}" \
		"$bin" doctor --format json --gpus 0 "$@" >"$out" 2>"$tmp/err"
	rc=$?
	[ $rc -le 1 ] || fail "doctor on $host: exit $rc: $(cat "$tmp/err")"
}

# check WHAT FILE PYTHON-EXPR...: each expression over d (the JSON document) must hold
check() {
	local what=$1 file=$2
	shift 2
	if python3 - "$file" "$@" <<'PY'; then ok; else fail "$what"; fi
import json, sys
d = json.load(open(sys.argv[1]))
ids = {f["id"]: f for f in d["findings"]}
for expr in sys.argv[2:]:
    if not eval(expr):
        print(f"  not true: {expr}")
        print("  findings:", json.dumps([(f["severity"], f["id"], f["message"]) for f in d["findings"]], indent=1)[:3000])
        sys.exit(1)
PY
}

# keep FILE NAME: the report as a sample, with the temporary paths made stable
keep() {
	[ -n "$save" ] || return 0
	mkdir -p "$save/$2"
	sed "s|$tmp|/opt|g" "$1" >"$save/$2/$(basename "$1")"
}

lib "$tmp/nccl-2.21.5" nccl -DCODE=22105 '-DVERSION="2.21.5"' '-DCUDA="12.4"'
lib "$tmp/nccl-2.19.3" nccl -DCODE=21903 '-DVERSION="2.19.3"' '-DCUDA="12.2"'

# ---- the usual pre-flight failure: two nodes, one link, NCCL 2.21.5 and 2.19.3, MTU 9000 and 1500
mkns a
mkns b
inns a ip link add eth1 type veth peer name eth1 netns "$(nsref b)" || skip "cannot create veth pairs"
inns a ip addr add 192.168.90.1/24 dev eth1
inns b ip addr add 192.168.90.2/24 dev eth1
inns a ip link set eth1 mtu 9000 up
inns b ip link set eth1 mtu 1500 up
link_up a eth1
link_up b eth1
plain=$src/tests/doctor/roots/plain
node a node-a "$plain" "$tmp/nccl-2.21.5" "$tmp/node-a.json" -- --peer node-b
node b node-b "$plain" "$tmp/nccl-2.19.3" "$tmp/node-b.json" -- --peer node-a
check "node-a names the NCCL it found" "$tmp/node-a.json" \
	'd["node"]["nccl"]["version"] == "2.21.5" and d["node"]["nccl"]["version_from"] == "ncclGetVersion"' \
	'd["node"]["nccl"]["found_through"] == "LD_LIBRARY_PATH" and d["node"]["nccl"]["cuda"] == "12.4"' \
	'd["node"]["nccl_version"] == "2.21.5" and d["node"]["nccl_version_from"] == "library"' \
	'd["node"]["bootstrap"]["name"] == "eth1" and d["node"]["bootstrap"]["mtu"] == 9000' \
	'd["node"]["host"] == "node-a" and d["node"]["peers"][0]["addr"] == "192.168.90.2"' \
	'd["node"]["peers"][0]["hosts_line"] == 3 and d["node"]["hostname"]["iface"] == "eth1"'
check "node-b: 2.19.3, MTU 1500" "$tmp/node-b.json" \
	'd["node"]["nccl"]["version"] == "2.19.3" and d["node"]["bootstrap"]["mtu"] == 1500'
keep "$tmp/node-a.json" doctor-version-mtu
keep "$tmp/node-b.json" doctor-version-mtu
"$bin" doctor --compare --format json "$tmp/node-a.json" "$tmp/node-b.json" >"$tmp/cmp.json" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && ok || fail "compare: exit $rc, want 1: $(cat "$tmp/err")"
check "compare: the version and the MTU mismatch, with the hosts" "$tmp/cmp.json" \
	'ids["nccl-version-mismatch"]["severity"] == "error"' \
	'ids["nccl-version-mismatch"]["message"] == "the nodes would load different NCCL versions: 2.21.5 on node-a; 2.19.3 on node-b"' \
	'set(ids["nccl-version-mismatch"]["hosts"]) == {"node-a", "node-b"}' \
	'ids["net-mtu-mismatch"]["message"] == "the interfaces NCCL would use have different MTUs: 9000 on node-a; 1500 on node-b"' \
	'set(ids["net-mtu-mismatch"]["hosts"]) == {"node-a", "node-b"} and "eth1" in ids["net-mtu-mismatch"]["hint"]' \
	'all(e["file"].endswith(".json") and e["line"] > 0 for e in ids["net-mtu-mismatch"]["evidence"])' \
	'{f["id"] for f in d["findings"] if f["severity"] == "error"} == {"nccl-version-mismatch"}'
"$bin" doctor --compare --color never "$tmp/node-a.json" "$tmp/node-b.json" >"$tmp/cmp.txt" 2>&1
grep -q "error\[nccl-version-mismatch\]: the nodes would load different NCCL versions: 2.21.5 on node-a; 2.19.3 on node-b" "$tmp/cmp.txt" && ok ||
	fail "compare text: $(cat "$tmp/cmp.txt")"

# ---- everything else that can differ: CUDA drivers, RDMA link layers and firmware, a net
# plugin on one node, a name resolving differently; and the node facts behind them
lib "$tmp/a-libs" net '-DNAME="TestNet"'
lib "$tmp/b-libs" cuda -DDRIVER=12040
cp "$tmp/nccl-2.21.5/libnccl.so.2" "$tmp/a-libs/"
cp "$tmp/nccl-2.19.3/libnccl.so.2" "$tmp/b-libs/"
inns b ip link set eth1 mtu 9000
link_up b eth1
roots=$src/tests/doctor/roots
node a node-a "$roots/ib" "$tmp/a-libs" "$tmp/node-a.json" -- --peer node-b --peer storage
node b node-b "$roots/roce" "$tmp/b-libs" "$tmp/node-b.json" -- --peer node-a --peer storage
check "node-a: the plugin, the driver by NVIDIA's table, NCCL built for a newer CUDA" "$tmp/node-a.json" \
	'd["node"]["net_plugin"]["name"] == "TestNet" and d["node"]["net"] == "TestNet"' \
	'd["node"]["cuda_driver"]["kernel_module"] == "535.104.05" and d["node"]["cuda_driver"]["cuda"] == "12.2"' \
	'ids["cuda-driver-too-old"]["severity"] == "warning"' \
	'ids["cuda-driver-too-old"]["message"].endswith("the CUDA driver supports CUDA 12.2 but NCCL was built for CUDA 12.4 (minor-version compatibility covers most, not all, of the CUDA API)")' \
	'ids["cuda-driver-too-old"]["hint"] == "upgrade the NVIDIA driver, or use a PyTorch/NCCL build for the CUDA version that `nvidia-smi` reports"' \
	'd["node"]["rdma"][0]["firmware"] == "20.31.1014" and d["node"]["rdma"][0]["link_layer"] == "InfiniBand"'
check "node-b: libcuda asked, the Debian 127.0.1.1 line, RoCE GID 0 before 2.21.5" "$tmp/node-b.json" \
	'd["node"]["cuda_driver"]["cuda"] == "12.4" and d["node"]["cuda_driver"]["cuda_from"] == "cuDriverGetVersion"' \
	'd["node"]["cuda_driver"]["kernel_module"] == "550.54.14"' \
	'd["node"]["hostname"]["addrs"] == ["127.0.1.1"] and d["node"]["hostname"]["hosts_line"] == 2' \
	'ids["hostname-loopback"]["severity"] == "warning" and "192.168.90.2 node-b" in ids["hostname-loopback"]["hint"]' \
	'd["node"]["rdma"][0]["gid_used"] == 0 and ids["ib-setup-failed"]["severity"] == "warning"' \
	'"GID 3" in ids["ib-setup-failed"]["message"] and "NCCL_IB_GID_INDEX=3" in ids["ib-setup-failed"]["hint"]' \
	'"cuda-driver-too-old" not in ids'
keep "$tmp/node-a.json" doctor-fabric
keep "$tmp/node-b.json" doctor-fabric
"$bin" doctor --compare --format json "$tmp/node-a.json" "$tmp/node-b.json" >"$tmp/cmp.json" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && ok || fail "compare 2: exit $rc, want 1: $(cat "$tmp/err")"
check "compare: drivers, link layers, firmware, plugin, names" "$tmp/cmp.json" \
	'ids["cuda-driver-mismatch"]["message"] == "the nodes have different CUDA drivers: 535.104.05 (CUDA 12.2) on node-a; 550.54.14 (CUDA 12.4) on node-b"' \
	'any(f["id"] == "net-nic-mismatch" and f["severity"] == "error" and "InfiniBand" in f["message"] and "RoCE" in f["message"] for f in d["findings"])' \
	'any(f["id"] == "net-nic-mismatch" and "20.31.1014" in f["message"] and "22.36.1010" in f["message"] for f in d["findings"])' \
	'ids["net-plugin-mismatch"]["severity"] == "error" and ids["net-plugin-mismatch"]["message"] == "the nodes would load different net plugins: TestNet on node-a; none on node-b"' \
	'"transport-mismatch" not in ids and "net-mtu-mismatch" not in ids' \
	'ids["hostname-mismatch"]["message"] == "storage resolves to 192.168.90.50 on node-a, 192.168.90.51 on node-b"' \
	'"hostname-loopback" in ids and "ib-setup-failed" in ids and "nccl-version-mismatch" in ids'

# ---- NCCL's interfaces with different drivers: a veth on one node, a bridge (with a port,
# so that it has a carrier) on the other
mkns c
inns c ip link add eth2 type bridge || skip "cannot create bridges"
inns c ip link add vc0 mtu 9000 type veth peer name vc1
inns c ip link set vc0 master eth2
inns c ip link set vc0 up
inns c ip link set vc1 up
inns c ip addr add 192.168.90.3/24 dev eth2
inns c ip link set eth2 mtu 9000 up
link_up c eth2
node a node-a "$plain" "$tmp/nccl-2.21.5" "$tmp/node-a.json" NCCL_SOCKET_IFNAME==eth1 --
node c node-c "$plain" "$tmp/nccl-2.21.5" "$tmp/node-c.json" NCCL_SOCKET_IFNAME==eth2 --
check "ethtool -i of a veth" "$tmp/node-a.json" 'd["node"]["bootstrap"]["driver"] == "veth"'
keep "$tmp/node-a.json" doctor-nic-driver
keep "$tmp/node-c.json" doctor-nic-driver
"$bin" doctor --compare --format json "$tmp/node-a.json" "$tmp/node-c.json" >"$tmp/cmp.json" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || fail "compare 3: exit $rc, want 0 (warnings only): $(cat "$tmp/err")"
check "compare: NIC drivers differ" "$tmp/cmp.json" \
	'ids["net-nic-mismatch"]["severity"] == "warning" and "veth" in ids["net-nic-mismatch"]["message"] and "bridge" in ids["net-nic-mismatch"]["message"]' \
	'ids["net-nic-mismatch"]["message"].startswith("the interfaces NCCL would use have different drivers: veth 1.0 on node-a; bridge ")' \
	'"nccl-version-mismatch" not in ids and "net-mtu-mismatch" not in ids and "hostname-mismatch" not in ids' \
	'"socket-env-inconsistent" in ids'

echo "doctor_nodes ($mode): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
