#include "summary.h"
#include "system.h"

#include <stdlib.h>
#include <string.h>

#define SUMMARY_FORMAT 2

static cJSON *num(double v)
{
	return cJSON_CreateNumber(v);
}

static cJSON *ev_json(const evref *e)
{
	if (!e->text)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateArray();
	cJSON_AddItemToArray(o, num(e->file));
	cJSON_AddItemToArray(o, num((double)e->line));
	cJSON_AddItemToArray(o, num((double)e->off));
	cJSON_AddItemToArray(o, cJSON_CreateString(e->text));
	return o;
}

static cJSON *ints(const int *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, num(v[i]));
	return a;
}

static cJSON *pair(double a, double b)
{
	cJSON *o = cJSON_CreateArray();
	cJSON_AddItemToArray(o, num(a));
	cJSON_AddItemToArray(o, num(b));
	return o;
}

/* A process as named keys, one per fact of facts.h. */
static cJSON *proc_json(const proc *p)
{
	cJSON *o = cJSON_CreateObject();
#define X(type, name, init, merge, f) cJSON_AddItemToObject(o, #name, num((double)p->name));
	PROC_FACTS(X)
#undef X
	cJSON_AddItemToObject(o, "boot", pair(p->boot.name, p->boot.addr));
	cJSON_AddItemToObject(o, "oob", pair(p->oob.name, p->oob.addr));
	cJSON *so = cJSON_AddArrayToObject(o, "socket");
	for (int i = 0; i < p->nsocket; i++)
		cJSON_AddItemToArray(so, pair(p->socket[i].name, p->socket[i].addr));
	cJSON *li = cJSON_AddArrayToObject(o, "links");
	for (int i = 0; i < p->nlinks; i++) {
		cJSON *l = pair(p->links[i].from, p->links[i].to);
		cJSON_AddItemToArray(l, num(p->links[i].via));
		cJSON_AddItemToArray(li, l);
	}
	cJSON_AddNumberToObject(o, "nrecent", p->nrecent);
	cJSON *re = cJSON_AddArrayToObject(o, "recent");
	for (size_t i = 0; i < PROC_RECENT; i++) {
		cJSON *r = pair(p->recent[i].file, (double)p->recent[i].line);
		cJSON_AddItemToArray(r, num((double)p->recent[i].off));
		cJSON_AddItemToArray(re, r);
	}
#define X(name) cJSON_AddItemToObject(o, "ev_" #name, ev_json(&p->ev_##name));
	PROC_EVIDENCE(X)
#undef X
	return o;
}

