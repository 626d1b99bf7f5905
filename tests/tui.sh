#!/usr/bin/env bash
# TUI tests: drive the real `ncclog view` in tmux (send-keys, capture-pane)
# and assert what is on the screen.
# usage: tui.sh NCCLOG SOURCE_ROOT
set -u
bin=$(realpath "$1")
root=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
lib_init tui
tui_init

view() { keys "cd $root && $bin view $*" Enter; }
# the last line of the screen is the status line, and the header is on top
layout_ok() {
	snap
	has '^ ncclog view ' "$1: header"
	has 'Findings' "$1: findings pane"
	has '^ (Rank|Finding)( |$)' "$1: detail pane"
	if tail -n 1 "$tmp/screen" | grep -qE 'help|q quit'; then ok; else fail "$1: status line not at the bottom"; fi
}

# --- usage errors are reported before the screen is taken
expect2() {
	local what=$1; shift
	"$bin" view "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	local rc=$?
	if [ "$rc" -eq 2 ] && [ -s "$tmp/err" ]; then ok; else fail "$what: exit $rc, stderr: $(cat "$tmp/err")"; fi
}
expect2 "no file"
expect2 "standard input" -
expect2 "missing file" "$tmp/nope.log"
gzip -c "$root/samples/init-incomplete/slurm-551204.log" >"$tmp/c.log.gz"
expect2 "compressed file" "$tmp/c.log.gz"
if grep -q compressed "$tmp/err"; then ok; else fail "compressed: $(cat "$tmp/err")"; fi
expect2 "bad option" --bogus x
if "$bin" view --help | grep -q 'usage: ncclog view'; then ok; else fail "view --help"; fi

scen=samples/lightning-2node-docker0/rank*.log
stuck=samples/init-incomplete/slurm-551204.log

# --- rank rows, host groups, findings, on the seed scenario
session 120 40
view "$scen"
wait_for 'node-a +ranks 0-3' "host group node-a"
has 'node-b +ranks 4-7' "host group node-b"
for r in 0 1 2 3 4 5 6 7; do has "r$r +\[" "rank row r$r"; done
has '8/8 ranks +2 hosts +NCCL 2\.21\.5' "header summary"
has '5 errors 2 warnings 1 info' "finding counts"
has 'socket-iface-virtual\] ranks 4-7 on node-b' "findings pane"
has '~ r1 ' "ranks without Init COMPLETE are marked ~"
has 'r0 .*✗' "the ranks that failed carry the error glyph"
has 'bootstrap\.cc:143 -> 2' "last line seen of rank 0"

# navigation: the detail pane follows the cursor
has '^ rank 0 of 8 +host node-a' "starts on the first rank that missed Init COMPLETE"
keys j; wait_for '^ rank 1 of 8' "j moves down"
keys Down; wait_for '^ rank 2 of 8' "Down moves down"
keys k; wait_for '^ rank 1 of 8' "k moves up"
keys G; wait_for '^ rank 7 of 8 +host node-b' "G goes to the last rank"
keys g; wait_for 'select a rank' "g goes to the first row (a host group)"
keys NPage; wait_for '^ rank [0-9]+ of 8' "PgDn lands on a rank"
keys PPage; wait_for 'select a rank' "PgUp back to the top"

# search, then n/N
keys / r 5 Enter; wait_for '^ rank 5 of 8' "/r5 finds rank 5"
keys / d o c k e r 0 Enter; wait_for '^ rank [4-7] of 8' "/docker0 finds a rank on node-b"
keys / n o - s u c h - t e x t Enter; wait_for 'not found: no-such-text' "a failed search says so"
keys / r 2 Enter; wait_for '^ rank 2 of 8' "/r2"
keys / r 6 Enter; wait_for '^ rank 6 of 8' "/r6"
keys N; wait_for '^ rank 6 of 8|^ rank 2 of 8' "N searches backwards"

# e/w jump to the ranks that failed / warned
keys g e; wait_for '^ rank 0 of 8' "e: the first rank with an error"
keys e; wait_for '^ rank 3 of 8' "e: the next one"
keys E; wait_for '^ rank 0 of 8' "E: back"
keys w; wait_for '^ rank [0-9] of 8' "w: a rank that warned"

# Tab to the findings; a finding highlights its ranks; Enter opens evidence
keys Tab; wait_for '^ Finding( |$)' "Tab: the findings pane"
has '^ error\[socket-iface-virtual\]' "the detail pane shows the finding"
has '^\*~ r4 ' "its ranks are highlighted (*) in the timeline"
lacks '^\*~ r0 ' "other ranks are not highlighted"
keys j; wait_for '^ error\[bootstrap-connect-failed\]' "j moves in the findings"
keys Enter; wait_for 'rank[0-9]\.log +line [0-9]+ of' "Enter opens the evidence in its file"
has '^>' "the evidence line is marked"
keys Escape; wait_for '^ Finding( |$)' "Esc goes back"
keys Tab Tab; wait_for '^ Rank( |$)' "Tab cycles back to the timeline"
keys g j Enter; wait_for 'rank0\.log +line' "Enter on a rank opens its last line"
keys Escape; wait_for '^ Rank( |$)' "Esc back to the rank"

