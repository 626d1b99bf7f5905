#!/usr/bin/env bash
# Hostile inputs beyond cli.sh: a 1 GB line (piped and as a zstd bomb),
# files that grow, shrink or vanish while read, unreadable files, a log
# crafted to take over the terminal, a catastrophic user rule, a rule
# without a literal gate. Each asserts the exit code, the message and,
# where memory could grow, the peak RSS.
# usage: robust.sh NCCLOG SOURCE_ROOT
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# check "EXPR" "WHAT": EXPR is a test(1) expression, split into its words here
check() { if eval "[ $1 ]"; then ok; else fail "$2"; fi; }
contains() { if grep -qF -- "$2" <<<"$1"; then ok; else fail "$3: no '$2' in: ${1:0:300}"; fi; }
json_ids() { python3 -c 'import json,sys; print(" ".join(sorted({f["id"] for f in json.load(open(sys.argv[1]))["findings"]})))' "$1" 2>/dev/null; }
json_bytes() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["inputs"][0]["bytes"])' "$1" 2>/dev/null; }
# status: what the command exited with; under a sanitizer a report is a failure too
status_ok() { # STATUS WANT... WHAT
	local s=$1 what=${*: -1}
	shift
	for w in "${@:1:$#-1}"; do [ "$s" -eq "$w" ] && { ok; return; }; done
	fail "$what: exit $s"
}

# two hosts on loopback: an error whatever else the job shows (one host on
# loopback alone is a warning), so the exit status says the lines were read
loopback='node-a:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>
node-b:2:2 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>'
mb=$((1024 * 1024))
rss_max=$((64 * 1024)) # KiB

# --- a 1 GB line without newline, then one real line: cut, skipped, bounded ---
gen_gb() { head -c 1G /dev/zero | tr '\0' x; printf '\n%s\n' "$loopback"; }
start=$(date +%s)
gen_gb | /usr/bin/time -f '%M' -o "$tmp/rss" "$bin" analyze --format json >"$tmp/out" 2>"$tmp/err"
s=$?
took=$(($(date +%s) - start))
status_ok "$s" 1 "1 GB line"
check "$(json_bytes "$tmp/out")" "1 GB line: output is not JSON"
check "$(json_bytes "$tmp/out") = 1073741943" "1 GB line: all bytes read ($(json_bytes "$tmp/out"))"
contains "$(json_ids "$tmp/out")" "socket-iface-loopback" "1 GB line: the line after it is analyzed"
rss=$(tail -n 1 "$tmp/rss")
check "$rss -lt $rss_max" "1 GB line: peak RSS ${rss} KiB"
check "! -s $tmp/err" "1 GB line: stderr: $(head -c 300 "$tmp/err")"
echo "1 GB line: ${took}s, peak RSS ${rss} KiB"

# the same gigabyte as a 40 KB zstd file: a decompression bomb is just a long line
if command -v zstd >/dev/null; then
	gen_gb | zstd -q -1 -c >"$tmp/bomb.zst"
	/usr/bin/time -f '%M' -o "$tmp/rss" "$bin" analyze --format json "$tmp/bomb.zst" >"$tmp/out" 2>"$tmp/err"
	status_ok $? 1 "zstd bomb"
	check "$(json_bytes "$tmp/out") = 1073741943" "zstd bomb: all bytes read"
	contains "$(json_ids "$tmp/out")" "socket-iface-loopback" "zstd bomb: the line after it is analyzed"
	rss=$(tail -n 1 "$tmp/rss")
	check "$rss -lt $rss_max" "zstd bomb: peak RSS ${rss} KiB"
	rm -f "$tmp/bomb.zst"
else
	echo "zstd bomb: skipped, no zstd"
fi

