#!/usr/bin/env python3
"""`analyze --format markdown` through GitHub's own renderer (cmark-gfm, with
the table extension and raw HTML allowed, as on github.com): the scenario
sample renders to summary tables, one heading per finding and collapsible
<details> evidence; a hostile log line cannot inject markup, break out of
its block or put control bytes into the page.

usage: markdown_render.py NCCLOG SAMPLES_DIR"""
import html.parser
import json
import os
import subprocess
import sys
import tempfile

ncclog, samples = sys.argv[1], sys.argv[2]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


ALLOWED = {"h1", "h2", "h3", "h4", "p", "strong", "em", "code", "pre", "table", "thead", "tbody", "tr", "th",
           "td", "details", "summary", "ul", "ol", "li", "br", "a", "hr", "blockquote"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.tags, self.headings, self.details = [], [], [], []
        self.cells, self.text = [], []
        self.bad = []

    def handle_starttag(self, tag, attrs):
        if tag not in ALLOWED:
            self.bad.append(tag)
        self.tags.append(tag)
        if tag not in ("br", "hr"):
            self.stack.append(tag)
        if tag == "details":
            self.details.append({"summary": "", "code": ""})
        self.text = []

    def handle_endtag(self, tag):
        if tag not in ALLOWED:
            self.bad.append("/" + tag)
        if not self.stack or self.stack[-1] != tag:
            self.bad.append(f"unbalanced </{tag}> in {self.stack[-3:]}")
        else:
            self.stack.pop()
        text = "".join(self.text)
        if tag == "h3":
            self.headings.append(text)
        if tag in ("td", "th"):
            self.cells.append(text)
        if tag == "summary" and self.details:
            self.details[-1]["summary"] = text
        if tag == "code" and "details" in self.stack and self.details:
            self.details[-1]["code"] += text

    def handle_data(self, data):
        self.text.append(data)


def render(md):
    p = subprocess.run(["cmark-gfm", "-e", "table", "--unsafe"], input=md, capture_output=True)
    if p.returncode != 0:
        fail(f"cmark-gfm: {p.stderr.decode(errors='replace')}")
    return p.stdout


def check_page(name, page_html, want_ids):
    for b in page_html:
        if b < 0x20 and b not in (0x09, 0x0a) or b == 0x7f:
            fail(f"{name}: raw control byte 0x{b:02x} in the HTML")
            break
    page = Page()
    page.feed(page_html.decode("utf-8"))
    page.close()
    if page.bad:
        fail(f"{name}: tags that are not the report's own: {page.bad[:5]}")
    if page.stack:
        fail(f"{name}: unclosed {page.stack}")
    if page.tags.count("table") < 1:
        fail(f"{name}: no table")
    got_ids = [h.split()[-1] for h in page.headings]
    if sorted(got_ids) != sorted(want_ids):
        fail(f"{name}: headings {page.headings}, findings {want_ids}")
    return page


# the scenario sample: two nodes, node-b bootstraps over docker0
files = sorted(os.path.join(samples, "lightning-2node-docker0", f)
               for f in os.listdir(os.path.join(samples, "lightning-2node-docker0")))
doc = json.loads(subprocess.run([ncclog, "analyze", "-f", "json"] + files, capture_output=True).stdout)
want = [f["id"] for f in doc["findings"]]
# by default a consequence is a line under its root, not a section of its own
roots = [f["id"] for f in doc["findings"] if not f.get("caused_by")]
md = subprocess.run([ncclog, "analyze", "-f", "markdown"] + files, capture_output=True).stdout
short = check_page("scenario (default)", render(md), roots)
if len(roots) == len(want):
    fail(f"scenario: no finding is a consequence: {want}")
for f in doc["findings"]:
    if f.get("caused_by") and f"`{f['id']}`" not in md.decode():
        fail(f"scenario: the consequence {f['id']} is not listed under its root")
md = subprocess.run([ncclog, "analyze", "-f", "markdown", "--verbose", "--color", "always"] + files, capture_output=True).stdout
page = check_page("scenario", render(md), want)
if "socket-iface-virtual" not in want or len(want) < 5:
    fail(f"the scenario's findings: {want}")
for cell in ("ranks seen", "node-a", "node-b", "docker0 172.17.0.1", "eth1 192.168.1.101"):
    if cell not in page.cells:
        fail(f"scenario: no table cell {cell!r} in {page.cells}")
with_evidence = [f for f in doc["findings"] if f["evidence"]]
if len(page.details) != len(with_evidence):
    fail(f"scenario: {len(page.details)} <details> blocks for {len(with_evidence)} findings with evidence")
for d, f in zip(page.details, with_evidence):
    if not d["summary"]:
        fail(f"{f['id']}: <details> without a <summary>")
    for e in f["evidence"]:
        if e["text"] not in d["code"]:
            fail(f"{f['id']}: evidence line {e['text']!r} not in its <details> block")
if "Bootstrap : Using docker0:172.17.0.1<0>" not in "".join(d["code"] for d in page.details):
    fail("scenario: '<0>' of an evidence line is not shown as text")

# a hostile line as the evidence of a finding: escape sequences, a fence,
# closing tags, a script, table pipes
hostile = (b"node-a:2310:2468 [0] misc/socket.cc:538 NCCL WARN socketPollConnect: Connect to 10.9.0.4<41523> "
           b"returned 113(No route to host) errno 115(Operation now in progress) \x1b[31mred\x1b[0m\x07 "
           b"``` </code></pre></details><script>alert(1)</script> | cell | \x00\x7f\r\n")
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "hostile.log")
    open(path, "wb").write(hostile)
    doc = json.loads(subprocess.run([ncclog, "analyze", "-f", "json", path], capture_output=True).stdout)
    want = [f["id"] for f in doc["findings"]]
    if "bootstrap-connect-failed" not in want:
        fail(f"hostile: the line does not fire bootstrap-connect-failed: {want}")
    md = subprocess.run([ncclog, "analyze", "-f", "markdown", path], capture_output=True).stdout
    page = check_page("hostile", render(md), want)
    if "script" in page.tags:
        fail("hostile: a <script> element made it into the page")
    if not any("</details><script>" in d["code"] for d in page.details):
        fail("hostile: the markup of the line is not shown as text in its evidence block")

print("markdown: " + ("ok" if not failures else f"{len(failures)} failures"))
sys.exit(1 if failures else 0)
