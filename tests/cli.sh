#!/usr/bin/env bash
# CLI tests: exit codes, error messages, hostile input, output contracts.
# usage: cli.sh NCCLOG SOURCE_ROOT
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# expect STATUS DESCRIPTION -- COMMAND...: runs it, keeping stdout/stderr in $out/$err
expect() {
	local want=$1 what=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	if [ "$got" -eq "$want" ]; then ok; else fail "$what: exit $got, want $want; stderr: $err"; fi
}
contains() { if grep -qF -- "$2" <<<"$1"; then ok; else fail "$3: no '$2' in: ${1:0:300}"; fi; }
lacks() { if grep -qF -- "$2" <<<"$1"; then fail "$3: unexpected '$2'"; else ok; fi; }
valid_json() { if python3 -c 'import json,sys; json.load(sys.stdin)' <"$tmp/out" 2>/dev/null; then ok; else fail "$1: output is not JSON"; fi; }
one_line() { if [ "$(wc -l <"$tmp/err")" -eq 1 ]; then ok; else fail "$1: stderr has $(wc -l <"$tmp/err") lines"; fi; }

scen=$root/samples/lightning-2node-docker0
healthy=$root/samples/healthy-2node-ib

expect 2 "no command" -- "$bin"
contains "$err" "usage: ncclog" "usage on stderr"
expect 0 "--help" -- "$bin" --help
contains "$out" "analyze" "help lists analyze"
expect 0 "--version" -- "$bin" --version
contains "$out" "ncclog " "version"
expect 2 "unknown command" -- "$bin" frobnicate
one_line "unknown command"
expect 0 "analyze --help" -- "$bin" analyze --help
contains "$out" "exit status" "analyze help documents exit codes"
expect 2 "unknown option" -- "$bin" analyze --frob "$scen/rank0.log"
one_line "unknown option"
expect 2 "bad format" -- "$bin" analyze --format xml "$scen/rank0.log"
contains "$err" "unknown format 'xml'" "bad format message"
expect 2 "bad color" -- "$bin" analyze --color sometimes "$scen/rank0.log"

