#!/usr/bin/env bash
# `ncclog doctor` over real interfaces: builds them in network namespaces it
# creates (veth pairs and bridges renamed eth1, docker0, ib0, veth..., virbr0),
# then checks the predicted bootstrap and NET/Socket interfaces for every form
# of NCCL_SOCKET_IFNAME, the default order and NCCL_COMM_ID, peers and
# --compare. Every address used exists only inside these namespaces.
# usage: doctor_netns.sh NCCLOG          exit 77 (skip) where namespaces are not permitted
set -u
bin=$(readlink -f "$1")
ns_tag=ncd$$
# shellcheck source=tests/doctor_ns.sh
. "$(dirname "$0")/doctor_ns.sh"

tmp=$(mktemp -d)
# the node's files: an empty tree, so that no NCCL installed here changes the
# prediction (every case is for the latest NCCL unless it names a version)
root=$tmp/root
mkdir -p "$root/etc"
cleanup() {
	ns_cleanup
	[ -n "${listener:-}" ] && rm -f "$tmp/listening" && wait "$listener"
	rm -rf "$tmp"
}
trap cleanup EXIT

# link NS NAME CIDR PEERNAME [down]: a veth NAME in NS whose other end is in
# the peer namespace (down: that end stays down, so NAME has no carrier)
link() {
	inns "$1" ip link add "$2" type veth peer name "$4" netns "$(nsref peer)" || skip "cannot create veth pairs"
	[ "$3" != - ] && inns "$1" ip addr add "$3" dev "$2"
	inns "$1" ip link set "$2" up
	[ "${5:-}" = down ] || inns peer ip link set "$4" up
}
# bridge NS NAME CIDR PORTPEER: a bridge with one veth port, so it has a carrier
bridge() {
	inns "$1" ip link add "$2" type bridge || skip "cannot create bridges"
	inns "$1" ip addr add "$3" dev "$2"
	inns "$1" ip link add "veth$4" type veth peer name "$4" netns "$(nsref peer)"
	inns "$1" ip link set "veth$4" master "$2"
	inns "$1" ip link set "veth$4" up
	inns peer ip link set "$4" up
	inns "$1" ip link set "$2" up
}
wait_carrier() { carrier "$1" "$2" || echo "note: $2 has no carrier after 10 s"; }

passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# doctor NS [VAR=VALUE...] -- [ARGS...]: runs doctor --format json in NS with
# only the given variables, into $tmp/out.json; sets $rc
doctor() {
	local ns=$1 vars=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	inns "$ns" env -i PATH="$PATH" NCCLOG_DOCTOR_ROOT="$root" ${NCCLOG_RULES_DIR:+NCCLOG_RULES_DIR=$NCCLOG_RULES_DIR} "${vars[@]}" \
		"$bin" doctor --format json --gpus 0 "$@" >"$tmp/out.json" 2>"$tmp/err"
	rc=$?
}
# expect WHAT BOOT SOCKET [rc=N] [ID | !ID]... -- NS [VAR=VALUE...] -- [ARGS...]
# (ID is s:id with s the severity's initial). The JSON outputs are checked
# together at the end: one python3 start instead of one per case.
ncases=0
expect() {
	local what=$1 boot=$2 sock=$3
	shift 3
	local ids=()
	while [ "$1" != -- ]; do ids+=("$1"); shift; done
	shift
	doctor "$@"
	ncases=$((ncases + 1))
	cp "$tmp/out.json" "$tmp/case$ncases.json"
	printf '%s\t%s\t%s\t%s\t%s\n' "$ncases" "$what" "$boot" "$sock" "${ids[*]}" >>"$tmp/cases"
	for id in "${ids[@]}"; do
		case $id in
		rc=*) if [ "$rc" = "${id#rc=}" ]; then ok; else fail "$what: exit $rc, want ${id#rc=}: $(cat "$tmp/err")"; fi ;;
		esac
	done
}
check_cases() {
	local res
	res=$(python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
ok = bad = 0
for line in open(tmp + "/cases"):
    k, what, boot, sock, ids = line.rstrip("\n").split("\t")
    try:
        d = json.load(open(f"{tmp}/case{k}.json"))
    except ValueError as e:
        print(f"FAIL: {what}: output is not JSON: {e}")
        bad += 1
        continue
    n = d["node"]
    b = n["bootstrap"]["name"] if n["bootstrap"] else "-"
    s = ",".join(x["name"] for x in n["net_socket"]) or "-"
    got = {f["severity"][0] + ":" + f["id"] for f in d["findings"]}
    if (b, s) == (boot, sock):
        ok += 1
    else:
        print(f"FAIL: {what}: predicted {b!r} / {s!r}, want {boot!r} / {sock!r}")
        bad += 1
    for want in ids.split():
        if want.startswith("rc="):
            continue
        neg = want.startswith("!")
        hit = any(g == want.lstrip("!") or g[2:] == want.lstrip("!") for g in got)
        if hit != neg:
            ok += 1
        else:
            print(f"FAIL: {what}: {'unexpected' if neg else 'no'} {want.lstrip('!')} in {sorted(got)}")
            bad += 1
print(ok, bad)
PY
)
	echo "$res" | grep '^FAIL' || true
	read -r a b <<<"$(echo "$res" | tail -1)"
	passed=$((passed + a))
	failed=$((failed + b))
}

