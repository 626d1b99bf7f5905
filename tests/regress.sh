#!/usr/bin/env bash
# Inputs that once crashed a fuzz target, fed to ncclog as a user would.
# Each must end with an ordinary exit status and no sanitizer report.
# usage: regress.sh NCCLOG SOURCE_ROOT
set -u
bin=$1 root=$2
dir=$root/tests/regress
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
# run WANT_MAX NAME -- COMMAND...: exit status at most WANT_MAX, no sanitizer report
run() {
	local max=$1 name=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -le "$max" ] && ! grep -qE 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$tmp/err"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $name: exit $rc"
		head -n 30 "$tmp/err"
	fi
}
for f in "$dir"/analyze/* "$dir"/lines/*; do
	[ -f "$f" ] || continue
	for fmt in text json markdown html; do
		run 1 "$f ($fmt)" -- "$bin" analyze --color always --format "$fmt" "$f"
	done
	if python3 -c 'import json,sys; json.load(sys.stdin)' < <("$bin" analyze --format json "$f" 2>/dev/null); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $f: JSON output is not valid"
	fi
done
# what a dead job leaves besides logs (RAS, nccl-tests reports): told by
# their first bytes, read as analyze's inputs (3: nothing of a job in it)
for f in "$dir"/system/*; do
	[ -f "$f" ] || continue
	for fmt in text json; do
		run 3 "$f ($fmt)" -- "$bin" analyze --format "$fmt" "$f"
	done
done
for f in "$dir"/rules/*; do
	[ -f "$f" ] || continue
	run 2 "$f (rules)" -- "$bin" analyze --rules "$f" "$root/samples/lightning-2node-docker0/rank0.log"
	# refused rule files name the place: one line "ncclog: FILE:LINE:COL: ..."
	if [ "$(wc -l <"$tmp/err")" -le 1 ]; then passed=$((passed + 1)); else
		failed=$((failed + 1))
		echo "FAIL: $f: more than one line on stderr"
	fi
done
echo "regress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
