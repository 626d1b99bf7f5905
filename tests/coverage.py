#!/usr/bin/env python3
"""Signature coverage: every template of rules/signatures/*.tsv, rendered in
every line shape of its era, must yield its finding id (or no error when it is
benign or only context).

usage: coverage.py NCCLOG SIGNATURES_DIR CATALOG [--quick] [-v] [--table NAME]

A template is covered when all its renderings pass. A rendering that fails
only because it needs a mechanism ncclog does not have yet (the catch-all
finding for unexplained WARNs, reassembly of wrapped lines) is counted as
waiting, not failed; the mechanisms are probed at start, so renderings are
enforced as soon as the binary has them. The run fails on any other
uncovered template.

Renderings are analyzed in batches, one file each. `--summary` attributes
every line finding to the file whose process produced it, and the report
(`--format json`) must carry that finding too; whatever stays ambiguous is
analyzed again on its own file, so batching never changes a verdict.
"""
import argparse
import collections
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

FIELDS = ['level', 'origin', 'first', 'last', 'id', 'template', 'example']
NCCL_LEVELS = ('WARN', 'INFO', 'RESULT', 'ABORT')
FRAMEWORK_LEVELS = ('ERROR', 'WARNING')
# ids whose findings come from a mechanism: the id is proof the binary has it
CATCH_ALL = ('nccl-warn', 'framework-error')

LAUNCHERS = [
    ('srun', '3: '),
    ('mpirun', '[1,3]<stderr>:'),
    ('torchrun-rank', '[rank3]:'),
    ('torchrun-default', '[default3]:'),
    ('pdsh', 'gpu-node-07: '),
    ('ray', '(RayWorker pid=123) '),
    ('vllm', '(VllmWorker rank=3 pid=63957) '),
]
WRAPS = [('wrap80', 80, False), ('wrap120', 120, False), ('wrap80-word', 80, True), ('wrap120-word', 120, True)]


def vkey(v):
    """Orders release names: '2.19.3' < '2.26.2'; '-' is the newest."""
    if v == '-':
        return (10**6,)
    return tuple(int(x) for x in re.findall(r'\d+', v)) or (0,)


def load_table(path):
    rows = []
    with open(path, encoding='utf-8') as f:
        lines = [l for l in f if not l.startswith('#')]
    header = lines[0].rstrip('\n').split('\t')
    if header != FIELDS:
        raise SystemExit(f'{path}: header must be {" ".join(FIELDS)}')
    for n, l in enumerate(lines[1:], 2):
        l = l.rstrip('\n')
        if not l:
            continue
        cols = l.split('\t')
        if len(cols) == 6:
            cols.append('')
        if len(cols) != 7:
            raise SystemExit(f'{path}: row {n}: {len(cols)} columns')
        r = dict(zip(FIELDS, cols))
        r['table'] = os.path.basename(path)[:-4]
        rows.append(r)
    return rows


# --- filling a printf template -------------------------------------------
CONV = re.compile(r'%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXcspfeEgGm%])')


def fill_string(before, template, after=''):
    """A realistic %s from the words around it."""
    if re.search(r'status=$', before):
        return 'IBV_WC_RETRY_EXC_ERR'
    if re.search(r'opcode=$', before):
        return 'IBV_WC_SEND'
    b = before.rstrip().lower()
    if re.search(r'(peer|to|from|address|remote|with|on) ?$', b) and not re.search(r'(device|dev|type|hca) ?$', b):
        return '10.0.0.12<43311>'
    named = re.match(r' [a-z]|:\d|:%d|: [a-zA-Z]', after) is not None  # "%s argument is NULL": a name, not an error text
    if not named and (re.search(r'(failed|error|failure|returned|: ?)$', b) or b.endswith(' -')):
        if re.search(r'[Cc]onnect|socket|[Ss]ocket|recv|send|accept', template):
            return 'Connection refused'
        return 'Invalid argument'
    if not b:
        return 'ncclAllReduce'
    return 'mlx5_0'


def fill_int(before):
    b = before.rstrip().lower()
    if re.search(r'(status=\w*\(?|with error|error) ?$', b):
        return '12'
    if b.endswith('->'):
        return '2'
    return '3'


