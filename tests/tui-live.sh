#!/usr/bin/env bash
# TUI tests of `ncclog live` on a terminal: a pipe fed in stages while the
# screen is read in tmux (send-keys, capture-pane); --follow with raw lines
# read back from the file; q, SIGINT and the exit status.
# usage: tui-live.sh NCCLOG
set -u
bin=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
lib_init tui-live
tui_init

# A job of four ranks on two hosts; node-b bootstraps over docker0.
line() { # RANK MESSAGE
	local r=$1 h=node-a
	[ "$r" -ge 2 ] && h=node-b
	echo "$h:$((200 + r)):$((200 + r)) [$((r % 2))] NCCL INFO $2"
}
{
	for r in 0 1 2 3; do line $r "NCCL version 2.21.5+cuda12.4"; done
	for r in 0 1; do line $r "Bootstrap : Using eth0:10.0.0.11<0>"; done
	for r in 2 3; do line $r "Bootstrap : Using docker0:172.17.0.1<0>"; done
	for r in 0 1 2 3; do line $r "comm 0x1 rank $r nranks 4 cudaDev $((r % 2)) busId $((r + 1))000 commId 0x2 - Init START"; done
} >"$tmp/part1"
# ranks 0, 1 and 3 keep logging; rank 2 says nothing more
for r in 0 1 3; do line $r "Channel 00/0 : $r[$((r % 2))] -> $(((r + 1) % 4))[0] via P2P/IPC"; done >"$tmp/chunk"
# The feed moves on when the test says so (a file appears), never on a
# timer: stage 1 until $tmp/go2, ranks 0, 1, 3 logging until $tmp/go3.
cat >"$tmp/feed" <<EOF
cat $tmp/part1
until [ -e $tmp/go2 ]; do sleep 0.05; done
until [ -e $tmp/go3 ]; do cat $tmp/chunk; sleep 0.1; done
EOF

# --- a pipe fed in stages
session 120 40
run "sh $tmp/feed | $bin live --settle 0.5"
# stage 1: the ranks and the first findings, while the input is open
wait_for '^ ncclog live  4/4 ranks  2 hosts' "stage 1: header"
has 'reading' "stage 1: the header says the input is being read"
wait_for 'socket-iface-virtual\] ranks 2-3 on node-b' "stage 1: a finding as its evidence arrives"
for r in 0 1 2 3; do has "r$r +\[" "stage 1: rank row r$r"; done
has 'ago last line seen' "stage 1: a clock column"
has ' r2 .* [0-9]+s comm 0x1 rank 2 ' "stage 1: the clock of rank 2 and its last line (kept copies of a pipe)"
lacks 'input ended' "stage 1: the input is still open"
touch "$tmp/go2"
# stage 2: rank 2 goes quiet while the others log
wait_for 'channel-connect' "stage 2: the timeline moves on"
wait_for '^ ! r2 .* [0-9]+s silent: ' "stage 2: the silent rank is flagged, with its clock"
has 'rank-silent\] \(suspected\) rank 2 on node-b has been silent' "stage 2: the rank-silent finding"
has '^ ~ r3 .* [0-2]s Channel' "stage 2: the others were heard just now"
lacks 'input ended' "stage 2: the input is still open"
# drill-down on a rank of standard input: facts and kept copies, no raw lines
keys / I n i t Enter
wait_for "no raw line to search: standard input's lines are not kept" "a search says why it cannot read standard input"
keys '\' r 2 Enter
wait_for '^ rank 2 of 4 +host node-b' "the detail pane follows the filter r2"
has 'heard [0-9]+s ago' "the detail pane says when it was heard from"
has 'raw lines of standard input are not kept' "the detail pane says why no raw line is shown"
has '<stdin>:[0-9]+: node-b:202:202 .*Init START' "and shows the copies the model kept"
keys Enter
wait_for 'raw lines of standard input are not kept: ' "Enter explains instead of opening raw lines"
keys '\' C-u Enter
wait_for 'r3 +\[' "the filter cleared"
# stage 3: end of input
touch "$tmp/go3"
wait_for '^ ncclog live .*input ended' "stage 3: the header says the input ended"
has 'init-incomplete\]' "stage 3: the checks of analyze ran at the end"
has '^ ! r2 ' "stage 3: rank 2 still stands out"
wait_for '^ ~ r3 .* [1-9][0-9]*s Channel' "stage 3: the clocks go on"
keys q
# the report of what was read stays on the terminal
wait_for '^[0-9]+ errors?, [0-9]+ warnings?, [0-9]+ info$' "q: the report is printed"
has '^  help: ' "q: the report has the findings' hints"
has 'error\[socket-iface-virtual\]' "q: and their ids"
sane "q after the end"
status_is 1 "error findings"

