#!/bin/bash
# ncclog rules list|test and the user rule directory: the shipped rules pass
# their own samples through the real gate and match path; a broken rule
# file fails; rules in $XDG_CONFIG_HOME/ncclog/rules.d are loaded after the
# shipped ones, by analyze too.
set -u
ncclog=$(realpath "$1")
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp/config HOME=$tmp/home
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# the shipped rules pass
"$ncclog" rules test >"$tmp/out" 2>&1 || fail "shipped rules: exit $? $(grep -A2 FAIL "$tmp/out")"
grep -q '^[0-9]* rules, [0-9]* samples: 0 failed$' "$tmp/out" || fail "shipped summary: $(tail -1 "$tmp/out")"
grep -q '^  ok   Bootstrap : Using eth0:10.0.0.5<0>$' "$tmp/out" || fail "a sample line is reported"
grep -q '^       bootstrap-using: .*list="eth0:10.0.0.5<0>"' "$tmp/out" || fail "its captures are reported"
"$ncclog" rules test -q >"$tmp/out" || fail "quiet run"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "quiet prints the total only: $(cat "$tmp/out")"

# a deliberately broken rule file: no sample, a sample no rule matches, a
# sample another rule takes (its own pattern is wrong)
cat >"$tmp/broken.json" <<'EOF'
{"rules": [
  {"id": "site-nosample", "gate": "quota exceeded", "pattern": "quota exceeded",
   "finding": "site-quota", "title": "disk quota exceeded", "severity": "warning"},
  {"id": "site-nomatch", "gate": "Stale file handle", "pattern": "(?<path>/\\S+): Stale handle",
   "finding": "site-nfs", "title": "NFS went away", "severity": "error",
   "samples": ["OSError: [Errno 116] /shared/ckpt: Stale file handle"]},
  {"id": "site-wrong", "gate": "Bootstrap", "pattern": "^Bootstrap : Using (?<x>lo):",
   "finding": "site-lo", "title": "loopback", "severity": "error",
   "samples": ["Bootstrap : Using eth0:10.0.0.5<0>"]}
]}
EOF
"$ncclog" rules test "$tmp/broken.json" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "broken file: exit $rc"
grep -q '^site-nosample (.*broken.json:2)$' "$tmp/out" || fail "rule named with file:line: $(head -3 "$tmp/out")"
grep -q 'FAIL the rule has no "samples"' "$tmp/out" || fail "a rule without samples fails"
grep -q 'matched by no rule' "$tmp/out" || fail "an unmatched sample fails"
grep -q 'not matched by site-wrong; matched by bootstrap-using' "$tmp/out" || fail "a sample taken by another rule fails"
grep -q '^3 rules, 2 samples: 3 failed$' "$tmp/out" || fail "only the file's rules are tested: $(tail -1 "$tmp/out")"

# a good site rule file passes alone
cat >"$tmp/good.json" <<'EOF'
{"rules": [{
  "id": "site-nfs-stale", "gate": "Stale file handle",
  "pattern": "(?<path>/\\S+): Stale file handle",
  "finding": "site-nfs-stale", "title": "the shared filesystem went away", "severity": "error",
  "message": "NFS handle went stale on {path}", "hint": "remount /shared on the node",
  "samples": ["OSError: [Errno 116] /shared/ckpt/step_100.pt: Stale file handle"]
}]}
EOF
"$ncclog" rules test "$tmp/good.json" >"$tmp/out" 2>&1 || fail "good file: exit $? $(cat "$tmp/out")"
grep -q 'site-nfs-stale: path="/shared/ckpt/step_100.pt"' "$tmp/out" || fail "capture of the site rule"

# user rules: loaded after the shipped ones by list, test and analyze
mkdir -p "$XDG_CONFIG_HOME/ncclog/rules.d"
cp "$tmp/good.json" "$XDG_CONFIG_HOME/ncclog/rules.d/site.json"
"$ncclog" rules list >"$tmp/out" || fail "rules list: exit $?"
tail -1 "$tmp/out" | grep -q "^site-nfs-stale .*error\[site-nfs-stale\] .*\"Stale file handle\".*rules.d/site.json:1$" ||
	fail "user rule listed last: $(tail -1 "$tmp/out")"
head -1 "$tmp/out" | grep -q "/10-lifecycle.json:" || fail "shipped rules first: $(head -1 "$tmp/out")"
"$ncclog" rules test -q >"$tmp/out" || fail "shipped + user rules test: $(cat "$tmp/out")"
printf 'OSError: [Errno 116] /shared/x.pt: Stale file handle\n' >"$tmp/job.log"
"$ncclog" analyze --color never "$tmp/job.log" >"$tmp/out"
rc=$?
[ $rc -eq 1 ] || fail "analyze with a user rule: exit $rc"
grep -q 'error\[site-nfs-stale\]: NFS handle went stale on /shared/x.pt' "$tmp/out" || fail "user rule fires: $(head -2 "$tmp/out")"
# a file under rules.d named again (the man page's own example): loaded
# once, tested; by any path that reaches it
"$ncclog" rules test "$XDG_CONFIG_HOME/ncclog/rules.d/site.json" >"$tmp/out" 2>&1 ||
	fail "rules test of a rules.d file: exit $? $(cat "$tmp/out")"
