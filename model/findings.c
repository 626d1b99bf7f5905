#include "findings.h"

#include <stdlib.h>
#include <string.h>

#define EVIDENCE_MAX_TEXT 512

finding *findings_add(findings *fs, const catalog *cat, const findspec *sp, bool *created)
{
	const char *key = sp->key ? sp->key : "";
	const catentry *ce = cat ? catalog_find(cat, sp->id) : NULL;
	enum severity sev = sp->severity == SEV_DEFAULT ? (ce ? ce->severity : SEV_WARNING) : (enum severity)sp->severity;
	for (size_t i = 0; i < fs->n; i++)
		if (strcmp(fs->v[i].id, sp->id) == 0 && strcmp(fs->v[i].key, key) == 0) {
			if (created)
				*created = false;
			if (sev > fs->v[i].severity)
				fs->v[i].severity = sev;
			return &fs->v[i];
		}
	grow(&fs->v, &fs->cap, fs->n, sizeof *fs->v);
	finding *f = &fs->v[fs->n++];
	*f = (finding){ 0 };
	f->id = xstrdup(sp->id);
	f->key = xstrdup(key);
	f->title = xstrdup(ce ? ce->title : sp->title ? sp->title : sp->id);
	f->severity = sev;
	f->message = xstrdup(sp->message ? sp->message : "");
	f->hint = sp->hint && *sp->hint ? xstrdup(sp->hint) : NULL;
	f->seq = ++fs->seq;
	f->cause = -1;
	f->root = -1;
	f->job = sp->job;
	f->kind = ce ? ce->kind : KIND_CAUSE;
	/* a line states what a rule finds; a check concludes with the
	 * catalog's confidence; a heuristic stays a suspicion either way */
	f->confidence = !ce ? CONF_ESTABLISHED
			: ce->confidence == CONF_SUSPECTED ? CONF_SUSPECTED
			: sp->job ? ce->confidence : CONF_ESTABLISHED;
	if (created)
		*created = true;
	return f;
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
	e->text = xstrndup(text.p, text.n < EVIDENCE_MAX_TEXT ? text.n : EVIDENCE_MAX_TEXT);
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
	for (size_t i = 0; i < fs->n; i++)
		if (strcmp(fs->v[i].id, id) == 0)
			return &fs->v[i];
	return NULL;
}

finding *findings_find_key(findings *fs, const char *id, const char *key)
{
	for (size_t i = 0; i < fs->n; i++)
		if (strcmp(fs->v[i].id, id) == 0 && strcmp(fs->v[i].key, key) == 0)
			return &fs->v[i];
	return NULL;
}

static void finding_free(finding *f)
{
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
}

void findings_free(findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		finding_free(&fs->v[i]);
	free(fs->v);
	*fs = (findings){ 0 };
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
	for (size_t i = 0; i < fs->n; i++)
		fs->v[i].cause = -1;
}

