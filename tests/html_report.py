#!/usr/bin/env python3
"""`--format html`: one self-contained page, checked as a document and in a
real browser.

Every sample renders to well-formed HTML that loads nothing (no script, no
external style sheet, no URL in any attribute, a Content-Security-Policy
whose style hash is the page's own style sheet) and names the findings of
`--format json`. The two-node docker0 scenario and a generated 512-rank job
with one stuck rank carry the verdict of the text report and an SVG
timeline that marks the stuck ranks and stays a screen high. A hostile log
and a hostile job summary (escape sequences, bidi overrides, invalid
UTF-8, HTML metacharacters in host names, file names and messages) cannot
add markup, leave an attribute or put a raw control or bidi character on
the page.

Then headless Chromium renders the pages: the DOM it builds still holds the
verdict and the SVG with no script, the policy refuses nothing, and the
screenshot is written and not blank (the error red of the verdict shows
that the style sheet applied). Without Chromium the browser part is skipped
(exit 77 after the document checks pass); under CI it is required.

usage: html_report.py NCCLOG SOURCE_DIR [--save PNG]   (--save: write the scenario's
screenshot there, as doc/report.png is made)"""
import base64
import hashlib
import html
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ncclog, src = sys.argv[1], sys.argv[2]
save = sys.argv[sys.argv.index("--save") + 1] if "--save" in sys.argv else None
samples = os.path.join(src, "samples")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


VOID = {"meta", "br", "hr", "wbr"}
ALLOWED = VOID | {"html", "head", "title", "style", "body", "main", "section", "article", "footer", "h1", "h2",
                  "h3", "h4", "p", "span", "a", "pre", "table", "thead", "tbody", "tr", "th", "td", "details",
                  "summary", "div", "svg", "title", "text", "rect", "line", "circle", "path", "g"}
SVG_VOID = {"rect", "line", "circle", "path"}
ATTRS = {"class", "id", "title", "href", "lang", "charset", "http-equiv", "content", "name", "open", "colspan",
         "role", "aria-labelledby", "viewbox", "width", "height", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r",
         "rx", "d", "text-anchor"}