def render_body(template):
    out, pos = [], 0
    for m in CONV.finditer(template):
        before = template[pos:m.start()]
        out.append(before)
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        ctx = ''.join(out)
        if conv == '%':
            out.append('%')
        elif conv == 's':
            out.append('abc' if prec == '*' else fill_string(ctx, template, template[m.end():]))
        elif conv == 'm':
            out.append('Invalid argument')
        elif conv in 'di':
            v = fill_int(ctx)
            out.append(v.zfill(int(width)) if width and width.isdigit() and flags == '0' else v)
        elif conv == 'u':
            out.append('3')
        elif conv in 'xX':
            out.append('1f00' if length else '1f')
        elif conv == 'p':
            out.append('0x7f3a2c000000')
        elif conv in 'feEgG':
            out.append('1.25')
        elif conv == 'c':
            out.append('x')
        elif conv == 'o':
            out.append('7')
        if length in ('l', 'll', 'z', 'j') and conv in 'diu':
            out[-1] = '4096'
    out.append(template[pos:])
    return ''.join(out).replace('\\n', '\n').replace('\\t', '\t')


# --- line shapes ----------------------------------------------------------
def site_of(row):
    origin = row['origin']
    if ':' in origin:  # a plugin: "repo:path"
        path = origin.split(':', 1)[1]
        base = os.path.basename(path)
        if 'aws-ofi' in origin or 'tcpx' in origin:
            return 'nccl_net_ofi_init:1615' if 'aws-ofi' in origin else 'tcpxConnect:612'
        return f'{base}:1615'
    return f'{origin}:484'


def era_has(row, version):
    return vkey(row['first']) <= vkey(version) <= vkey(row['last'])


def by_level(row):
    """True when only the WARN level tells this text apart: the same text is
    printed at INFO too (NCCL's NOWARN), or it is a plugin's internal error
    whose words say nothing of its own."""
    return row.get('ambiguous') or (row['table'] == 'plugins' and row['id'] == 'net-plugin-error')


def nccl_shapes(row, body):
    """(shape, text) pairs for an NCCL record of this row's era."""
    lv = row['level']
    host = 'gpu-node-07:12345:12401'
    out = []
    core = not ':' in row['origin']
    if lv == 'WARN':
        site = site_of(row)
        full = f'{host} [1] {site} NCCL WARN {body}'
        out.append(('nccl', '\n' + full))
        if row['last'] == '-' or vkey(row['last']) >= vkey('2.26.2'):
            out.append(('timestamp', f'\n[2025-07-01 14:02:11] {full}'))
        if core and row['last'] == '-':
            func = 'ncclSocketConnect'
            out.append(('func', f'\n[2026-06-20 09:00:01] {host} [1] {site} ({func}) NCCL WARN {body}'))
        if core and row['first'] == '2.3.5':
            out.append(('pre-2.3', f'\n{host} [1] {site} WARN {body}'))
        out.append(('no-host', f':12345:12401 [1] {site} NCCL WARN {body}'))
        out.append(('site-only', f'{site} NCCL WARN {body}'))
        out.append(('bare', f'NCCL WARN {body}'))
        if row['id'] not in CATCH_ALL and not by_level(row):
            out.append(('body', body))
    elif lv == 'INFO':
        full = f'{host} [1] NCCL INFO {body}'
        out.append(('nccl', full))
        if core and row['first'] == '2.3.5':
            out.append(('pre-2.3', f'{host} [1] INFO {body}'))
        out.append(('no-host', f':12345:12401 [1] NCCL INFO {body}'))
        out.append(('bare', f'NCCL INFO {body}'))
        out.append(('body', body))
    elif lv == 'RESULT':
        text = row['template']
        out.append(('nccl', row['example'] or text))
        if not text.startswith('nccl'):
            out.append(('torch-runtime', 'RuntimeError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/'
                        f'ProcessGroupNCCL.cpp:1269, {text}, NCCL version 2.14.3'))
            out.append(('dist-backend', 'torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/'
                        f'distributed/c10d/ProcessGroupNCCL.cpp:1970, {text}, NCCL version 2.19.3'))
        else:
            out.append(('torch-runtime', f'RuntimeError: NCCL communicator was aborted: {text}'))
    elif lv == 'ABORT':
        out.append(('nccl', f'\n{host} [1] {site_of(row)} NCCL ABORT'))
    return out


