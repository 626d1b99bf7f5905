#!/usr/bin/env bash
# Reading on several threads gives the same report as one thread, on every
# sample, whole files or files cut into parts; and thousands of rank files
# work with few file descriptors.
# usage: parallel.sh NCCLOG SOURCE_ROOT [--quick]
set -u
bin=$1
root=$2
chunks="300 1000 5000"
nfiles=8192
if [ "${3:-}" = --quick ]; then
	chunks=300
	nfiles=2048
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
# counts $tmp/b against $tmp/a; $1 says what differs when they do
same_as_one() {
	if cmp -s "$tmp/a" "$tmp/b"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $1"
		diff "$tmp/a" "$tmp/b" | head -10
	fi
}
for d in "$root"/samples/*/; do
	"$bin" analyze -j 1 --format json "$d"* >"$tmp/a" 2>&1
	# per file, then every file cut into parts of a few lines
	for chunk in "" $chunks; do
		NCCLOG_CHUNK_BYTES=$chunk "$bin" analyze -j 3 --format json "$d"* >"$tmp/b" 2>&1
		same_as_one "-j 3 (parts of ${chunk:-whole files} bytes) differs from -j 1 on $d"
	done
done

# one interleaved stream of a generated job, cut into parts
python3 "$root/bench/gen.py" "$tmp/stream.log" --ranks 64 --size 20M --stream --fault watchdog
"$bin" analyze -j 1 --format json "$tmp/stream.log" >"$tmp/a"
NCCLOG_CHUNK_BYTES=3000000 "$bin" analyze -j 2 --format json "$tmp/stream.log" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL: generated stream in parts"; }

# lines drawn at random from the samples, cut into parts: each part's model
# merged after the one before gives the report one thread gives, however
# the facts of a process, a communicator or a test run fall across the cuts
seeds="1 2 3 7 8 9 10 11"
mixchunks="50000 300000 1000000"
if [ "${3:-}" = --quick ]; then
	seeds="1 2"
	mixchunks="50000 1000000"
fi
for seed in $seeds; do
	python3 "$root/tests/mix.py" "$root" "$tmp/mix.log" "$seed" 60000
	"$bin" analyze -j 1 --format json "$tmp/mix.log" >"$tmp/a" 2>&1
	for chunk in $mixchunks; do
		for j in 2 3; do
			NCCLOG_CHUNK_BYTES=$chunk "$bin" analyze -j $j --format json "$tmp/mix.log" >"$tmp/b" 2>&1
			same_as_one "mix of seed $seed in parts of $chunk bytes: -j $j differs from -j 1"
		done
	done
done

# 8192 rank files under `ulimit -n 1024`: files are opened one at a time
python3 "$root/bench/gen.py" "$tmp/job" --ranks $nfiles --hosts $((nfiles / 8)) --size 0 --channels 1 --fault stuck-rank
(
	ulimit -n 1024
	"$bin" analyze -j 2 --format json "$tmp"/job/*.log >"$tmp/out" 2>"$tmp/err"
	echo $? >"$tmp/rc"
)
python3 - "$tmp/out" "$nfiles" <<'PY' && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL: $nfiles files: $(head -c 300 "$tmp/err")"; }
import json, sys
d = json.load(open(sys.argv[1]))
j = d["job"]
n = int(sys.argv[2])
assert len(d["inputs"]) == n, len(d["inputs"])
assert j["nranks"] == n and j["ranks_seen"] == n and len(j["hosts"]) == n // 8, j
ids = {f["id"]: f for f in d["findings"]}
assert ids["init-incomplete"]["ranks"] == [n // 3], ids["init-incomplete"]["ranks"]
PY
if [ "$(cat "$tmp/rc")" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $nfiles files: exit $(cat "$tmp/rc")"; fi

# the small files are read in runs, many to one model: the same report and
# the same messages, in input order, as one thread, with inputs that cannot
# be read and one that is not a log among them
: >"$tmp/empty.log"
cp "$root/samples/ras-monitor-json/ras-events.json" "$tmp/ras.json"
set -- "$tmp"/job/*.log
mid=$(($# / 2))
list=("${@:1:mid}" "$tmp/missing-a.log" "$tmp/empty.log" "$tmp/ras.json" "${@:mid+1:7}" "$tmp" "${@:mid+8}" "$tmp/missing-b.log")
"$bin" analyze -j 1 --format json "${list[@]}" >"$tmp/a" 2>"$tmp/ea"
echo $? >>"$tmp/ea"
"$bin" analyze -j 2 --format json "${list[@]}" >"$tmp/b" 2>"$tmp/eb"
echo $? >>"$tmp/eb"
if cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/ea" "$tmp/eb" && [ "$(grep -c missing- "$tmp/eb")" = 2 ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: $nfiles files with unreadable ones: -j 2 differs from -j 1"
	diff "$tmp/ea" "$tmp/eb" | head -5
	diff "$tmp/a" "$tmp/b" | head -10
fi

echo "parallel: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