cJSON *summary_write(const model *m)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "ncclog_summary", SUMMARY_FORMAT);
	cJSON *strs = cJSON_AddArrayToObject(doc, "strings");
	for (size_t i = 0; i < m->str.n; i++)
		cJSON_AddItemToArray(strs, cJSON_CreateString(m->str.strs[i]));
	cJSON *in = cJSON_AddArrayToObject(doc, "inputs");
	for (size_t i = 0; i < m->nin; i++) {
		cJSON *e = cJSON_CreateArray();
		cJSON_AddItemToArray(e, cJSON_CreateString(m->in[i].name));
		cJSON_AddItemToArray(e, num((double)m->in[i].lines));
		cJSON_AddItemToArray(e, num((double)m->in[i].bytes));
		cJSON_AddItemToArray(e, num(m->in[i].frank));
		cJSON_AddItemToArray(in, e);
	}
	cJSON *procs = cJSON_AddArrayToObject(doc, "procs");
	for (size_t i = 0; i < m->nprocs; i++)
		cJSON_AddItemToArray(procs, proc_json(&m->procs[i]));
	cJSON *comms = cJSON_AddArrayToObject(doc, "comms");
	for (size_t i = 0; i < m->ncomms; i++) {
		const comm *c = &m->comms[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "key", c->key);
		cJSON_AddNumberToObject(o, "nranks", c->nranks);
		int *v;
		size_t n = model_comm_ranks(c, CR_SEEN, &v);
		cJSON_AddItemToObject(o, "seen", ints(v, n));
		free(v);
		n = model_comm_ranks(c, CR_DONE, &v);
		cJSON_AddItemToObject(o, "done", ints(v, n));
		free(v);
		cJSON *rp = cJSON_AddArrayToObject(o, "rank_proc");
		n = model_comm_ranks(c, 0, &v);
		for (size_t k = 0; k < n; k++)
			if (model_comm_proc(c, v[k]) >= 0)
				cJSON_AddItemToArray(rp, pair(v[k], model_comm_proc(c, v[k])));
		free(v);
		cJSON_AddNumberToObject(o, "lines", (double)c->lines);
		cJSON_AddItemToObject(o, "ev", ev_json(&c->ev));
		cJSON_AddItemToArray(comms, o);
	}
	cJSON *wd = cJSON_AddArrayToObject(doc, "watchdog");
	for (size_t i = 0; i < m->nwd; i++) {
		const wdog *w = &m->wd[i];
		cJSON *o = cJSON_CreateArray();
		double v[] = { w->proc, w->pgrank, (double)w->seq, (double)w->last_enq, (double)w->last_done, w->op,
			       (double)w->timeout_ms };
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
			cJSON_AddItemToArray(o, num(v[k]));
		cJSON_AddItemToArray(o, ev_json(&w->ev));
		cJSON_AddItemToArray(o, num((double)w->lines));
		cJSON_AddItemToArray(wd, o);
	}
	cJSON *env = cJSON_AddArrayToObject(doc, "env");
	for (size_t i = 0; i < m->nenv; i++) {
		cJSON *o = pair(m->env[i].var, m->env[i].val);
		cJSON_AddItemToArray(o, num(m->env[i].proc));
		cJSON_AddItemToArray(o, ev_json(&m->env[i].ev));
		cJSON_AddItemToArray(o, num((double)m->env[i].lines));
		cJSON_AddItemToArray(env, o);
	}
	cJSON_AddItemToObject(doc, "killed", ev_json(&m->ev_killed));
	cJSON_AddItemToObject(doc, "excerpt", ev_json(&m->ev_excerpt));
	cJSON_AddItemToObject(doc, "table_hosts", ints(m->table_hosts.v, m->table_hosts.n));
	/* what the kernel, the scheduler and RAS said, and nccl-tests runs */
	cJSON *sys = cJSON_AddArrayToObject(doc, "system");
	for (size_t i = 0; i < m->nsys; i++) {
		const sysev *e = &m->sys[i];
		cJSON *o = cJSON_CreateArray();
		double v[] = { e->kind, e->host, (double)e->pid, (double)e->rank, (double)e->code, e->a, e->b, e->proc,
			       e->time, (double)e->count };
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
			cJSON_AddItemToArray(o, num(v[k]));
		cJSON_AddItemToArray(o, ev_json(&e->ev));
		cJSON_AddItemToArray(sys, o);
	}
	cJSON *nt = cJSON_AddArrayToObject(doc, "nccl_tests");
	for (size_t i = 0; i < m->nnt; i++) {
		const ntrun *t = &m->nt[i];
		cJSON *o = cJSON_CreateArray();
		double v[] = { t->file, t->program, t->col, (double)t->rows, (double)t->wrong_rows, t->wrong,
			       (double)t->wrong_lo, (double)t->wrong_hi, (double)t->oob, t->avg_bw, (double)t->max_size,
			       t->max_busbw };
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
			cJSON_AddItemToArray(o, num(v[k]));
		cJSON_AddItemToArray(o, ints(t->procs.v, t->procs.n));
		const evref *ev[] = { &t->ev_head, &t->ev_wrong, &t->ev_oob, &t->ev_bw, &t->ev_max };
		for (size_t k = 0; k < sizeof ev / sizeof ev[0]; k++)
			cJSON_AddItemToArray(o, ev_json(ev[k]));
		cJSON_AddItemToArray(nt, o);
	}
	/* what the caps dropped, in the order of MODEL_CAPS, and the first line */
	cJSON *dr = cJSON_AddArrayToObject(doc, "dropped");
	for (int k = 0; k < CAP_COUNT; k++)
		cJSON_AddItemToArray(dr, num((double)model_dropped(m, (enum model_cap)k)));
	cJSON_AddItemToObject(doc, "dropped_at", ev_json(&m->ev_cap));
	cJSON_AddNumberToObject(doc, "nloose", m->nloose);
	cJSON_AddNumberToObject(doc, "nccl_records", (double)m->nccl_records);
	cJSON_AddNumberToObject(doc, "matched", (double)m->matched);
	cJSON *fs = cJSON_AddArrayToObject(doc, "findings");
	for (size_t i = 0; i < m->fs.n; i++) {
		const finding *f = &m->fs.v[i];
		if (f->job)
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", f->id);
		cJSON_AddStringToObject(o, "title", f->title);
		cJSON_AddNumberToObject(o, "severity", f->severity);
		cJSON_AddStringToObject(o, "key", f->key);
		cJSON_AddStringToObject(o, "message", f->message);
		if (f->hint)
			cJSON_AddStringToObject(o, "hint", f->hint);
		cJSON_AddItemToObject(o, "procs", ints(f->procs.v, f->procs.n));
		cJSON_AddItemToObject(o, "ranks", ints(f->ranks.v, f->ranks.n));
		cJSON_AddItemToObject(o, "peers", ints(f->peers.v, f->peers.n));
		cJSON_AddItemToObject(o, "pids", ints(f->pids.v, f->pids.n));
		cJSON *ev = cJSON_AddArrayToObject(o, "ev");
		for (size_t k = 0; k < f->nev; k++) {
			cJSON *e = pair(f->ev[k].file, (double)f->ev[k].line);
			cJSON_AddItemToArray(e, num(f->ev[k].proc));
			cJSON_AddItemToArray(e, cJSON_CreateString(f->ev[k].text));
			cJSON_AddItemToArray(ev, e);
		}
		cJSON_AddNumberToObject(o, "count", (double)f->count);
		cJSON_AddNumberToObject(o, "seq", (double)f->seq);
		cJSON_AddNumberToObject(o, "time", f->time);
		cJSON_AddBoolToObject(o, "scoped", f->scoped);
		cJSON_AddItemToArray(fs, o);
	}
	return doc;
}