# ---- the node: lo, docker0, vethab12, eth1, eth2 (no carrier), ib0, virbr0, in this kernel order
mkns node
mkns peer
bridge node docker0 172.17.0.1/16 dk0
link node vethab12 10.88.0.1/24 p-veth
link node eth1 192.168.77.1/24 p-eth1
link node eth2 192.168.78.1/24 p-eth2 down
link node ib0 10.77.0.1/24 p-ib0
bridge node virbr0 192.168.122.1/24 vb0
inns peer ip addr add 192.168.77.2/24 dev p-eth1
for i in docker0 vethab12 eth1 ib0 virbr0; do wait_carrier node "$i"; done

N=node
# default order: ib* first
expect "default: ib first" ib0 ib0 rc=0 -- $N --
# NCCL_SOCKET_IFNAME forms
expect "prefix eth" eth1 eth1 rc=0 -- $N NCCL_SOCKET_IFNAME=eth --
expect "prefix eth, NCCL 2.27 keeps eth2 without carrier" eth1 eth1,eth2 -- $N NCCL_SOCKET_IFNAME=eth -- --nccl-version 2.27.3
expect "exact =eth1" eth1 eth1 rc=0 -- $N NCCL_SOCKET_IFNAME==eth1 --
expect "exact =eth matches nothing" - - e:socket-iface-not-found rc=1 -- $N NCCL_SOCKET_IFNAME==eth --
expect "exclude ^docker,lo,ib,veth" eth1 eth1,virbr0 w:socket-iface-virtual -- $N NCCL_SOCKET_IFNAME=^docker,lo,ib,veth --
expect "exact exclude ^=docker0 takes lo first" lo lo,vethab12,eth1,ib0,virbr0 e:socket-iface-loopback rc=1 -- $N NCCL_SOCKET_IFNAME=^=docker0 --
expect "one character is ignored" ib0 ib0 w:env-override -- $N NCCL_SOCKET_IFNAME=e --
expect "ports are ignored" eth1 eth1 rc=0 -- $N NCCL_SOCKET_IFNAME==eth1:1234 --
expect "list of exact names" eth1 eth1,ib0 -- $N NCCL_SOCKET_IFNAME==ib0,eth1 --
expect "only a down interface matches" - - e:socket-iface-not-found rc=1 -- $N NCCL_SOCKET_IFNAME==eth2 --
expect "NCCL 2.27 binds the down interface" eth2 eth2 e:socket-iface-not-found rc=1 -- $N NCCL_SOCKET_IFNAME==eth2 -- --nccl-version 2.27.3
# NCCL_COMM_ID: the bootstrap takes its subnet, NET/Socket keeps its order
expect "COMM_ID subnet" eth1 ib0 -- $N NCCL_COMM_ID=192.168.77.9:5000 --
expect "COMM_ID beats NCCL_SOCKET_IFNAME for bootstrap" eth1 virbr0 -- $N NCCL_COMM_ID=192.168.77.9:5000 NCCL_SOCKET_IFNAME=virbr --
expect "COMM_ID on no local subnet" - ib0 e:socket-iface-not-found rc=1 -- $N NCCL_COMM_ID=192.168.99.9:5000 --

# peers: one port each, inside the namespaces
# it listens while $tmp/listening exists: removing the file stops it (the
# background job is a subshell, whose pid would not reach python)
inns peer python3 -c '
import os, socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("192.168.77.2", 2222))
s.listen(8)
open(sys.argv[1], "w").close()
while os.path.exists(sys.argv[1]):
    time.sleep(0.05)' "$tmp/listening" >/dev/null 2>&1 &
listener=$!
for _ in $(seq 100); do [ -e "$tmp/listening" ] && break; sleep 0.1; done
doctor $N -- --peer 192.168.77.2:2222 --connect --timeout 2000
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["node"]["peers"][0]
assert p["local_iface"] == "eth1" and p["connect"] == "ok", p
ids = {f["id"] for f in d["findings"]}
assert "socket-iface-mismatch" in ids, ids   # the peer is on eth1, NCCL would bootstrap over ib0
' "$tmp/out.json"; then ok; else fail "peer on eth1, connect ok"; fi
printf '# peers\n192.168.77.2:2223   slots=8\n10.99.0.1\n192.168.77.3:22\n' >"$tmp/peers"
doctor $N NCCL_SOCKET_IFNAME==eth1 -- --peers "$tmp/peers" --connect --timeout 300
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = [p.get("connect") for p in d["node"]["peers"]]
assert c == ["refused", "unreachable", "timed out"], c
assert d["node"]["peers"][2]["local_iface"] == "eth1"
ids = {(f["id"], f["severity"]) for f in d["findings"]}
assert ("bootstrap-connect-failed", "error") in ids, ids
' "$tmp/out.json"; then ok; else fail "refused / unreachable / timed out: $(head -c 600 "$tmp/out.json")"; fi
[ "$rc" = 1 ] && ok || fail "unreachable peers: exit $rc, want 1"
rm -f "$tmp/listening"
wait "$listener"
listener=

