# Shared helpers of the shell test scripts; source it, then call the helpers.
#
#   . "$(dirname "$0")/lib.sh"
#   lib_init NAME           # $tmp, counters, cleanup on exit
#   ok / fail WHAT          # count a result (fail prints it)
#   check COND WHAT         # ok when COND is a non-empty string
#   lib_finish              # "NAME: N passed, M failed", the exit status
#   same_report A B WHAT ARG...  # $bin ARG... says the same under settings A and B
#
# Terminal tests drive the real program in tmux (tig's way: keys in, screen
# dumps out). They wait on what the screen shows, never on fixed sleeps, so
# a loaded machine makes them slower, not red:
#
#   tui_init                # a private tmux server (or exit 77 without tmux)
#   session COLS ROWS [LANG] # a fresh shell in a window of that size
#   keys KEY...             # tmux send-keys
#   wait_for REGEX WHAT     # polls the screen until REGEX shows
#   gone REGEX WHAT         # polls until REGEX is no longer shown
#   has / lacks REGEX WHAT  # the screen as last captured
#   sane WHAT               # the prompt is back and the terminal is cooked
#
# LIB_WAIT (seconds, default 60) bounds every wait: a condition that does
# not come true in that time is a failure, reported with the screen.

lib_init() {
	lib_name=$1
	tmp=$(mktemp -d)
	passed=0
	failed=0
	trap lib_cleanup EXIT
}

lib_cleanup() {
	if [ -n "${lib_sock:-}" ]; then tmux -L "$lib_sock" kill-server 2>/dev/null; fi
	rm -rf "$tmp"
}

ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { if [ -n "$1" ]; then ok; else fail "$2"; fi; }