# exit codes follow the findings
expect 1 "scenario has errors" -- "$bin" analyze --color never "$scen"/rank*.log
contains "$out" "NCCL_SOCKET_IFNAME=eth1" "scenario hint names eth1"
contains "$out" "error[socket-iface-virtual]" "scenario finds docker0"
contains "$out" "ranks 4-7 on node-b" "scenario names ranks and host"
contains "$out" "job: 8 of 8 ranks seen" "summary"
expect 0 "healthy run" -- "$bin" analyze "$healthy"/*

# the interleaved srun stream gives the same diagnosis
ids() { "$bin" analyze --format json "$@" | python3 -c 'import json,sys; print(" ".join(sorted({f["id"] for f in json.load(sys.stdin)["findings"]})))'; }
a=$(ids "$scen"/rank*.log)
b=$(ids "$root"/samples/lightning-2node-docker0-srun/*)
if [ "$a" = "$b" ] && [ -n "$a" ]; then ok; else fail "srun stream differs: [$a] vs [$b]"; fi
c=$(cat "$scen"/rank*.log | "$bin" analyze --format json | python3 -c 'import json,sys; print(" ".join(sorted({f["id"] for f in json.load(sys.stdin)["findings"]})))')
contains "$c" "socket-iface-virtual" "standard input"

# unreadable inputs: one line each, the rest still analyzed, exit 2
expect 2 "missing file" -- "$bin" analyze "$tmp/nope.log" "$healthy"/node-a.log
contains "$err" "ncclog: $tmp/nope.log: No such file or directory" "missing file message"
one_line "missing file"
contains "$out" "job:" "other inputs still analyzed"
expect 2 "directory" -- "$bin" analyze "$tmp"
contains "$err" "is a directory" "directory message"
mkfifo "$tmp/fifo"
(printf 'node-a:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n' >"$tmp/fifo") &
expect 0 "fifo" -- "$bin" analyze --format json "$tmp/fifo"
valid_json "fifo"
wait

# broken rule files: one line "file:line:col: what", exit 2
printf '{"rules": [\n  {"id": "x", "gate": "abcd",\n   "pattern": "a(b", "finding": "cuda-oom"}]}\n' >"$tmp/bad.json"
expect 2 "broken rule" -- "$bin" analyze --rules "$tmp/bad.json" "$healthy"/node-a.log
contains "$err" "ncclog: $tmp/bad.json:3:19: pattern: missing closing parenthesis" "rule error position"
one_line "broken rule"
printf '{"rules": [ {"id": "x",, }]}' >"$tmp/bad2.json"
expect 2 "invalid rule JSON" -- "$bin" analyze --rules "$tmp/bad2.json" /dev/null
contains "$err" "bad2.json:1:" "JSON error position"
one_line "invalid rule JSON"
expect 2 "missing rule file" -- "$bin" analyze --rules "$tmp/none.json" /dev/null
contains "$err" "none.json: No such file or directory" "missing rule file"

# a user rule adds a finding
cat >"$tmp/site.json" <<'JSON'
{"rules": [{"id": "site-nfs-stale", "gate": "Stale file handle", "pattern": "Stale file handle",
  "finding": "site-nfs-stale", "title": "the shared filesystem went away", "severity": "error",
  "message": "NFS handle went stale", "hint": "remount /shared"}]}
JSON
printf 'OSError: [Errno 116] Stale file handle\n' >"$tmp/nfs.log"
expect 1 "user rule" -- "$bin" analyze --rules "$tmp/site.json" "$tmp/nfs.log"
contains "$out" "error[site-nfs-stale]: NFS handle went stale" "user rule fires"

# nothing to analyze: exit 3, no report (which would read as healthy),
# one line that says what to set
expect 3 "empty file" -- "$bin" analyze /dev/null
contains "$err" "NCCL_DEBUG=INFO" "empty file: the advice"
one_line "empty file"
[ -z "$out" ] && ok || fail "empty file: a report on stdout"
expect 3 "empty stdin" -- sh -c "'$bin' analyze --format json </dev/null"
[ -z "$out" ] && ok || fail "empty stdin: a report on stdout"
printf 'epoch 1 loss 0.3\nepoch 2 loss 0.2\n' >"$tmp/plain.log"
expect 3 "no NCCL line" -- "$bin" analyze "$tmp/plain.log"
contains "$err" "holds no line of NCCL" "no NCCL line: which input"
# nothing readable at all: exit 2, nothing on stdout
expect 2 "only missing files" -- "$bin" analyze -f json "$tmp/nope.log" "$tmp/nope2.log"
[ -z "$out" ] && ok || fail "only missing files: a report on stdout"
contains "$err" "no input could be read" "only missing files: said so"
# options after the operands, and "--" to end them
expect 0 "options after files" -- "$bin" analyze "$healthy"/node-a.log -f json
valid_json "options after files"
expect 2 "-- ends the options" -- "$bin" analyze -- "$healthy"/node-a.log -f
contains "$err" "ncclog: -f: No such file or directory" "-- ends the options: -f is a file"
expect 2 "misspelled option" -- "$bin" analyze --formt json "$healthy"/node-a.log
contains "$err" "did you mean --format?" "misspelled option: nearest"
one_line "misspelled option"

# every command parses one way: one usage line "ncclog: CMD: msg (see ncclog
# CMD --help)" and exit 2, "did you mean", options after the operands
for cmd in analyze live view merge explain rules redact doctor completions; do
	expect 2 "$cmd: unknown option" -- "$bin" $cmd --frobnicate
	[ "$err" = "ncclog: $cmd: unknown option '--frobnicate' (see ncclog $cmd --help)" ] && ok ||
		fail "$cmd: unknown option: '$err'"
	expect 2 "$cmd: misspelled --help" -- "$bin" $cmd --hlep
	contains "$err" "ncclog: $cmd: unknown option '--hlep'; did you mean --help?" "$cmd: nearest option"
	one_line "$cmd: misspelled --help"
	expect 0 "$cmd --help" -- "$bin" $cmd --help
	contains "$out" "usage: ncclog $cmd " "$cmd --help: usage"
	contains "$out" "  -h, --help " "$cmd --help: the options table"
done
for cmd in live doctor; do
	expect 2 "$cmd: a format it does not write" -- "$bin" $cmd --format html
	one_line "$cmd --format html"
	contains "$err" "ncclog: $cmd: unknown format 'html'" "$cmd --format html: said"
done
expect 2 "rules without a subcommand" -- "$bin" rules
[ "$err" = "ncclog: rules: which subcommand: list or test (see ncclog rules --help)" ] && ok ||
	fail "rules without a subcommand: '$err'"
expect 2 "rules: an unknown subcommand" -- "$bin" rules frob
one_line "rules frob"
expect 2 "rules list takes no FILE" -- "$bin" rules list "$tmp/site.json"
one_line "rules list FILE"
printf '{"rules": [{"id": "site-x", "gate": "SITE X", "pattern": "SITE X", "finding": "site-x", "title": "a site rule",
  "severity": "warning", "message": "x", "samples": ["SITE X"]}]}\n' >"$tmp/sited.json"
expect 0 "rules: options after the file" -- "$bin" rules test "$tmp/sited.json" --color never --quiet
[ "$out" = "1 rules, 1 samples: 0 failed" ] && ok || fail "rules test FILE --quiet: '$out'"
expect 2 "doctor: a stray argument" -- "$bin" doctor rank0.log --gpus 0
contains "$err" "ncclog: doctor: unexpected argument 'rank0.log'" "doctor: stray argument named"
one_line "doctor: stray argument"
expect 2 "doctor: --gpus" -- "$bin" doctor --gpus many
[ "$err" = "ncclog: doctor: --gpus takes a count from 0 to 4096, not 'many' (see ncclog doctor --help)" ] && ok ||
	fail "doctor --gpus many: '$err'"
mkdir -p "$tmp/red"
expect 0 "redact: -o after the file" -- "$bin" redact "$healthy"/node-a.log -o "$tmp/red"
[ -n "$(ls "$tmp/red")" ] && ok || fail "redact FILE -o DIR: nothing in DIR"
[ -z "$out" ] && ok || fail "redact FILE -o DIR: the copy went to stdout"
expect 2 "redact: -- ends the options" -- "$bin" redact -- -o
contains "$err" "ncclog: -o: No such file or directory" "redact -- -o: -o is a file"
expect 1 "live: options after the file" -- "$bin" live "$scen"/rank0.log "$scen"/rank4.log --format json --no-tui
python3 -c 'import json,sys; e=[json.loads(l) for l in sys.stdin]; assert e[-1]["event"] == "end"' <"$tmp/out" && ok ||
	fail "live FILE --format json: not NDJSON"
expect 2 "live: --settle" -- "$bin" live --settle 0
one_line "live --settle 0"
expect 2 "view: an option after the file" -- "$bin" view "$scen"/rank0.log --bogus
[ "$err" = "ncclog: view: unknown option '--bogus' (see ncclog view --help)" ] && ok || fail "view FILE --bogus: '$err'"
expect 2 "view: stdin twice" -- "$bin" view - -
contains "$err" "ncclog: view: standard input (-) named 2 times" "view - -"
expect 2 "completions: which shell" -- "$bin" completions tcsh
[ "$err" = "ncclog: completions: unknown subcommand 'tcsh' (bash, zsh or fish) (see ncclog completions --help)" ] && ok ||
	fail "completions tcsh: '$err'"

# hostile bytes: binary, NUL, invalid UTF-8, escapes, 10 MB line
head -c 200000 /dev/urandom >"$tmp/binary.log"
expect_any() { "$@" >"$tmp/out" 2>"$tmp/err"; local s=$?; out=$(cat "$tmp/out"); if [ $s -le 1 ]; then ok; else fail "$*: exit $s"; fi; }
expect 3 "binary" -- "$bin" analyze --format json "$tmp/binary.log"
printf 'node-a:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\0\xff\xfe\n\xc3\x28 node-a:1:1 [0] misc/socket.cc:1 NCCL WARN socketProgress: Connection closed by remote peer \x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31m\bboom\n' >"$tmp/evil.log"
expect_any "$bin" analyze --format json "$tmp/evil.log"
valid_json "invalid UTF-8 in JSON"
python3 - "$tmp/out" <<'PY' && ok || fail "JSON strings must be valid UTF-8 without raw controls"
import json, sys
raw = open(sys.argv[1], 'rb').read()
raw.decode('utf-8')
assert b'\x1b' not in raw and b'\x07' not in raw and b'\x9b' not in raw
PY
expect_any "$bin" analyze -v --color always "$tmp/evil.log"
if LC_ALL=C grep -q $'\x07\|\x1b\]\|\x1b\[2J\|\x08' "$tmp/out"; then fail "raw control bytes in text output"; else ok; fi
contains "$out" '\x1b]52' "escape shown escaped"
python3 -c "import sys; sys.stdout.write('x' * 10_000_000 + '\nnode-a:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n')" >"$tmp/long.log"
/usr/bin/time -f '%M' -o "$tmp/rss" "$bin" analyze --format json "$tmp/long.log" >"$tmp/out" 2>/dev/null
valid_json "10 MB line"
rss=$(tail -n 1 "$tmp/rss")
if [ "$rss" -lt 65536 ]; then ok; else fail "10 MB line: peak RSS ${rss} KiB"; fi
contains "$(cat "$tmp/out")" "socket-iface-loopback" "the line after a 10 MB line is analyzed"

# never writes to an input
sum=$(sha256sum "$scen"/rank0.log)
"$bin" analyze "$scen"/rank0.log >/dev/null 2>&1
if [ "$sum" = "$(sha256sum "$scen"/rank0.log)" ]; then ok; else fail "input changed"; fi

# JSON contract fields
expect 1 "json" -- "$bin" analyze --format json "$scen"/rank*.log
python3 - "$tmp/out" <<'PY' && ok || fail "JSON contract"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tool"] == "ncclog" and d["version"]
assert d["inputs"][0]["file"].endswith("rank0.log") and d["inputs"][0]["lines"] > 0 and d["inputs"][0]["bytes"] > 0
j = d["job"]
assert j["nranks"] == 8 and j["ranks_seen"] == 8 and j["hosts"] == ["node-a", "node-b"], j
assert j["nccl_versions"]
r = {x["rank"]: x for x in d["ranks"] if x["pid"] is not None}
assert r[0]["host"] == "node-a" and r[0]["socket_iface"] == "eth1" and r[4]["socket_iface"] == "docker0"
f = {x["id"]: x for x in d["findings"]}
v = f["socket-iface-virtual"]
assert v["severity"] == "error" and v["ranks"] == [4, 5, 6, 7] and v["hosts"] == ["node-b"]
assert v["evidence"][0]["line"] >= 1 and "docker0" in v["evidence"][0]["text"]
assert "NCCL_SOCKET_IFNAME=eth1" in v["hint"]
PY

# markdown
expect 1 "markdown" -- "$bin" analyze --format markdown "$scen"/rank*.log
contains "$out" "<details><summary>evidence</summary>" "markdown evidence folded"
contains "$out" "| host | ranks |" "markdown table"

# colour only when asked or on a terminal
expect 1 "no colour in a pipe" -- "$bin" analyze "$scen"/rank0.log "$scen"/rank4.log
if grep -q $'\x1b\[' "$tmp/out"; then fail "colour in a pipe"; else ok; fi
expect 1 "colour forced" -- "$bin" analyze --color always "$scen"/rank0.log "$scen"/rank4.log
if grep -q $'\x1b\[1;31m' "$tmp/out"; then ok; else fail "no colour with --color always"; fi

# explain
expect 0 "explain" -- "$bin" explain socket-iface-loopback
contains "$out" "NCCL_SOCKET_IFNAME" "explain text"
expect 2 "explain unknown" -- "$bin" explain socket-iface-loopbak
contains "$err" "did you mean 'socket-iface-loopback'" "nearest id"
one_line "explain unknown"
expect 0 "explain --list" -- "$bin" explain --list
n=$(python3 -c "import json; print(len(json.load(open('$root/rules/catalog.json'))['findings']))")
if [ "$(wc -l <"$tmp/out")" -eq "$n" ]; then ok; else fail "explain --list: $(wc -l <"$tmp/out") lines for $n ids"; fi

# the wording of every sample's report, in each form: no doubled word
# ("on on"), no subject-less "on HOST use", verbs that agree with "rank N",
# no count with the wrong number ("1 processes", "0 hosts"), no hole a
# template left ("segment  of  bytes", "(CUDA device )")
for d in "$root"/samples/*/; do
	for form in "" -v "-f markdown"; do
		# shellcheck disable=SC2086
		"$bin" analyze --color never $form "$d"* 2>/dev/null | grep -v '^    ' | sed 's/`[^`]*`//g'
	done
