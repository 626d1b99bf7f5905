#!/usr/bin/env bash
# Split and merge equals whole: every sample's files are summarized in two
# groups (`analyze --summary`), the summaries merged, and the report must
# equal that of analyzing all the files at once.
# usage: merge.sh NCCLOG SOURCE_ROOT
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
for d in "$root"/samples/*/; do
	files=("$d"*)
	n=${#files[@]}
	half=$(((n + 1) / 2))
	"$bin" analyze --format json "${files[@]}" >"$tmp/whole" 2>/dev/null
	"$bin" analyze --summary "${files[@]:0:half}" >"$tmp/a.json" 2>/dev/null
	if [ "$n" -gt 1 ]; then
		"$bin" analyze --summary "${files[@]:half}" >"$tmp/b.json" 2>/dev/null
		"$bin" merge --format json "$tmp/a.json" "$tmp/b.json" >"$tmp/merged" 2>/dev/null
	else
		"$bin" merge --format json "$tmp/a.json" >"$tmp/merged" 2>/dev/null
	fi
	if cmp -s "$tmp/whole" "$tmp/merged"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: merged summaries differ from the whole on $d"
		diff "$tmp/whole" "$tmp/merged" | head -10
	fi
done
# exit status of merge follows the findings
"$bin" analyze --summary "$root"/samples/healthy-2node-ib/* >"$tmp/h.json"
"$bin" merge "$tmp/h.json" >/dev/null && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL: healthy merge exit"; }
# a damaged summary: one line, exit 2
printf '{"ncclog_summary": 2, "strings": [], "inputs": [], "procs": [{"host": 5}]}' >"$tmp/bad.json"
"$bin" merge "$tmp/bad.json" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -qF "bad.json: summary field procs[0].host: string id 5 outside [-1, 0)" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: damaged summary: exit $rc, $(cat "$tmp/err")"
fi
printf 'not json' >"$tmp/bad2.json"
"$bin" merge "$tmp/bad2.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL: not JSON"; }
# a file name and a line with invalid UTF-8 and an escape: the summary is
# valid UTF-8, and merging it reports what analyzing the file does
odd="$tmp/$(printf 'rank\377\033[2J')0.log"
{ cat "$root/samples/lightning-2node-docker0/rank4.log"; printf 'node-b:1877:1877 [0] NCCL WARN bad \377 byte \033]52;c;eA==\007\n'; } >"$odd"
"$bin" analyze --summary "$odd" >"$tmp/odd.json" 2>/dev/null
if python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$tmp/odd.json"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: a summary with odd bytes is not valid UTF-8 JSON"
fi
"$bin" analyze --format json "$odd" >"$tmp/whole" 2>/dev/null
"$bin" merge --format json "$tmp/odd.json" >"$tmp/merged" 2>/dev/null
if cmp -s "$tmp/whole" "$tmp/merged"; then passed=$((passed + 1)); else
	failed=$((failed + 1))
	echo "FAIL: merging a summary with odd bytes differs from analyzing its file"
	diff "$tmp/whole" "$tmp/merged" | head -6
fi
echo "merge: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
