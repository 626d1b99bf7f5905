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

cJSON *report_json_doc(const model *m, const report_opts *o)
{
	cJSON *doc = cJSON_CreateObject();
	add_str(doc, "tool", "ncclog");
	add_str(doc, "version", o->version);
	cJSON *in = cJSON_AddArrayToObject(doc, "inputs");
	for (size_t i = 0; i < m->nin; i++) {
		cJSON *e = cJSON_CreateObject();
		add_str(e, "file", m->in[i].name);
		cJSON_AddNumberToObject(e, "lines", (double)m->in[i].lines);
		cJSON_AddNumberToObject(e, "bytes", (double)m->in[i].bytes);
		cJSON_AddItemToArray(in, e);
	}
	jobinfo j;
	model_jobinfo(m, &j);
	cJSON *job = cJSON_AddObjectToObject(doc, "job");
	if (j.nranks)
		cJSON_AddNumberToObject(job, "nranks", j.nranks);
	else
		cJSON_AddNullToObject(job, "nranks");
	cJSON_AddNumberToObject(job, "ranks_seen", j.ranks_seen);
	cJSON *hosts = cJSON_AddArrayToObject(job, "hosts");
	for (size_t i = 0; i < j.hosts.n; i++)
		cJSON_AddItemToArray(hosts, jcstr(intern_str(&m->str, j.hosts.v[i])));
	cJSON *vers = cJSON_AddArrayToObject(job, "nccl_versions");
	for (size_t i = 0; i < j.versions.n; i++)
		cJSON_AddItemToArray(vers, jcstr(intern_str(&m->str, j.versions.v[i])));
	if (j.driver)
		cJSON_AddNumberToObject(job, "cuda_driver", (double)j.driver);
	cJSON *comms = cJSON_AddArrayToObject(job, "communicators");
	for (size_t i = 0; i < m->ncomms; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "nranks", m->comms[i].nranks);
		cJSON_AddNumberToObject(c, "ranks_seen", m->comms[i].nseen);
		cJSON_AddNumberToObject(c, "ranks_complete", m->comms[i].ndone);
		cJSON_AddItemToArray(comms, c);
	}
	hostlink *links;
	size_t nl = model_hostlinks(m, &links);
	cJSON *tr = cJSON_AddArrayToObject(job, "transports");
	for (size_t i = 0; i < nl; i++) {
		cJSON *t = cJSON_CreateObject();
		cJSON *hs = cJSON_AddArrayToObject(t, "hosts");
		cJSON_AddItemToArray(hs, jcstr(intern_str(&m->str, links[i].a)));
		cJSON_AddItemToArray(hs, jcstr(intern_str(&m->str, links[i].b)));
		strbuf v = { 0 };
		transport_str(links[i].via, &v);
		add_str(t, "via", v.p ? v.p : "");
		sb_free(&v);
		cJSON_AddItemToArray(tr, t);
	}
	free(links);
	cJSON *env = cJSON_AddArrayToObject(job, "env");
	for (size_t i = 0; i < m->nenv; i++) {
		cJSON *e = cJSON_CreateObject();
		add_str(e, "name", intern_str(&m->str, m->env[i].var));
		add_str(e, "value", intern_str(&m->str, m->env[i].val));
		int r = model_proc_rank(m, m->env[i].proc);
		if (r >= 0)
			cJSON_AddNumberToObject(e, "rank", r);
		if (model_host(m, m->env[i].proc))
			add_str(e, "host", model_host(m, m->env[i].proc));
		cJSON_AddItemToArray(env, e);
	}
	int ff = model_first_failure(m);
	if (ff >= 0) {
		cJSON *f = cJSON_AddObjectToObject(job, "first_failure");
		int r = model_proc_rank(m, ff);
		if (r >= 0)
			cJSON_AddNumberToObject(f, "rank", r);
		if (model_host(m, ff))
			add_str(f, "host", model_host(m, ff));
		add_str(f, "file", m->in[m->procs[ff].ev_warn.file].name);
		cJSON_AddNumberToObject(f, "line", (double)m->procs[ff].ev_warn.line);
	}
	jobinfo_free(&j);
	cJSON *ranks = cJSON_AddArrayToObject(doc, "ranks");
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
		cJSON_AddItemToArray(ranks, e);
	}
	verdict v;
	report_verdict(m, &v);
	cJSON *vd = cJSON_AddObjectToObject(doc, "verdict");
	add_str(vd, "text", v.what.p ? v.what.p : "");
	if (v.fix.n)
		add_str(vd, v.proven || !v.root || v.root->severity < SEV_ERROR ? "fix" : "next", v.fix.p);
	cJSON_AddBoolToObject(vd, "proven", v.proven);
	if (v.root)
		add_str(vd, "root", v.root->id);
	else
		cJSON_AddNullToObject(vd, "root");
	verdict_free(&v);
	cJSON *ra = cJSON_AddArrayToObject(doc, "roots");
	for (size_t i = 0; i < m->fs.n; i++)
		if (m->fs.v[i].cause < 0 && report_shows(o, &m->fs.v[i]))
			cJSON_AddItemToArray(ra, jcstr(m->fs.v[i].id));
	cJSON *fa = cJSON_AddArrayToObject(doc, "findings");
	for (size_t i = 0; i < m->fs.n; i++)
		if (report_shows(o, &m->fs.v[i]))
			cJSON_AddItemToArray(fa, finding_json(m, &m->fs.v[i]));
	return doc;
}

int report_json(FILE *out, const model *m, const report_opts *o)
{
	cJSON *doc = report_json_doc(m, o);
	char *txt = cJSON_Print(doc);
	cJSON_Delete(doc);
	int rc = txt && fputs(txt, out) >= 0 && fputc('\n', out) != EOF ? 0 : -1;
	free(txt);
	return rc;
}
