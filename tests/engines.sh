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
. "$(dirname "$0")/lib.sh"
lib_init engines
own=NCCLOG_GATE=own
vs=NCCLOG_GATE=vectorscan
for d in "$root"/samples/*/; do
	same_report $own $vs "$d" analyze -j 1 --format json "$d"*
done
python3 "$root/tests/mix.py" "$root" "$tmp/mix.log" 5 60000
same_report $own $vs "a mix of the samples' lines" analyze -j 1 --format json "$tmp/mix.log"
same_report "$own NCCLOG_CHUNK_BYTES=100000" "$vs NCCLOG_CHUNK_BYTES=100000" "a mix of the samples' lines in parts" analyze -j 2 --format json "$tmp/mix.log"
# three variants of each literal that no line holds, as bench/run.py grows the table
python3 - "$root" "$tmp/grown.json" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/bench")
import run
run.grown_rules(run.gate_literals(sys.argv[1] + "/rules"), sys.argv[2])
PY
same_report $own $vs "a rule table grown fourfold" analyze -j 1 --format json --rules "$tmp/grown.json" "$tmp/mix.log"
lib_finish