# the severity filter
keys f; wait_for 'filter: warning\+' "f: warnings and errors"
has 'Findings 7 of 8' "f hides info findings"
keys f; wait_for 'filter: error\+' "f again: errors only"
has 'Findings 5 of 8' "only the error findings"
lacks 'r1 +\[' "ranks without an error are filtered out"
has 'r0 +\[' "ranks with an error stay"
keys f; gone 'filter: (warning|error)\+' "f a third time: all again"

# host groups fold
keys g Enter; wait_for '▸ node-a' "Enter on a host folds it"
lacks 'r0 +\[' "a folded host hides its ranks"
keys Enter; wait_for '▾ node-a' "and unfolds it"
keys c; wait_for '▸ node-b' "c folds all"
keys c; wait_for '▾ node-b' "c unfolds all"

# help
keys '?'; wait_for 'ncclog view: keys' "? shows help"
keys x; gone 'ncclog view: keys' "any key closes help"

# resize keeps a usable layout
resize 80 24
wait_for '^ Tab pane +Enter open' "80x24 redraw"
layout_ok "80x24"
has 'r7 +\[' "80x24: every rank row fits"
resize 200 50
wait_for 'boot +init +topo' "200x50 redraw"
layout_ok "200x50"
has 'node-b +ranks 4-7' "200x50: groups"
keys q
sane "q"

# --- the stuck rank stands out (no colour needed: a marker character)
session 80 24
view "$stuck"
wait_for '^ ! r6 ' "the rank that stopped early is marked !"
has 'stopped: comm .* rank 6 ' "and shows where it stopped"
has '^ !▾ node-b .*1 stopped early' "its host group says so"
has '^ rank 6 of 8' "the cursor starts on it"
layout_ok "80x24 stuck"
keys C-c
sane "SIGINT"

# --- ASCII under LANG=C, no colour with NO_COLOR / --color never
session 100 30 C
keys "export NO_COLOR=1" Enter
view "$stuck"
wait_for '^ ! r6 ' "LANG=C: marker"
has '===>' "LANG=C: ASCII bars"
if LC_ALL=C grep -q $'[\x80-\xff]' "$tmp/screen"; then fail "LANG=C: non-ASCII bytes on screen"; else ok; fi
tm capture-pane -e -p -t t >"$tmp/esc"
if grep -qE $'\e\\[[0-9;]*3[1-7](;[0-9]+)*m' "$tmp/esc"; then fail "NO_COLOR: colours drawn"; else ok; fi
keys q
sane "LANG=C"
keys "unset NO_COLOR" Enter
view --color never "$stuck"
wait_for '^ ! r6 ' "--color never"
tm capture-pane -e -p -t t >"$tmp/esc"
if grep -qE $'\e\\[[0-9;]*3[1-7](;[0-9]+)*m' "$tmp/esc"; then fail "--color never: colours drawn"; else ok; fi
keys q
sane "--color never"
view "$stuck"
wait_for '^ ! r6 ' "colour by default"
tm capture-pane -e -p -t t >"$tmp/esc"
if grep -qE $'\e\\[[0-9;]*3[1-7](;[0-9]+)*m' "$tmp/esc"; then ok; else fail "default: no colour on a colour terminal"; fi

# SIGTERM restores the terminal too
keys q
wait_for '^tui\$ ?$' "prompt"
keys "sh -c 'echo \$\$ >$tmp/pid; exec $bin view $root/$stuck'" Enter
wait_for '^ ! r6 ' "view for SIGTERM"
kill -TERM "$(cat "$tmp/pid")"
sane "SIGTERM"

# --- an unreadable input among readable ones: shown, then exit status 2
keys "clear" Enter
view "$stuck" /nonexistent.log
wait_for 'not read: /nonexistent.log' "the unreadable input is named in the status line"
has '^ ! r6 ' "the readable one is shown"
keys q
wait_for '^tui\$ ?$' "prompt"
keys "echo status=\$?" Enter
wait_for 'status=2' "exit status 2 after an unreadable input"

# --- log bytes are escaped before drawing
printf 'node-x:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nnode-x:100:101 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 commId 0x2 - Init START\nnode-x:100:101 [0] NCCL WARN evil \033]0;pwned\007 \033[2J bytes\n' >"$tmp/evil.log"
session 120 30
view "$tmp/evil.log"
wait_for 'r0 ' "hostile log"
has 'evil \\x1b\]0;pwned\\x07 \\x1b\[2J bytes' "escape sequences are shown as text"
keys q
sane "hostile log"

# --- a 512-rank job with one stuck rank: the first screen says who and where
python3 "$root/tests/gen-job.py" "$tmp/job" --ranks 512 --stuck 301
session 120 40
view "$tmp/job/*.log"
wait_for '512/512 ranks +64 hosts' "512 ranks"
has '^ !▾ node-037 .*1 stopped early' "the stuck rank's host is unfolded and marked"
has '^ ! r301 .*stopped: .*rank 301 step 700' "the stuck rank and its last line"
has '^ rank 301 of 512' "the cursor is on it"
has 'axis: time' "timestamps give a time axis"
has '▸ node-036 .*8 timed out' "the other hosts are folded, timing out"
# scrolling through all of it stays quick: draw only what is visible
keys c
wait_for '▸ node-037' "c folds all"
keys c
wait_for 'all host groups unfolded' "c again unfolds all"
for _ in $(seq 10); do keys NPage; done
keys G
wait_for '^ rank 511 of 512' "G reaches the last of 512 ranks"
keys q
sane "512 ranks"

lib_finish