def framework_shapes(row, body):
    lv = row['level']
    letter = {'ERROR': 'E', 'WARNING': 'W', 'INFO': 'I'}[lv]
    src = os.path.basename(row['origin'].split(':', 1)[-1]) if ':' in row['origin'] else 'ProcessGroupNCCL.cpp'
    if not re.search(r'\.\w+$', src):
        src = 'ProcessGroupNCCL.cpp'
    out = [('body', body),
           ('c10d-bracket', f'[{letter} {src}:1537] {body}'),
           ('glog', f'{letter}0709 17:05:38.160000 1234 {src}:1537] {body}'),
           ('rank-glog', f'[rank2]:[{letter}709 17:05:38.162555850 {src}:632] {body}')]
    if lv == 'ERROR' and not re.match(r'\w+(\.\w+)*(Error|Exception)\b', body):
        out.append(('traceback', f'torch.distributed.DistBackendError: {body}'))
    return out


def wrap(text, width, words):
    """A paste hard-wrapped at width: split at the column as a terminal does,
    or at a word boundary with the rest of the line padded, as an issue box does."""
    lead = '\n' if text.startswith('\n') else ''
    out = []
    for line in text.lstrip('\n').split('\n'):
        while len(line) > width:
            cut = width
            if words:
                sp = line.rfind(' ', 0, width)
                cut = sp if sp > 0 else width
            head, line = line[:cut], line[cut:].lstrip(' ') if words else line[cut:]
            out.append(head.ljust(width) if words else head)
        out.append(line)
    return lead + '\n'.join(out)


def renderings(row):
    """Yields (shape, text, needs): needs is the set of mechanisms it relies on."""
    body = row['example'] or render_body(row['template'])
    if row['level'] in FRAMEWORK_LEVELS or (row['level'] == 'INFO' and row['table'] in ('pytorch', 'wrappers', 'launchers')):
        base = framework_shapes(row, body)
    else:
        base = nccl_shapes(row, body)
    needs0 = set()
    if row['id'] in CATCH_ALL:
        needs0.add('catch-all')
    if '\n' in body.strip('\n'):
        needs0.add('reassembly')
    for shape, text in base:
        if shape == 'bare' and row['level'] == 'WARN' and by_level(row):
            yield shape, text, needs0 | {'rule-level'}
            continue
        yield shape, text, needs0
    first = base[0][1]
    if row['level'] != 'RESULT':
        for name, prefix in LAUNCHERS:
            lines = first.split('\n')
            yield 'launcher:' + name, '\n'.join(prefix + l if l else l for l in lines), needs0
    for name, width, words in WRAPS:
        if max(len(l) for l in first.split('\n')) > width:
            yield name, wrap(first, width, words), needs0 | {'reassembly'}


# --- running ncclog --------------------------------------------------------
class Runner:
    def __init__(self, ncclog, workdir, severities):
        self.ncclog, self.dir, self.sev = ncclog, workdir, severities
        self.runs = 0

    def analyze(self, files):
        """Returns {file: [(id, severity)]} from the report, attributed exactly
        where possible, plus the set of files whose attribution is ambiguous."""
        self.runs += 1
        paths = [os.path.join(self.dir, f) for f in files]
        env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(self.dir, 'no-config'))
        rep = subprocess.run([self.ncclog, 'analyze', '--format', 'json', '--color', 'never'] + paths,
                             capture_output=True, env=env)
        if rep.returncode == 3:
            return collections.defaultdict(set), set()  # nothing ncclog knows in these lines: no report, no finding
        if rep.returncode not in (0, 1):
            raise SystemExit(f'ncclog analyze failed ({rep.returncode}): {rep.stderr.decode(errors="replace")[:300]}')
        report = json.loads(rep.stdout)
        summ = {}
        if len(files) > 1:
            s = subprocess.run([self.ncclog, 'analyze', '--summary'] + paths, capture_output=True, env=env)
            summ = json.loads(s.stdout)
        byfile = collections.defaultdict(set)
        ambiguous = set()
        index = {p: f for p, f in zip(paths, files)}
        proc_file = {}
        for i, p in enumerate(summ.get('procs', [])):
            fi = p['file']
            if 0 <= fi < len(files):
                proc_file[i] = files[fi]
        line_ids = collections.defaultdict(set)
        for f in summ.get('findings', []):
            for pi in f.get('procs', []):
                if pi in proc_file:
                    line_ids[f['id']].add(proc_file[pi])
        for f in report['findings']:
            cited = {index.get(e.get('file')) for e in f.get('evidence', [])} - {None}
            who = cited | line_ids.get(f['id'], set())
            for c in who:
                byfile[c].add((f['id'], f['severity']))
            if (len(files) > 1 and f['severity'] == 'error' and (f.get('count', 0) > len(cited) or not cited)
                    and f['id'] not in line_ids):
                ambiguous.add(f['id'])
        return byfile, ambiguous