done >"$tmp/wording"
[ "$(wc -l <"$tmp/wording")" -gt 1000 ] && ok || fail "wording: the reports were not made"
# the sentences ncclog words: verdicts, findings, consequences, first failures
grep -E '^(verdict: |first failure: |- (error|warning|info) )|(error|warning|info)\[[a-z0-9-]+\]: ' "$tmp/wording" \
	>"$tmp/sentences"
[ "$(wc -l <"$tmp/sentences")" -gt 500 ] && ok || fail "wording: too few sentences"
wording() { # FILE PATTERN WHAT
	if grep -nE -- "$2" "$1" >"$tmp/bad"; then fail "wording: $3: $(head -3 "$tmp/bad")"; else ok; fi
}
wording "$tmp/wording" '\b(on|the|a|of|to|in|is|and|rank|ranks) \1\b' "a doubled word"
wording "$tmp/wording" '(^|[^0-9.])1 (processes|errors|warnings|hosts|ranks|findings|nodes|files|lines)\b' "1 with a plural"
wording "$tmp/wording" '(^|[^0-9.])0 hosts\b' "0 hosts"
wording "$tmp/sentences" '(^|[:;] )on [^ :,;|]+ [a-z]' "a sentence with no subject (on HOST verb)"
wording "$tmp/sentences" '\brank [0-9]+( on [^ ]+)? (use|are|have|were|differ|talk|stage|disable|share|show|wait|hang)\b' \
	"rank N with a plural verb"
