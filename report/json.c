/* The JSON document of interface.md: one object on stdout, valid UTF-8
 * whatever bytes the logs held. */
#include "report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../util/escape.h"

static cJSON *jstr(const char *s, size_t n)
{
	strbuf b = { 0 };
	escape_utf8(&b, (slice){ s ? s : "", s ? n : 0 });
	cJSON *o = cJSON_CreateString(b.p ? b.p : "");
	sb_free(&b);
	return o;
}

static cJSON *jcstr(const char *s)
{
	return jstr(s, s ? strlen(s) : 0);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	cJSON_AddItemToObject(o, k, jcstr(v));
}

static cJSON *int_array(const int *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
	return a;
}

static cJSON *finding_json(const model *m, const finding *f)
{
	cJSON *o = cJSON_CreateObject();
	add_str(o, "id", f->id);
	add_str(o, "severity", severity_name(f->severity));
	add_str(o, "title", f->title);
	strbuf msg = { 0 };
	report_message(m, f, &msg);
	add_str(o, "message", msg.p);
	sb_free(&msg);
	if (f->hint)
		add_str(o, "hint", f->hint);
	else
		cJSON_AddNullToObject(o, "hint");
	intset ranks = { 0 }, hosts = { 0 };
	model_finding_place(m, f, &ranks, &hosts);
	cJSON_AddItemToObject(o, "ranks", int_array(ranks.v, ranks.n));
	cJSON *h = cJSON_AddArrayToObject(o, "hosts");
	for (size_t i = 0; i < hosts.n; i++)
		cJSON_AddItemToArray(h, jcstr(intern_str(&m->str, hosts.v[i])));
	intset_free(&ranks);
	intset_free(&hosts);
	cJSON_AddNumberToObject(o, "count", (double)f->count);
	cJSON *ev = cJSON_AddArrayToObject(o, "evidence");
	for (size_t i = 0; i < f->nev; i++) {
		cJSON *e = cJSON_CreateObject();
		add_str(e, "file", f->ev[i].file >= 0 ? m->in[f->ev[i].file].name : "");
		cJSON_AddNumberToObject(e, "line", (double)f->ev[i].line);
		add_str(e, "text", f->ev[i].text);
		cJSON_AddItemToArray(ev, e);
	}
	add_str(o, "kind", kind_name(f->kind));
	add_str(o, "confidence", confidence_name(f->confidence));
	if (f->cause >= 0)
		add_str(o, "caused_by", m->fs.v[f->cause].id);
	else
		cJSON_AddNullToObject(o, "caused_by");
	if (f->nconseq)
		cJSON_AddNumberToObject(o, "explains", f->nconseq);
	return o;
}

cJSON *report_finding_json(const model *m, const finding *f)
{
	return finding_json(m, f);
}

static cJSON *iface_json(const model *m, iface f)
{
	if (f.name < 0)
		return cJSON_CreateNull();
	return jcstr(intern_str(&m->str, f.name));
}

/* Where the document goes: into a tree (report_json_doc), or to a stream
 * one element at a time, as cJSON_Print would format the tree, so that the
 * report of a job of many ranks, settings and findings never holds its
 * whole tree (report_json). */
#define JSINK_DEPTH 8
typedef struct jsink {
	FILE *out;                  /* streaming when set */
	int err;                    /* a write failed */
	int depth;                  /* containers open */
	cJSON *tree[JSINK_DEPTH];   /* tree: the open containers */
	bool array[JSINK_DEPTH];    /* stream: is the open container an array */
	bool any[JSINK_DEPTH];      /* stream: has it a member yet */
	cJSON *root;                /* tree: the document */
} jsink;

static void js_write(jsink *s, const char *p)
{
	if (fputs(p, s->out) < 0)
		s->err = 1;
}

static void js_tabs(jsink *s, int n)
{
	for (int i = 0; i < n; i++)
		if (fputc('\t', s->out) == EOF)
			s->err = 1;
}

/* Stream: what goes before a member of the open container: its separator
 * and, in an object, its indentation and key. */
static void js_lead(jsink *s, const char *key)
{
	int d = s->depth - 1;
	if (d < 0)
		return;
	if (s->array[d]) {
		if (s->any[d])
			js_write(s, ", ");
	} else {
		js_write(s, s->any[d] ? ",\n" : "");
		js_tabs(s, s->depth);
		js_write(s, "\"");
		js_write(s, key);
		js_write(s, "\":\t");
	}
	s->any[d] = true;
}