def verdict(row, found):
    """True when what a rendering produced is what its row asks for."""
    want = row['id']
    if want == 'benign' or want.startswith('context:'):
        return not any(sev == 'error' for _, sev in found)
    return any(i == want for i, _ in found)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('ncclog')
    ap.add_argument('sigdir')
    ap.add_argument('catalog')
    ap.add_argument('--quick', action='store_true', help='one launcher and one wrap per template (sanitizer builds)')
    ap.add_argument('--table', action='append', help='only these tables (name without .tsv)')
    ap.add_argument('--shape', action='append', help='only these shapes (while writing rules)')
    ap.add_argument('-v', '--verbose', action='count', default=0)
    a = ap.parse_args()

    catalog = {e['id'] for e in json.load(open(a.catalog))['findings']}
    tables = sorted(f for f in os.listdir(a.sigdir) if f.endswith('.tsv'))
    rows = []
    for t in tables:
        if a.table and t[:-4] not in a.table:
            continue
        rows += load_table(os.path.join(a.sigdir, t))
    levels = collections.defaultdict(set)
    for r in rows:
        levels[r['template']].add(r['level'])
    for r in rows:
        r['ambiguous'] = r['level'] == 'WARN' and 'INFO' in levels[r['template']]
    bad = [r for r in rows if r['id'] not in catalog and r['id'] not in CATCH_ALL and r['id'] != 'benign'
           and not (r['id'].startswith('context:') and r['id'][8:] in catalog)]
    for r in bad:
        print(f"{r['table']}.tsv: unknown id {r['id']!r} for {r['template'][:60]!r}", file=sys.stderr)
    if bad:
        return 1

    with tempfile.TemporaryDirectory(prefix='ncclog-coverage-') as tmp:
        runner = Runner(a.ncclog, tmp, None)
        have = probe(runner, tmp, catalog)
        jobs = []  # (row index, shape, file, needs)
        n = 0
        for ri, r in enumerate(rows):
            for shape, text, needs in renderings(r):
                if a.quick and (shape.startswith('launcher:') and shape != 'launcher:mpirun' or
                                shape.startswith('wrap') and shape != 'wrap80'):
                    continue
                if a.shape and shape not in a.shape:
                    continue
                unmet = needs - have
                if 'catch-all' in unmet:
                    jobs.append((ri, shape, None, unmet))  # cannot pass without it: not run
                    continue
                n += 1
                name = f'r{n}.log'
                # a pid of its own: each file is one process of the model
                text = text.replace('12345:', f'{10000 + n}:')
                with open(os.path.join(tmp, name), 'w', encoding='utf-8') as f:
                    f.write(text + '\n')
                jobs.append((ri, shape, name, unmet))
        results = run_all(runner, rows, jobs)

    return report(rows, jobs, results, have, runner, a.verbose)


def probe(runner, tmp, catalog):
    """The mechanisms this binary has."""
    have = {c for c in ('catch-all',) if 'nccl-warn' in catalog}
    line = ('gpu-node-07:12345:12401 [1] misc/socket.cc:484 NCCL WARN socketStartConnect: '
            'Connect to 10.0.0.12<43311> failed : Connection refused')
    with open(os.path.join(tmp, 'probe.log'), 'w') as f:
        f.write(wrap(line, 80, False) + '\n')
    with open(os.path.join(tmp, 'probe-level.log'), 'w') as f:
        f.write('NCCL WARN NET/OFI Invalid comm_id 3\n')
    found, _ = runner.analyze(['probe-level.log'])
    if any(i == 'net-plugin-error' for i, _ in found.get('probe-level.log', ())):
        have.add('rule-level')
    msgs = json.loads(subprocess.run([runner.ncclog, 'analyze', '--format', 'json', os.path.join(tmp, 'probe.log')],
                                     capture_output=True).stdout)['findings']
    if any(f['id'] == 'bootstrap-connect-failed' and 'Connection refused' in f['message'] and '<43311>' in f['message']
           for f in msgs):
        have.add('reassembly')
    return have


