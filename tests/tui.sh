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
expect2 "missing file" "$tmp/nope.log"
gzip -c "$root/samples/init-incomplete/slurm-551204.log" >"$tmp/c.log.gz"
expect2 "a directory" "$tmp"
expect2 "- twice" - -
expect2 "bad option" --bogus x
if "$bin" view --help | grep -q 'usage: ncclog view'; then ok; else fail "view --help"; fi

scen=samples/lightning-2node-docker0/rank*.log
stuck=samples/init-incomplete/slurm-551204.log

# --- rank rows, host groups, findings, on the seed scenario
session 120 40
# standard input on a terminal is no log: said before the screen is taken
run "$bin view -"
wait_for 'ncclog: standard input is a terminal' "view - on a terminal"
status_is 2 "view - on a terminal"
run "$bin view"
wait_for 'no FILE, and standard input is a terminal' "view with nothing to read"
status_is 2 "view with nothing to read"
keys clear Enter
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

# / searches every raw line (a regular expression), n/N go on; a match
# opens its line and puts the cursor on the rank that wrote it
keys / d o c k e r 0 Enter
wait_for 'rank4\.log +line 3 of 12' "/docker0 opens the first line that holds it"
has '/docker0: samples/lightning-2node-docker0/rank4\.log:3 \(rank 4 on node-b\)' "the status line names the line and its rank"
has '^>  +3 node-b:1877:1877 .*NCCL_SOCKET_IFNAME set by environment to docker0' "the matching line is marked"
tm capture-pane -e -p -t t >"$tmp/esc"
if grep -q $'\e\\[7m[^ ]*docker0' "$tmp/esc"; then ok; else fail_screen "the match is set off in reverse video"; fi
keys n; wait_for 'rank4\.log:4 \(rank 4' "n: the next match"
keys N; wait_for 'rank4\.log:3 \(rank 4' "N: the one before"
keys Escape; wait_for '^ rank 4 of 8 +host node-b' "Esc: the detail of the rank of the match"
keys / 1 1 3 . '*' N o ' ' r o u t e Enter
wait_for 'rank0\.log:35 \(rank 0 on node-a\)' "a regular expression; any case without a capital"
keys / N o ' ' R O U T E Enter; wait_for 'not found: No ROUTE' "a capital asks for that case"
keys / 2 4 6 8 Enter; wait_for 'rank0\.log:[0-9]+ \(rank 0 on node-a\)' "a pid (a tid) is found in the raw lines"
keys / 1 7 2 '\' . 1 7 '\' . 0 '\' . 1 '<' 4 1 5 2 3 Enter; wait_for 'rank0\.log:35 ' "an address"
keys / '(' Enter; wait_for 'search: missing closing parenthesis at offset 1' "a bad pattern is said so"
keys / n o - s u c h - t e x t Enter; wait_for 'not found: no-such-text' "a failed search says so"
keys Escape / I n i t i a l i z i n g ' ' d i s t Enter; wait_for 'rank0\.log:5 \(rank 0' "the first of several"
for _ in 1 2 3 4 5 6 7; do keys n; done
wait_for 'rank7\.log:[0-9]+ \(rank 7' "n goes through the files in order"
keys n; wait_for 'rank0\.log:5 .*wrapped to the top' "past the last file, it wraps"
keys N; wait_for 'rank7\.log:[0-9]+ .*wrapped to the bottom' "N wraps back"
# n typed faster than a scan reads (three keys in one write): each one counts
keys n n n; wait_for 'rank2\.log:[0-9]+ \(rank 2' "n n n at once: three matches on"
keys Escape

# horizontal scroll: the raw lines, the findings and the last lines move sideways
keys / d o c k e r 0 Enter; wait_for 'rank4\.log:3 ' "back on a raw line"
keys Right; wait_for 'from column 9' "Right scrolls 8 columns"
has '^>  +3 877:1877 \[0\] NCCL INFO' "the raw line starts 8 columns in"
keys l l; wait_for 'from column 25' "l scrolls too"
keys Left; wait_for 'from column 17' "Left scrolls back"
keys 0; gone 'from column' "0: back to the first column"
has '^>  +3 node-b:1877:1877' "the line from its start"
keys Escape; keys g
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