class Page(html.parser.HTMLParser):
    """The document as a tree walk: tags, attributes, text by element."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.bad, self.tags, self.attrs = [], [], [], []
        self.text = {}          # (tag, class) -> [texts]
        self.style, self.csp = [], None
        self.all_text = []
        self.grab = []          # open (tag, cls, parts)

    def handle_starttag(self, tag, attrs):
        self._open(tag, attrs, tag in VOID)

    def handle_startendtag(self, tag, attrs):
        if tag not in SVG_VOID:
            self.bad.append(f"<{tag}/> is not an SVG shape")
        self._open(tag, attrs, True)

    def _open(self, tag, attrs, void):
        if tag not in ALLOWED:
            self.bad.append(f"<{tag}>")
        self.tags.append(tag)
        a = dict(attrs)
        self.attrs.append((tag, a))
        for k, v in attrs:
            if k not in ATTRS:
                self.bad.append(f"attribute {k} on <{tag}>")
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.csp = a.get("content")
        if not void:
            self.stack.append(tag)
            self.grab.append((tag, a.get("class", ""), a.get("id", ""), []))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.bad.append(f"unbalanced </{tag}> in {self.stack[-4:]}")
            return
        self.stack.pop()
        t, cls, ident, parts = self.grab.pop()
        s = "".join(parts)
        self.text.setdefault((t, cls), []).append(s)
        if ident:
            self.text.setdefault(("#", ident), []).append(s)
        if t == "style":
            self.style.append(s)
        if self.grab:
            self.grab[-1][3].append(s)

    def handle_data(self, data):
        self.all_text.append(data)
        if self.grab:
            self.grab[-1][3].append(data)


def parse(name, doc):
    """Checks what holds for every page; returns the parsed page."""
    try:
        text = doc.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"{name}: not UTF-8: {e}")
        text = doc.decode("utf-8", "replace")
    for ch in text:
        o = ord(ch)
        if (o < 0x20 and ch not in "\n\t") or 0x7f <= o <= 0x9f or 0x200b <= o <= 0x200f or 0x2028 <= o <= 0x202e \
                or 0x2066 <= o <= 0x2069 or 0xe0000 <= o <= 0xe007f or o in (0x061c, 0xfeff, 0xffff):
            fail(f"{name}: raw U+{o:04X} in the page")
            break
    if not text.startswith("<!DOCTYPE html>\n"):
        fail(f"{name}: no doctype")
    page = Page()
    page.feed(text)
    page.close()
    if page.bad:
        fail(f"{name}: {sorted(set(page.bad))[:6]}")
    if page.stack:
        fail(f"{name}: unclosed {page.stack}")
    for tag, a in page.attrs:
        for k, v in a.items():
            low = (v or "").lower()
            if k == "href" and not low.startswith("#"):
                fail(f"{name}: a link out of the page: {v!r}")
            if k.startswith("on") or "http:" in low or "https:" in low or "//" in low or "url(" in low \
                    or "javascript:" in low:
                fail(f"{name}: <{tag} {k}={v!r}> reaches outside the page")
    for banned in ("script", "link", "img", "iframe", "object", "embed", "base", "form", "input", "image", "use"):
        if banned in page.tags:
            fail(f"{name}: a <{banned}> element")
    if len(page.style) != 1:
        fail(f"{name}: {len(page.style)} style sheets")
    css = page.style[0] if page.style else ""
    if "url(" in css or "@import" in css or "http" in css:
        fail(f"{name}: the style sheet loads something")
    want = "'sha256-" + base64.b64encode(hashlib.sha256(css.encode()).digest()).decode() + "'"
    if not page.csp or "default-src 'none'" not in page.csp or f"style-src {want}" not in page.csp:
        fail(f"{name}: policy {page.csp!r}, the style sheet's hash is {want}")
    if "unsafe" in (page.csp or ""):
        fail(f"{name}: the policy allows unsafe sources")
    return page


def attrs_of(doc):
    p = Page()
    p.feed(doc.decode("utf-8", "replace"))
    return p.attrs


def run(args, **kw):
    r = subprocess.run([ncclog] + args, capture_output=True, **kw)
    if re.search(rb"AddressSanitizer|LeakSanitizer|runtime error:", r.stderr):
        fail(f"{' '.join(args[:3])}...: a sanitizer report: {r.stderr[:600]!r}")
    return r


def ids_of(page):
    return sorted(t for t in page.text.get(("span", "fid"), []))


def verdict_of(page):
    what = page.text.get(("p", "what"), [""])[0]
    return what[len("verdict"):] if what.startswith("verdict") else what


def check_sample(name, files, extra=()):
    """A page of real logs: its ids are JSON's, its verdict the text's."""
    doc = run(["analyze", "-f", "html", *extra, *files]).stdout
    page = parse(name, doc)
    js = json.loads(run(["analyze", "-f", "json", *extra, *files]).stdout)
    want = [f["id"] for f in js["findings"]]
    # each finding: once in its heading, and once more in its line under a root
    got = ids_of(page)
    heads = sorted(page.text.get(("h3", ""), []))
    if sorted(set(got)) != sorted(set(want)) or len(heads) != len(want):
        fail(f"{name}: ids on the page {sorted(set(got))} ({len(heads)} headings), in JSON {want}")
    if b"http://" in doc or b"https://" in doc:
        fail(f"{name}: a URL on the page")
    text = run(["analyze", "--color", "never", *extra, *files]).stdout.decode()
    line = next((ln for ln in text.splitlines() if ln.startswith("verdict: ")), None)
    if line is None or verdict_of(page) != line[len("verdict: "):]:
        fail(f"{name}: verdict {verdict_of(page)!r}, text says {line!r}")
    # the verdict's colour says what its words say
    cls = next((a.get("class") for t, a in page.attrs if t == "section" and a.get("id") == "verdict"), None)
    ok = verdict_of(page).startswith(("no problem found", "no error found"))
    if cls != ("verdict ok" if ok else "verdict cause") and not (cls == "verdict unproven" and not ok):
        fail(f"{name}: verdict drawn as {cls!r} for {verdict_of(page)!r}")
    # every rank a finding marks in the catalog is drawn with that mark
    rows = {}
    for t in page.text.get(("g", ""), []):
        num = re.match(r"rank (\d+)", t)
        if num:
            rows.setdefault(int(num.group(1)), []).append(t)
    for f in js["findings"]:
        for mk in MARKS.get(f["id"], []):
            for r in f["ranks"]:
                if r in rows and not any(mk in t for t in rows[r]):
                    fail(f"{name}: rank {r} is not drawn {mk} by {f['id']}: {rows[r]}")
    return doc, page, js


MARKS = {e["id"]: e.get("marks", []) for e in json.load(open(os.path.join(src, "rules", "catalog.json")))["findings"]}
# every sample: a well-formed, self-contained page with the findings of JSON
for s in sorted(os.listdir(samples)):
    d = os.path.join(samples, s)
    # a folder of doctor reports is compared, not analyzed
    if os.path.isdir(d) and not all(f.endswith(".json") for f in os.listdir(d)):
        check_sample(s, sorted(os.path.join(d, f) for f in os.listdir(d)))

tmp = tempfile.mkdtemp(prefix="ncclog-html.")
pages = {}

# the scenario: two nodes, node-b bootstraps over docker0; init never completes
docker = os.path.join(samples, "lightning-2node-docker0")
# (names relative to where the test runs, as a user would type them)
files = sorted(os.path.relpath(os.path.join(docker, f)) for f in os.listdir(docker))
doc, page, js = check_sample("scenario", files)
pages["scenario"] = (doc, verdict_of(page))
rows = [t for t in page.text.get(("g", ""), []) if t.startswith("rank ")]
if len(rows) != 8:
    fail(f"scenario: {len(rows)} rank rows in the timeline, want 8: {rows}")
if not all("stuck" in r and "init-incomplete" in r for r in rows):
    fail(f"scenario: not every rank is marked stuck by init-incomplete: {rows}")
if not any("first failure" in r and r.startswith("rank 0 on node-a") for r in rows):
    fail(f"scenario: rank 0 is not marked as the first failure: {rows}")
if page.tags.count("svg") != 1 or page.tags.count("rect") < 8:
    fail("scenario: no SVG timeline with a bar per rank")
summaries = page.text.get(("summary", "sev-error"), [])
root = js["findings"][0]["id"]
if len(summaries) < 4 or not all("socket-iface-virtual" not in s for s in summaries):
    fail(f"scenario: the consequences of {root} are not folded under it: {summaries}")
if "inferred" not in page.text.get(("span", "conf conf-inferred"), []):
    fail("scenario: no confidence badge")
opened = [a for t, a in attrs_of(run(["analyze", "-f", "html", "-v", *files]).stdout) if t == "details"]
if len(opened) != len(summaries) or not all("open" in a for a in opened):
    fail(f"scenario -v: {len(opened)} consequences, not all open: {opened}")
hostcells = page.text.get(("td", "hostname"), [])
if hostcells != ["node-a", "node-b"]:
    fail(f"scenario: host rows {hostcells}")
# the same page from the job summary that `ncclog merge` reads
sumfile = os.path.join(tmp, "scenario.json")
open(sumfile, "wb").write(run(["analyze", "--summary", *files]).stdout)
if run(["merge", "-f", "html", sumfile]).stdout != doc:
    fail("scenario: merge -f html of its summary is not the page analyze -f html writes")

# 512 ranks on 64 hosts, one rank stuck in init: the page stays short
job = os.path.join(tmp, "job512")
subprocess.run([sys.executable, os.path.join(src, "bench", "gen.py"), job, "--ranks", "512", "--hosts", "64",
                "--size", "2M", "--fault", "stuck-rank"], check=True)
doc, page, js = check_sample("512 ranks", [os.path.join(job, f) for f in sorted(os.listdir(job))])
pages["512"] = (doc, verdict_of(page))
stuck = [f for f in js["findings"] if f["id"] == "init-incomplete"]
if len(stuck) != 1 or len(stuck[0]["ranks"]) != 1:
    fail(f"512 ranks: the stuck rank's finding: {stuck}")
else:
    r, h = stuck[0]["ranks"][0], stuck[0]["hosts"][0]
    rows = page.text.get(("g", ""), [])
    if not any(t.startswith(f"rank {r} on {h}") and "stuck" in t for t in rows):
        fail(f"512 ranks: rank {r} on {h} is not drawn as stuck: {rows}")
    folded = [t for t in rows if not t.startswith("rank ")]
    if len(rows) > 24 or len(folded) < 2:
        fail(f"512 ranks: {len(rows)} rows, {len(folded)} folded bands: {rows}")
    if not any(t.startswith("gpu-node-[0000-") for t in folded):
        fail(f"512 ranks: no hostlist range in the folded bands: {folded}")
    alike = [t for t in page.text.get(("p", ""), []) if t.startswith("all 64 hosts alike except")]
    if alike != [f"all 64 hosts alike except {h}"]:
        fail(f"512 ranks: the hosts summary says {alike}")
    if len(page.text.get(("td", "hostname"), [])) > 4:
        fail(f"512 ranks: {len(page.text[('td', 'hostname')])} host rows, the alike hosts are not folded")
    if "... 504 more" not in "".join(page.all_text):
        fail("512 ranks: the list of inputs is not cut with a count")
if len(doc) > 200_000:
    fail(f"512 ranks: {len(doc)} bytes of HTML")

# 256 ranks on 256 hosts, every other one stuck: nothing folds, so the
# timeline stops at a bound and says how much it left out, and so do lists
alt = os.path.join(tmp, "alternate")
subprocess.run([sys.executable, os.path.join(src, "bench", "gen.py"), alt, "--ranks", "256", "--hosts", "256",
                "--size", "1M", "--noise", "0"], check=True)
for f in os.listdir(alt):
    if int(f[len("rank"):-len(".log")]) % 2:
        lines = open(os.path.join(alt, f)).read().split("\n")
        start = next(i for i, ln in enumerate(lines) if "Init START" in ln)
        open(os.path.join(alt, f), "w").write("\n".join(lines[:start + 1]) + "\n")
doc, page, js = check_sample("alternate", [os.path.join(alt, f) for f in sorted(os.listdir(alt))])
rows = page.text.get(("g", ""), [])
svg_title = page.text.get(("#", "tl-title"), [""])[0]
if not 100 <= len(rows) <= 120 or "128 marked stuck" not in svg_title:
    fail(f"alternate: {len(rows)} rows drawn; the timeline says {svg_title!r}")
if f"... {256 - len(rows)} more ranks on {256 - len(rows)} hosts not drawn" not in "".join(page.all_text):
    fail("alternate: the timeline does not say how many ranks it left out")
where = page.text.get(("p", "where"), [])
if not any(w.startswith("ranks 1,3,5,") and " and 112 more (128) on gpu-node-[0001,0003," in w for w in where):
    fail(f"alternate: the stuck ranks and hosts are not cut with a count: {where}")

# a hostile log: its file name, messages and evidence carry markup, escape
# sequences, a bidi override, invalid UTF-8, NUL and CR
RLO = "\u202e"
hostile_dir = os.path.join(tmp, "hostile")
os.mkdir(hostile_dir)
hostile_name = os.path.join(hostile_dir, "we<ird>&\"name'.log")
lines = [
    b"node-a:2310:2310 [0] NCCL INFO Bootstrap : Using eth1:192.168.1.101<0>",
    b"node-a:2310:2310 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to <img src=x onerror=alert(1)>\"'&x",
    b"node-a:2310:2468 [0] misc/socket.cc:538 NCCL WARN socketPollConnect: Connect to 10.9.0.4<41523> returned "
    b"113(No route to host) errno 115(Operation now in progress) \x1b[31mred\x1b[0m\x07 </pre></svg><script>"
    b"alert(1)</script> \"q\" 's' & " + RLO.encode() + b"gnp.exe \xff\xfe \xc2\x85 https://evil.example/x.js "
    + "\u2066iso\u2069 zero\u200bwidth \U000e0041tag".encode() + b" \x00 end\r",
]
open(hostile_name, "wb").write(b"\n".join(lines) + b"\n")
doc = run(["analyze", "-f", "html", hostile_name]).stdout
page = parse("hostile log", doc)
pages["hostile log"] = (doc, None)
body = "".join(page.all_text)
for want in ("</pre></svg><script>alert(1)</script>", "\\x1b[31mred", "\\x07", "\\u{202e}gnp.exe", "\\xff\\xfe",
             "\\u{85}", "\\u{2066}iso\\u{2069}", "zero\\u{200b}width", "\\u{e0041}tag", "we<ird>&\"name'.log",
             "<img"):
    if want not in body:
        fail(f"hostile log: {want!r} is not shown as text")
if doc.count(b'<span class="esc">') < 6:
    fail("hostile log: the escapes are not marked")
if "bootstrap-connect-failed" not in ids_of(page):
    fail(f"hostile log: the line does not fire bootstrap-connect-failed: {ids_of(page)}")

# a hostile job summary, as `ncclog merge` reads it: host and interface
# names are whatever the file says
summary = json.loads(run(["analyze", "--summary", *sorted(os.path.join(docker, f) for f in os.listdir(docker))]).stdout)
evil_host = "<b onmouseover=alert(1)>n\"o'd&e" + RLO + "\x1b]0;x\x07-b"
evil_if = "docker0\"><svg onload=alert(1)>"
summary["strings"] = [evil_host if s == "node-b" else evil_if if s == "docker0" else s for s in summary["strings"]]
sumfile = os.path.join(tmp, "evil.json")
json.dump(summary, open(sumfile, "w"))
r = run(["merge", "-f", "html", sumfile])
if r.returncode not in (0, 1):
    fail(f"hostile summary: merge exit {r.returncode}: {r.stderr!r}")
page = parse("hostile summary", r.stdout)
pages["hostile summary"] = (r.stdout, None)
shown = evil_host.replace(RLO, "\\u{202e}").replace("\x1b", "\\x1b").replace("\x07", "\\x07")
cells = page.text.get(("td", "hostname"), [])
titles = [a.get("title") for t, a in page.attrs if t == "td" and a.get("class") == "hostname"]
if shown not in cells or shown not in titles:
    fail(f"hostile summary: the host name in text {cells} and in attributes {titles}, want {shown!r}")
if not any(t.startswith("rank 4 on " + shown) for t in page.text.get(("g", ""), [])):
    fail("hostile summary: the host name in the timeline's titles is not the escaped name")
if page.tags.count("svg") != 1 or "b" in page.tags:
    fail(f"hostile summary: markup from a host or interface name: {page.tags.count('svg')} <svg>")
if evil_if not in "".join(page.all_text):
    fail("hostile summary: the interface name is not shown as text")

# headless Chromium: the DOM it builds, what the policy refused, a screenshot
chrome = next((shutil.which(c) for c in ("chromium", "chromium-browser", "google-chrome") if shutil.which(c)), None)
if not chrome:
    if os.environ.get("CI"):
        fail("chromium is missing (scripts/install-deps.sh installs it)")
    print("html: " + (f"{len(failures)} failures" if failures
                      else "document checks ok; chromium not found, browser checks skipped"))
    shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failures else 77)


def chromium(url, *args):
    profile = tempfile.mkdtemp(prefix="profile.", dir=tmp)
    cmd = [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
           "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}", *args, url]
    try:
        return subprocess.run(cmd, capture_output=True, timeout=240)
    except subprocess.TimeoutExpired:
        fail(f"chromium did not finish: {' '.join(cmd)}")
        return None


def png_pixels(path):
    """Decodes an 8-bit RGB(A) PNG as Chromium writes it: (width, height, rows)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat.append(chunk)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError(f"PNG kind {hdr}")
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a, b, c = (line[i - bpp] if i >= bpp else 0), prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


