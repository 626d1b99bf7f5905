#!/bin/sh
# Runs one fuzz target: first over its regression inputs (tests/regress/NAME),
# then for SECONDS from the seeds fuzz/seed.py writes (cut from samples/ and
# rules/, and Flight Recorder dumps from tests/gen_fr.py). A crash, a leak,
# undefined behaviour or a hang fails the run and leaves the input in
# OUTDIR/crash-* (turn it into a file under tests/regress/NAME).
# usage: run.sh FUZZER NAME SOURCE_ROOT SECONDS [OUTDIR]
set -eu
fuzzer=$1 name=$2 root=$3 secs=$4
out=${5:-$(mktemp -d)}
rm -f "$out/summary"
mkdir -p "$out/corpus" "$out/seeds"
python3 "$root/fuzz/seed.py" "$out/seeds"
regress="$root/tests/regress/$name"
if [ -d "$regress" ] && [ -n "$(ls "$regress")" ]; then
	"$fuzzer" -runs=1 "$regress"/* >"$out/regress.log" 2>&1 || {
		tail -n 40 "$out/regress.log"
		echo "fuzz $name: a regression input fails" | tee "$out/summary"
		exit 1
	}
fi
export NCCLOG_RULES_DIR="$root/rules"
if "$fuzzer" -max_total_time="$secs" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$out/" -print_final_stats=1 "$out/corpus" "$out/seeds/$name" >"$out/fuzz.log" 2>&1; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz.log")
	echo "fuzz $name: ${runs:-?} runs in ${secs}s, no crash" | tee "$out/summary"
else
	grep -A 30 -m 1 -E '^==[0-9]+==|runtime error|deadly signal|ERROR: libFuzzer' "$out/fuzz.log" || tail -n 40 "$out/fuzz.log"
	echo "fuzz $name: crash, input saved as $(ls "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-* 2>/dev/null | head -n 1)" | tee "$out/summary"
	exit 1
fi
