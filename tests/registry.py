#!/usr/bin/env python3
"""The finding registry holds together: every id the C code or a rule
emits is in the catalog, every catalog entry names who emits it and that
emitter exists (a rule with that finding, a check of model_check's table,
the result codes, the catch-alls, doctor), and the cause graph names only
known ids.

usage: registry.py SOURCE_ROOT
"""
import glob, json, os, re, sys

root = sys.argv[1]
cat = json.load(open(os.path.join(root, 'rules', 'catalog.json')))['findings']
ids = {e['id'] for e in cat}
problems = []

# ids the C code passes to a finding constructor or lookup
calls = re.compile(r'\b(?:job_finding|findings_find|findings_find_key|loose_add|findings_get|add|node_finding|cmp_finding)\(\s*[^,()]*(?:\([^()]*\))?[^,()]*,\s*"([a-z0-9][a-z0-9-]*)"')
spec = re.compile(r'\.id\s*=\s*"([a-z0-9][a-z0-9-]*)"')
table = re.compile(r'\{\s*\d+,\s*"nccl\w+",\s*"[^"]*",\s*"([a-z0-9-]+)"\s*\}')
c_ids = set()
for f in glob.glob(os.path.join(root, '*', '*.c')):
    if '/tests/' in f or '/fuzz/' in f or '/bench/' in f:
        continue
    text = open(f, encoding='utf-8', errors='replace').read()
    for rx in (calls, spec, table):
        for m in rx.finditer(text):
            c_ids.add((m.group(1), os.path.relpath(f, root)))
for i, where in sorted(c_ids):
    if i not in ids:
        problems.append(f'{where} uses id {i}, which rules/catalog.json lacks')

# the checks of model_check's table
checks_c = open(os.path.join(root, 'model', 'checks.c')).read()
tbl = checks_c[checks_c.index('checks[] = {'):]
checks = set(re.findall(r'\{\s*"([a-z0-9-]+)",\s*\w+\s*\}', tbl[:tbl.index('};')]))
rule_ids = set()
for f in glob.glob(os.path.join(root, 'rules', '[0-9]*.json')):
    for r in json.load(open(f))['rules']:
        if r.get('finding'):
            rule_ids.add(r['finding'])
            if r['finding'] not in ids and not r.get('title'):
                problems.append(f'{f}: rule {r["id"]} emits {r["finding"]}, which the catalog lacks')
results = {i for i, w in c_ids if w.endswith('model.c')}
for e in cat:
    em = e.get('emitted_by') or []
    if not em:
        problems.append(f'{e["id"]}: no "emitted_by"')
    for who in em:
        if who == 'rule' and e['id'] not in rule_ids:
            problems.append(f'{e["id"]}: says a rule emits it, and none does')
        elif who.startswith('check:') and who[6:] not in checks:
            problems.append(f'{e["id"]}: names {who}, which model_check does not run')
        elif who not in ('rule', 'result', 'catch-all', 'doctor') and not who.startswith('check:'):
            problems.append(f'{e["id"]}: unknown emitter {who}')
    if e['id'] in rule_ids and 'rule' not in em:
        problems.append(f'{e["id"]}: a rule emits it, and "emitted_by" does not say so')
    for k in ('kind', 'title', 'explain'):
        if not e.get(k):
            problems.append(f'{e["id"]}: no "{k}"')

edges = json.load(open(os.path.join(root, 'rules', 'causes.json')))['causes']
for e in edges:
    for i in [e['cause']] + e['explains']:
        if i != '*' and not i.endswith('*') and i not in ids:
            problems.append(f'causes.json: {i} is not in the catalog')

for p in problems:
    print('FAIL', p)
print(f'registry: {len(ids)} ids, {len(c_ids)} uses in C, {len(checks)} checks, {len(edges)} edges: {len(problems)} problems')
sys.exit(1 if problems else 0)
