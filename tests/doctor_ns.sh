# Network namespaces for doctor's tests, sourced by doctor_netns.sh and
# doctor_nodes.sh: with `ip netns` as root, else inside an unprivileged user
# namespace (the sourcing script runs again in one); exit 77 (skip) where
# neither is permitted.
# Before sourcing, set ns_tag (a prefix of the namespace names). Then:
#   mkns NAME           a new network namespace, lo up, no IPv6 autoconfiguration
#   inns NAME CMD...    runs CMD in it
#   nsref NAME          what `ip link ... netns` takes
#   carrier NS IFACE    waits until IFACE has a link; status 1 after 10 s
#   ns_cleanup          removes them (call it from the script's EXIT trap)
skip() { echo "SKIP: $*"; exit 77; }
command -v ip >/dev/null || skip "iproute2 ('ip') is not installed (scripts/install-deps.sh installs it)"
command -v python3 >/dev/null || skip "python3 is needed to read the JSON output"

mode=${NCCLOG_NETNS_MODE:-}
if [ -z "$mode" ]; then
	if ip netns add "$ns_tag-probe" 2>/dev/null; then
		ip netns del "$ns_tag-probe"
		mode=netns
	elif unshare -rn true 2>/dev/null; then
		# no root: the same test inside an unprivileged user namespace
		exec unshare -rn env NCCLOG_NETNS_MODE=userns bash "$0" "$@"
	else
		skip "network namespaces are not permitted here (needs root, or unprivileged user namespaces)"
	fi
fi

declare -A nspid
ns_made=()
mkns() {
	if [ "$mode" = netns ]; then
		ip netns add "$ns_tag-$1" || skip "ip netns add failed"
	else
		# a process holds the namespace; ready once its network namespace differs from ours
		unshare -n sleep 100000 &
		nspid[$1]=$!
		for _ in $(seq 100); do
			[ "$(readlink /proc/${nspid[$1]}/ns/net)" != "$(readlink /proc/$$/ns/net)" ] && break
			sleep 0.05
		done
	fi
	ns_made+=("$1")
	inns "$1" ip link set lo up
	# no IPv6 autoconfiguration: link-local addresses would join the candidates
	inns "$1" sh -c 'echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6; echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6' 2>/dev/null
}
inns() {
	local n=$1
	shift
	if [ "$mode" = netns ]; then ip netns exec "$ns_tag-$n" "$@"; else nsenter -t "${nspid[$n]}" -n "$@"; fi
}
nsref() { if [ "$mode" = netns ]; then echo "$ns_tag-$1"; else echo "${nspid[$1]}"; fi; }
carrier() {
	for _ in $(seq 200); do
		inns "$1" ip -o link show dev "$2" | grep -q LOWER_UP && return 0
		sleep 0.05
	done
	return 1
}
ns_cleanup() {
	local n
	for n in "${ns_made[@]}"; do
		if [ "$mode" = netns ]; then ip netns del "$ns_tag-$n" 2>/dev/null; else kill "${nspid[$n]}" 2>/dev/null; fi
	done
}