# the node as JSON for --compare, named node-a
hostnamed() { # hostnamed NS NAME VAR... -- ARGS: doctor JSON with the given host name
	local ns=$1 name=$2
	shift 2
	doctor "$ns" "$@"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); d["node"]["host"] = sys.argv[2]
for f in d["findings"]:
    f["message"] = f["message"].replace("on " + sys.argv[3] + ": ", "on " + sys.argv[2] + ": ", 1)
json.dump(d, open(sys.argv[1], "w"), indent=2)' "$tmp/out.json" "$name" "$(uname -n)"
}
hostnamed $N node-a NCCL_SOCKET_IFNAME==eth1 -- --nccl-version 2.30.7
cp "$tmp/out.json" "$tmp/node-a.json"

# default order, step by step
inns node ip addr flush dev ib0
expect "no ib: first non-docker/lo/virbr in kernel order" vethab12 vethab12,eth1 w:socket-iface-virtual -- $N --
inns node ip link set vethab12 down
expect "vethab12 down: skipped from 2.28.3" eth1 eth1 rc=0 -- $N --
expect "vethab12 down: NCCL 2.27 still takes it" vethab12 vethab12,eth1,eth2,virbr0 -- $N -- --nccl-version 2.27.3
inns node ip addr flush dev vethab12
inns node ip addr flush dev eth1
inns node ip addr flush dev eth2
expect "only docker0, lo, virbr0: docker0" docker0 docker0 w:socket-iface-virtual -- $N --
expect "before 2.28.3 virbr0 is a default candidate" virbr0 virbr0 w:socket-iface-virtual -- $N -- --nccl-version 2.28.2
inns peer ip link set dk0 down
inns node ip link set docker0 down
expect "docker0 down: lo before virbr0 from 2.28.3" lo lo e:socket-iface-loopback rc=1 -- $N --
expect "docker0 down: virbr0 before 2.28.3" virbr0 virbr0 -- $N -- --nccl-version 2.27.3
inns node ip addr flush dev lo
inns node ip link set lo down
expect "only virbr0 left: the last resort of 2.28.3" virbr0 virbr0 -- $N --

# ---- a node with docker0 up and eth1 without a link, no NCCL_SOCKET_IFNAME
mkns dnode
link dnode eth1 192.168.77.5/24 p2-eth1 down
bridge dnode docker0 172.17.0.1/16 dk1
wait_carrier dnode docker0
expect "docker0 up, eth1 without carrier" docker0 docker0 w:socket-iface-virtual rc=0 -- dnode --
inns dnode env -i PATH="$PATH" NCCLOG_DOCTOR_ROOT="$root" "$bin" doctor --gpus 0 --color never >"$tmp/text" 2>&1
if grep -q 'warning\[socket-iface-virtual\]: .*NCCL would bootstrap over the virtual interface docker0 (172.17.0.1)' "$tmp/text" &&
	grep -q 'help: eth1 (192.168.77.5/24) looks routable but has no link (not RUNNING): bring it up, then export NCCL_SOCKET_IFNAME=eth1' "$tmp/text" &&
	grep -q 'Bootstrap: Using docker0:172.17.0.1<0>' "$tmp/text"; then ok; else fail "docker0 text report: $(cat "$tmp/text")"; fi
inns peer ip link set p2-eth1 up
wait_carrier dnode eth1
expect "docker0 up, eth1 up: eth1, docker0 excluded" eth1 eth1 !socket-iface-virtual rc=0 -- dnode --
if python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["node"]["suggested_socket_ifname"] == "eth1"' "$tmp/out.json"; then ok; else fail "suggests eth1"; fi
# a stale NCCL_SOCKET_IFNAME=docker on node-b, for --compare
hostnamed dnode node-b NCCL_SOCKET_IFNAME=docker --
cp "$tmp/out.json" "$tmp/node-b.json"
"$bin" doctor --compare "$tmp/node-a.json" "$tmp/node-b.json" --color never >"$tmp/cmp" 2>&1
rc=$?
[ "$rc" = 1 ] && ok || fail "compare: exit $rc, want 1"
if grep -q 'error\[socket-iface-mismatch\]: node-a would bootstrap over eth1 (192.168.77.1, subnet 192.168.77.0/24); node-b would bootstrap over docker0 (172.17.0.1, subnet 172.17.0.0/16)' "$tmp/cmp" &&
	grep -q 'help: export NCCL_SOCKET_IFNAME=eth1 on every node (present on both hosts, subnet 192.168.77.0/24' "$tmp/cmp" &&
	grep -q 'warning\[socket-env-inconsistent\]: NCCL_SOCKET_IFNAME has different values on different hosts: =eth1 on node-a, docker on node-b' "$tmp/cmp"; then ok; else fail "compare report: $(cat "$tmp/cmp")"; fi

check_cases
echo "doctor_netns ($mode): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
