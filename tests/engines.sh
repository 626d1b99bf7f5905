#!/usr/bin/env bash
# The gate's two engines, the own scan and Vectorscan, give the same
# report: on every sample, on lines drawn at random from them (read on one
# thread and in parts on several), and with a rule table grown fourfold.
# Skipped where ncclog was built without Vectorscan.
# usage: engines.sh NCCLOG SOURCE_ROOT
set -u
bin=$1
root=$2
"$bin" --version | grep -q Vectorscan || { echo "engines: built without Vectorscan: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
# runs ncclog with each engine; $1 says what is compared, the rest are its arguments
same_both() {
	local what=$1
	shift
	NCCLOG_GATE=own "$bin" "$@" >"$tmp/a" 2>&1
	echo "exit $?" >>"$tmp/a"
	NCCLOG_GATE=vectorscan "$bin" "$@" >"$tmp/b" 2>&1
	echo "exit $?" >>"$tmp/b"
	if cmp -s "$tmp/a" "$tmp/b"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $what: Vectorscan's report differs from the own scan's"
		diff "$tmp/a" "$tmp/b" | head -10
	fi
}
for d in "$root"/samples/*/; do
	same_both "$d" analyze -j 1 --format json "$d"*
done
python3 "$root/tests/mix.py" "$root" "$tmp/mix.log" 5 60000
same_both "a mix of the samples' lines" analyze -j 1 --format json "$tmp/mix.log"
NCCLOG_CHUNK_BYTES=100000 same_both "a mix of the samples' lines in parts" analyze -j 2 --format json "$tmp/mix.log"
# three variants of each literal that no line holds, as bench/run.py grows the table
python3 - "$root" "$tmp/grown.json" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/bench")
import run
run.grown_rules(run.gate_literals(sys.argv[1] + "/rules"), sys.argv[2])
PY
same_both "a rule table grown fourfold" analyze -j 1 --format json --rules "$tmp/grown.json" "$tmp/mix.log"
echo "engines: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
