#include "summary.h"
#include "system.h"
#include "../parser/ncclt.h"
#include "../util/escape.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_FORMAT 2

static cJSON *num(double v)
{
	/* JSON has no infinity (cJSON would write null), and cJSON writes 15
	 * digits, which for the largest doubles read back as infinity: a sum
	 * that overflowed is written as 1e308 */
	return cJSON_CreateNumber(v != v ? 0 : v > 1e308 ? 1e308 : v < -1e308 ? -1e308 : v);
}

/* A string from the logs (a name, a line) as the JSON reports write
 * one: valid UTF-8, control characters in the \xNN form. */
static cJSON *text(const char *s)
{
	bool plain = true;
	for (const unsigned char *p = (const unsigned char *)s; *p && plain; p++)
		plain = *p >= 0x20 && *p < 0x7f;
	if (plain)
		return cJSON_CreateString(s);
	strbuf b = { 0 };
	escape_utf8(&b, slice_from(s));
	cJSON *v = cJSON_CreateString(b.p ? b.p : "");
	sb_free(&b);
	return v;
}

static cJSON *ev_json(const evref *e)
{
	if (!e->text)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateArray();
	cJSON_AddItemToArray(o, num(e->file));
	cJSON_AddItemToArray(o, num((double)e->line));
	cJSON_AddItemToArray(o, num((double)e->off));
	cJSON_AddItemToArray(o, text(e->text));
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
		cJSON_AddItemToArray(strs, text(m->str.strs[i]));
	cJSON *in = cJSON_AddArrayToObject(doc, "inputs");
	for (size_t i = 0; i < m->nin; i++) {
		cJSON *e = cJSON_CreateArray();
		cJSON_AddItemToArray(e, text(m->in[i].name));
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
		cJSON_AddItemToObject(o, "title", text(f->title));
		cJSON_AddNumberToObject(o, "severity", f->severity);
		cJSON_AddItemToObject(o, "key", text(f->key));
		cJSON_AddItemToObject(o, "message", text(f->message));
		if (f->hint)
			cJSON_AddItemToObject(o, "hint", text(f->hint));
		cJSON_AddItemToObject(o, "procs", ints(f->procs.v, f->procs.n));
		cJSON_AddItemToObject(o, "ranks", ints(f->ranks.v, f->ranks.n));
		cJSON_AddItemToObject(o, "peers", ints(f->peers.v, f->peers.n));
		cJSON_AddItemToObject(o, "pids", ints(f->pids.v, f->pids.n));
		cJSON *ev = cJSON_AddArrayToObject(o, "ev");
		for (size_t k = 0; k < f->nev; k++) {
			cJSON *e = pair(f->ev[k].file, (double)f->ev[k].line);
			cJSON_AddItemToArray(e, num(f->ev[k].proc));
			cJSON_AddItemToArray(e, text(f->ev[k].text));
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

/* ---- reading: every value is checked where it is read, by one helper ----
 *
 * A summary comes from another node, or from a file anyone could have
 * edited: whatever it holds, every number is checked against what the
 * model allows there (an integer, an index below its table's count, a rank
 * below its communicator's nranks) before it is used, and the first fault
 * refuses the whole summary with the field it is in. */

#define LONG_LIM 1e18                  /* longs the parser reads: at most 18 digits */
#define U64_END 18446744073709551616.0 /* 2^64: where a uint64_t written as a double may round to */
#define EXACT 9007199254740992.0       /* 2^53: every double at least this big is an integer */
#define PATH_DEPTH 6

/* How a number is checked and its range written: an integer in [lo, hi];
 * an index, [lo, hi + 1) (below a count); any finite real. */
enum numkind { N_INT, N_INDEX, N_REAL };

typedef struct frame {
	const char *key; /* a field's name, or NULL for an item of an array */
	size_t idx;
} frame;

typedef struct reader {
	model *m;
	strbuf *err;
	bool bad;            /* err holds the first fault; everything after is skipped */
	int *sid;            /* the summary's string ids, as m interns them */
	size_t nsid;
	frame path[PATH_DEPTH]; /* where the value being read is: comms[3].seen[2] */
	int depth;
	const cJSON *near_obj, *near; /* the field found last, and its object */
} reader;

/* The field key of object o, or NULL. The writer writes the fields of an
 * object in the order they are read: the search starts after the last one
 * found, so that reading a process is not quadratic in its facts. */
static const cJSON *field(reader *r, const cJSON *o, const char *key)
{
	if (!cJSON_IsObject(o))
		return NULL;
	const cJSON *start = r->near_obj == o && r->near ? r->near->next : NULL, *e;
	for (e = start; e; e = e->next)
		if (e->string && strcmp(e->string, key) == 0)
			goto found;
	for (e = o->child; e && e != start; e = e->next)
		if (e->string && strcmp(e->string, key) == 0)
			goto found;
	return NULL;
found:
	r->near_obj = o;
	r->near = e;
	return e;
}

static void in_key(reader *r, const char *key)
{
	if (r->depth < PATH_DEPTH)
		r->path[r->depth] = (frame){ key, 0 };
	r->depth++;
}

/* Sets the index of the item being read (the path's last frame). */
static bool at_item(reader *r, size_t i)
{
	if (r->depth <= PATH_DEPTH)
		r->path[r->depth - 1].idx = i;
	return true;
}

static void in_item(reader *r, size_t i)
{
	in_key(r, NULL);
	at_item(r, i);
}

static void out(reader *r)
{
	r->depth--;
}

/* Records the first fault: "summary field PATH: why" ("summary: why" for
 * the document itself). */
static void fault(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fault(reader *r, const char *fmt, ...)
{
	if (r->bad)
		return;
	r->bad = true;
	sb_adds(r->err, r->depth ? "summary field " : "summary");
	for (int i = 0; i < r->depth && i < PATH_DEPTH; i++) {
		if (r->path[i].key)
			sb_printf(r->err, "%s%s", i ? "." : "", r->path[i].key);
		else
			sb_printf(r->err, "[%zu]", r->path[i].idx);
	}
	char why[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	sb_printf(r->err, ": %s", why);
}

static bool is_finite(double v)
{
	return v == v && v - v == 0;
}

static bool integral(double v)
{
	if (v <= -EXACT || v >= EXACT)
		return is_finite(v);
	return v == (double)(int64_t)v;
}

/* A number as a message shows it: integers in full, others short. */
static const char *num_text(char *b, size_t n, double v)
{
	if (!is_finite(v))
		snprintf(b, n, "%s", v != v ? "nan" : v < 0 ? "-inf" : "inf");
	else if (integral(v) && v > -1e21 && v < 1e21)
		snprintf(b, n, "%.0f", v);
	else
		snprintf(b, n, "%.15g", v);
	return b;
}

static const char *json_kind(const cJSON *v)
{
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsBool(v))
		return "a boolean";
	return cJSON_IsNull(v) ? "null" : "a raw value";
}

/* True when v is there and of a type of want (cJSON type flags); a
 * fault naming what belongs there otherwise. */
static bool is(reader *r, const cJSON *v, int want, const char *name)
{
	if (r->bad)
		return false;
	if (!v) {
		fault(r, "missing, %s belongs here", name);
		return false;
	}
	if (!(v->type & want & 0xff)) {
		fault(r, "%s where %s belongs", json_kind(v), name);
		return false;
	}
	return true;
}

/* The one check of a number: v is a number, an integer unless k is N_REAL,
 * and within [lo, hi] (finite, for a real). Returns it, or lo after a
 * fault, so that what the caller converts is always in range. */
static double number(reader *r, const cJSON *v, const char *what, double lo, double hi, enum numkind k)
{
	if (!is(r, v, cJSON_Number, "a number"))
		return lo;
	double x = v->valuedouble;
	char a[40], b[40], c[40];
	if (k == N_REAL) {
		if (is_finite(x))
			return x;
		fault(r, "%s %s is not finite", what, num_text(a, sizeof a, x));
		return lo;
	}
	if (!integral(x)) {
		fault(r, "%s %s is not an integer", what, num_text(a, sizeof a, x));
		return lo;
	}
	if (x >= lo && x <= hi)
		return x;
	if (k == N_INDEX)
		fault(r, "%s %s outside [%s, %s)", what, num_text(a, sizeof a, x), num_text(b, sizeof b, lo),
		      num_text(c, sizeof c, hi + 1));
	else
		fault(r, "%s %s outside [%s, %s]", what, num_text(a, sizeof a, x), num_text(b, sizeof b, lo),
		      num_text(c, sizeof c, hi));
	return lo;
}

static double num_key(reader *r, const cJSON *o, const char *key, const char *what, double lo, double hi,
		      enum numkind k)
{
	in_key(r, key);
	double x = number(r, field(r, o, key), what, lo, hi, k);
	out(r);
	return x;
}

static double num_item(reader *r, const cJSON *const *it, size_t i, const char *what, double lo, double hi,
		       enum numkind k)
{
	in_item(r, i);
	double x = number(r, it[i], what, lo, hi, k);
	out(r);
	return x;
}

/* Conversions of numbers number() checked. */
static uint64_t to_u64(double v)
{
	return v >= U64_END ? UINT64_MAX : (uint64_t)v;
}

/* What the model's string id is of a checked summary string id (-1 stays). */
static int to_str(const reader *r, double v)
{
	return v >= 0 && v < (double)r->nsid ? r->sid[(size_t)v] : -1;
}

/* The number kinds a summary holds, with their ranges. */
#define COUNT_NUM(r, v, i, what) to_u64(num_item(r, v, i, what, 0, U64_END, N_INT))
#define LONG_NUM(r, v, i, what) (long)num_item(r, v, i, what, -LONG_LIM, LONG_LIM, N_INT)
#define STR_NUM(r, v, i) to_str(r, num_item(r, v, i, "string id", -1, (double)(r)->nsid - 1, N_INDEX))
#define FILE_NUM(r, v, i) (int)num_item(r, v, i, "input index", -1, (double)(r)->m->nin - 1, N_INDEX)
#define PROC_NUM(r, v, i, lo) (int)num_item(r, v, i, "process index", lo, (double)(r)->m->nprocs - 1, N_INDEX)
#define REAL_NUM(r, v, i, what) num_item(r, v, i, what, 0, 0, N_REAL)

static const char *str_of(reader *r, const cJSON *v)
{
	return is(r, v, cJSON_String, "a string") ? v->valuestring : "";
}

static const char *str_key(reader *r, const cJSON *o, const char *key)
{
	in_key(r, key);
	const char *s = str_of(r, field(r, o, key));
	out(r);
	return s;
}

/* The array v, of at most max items; NULL after a fault. */
static const cJSON *array_of(reader *r, const cJSON *v, size_t max)
{
	if (!is(r, v, cJSON_Array, "an array"))
		return NULL;
	size_t n = 0;
	for (const cJSON *e = v->child; e; e = e->next)
		n++;
	if (n > max) {
		fault(r, "%zu items, more than %zu", n, max);
		return NULL;
	}
	return v;
}

/* The n items of the fixed-size array v in it[]; false after a fault. */
static bool tuple(reader *r, const cJSON *v, size_t n, const cJSON **it)
{
	if (!is(r, v, cJSON_Array, "an array"))
		return false;
	size_t k = 0;
	for (const cJSON *e = v->child; e; e = e->next, k++)
		if (k < n)
			it[k] = e;
	if (k != n) {
		fault(r, "%zu items where %zu belong", k, n);
		return false;
	}
	return true;
}

/* The most fields an object of a summary has (a process's). */
#define FIELDS_MAX 96

/* Every field of object o is one of names[], once: a field given twice
 * would leave which one counts to the order of the lookups. */
static void fields_check(reader *r, const cJSON *o, const char *const *names, size_t n)
{
	bool seen[FIELDS_MAX] = { false };
	size_t next = 0, k = 1;
	for (const cJSON *e = o->child; e && !r->bad; e = e->next, k++) {
		/* in the writer's order, each field is the next name */
		size_t j = next < n && e->string && strcmp(e->string, names[next]) == 0 ? next : n;
		for (size_t i = 0; j == n && e->string && i < n; i++)
			if (strcmp(e->string, names[i]) == 0)
				j = i;
		if (j == n) {
			fault(r, "field %zu is none this format has", k);
		} else if (seen[j]) {
			in_key(r, names[j]);
			fault(r, "given twice");
			out(r);
		}
		if (j < n)
			seen[j] = true;
		next = j + 1;
	}
}

#define FIELDS_CHECK(r, o, names)                                              \
	do {                                                                   \
		_Static_assert(sizeof names / sizeof names[0] <= FIELDS_MAX, ""); \
		fields_check(r, o, names, sizeof names / sizeof names[0]);      \
	} while (0)

/* Walks the items of array a (NULL: none) with the path at each, until a
 * fault. */
#define EACH(r, a, e, i)                                                                       \
	for (size_t i = 0, i##_in = (in_item(r, 0), 1); i##_in; i##_in = 0, out(r))            \
		for (const cJSON *e = (a) ? (a)->child : NULL; e && !(r)->bad && at_item(r, i); \
		     e = e->next, i++)

/* A line cited as evidence: null (none), or [file, line, offset, text]
 * of a line of an input (reports name its file). */
static void ev_of(reader *r, const cJSON *v, evref *e)
{
	*e = (evref){ 0 };
	if (cJSON_IsNull(v))
		return;
	const cJSON *it[4];
	if (!tuple(r, v, 4, it))
		return;
	int file = (int)num_item(r, it, 0, "input index", 0, (double)r->m->nin - 1, N_INDEX);
	uint64_t line = COUNT_NUM(r, it, 1, "line number"), off = COUNT_NUM(r, it, 2, "offset");
	in_item(r, 3);
	const char *text = str_of(r, it[3]);
	out(r);
	if (!r->bad)
		*e = (evref){ file, line, off, xstrdup(text) };
}

static void ev_key(reader *r, const cJSON *o, const char *key, evref *e)
{
	const cJSON *v = field(r, o, key);
	in_key(r, key);
	if (!v)
		fault(r, "missing, an array or null belongs here");
	else
		ev_of(r, v, e);
	out(r);
}

static void ev_item(reader *r, const cJSON *const *it, size_t i, evref *e)
{
	in_item(r, i);
	ev_of(r, it[i], e);
	out(r);
}

static iface iface_of(reader *r, const cJSON *v)
{
	const cJSON *it[2];
	if (!tuple(r, v, 2, it))
		return (iface){ -1, -1 };
	return (iface){ STR_NUM(r, it, 0), STR_NUM(r, it, 1) };
}

static iface iface_key(reader *r, const cJSON *o, const char *key)
{
	in_key(r, key);
	iface f = iface_of(r, field(r, o, key));
	out(r);
	return f;
}

/* ---- processes: the facts of facts.h by name ---- */

/* The range of a fact of each type of facts.h (and the word for it). */
typedef struct factkind {
	const char *what;
	double lo, hi;
	enum numkind k;
} factkind;

#define FACT_KIND_INT(r) (factkind){ "number", INT32_MIN, INT32_MAX, N_INT }
#define FACT_KIND_LONG(r) (factkind){ "number", -LONG_LIM, LONG_LIM, N_INT }
#define FACT_KIND_UINT(r) (factkind){ "bit set", 0, UINT32_MAX, N_INT }
#define FACT_KIND_U64(r) (factkind){ "count", 0, U64_END, N_INT }
#define FACT_KIND_DOUBLE(r) (factkind){ "time", 0, 0, N_REAL }
#define FACT_KIND_BOOL(r) (factkind){ "flag", 0, 1, N_INT }
#define FACT_KIND_STR(r) (factkind){ "string id", -1, (double)(r)->nsid - 1, N_INDEX }
#define FACT_KIND_FILE(r) (factkind){ "input index", -1, (double)(r)->m->nin - 1, N_INDEX }
/* checked again once the communicators are read */
#define FACT_KIND_COMM(r) (factkind){ "communicator index", -1, MODEL_MAX_COMMS - 1, N_INDEX }
#define FACT_KIND_LINE(r) (factkind){ "line number", 0, U64_END, N_INT }
#define FACT_KIND_PHASE(r) (factkind){ "phase", PH_NONE, PH_RUNNING, N_INT }

#define FACT_CAST_INT(r, v) (int)(v)
#define FACT_CAST_LONG(r, v) (long)(v)
#define FACT_CAST_UINT(r, v) (unsigned)(v)
#define FACT_CAST_U64(r, v) to_u64(v)
#define FACT_CAST_DOUBLE(r, v) (v)
#define FACT_CAST_BOOL(r, v) ((v) != 0)
#define FACT_CAST_STR(r, v) to_str(r, v)
#define FACT_CAST_FILE(r, v) (int)(v)
#define FACT_CAST_COMM(r, v) (int)(v)
#define FACT_CAST_LINE(r, v) to_u64(v)
#define FACT_CAST_PHASE(r, v) (enum phase)(v)

/* Facts whose range is narrower than their type's. Every fact is
 * required: a summary of another build is of another format. */
static const struct {
	const char *name;
	factkind kind;
} fact_ranges[] = {
	{ "pid", { "pid", -1, LONG_LIM, N_INT } },
	{ "nranks", { "nranks", 0, MODEL_RANKS_MAX, N_INT } },
};

/* A fact read back, in the range of its type or its own. */
static double fact_of(reader *r, const cJSON *o, const char *name, factkind k)
{
	for (size_t i = 0; i < sizeof fact_ranges / sizeof fact_ranges[0]; i++)
		if (strcmp(name, fact_ranges[i].name) == 0)
			k = fact_ranges[i].kind;
	if (strcmp(name, "file") == 0)
		k.lo = 0; /* every process was read from an input: reports name it */
	return num_key(r, o, name, k.what, k.lo, k.hi, k.k);
}

static const char *const proc_fields[] = {
#define X(type, name, init, merge, f) #name,
	PROC_FACTS(X)
#undef X
	"boot", "oob", "socket", "links", "nrecent", "recent",
#define X(name) "ev_" #name,
	PROC_EVIDENCE(X)
#undef X
};

static void proc_read(reader *r, const cJSON *o, proc *p)
{
	model_proc_init(p);
	if (!is(r, o, cJSON_Object, "an object"))
		return;
	FIELDS_CHECK(r, o, proc_fields);
#define X(type, name, init, merge, f) \
	p->name = FACT_CAST_##type(r, fact_of(r, o, #name, FACT_KIND_##type(r)));
	PROC_FACTS(X)
#undef X
	/* its rank is one of the communicator it names the size of */
	p->rank = (int)num_key(r, o, "rank", "rank", -1, p->nranks - 1, N_INDEX);
	p->boot = iface_key(r, o, "boot");
	p->oob = iface_key(r, o, "oob");
	const int nsock = (int)(sizeof p->socket / sizeof p->socket[0]), nlink = (int)(sizeof p->links / sizeof p->links[0]);
	in_key(r, "socket");
	const cJSON *a = array_of(r, field(r, o, "socket"), (size_t)nsock);
	EACH(r, a, e, i) p->socket[p->nsocket++] = iface_of(r, e);
	out(r);
	in_key(r, "links");
	a = array_of(r, field(r, o, "links"), (size_t)nlink);
	EACH(r, a, e, i) {
		const cJSON *it[3];
		if (tuple(r, e, 3, it))
			p->links[p->nlinks++] = (struct peerlink){ (int)num_item(r, it, 0, "rank", INT32_MIN, INT32_MAX, N_INT),
								   (int)num_item(r, it, 1, "rank", INT32_MIN, INT32_MAX, N_INT),
								   (unsigned)num_item(r, it, 2, "bit set", 0, UINT32_MAX, N_INT) };
	}
	out(r);
	p->nrecent = (unsigned)num_key(r, o, "nrecent", "count", 0, UINT32_MAX, N_INT);
	in_key(r, "recent");
	a = array_of(r, field(r, o, "recent"), PROC_RECENT);
	EACH(r, a, e, i) {
		const cJSON *it[3];
		if (tuple(r, e, 3, it))
			p->recent[i] = (lineref){ FILE_NUM(r, it, 0), COUNT_NUM(r, it, 1, "line number"),
						  COUNT_NUM(r, it, 2, "offset") };
	}
	out(r);
#define X(name) ev_key(r, o, "ev_" #name, &p->ev_##name);
	PROC_EVIDENCE(X)
#undef X
}

/* ---- the tables after the processes ---- */

static void comm_read(reader *r, const cJSON *o)
{
	static const char *const fields[] = { "key", "nranks", "seen", "done", "rank_proc", "lines", "ev" };
	model *m = r->m;
	if (!is(r, o, cJSON_Object, "an object"))
		return;
	FIELDS_CHECK(r, o, fields);
	int key = to_str(r, num_key(r, o, "key", "string id", 0, (double)r->nsid - 1, N_INDEX));
	int nranks = (int)num_key(r, o, "nranks", "nranks", 1, MODEL_RANKS_MAX, N_INT);
	if (r->bad)
		return;
	if (model_comm_find(m, key)) {
		in_key(r, "key");
		fault(r, "a second communicator with this key");
		out(r);
		return;
	}
	comm *c = model_comm_get(m, key, nranks); /* not NULL: the array holds at most MODEL_MAX_COMMS */
	const char *lists[] = { "seen", "done", "rank_proc" };
	for (unsigned l = 0; l < 3; l++) {
		in_key(r, lists[l]);
		const cJSON *a = array_of(r, field(r, o, lists[l]), MODEL_MAX_COMM_RANKS);
		EACH(r, a, e, i) {
			int rank, pi = -1;
			if (l < 2) {
				rank = (int)number(r, e, "rank", 0, c->nranks - 1, N_INDEX);
			} else {
				const cJSON *it[2];
				if (!tuple(r, e, 2, it))
					continue;
				rank = (int)num_item(r, it, 0, "rank", 0, c->nranks - 1, N_INDEX);
				pi = PROC_NUM(r, it, 1, 0);
			}
			if (!r->bad && !model_comm_mark(m, c, rank, l == 0 ? CR_SEEN : l == 1 ? CR_DONE : 0, pi))
				fault(r, "more ranks than the model holds (%d over all communicators)", MODEL_MAX_COMM_RANKS);
		}
		out(r);
	}
	c->lines = to_u64(num_key(r, o, "lines", "count", 0, U64_END, N_INT));
	ev_key(r, o, "ev", &c->ev);
}

static void wdog_read(reader *r, const cJSON *v)
{
	model *m = r->m;
	const cJSON *it[9];
	if (!tuple(r, v, 9, it))
		return;
	wdog w = { PROC_NUM(r, it, 0, 0), (int)num_item(r, it, 1, "rank", INT32_MIN, INT32_MAX, N_INT),
		   LONG_NUM(r, it, 2, "sequence number"), LONG_NUM(r, it, 3, "sequence number"),
		   LONG_NUM(r, it, 4, "sequence number"), STR_NUM(r, it, 5), LONG_NUM(r, it, 6, "timeout"), { 0 },
		   COUNT_NUM(r, it, 8, "count"), false };
	if (r->bad)
		return;
	/* a node's summary says what its lines came to: it replaces */
	w.seq_told = w.seq >= -1;
	if (model_wdog_find(m, w.proc, w.pgrank)) {
		fault(r, "a second report of this process and rank");
		return;
	}
	grow(&m->wd, &m->wdcap, m->nwd, sizeof *m->wd);
	m->wd[m->nwd] = w;
	ev_item(r, it, 7, &m->wd[m->nwd].ev);
	model_wdog_indexed(m, (int)m->nwd++);
}

static void env_read(reader *r, const cJSON *v)
{
	model *m = r->m;
	const cJSON *it[5];
	if (!tuple(r, v, 5, it))
		return;
	envset s = { to_str(r, num_item(r, it, 0, "string id", 0, (double)r->nsid - 1, N_INDEX)), STR_NUM(r, it, 1),
		     PROC_NUM(r, it, 2, 0), { 0 }, COUNT_NUM(r, it, 4, "count") };
	if (r->bad)
		return;
	if (model_env_find(m, s.proc, s.var)) {
		fault(r, "a second setting of this variable for this process");
		return;
	}
	grow(&m->env, &m->envcap, m->nenv, sizeof *m->env);
	m->env[m->nenv] = s;
	ev_item(r, it, 3, &m->env[m->nenv].ev);
	model_env_indexed(m, (int)m->nenv++);
}

static void sys_read(reader *r, const cJSON *v)
{
	model *m = r->m;
	const cJSON *it[11];
	if (!tuple(r, v, 11, it))
		return;
	sysev e = { .kind = (enum sysev_kind)num_item(r, it, 0, "event kind", SE_XID, SE_RAS_STUCK, N_INT),
		    .host = STR_NUM(r, it, 1),
		    .pid = LONG_NUM(r, it, 2, "pid"),
		    .rank = LONG_NUM(r, it, 3, "rank"),
		    .code = LONG_NUM(r, it, 4, "code"),
		    .a = STR_NUM(r, it, 5),
		    .b = STR_NUM(r, it, 6),
		    .proc = PROC_NUM(r, it, 7, -1),
		    .time = REAL_NUM(r, it, 8, "time"),
		    .count = to_u64(num_item(r, it, 9, "count", 1, U64_END, N_INT)) };
	if (r->bad)
		return;
	grow(&m->sys, &m->syscap, m->nsys, sizeof *m->sys);
	m->sys[m->nsys] = e;
	ev_item(r, it, 10, &m->sys[m->nsys++].ev);
}

static void ntrun_read(reader *r, const cJSON *v)
{
	model *m = r->m;
	const cJSON *it[18];
	if (!tuple(r, v, 18, it))
		return;
	ntrun t = { .file = FILE_NUM(r, it, 0),
		    .program = STR_NUM(r, it, 1),
		    .col = (int)num_item(r, it, 2, "column kind", NCCLT_COL_NONE, NCCLT_COL_ERROR, N_INT),
		    .rows = (long)num_item(r, it, 3, "count", 0, LONG_LIM, N_INT),
		    .wrong_rows = (long)num_item(r, it, 4, "count", 0, LONG_LIM, N_INT),
		    .wrong = REAL_NUM(r, it, 5, "count"),
		    .wrong_lo = COUNT_NUM(r, it, 6, "size"),
		    .wrong_hi = COUNT_NUM(r, it, 7, "size"),
		    .oob = LONG_NUM(r, it, 8, "count"),
		    .avg_bw = REAL_NUM(r, it, 9, "bandwidth"),
		    .max_size = COUNT_NUM(r, it, 10, "size"),
		    .max_busbw = REAL_NUM(r, it, 11, "bandwidth") };
	if (r->bad)
		return;
	grow(&m->nt, &m->ntcap, m->nnt, sizeof *m->nt);
	ntrun *d = &m->nt[m->nnt++];
	*d = t;
	in_item(r, 12);
	const cJSON *a = array_of(r, it[12], MODEL_MAX_PROCS);
	EACH(r, a, e, i) {
		int pi = (int)number(r, e, "process index", 0, (double)m->nprocs - 1, N_INDEX);
		if (!r->bad)
			intset_add(&d->procs, pi);
	}
	out(r);
	evref *ev[] = { &d->ev_head, &d->ev_wrong, &d->ev_oob, &d->ev_bw, &d->ev_max };
	for (size_t k = 0; k < sizeof ev / sizeof ev[0]; k++)
		ev_item(r, it, 13 + k, ev[k]);
}

/* ---- findings ---- */

enum keyset { KS_PROCS, KS_RANKS, KS_PEERS, KS_PIDS };

static void finding_keys(reader *r, const cJSON *o, finding *f, enum keyset ks)
{
	static const char *const names[] = { "procs", "ranks", "peers", "pids" };
	model *m = r->m;
	in_key(r, names[ks]);
	/* its processes are no names of the caps of findings_add_key */
	const cJSON *a = array_of(r, field(r, o, names[ks]),
				  ks == KS_PROCS ? MODEL_MAX_PROCS : FINDING_MAX_KEYS);
	EACH(r, a, e, i) {
		double x = ks == KS_PROCS ? number(r, e, "process index", 0, (double)m->nprocs - 1, N_INDEX)
			 : ks == KS_RANKS ? number(r, e, "rank", 0, MODEL_RANKS_MAX - 1, N_INDEX)
			 : ks == KS_PEERS ? number(r, e, "string id", 0, (double)r->nsid - 1, N_INDEX)
					  : number(r, e, "pid", 0, INT32_MAX, N_INT);
		if (r->bad)
			break;
		if (ks == KS_PROCS)
			intset_add(&f->procs, (int)x);
		else if (!findings_add_key(&m->fs, f, ks == KS_RANKS ? &f->ranks : ks == KS_PEERS ? &f->peers : &f->pids,
					   ks == KS_PEERS ? to_str(r, x) : (int)x))
			fault(r, "more ranks, pids and peers than the model holds (%u over all findings)", FINDINGS_MAX_KEYS);
	}
	out(r);
}

static void finding_read(reader *r, const cJSON *o)
{
	static const char *const fields[] = { "id", "title", "severity", "key", "message", "hint", "procs", "ranks",
					      "peers", "pids", "ev", "count", "seq", "time", "scoped" };
	model *m = r->m;
	if (!is(r, o, cJSON_Object, "an object"))
		return;
	FIELDS_CHECK(r, o, fields);
	const char *id = str_key(r, o, "id");
	if (!r->bad && !catalog_id_ok(id)) {
		in_key(r, "id");
		fault(r, "not a finding id (1 to 64 of a-z 0-9 - . _)");
		out(r);
	}
	/* as the writer would write them, so that what is cut at the cap
	 * reads back the same (as evidence is, below) */
	strbuf title = { 0 }, key = { 0 }, msg = { 0 }, hint = { 0 };
	escape_utf8(&title, slice_from(str_key(r, o, "title")));
	escape_utf8(&key, slice_from(str_key(r, o, "key")));
	escape_utf8(&msg, slice_from(str_key(r, o, "message")));
	int sev = (int)num_key(r, o, "severity", "severity", SEV_INFO, SEV_ERROR, N_INT);
	bool hinted = field(r, o, "hint") != NULL;
	if (hinted)
		escape_utf8(&hint, slice_from(str_key(r, o, "hint")));
	finding *f = r->bad ? NULL
			    : findings_add(&m->fs, m->cat,
					   &(findspec){ .id = id,
							.key = key.p ? key.p : "",
							.title = title.p ? title.p : "",
							.severity = sev,
							.message = msg.p ? msg.p : "",
							.hint = hinted ? (hint.p ? hint.p : "") : NULL },
					   NULL);
	sb_free(&title);
	sb_free(&key);
	sb_free(&msg);
	sb_free(&hint);
	if (!f)
		return;
	for (enum keyset ks = KS_PROCS; ks <= KS_PIDS; ks++)
		finding_keys(r, o, f, ks);
	in_key(r, "ev");
	const cJSON *a = array_of(r, field(r, o, "ev"), FINDING_MAX_EVIDENCE);
	EACH(r, a, e, i) {
		const cJSON *it[4];
		if (!tuple(r, e, 4, it))
			continue;
		int file = FILE_NUM(r, it, 0);
		uint64_t line = COUNT_NUM(r, it, 1, "line number");
		int pi = PROC_NUM(r, it, 2, -1);
		in_item(r, 3);
		const char *text = str_of(r, it[3]);
		out(r);
		if (!r->bad) {
			/* as the writer would write it, so that what is cut at the
			 * cap reads back the same */
			strbuf t = { 0 };
			escape_utf8(&t, slice_from(text));
			findings_add_evidence(f, file, line, pi, (slice){ t.p ? t.p : "", t.n });
			sb_free(&t);
		}
	}
	out(r);
	f->count = to_u64(num_key(r, o, "count", "count", 0, U64_END, N_INT));
	(void)num_key(r, o, "seq", "count", 0, U64_END, N_INT); /* arrival is the order of the array */
	f->time = num_key(r, o, "time", "time", 0, 0, N_REAL);
	in_key(r, "scoped");
	const cJSON *sc = field(r, o, "scoped");
	f->scoped = is(r, sc, cJSON_True | cJSON_False, "a boolean") && cJSON_IsTrue(sc);
	out(r);
}

/* ---- the whole summary ---- */

/* The array of the document's field key, each item read by fn. */
static void table_read(reader *r, const cJSON *doc, const char *key, size_t max,
		       void (*fn)(reader *, const cJSON *))
{
	in_key(r, key);
	const cJSON *a = array_of(r, field(r, doc, key), max);
	EACH(r, a, e, i) fn(r, e);
	out(r);
}

static void string_read(reader *r, const cJSON *v)
{
	const char *s = str_of(r, v);
	if (r->bad)
		return;
	/* equal strings are one id: the writer cuts a name at a NUL byte */
	int id = intern_get(&r->m->str, slice_from(s));
	if (id < 0)
		fault(r, "more names than the model holds (%u in %u MiB)", INTERN_MAX_STRINGS, INTERN_MAX_BYTES >> 20);
	r->sid[r->nsid++] = id;
}

static void input_read(reader *r, const cJSON *v)
{
	const cJSON *it[4];
	if (!tuple(r, v, 4, it))
		return;
	in_item(r, 0);
	const char *name = str_of(r, it[0]);
	out(r);
	uint64_t lines = COUNT_NUM(r, it, 1, "line count"), bytes = COUNT_NUM(r, it, 2, "byte count");
	int frank = (int)num_item(r, it, 3, "rank", INT32_MIN, INT32_MAX, N_INT);
	if (r->bad)
		return;
	int f = model_add_input(r->m, name);
	r->m->in[f].lines = lines;
	r->m->in[f].bytes = bytes;
	r->m->in[f].frank = frank;
}

static void proc_item(reader *r, const cJSON *v)
{
	model *m = r->m;
	grow(&m->procs, &m->proccap, m->nprocs, sizeof *m->procs);
	proc_read(r, v, &m->procs[m->nprocs++]);
}

static void table_host(reader *r, const cJSON *v)
{
	int h = to_str(r, number(r, v, "string id", -1, (double)r->nsid - 1, N_INDEX));
	if (!r->bad)
		intset_add(&r->m->table_hosts, h);
}

int summary_read(model *m, const cJSON *doc, strbuf *err)
{
	reader rd = { .m = m, .err = err }, *r = &rd;
	const cJSON *fmt = cJSON_IsObject(doc) ? field(r, doc, "ncclog_summary") : NULL;
	if (!cJSON_IsNumber(fmt) || fmt->valuedouble != SUMMARY_FORMAT) {
		sb_adds(err, "not an ncclog summary (made by `ncclog analyze --summary`)");
		return -1;
	}
	static const char *const fields[] = { "ncclog_summary", "strings", "inputs", "procs", "comms", "watchdog",
					      "env", "killed", "excerpt", "table_hosts", "system", "nccl_tests",
					      "dropped", "dropped_at", "nloose", "nccl_records", "matched", "findings" };
	FIELDS_CHECK(r, doc, fields);
	in_key(r, "strings");
	const cJSON *strs = array_of(r, field(r, doc, "strings"), INTERN_MAX_STRINGS);
	r->sid = xmalloc(((strs ? (size_t)cJSON_GetArraySize(strs) : 0) + 1) * sizeof *r->sid);
	EACH(r, strs, e, i) string_read(r, e);
	out(r);
	table_read(r, doc, "inputs", SIZE_MAX, input_read);
	table_read(r, doc, "procs", MODEL_MAX_PROCS, proc_item);
	table_read(r, doc, "comms", MODEL_MAX_COMMS, comm_read);
	/* a process's communicator is known now */
	in_key(r, "procs");
	const cJSON *procs = field(r, doc, "procs");
	EACH(r, procs, e, i) (void)num_key(r, e, "comm", "communicator index", -1, (double)m->ncomms - 1, N_INDEX);
	out(r);
	table_read(r, doc, "watchdog", MODEL_MAX_WATCHDOG, wdog_read);
	table_read(r, doc, "env", MODEL_MAX_ENV, env_read);
	ev_key(r, doc, "killed", &m->ev_killed);
	ev_key(r, doc, "excerpt", &m->ev_excerpt);
	table_read(r, doc, "table_hosts", INTERN_MAX_STRINGS, table_host);
	table_read(r, doc, "system", SYSEV_MAX, sys_read);
	table_read(r, doc, "nccl_tests", NTRUN_MAX, ntrun_read);
	in_key(r, "dropped");
	const cJSON *dr = array_of(r, field(r, doc, "dropped"), CAP_COUNT);
	EACH(r, dr, e, i) m->dropped[i] = to_u64(number(r, e, "count", 0, U64_END, N_INT));
	out(r);
	ev_key(r, doc, "dropped_at", &m->ev_cap);
	m->nloose = (int)num_key(r, doc, "nloose", "count", 0, INT32_MAX, N_INT);
	m->nccl_records = to_u64(num_key(r, doc, "nccl_records", "count", 0, U64_END, N_INT));
	m->matched = to_u64(num_key(r, doc, "matched", "count", 0, U64_END, N_INT));
	table_read(r, doc, "findings", FINDINGS_MAX, finding_read);
	free(r->sid);
	return r->bad ? -1 : 0;
}