/* ---- reading: every index is checked against what it points into ---- */

typedef struct reader {
	model *m;
	strbuf *err;
	bool bad;
} reader;

static double at(reader *r, const cJSON *a, int i)
{
	const cJSON *e = cJSON_GetArrayItem(a, i);
	if (!cJSON_IsNumber(e)) {
		r->bad = true;
		return 0;
	}
	return e->valuedouble;
}

static int str_id(reader *r, double v)
{
	if (v < -1 || v >= (double)r->m->str.n) {
		r->bad = true;
		return -1;
	}
	return (int)v;
}

static int file_id(reader *r, double v)
{
	if (v < -1 || v >= (double)r->m->nin) {
		r->bad = true;
		return -1;
	}
	return (int)v;
}

static void ev_read(reader *r, const cJSON *a, evref *e)
{
	*e = (evref){ 0 };
	if (cJSON_IsNull(a) || !a)
		return;
	const cJSON *t = cJSON_GetArrayItem(a, 3);
	if (!cJSON_IsString(t)) {
		r->bad = true;
		return;
	}
	e->file = file_id(r, at(r, a, 0));
	e->line = (uint64_t)at(r, a, 1);
	e->off = (uint64_t)at(r, a, 2);
	e->text = xstrdup(t->valuestring);
}

static iface iface_read(reader *r, const cJSON *a)
{
	return (iface){ str_id(r, at(r, a, 0)), str_id(r, at(r, a, 1)) };
}

/* A fact read back, checked against what its kind allows. */
static double fact_num(reader *r, const cJSON *o, const char *name, double init)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	if (!v)
		return init;
	if (!cJSON_IsNumber(v)) {
		r->bad = true;
		return init;
	}
	return v->valuedouble;
}