/* Adds item (taken over) as key of the open object, or to the open array. */
static void js_put(jsink *s, const char *key, cJSON *item)
{
	if (!s->out) {
		cJSON *parent = s->tree[s->depth - 1];
		if (cJSON_IsArray(parent))
			cJSON_AddItemToArray(parent, item);
		else
			cJSON_AddItemToObject(parent, key, item);
		return;
	}
	js_lead(s, key);
	char *txt = cJSON_Print(item);
	cJSON_Delete(item);
	if (!txt) {
		s->err = 1;
		return;
	}
	/* printed alone its lines are indented from 0: shift them to here */
	for (char *p = txt, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl) {
			js_write(s, p);
			break;
		}
		if (fwrite(p, 1, (size_t)(nl - p + 1), s->out) != (size_t)(nl - p + 1))
			s->err = 1;
		js_tabs(s, s->depth);
	}
	free(txt);
}

/* Opens an object or array as key of the open object (or in the open
 * array, or as the document); js_close closes it. */
static void js_open(jsink *s, const char *key, bool array)
{
	if (!s->out) {
		cJSON *c = array ? cJSON_CreateArray() : cJSON_CreateObject();
		if (s->depth)
			js_put(s, key, c);
		else
			s->root = c;
		s->tree[s->depth++] = c;
		return;
	}
	js_lead(s, key);
	js_write(s, array ? "[" : "{\n");
	s->array[s->depth] = array;
	s->any[s->depth] = false;
	s->depth++;
}

static void js_close(jsink *s)
{
	s->depth--;
	if (!s->out)
		return;
	if (s->array[s->depth]) {
		js_write(s, "]");
		return;
	}
	if (s->any[s->depth])
		js_write(s, "\n");
	js_tabs(s, s->depth);
	js_write(s, "}");
}