# --- q while the input is still open: analyze's status over what was read
# (the writer goes on until a write fails, like a tail -f)
run "(cat $tmp/part1; while sleep 0.2; do echo; done) | $bin live --settle 30"
wait_for 'socket-iface-virtual' "open input"
keys q
sane "q before the end"
status_is 1 "q before the end"

# --- SIGINT: 130, terminal restored
# (to the process itself: Ctrl-C would also stop the shell's list)
run "(cat $tmp/part1; while sleep 0.2; do echo; done) | sh -c 'echo \$\$ >$tmp/pid; exec $bin live'"
wait_for 'r3 +\[' "input for SIGINT"
kill -INT "$(cat "$tmp/pid")"
wait_for '^[0-9]+ errors?, [0-9]+ warnings?, [0-9]+ info$' "SIGINT: the report is printed"
sane "SIGINT"
status_is 130 "SIGINT"

# --- --follow: a growing file, raw lines read back by offset
grep -E '^node-a' "$tmp/part1" >"$tmp/job.log"
run "$bin live --settle 30 --follow $tmp/job.log"
wait_for 'r1 +\[' "follow: ranks of the file"
lacks 'r2 +\[' "follow: not yet rank 2"
lacks 'input ended' "follow: a followed file does not end"
grep -E '^node-b' "$tmp/part1" >>"$tmp/job.log"
wait_for 'r3 +\[' "follow: the growth is read without data on standard input"
wait_for 'socket-iface-virtual' "follow: the finding of the new lines"
keys / r a n k ' ' 3 ' ' n r a n k s Enter
wait_for 'job\.log +line [0-9]+ of [0-9]+' "follow: / searches the lines of the followed file"
has '\(rank 3 on node-b\)' "follow: and finds their rank"
keys Escape
wait_for '^ rank 3 of 4' "follow: the match's rank"
lacks 'not kept' "follow: a file's lines are read back"
keys Enter
wait_for 'job\.log +line [0-9]+ of [0-9]+' "follow: Enter opens the raw lines of the file"
has '^> +[0-9]+ node-b:203:203 .*Init START' "follow: the rank's last line is marked"
keys Escape
wait_for '^ Rank( |$)' "follow: Esc goes back"
# truncated and written again: said, and its lines cited by their generation
printf 'node-a:200:200 [0] include/alloc.h:48 NCCL WARN Cuda failure '"'"'out of memory'"'"'\n' >"$tmp/job.log"
wait_for 'job\.log was truncated: reading it again from its start' "follow: the truncation is announced"
wait_for 'cuda-oom\]' "follow: the finding of its new lines"
keys Tab g
# live, findings come in the order they fired: step to it
for _ in 1 2 3 4 5; do snap; lib_shows '^ error\[cuda-oom\]' && break; keys j; sleep 0.2; done
wait_for '^ error\[cuda-oom\]' "follow: the finding's detail"
has 'job\.log \(generation 2\):1: node-a:200:200 .*Cuda failure' "follow: its evidence names the generation"
keys Enter
wait_for 'job\.log \(generation 2\) +line 1 of 1' "follow: Enter opens the new generation's lines"
has '^> +1 node-a:200:200 .*out of memory' "follow: read back from the file"
keys Escape
keys q
sane "follow"
status_is 1 "follow"

# --- --exec on a terminal: the hook runs, its output stays off the screen
printf '#!/bin/sh\ncat >"$0.$NCCLOG_FINDING_ID.json"\necho HOOK-OUTPUT\n' >"$tmp/hook.sh"
chmod +x "$tmp/hook.sh"
run "$bin live --exec $tmp/hook.sh <$tmp/part1"
wait_for 'socket-iface-virtual\]' "exec: the viewer"
end=$((SECONDS + ${LIB_WAIT:-60}))
until [ -s "$tmp/hook.sh.socket-iface-virtual.json" ] || [ "$SECONDS" -ge "$end" ]; do sleep 0.1; done
check "$(grep -o '"id":"socket-iface-virtual"' "$tmp/hook.sh.socket-iface-virtual.json" 2>/dev/null)" "exec: the hook got the finding"
lacks 'HOOK-OUTPUT' "exec: its output is not drawn over the viewer"
keys q
sane "exec"
status_is 1 "exec"

# --- --no-tui on a terminal prints the findings
run "$bin live --no-tui <$tmp/part1 | tail -n 3"
wait_for '^input ended|errors?, ' "--no-tui prints"
lacks 'ncclog live  4/4' "--no-tui: no screen"

lib_finish