#define FACT_READ_INT(r, v) (int)(v)
#define FACT_READ_LONG(r, v) (long)(v)
#define FACT_READ_UINT(r, v) (unsigned)(v)
#define FACT_READ_U64(r, v) (uint64_t)(v)
#define FACT_READ_DOUBLE(r, v) (v)
#define FACT_READ_BOOL(r, v) ((v) != 0)
#define FACT_READ_STR(r, v) str_id(r, v)
#define FACT_READ_FILE(r, v) file_id(r, v)
#define FACT_READ_COMM(r, v) (int)(v) /* checked once the communicators are read */
#define FACT_READ_LINE(r, v) (uint64_t)(v)
#define FACT_READ_PHASE(r, v) ((v) >= PH_NONE && (v) <= PH_RUNNING ? (enum phase)(v) : PH_NONE)

static void proc_read(reader *r, const cJSON *o, proc *p)
{
	model_proc_init(p);
	if (!cJSON_IsObject(o)) {
		r->bad = true;
		return;
	}
#define X(type, name, init, merge, f) p->name = FACT_READ_##type(r, fact_num(r, o, #name, (double)(init)));
	PROC_FACTS(X)
#undef X
	p->boot = iface_read(r, cJSON_GetObjectItem(o, "boot"));
	p->oob = iface_read(r, cJSON_GetObjectItem(o, "oob"));
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, "socket")) if (p->nsocket < 16) p->socket[p->nsocket++] = iface_read(r, e);
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, "links")) if (p->nlinks < 16) p->links[p->nlinks++] =
		(struct peerlink){ (int)at(r, e, 0), (int)at(r, e, 1), (unsigned)at(r, e, 2) };
	p->nrecent = (unsigned)fact_num(r, o, "nrecent", 0);
	int i = 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(o, "recent")) if (i < PROC_RECENT) p->recent[i++] =
		(lineref){ file_id(r, at(r, e, 0)), (uint64_t)at(r, e, 1), (uint64_t)at(r, e, 2) };
#define X(name) ev_read(r, cJSON_GetObjectItem(o, "ev_" #name), &p->ev_##name);
	PROC_EVIDENCE(X)
#undef X
}

static const char *jstr(reader *r, const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	if (!cJSON_IsString(v)) {
		r->bad = true;
		return "";
	}
	return v->valuestring;
}