static void json_walk(jsink *s, const model *m, const report_opts *o)
{
	js_open(s, NULL, false);
	js_put(s, "tool", jcstr("ncclog"));
	js_put(s, "version", jcstr(o->version));
	js_open(s, "inputs", true);
	for (size_t i = 0; i < m->nin; i++) {
		cJSON *e = cJSON_CreateObject();
		add_str(e, "file", m->in[i].name);
		cJSON_AddNumberToObject(e, "lines", (double)m->in[i].lines);
		cJSON_AddNumberToObject(e, "bytes", (double)m->in[i].bytes);
		js_put(s, NULL, e);
	}
	js_close(s);
	jobinfo j;
	model_jobinfo(m, &j);
	js_open(s, "job", false);
	js_put(s, "nranks", j.nranks ? cJSON_CreateNumber(j.nranks) : cJSON_CreateNull());
	js_put(s, "ranks_seen", cJSON_CreateNumber(j.ranks_seen));
	js_open(s, "hosts", true);
	for (size_t i = 0; i < j.hosts.n; i++)
		js_put(s, NULL, jcstr(intern_str(&m->str, j.hosts.v[i])));
	js_close(s);
	js_open(s, "nccl_versions", true);
	for (size_t i = 0; i < j.versions.n; i++)
		js_put(s, NULL, jcstr(intern_str(&m->str, j.versions.v[i])));
	js_close(s);
	if (j.driver)
		js_put(s, "cuda_driver", cJSON_CreateNumber((double)j.driver));
	js_open(s, "communicators", true);
	for (size_t i = 0; i < m->ncomms; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "nranks", m->comms[i].nranks);
		cJSON_AddNumberToObject(c, "ranks_seen", m->comms[i].nseen);
		cJSON_AddNumberToObject(c, "ranks_complete", m->comms[i].ndone);
		js_put(s, NULL, c);
	}
	js_close(s);
	hostlink *links;
	size_t nl = model_hostlinks(m, &links);
	js_open(s, "transports", true);
	for (size_t i = 0; i < nl; i++) {
		cJSON *t = cJSON_CreateObject();
		cJSON *hs = cJSON_AddArrayToObject(t, "hosts");
		cJSON_AddItemToArray(hs, jcstr(intern_str(&m->str, links[i].a)));
		cJSON_AddItemToArray(hs, jcstr(intern_str(&m->str, links[i].b)));
		strbuf v = { 0 };
		transport_str(links[i].via, &v);
		add_str(t, "via", v.p ? v.p : "");
		sb_free(&v);
		js_put(s, NULL, t);
	}
	js_close(s);
	free(links);
	js_open(s, "env", true);
	for (size_t i = 0; i < m->nenv; i++) {
		cJSON *e = cJSON_CreateObject();
		add_str(e, "name", intern_str(&m->str, m->env[i].var));
		add_str(e, "value", intern_str(&m->str, m->env[i].val));
		int r = model_proc_rank(m, m->env[i].proc);
		if (r >= 0)
			cJSON_AddNumberToObject(e, "rank", r);
		if (model_host(m, m->env[i].proc))
			add_str(e, "host", model_host(m, m->env[i].proc));
		js_put(s, NULL, e);
	}
	js_close(s);
	int ff = model_first_failure(m);
	if (ff >= 0) {
		cJSON *f = cJSON_CreateObject();
		int r = model_proc_rank(m, ff);
		if (r >= 0)
			cJSON_AddNumberToObject(f, "rank", r);
		if (model_host(m, ff))
			add_str(f, "host", model_host(m, ff));
		add_str(f, "file", m->in[m->procs[ff].ev_warn.file].name);
		cJSON_AddNumberToObject(f, "line", (double)m->procs[ff].ev_warn.line);
		js_put(s, "first_failure", f);
	}
	js_close(s);
	jobinfo_free(&j);
	js_open(s, "ranks", true);
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		int r = model_proc_rank(m, (int)i);
		if (r < 0 && p->pid < 0)
			continue;
		cJSON *e = cJSON_CreateObject();
		if (r >= 0)
			cJSON_AddNumberToObject(e, "rank", r);
		else
			cJSON_AddNullToObject(e, "rank");
		if (p->host >= 0)
			add_str(e, "host", intern_str(&m->str, p->host));
		else
			cJSON_AddNullToObject(e, "host");
		if (p->pid >= 0)
			cJSON_AddNumberToObject(e, "pid", (double)p->pid);
		else
			cJSON_AddNullToObject(e, "pid");
		if (p->dev >= 0)
			cJSON_AddNumberToObject(e, "cuda_dev", p->dev);
		else
			cJSON_AddNullToObject(e, "cuda_dev");
		add_str(e, "phase", phase_name(p->phase));
		cJSON_AddItemToObject(e, "socket_iface", iface_json(m, p->boot));
		if (p->net >= 0)
			add_str(e, "net", intern_str(&m->str, p->net));
		else
			cJSON_AddNullToObject(e, "net");
		if (p->version >= 0)
			add_str(e, "nccl_version", intern_str(&m->str, p->version));
		add_str(e, "file", m->in[p->file].name);
		js_put(s, NULL, e);
	}
	js_close(s);
	verdict v;
	report_verdict(m, &v);
	cJSON *vd = cJSON_CreateObject();
	add_str(vd, "text", v.what.p ? v.what.p : "");
	if (v.fix.n)
		add_str(vd, v.proven || !v.root || v.root->severity < SEV_ERROR ? "fix" : "next", v.fix.p);
	cJSON_AddBoolToObject(vd, "proven", v.proven);
	if (v.root)
		add_str(vd, "root", v.root->id);
	else
		cJSON_AddNullToObject(vd, "root");
	verdict_free(&v);
	js_put(s, "verdict", vd);
	js_open(s, "roots", true);
	for (size_t i = 0; i < m->fs.n; i++)
		if (m->fs.v[i].cause < 0 && report_shows(o, &m->fs.v[i]))
			js_put(s, NULL, jcstr(m->fs.v[i].id));
	js_close(s);
	js_open(s, "findings", true);
	for (size_t i = 0; i < m->fs.n; i++)
		if (report_shows(o, &m->fs.v[i]))
			js_put(s, NULL, finding_json(m, &m->fs.v[i]));
	js_close(s);
	js_close(s);
}

cJSON *report_json_doc(const model *m, const report_opts *o)
{
	jsink s = { 0 };
	json_walk(&s, m, o);
	return s.root;
}

int report_json(FILE *out, const model *m, const report_opts *o)
{
	jsink s = { .out = out };
	json_walk(&s, m, o);
	js_write(&s, "\n");
	return s.err ? -1 : 0;
}
