#include "findings.h"

#include "../util/escape.h"

#include <stdlib.h>
#include <string.h>

#define EVIDENCE_MAX_TEXT 512

/* The keyed hash of id, a NUL and key: ids are few and short, fold keys
 * come from the input. */
static uint64_t fkey_hash(const findings *fs, const char *id, const char *key)
{
	return siphash_ints(&fs->hkey, siphash(&fs->hkey, id, strlen(id)), siphash(&fs->hkey, key, strlen(key)));
}

typedef struct fkey {
	const findings *fs;
	const char *id, *key;
} fkey;

static bool fkey_eq(const void *ctx, int i)
{
	const fkey *k = ctx;
	return strcmp(k->fs->v[i].id, k->id) == 0 && strcmp(k->fs->v[i].key, k->key) == 0;
}

static int find_index(const findings *fs, const char *id, const char *key)
{
	if (!fs->idx.n)
		return -1; /* and the key may not be drawn yet */
	fkey k = { fs, id, key };
	return hashidx_find(&fs->idx, fkey_hash(fs, id, key), fkey_eq, &k);
}

/* Indexes v[i]; the first finding draws the key. */
static void index_put(findings *fs, size_t i)
{
	if (!fs->idx.n && !fs->idx.cap)
		hashkey_random(&fs->hkey);
	hashidx_put(&fs->idx, fkey_hash(fs, fs->v[i].id, fs->v[i].key), (int)i);
}

/* A copy of s cut to FINDING_MAX_TEXT bytes at a character boundary. */
static char *text_copy(const char *s)
{
	size_t n = strlen(s);
	if (n <= FINDING_MAX_TEXT)
		return xstrdup(s);
	n = FINDING_MAX_TEXT - 3;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	strbuf b = { 0 };
	sb_add(&b, s, n);
	sb_adds(&b, "...");
	return sb_take(&b);
}

static void finding_free(finding *f);

static void finding_fill(finding *f, const findspec *sp, const catentry *ce, const char *key, enum severity sev)
{
	*f = (finding){ 0 };
	f->id = xstrdup(sp->id);
	f->key = xstrdup(key);
	f->title = text_copy(ce ? ce->title : sp->title ? sp->title : sp->id);
	f->severity = sev;
	f->message = text_copy(sp->message ? sp->message : "");
	f->hint = sp->hint && *sp->hint ? text_copy(sp->hint) : NULL;
	f->cause = -1;
	f->root = -1;
	f->job = sp->job;
	f->kind = ce ? ce->kind : KIND_CAUSE;
	/* a line states what a rule finds; a check concludes with the
	 * catalog's confidence; a heuristic stays a suspicion either way */
	f->confidence = !ce ? CONF_ESTABLISHED
			: ce->confidence == CONF_SUSPECTED ? CONF_SUSPECTED
			: sp->job ? ce->confidence : CONF_ESTABLISHED;
}

finding *findings_add(findings *fs, const catalog *cat, const findspec *sp, bool *created)
{
	char keybuf[FINDING_MAX_TEXT + 1];
	const char *key = sp->key ? sp->key : "";
	/* a fold key is cut as texts are: what is left still folds alike lines */
	size_t kn = strlen(key);
	if (kn > FINDING_MAX_TEXT) {
		kn = utf8_prefix(key, kn, FINDING_MAX_TEXT); /* no character torn */
		memcpy(keybuf, key, kn);
		keybuf[kn] = '\0';
		key = keybuf;
	}
	const catentry *ce = cat ? catalog_find(cat, sp->id) : NULL;
	enum severity sev = sp->severity == SEV_DEFAULT ? (ce ? ce->severity : SEV_WARNING) : (enum severity)sp->severity;
	if (created)
		*created = false;
	int i = find_index(fs, sp->id, key);
	if (i >= 0) {
		if (sev > fs->v[i].severity)
			fs->v[i].severity = sev;
		return &fs->v[i];
	}
	if (!sp->keep && (sp->job ? fs->njob : fs->nline) >= FINDINGS_MAX) {
		if (sp->job)
			fs->dropped.job++;
		else
			fs->dropped.findings++;
		finding_free(&fs->sink);
		finding_fill(&fs->sink, sp, ce, key, sev);
		return &fs->sink;
	}
	grow(&fs->v, &fs->cap, fs->n, sizeof *fs->v);
	finding *f = &fs->v[fs->n];
	finding_fill(f, sp, ce, key, sev);
	f->seq = ++fs->seq;
	index_put(fs, fs->n++);
	if (sp->job)
		fs->njob++;
	else
		fs->nline++;
	if (created)
		*created = true;
	return f;
}

