#!/bin/bash
# What every command shares: --help on stdout with exit 0, --color on every
# command that prints (colour only on a terminal or when forced, never under
# NO_COLOR), errors as "ncclog: file: message" with exit 2.
set -u
ncclog=$1
samples=$2/samples
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
log=$samples/cuda-oom/vllm.log

for cmd in analyze explain "rules list" "rules test" redact; do
	# shellcheck disable=SC2086
	"$ncclog" $cmd --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] || fail "$cmd --help: exit $rc"
	grep -q "^usage: ncclog ${cmd%% *}" "$tmp/out" || fail "$cmd --help: no usage on stdout"
	[ -s "$tmp/err" ] && fail "$cmd --help: wrote to stderr"
	grep -q -- "--color" "$tmp/out" || fail "$cmd --help: no --color"
done
"$ncclog" --version | grep -q "NCCL 2.0 to 2.30" || fail "--version lists the known NCCL formats"

esc=$'\033['
has_esc() { grep -qF "$esc" "$1"; }
# forced colour where it means something; none when piped
"$ncclog" analyze --color always "$log" >"$tmp/out"
has_esc "$tmp/out" || fail "analyze --color always"
"$ncclog" analyze "$log" >"$tmp/out"
has_esc "$tmp/out" && fail "analyze colours a pipe"
"$ncclog" explain --color always cuda-oom >"$tmp/out" || fail "explain --color always: exit $?"
has_esc "$tmp/out" || fail "explain --color always"
NO_COLOR=1 "$ncclog" explain --color auto cuda-oom >"$tmp/out"
has_esc "$tmp/out" && fail "explain under NO_COLOR"
"$ncclog" rules list --color always >"$tmp/out" || fail "rules list --color: exit $?"
has_esc "$tmp/out" || fail "rules list --color always"
"$ncclog" rules test --color=never -q >"$tmp/out" || fail "rules test --color=never: exit $?"
has_esc "$tmp/out" && fail "rules test --color=never"
# the redacted copy is data: never coloured, even when forced
"$ncclog" redact --color always "$log" >"$tmp/out" || fail "redact --color: exit $?"
has_esc "$tmp/out" && fail "redact output coloured"
for cmd in analyze explain "rules list" redact; do
	# shellcheck disable=SC2086
	"$ncclog" $cmd --color sometimes x >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$cmd --color sometimes: exit $rc"
	grep -Eq "^ncclog( [a-z]+)?: .*--color takes auto, always or never" "$tmp/err" || fail "$cmd: bad --color message: $(cat "$tmp/err")"
done

# errors: "ncclog: file: message", exit 2, the other inputs still handled
for cmd in analyze redact; do
	"$ncclog" $cmd "$tmp/missing.log" "$log" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$cmd of a missing file: exit $rc"
	[ "$(cat "$tmp/err")" = "ncclog: $tmp/missing.log: No such file or directory" ] ||
		fail "$cmd of a missing file: $(cat "$tmp/err")"
	[ -s "$tmp/out" ] || fail "$cmd: the readable input is still handled"
done
"$ncclog" redact -o "$tmp/out.d" "$samples" 2>"$tmp/err"
grep -q "^ncclog: $samples: is a directory" "$tmp/err" || fail "redact of a directory: $(cat "$tmp/err")"
printf 'x' >"$tmp/file"
"$ncclog" redact -o "$tmp/file" "$log" 2>"$tmp/err"
[ $? -eq 2 ] || fail "redact into a file as output directory"
grep -q "^ncclog: $tmp/file/vllm.log: Not a directory" "$tmp/err" || fail "redact -o FILE: $(cat "$tmp/err")"
cp "$log" "$tmp/x.log"
"$ncclog" redact -o "$tmp" "$tmp/x.log" 2>"$tmp/err"
grep -q "is the input itself" "$tmp/err" || fail "redact onto its own input: $(cat "$tmp/err")"
cmp -s "$log" "$tmp/x.log" || fail "redact overwrote its input"

[ $fails -eq 0 ] && echo "conventions: ok"
exit $((fails > 0))
