#!/bin/bash
# meson install into a fresh prefix: the binary finds its installed rules
# from anywhere, the man page renders without warnings (and its worked rule
# example passes `rules test`), and the completions, generated at build time
# from the option tables, complete: bash and zsh called as the shells call
# them (zsh with its completion builtins stubbed), fish parsed.
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
	share/bash-completion/completions/ncclog share/zsh/site-functions/_ncclog \
	share/fish/vendor_completions.d/ncclog.fish; do
	[ -s "$prefix/$f" ] || fail "not installed: $f"
done

# every rule file and the cause graph are installed, and the installed
# binary reports what the source tree's rules report
for f in "$src"/rules/*.json; do
	[ -s "$prefix/share/ncclog/rules/${f##*/}" ] || fail "not installed: share/ncclog/rules/${f##*/}"
done
env -u NCCLOG_RULES_DIR XDG_CONFIG_HOME="$tmp/none" "$prefix/bin/ncclog" analyze --color never "$src"/samples/dead-job-xid/* \
	>"$tmp/installed.txt" 2>&1
NCCLOG_RULES_DIR=$src/rules XDG_CONFIG_HOME="$tmp/none" "$prefix/bin/ncclog" analyze --color never "$src"/samples/dead-job-xid/* \
	>"$tmp/source.txt" 2>&1
cmp -s "$tmp/installed.txt" "$tmp/source.txt" || fail "the installed rules report otherwise: $(diff "$tmp/source.txt" "$tmp/installed.txt" | head -5)"

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
for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS COMPLETION "RULE FILES" REDACTION FILES ENVIRONMENT "EXIT STATUS"; do
	grep -q "^$section\$" "$tmp/man.txt" || fail "man page: no $section section"
done
for word in analyze view live explain rules redact doctor completions NO_COLOR NCCLOG_RULES_DIR XDG_CONFIG_HOME --color --format; do
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
for sh in bash zsh fish; do
	case $sh in
	bash) f=share/bash-completion/completions/ncclog ;;
	zsh) f=share/zsh/site-functions/_ncclog ;;
	fish) f=share/fish/vendor_completions.d/ncclog.fish ;;
	esac
	"$ncclog" completions $sh | cmp -s - "$prefix/$f" || fail "$f is not what ncclog completions $sh prints"
done
ids=$("$ncclog" explain --list | cut -d' ' -f1 | sort | tr '\n' ' ' | sed 's/ $//')
[ -n "$ids" ] || fail "explain --list: no ids"
check "$ncclog" "" = "--help --version analyze completions doctor explain live merge redact rules view"
check "$ncclog" "re" = "redact"
check "$ncclog" help an = "analyze"
check "$ncclog" analyze --fo = "--format"
check "$ncclog" analyze --format "" = "html json markdown text"
check "$ncclog" analyze -f "" = "html json markdown text"
check "$ncclog" analyze --format = "" = "html json markdown text"
check "$ncclog" merge --format "" = "html json markdown text"
check "$ncclog" live --format "" = "json text"
check "$ncclog" doctor -f "" = "json markdown text"
check "$ncclog" analyze --color n = "never"
check "$ncclog" view --colour "" = "always auto never"
check "$ncclog" analyze --min-severity "" = "error info warning"
check "$ncclog" analyze --id socket-iface-l = "socket-iface-link-local socket-iface-loopback"
check "$ncclog" analyze --jobs "" = ""
check "$ncclog" rules "" = "--color --help --quiet --rules list test"
check "$ncclog" rules --color never "" = "--color --help --quiet --rules list test"
check "$ncclog" rules test --q = "--quiet"
check "$ncclog" redact --o = "--output-dir"
check "$ncclog" completions "" = "--help bash fish zsh"
check "$ncclog" explain socket-iface-l = "socket-iface-link-local socket-iface-loopback"
check "$ncclog" explain "" = "$ids"
check "$ncclog" doctor --pe = "--peer --peers"
mkdir -p "$tmp/logs/rank-dir" && touch "$tmp/logs/rank0.log" "$tmp/logs/rank1.log"
check "$ncclog" analyze "$tmp/logs/rank" = "$tmp/logs/rank-dir $tmp/logs/rank0.log $tmp/logs/rank1.log"
check "$ncclog" analyze --rules "$tmp/logs/rank" = "$tmp/logs/rank-dir $tmp/logs/rank0.log $tmp/logs/rank1.log"
check "$ncclog" rules test "$tmp/logs/rank" = "$tmp/logs/rank-dir $tmp/logs/rank0.log $tmp/logs/rank1.log"
check "$ncclog" redact -o "$tmp/logs/rank" = "$tmp/logs/rank-dir"

# zsh: the function parses, and completes with compadd, _describe and _files
# stubbed to print what they are given (zsh itself then filters by prefix)
zcomp=$prefix/share/zsh/site-functions/_ncclog
zcheck() { # words... = expected (space-separated, sorted)
	local want=${*: -1} got
	set -- "${@:1:$#-2}"
	got=$(zsh -f -c '
		compadd() { while (( $# )) && [[ $1 != -- ]]; do shift; done; shift; print -rl -- "$@"; }
		_describe() { local arr=${@[-1]}; print -rl -- ${${(P)arr}%%:*}; }
		_files() { print -r -- "@files${1:+ $1}"; }
		_call_program() { shift; eval "$@"; }
		compset() { PREFIX=${PREFIX#*=}; }
		compdef() { :; }
		source "$1"; shift
		words=("$@"); CURRENT=$#; PREFIX=$words[CURRENT]
		_ncclog | while IFS= read -r w; do [[ $w == ${PREFIX#*=}* || $w == @files* ]] && print -r -- $w; done
	' _ "$zcomp" "$@" | sort | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || fail "zsh completion of '$*': got '$got', want '$want'"
}
if command -v zsh >/dev/null; then
	zsh -n "$zcomp" || fail "zsh completion does not parse"
	zcheck "$ncclog" "" = "analyze completions doctor explain live merge redact rules view"
	zcheck "$ncclog" - = "--help --version"
	zcheck "$ncclog" explain "" = "$ids"
	zcheck "$ncclog" explain socket-iface-l = "socket-iface-link-local socket-iface-loopback"
	zcheck "$ncclog" analyze --format "" = "html json markdown text"
	zcheck "$ncclog" analyze --format= = "html json markdown text"
	zcheck "$ncclog" live -f j = "json"
	zcheck "$ncclog" rules "" = "--color --help --quiet --rules list test"
	zcheck "$ncclog" rules test "" = "@files"
	zcheck "$ncclog" redact -o "" = "@files -/"
	zcheck "$ncclog" analyze --min-severity w = "warning"
	zcheck "$ncclog" analyze --jobs "" = ""
else
	echo "install: zsh not installed, zsh completion not checked"
fi
if command -v fish >/dev/null; then
	fish -n "$prefix/share/fish/vendor_completions.d/ncclog.fish" || fail "fish completion does not parse"
else
	echo "install: fish not installed, fish completion not parsed"
fi

[ $fails -eq 0 ] && echo "install: ok"
exit $((fails > 0))
