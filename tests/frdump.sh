#!/usr/bin/env bash
# Flight Recorder dumps read beside the logs: the rank a hung collective
# waits for is named with its host and its last frame, with its dump or
# without, and with the dumps alone; hostile pickles are refused, one
# line each, while the rest is still analyzed.
# usage: frdump.sh NCCLOG SOURCE_ROOT
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
run() { "$bin" analyze "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
has() { if grep -qE -- "$1" "$tmp/out"; then ok; else fail "$2: no /$1/ in: $(head -c 400 "$tmp/out")"; fi; }

python3 "$root/tests/gen_fr.py" "$tmp/d" --ranks 64 --hosts 8 --scenario missing --rank 37 --seq 315 \
	--logs "$tmp/logs" >/dev/null || fail "gen_fr.py"
run "$tmp"/logs/* "$tmp"/d/*
[ $rc -eq 1 ] && ok || fail "logs and dumps: exit $rc"
has '^verdict: rank 37 on gpu-node-0004: never joined all_reduce #315 of process group default_pg' "the verdict names rank 37 and its host"
has '^verdict: .*last seen at [^ ]*train\.py:[0-9]+ in ' "the verdict names its last frame"
has 'consequences \(1\):' "the others' timeouts follow from it"
has 'error\[watchdog-timeout\]: ranks 0-36,38-63 timed out' "the watchdog timeouts are its consequence"
run --format json "$tmp"/logs/* "$tmp"/d/*
python3 - "$tmp/out" <<'PY' && ok || fail "JSON: the verdict's root and the finding's ranks and hosts"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"][0]
assert d["verdict"]["root"] == "collective-desync", d["verdict"]
assert f["id"] == "collective-desync" and f["ranks"] == [37] and f["hosts"] == ["gpu-node-0004"], f
assert any(e["text"].startswith("Flight Recorder: default_pg #315") for e in f["evidence"]), f["evidence"]
w = [x for x in d["findings"] if x["id"] == "watchdog-timeout"][0]
assert w["caused_by"] == "collective-desync", w
PY

# rank 37's dump is missing: its log places it
mv "$tmp/d/nccl_trace_rank_37" "$tmp/rank37.dump"
run "$tmp"/logs/* "$tmp"/d/*
[ $rc -eq 1 ] && ok || fail "a dump missing: exit $rc"
has '^verdict: rank 37 on gpu-node-0004: left no Flight Recorder dump while 63 ranks of process group default_pg wait in all_reduce #315; its log last shows' "without its dump, its log places rank 37"
mv "$tmp/rank37.dump" "$tmp/d/nccl_trace_rank_37"

# the dumps alone name the rank
run "$tmp"/d/*
[ $rc -eq 1 ] && ok || fail "dumps alone: exit $rc"
has '^verdict: rank 37: never joined all_reduce #315' "dumps alone name rank 37"

# every format and pickle protocol, in any order among the logs
for fmt in pickle2 pickle5 json torchcomms; do
	python3 "$root/tests/gen_fr.py" "$tmp/f-$fmt" --ranks 8 --format "$fmt" --scenario missing --rank 5 --seq 20 >/dev/null
	run "$tmp"/f-$fmt/* "$root"/samples/healthy-2node-ib/*
	has '^verdict: rank 5( on node-a)?: never joined .* #20 of process group' "$fmt dump"
done

# hostile pickles: refused with the file and the reason, the rest analyzed
python3 "$root/tests/gen_fr.py" --hostile "$tmp/h" >/dev/null
while IFS=$'\t' read -r name status off; do
	case "$name" in '#'* | '') continue ;; esac
	# a pickle is told by its PROTO opcode; an empty file or a protocol-0
	# text pickle is no pickle by content, and is read as a log
	[ "$(head -c 1 "$tmp/h/$name" | od -An -tx1 | tr -d ' ')" = 80 ] || continue
	run "$tmp"/f-pickle2/* "$tmp/h/$name"
	if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$name: " "$tmp/err"; then ok; else
		fail "hostile $name: exit $rc, stderr: $(cat "$tmp/err")"; fi
	has '^verdict: rank 5: never joined' "the other dumps still analyzed beside $name"
done <"$tmp/h/MANIFEST.tsv"
echo "frdump: $passed passed, $failed failed"
[ $failed -eq 0 ]
