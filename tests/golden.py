#!/usr/bin/env python3
"""Golden tests over samples/: each samples/NAME folder is analyzed as one job
and the set of "severity id" lines must equal tests/golden/NAME.ids; the
report as a user reads it (the verdict and its fix, then each finding in its
order with its message, hint and cause) must equal tests/golden/NAME.report,
so that wording and ordering cannot change unseen. A folder
of `ncclog doctor --format json` reports (JSON documents with a "node"
member) is run through `ncclog doctor --compare` instead.

Also checked: every finding id of the catalog is fired by some sample, and no
sample named healthy-* has an error finding.

usage: golden.py NCCLOG SAMPLES_DIR GOLDEN_DIR CATALOG [--update]
"""
import difflib, json, os, subprocess, sys


def doctor_reports(files):
    """True when every file is a doctor report: compared, not analyzed."""
    for name in files:
        try:
            with open(name, "rb") as f:
                doc = json.loads(f.read())
        except ValueError:
            return False
        if not isinstance(doc, dict) or not isinstance(doc.get("node"), dict):
            return False
    return bool(files)


def findings(binary, folder):
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                   if os.path.isfile(os.path.join(folder, f)))
    cmd = ["doctor", "--compare"] if doctor_reports(files) else ["analyze"]
    p = subprocess.run([binary, *cmd, "--format", "json", *files],
                       capture_output=True, timeout=60)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    doc = json.loads(p.stdout)
    has_error = any(f["severity"] == "error" for f in doc["findings"])
    if (p.returncode == 1) != has_error:
        raise RuntimeError(f"exit {p.returncode} does not match the findings")
    ids = sorted({f"{f['severity']} {f['id']}" for f in doc["findings"]})
    return ids, snapshot(doc)


def snapshot(doc):
    """The verdict and the ordered findings, without paths or evidence."""
    out = []
    v = doc.get("verdict")
    if v:
        out.append(f"verdict: {v.get('text', '')}")
        if v.get("fix"):
            out.append(f"  fix: {v['fix']}")
    for f in doc["findings"]:
        line = f"{f['severity']}[{f['id']}]: {f.get('message', '')}"
        if f.get("caused_by"):
            line += f"  (caused by {f['caused_by']})"
        out.append(line)
        if f.get("hint"):
            out.append(f"  help: {f['hint']}")
    return "".join(l + "\n" for l in out)


def main():
    binary, samples, golden, catalog = sys.argv[1:5]
    update = "--update" in sys.argv
    ids = [f["id"] for f in json.load(open(catalog))["findings"]]
    fired = set()
    passed = failed = 0
    for name in sorted(os.listdir(samples)):
        folder = os.path.join(samples, name)
        if not os.path.isdir(folder):
            continue
        want_file = os.path.join(golden, name + ".ids")
        try:
            got, report = findings(binary, folder)
        except Exception as e:  # one clear line per broken sample
            print(f"FAIL {name}: {e}")
            failed += 1
            continue
        fired.update(line.split()[1] for line in got)
        report_file = os.path.join(golden, name + ".report")
        if update:
            with open(want_file, "w") as f:
                f.write("".join(line + "\n" for line in got))
            with open(report_file, "w") as f:
                f.write(report)
        if not os.path.exists(report_file):
            print(f"FAIL {name}: no {report_file}")
            failed += 1
        elif open(report_file).read() != report:
            want_lines = open(report_file).read().splitlines()
            got_lines = report.splitlines()
            print(f"FAIL {name}: the report differs from {report_file} (tests/golden.py ... --update after checking):")
            for l in difflib.unified_diff(want_lines, got_lines, "golden", "now", lineterm="", n=0):
                print("   " + l)
            failed += 1
        else:
            passed += 1
        if not os.path.exists(want_file):
            print(f"FAIL {name}: no {want_file}")
            failed += 1
            continue
        want = sorted({line.strip() for line in open(want_file) if line.strip()})
        if got != want:
            print(f"FAIL {name}:")
            for line in sorted(set(want) - set(got)):
                print(f"   missing  {line}")
            for line in sorted(set(got) - set(want)):
                print(f"   extra    {line}")
            failed += 1
        elif name.startswith("healthy") and any(l.startswith("error ") for l in got):
            print(f"FAIL {name}: error finding on a healthy sample")
            failed += 1
        else:
            passed += 1
    for i in ids:
        if i in fired:
            passed += 1
        else:
            print(f"FAIL catalog id {i} is fired by no sample")
            failed += 1
    print(f"golden: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
