#include "findings.h"

#include <stdlib.h>
#include <string.h>

#define EVIDENCE_MAX_TEXT 512

finding *findings_get(findings *fs, const char *id, const char *key, const char *title,
		      enum severity sev, const char *message, const char *hint, bool *created)
{
	key = key ? key : "";
	for (size_t i = 0; i < fs->n; i++)
		if (strcmp(fs->v[i].id, id) == 0 && strcmp(fs->v[i].key, key) == 0) {
			if (created)
				*created = false;
			if (sev > fs->v[i].severity)
				fs->v[i].severity = sev;
			return &fs->v[i];
		}
	grow(&fs->v, &fs->cap, fs->n, sizeof *fs->v);
	finding *f = &fs->v[fs->n++];
	*f = (finding){ 0 };
	f->id = xstrdup(id);
	f->key = xstrdup(key);
	f->title = xstrdup(title ? title : "");
	f->severity = sev;
	f->message = xstrdup(message ? message : "");
	f->hint = hint && *hint ? xstrdup(hint) : NULL;
	f->seq = ++fs->seq;
	f->cause = -1;
	if (created)
		*created = true;
	return f;
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

static int cmp_finding(const void *a, const void *b)
{
	const finding *x = a, *y = b;
	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	/* causes before the symptoms they explain */
	if ((x->cause >= 0) != (y->cause >= 0))
		return x->cause >= 0 ? 1 : -1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void findings_sort(findings *fs)
{
	if (fs->n < 2)
		return;
	/* causes are indices: remember them by arrival number across the sort */
	uint64_t *cause_seq = xcalloc(fs->n, sizeof *cause_seq);
	uint64_t *own_seq = xcalloc(fs->n, sizeof *own_seq);
	for (size_t i = 0; i < fs->n; i++) {
		own_seq[i] = fs->v[i].seq;
		cause_seq[i] = fs->v[i].cause >= 0 ? fs->v[fs->v[i].cause].seq : 0;
	}
	qsort(fs->v, fs->n, sizeof *fs->v, cmp_finding);
	for (size_t i = 0; i < fs->n; i++) {
		uint64_t want = 0;
		for (size_t k = 0; k < fs->n; k++)
			if (own_seq[k] == fs->v[i].seq)
				want = cause_seq[k];
		fs->v[i].cause = -1;
		for (size_t j = 0; want && j < fs->n; j++)
			if (fs->v[j].seq == want)
				fs->v[i].cause = (int)j;
	}
	free(cause_seq);
	free(own_seq);
}