grep -q '^1 rules, 1 samples: 0 failed$' "$tmp/out" || fail "rules test of a rules.d file: $(tail -1 "$tmp/out")"
(cd "$XDG_CONFIG_HOME/ncclog/rules.d" && "$ncclog" rules test -q ./site.json ../rules.d/site.json) >"$tmp/out" 2>&1 ||
	fail "rules test of a rules.d file by a relative path: $(cat "$tmp/out")"
grep -q '^1 rules, 1 samples: 0 failed$' "$tmp/out" || fail "relative rules.d file: $(tail -1 "$tmp/out")"
"$ncclog" rules test -q "$XDG_CONFIG_HOME/ncclog/rules.d" >"$tmp/out" 2>&1 || fail "rules test of rules.d: $(cat "$tmp/out")"
"$ncclog" rules list --rules "$XDG_CONFIG_HOME/ncclog/rules.d/site.json" --rules "$XDG_CONFIG_HOME/ncclog/./rules.d/site.json" >"$tmp/out" 2>&1 ||
	fail "the same rule file twice: $(cat "$tmp/out")"
[ "$(grep -c '^site-nfs-stale ' "$tmp/out")" -eq 1 ] || fail "a file given twice is listed twice"
"$ncclog" analyze --color never --rules "$XDG_CONFIG_HOME/ncclog/rules.d/site.json" "$tmp/job.log" >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q 'error\[site-nfs-stale\]' "$tmp/out" || fail "analyze --rules of a rules.d file: $(head -2 "$tmp/out")"

# the schema: an unknown key is one line with file:line:col, the rule, the key and the nearest key
sed 's/"hint"/"hnit"/' "$tmp/good.json" >"$tmp/typo.json"
"$ncclog" rules test "$tmp/typo.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "unknown key: exit $rc"
[ "$(cat "$tmp/err")" = "ncclog: $tmp/typo.json:5:49: rule \"site-nfs-stale\": unknown key \"hnit\"; did you mean \"hint\"?" ] ||
	fail "unknown key message: $(cat "$tmp/err")"
"$ncclog" analyze --rules "$tmp/typo.json" "$tmp/job.log" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] || fail "analyze --rules with an unknown key: $(cat "$tmp/err")"
# "comment" is a key of the file and of a rule, for what JSON cannot say
sed 's/^{"rules": \[{$/{"comment": "site rules", "rules": [{"comment": ["why", "and who"],/; s/site-nfs-stale/site-nfs-noted/g' \
	"$tmp/good.json" >"$tmp/comment.json"
grep -q '"comment": \["why"' "$tmp/comment.json" || fail "comment.json not made"
"$ncclog" rules test -q "$tmp/comment.json" >"$tmp/out" 2>&1 || fail "comment keys: $(cat "$tmp/out")"

# HOME/.config is the default when XDG_CONFIG_HOME is unset
mkdir -p "$HOME/.config/ncclog"
mv "$XDG_CONFIG_HOME/ncclog/rules.d" "$HOME/.config/ncclog/"
XDG_CONFIG_HOME= "$ncclog" rules list | grep -q '^site-nfs-stale ' || fail "~/.config/ncclog/rules.d"
# a broken user rule is reported like --rules: exit 2, file:line:col
printf '{"rules": [\n  {"id": "x" "gate": "abc"}]}\n' >"$HOME/.config/ncclog/rules.d/bad.json"
XDG_CONFIG_HOME= "$ncclog" analyze "$tmp/job.log" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "broken user rule: exit $rc"
grep -q '^ncclog: .*rules.d/bad.json:2:14: invalid JSON' "$tmp/err" || fail "broken user rule message: $(cat "$tmp/err")"

# usage
"$ncclog" rules frob >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown subcommand exits 2"
# the catalog and the cause graph are checked the same way: a misspelled key is
# named with its place and the nearest key, never ignored
mkdir -p "$tmp/dir"
cp -r "$root"/rules/. "$tmp/dir/"
sed -i '0,/"severity": "error"/s//"severty": "error"/' "$tmp/dir/catalog.json"
NCCLOG_RULES_DIR=$tmp/dir "$ncclog" analyze "$tmp/job.log" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^ncclog: $tmp/dir/catalog.json:[0-9]*:[0-9]*: unknown key \"severty\"; did you mean \"severity\"?$" "$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "catalog key typo: exit $rc: $(cat "$tmp/err")"
cp "$root/rules/catalog.json" "$tmp/dir/"
sed -i '0,/"explains":/s//"explain":/' "$tmp/dir/causes.json"
NCCLOG_RULES_DIR=$tmp/dir "$ncclog" analyze "$tmp/job.log" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^ncclog: $tmp/dir/causes.json:[0-9]*:[0-9]*: unknown key \"explain\"; did you mean \"explains\"?$" "$tmp/err" ||
	fail "causes key typo: exit $rc: $(cat "$tmp/err")"
"$ncclog" rules --help | grep -q '^usage: ncclog rules list' || fail "rules --help"
"$ncclog" rules test --help | grep -q '^usage: ncclog rules' || fail "rules test --help"

[ $fails -eq 0 ] && echo "rules: ok"
exit $((fails > 0))