# \ filters by host, rank and severity
keys '\' n o d e - b Enter; wait_for 'filter: node-b  \(' "\\node-b: the hosts named"
for r in 4 5 6 7; do has "r$r +\\[" "node-b: r$r shown"; done
lacks 'r[0-3] +\[' "node-b: the ranks of node-a are not"
lacks 'node-a +ranks' "node-b: nor its group"
keys '\' C-u r 0 - 1 , 6 Enter; wait_for 'filter: r0-1,6  \(' "\\r0-1,6: ranks"
has 'r0 +\[' "r0-1,6: r0"
has 'r6 +\[' "r0-1,6: r6"
lacks 'r[2-57] +\[' "r0-1,6: no other rank"
keys '\' C-u n o d e - '*' ' ' e r r o r Enter; wait_for 'filter: node-\* error\+' "a glob and a severity"
has 'r0 +\[' "node-* error: a rank that failed"
lacks 'r1 +\[' "node-* error: a rank that did not"
has 'Findings 5 of 8 \(filtered\)' "the findings that pass"
keys '\' C-u r a n k = x Enter; wait_for "filter: 'x' is not a rank list" "a bad filter is said so"
has 'filter: node-\* error\+' "and the filter stays"
keys '\' C-u Enter; wait_for 'filter: none' "an empty filter clears it"
has 'Findings 8( |$)' "every finding again"

# host groups fold
keys g Enter; wait_for '▸ node-a' "Enter on a host folds it"
lacks 'r0 +\[' "a folded host hides its ranks"
keys Enter; wait_for '▾ node-a' "and unfolds it"
keys c; wait_for '▸ node-b' "c folds all"
keys c; wait_for '▾ node-b' "c unfolds all"

# help
keys '?'; wait_for 'ncclog view: keys' "? shows help"
keys x; gone 'ncclog view: keys' "any key closes help"

# the verdict on top, worded as analyze words it; each finding's confidence
"$bin" analyze $root/$scen >"$tmp/report" 2>/dev/null
verdict=$(sed -n 's/^verdict: //p' "$tmp/report" | cut -c1-60)
check "$verdict" "analyze gives a verdict"
has "^ verdict: $(printf '%s' "$verdict" | sed 's/[][\\.*^$()+?{}|]/\\&/g')" "the verdict line is analyze's"
has '\[socket-iface-mismatch\] \(inferred\) hosts bootstrap' "an inferred finding says so in the list"
has '\[bootstrap-connect-failed\] ranks 0,3 on node-a: could not connect' "findings are worded as the report words them"
msg=$(grep -o 'error\[bootstrap-connect-failed\]: .*' "$tmp/report" | head -1 | cut -c1-70)
keys Tab j; wait_for '^ error\[bootstrap-connect-failed\]' "a finding's detail"
has "^ $(printf '%s' "$msg" | sed 's/[][\\.*^$()+?{}|]/\\&/g')" "its lead is analyze's (report_message)"
has '^ confidence: established' "its confidence in the detail"
keys k; wait_for '^ verdict: ' "the root finding's detail opens with the verdict"
keys Tab Tab

# resize keeps a usable layout, with the legend of the phase letters
resize 80 24
wait_for '^ Tab pane +Enter open' "80x24 redraw"
layout_ok "80x24"
has 'r7 +\[' "80x24: every rank row fits"
has 'phases: b boot i init t topo c chan C conn D done r run E err' "80x24: the phase letters' legend"
resize 200 50
wait_for 'boot +init +topo' "200x50 redraw"
layout_ok "200x50"
has 'node-b +ranks 4-7' "200x50: groups"
has 'phases: b bootstrap +i init-start .* E error, timeout, abort' "200x50: the legend in words"
resize 40 12
wait_for 'phases: b boot i init' "40x12: the legend still says what the letters are"
resize 39 12
wait_for 'this one is 39x12' "below 40x12 it says so"
has 'needs a terminal of 40x12' "and the size it needs"
resize 40 11
wait_for 'this one is 40x11' "and the size it has"

# the help never cuts its text: whole at 160x45, scrolled where it does not fit
resize 160 45
keys '?'; wait_for 'ncclog view: keys' "160x45: help"
"$bin" view --help >/dev/null
while IFS= read -r line; do
	has "$(printf '%s' "$line" | sed 's/[][\\.*^$()+?{}|]/\\&/g')" "160x45: help line '$line'"
done <<'LINES'
Enter            open: a rank's raw lines, a finding's evidence; fold a host
\ WORDS          filter: hosts (node-b, gpu-0*), ranks (r3-7), severity (error); empty clears
C connected   D init-complete   r running   E error, timeout or abort
the screen needs 40x12 at least
LINES
lacks 'j/k or PgDn/PgUp scroll' "160x45: no need to scroll"
keys x; gone 'ncclog view: keys' "160x45: closed"
resize 80 24
keys '?'; wait_for 'lines 1-[0-9]+ of [0-9]+: j/k' "80x24: the help scrolls"
has '^ *n N +next, previous match: its line, and its rank in the$' "80x24: a long line wraps"
has '^ +timeline$' "80x24: under its text"
keys G; wait_for 'the screen needs 40x12 at least' "80x24: G reaches the end of the help"
keys g; wait_for 'ncclog view: keys' "g: its top"
keys q; gone 'ncclog view: keys' "80x24: closed"
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

# --- the README's screen is the viewer's own, at 100x30
session 100 30
view "$stuck"
wait_for '^ ! r6 ' "README screen"
awk '/rank 6 stopped before the others:/ { on = 1; next } on && /^```$/ { if (++n == 2) exit; next } on && n == 1' \
	"$root/README.md" >"$tmp/readme-screen"
nl=$(wc -l <"$tmp/readme-screen")
check "$([ "$nl" -gt 10 ] && echo y)" "the README has a screen of the viewer ($nl lines)"
if head -n "$nl" "$tmp/screen" | diff - "$tmp/readme-screen" >"$tmp/diff"; then ok; else fail "the README's screen differs from the viewer's: $(cat "$tmp/diff")"; fi
keys q
sane "README screen"

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

# --- ranks known by their pid only: the whole pid shows
printf 'gpu-a:2566123:2566123 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\ngpu-a:2566124:2566124 [1] NCCL INFO NCCL version 2.21.5+cuda12.4\n' >"$tmp/pids.log"
session 100 30
view "$tmp/pids.log"
wait_for 'pid2566123 +\[0\]' "a pid of 7 digits is not cut"
has 'pid2566124 +\[1\]' "nor is the next"
has '2 processes' "the header counts processes"
keys q
sane "pids"

# --- standard input and compressed logs: spooled, read back, searched
session 120 40
keys "cd $root && cat $scen | $bin view -" Enter
wait_for '8/8 ranks +2 hosts' "view - reads standard input"
keys / d o c k e r 0 Enter
wait_for '<stdin> +line [0-9]+ of [0-9]+' "its raw lines are read back from the spool"
has '\(rank 4 on node-b\)' "and a match finds its rank"
keys q
sane "view -"
keys "cd $root && cat $scen | $bin view" Enter
wait_for '8/8 ranks +2 hosts' "view with no file and a pipe reads it"
keys q
sane "view (pipe)"
keys "NCCLOG_SPOOL_MAX=2K $bin view - <$root/$stuck" Enter
wait_for 'only its first 2 KiB are kept' "a spool that fills up says so"
keys G Enter
wait_for "past what the spool kept" "lines after it are analyzed, not shown"
keys q
sane "spool limit"
view "$tmp/c.log.gz"
wait_for '^ ! r6 ' "a compressed log is viewed"
keys Enter; wait_for 'c\.log\.gz +line [0-9]+ of' "its raw lines, decompressed"
has 'rank 6 nranks 8' "the rank's last line"
keys q
sane "compressed"

# --- Flight Recorder dumps beside the logs: the rank that never joined
python3 "$root/tests/gen_fr.py" "$tmp/fr" --ranks 64 --hosts 8 --scenario missing --rank 37 --seq 315 \
	--logs "$tmp/frlogs" >/dev/null
session 120 45
keys "$bin view $tmp/fr/nccl_trace_rank_1* $tmp/frlogs/* $tmp/fr/*" Enter
wait_for 'not read: .*nccl_trace_rank_1' "a dump named twice is refused, the rest read"
keys q; sane "fr twice"
keys "clear; $bin view $tmp/fr/* $tmp/frlogs/*" Enter
wait_for '64/64 ranks +8 hosts .*FR dumps 64' "dumps beside logs, in any order"
has '^ verdict: rank 37 on gpu-node-0004: never joined all_reduce #315' "the verdict names rank 37"
has '^ ! r37 ' "rank 37 is marked behind"
has '^ rank 37 of 64' "the cursor is on it"
has 'STOPPED EARLY \(the Flight Recorder dumps show it behind' "the dumps are why"
has 'Flight Recorder: .*nccl_trace_rank_37, [0-9]+ entries' "its dump in its detail"
keys BTab; wait_for '^ Rank( |$)' "the rank's detail, focused"
wait_for 'its last [0-9]+ entries, newest first' "its last Flight Recorder entries"
has 'default_pg #[0-9]+ all_reduce completed' "an entry: group, seq, op, state"
has 'in default_pg #315 \(all_reduce.*\): missing, it never called it: BEHIND' "where it stands in the stuck group"
keys q
sane "fr"
keys "clear; $bin view $tmp/fr/*" Enter
wait_for '64 ranks from dumps alone' "dumps alone: a row per rank of the dumps"
has '^ ! r37 +no log +stopped: Flight Recorder: last all_reduce #314 completed' "rank 37 is marked, with its last entry"
has '^   r36 +no log +Flight Recorder: waiting in all_reduce #315 \(scheduled\)' "the others wait in #315"
has 'collective-desync\] rank 37: never joined' "and the finding names rank 37"
has '^ rank 37: no log of it was given' "its detail comes from its dump"
has 'its last [0-9]+ entries, newest first' "with its entries"
keys q
sane "fr alone"

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

# --- read on one thread or two, the viewer shows the same job
for j in 1 2; do
	session 120 40
	view "-j $j $tmp/job/*.log"
	wait_for '512/512 ranks +64 hosts' "512 ranks at -j $j"
	wait_for 'q quit' "512 ranks at -j $j: the status line"
	cp "$tmp/screen" "$tmp/screen-j$j"
	keys q
	sane "512 ranks at -j $j"
done
if cmp -s "$tmp/screen-j1" "$tmp/screen-j2"; then ok; else
	fail "-j 1 and -j 2 show different screens: $(diff "$tmp/screen-j1" "$tmp/screen-j2" | head -n 6)"
fi
expect2 "-j 0" -j 0 "$root/$stuck"

lib_finish