wording "$tmp/sentences" '\brank [0-9]+( on [^ ]+)? [^;:]* and (use|talk|stage|disable|share|show)\b' \
	"rank N ... and a plural verb"
wording "$tmp/sentences" '\branks [0-9]+[-,][0-9,-]*( on [^ ]+)? (uses|is|has|was|differs|talks|stages|disables|shows|waits|hangs)\b' \
	"ranks with a singular verb"
wording "$tmp/sentences" '[a-z]  +[a-z]|\( *\)| \)|\( |: *;' "a hole in the text"

# agreement where the samples have none: one rank, one process without a rank
{
	printf 'a:11:11 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\na:11:11 [0] NCCL INFO Using network Socket\n'
	printf 'a:11:11 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init START\n'
	printf 'b:22:22 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\nb:22:22 [0] NCCL INFO Using network Socket\n'
	printf 'b:22:22 [0] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 0 busId 1000 - Init START\n'
} >"$tmp/lo2.log"
expect 1 "one rank's subject" -- "$bin" analyze --color never "$tmp/lo2.log"
contains "$out" "error[socket-iface-loopback]: rank 0 on a uses the loopback interface lo (127.0.0.1); rank 1 on b uses eth0" \
	"a rank uses"
contains "$out" "hosts bootstrap on different networks: rank 0 on a uses lo (127.0.0.1), rank 1 on b uses eth0" "a rank uses (2)"
printf 'c:33:33 [0] NCCL INFO NET/IB : No device found.\nc:33:33 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.3<0>\n' >"$tmp/one.log"
printf 'c:33:33 [0] NCCL INFO Using network Socket\n' >>"$tmp/one.log"
expect 0 "one process's subject" -- "$bin" analyze --color never "$tmp/one.log"
contains "$out" "info[net-socket-fallback]: the process on c found no RDMA device and uses the Socket transport" "a process uses"
contains "$out" "job: communicator size unknown, 1 host" "1 host"

