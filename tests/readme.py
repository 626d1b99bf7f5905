#!/usr/bin/env python3
"""The README's example output is the tool's real output.

In README.md and rules/README.md, a fenced block right after a comment
  <!-- output: COMMAND -->
is what COMMAND prints (standard output and standard error together): the
test runs COMMAND with sh in a scratch directory, where `samples` is the
source tree's samples, `ncclog` is the binary under test and the files of
the `<!-- file: NAME -->` blocks before it are written, and compares. A line
"..." in a block stands for any number of lines the example leaves out.

usage: readme.py NCCLOG SOURCE_ROOT
"""
import os, re, subprocess, sys, tempfile

DOCS = ["README.md", "rules/README.md"]
MARK = re.compile(r"^<!-- (output|file): (.+?) -->$")


def blocks(text):
    """(kind, arg, lines) for every marked fenced block, in order."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if m and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            j = i + 2
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append((m.group(1), m.group(2), lines[i + 2:j]))
            i = j
        elif m:
            out.append(("broken", m.group(2), []))
        i += 1
    return out


def matches(want, got):
    """Whether got (lines) is want, where a "..." line of want is any lines."""
    memo = {}

    def at(w, g):
        if (w, g) in memo:
            return memo[(w, g)]
        if w == len(want):
            r = g == len(got)
        elif want[w] == "...":
            r = any(at(w + 1, k) for k in range(g, len(got) + 1))
        else:
            r = g < len(got) and want[w] == got[g] and at(w + 1, g + 1)
        memo[(w, g)] = r
        return r

    return at(0, 0)


def first_difference(want, got):
    """A hint at what differs: a README line ncclog does not print, else the order."""
    printed = set(got)
    for k, w in enumerate(want):
        if w != "..." and w not in printed:
            return f"README line {k + 1} is not printed:\n  {w}"
    return f"the lines are there but in another order or with others between them:\n  " + "\n  ".join(got)


def main():
    binary, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    failed = checked = 0
    for doc in DOCS:
        text = open(os.path.join(root, doc), encoding="utf-8").read()
        with tempfile.TemporaryDirectory() as tmp:
            os.symlink(os.path.join(root, "samples"), os.path.join(tmp, "samples"))
            bindir = os.path.join(tmp, ".bin")
            os.mkdir(bindir)
            os.symlink(binary, os.path.join(bindir, "ncclog"))
            env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
                       XDG_CONFIG_HOME=os.path.join(tmp, ".config"), NCCLOG_RULES_DIR=os.path.join(root, "rules"))
            env.pop("NO_COLOR", None)
            outputs = 0
            for kind, arg, lines in blocks(text):
                if kind == "broken":
                    print(f"FAIL {doc}: the mark for {arg!r} is not followed by a fenced block")
                    failed += 1
                elif kind == "file":
                    with open(os.path.join(tmp, arg), "w", encoding="utf-8") as f:
                        f.write("\n".join(lines) + "\n")
                else:
                    outputs += 1
                    p = subprocess.run(["sh", "-c", arg], cwd=tmp, env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, timeout=120)
                    got = p.stdout.decode("utf-8", "replace").rstrip("\n").split("\n")
                    checked += 1
                    if not matches(lines, got):
                        print(f"FAIL {doc}: `{arg}` prints otherwise, {first_difference(lines, got)}")
                        failed += 1
            if not outputs:
                print(f"FAIL {doc}: no <!-- output: ... --> block to check")
                failed += 1
    print(f"readme: {checked} examples, {failed} failed")
    sys.exit(1 if failed else 0)


main()