def run_all(runner, rows, jobs):
    """{file: passed} for every rendering that was run."""
    pending = [(ri, f) for ri, _, f, _ in jobs if f]
    result = {}
    # positive renderings batch by id, a bounded number per id and batch;
    # benign ones in larger batches of their own
    batches = []
    cur, per_id = [], collections.Counter()
    for ri, f in pending:
        want = rows[ri]['id']
        quiet = want == 'benign' or want.startswith('context:')
        key = 'quiet' if quiet else want
        if len(cur) >= 240 or per_id[key] >= (240 if quiet else 24):
            batches.append(cur)
            cur, per_id = [], collections.Counter()
        cur.append((ri, f))
        per_id[key] += 1
    if cur:
        batches.append(cur)
    retry = []
    for b in batches:
        byfile, ambiguous = runner.analyze([f for _, f in b])
        for ri, f in b:
            ok = verdict(rows[ri], byfile.get(f, set()))
            want = rows[ri]['id']
            quiet = want == 'benign' or want.startswith('context:')
            # a failure in a batch is only believed when run alone
            if not ok or (quiet and ambiguous):
                retry.append((ri, f))
            else:
                result[f] = True
    for ri, f in retry:
        byfile, _ = runner.analyze([f])
        result[f] = verdict(rows[ri], byfile.get(f, set()))
        runner.found = getattr(runner, 'found', {})
        runner.found[f] = sorted(byfile.get(f, set()))
    return result


def report(rows, jobs, results, have, runner, verbose):
    per_row = collections.defaultdict(list)
    for ri, shape, f, unmet in jobs:
        ok = results.get(f, False) if f else False
        per_row[ri].append((shape, ok, unmet, f))
    shape_tot = collections.Counter()
    shape_ok = collections.Counter()
    shape_wait = collections.Counter()
    covered, waiting, failed = set(), set(), []
    for ri, rs in per_row.items():
        bad = [(s, u, f) for s, ok, u, f in rs if not ok]
        for s, ok, u, f in rs:
            k = s.split(':')[0] if s.startswith('launcher:') else s
            shape_tot[k] += 1
            if ok:
                shape_ok[k] += 1
            elif u:
                shape_wait[k] += 1
        if not bad:
            covered.add(ri)
        elif all(u for _, u, _ in bad):
            waiting.add(ri)
        else:
            failed.append((ri, [(s, f) for s, u, f in bad if not u]))

    def pct(a, b):
        return f'{a}/{b} ({100.0 * a / b:.1f}%)' if b else '0/0'

    total = len(rows)
    print(f'signature coverage: {pct(len(covered), total)} templates covered; '
          f'{len(waiting)} wait for {", ".join(sorted({"catch-all", "reassembly", "rule-level"} - have)) or "nothing"}; '
          f'{len(failed)} fail')
    groups = [('table', lambda r: r['table']), ('level', lambda r: r['level'])]
    for gname, key in groups:
        tot, cov, wai = collections.Counter(), collections.Counter(), collections.Counter()
        for ri, r in enumerate(rows):
            k = key(r)
            tot[k] += 1
            cov[k] += ri in covered
            wai[k] += ri in waiting
        print(f'  per {gname}: ' + '; '.join(f'{k} {pct(cov[k], tot[k])}' + (f' +{wai[k]} waiting' if wai[k] else '')
                                            for k in sorted(tot)))
    print('  per shape (renderings): ' + '; '.join(
        f'{k} {pct(shape_ok[k], shape_tot[k])}' + (f' +{shape_wait[k]} waiting' if shape_wait[k] else '')
        for k in sorted(shape_tot)))
    print(f'  mechanisms present: {", ".join(sorted(have)) or "none"}; {runner.runs} ncclog runs')
    found = getattr(runner, 'found', {})
    for ri, bad in failed[:400 if verbose else 40]:
        r = rows[ri]
        got = sorted({i for s, f in bad for i, _ in found.get(f, [])})
        print(f"FAIL {r['table']}.tsv {r['level']} {r['id']}: {r['template'][:90]!r} "
              f"shapes {','.join(s for s, _ in bad)[:80]} got {got or 'nothing'}")
    if len(failed) > 40 and not verbose:
        print(f'... and {len(failed) - 40} more (-v lists them)')
    if verbose > 1:
        for ri in sorted(waiting):
            r = rows[ri]
            print(f"WAIT {r['table']}.tsv {r['level']} {r['id']}: {r['template'][:90]!r}")
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