class Dom(Page):
    """What Chromium serialized: no allow-list, only what it holds."""

    def __init__(self):
        super().__init__()
        self.svg_in_ranks = False

    def _open(self, tag, attrs, void):
        if tag == "svg" and "section" in self.stack:
            self.svg_in_ranks = self.svg_in_ranks or any(
                t == "section" and i == "ranks" for t, _, i, _ in self.grab)
        self.tags.append(tag)
        if not void and tag not in VOID and tag not in SVG_VOID:
            self.stack.append(tag)
            self.grab.append((tag, dict(attrs).get("class", ""), dict(attrs).get("id", ""), []))

    def handle_endtag(self, tag):
        if tag in SVG_VOID:
            return
        super().handle_endtag(tag)


for name, (doc, verdict) in pages.items():
    path = os.path.join(tmp, name.replace(" ", "-") + ".html")
    open(path, "wb").write(doc)
    r = chromium("file://" + path, "--dump-dom")
    if r is None:
        continue
    if r.returncode != 0 or b"<svg" not in r.stdout:
        fail(f"{name}: chromium --dump-dom exit {r.returncode}, {len(r.stdout)} bytes: {r.stderr[-400:]!r}")
        continue
    if b"Content Security Policy" in r.stderr or b"Content-Security-Policy" in r.stderr:
        fail(f"{name}: the policy refused something: {r.stderr[-600:]!r}")
    dom = Dom()
    dom.feed(r.stdout.decode("utf-8", "replace"))
    for banned in ("script", "img", "iframe", "object", "embed", "b"):
        if banned in dom.tags:
            fail(f"{name}: a <{banned}> element in the DOM")
    if not dom.svg_in_ranks or dom.tags.count("svg") != 1 or dom.tags.count("rect") < 3:
        fail(f"{name}: the DOM has no SVG timeline in its ranks section")
    if verdict is not None and verdict_of(dom) != verdict:
        fail(f"{name}: the DOM's verdict {verdict_of(dom)!r}, want {verdict!r}")