# --- a file that grows, shrinks or vanishes while it is read ---
# ncclog is stopped once it has read a few MiB of a big log, the file is
# changed, and ncclog goes on: whatever it finds, it must not crash.
python3 - "$tmp/big.log" <<'PY'
import sys
line = b"node-a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
with open(sys.argv[1], "wb") as f:
    f.write(line * (40 * 1024 * 1024 // len(line)))
PY
size=$(stat -c %s "$tmp/big.log")
# reading PID PATH: the offset of PID's descriptor on PATH, or empty
offset() {
	local fd
	for fd in /proc/"$1"/fd/*; do
		if [ "$(readlink "$fd")" = "$2" ]; then
			sed -n 's/^pos:[[:space:]]*//p' /proc/"$1"/fdinfo/"${fd##*/}"
			return
		fi
	done
}
# midread NAME ACTION: runs analyze on a copy of big.log, applies ACTION
# (a shell command over $f) once ncclog is stopped in the middle of it
midread() {
	local name=$1 action=$2 f="$tmp/$1.log" pid pos=0 i
	cp "$tmp/big.log" "$f"
	"$bin" analyze --format json "$f" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for i in $(seq 1 2000); do
		pos=$(offset "$pid" "$f")
		[ -n "$pos" ] && [ "$pos" -ge $((4 * mb)) ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.005
	done
	kill -STOP "$pid" 2>/dev/null
	pos=$(offset "$pid" "$f")
	if [ -z "$pos" ] || [ "$pos" -ge "$size" ]; then
		echo "$name: could not stop ncclog in the middle of the file (offset ${pos:-none}); checking it still ends well"
	fi
	eval "$action"
	kill -CONT "$pid" 2>/dev/null
	wait "$pid"
	midread_status=$?
	midread_pos=${pos:-0}
}
midread shrinks ': >"$f"'
status_ok "$midread_status" 0 1 "file truncated while read"
b=$(json_bytes "$tmp/out")
check "-n \"$b\"" "file truncated while read: output is not JSON"
check "${b:-0} -le $size" "file truncated while read: more bytes than the file had ($b)"
echo "truncated at offset $midread_pos: $b of $size bytes analyzed"
midread grows 'printf "%s\n" "$loopback" >>"$f"'
status_ok "$midread_status" 1 "file grown while read"
contains "$(json_ids "$tmp/out")" "socket-iface-loopback" "file grown while read: the appended line is analyzed"
midread vanishes 'rm -f "$f"'
status_ok "$midread_status" 0 "file removed while read"
check "$(json_bytes "$tmp/out") = $size" "file removed while read: the open file is read to its end"
check "! -s $tmp/err" "file removed while read: stderr: $(head -c 300 "$tmp/err")"
rm -f "$tmp/big.log"

# --- unreadable inputs: one line names each, the others are analyzed, exit 2 ---
healthy=$root/samples/healthy-2node-ib/node-a.log
# a read error after a successful open (EIO at offset 0 of a process's memory)
"$bin" analyze /proc/self/mem "$healthy" >"$tmp/out" 2>"$tmp/err"
status_ok $? 2 "read error"
contains "$(cat "$tmp/err")" "ncclog: /proc/self/mem: Input/output error" "read error message"
check "$(wc -l <"$tmp/err") -eq 1" "read error: $(wc -l <"$tmp/err") lines on stderr"
contains "$(cat "$tmp/out")" "job:" "read error: the other input is still analyzed"
# a file without read permission: root reads anything, so as root the check
# runs as nobody (setpriv), when nobody can reach the binary
printf '%s\n' "$loopback" >"$tmp/locked.log"
cp "$healthy" "$tmp/other.log"
chmod 000 "$tmp/locked.log"
chmod 755 "$tmp"
chmod 644 "$tmp/other.log"
as=()
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null &&
		setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" --version >/dev/null 2>&1; then
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		as=(skip)
	fi
fi
if [ "${as[0]:-}" = skip ]; then
	echo "unreadable file: skipped (running as root, and user nobody cannot run $bin)"
else
	"${as[@]}" "$bin" analyze "$tmp/locked.log" "$tmp/other.log" >"$tmp/out" 2>"$tmp/err"
	status_ok $? 2 "unreadable file"
	contains "$(cat "$tmp/err")" "ncclog: $tmp/locked.log: Permission denied" "unreadable file message"
	check "$(wc -l <"$tmp/err") -eq 1" "unreadable file: $(wc -l <"$tmp/err") lines on stderr"
	contains "$(cat "$tmp/out")" "job:" "unreadable file: the other input is still analyzed"
fi
chmod 700 "$tmp"

# --- terminal safety: a log crafted to repaint the screen ---
# One log per payload, whose lines fire findings, so that the payload is
# shown as evidence; next to it, how it must be shown.
python3 - "$tmp" <<'PY'
import sys
payloads = [
    (b"\x1b[2J\x1b[H\x1b[1;32mALL RANKS HEALTHY\x1b[0m", r"\x1b[2J\x1b[H\x1b[1;32mALL"),  # clear, home, colour
    (b"\x1b]52;c;cm0gLXJmIH4K\x07", r"\x1b]52;c;cm0gLXJmIH4K\x07"),              # OSC 52: write the clipboard
    (b"\x1b]0;owned\x07\x1b]2;owned\x1b\\", "\\x1b]0;owned\\x07\\x1b]2;owned\\x1b\\"),  # window title, BEL and ST ends
    (b"\x07\x07\x07", r"\x07\x07\x07"),                                             # bell
    (b"error\x08\x08\x08\x08\x08fine!", r"error\x08\x08\x08\x08\x08fine!"),          # backspace overwrite
    (b"\x9b2J\x9d0;c1\x9c", r"\x9b2J\x9d0;c1\x9c"),                                 # raw C1 CSI/OSC/ST bytes
    (b"\xc2\x9b2J\xc2\x9d0;c1\xc2\x9c", r"\xc2\x9b2J\xc2\x9d0;c1\xc2\x9c"),         # C1 controls as UTF-8
    (b"\x1bP+q544e\x1b\\\x1b[6n\x1b[c", "\\x1bP+q544e\\x1b\\\\x1b[6n\\x1b[c"),   # DCS and terminal queries
    (b"\x7f\x1b", r"\x7f\x1b"),                                                   # DEL, a lone ESC at the end
    (b"\x00\x1b[2J", None),                                                        # NUL
    (b"FAILED\rOK    ", None),                                                      # carriage-return overwrite
]
for i, (p, shown) in enumerate(payloads):
    with open(f"{sys.argv[1]}/repaint{i}.log", "wb") as f:
        f.write(b"node-a:1:1 [0] misc/socket.cc:1 NCCL WARN socketProgress: Connection closed by remote peer %s\n" % p)
        f.write(b"node-a:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0> %s\n" % p)
    with open(f"{sys.argv[1]}/repaint{i}.shown", "w") as f:
        f.write(shown or "")
PY
# Every report of every payload, then one check over all of them: valid
# UTF-8, no control character but newline and tab, no C1; with colour, SGR
# (ESC [ digits ; m) is the only escape sequence. The payload is shown
# escaped in text, and JSON carries the same escaped text.
for log in "$tmp"/repaint*.log; do
	for mode in never always; do
		"$bin" analyze --color "$mode" "$log" >"${log%.log}.text-$mode" 2>"$tmp/err"
		status_ok $? 1 "${log##*/}, colour $mode"
	done
	for fmt in json markdown; do
		"$bin" analyze --format "$fmt" "$log" >"${log%.log}.$fmt" 2>"$tmp/err"
		status_ok $? 1 "${log##*/}, $fmt"
	done
done
python3 - "$tmp" >"$tmp/checks" <<'PY'
import glob, json, re, sys
for shown_file in sorted(glob.glob(sys.argv[1] + "/repaint*.shown")):
    base = shown_file[:-len(".shown")]
    name = base.rsplit("/", 1)[1]
    shown = open(shown_file).read()
    for kind in ("text-never", "text-always", "json", "markdown"):
        raw = open(f"{base}.{kind}", "rb").read()
        if kind == "text-always":
            raw = re.sub(rb"\x1b\[[0-9;]*m", b"", raw)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            print(f"FAIL: {name}, {kind}: invalid UTF-8: {e}")
            continue
        bad = sorted({hex(ord(c)) for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f})
        print(f"FAIL: {name}, {kind}: raw control characters {' '.join(bad)}" if bad else "ok")
        if not shown:
            continue
        if kind == "json":
            d = json.loads(text)
            text = " ".join(e["text"] for f in d["findings"] for e in f["evidence"])
            if "\\x9b" in shown and "\\xc2" not in shown:
                shown = "\ufffd2J\ufffd0;c1\ufffd"  # raw bytes, not UTF-8: U+FFFD in JSON
        if kind in ("text-never", "json"):
            print("ok" if shown in text else f"FAIL: {name}, {kind}: '{shown}' is not shown in: {text[:300]}")
PY
passed=$((passed + $(grep -c '^ok$' "$tmp/checks")))
n=$(grep -c '^FAIL' "$tmp/checks")
failed=$((failed + n))
grep '^FAIL' "$tmp/checks"
check "$(grep -c '^ok$' "$tmp/checks") -ge 60" "repaint logs: only $(grep -c '^ok$' "$tmp/checks") checks ran"

# --- a catastrophic user rule: bounded by the match limit, reported once ---
cat >"$tmp/evil.json" <<'JSON'
{"rules": [{"id": "site-evil", "gate": "aaaa", "pattern": "(a+)+$",
  "finding": "site-evil", "title": "exponential backtracking", "severity": "error",
  "message": "never"}]}
JSON
LOOPBACK=$loopback python3 -c "
import os, sys
for i in range(2000):
    sys.stdout.write('a' * 40 + '!\n')
sys.stdout.write(os.environ['LOOPBACK'] + '\n')" >"$tmp/aaa.log"
start=$(date +%s)
timeout 60 "$bin" analyze --format json --rules "$tmp/evil.json" "$tmp/aaa.log" >"$tmp/out" 2>"$tmp/err"
s=$?
took=$(($(date +%s) - start))
status_ok "$s" 1 "catastrophic rule"
check "$took -le 10" "catastrophic rule: took ${took}s"
n=$(grep -c 'site-evil' "$tmp/err")
check "$n -eq 1" "catastrophic rule: reported $n times on stderr"
contains "$(cat "$tmp/err")" "ncclog: rule site-evil ($tmp/evil.json:1) gave up on a line at the match limit: that line counts as not matched by it, and the rule goes on with the others" "catastrophic rule message"
contains "$(json_ids "$tmp/out")" "socket-iface-loopback" "catastrophic rule: the other rules still run"

# --- a line crafted to drive comm-init to its limit changes no finding ---
# Once such a line switched the rule off for the run: the Init START lines
# after it were never read and init-incomplete turned into a warning.
sample=$root/samples/init-incomplete/slurm-551204.log
python3 -c "
import sys
sys.stdout.write('host1:1:1 [0] NCCL INFO ' + 'comm 0x1 rank 1 nranks 1 cudaDev 1 ' * 7000 + 'Init START\\n')" >"$tmp/limit.log"
cat "$tmp/limit.log" "$sample" >"$tmp/limit-mix.log"
"$bin" analyze --format json "$sample" >"$tmp/plain.json" 2>/dev/null
"$bin" analyze --format json "$tmp/limit-mix.log" >"$tmp/mix.json" 2>"$tmp/err"
status_ok $? 1 "crafted comm-init line: exit status"
check "\"$(json_ids "$tmp/mix.json")\" = \"$(json_ids "$tmp/plain.json")\"" "crafted comm-init line: findings $(json_ids "$tmp/mix.json")"
check "! -s $tmp/err" "crafted comm-init line: stderr $(head -c 300 "$tmp/err")"

# --- rule lint: a pattern without a literal gate is refused where it stands ---
printf '{"rules": [\n  {"id": "no-gate",\n   "pattern": "(?<x>\\\\w+) failed", "finding": "cuda-oom"}]}\n' >"$tmp/nogate.json"
"$bin" analyze --rules "$tmp/nogate.json" /dev/null >"$tmp/out" 2>"$tmp/err"
status_ok $? 2 "rule without gate"
contains "$(cat "$tmp/err")" "ncclog: $tmp/nogate.json:2:3: a rule needs a \"gate\"" "rule without gate: file:line:col"
check "$(wc -l <"$tmp/err") -eq 1" "rule without gate: one line on stderr"
printf '{"rules": [\n  {"id": "empty-gate", "gate": [],\n   "pattern": "x failed", "finding": "cuda-oom"}]}\n' >"$tmp/emptygate.json"
"$bin" analyze --rules "$tmp/emptygate.json" /dev/null >"$tmp/out" 2>"$tmp/err"
status_ok $? 2 "rule with an empty gate list"
contains "$(cat "$tmp/err")" "ncclog: $tmp/emptygate.json:2:" "rule with an empty gate list: file:line:col"

echo "robust: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
