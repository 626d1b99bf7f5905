#!/usr/bin/env bash
# Every sample folder through `ncclog analyze` under valgrind: no memory
# error, no definite or indirect leak. Skipped in a sanitizer build
# (valgrind cannot run ASan binaries).
# usage: valgrind.sh NCCLOG SAMPLES FORMAT SANITIZE
set -u
bin=$1 samples=$2 fmt=$3 san=$4
if [ "$san" != none ]; then
	echo "valgrind: skipped in a -Db_sanitize=$san build"
	exit 77
fi
if ! command -v valgrind >/dev/null; then
	echo "valgrind: not installed (scripts/install-deps.sh installs it)"
	exit 1
fi
supp=$(dirname "$0")/valgrind.supp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
# ncclog's own exit codes are 0-2; valgrind reports with 97
for d in "$samples"/*/; do
	name=$(basename "$d")
	# a folder of doctor reports is compared, as golden.py does
	cmd=analyze
	ls "$d" | grep -qv '\.json$' || cmd="doctor --compare"
	# shellcheck disable=SC2086
	valgrind -q --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect --suppressions="$supp" "$bin" $cmd --format "$fmt" "$d"* >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" -le 1 ] && ! grep -q '^==[0-9]*==' "$tmp/err"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $name ($fmt): exit $rc"
		head -n 60 "$tmp/err"
	fi
done
echo "valgrind $fmt: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