bool findings_is_sink(const findings *fs, const finding *f)
{
	return f == &fs->sink;
}

bool findings_add_key(findings *fs, finding *f, intset *set, int x)
{
	if (intset_has(set, x))
		return true;
	if (f == &fs->sink)
		return false;
	if (set->n >= FINDING_MAX_KEYS || fs->nkeys >= FINDINGS_MAX_KEYS) {
		fs->dropped.keys++;
		return false;
	}
	intset_add(set, x);
	fs->nkeys++;
	return true;
}

finding *findings_get(findings *fs, const char *id, const char *key, const char *title, enum severity sev,
		      const char *message, const char *hint, bool *created)
{
	return findings_add(fs, NULL,
			    &(findspec){ .id = id, .key = key, .title = title, .severity = (int)sev, .message = message,
					 .hint = hint },
			    created);
}

void findings_add_evidence(finding *f, int file, uint64_t line, int proc, slice text)
{
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].file == file && f->ev[i].line == line)
			return;
	if (f->nev == FINDING_MAX_EVIDENCE)
		return;
	evidence *e = &f->ev[f->nev++];
	e->file = file;
	e->line = line;
	e->proc = proc;
	e->text = xstrndup(text.p, utf8_prefix(text.p, text.n, EVIDENCE_MAX_TEXT));
}

void findings_note(finding *f, int proc, double time, int file, uint64_t line, slice text)
{
	f->count++;
	if (proc >= 0)
		intset_add(&f->procs, proc);
	if (time > 0 && (f->time == 0 || time < f->time))
		f->time = time;
	/* Keep the first line, then one line per new process: evidence spread over ranks. */
	bool new_proc = true;
	for (size_t i = 0; i < f->nev; i++)
		if (f->ev[i].proc == proc)
			new_proc = false;
	if (file >= 0 && text.p && (f->nev == 0 || new_proc))
		findings_add_evidence(f, file, line, proc, text);
}

finding *findings_find(findings *fs, const char *id)
{
	/* the checks ask for an id among few findings: a scan */
	for (size_t i = 0; i < fs->n; i++)
		if (strcmp(fs->v[i].id, id) == 0)
			return &fs->v[i];
	return NULL;
}

finding *findings_find_key(findings *fs, const char *id, const char *key)
{
	int i = find_index(fs, id, key);
	return i >= 0 ? &fs->v[i] : NULL;
}

static void finding_free(finding *f)
{
	if (!f->id)
		return;
	free(f->id);
	free(f->key);
	free(f->title);
	free(f->message);
	free(f->hint);
	intset_free(&f->procs);
	intset_free(&f->ranks);
	intset_free(&f->peers);
	intset_free(&f->pids);
	for (size_t k = 0; k < f->nev; k++)
		free(f->ev[k].text);
	*f = (finding){ 0 };
}

void findings_free(findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		finding_free(&fs->v[i]);
	free(fs->v);
	finding_free(&fs->sink);
	hashidx_free(&fs->idx);
	*fs = (findings){ 0 };
}

void findings_reindex(findings *fs)
{
	hashidx_clear(&fs->idx);
	for (size_t i = 0; i < fs->n; i++)
		index_put(fs, i);
}

void findings_drop_job(findings *fs)
{
	size_t k = 0;
	for (size_t i = 0; i < fs->n; i++) {
		if (fs->v[i].job)
			finding_free(&fs->v[i]);
		else
			fs->v[k++] = fs->v[i];
	}
	fs->n = k;
	fs->njob = 0;
	fs->dropped.job = 0;
	for (size_t i = 0; i < fs->n; i++)
		fs->v[i].cause = -1;
	findings_reindex(fs);
}

