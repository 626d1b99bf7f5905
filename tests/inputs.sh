#!/bin/bash
# Inputs that once read as healthy or hung: zstd written by pzstd, with a
# skippable frame first, in the seekable format or with a 2 GiB window; a
# frame asking for more; gzip with a bad CRC (a small file kept nothing) or
# trailing garbage; a FIFO whose writer comes late; rule files that are
# FIFOs or devices. Each case checks the findings, the exit status and the
# message; nothing here sleeps: waits are on conditions, under a timeout.
# usage: inputs.sh NCCLOG SOURCE_ROOT [SANITIZE]
set -u
ncclog=$1
samples=$2/samples
sanitize=${3:-none} # AddressSanitizer maps shadow memory for the whole window
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ids() { # the sorted severity[id] headers of a text report on stdin
	grep -o '^\([^ ].*: \)\?\(error\|warning\|info\)\[[a-z0-9-]*\]' | sed 's/.*: //' | sort -u
}
lines_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["inputs"][0]["lines"])' "$1" 2>/dev/null; }

f=$samples/cuda-oom/vllm.log
want=$("$ncclog" analyze --color never "$f" | ids)
[ -n "$want" ] || fail "no finding in $f"
nlines=$(wc -l <"$f")

# --- zstd frame forms: each must give the findings of the plain file ---
if command -v pzstd >/dev/null; then
	pzstd -q -p 2 -c "$f" >"$tmp/pzstd.zst" 2>/dev/null
	[ "$("$ncclog" analyze --color never "$tmp/pzstd.zst" | ids)" = "$want" ] || fail "pzstd: findings differ"
	[ "$(pzstd -q -c "$f" 2>/dev/null | "$ncclog" analyze --color never | ids)" = "$want" ] || fail "pzstd on stdin"
else
	echo "pzstd: skipped, no pzstd"
fi
zstd -q -c "$f" >"$tmp/plain.zst"
python3 - "$tmp" "$f" <<'PY'
import struct, subprocess, sys
tmp, log = sys.argv[1], sys.argv[2]
frame = open(f"{tmp}/plain.zst", "rb").read()
def skippable(magic, payload):
    return struct.pack("<II", magic, len(payload)) + payload
# a skippable frame first, of each magic in the range
for m in (0x184D2A50, 0x184D2A57, 0x184D2A5F):
    open(f"{tmp}/skip-{m:x}.zst", "wb").write(skippable(m, b"metadata") + frame)
