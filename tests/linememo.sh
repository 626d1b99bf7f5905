#!/usr/bin/env bash
# The line memo changes no report: with it and without it (NCCLOG_LINEMEMO=off)
# ncclog says the same on every sample, on lines drawn at random from them
# (read on one thread and in parts on several), on communicators' inits
# repeated the way NCCL prints them, and in live mode.
# usage: linememo.sh NCCLOG SOURCE_ROOT
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
# runs ncclog with the memo and without; $1 says what is compared, the rest are its arguments
same_both() {
	local what=$1
	shift
	"$bin" "$@" >"$tmp/a" 2>&1 <"$tmp/stdin"
	echo "exit $?" >>"$tmp/a"
	NCCLOG_LINEMEMO=off "$bin" "$@" >"$tmp/b" 2>&1 <"$tmp/stdin"
	echo "exit $?" >>"$tmp/b"
	if cmp -s "$tmp/a" "$tmp/b"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $what: the report with the line memo differs from the one without"
		diff "$tmp/a" "$tmp/b" | head -10
	fi
}
: >"$tmp/stdin"
for d in "$root"/samples/*/; do
	same_both "$d" analyze -j 1 --format json "$d"*
done
python3 "$root/tests/mix.py" "$root" "$tmp/mix.log" 11 60000
same_both "a mix of the samples' lines" analyze -j 1 --format json "$tmp/mix.log"
same_both "a mix of the samples' lines, as text" analyze -j 1 "$tmp/mix.log"
NCCLOG_CHUNK_BYTES=100000 same_both "a mix of the samples' lines in parts" analyze -j 2 --format json "$tmp/mix.log"
python3 "$root/bench/gen.py" "$tmp/init" --ranks 8 --size 4M --reinit 0.8 >/dev/null
same_both "communicators' inits, 8 ranks" analyze -j 1 --format json "$tmp/init"/*
same_both "communicators' inits, 8 ranks, 2 threads" analyze -j 2 --format json "$tmp/init"/*
cat "$tmp/init"/* >"$tmp/stdin"
same_both "communicators' inits, live, from a pipe" live --format json
echo "linememo: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