int summary_read(model *m, const cJSON *doc, strbuf *err)
{
	reader rd = { m, err, false }, *r = &rd;
	const cJSON *fmt = cJSON_GetObjectItem(doc, "ncclog_summary");
	if (!cJSON_IsNumber(fmt) || fmt->valueint != SUMMARY_FORMAT) {
		sb_adds(err, "not an ncclog summary (made by `ncclog analyze --summary`)");
		return -1;
	}
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "strings")) {
		if (!cJSON_IsString(e) || intern_get(&m->str, slice_from(e->valuestring)) != (int)m->str.n - 1)
			r->bad = true;
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "inputs")) {
		const cJSON *name = cJSON_GetArrayItem(e, 0);
		if (!cJSON_IsString(name)) {
			r->bad = true;
			continue;
		}
		int f = model_add_input(m, name->valuestring);
		m->in[f].lines = (uint64_t)at(r, e, 1);
		m->in[f].bytes = (uint64_t)at(r, e, 2);
		m->in[f].frank = (int)at(r, e, 3);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "procs")) {
		if (m->nprocs >= MODEL_MAX_PROCS) {
			r->bad = true;
			break;
		}
		grow(&m->procs, &m->proccap, m->nprocs, sizeof *m->procs);
		proc_read(r, e, &m->procs[m->nprocs++]);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "comms")) {
		int key = str_id(r, cJSON_GetNumberValue(cJSON_GetObjectItem(e, "key")));
		double n = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "nranks"));
		comm *c = key >= 0 && !model_comm_find(m, key) ? model_comm_get(m, key, n > 0 && n <= (1 << 24) ? (int)n : 1)
							     : NULL;
		if (!c) {
			r->bad = true;
			continue;
		}
		const cJSON *x;
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "seen")) {
			if (!model_comm_mark(m, c, (int)x->valuedouble, CR_SEEN, -1))
				r->bad = true;
		}
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "done")) {
			if (!model_comm_mark(m, c, (int)x->valuedouble, CR_DONE, -1))
				r->bad = true;
		}
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "rank_proc")) {
			double rk = at(r, x, 0), pr = at(r, x, 1);
			if (!(rk >= 0 && rk < c->nranks && pr >= 0 && pr < (double)m->nprocs) ||
			    !model_comm_mark(m, c, (int)rk, 0, (int)pr))
				r->bad = true;
		}
		c->lines = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "lines"));
		ev_read(r, cJSON_GetObjectItem(e, "ev"), &c->ev);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "watchdog")) {
		wdog w = { (int)at(r, e, 0), (int)at(r, e, 1), (long)at(r, e, 2), (long)at(r, e, 3),
			   (long)at(r, e, 4), str_id(r, at(r, e, 5)), (long)at(r, e, 6), { 0 }, (uint64_t)at(r, e, 8) };
		if (m->nwd >= MODEL_MAX_WATCHDOG || model_wdog_find(m, w.proc, w.pgrank)) {
			r->bad = true;
			break;
		}
		grow(&m->wd, &m->wdcap, m->nwd, sizeof *m->wd);
		m->wd[m->nwd] = w;
		ev_read(r, cJSON_GetArrayItem(e, 7), &m->wd[m->nwd].ev);
		model_wdog_indexed(m, (int)m->nwd++);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "env")) {
		envset v = { str_id(r, at(r, e, 0)), str_id(r, at(r, e, 1)), (int)at(r, e, 2), { 0 }, (uint64_t)at(r, e, 4) };
		if (m->nenv >= MODEL_MAX_ENV || model_env_find(m, v.proc, v.var)) {
			r->bad = true;
			break;
		}
		grow(&m->env, &m->envcap, m->nenv, sizeof *m->env);
		m->env[m->nenv] = v;
		ev_read(r, cJSON_GetArrayItem(e, 3), &m->env[m->nenv].ev);
		model_env_indexed(m, (int)m->nenv++);
	}
	ev_read(r, cJSON_GetObjectItem(doc, "killed"), &m->ev_killed);
	ev_read(r, cJSON_GetObjectItem(doc, "excerpt"), &m->ev_excerpt);
	const cJSON *th;
	cJSON_ArrayForEach(th, cJSON_GetObjectItem(doc, "table_hosts")) intset_add(&m->table_hosts, str_id(r, th->valuedouble));
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "system")) {
		if (m->nsys >= SYSEV_MAX)
			break;
		double kind = at(r, e, 0), pr = at(r, e, 7);
		if (kind < SE_XID || kind > SE_RAS_STUCK || pr < -1 || pr >= (double)m->nprocs)
			r->bad = true;
		grow(&m->sys, &m->syscap, m->nsys, sizeof *m->sys);
		sysev *x = &m->sys[m->nsys++];
		*x = (sysev){ .kind = kind >= SE_XID && kind <= SE_RAS_STUCK ? (enum sysev_kind)kind : SE_XID,
			      .host = str_id(r, at(r, e, 1)), .pid = (long)at(r, e, 2), .rank = (long)at(r, e, 3),
			      .code = (long)at(r, e, 4), .a = str_id(r, at(r, e, 5)), .b = str_id(r, at(r, e, 6)),
			      .proc = pr >= -1 && pr < (double)m->nprocs ? (int)pr : -1, .time = at(r, e, 8),
			      .count = (uint64_t)at(r, e, 9) };
		ev_read(r, cJSON_GetArrayItem(e, 10), &x->ev);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "nccl_tests")) {
		if (m->nnt >= NTRUN_MAX)
			break;
		grow(&m->nt, &m->ntcap, m->nnt, sizeof *m->nt);
		ntrun *t = &m->nt[m->nnt++];
		*t = (ntrun){ .file = file_id(r, at(r, e, 0)), .program = str_id(r, at(r, e, 1)), .col = (int)at(r, e, 2),
			      .rows = (long)at(r, e, 3), .wrong_rows = (long)at(r, e, 4), .wrong = at(r, e, 5),
			      .wrong_lo = (uint64_t)at(r, e, 6), .wrong_hi = (uint64_t)at(r, e, 7), .oob = (long)at(r, e, 8),
			      .avg_bw = at(r, e, 9), .max_size = (uint64_t)at(r, e, 10), .max_busbw = at(r, e, 11) };
		const cJSON *x;
		cJSON_ArrayForEach(x, cJSON_GetArrayItem(e, 12)) {
			if (x->valuedouble >= 0 && x->valuedouble < (double)m->nprocs)
				intset_add(&t->procs, (int)x->valuedouble);
			else
				r->bad = true;
		}
		evref *ev[] = { &t->ev_head, &t->ev_wrong, &t->ev_oob, &t->ev_bw, &t->ev_max };
		for (int k = 0; k < 5; k++)
			ev_read(r, cJSON_GetArrayItem(e, 13 + k), ev[k]);
	}
	int cap = 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "dropped")) if (cap < CAP_COUNT) m->dropped[cap++] = (uint64_t)e->valuedouble;
	ev_read(r, cJSON_GetObjectItem(doc, "dropped_at"), &m->ev_cap);
	m->nloose = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "nloose"));
	if (m->nloose < 0 || m->nloose > 1 << 20)
		m->nloose = 0;
	double nr = cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "nccl_records")),
	       nm = cJSON_GetNumberValue(cJSON_GetObjectItem(doc, "matched"));
	m->nccl_records = nr > 0 && nr < 1e18 ? (uint64_t)nr : 0;
	m->matched = nm > 0 && nm < 1e18 ? (uint64_t)nm : 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "findings")) {
		double sev = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "severity"));
		const cJSON *hint = cJSON_GetObjectItem(e, "hint");
		finding *f = findings_add(&m->fs, m->cat,
					  &(findspec){ .id = jstr(r, e, "id"), .key = jstr(r, e, "key"), .title = jstr(r, e, "title"),
						       .severity = sev >= SEV_INFO && sev <= SEV_ERROR ? (int)sev : SEV_WARNING,
						       .message = jstr(r, e, "message"),
						       .hint = cJSON_IsString(hint) ? hint->valuestring : NULL },
					  NULL);
		const cJSON *x;
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "procs")) intset_add(&f->procs, (int)x->valuedouble);
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "ranks")) intset_add(&f->ranks, (int)x->valuedouble);
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "peers")) intset_add(&f->peers, str_id(r, x->valuedouble));
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "pids")) if (x->valuedouble >= 0 && x->valuedouble <= INT32_MAX)
			intset_add(&f->pids, (int)x->valuedouble);
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(e, "ev")) {
			const cJSON *t = cJSON_GetArrayItem(x, 3);
			if (cJSON_IsString(t))
				findings_add_evidence(f, file_id(r, at(r, x, 0)), (uint64_t)at(r, x, 1), (int)at(r, x, 2),
						      slice_from(t->valuestring));
		}
		f->count = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(e, "count"));
		f->time = cJSON_GetNumberValue(cJSON_GetObjectItem(e, "time"));
		f->scoped = cJSON_IsTrue(cJSON_GetObjectItem(e, "scoped"));
	}
	/* process indices last: the arrays are complete now */
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].comm < -1 || m->procs[i].comm >= (int)m->ncomms)
			r->bad = true;
	for (size_t i = 0; i < m->nwd; i++)
		if (m->wd[i].proc < 0 || m->wd[i].proc >= (int)m->nprocs)
			r->bad = true;
	for (size_t i = 0; i < m->nenv; i++)
		if (m->env[i].proc < 0 || m->env[i].proc >= (int)m->nprocs)
			r->bad = true;
	for (size_t i = 0; i < m->fs.n; i++) {
		for (size_t k = 0; k < m->fs.v[i].procs.n; k++)
			if (m->fs.v[i].procs.v[k] >= (int)m->nprocs || m->fs.v[i].procs.v[k] < 0)
				r->bad = true;
		for (size_t k = 0; k < m->fs.v[i].nev; k++)
			if (m->fs.v[i].ev[k].proc >= (int)m->nprocs)
				r->bad = true;
	}
	if (r->bad) {
		sb_adds(err, "the summary is damaged (an index points nowhere)");
		return -1;
	}
	return 0;
}