lib_finish() {
	echo "$lib_name: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# ncclog ($bin) run with ARG... under the environment settings A, then B
# (each "NAME=VALUE ..."), prints the same and exits the same; its standard
# input is $tmp/stdin when that exists
same_report() {
	local a=$1 b=$2 what=$3 in=/dev/null
	shift 3
	[ -f "$tmp/stdin" ] && in=$tmp/stdin
	# shellcheck disable=SC2086 # the settings are words
	env $a "$bin" "$@" >"$tmp/report-a" 2>&1 <"$in"
	echo "exit $?" >>"$tmp/report-a"
	# shellcheck disable=SC2086
	env $b "$bin" "$@" >"$tmp/report-b" 2>&1 <"$in"
	echo "exit $?" >>"$tmp/report-b"
	if cmp -s "$tmp/report-a" "$tmp/report-b"; then
		ok
	else
		fail "$what: the report under $b differs from the one under $a"
		diff "$tmp/report-a" "$tmp/report-b" | head -10
	fi
}

# ---- tmux ----

tui_init() {
	if ! command -v tmux >/dev/null; then
		echo "SKIP: tmux is not installed (scripts/install-deps.sh installs it)"
		exit 77
	fi
	lib_sock="ncclog-$lib_name-$$"
	lib_conf="$tmp/tmux.conf"
	# no user configuration; the server stays up while no session exists,
	# so that replacing a session never races the server's exit
	printf 'set -g exit-empty off\nset -g history-limit 0\nset -g status off\n' >"$lib_conf"
	tui_server
}

# Starts the server with a session that outlives the test sessions.
tui_server() {
	tmux -L "$lib_sock" -f "$lib_conf" new-session -d -s keep -x 80 -y 24 "exec tail -f /dev/null" 2>/dev/null
	tmux -L "$lib_sock" has-session -t keep 2>/dev/null
}

# tm ARGS: one tmux command. A failure is retried; when the server is gone
# (the command cannot reach it), that is said once, and it is started again
# so that the next blocks still run.
tm() {
	local try
	for try in 1 2 3; do
		if tmux -L "$lib_sock" "$@" 2>"$tmp/tmux.err"; then return 0; fi
		if ! tmux -L "$lib_sock" has-session -t keep 2>/dev/null; then
			echo "FAIL: the tmux server went away (tmux $*: $(head -c 200 "$tmp/tmux.err")); starting it again"
			failed=$((failed + 1))
			tui_server || { echo "FAIL: tmux cannot start again"; exit 1; }
			return 1
		fi
		sleep 0.2
	done
	echo "FAIL: tmux $* failed 3 times: $(head -c 200 "$tmp/tmux.err")"
	failed=$((failed + 1))
	return 1
}

# A failure about the screen: shown with the screen as last captured.
fail_screen() {
	fail "$@"
	echo "--- screen:"
	cat "$tmp/screen"
	echo "---"
}

snap() { tm capture-pane -p -t t >"$tmp/screen" || : >"$tmp/screen"; }
keys() { tm send-keys -t t "$@"; }

# A shell in a fresh session of the given size; the prompt is "tui$ ".
session() {
	tmux -L "$lib_sock" kill-session -t t 2>/dev/null
	tm new-session -d -s t -x "$1" -y "$2" \
		"env -i PATH=$PATH HOME=$tmp HISTFILE=/dev/null TERM=screen LANG=${3:-C.UTF-8} PS1='tui$ ' bash --norc --noprofile"
	wait_for 'tui\$' "shell prompt"
}

# lib_poll TEST REGEX: polls the screen until TEST REGEX holds (LIB_WAIT s).
lib_poll() {
	local end=$((SECONDS + ${LIB_WAIT:-60}))
	while :; do
		snap
		if "$1" "$2"; then return 0; fi
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}
lib_shows() { grep -qE -- "$1" "$tmp/screen"; }
lib_hides() { ! grep -qE -- "$1" "$tmp/screen"; }

wait_for() { if lib_poll lib_shows "$1"; then ok; else fail_screen "${2:-screen}: no /$1/"; return 1; fi; }
gone() { if lib_poll lib_hides "$1"; then ok; else fail_screen "${2:-screen}: /$1/ still there"; return 1; fi; }
has() { if lib_shows "$1"; then ok; else fail_screen "$2: no /$1/"; fi; }
lacks() { if lib_shows "$1"; then fail_screen "$2: unexpected /$1/"; else ok; fi; }

# The window's size as tmux reports it, "COLSxROWS".
tui_size() { tm display-message -p -t t '#{window_width}x#{window_height}'; }
# resize COLS ROWS: resizes the window and waits until tmux has done it.
resize() {
	tm resize-window -t t -x "$1" -y "$2"
	local end=$((SECONDS + ${LIB_WAIT:-60}))
	until [ "$(tui_size)" = "$1x$2" ]; do
		[ "$SECONDS" -lt "$end" ] || { fail "resize to $1x$2: the window is $(tui_size)"; return 1; }
		sleep 0.1
	done
}

# After the program: the prompt is back, the terminal echoes and reads lines.
# The answer carries a number of its own, which the typed command does not
# spell out, so that neither an earlier answer nor the command line itself
# is taken for it.
sane() {
	wait_for '^tui\$ ?$' "$1: prompt back"
	lib_sane=$((${lib_sane:-0} + 1))
	keys "clear; printf 'stty%s: %s\n' $lib_sane \"\$(stty -a | tr ' ;' '\n\n' | grep -xE 'echo|icanon|-echo|-icanon' | tr '\n' ' ')\"" Enter
	wait_for "^stty$lib_sane: " "$1: stty ran"
	has "^stty$lib_sane: (.* )?icanon( |$)" "$1: stty shows icanon"
	has "^stty$lib_sane: (.* )?echo( |$)" "$1: stty shows echo"
	lacks "^stty$lib_sane: .*-(echo|icanon)" "$1: terminal left raw"
}

# run COMMAND: types it in the shell; its exit status goes to $tmp/rc.
run() { rm -f "$tmp/rc"; keys "clear; $*; echo \$? >$tmp/rc" Enter; }
# status_is STATUS WHAT: waits for the command of `run` to end.
status_is() {
	local end=$((SECONDS + ${LIB_WAIT:-60}))
	until [ -s "$tmp/rc" ] || [ "$SECONDS" -ge "$end" ]; do sleep 0.1; done
	if [ "$(cat "$tmp/rc" 2>/dev/null)" = "$1" ]; then ok; else fail "$2: exit status $(cat "$tmp/rc" 2>/dev/null), not $1"; fi
}