# the seekable format: frames, then a seek table in a skippable frame
data = open(log, "rb").read()
half = data.index(b"\n", len(data) // 2) + 1
parts = [subprocess.run(["zstd", "-q", "-c"], input=p, capture_output=True).stdout for p in (data[:half], data[half:])]
table = b"".join(struct.pack("<II", len(c), len(p)) for c, p in zip(parts, (data[:half], data[half:])))
table += struct.pack("<IBI", len(parts), 0, 0x8F92EAB1)
open(f"{tmp}/seekable.zst", "wb").write(b"".join(parts) + skippable(0x184D2A5E, table))
# a frame that asks for a 4 GiB window (above zstd's own 2 GiB limit)
open(f"{tmp}/huge-window.zst", "wb").write(bytes([0x28, 0xb5, 0x2f, 0xfd, 0x00, 22 << 3, 0x01, 0x00, 0x00]))
PY
for x in skip-184d2a50 skip-184d2a57 skip-184d2a5f seekable; do
	got=$("$ncclog" analyze --color never "$tmp/$x.zst" 2>"$tmp/err" | ids)
	[ "$got" = "$want" ] || fail "$x.zst: findings '$got', want '$want' ($(head -c 200 "$tmp/err"))"
	[ "$(cat "$tmp/$x.zst" | "$ncclog" analyze --color never | ids)" = "$want" ] || fail "$x.zst on stdin"
done
# a 2 GiB window, as zstd --long=31 writes it on a pipe: valid, and the memory
# taken is what the data needs, not the window (the window is allocated, but
# only the pages written count; MALLOC_PERTURB_, which meson sets, would
# write them all)
zstd -q --long=31 -c <"$f" >"$tmp/long31.zst"
env -u MALLOC_PERTURB_ /usr/bin/time -f '%M' -o "$tmp/rss" "$ncclog" analyze --color never "$tmp/long31.zst" >"$tmp/out" 2>"$tmp/err"
[ "$(ids <"$tmp/out")" = "$want" ] || fail "--long=31: findings differ: $(head -c 200 "$tmp/err")"
rss=$(tail -n 1 "$tmp/rss")
[ "$sanitize" != none ] || [ "$rss" -lt $((64 * 1024)) ] || fail "--long=31: peak RSS $rss KiB"
"$ncclog" analyze "$tmp/huge-window.zst" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "4 GiB window: exit $rc"
grep -qx "ncclog: $tmp/huge-window.zst: a zstd frame needs a decoding window above the 2048 MiB limit" "$tmp/err" ||
	fail "4 GiB window: message $(cat "$tmp/err")"

# --- gzip damage after the data: every line is analyzed, then exit 2 ---
gzip -c "$f" >"$tmp/ok.gz"
python3 - "$tmp" <<'PY'
import sys
tmp = sys.argv[1]
d = bytearray(open(f"{tmp}/ok.gz", "rb").read())
d[-8] ^= 0xff  # the CRC32 of the member
open(f"{tmp}/crc.gz", "wb").write(d)
open(f"{tmp}/garbage.gz", "wb").write(open(f"{tmp}/ok.gz", "rb").read() + b"\0\0junk after the member\n")
PY
for x in crc garbage; do
	"$ncclog" analyze -f json "$tmp/$x.gz" >"$tmp/out.json" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$x.gz: exit $rc"
	[ "$(lines_of "$tmp/out.json")" = "$nlines" ] || fail "$x.gz: $(lines_of "$tmp/out.json") of $nlines lines analyzed"
	[ "$("$ncclog" analyze --color never "$tmp/$x.gz" 2>/dev/null | ids)" = "$want" ] || fail "$x.gz: findings differ"
done
grep -qx "ncclog: $tmp/crc.gz: corrupt gzip data (incorrect data check)" <("$ncclog" analyze "$tmp/crc.gz" 2>&1 >/dev/null) ||
	fail "crc.gz: message"
grep -qx "ncclog: $tmp/garbage.gz: trailing garbage after the gzip data, ignored" \
	<("$ncclog" analyze "$tmp/garbage.gz" 2>&1 >/dev/null) || fail "garbage.gz: message"

# --- a FIFO whose writer comes after ncclog has opened it ---
# waits until the reader holds the FIFO open (or has ended: the old bug, an
# empty input read at once), then writes
holds() { # PID PATH: true once PID has PATH open
	local fd
	for fd in /proc/"$1"/fd/*; do [ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0; done
	return 1
}
mkfifo "$tmp/late.fifo"
"$ncclog" analyze --color never "$tmp/late.fifo" >"$tmp/out" 2>"$tmp/err" &
pid=$!
while kill -0 $pid 2>/dev/null && ! holds $pid "$tmp/late.fifo"; do sleep 0.05; done
if kill -0 $pid 2>/dev/null; then
	timeout 20 cat "$f" >"$tmp/late.fifo"
	wait $pid
	rc=$?
	[ $rc -eq 1 ] || fail "late FIFO writer: exit $rc: $(head -c 200 "$tmp/err")"
	[ "$(ids <"$tmp/out")" = "$want" ] || fail "late FIFO writer: findings '$(ids <"$tmp/out")'"
else
	wait $pid
	fail "late FIFO writer: ncclog ended before the writer came (exit $?): $(tail -n 1 "$tmp/out")"
fi

# a FIFO is read once: redact learns its names as it reads, as on standard input
mkfifo "$tmp/redact.fifo"
(timeout 20 cat "$f" >"$tmp/redact.fifo") &
timeout 20 "$ncclog" redact "$tmp/redact.fifo" >"$tmp/out" 2>"$tmp/err"
rc=$?
wait
[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/out")" = "$nlines" ] || fail "redact FIFO: exit $rc, $(wc -l <"$tmp/out") lines"
(timeout 20 cat "$f" >"$tmp/redact.fifo") &
[ "$(timeout 20 "$ncclog" analyze --redact --color never "$tmp/redact.fifo" | ids)" = "$want" ] ||
	fail "analyze --redact FIFO: findings differ"
wait

# --- rule files that are not regular files never block ---
mkfifo "$tmp/rules.fifo"
timeout 20 "$ncclog" analyze --rules "$tmp/rules.fifo" "$f" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "--rules FIFO: exit $rc"
grep -qx "ncclog: $tmp/rules.fifo: is a FIFO, not a regular file" "$tmp/err" || fail "--rules FIFO: message $(cat "$tmp/err")"
timeout 20 "$ncclog" analyze --rules /dev/zero "$f" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -qx "ncclog: /dev/zero: is a device, not a regular file" "$tmp/err" ||
	fail "--rules /dev/zero: exit $rc, $(cat "$tmp/err")"
timeout 20 "$ncclog" rules list --rules "$tmp/rules.fifo" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "rules list --rules FIFO: exit $rc"
# in a rules directory (the user's rules.d, or --rules DIR): skipped with a note
mkdir -p "$tmp/cfg/ncclog/rules.d" "$tmp/dir"
mkfifo "$tmp/cfg/ncclog/rules.d/10-fifo.json" "$tmp/dir/fifo.json"
ln -s /dev/null "$tmp/dir/null.json"
cat >"$tmp/dir/site.json" <<'EOF'
{"rules": [{"id": "site-marker", "gate": "SITE MARKER", "pattern": "SITE MARKER", "finding": "site-marker",
  "title": "a site rule", "severity": "warning", "message": "marker", "samples": ["SITE MARKER"]}]}
EOF
printf 'SITE MARKER\n' >"$tmp/marker.log"
XDG_CONFIG_HOME=$tmp/cfg timeout 20 "$ncclog" analyze --color never --rules "$tmp/dir" "$f" "$tmp/marker.log" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "FIFOs in rule directories: exit $rc: $(cat "$tmp/err")"
[ "$(ids <"$tmp/out")" = "$(printf '%s\nwarning[site-marker]\n' "$want" | sort -u)" ] ||
	fail "FIFOs in rule directories: findings $(ids <"$tmp/out" | tr '\n' ' ')"
for x in "$tmp/cfg/ncclog/rules.d/10-fifo.json: is a FIFO" "$tmp/dir/fifo.json: is a FIFO" "$tmp/dir/null.json: is a device"; do
	grep -q "$x, not a regular file; skipped" "$tmp/err" || fail "no note for $x: $(cat "$tmp/err")"
done

# --- a report that is not a log is told by its first bytes, whatever they are:
# blank lines, a byte-order mark, a banner, a compressed stream (a skippable
# zstd frame first) ---
r=$samples/ras-monitor-json
want=$("$ncclog" analyze --color never "$r/train.log" "$r/ras-events.json" | ids)
tail -n +3 "$r/ras-events.json" >"$tmp/ras-bare.json"
{ printf '\n \r\n\t'; cat "$tmp/ras-bare.json"; } >"$tmp/ras-blank.json"
{ printf '\xef\xbb\xbf'; cat "$tmp/ras-bare.json"; } >"$tmp/ras-bom.json"
gzip -c "$r/ras-events.json" >"$tmp/ras.json.gz"
python3 - "$r/ras-events.json" "$tmp/ras-skip.json.zst" <<'PY'
import struct, subprocess, sys
frame = subprocess.run(["zstd", "-q", "-c", sys.argv[1]], capture_output=True, check=True).stdout
open(sys.argv[2], "wb").write(struct.pack("<II", 0x184D2A50, 4) + b"meta" + frame)
PY
for x in ras-bare.json ras-blank.json ras-bom.json ras.json.gz ras-skip.json.zst; do
	got=$("$ncclog" analyze --color never "$r/train.log" "$tmp/$x" | ids)
	[ "$got" = "$want" ] || fail "$x: findings '$(echo $got)', want '$(echo $want)'"
done

[ $fails -eq 0 ] && echo "inputs: ok"
exit $((fails > 0))