# doctor: its report ends on the totals; its srun example runs doctor once per node
expect_any env -i PATH="$PATH" "$bin" doctor --gpus 0 --color never
tail -n 1 "$tmp/out" | grep -qE '^[0-9]+ errors?, [0-9]+ warnings?, [0-9]+ info$' && ok ||
	fail "doctor: no totals line: $(tail -n 1 "$tmp/out")"
mkdir -p "$tmp/fake" "$tmp/srun"
printf '#!/bin/sh\necho "$FAKE_NODE"\n' >"$tmp/fake/hostname"
printf '#!/bin/sh\necho "{\\"node\\": {}}"\n' >"$tmp/fake/ncclog"
# srun runs its command on two nodes; a $(hostname) expanded by the shell that
# submits would name one file only
printf '#!/bin/sh\nshift\nfor n in n1 n2; do FAKE_NODE=$n "$@" || exit 1; done\n' >"$tmp/fake/srun"
chmod +x "$tmp/fake"/*
"$bin" doctor --help | grep '^ *srun ' >"$tmp/srunline" || fail "doctor --help: no srun example"
(cd "$tmp/srun" && FAKE_NODE=submit-host PATH="$tmp/fake:$PATH" sh -c "$(cat "$tmp/srunline")")
[ -s "$tmp/srun/doctor-n1.json" ] && [ -s "$tmp/srun/doctor-n2.json" ] && ok ||
	fail "doctor --help's srun example: wrote $(ls "$tmp/srun" | tr '\n' ' ')"

# redact -o makes the missing directories above its own
expect 0 "redact -o a/b/c" -- "$bin" redact -o "$tmp/red1/a/b" "$healthy"/node-a.log
[ -n "$(ls "$tmp/red1/a/b" 2>/dev/null)" ] && ok || fail "redact -o a/b: the directories were not made"
touch "$tmp/plainfile"
expect 2 "redact -o under a file" -- "$bin" redact -o "$tmp/plainfile/x" "$healthy"/node-a.log
[ "$err" = "ncclog: $tmp/plainfile/x: Not a directory" ] && ok || fail "redact -o FILE/x: '$err'"

# a 512-rank job on 64 hosts: the whole report fits one 50-line screen,
# with the verdict, the finding and the hosts folded
big=$root/samples/init-incomplete-512
expect 1 "512 ranks" -- "$bin" analyze --color never "$big"/*
[ "$(wc -l <"$tmp/out")" -le 50 ] && ok || fail "512 ranks: the report has $(wc -l <"$tmp/out") lines, more than 50"
contains "$out" "verdict: rank 170 on gpu-node-0021 started NCCL init but never logged Init COMPLETE" "512 ranks: the verdict"
contains "$out" "error[init-incomplete]: rank 170 on gpu-node-0021" "512 ranks: the finding"
contains "$out" "job: 512 of 512 ranks seen, 64 hosts" "512 ranks: the job"
contains "$out" "all 64 hosts alike except gpu-node-0021" "512 ranks: the summary folded"
contains "$out" "gpu-node-[0000-0020,0022-0063] (63 hosts): ranks 0-167,176-511 (8 per host)" "512 ranks: host ranges"
expect 1 "512 ranks -v" -- "$bin" analyze -v --color never "$big"/*
[ "$(wc -l <"$tmp/out")" -le 50 ] && ok || fail "512 ranks -v: $(wc -l <"$tmp/out") lines"

# quiet when the reader goes away
"$bin" analyze "$scen"/rank*.log 2>"$tmp/err" | head -c 10 >/dev/null
if [ ! -s "$tmp/err" ]; then ok; else fail "SIGPIPE not quiet: $(cat "$tmp/err")"; fi

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
