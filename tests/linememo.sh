#!/usr/bin/env bash
# The line memo changes no report: with it and without it (NCCLOG_LINEMEMO=off)
# ncclog says the same on every sample, on lines drawn at random from them
# (read on one thread and in parts on several), on communicators' inits
# repeated the way NCCL prints them, and in live mode.
# usage: linememo.sh NCCLOG SOURCE_ROOT
set -u
bin=$1
root=$2
. "$(dirname "$0")/lib.sh"
lib_init linememo
on=NCCLOG_LINEMEMO=on
off=NCCLOG_LINEMEMO=off
for d in "$root"/samples/*/; do
	same_report $on $off "$d" analyze -j 1 --format json "$d"*
done
python3 "$root/tests/mix.py" "$root" "$tmp/mix.log" 11 60000
same_report $on $off "a mix of the samples' lines" analyze -j 1 --format json "$tmp/mix.log"
same_report $on $off "a mix of the samples' lines, as text" analyze -j 1 "$tmp/mix.log"
same_report "$on NCCLOG_CHUNK_BYTES=100000" "$off NCCLOG_CHUNK_BYTES=100000" \
	"a mix of the samples' lines in parts" analyze -j 2 --format json "$tmp/mix.log"
python3 "$root/bench/gen.py" "$tmp/init" --ranks 8 --size 4M --reinit 0.8 >/dev/null
same_report $on $off "communicators' inits, 8 ranks" analyze -j 1 --format json "$tmp/init"/*
same_report $on $off "communicators' inits, 8 ranks, 2 threads" analyze -j 2 --format json "$tmp/init"/*
cat "$tmp/init"/* >"$tmp/stdin"
same_report $on $off "communicators' inits, live, from a pipe" live --format json
lib_finish
