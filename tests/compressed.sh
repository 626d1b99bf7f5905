#!/bin/bash
# Compressed logs: gzip and zstd copies of samples, made here with the real
# tools, give the same findings as the plain files, whatever their names,
# from files and from standard input; damaged archives fail with exit 2.
set -u
ncclog=$1
samples=$2/samples
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

ids() { # the sorted severity[id] headers of a text report on stdin
	grep -o '^\([^ ].*: \)\?\(error\|warning\|info\)\[[a-z0-9-]*\]' | sed 's/.*: //' | sort -u
}

for s in lightning-2node-docker0 cuda-oom ib-completion-error socket-iface-link-local healthy-2node-ib; do
	want=$("$ncclog" analyze --color never "$samples/$s"/*.log | ids)
	[ -n "$want" ] || [ "$s" = healthy-2node-ib ] || fail "$s: no finding in the plain files"
	mkdir -p "$tmp/$s"
	gz=() zst=() mixed=()
	i=0
	for f in "$samples/$s"/*.log; do
		b=$(basename "$f")
		gzip -c "$f" >"$tmp/$s/$b.gz"
		zstd -q -c "$f" >"$tmp/$s/$b.zst"
		# detection is by magic bytes: a misleading name changes nothing
		cp "$tmp/$s/$b.zst" "$tmp/$s/$b.txt"
		gz+=("$tmp/$s/$b.gz")
		zst+=("$tmp/$s/$b.zst")
		if [ $((i % 2)) -eq 0 ]; then mixed+=("$tmp/$s/$b.txt"); else mixed+=("$f"); fi
		i=$((i + 1))
	done
	[ "$("$ncclog" analyze --color never "${gz[@]}" | ids)" = "$want" ] || fail "$s: gzip findings differ"
	[ "$("$ncclog" analyze --color never "${zst[@]}" | ids)" = "$want" ] || fail "$s: zstd findings differ"
	[ "$("$ncclog" analyze --color never "${mixed[@]}" | ids)" = "$want" ] || fail "$s: mixed plain/zstd findings differ"
done

# standard input, and the counts of the decompressed input
f=$samples/cuda-oom/vllm.log
want=$("$ncclog" analyze --color never <"$f" | ids)
[ "$(gzip -c "$f" | "$ncclog" analyze --color never | ids)" = "$want" ] || fail "gzip on stdin"
[ "$(zstd -q -c "$f" | "$ncclog" analyze --color never - | ids)" = "$want" ] || fail "zstd on stdin"
bytes=$(gzip -c "$f" | "$ncclog" analyze -f json | python3 -c 'import json,sys; print(json.load(sys.stdin)["inputs"][0]["bytes"])')
[ "$bytes" = "$(wc -c <"$f")" ] || fail "bytes of a gzip input: $bytes"
# concatenated gzip members are one stream, as gzip -d reads them
cat "$tmp/cuda-oom/vllm.log.gz" "$tmp/cuda-oom/vllm.log.gz" >"$tmp/twice.gz"
lines=$("$ncclog" analyze -f json "$tmp/twice.gz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["inputs"][0]["lines"])')
[ "$lines" = $((2 * $(wc -l <"$f"))) ] || fail "two gzip members: $lines lines"

# damaged archives: exit 2 and "ncclog: file: reason"
head -c 700 "$tmp/cuda-oom/vllm.log.gz" >"$tmp/cut.gz"
head -c 700 "$tmp/cuda-oom/vllm.log.zst" >"$tmp/cut.zst"
printf '\037\213garbage that is not deflate' >"$tmp/bad.gz"
for x in cut.gz cut.zst bad.gz; do
	"$ncclog" analyze "$tmp/$x" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$x: exit $rc"
	grep -q "^ncclog: $tmp/$x: \(truncated\|corrupt\) \(gzip\|zstd\) data" "$tmp/err" || fail "$x: message $(cat "$tmp/err")"
done
# a short plain file (less than a magic number) is read as it is
printf 'x\n' >"$tmp/short.log"
"$ncclog" analyze "$tmp/short.log" >/dev/null 2>"$tmp/err"
rc=$?
# read, and found to hold no NCCL line (3), not refused as damaged (2)
[ $rc -eq 3 ] && grep -q "holds no line of NCCL" "$tmp/err" || fail "a 2-byte plain file: exit $rc, $(cat "$tmp/err")"

[ $fails -eq 0 ] && echo "compressed: ok"
exit $((fails > 0))