shot_doc, _ = pages["scenario"]
shot = os.path.join(tmp, "scenario.png")
r = chromium("file://" + os.path.join(tmp, "scenario.html"), f"--screenshot={shot}", "--window-size=1100,1500",
             "--hide-scrollbars")
if r is not None:
    if not os.path.exists(shot) or os.path.getsize(shot) < 10_000:
        fail(f"scenario: no screenshot written: {r.stderr[-400:]!r}")
    else:
        try:
            w, h, bpp, rows = png_pixels(shot)
            colours, inked, red = set(), 0, 0
            for y in range(0, h, 3):
                row = rows[y]
                for x in range(0, w * bpp, 3 * bpp):
                    px = tuple(row[x:x + 3])
                    colours.add(px)
                    inked += px != (255, 255, 255)
                    # the error red (#c62828) of the verdict bar and the stuck ranks
                    red += px[0] > 170 and px[1] < 70 and px[2] < 70
            total = ((h + 2) // 3) * ((w + 2) // 3)
            if (w, h) != (1100, 1500) or len(colours) < 32 or inked < total // 20 or red < 200:
                fail(f"scenario: the screenshot looks blank or unstyled: {w}x{h}, {len(colours)} colours, "
                     f"{inked}/{total} inked, {red} red")
            elif save:
                shutil.copyfile(shot, save)
                print(f"html: wrote {save}")
        except (ValueError, zlib.error, struct.error) as e:
            fail(f"scenario: the screenshot is not a PNG that can be read: {e}")

shutil.rmtree(tmp, ignore_errors=True)
print("html: " + ("ok" if not failures else f"{len(failures)} failures"))
sys.exit(1 if failures else 0)
