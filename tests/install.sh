#!/bin/bash
# meson install into a fresh prefix: the binary finds its installed rules
# from anywhere, the man page renders without warnings (and its worked rule
# example passes `rules test`), and the bash completion completes.
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

prefix=$tmp/prefix
# buildtype plain: no optimisation, the quickest build that installs the real thing
if ! meson setup "$tmp/build" "$src" --prefix="$prefix" --buildtype=plain >"$tmp/log" 2>&1 ||
	! nice meson compile -C "$tmp/build" >>"$tmp/log" 2>&1 ||
	! meson install -C "$tmp/build" --quiet >>"$tmp/log" 2>&1; then
	tail -20 "$tmp/log"
	echo "FAIL: build and install"
	exit 1
fi
for f in bin/ncclog share/ncclog/rules/catalog.json share/ncclog/rules/20-network.json share/man/man1/ncclog.1 \
	share/bash-completion/completions/ncclog share/zsh/site-functions/_ncclog; do
	[ -s "$prefix/$f" ] || fail "not installed: $f"
done

# the installed binary finds the installed rules, not the source tree's
ncclog=$prefix/bin/ncclog
cp -r "$src/samples/cuda-oom" "$tmp/job"
rm -rf "$tmp/build"
(
	cd "$tmp" || exit 1
	env -u NCCLOG_RULES_DIR XDG_CONFIG_HOME="$tmp/none" "$ncclog" analyze --color never job/vllm.log >out
	[ $? -eq 1 ] || echo "FAIL: installed analyze exit"
	grep -q 'error\[cuda-oom\]' out || echo "FAIL: installed analyze findings"
	env -u NCCLOG_RULES_DIR XDG_CONFIG_HOME="$tmp/none" "$ncclog" rules list | head -1 |
		grep -q "$prefix/share/ncclog/rules/10-lifecycle.json:" || echo "FAIL: rules come from the prefix"
	env -u NCCLOG_RULES_DIR XDG_CONFIG_HOME="$tmp/none" "$ncclog" rules test -q >/dev/null || echo "FAIL: installed rules test"
) >"$tmp/sub" 2>&1
grep FAIL "$tmp/sub" && fails=$((fails + 1))

# the man page renders, without a groff warning
man=$prefix/share/man/man1/ncclog.1
MANWIDTH=80 MANPAGER=cat man -l "$man" >"$tmp/man.txt" 2>"$tmp/man.err" || fail "man -l exit $?"
[ -s "$tmp/man.err" ] && fail "man warnings: $(head -3 "$tmp/man.err")"
groff -man -Tutf8 -ww -z "$man" 2>"$tmp/groff.err"
[ -s "$tmp/groff.err" ] && fail "groff warnings: $(head -3 "$tmp/groff.err")"
for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "RULE FILES" REDACTION FILES ENVIRONMENT "EXIT STATUS"; do
	grep -q "^$section\$" "$tmp/man.txt" || fail "man page: no $section section"
done
for word in analyze view live explain rules redact doctor NO_COLOR NCCLOG_RULES_DIR XDG_CONFIG_HOME --color --format; do
	grep -q -- "$word" "$tmp/man.txt" || fail "man page does not mention $word"
done
# the worked example of a site rule is real: it passes rules test
sed -n '/^{"rules": \[{$/,/^}\]}$/p' "$man" | sed 's/\\e/\\/g; s/\\-/-/g' >"$tmp/site.json"
[ -s "$tmp/site.json" ] || fail "no rule example in the man page"
NCCLOG_RULES_DIR=$prefix/share/ncclog/rules XDG_CONFIG_HOME=$tmp/none "$ncclog" rules test "$tmp/site.json" >"$tmp/rt" 2>&1 ||
	fail "the man page's rule example: $(cat "$tmp/rt")"

# bash completion: the installed file, called as bash calls it
complete_words() { # prints COMPREPLY for the words given, the last one being completed
	bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_ncclog
		printf "%s\n" "${COMPREPLY[@]}"' _ "$prefix/share/bash-completion/completions/ncclog" "$@"
}
check() { # words... = expected (space-separated, sorted)
	local want=${*: -1} got
	set -- "${@:1:$#-2}"
	got=$(complete_words "$@" | sort | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || fail "completion of '$*': got '$got', want '$want'"
}
check "$ncclog" "" = "--help --version analyze doctor explain live merge redact rules view"
check "$ncclog" "re" = "redact"
check "$ncclog" analyze --fo = "--format"
check "$ncclog" analyze --format "" = "html json markdown text"
check "$ncclog" analyze --color n = "never"
check "$ncclog" rules "" = "--help list test"
check "$ncclog" redact --o = "--output-dir"
check "$ncclog" explain socket-iface-l = "socket-iface-link-local socket-iface-loopback"
mkdir -p "$tmp/logs" && touch "$tmp/logs/rank0.log" "$tmp/logs/rank1.log"
check "$ncclog" analyze "$tmp/logs/rank" = "$tmp/logs/rank0.log $tmp/logs/rank1.log"
# zsh: the completion function parses
if command -v zsh >/dev/null; then
	zsh -n "$prefix/share/zsh/site-functions/_ncclog" || fail "zsh completion does not parse"
fi

[ $fails -eq 0 ] && echo "install: ok"
exit $((fails > 0))
