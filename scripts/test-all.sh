#!/bin/sh
# Runs every test suite (unit, golden, cli) twice: in a normal build and in
# an AddressSanitizer + UndefinedBehaviorSanitizer build; then each fuzz
# target for a short fixed budget.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# the test builds keep debug info for stack traces; users get the release default
[ -d build ] || meson setup build --buildtype=debugoptimized >/dev/null
[ -d build-san ] || meson setup build-san --buildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
status=0
for b in build build-san; do
	echo "== $b"
	meson compile -C "$b" >/dev/null
	meson test -C "$b" --print-errorlogs || status=1
done
# a short fixed-budget run of each libFuzzer target (clang)
echo "== build-fuzz"
[ -d build-fuzz ] || CC=clang meson setup build-fuzz -Dfuzz=true >/dev/null
meson compile -C build-fuzz fuzz/fuzz_lines fuzz/fuzz_rules fuzz/fuzz_analyze fuzz/fuzz_pickle fuzz/fuzz_source fuzz/fuzz_redact fuzz/fuzz_system fuzz/fuzz_merge fuzz/fuzz_gate ncclog >/dev/null
meson test -C build-fuzz --no-rebuild --suite fuzz --print-errorlogs || status=1
grep -h '^fuzz ' build-fuzz/fuzz/run-*/summary 2>/dev/null || true
# one closing line over all builds
python3 - build/meson-logs/testlog.json build-san/meson-logs/testlog.json build-fuzz/meson-logs/testlog.json <<'PY'
import json, sys
ok = bad = 0
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        if r["result"] in ("OK", "EXPECTEDFAIL", "SKIP"):
            ok += 1
        else:
            bad += 1
print(f"{ok} passed, {bad} failed")
PY
exit $status
