#include "ras.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/jsoncount.h"
#include "record.h"

enum { S_NONE, S_JOB, S_COMMS, S_ERRORS, S_WARNINGS, S_MONITOR };
enum { B_NONE, B_PROC_INCOMPLETE, B_DEAD, B_TIMEOUT, B_COMM_INCOMPLETE, B_COMM_ERROR, B_COMM_MISMATCH };
enum { SUB_NONE, SUB_STATUS, SUB_OPS };

#define RAS_MAX_VALUES (8u << 20)

/* ---- a small scanner over one line ---- */

typedef struct scan {
	slice s;
	size_t i;
} scan;

static bool lit(scan *c, const char *w)
{
	size_t n = strlen(w);
	if (c->s.n - c->i < n || memcmp(c->s.p + c->i, w, n) != 0)
		return false;
	c->i += n;
	return true;
}

static bool num(scan *c, long *v)
{
	size_t st = c->i;
	long x = 0;
	while (c->i < c->s.n && c->s.p[c->i] >= '0' && c->s.p[c->i] <= '9' && c->i - st < 18)
		x = x * 10 + (c->s.p[c->i++] - '0');
	if (c->i == st)
		return false;
	*v = x;
	return true;
}

static void blanks(scan *c)
{
	while (c->i < c->s.n && c->s.p[c->i] == ' ')
		c->i++;
}

/* A run of non-blank bytes. */
static slice word(scan *c)
{
	size_t st = c->i;
	while (c->i < c->s.n && c->s.p[c->i] != ' ')
		c->i++;
	return (slice){ c->s.p + st, c->i - st };
}

static slice rest(scan *c)
{
	return slice_trim((slice){ c->s.p + c->i, c->s.n - c->i });
}

static bool at_end(scan *c)
{
	blanks(c);
	return c->i == c->s.n;
}

static void item_init(ras_item *it, enum ras_kind k)
{
	*it = (ras_item){ .kind = k, .rank = -1, .pid = -1 };
}

int ras_error_code(slice t)
{
	static const struct { const char *text; int code; } codes[] = {
		{ "Unhandled CUDA error", 1 }, { "System error", 2 }, { "Internal error", 3 },
		{ "Invalid argument", 4 }, { "Invalid usage", 5 }, { "Remote process error", 6 },
		{ "Remote process", 6 }, { "Timeout", 8 }, { "timeout", 8 },
	};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (slice_starts(t, codes[i].text))
			return codes[i].code;
	return 0;
}

/* "GPU 5 managed by process 123 on node 10.0.0.5" after "Rank R -- ",
 * or "[process information not found]". */
static bool rank_where(scan *c, ras_item *it)
{
	if (lit(c, "[process information not found]"))
		return true;
	if (!lit(c, "GPU "))
		return false;
	size_t st = c->i;
	long at = slice_find((slice){ c->s.p + c->i, c->s.n - c->i }, " managed by process ", 20);
	if (at < 0)
		return false;
	it->gpus = (slice){ c->s.p + st, (size_t)at };
	c->i += (size_t)at + 20;
	if (!num(c, &it->pid) || !lit(c, " on node "))
		return false;
	it->node = word(c);
	return it->node.n > 0;
}

/* "Process 123 on node 10.0.0.5 managing GPU(s) 5[ details]" */
static bool process_where(scan *c, ras_item *it)
{
	if (!lit(c, "Process ") || !num(c, &it->pid) || !lit(c, " on node "))
		return false;
	it->node = word(c);
	if (!lit(c, " managing GPUs ") && !lit(c, " managing GPU "))
		return false;
	it->gpus = word(c);
	/* "5 (NVML 3)" */
	if (c->i + 6 < c->s.n && memcmp(c->s.p + c->i, " (NVML", 6) == 0) {
		const char *e = memchr(c->s.p + c->i, ')', c->s.n - c->i);
		if (e) {
			c->i = (size_t)(e + 1 - c->s.p);
			it->gpus.n = (size_t)(e + 1 - it->gpus.p);
		}
	}
	return it->node.n > 0;
}

#define RAS_REPORTED_MAX 160

static void copy_text(char *dst, size_t cap, slice s)
{
	size_t n = s.n < cap - 1 ? s.n : cap - 1;
	memcpy(dst, s.p, n);
	dst[n] = '\0';
}

/* A member of a MISMATCH group, told against the first (largest) group. */
static void mismatch_item(ras_cursor *c, ras_item *it, const char *status, long ops)
{
	if (c->sub == SUB_OPS) {
		it->kind = RAS_RANK_BEHIND;
		it->n[0] = ops >= 0 ? ops : c->group_value;
		it->n[1] = c->majority;
		it->n[2] = c->majority_ranks;
		it->a = slice_from(c->majority_text);
		/* a few ranks ahead: RAS lists them, and the many it counts are behind */
		if (c->have_majority && it->n[0] > it->n[1] && c->majority_ranks > 1)
			it->kind = RAS_RANK_AHEAD;
	} else {
		it->kind = RAS_RANK_STATUS;
		it->a = status ? slice_from(status) : slice_from(c->group_text);
		it->b = slice_from(c->majority_text);
	}
	it->hash = slice_from(c->hash);
}

/* "Rank R ..." lines: who a block names. */
static bool rank_line(ras_cursor *c, scan *sc, ras_item *it)
{
	if (!num(sc, &it->rank))
		return false;
	it->hash = slice_from(c->hash);
	if (lit(sc, " -- ")) {
		if (!rank_where(sc, it))
			return false;
		switch (c->block) {
		case B_COMM_INCOMPLETE:
			it->kind = RAS_RANK_MISSING;
			return true;
		case B_COMM_ERROR:
			it->kind = RAS_RANK_ERROR;
			it->code = c->group_code;
			it->a = slice_from(c->group_text);
			return true;
		case B_COMM_MISMATCH:
			/* RAS lists the smaller group, behind or ahead of the
			 * others: a rank ahead says the others are behind */
			mismatch_item(c, it, NULL, -1);
			return it->kind != RAS_RANK_BEHIND || it->n[0] < it->n[1];
		default:
			return false;
		}
	}
	if (lit(sc, " reported ")) {
		long at = slice_find((slice){ sc->s.p + sc->i, sc->s.n - sc->i }, " -- ", 4);
		slice text = at >= 0 ? (slice){ sc->s.p + sc->i, (size_t)at } : rest(sc);
		it->kind = RAS_RANK_ERROR;
		/* an error's words ("timeout while gathering"), not a whole line */
		it->a = (slice){ text.p, text.n < RAS_REPORTED_MAX ? text.n : RAS_REPORTED_MAX };
		it->code = ras_error_code(text);
		if (at >= 0) {
			sc->i += (size_t)at + 4;
			rank_where(sc, it);
		}
		return true;
	}
	if (c->block != B_COMM_MISMATCH)
		return false;
	if (lit(sc, " has status ")) {
		slice st = word(sc);
		char buf[48];
		copy_text(buf, sizeof buf, st);
		copy_text(c->group_text, sizeof c->group_text, st);
		if (lit(sc, " -- "))
			rank_where(sc, it);
		mismatch_item(c, it, c->group_text, -1);
		it->a = slice_from(c->group_text);
		return true;
	}
	if (lit(sc, " has launched up to operation ")) {
		long ops;
		if (!num(sc, &ops))
			return false;
		if (lit(sc, " -- "))
			rank_where(sc, it);
		mismatch_item(c, it, NULL, ops);
		return it->kind == RAS_RANK_AHEAD || it->n[0] < it->n[1];
	}
	if (lit(sc, " has not launched any operations")) {
		if (lit(sc, " -- "))
			rank_where(sc, it);
		mismatch_item(c, it, NULL, 0);
		return c->majority > 0;
	}
	return false;
}

/* The next rank of a pending "The missing ranks: 3,5,7" list. */
bool ras_text_more(ras_cursor *c, ras_item *out)
{
	const char *p = c->pending + c->pending_at;
	while (*p == ',' || *p == ' ')
		p++;
	if (*p < '0' || *p > '9') {
		c->pending[0] = '\0';
		c->pending_at = 0;
		return false;
	}
	long r = 0;
	while (*p >= '0' && *p <= '9' && r < (1L << 24))
		r = r * 10 + (*p++ - '0');
	c->pending_at = (size_t)(p - c->pending);
	item_init(out, RAS_RANK_MISSING);
	out->rank = r;
	out->hash = slice_from(c->hash);
	return true;
}

#define RAS_DIAG_NAME_MAX 80

/* "node042:12345 NCCL DIAG [INFO] NCCL environment: ..." */
static bool diag_line(slice s, ras_item *it)
{
	long at = slice_find(s, "NCCL DIAG ", 10);
	if (at < 0)
		return false;
	item_init(it, RAS_DIAG);
	slice pre = slice_trim((slice){ s.p, (size_t)at });
	const char *colon = pre.n ? memchr(pre.p, ':', pre.n) : NULL;
	if (colon) {
		it->node = (slice){ pre.p, (size_t)(colon - pre.p) };
		slice_to_long((slice){ colon + 1, pre.n - (size_t)(colon + 1 - pre.p) }, &it->pid);
	}
	scan sc = { s, (size_t)at + 10 };
	if (lit(&sc, "[INFO]"))
		it->code = 1;
	else if (lit(&sc, "[OK]"))
		it->code = 0;
	else
		return false; /* the header and the completion line */
	blanks(&sc);
	slice body = rest(&sc);
	long colon2 = slice_find(body, ": ", 2);
	/* the check's name is a few words ("NCCL environment"); a colon
	 * further in is part of the text */
	if (colon2 > 0 && colon2 <= RAS_DIAG_NAME_MAX) {
		it->a = (slice){ body.p, (size_t)colon2 };
		it->b = slice_trim((slice){ body.p + colon2 + 2, body.n - (size_t)colon2 - 2 });
	} else {
		it->b = body;
	}
	return true;
}

/* "PEER_DEAD: Process 1524345 on node 10.0.0.5 managing GPU 1 details" */
static bool event_line(slice s, double t, ras_item *it)
{
	size_t i = 0;
	while (i < s.n && ((s.p[i] >= 'A' && s.p[i] <= 'Z') || s.p[i] == '_' || (i && s.p[i] >= '0' && s.p[i] <= '9')))
		i++;
	if (i < 4 || i + 1 >= s.n || s.p[i] != ':' || s.p[i + 1] != ' ' || !memchr(s.p, '_', i))
		return false;
	slice name = { s.p, i };
	scan sc = { s, i + 2 };
	item_init(it, slice_eq_str(name, "PEER_DEAD") ? RAS_PROC_DEAD : RAS_EVENT);
	it->a = name;
	it->time = t;
	size_t mark = sc.i;
	if (!process_where(&sc, it)) {
		item_init(it, it->kind);
		it->a = name;
		it->time = t;
		sc.i = mark;
		/* a peer RAS knew only by address: "10.0.0.5<28028>" */
		slice w = word(&sc);
		const char *lt = w.n ? memchr(w.p, '<', w.n) : NULL;
		if (lt && w.p[w.n - 1] == '>')
			it->node = (slice){ w.p, (size_t)(lt - w.p) };
		else
			sc.i = mark;
	}
	it->b = rest(&sc);
	return true;
}

/* A row of the communicators table: "0  1  4  7-8  32  32  RUNNING  INCOMPLETE". */
static bool comm_row(slice s, ras_item *it)
{
	scan sc = { s, 0 };
	long group, comms, nodes, per_comm, in_group;
	if (!num(&sc, &group))
		return false;
	blanks(&sc);
	if (!num(&sc, &comms))
		return false;
	blanks(&sc);
	if (!num(&sc, &nodes))
		return false;
	blanks(&sc);
	slice per_node = word(&sc);
	blanks(&sc);
	if (!per_node.n || !num(&sc, &per_comm))
		return false;
	blanks(&sc);
	if (!num(&sc, &in_group))
		return false;
	blanks(&sc);
	slice status = word(&sc);
	blanks(&sc);
	slice errors = word(&sc);
	if (!status.n || !errors.n || !at_end(&sc))
		return false;
	for (size_t k = 0; k < status.n; k++)
		if (status.p[k] < 'A' || status.p[k] > 'Z')
			return false;
	item_init(it, RAS_COMM_GROUP);
	it->n[0] = comms;
	it->n[1] = nodes;
	it->n[2] = per_comm;
	it->a = status;
	it->b = errors;
	(void)group;
	(void)in_group;
	return true;
}

bool ras_text_line(ras_cursor *c, slice line, double t, ras_item *out)
{
	slice s = slice_trim(line);
	item_init(out, RAS_NONE);
	if (!s.n)
		return false;
	if (slice_find(s, "NCCL DIAG ", 10) >= 0)
		return diag_line(s, out);
	scan sc = { s, 0 };
	if (lit(&sc, "NCCL version ")) {
		slice v = word(&sc);
		if (!lit(&sc, " compiled with CUDA "))
			return false;
		*c = (ras_cursor){ 0 };
		out->kind = RAS_VERSION;
		out->a = v;
		return true;
	}
	if (lit(&sc, "RAS declaring peer ")) {
		/* NCCL's own INFO line on a surviving process: "10.0.0.12<28028>" */
		slice w = word(&sc);
		const char *lt = w.n ? memchr(w.p, '<', w.n) : NULL;
		if (!lit(&sc, " as DEAD") || !w.n)
			return false;
		out->kind = RAS_PROC_DEAD;
		out->node = lt ? (slice){ w.p, (size_t)(lt - w.p) } : w;
		out->a = w;
		out->time = t;
		return true;
	}
	sc.i = 0;
	if (lit(&sc, "RAS network listening socket at ")) {
		/* which process listens where: "declaring peer" names that address */
		out->kind = RAS_LISTEN;
		out->a = word(&sc);
		return out->a.n > 0;
	}
	sc.i = 0;
	if (slice_eq_str(s, "Job summary")) {
		c->section = S_JOB;
		c->block = B_NONE;
		return false;
	}
	if (lit(&sc, "Communicators...")) {
		c->section = S_COMMS;
		c->block = B_NONE;
		return false;
	}
	if (slice_eq_str(s, "Errors") || slice_eq_str(s, "Warnings")) {
		c->section = s.p[0] == 'E' ? S_ERRORS : S_WARNINGS;
		c->block = B_NONE;
		return false;
	}
	if (slice_starts(s, "RAS Monitor Mode")) {
		c->section = S_MONITOR;
		c->block = B_NONE;
		return false;
	}
	if (c->section == S_ERRORS || c->section == S_WARNINGS) {
		if (slice_eq_str(s, "INCOMPLETE")) {
			c->block = B_PROC_INCOMPLETE;
			return false;
		}
		if (slice_eq_str(s, "DEAD")) {
			c->block = B_DEAD;
			return false;
		}
		if (slice_eq_str(s, "TIMEOUT")) {
			c->block = B_TIMEOUT;
			return false;
		}
	}
	if (s.p[0] == '#') {
		/* "#0-0 (cf264af53edbe986) INCOMPLETE" */
		long g, k;
		sc.i = 1;
		if (!num(&sc, &g) || !lit(&sc, "-") || !num(&sc, &k) || !lit(&sc, " ("))
			return false;
		slice h = word(&sc);
		if (h.n < 2 || h.p[h.n - 1] != ')' || h.n - 1 > sizeof c->hash - 1)
			return false;
		copy_text(c->hash, sizeof c->hash, (slice){ h.p, h.n - 1 });
		blanks(&sc);
		slice what = rest(&sc);
		c->block = slice_find(what, "INCOMPLETE", 10) >= 0 ? B_COMM_INCOMPLETE
			   : slice_find(what, "ERROR", 5) >= 0   ? B_COMM_ERROR
			   : slice_find(what, "MISMATCH", 8) >= 0 ? B_COMM_MISMATCH
								    : B_NONE;
		c->sub = SUB_NONE;
		c->have_majority = false;
		c->group_code = 0;
		c->group_text[0] = c->majority_text[0] = '\0';
		return false;
	}
	if (lit(&sc, "Process ")) {
		sc.i = 0;
		if (!process_where(&sc, out))
			return false;
		if (c->block == B_PROC_INCOMPLETE)
			out->kind = RAS_PROC_MISSING;
		else if (c->block == B_DEAD)
			out->kind = RAS_PROC_DEAD;
		else
			return false;
		return true;
	}
	if (lit(&sc, "Rank "))
		return rank_line(c, &sc, out);
	if (lit(&sc, "The missing rank")) {
		lit(&sc, "s");
		if (!lit(&sc, ": ") || c->block != B_COMM_INCOMPLETE)
			return false;
		copy_text(c->pending, sizeof c->pending, rest(&sc));
		c->pending_at = 0;
		return ras_text_more(c, out);
	}
	if (lit(&sc, "Initialization error") || lit(&sc, "Asynchronous error")) {
		c->group_code = 0;
		c->group_text[0] = '\0';
		return false;
	}
	if (lit(&sc, "Communicator ranks have different ")) {
		slice what = rest(&sc);
		c->have_majority = false;
		if (slice_eq_str(what, "status")) {
			c->sub = SUB_STATUS;
		} else if (slice_find(what, "operation counts", 16) >= 0) {
			c->sub = SUB_OPS;
			/* "AllReduce operation counts" (2.26+), "collective operation counts" */
			long sp = slice_find(what, " ", 1);
			copy_text(c->majority_text, sizeof c->majority_text,
				  (slice){ what.p, sp > 0 ? (size_t)sp : what.n });
		}
		return false;
	}
	if (lit(&sc, "Encountered ")) {
		long n;
		if (!num(&sc, &n) || !lit(&sc, " communication timeout"))
			return false;
		out->kind = RAS_TIMEOUTS;
		out->n[0] = n;
		return true;
	}
	/* "26 ranks have launched up to operation 6650", "4 ranks have status
	 * RUNNING", "2 ranks reported Remote process error" */
	long cnt;
	if (num(&sc, &cnt) && lit(&sc, " ranks ")) {
		if (lit(&sc, "reported ")) {
			slice text = rest(&sc);
			copy_text(c->group_text, sizeof c->group_text, text);
			c->group_code = ras_error_code(text);
			return false;
		}
		if (lit(&sc, "have status ")) {
			copy_text(c->group_text, sizeof c->group_text, word(&sc));
			if (!c->have_majority) {
				memcpy(c->majority_text, c->group_text, sizeof c->majority_text);
				c->have_majority = true;
			}
			return false;
		}
		long ops = -1;
		if (lit(&sc, "have launched up to operation "))
			num(&sc, &ops);
		else if (lit(&sc, "have not launched any operations"))
			ops = 0;
		if (ops >= 0) {
			c->group_value = ops;
			if (!c->have_majority) {
				c->majority = ops;
				c->majority_ranks = cnt;
				c->have_majority = true;
			}
		}
		return false;
	}
	if (c->section == S_COMMS && comm_row(s, out))
		return true;
	if (event_line(s, t, out))
		return true;
	return false;
}

/* ---- JSON ---- */

static const cJSON *jget(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static long jlong(const cJSON *o, const char *k, long dflt)
{
	const cJSON *v = jget(o, k);
	return cJSON_IsNumber(v) && v->valuedouble >= -1e15 && v->valuedouble <= 1e15 ? (long)v->valuedouble : dflt;
}

static slice jslice(const cJSON *o, const char *k)
{
	const cJSON *v = jget(o, k);
	return cJSON_IsString(v) && v->valuestring ? slice_from(v->valuestring) : SLICE_NONE;
}

static slice hex_of(slice h)
{
	if (h.n > 2 && h.p[0] == '0' && (h.p[1] == 'x' || h.p[1] == 'X'))
		return (slice){ h.p + 2, h.n - 2 };
	return h;
}

enum ras_json_kind ras_json_sniff(const unsigned char *b, size_t n)
{
	const char *s = (const char *)b;
	size_t i = json_skip_blank(s, n, 0);
	/* ncclras -m writes its banner to stderr: a 2>&1 file starts with it */
	while (i < n && (slice_starts((slice){ s + i, n - i }, "RAS Monitor Mode") || s[i] == '=')) {
		const char *nl = memchr(s + i, '\n', n - i);
		if (!nl)
			return RAS_JSON_NONE;
		i = json_skip_blank(s, n, (size_t)(nl - s) + 1);
	}
	if (i >= n || s[i] != '{')
		return RAS_JSON_NONE;
	i = json_skip_blank(s, n, i + 1);
	slice head = { s + i, n - i < 512 ? n - i : 512 };
	if (slice_starts(head, "\"nccl_version\"") && slice_find(head, "\"cuda_runtime_version\"", 22) >= 0)
		return RAS_JSON_REPORT;
	if (slice_starts(head, "\"timestamp\"") && slice_find(head, "\"group\"", 7) >= 0 &&
	    slice_find(head, "\"event\"", 7) >= 0)
		return RAS_JSON_EVENTS;
	return RAS_JSON_NONE;
}

static double jtime(const cJSON *o)
{
	slice ts = jslice(o, "timestamp");
	double t = 0;
	if (ts.n)
		timestamp_parse(ts, &t);
	return t;
}

/* "[1,3]" as "1,3" into buf. */
static slice devs_text(const cJSON *a, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = '\0';
	for (const cJSON *d = cJSON_IsArray(a) ? a->child : NULL; d && n + 12 < cap; d = d->next) {
		/* a device index: anything else is not cast, and never runs past buf */
		if (!cJSON_IsNumber(d) || !(d->valuedouble >= 0 && d->valuedouble < 1e9))
			continue;
		int k = snprintf(buf + n, cap - n, "%s%ld", n ? "," : "", (long)d->valuedouble);
		if (k < 0 || (size_t)k >= cap - n)
			break;
		n += (size_t)k;
	}
	buf[n] = '\0';
	return (slice){ buf, n };
}

static void json_event(const cJSON *o, size_t at, ras_item_fn fn, void *ctx)
{
	ras_item it;
	slice name = jslice(o, "event");
	if (!name.n)
		return;
	item_init(&it, slice_eq_str(name, "PEER_DEAD") ? RAS_PROC_DEAD : RAS_EVENT);
	it.a = name;
	it.b = jslice(o, "details");
	it.time = jtime(o);
	const cJSON *peer = jget(o, "peer");
	char gpus[128];
	if (cJSON_IsObject(peer)) {
		it.node = jslice(peer, "host");
		it.pid = jlong(peer, "pid", -1);
		it.gpus = devs_text(jget(peer, "cuda_devs"), gpus, sizeof gpus);
		if (!it.node.n) {
			slice addr = jslice(peer, "addr");
			const char *lt = addr.n ? memchr(addr.p, '<', addr.n) : NULL;
			it.node = lt ? (slice){ addr.p, (size_t)(lt - addr.p) } : addr;
		}
	}
	fn(ctx, &it, at);
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

/* The most common count of one operation among the ranks that answered
 * (the larger on a tie); -1 when none has it. */
static long majority_count(const cJSON *ranks, size_t nranks, const char *op, long *v)
{
	size_t k = 0;
	for (const cJSON *r = ranks->child; r && k < nranks; r = r->next) {
		long x = jlong(jget(r, "collective_counts"), op, -1);
		if (x >= 0)
			v[k++] = x;
	}
	qsort(v, k, sizeof *v, cmp_long);
	long best = -1;
	size_t best_n = 0;
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j < k && v[j] == v[i])
			j++;
		if (j - i >= best_n) {
			best = v[i];
			best_n = j - i;
		}
		i = j;
	}
	return best;
}

static void json_comm(const cJSON *c, size_t at, ras_item_fn fn, void *ctx)
{
	slice hash = hex_of(jslice(c, "hash"));
	long size = jlong(c, "size", 0);
	char gpu[24];
	const cJSON *ranks = jget(c, "ranks");
	size_t nranks = cJSON_IsArray(ranks) ? (size_t)cJSON_GetArraySize(ranks) : 0;
	for (const cJSON *r = nranks ? ranks->child : NULL; r; r = r->next) {
		ras_item it;
		item_init(&it, RAS_COMM_MEMBER);
		it.hash = hash;
		it.size = size;
		it.rank = jlong(r, "rank", -1);
		it.node = jslice(r, "host");
		it.pid = jlong(r, "pid", -1);
		long dev = jlong(r, "cuda_dev", -1);
		if (dev >= 0)
			it.gpus = (slice){ gpu, (size_t)snprintf(gpu, sizeof gpu, "%ld", dev) };
		fn(ctx, &it, at);
		const cJSON *st = jget(r, "status");
		long init = jlong(st, "init_state", 0), async = jlong(st, "async_error", 0);
		long code = init != 0 && init != 7 ? init : async != 0 && async != 7 ? async : 0;
		if (code) {
			it.kind = RAS_RANK_ERROR;
			it.code = (int)code;
			it.a = slice_from(init != 0 && init != 7 ? "initialization error" : "asynchronous error");
			fn(ctx, &it, at);
		}
	}
	/* ranks behind the others in some operation (RAS's own MISMATCH) */
	if (nranks > 1) {
		const cJSON *first = jget(ranks->child, "collective_counts");
		long *tmp = xmalloc(nranks * sizeof *tmp);
		for (const cJSON *op = cJSON_IsObject(first) ? first->child : NULL; op; op = op->next) {
			if (!op->string)
				continue;
			long maj = majority_count(ranks, nranks, op->string, tmp), nmaj = 0;
			for (const cJSON *r = ranks->child; r; r = r->next)
				nmaj += jlong(jget(r, "collective_counts"), op->string, -1) == maj;
			for (const cJSON *r = ranks->child; r && maj >= 0; r = r->next) {
				long v = jlong(jget(r, "collective_counts"), op->string, -1);
				/* below the many: behind; above them: the many are behind */
				bool ahead = v > maj && nmaj > 1;
				if (v < 0 || v == maj || (v > maj && !ahead))
					continue;
				ras_item it;
				item_init(&it, ahead ? RAS_RANK_AHEAD : RAS_RANK_BEHIND);
				it.n[2] = nmaj;
				it.hash = hash;
				it.size = size;
				it.rank = jlong(r, "rank", -1);
				it.node = jslice(r, "host");
				it.pid = jlong(r, "pid", -1);
				it.n[0] = v;
				it.n[1] = maj;
				it.a = slice_from(op->string);
				fn(ctx, &it, at);
			}
		}
		free(tmp);
	}
	const cJSON *miss = jget(c, "missing_ranks");
	for (const cJSON *r = cJSON_IsArray(miss) ? miss->child : NULL; r; r = r->next) {
		ras_item it;
		item_init(&it, RAS_RANK_MISSING);
		it.hash = hash;
		it.size = size;
		it.rank = jlong(r, "rank", -1);
		it.node = jslice(r, "host");
		it.pid = jlong(r, "pid", -1);
		long dev = jlong(r, "cuda_dev", -1);
		if (dev >= 0)
			it.gpus = (slice){ gpu, (size_t)snprintf(gpu, sizeof gpu, "%ld", dev) };
		it.code = cJSON_IsTrue(jget(jget(r, "status"), "considered_dead"));
		fn(ctx, &it, at);
	}
}

static void json_report(const cJSON *o, size_t at, ras_item_fn fn, void *ctx)
{
	ras_item it;
	item_init(&it, RAS_VERSION);
	it.a = jslice(o, "nccl_version");
	it.time = jtime(o);
	if (it.a.n)
		fn(ctx, &it, at);
	const cJSON *comms = jget(o, "communicators");
	for (const cJSON *c = cJSON_IsArray(comms) ? comms->child : NULL; c; c = c->next)
		if (cJSON_IsObject(c))
			json_comm(c, at, fn, ctx);
	long timeouts = jlong(jget(o, "ras"), "timeouts_count", 0);
	if (timeouts > 0) {
		item_init(&it, RAS_TIMEOUTS);
		it.n[0] = timeouts;
		fn(ctx, &it, at);
	}
}

int ras_json_read(const char *buf, size_t n, ras_item_fn fn, void *ctx, strbuf *err)
{
	if (n > RAS_MAX_JSON) {
		sb_printf(err, "%zu MiB is more than a RAS report may have (%u MiB)", n >> 20, RAS_MAX_JSON >> 20);
		return -1;
	}
	if (json_count_values(buf, n) > RAS_MAX_VALUES) {
		sb_printf(err, "more than %u JSON values: not a RAS report ncclog reads", RAS_MAX_VALUES);
		return -1;
	}
	size_t i = json_skip_blank(buf, n, 0);
	while (i < n && (slice_starts((slice){ buf + i, n - i }, "RAS Monitor Mode") || buf[i] == '=')) {
		const char *nl = memchr(buf + i, '\n', n - i);
		i = nl ? json_skip_blank(buf, n, (size_t)(nl - buf) + 1) : n;
	}
	size_t docs = 0;
	while (i < n) {
		const char *end = NULL;
		cJSON *doc = cJSON_ParseWithLengthOpts(buf + i, n - i, &end, 0);
		if (!doc || !cJSON_IsObject(doc)) {
			size_t bad = end && end >= buf + i ? (size_t)(end - buf) : i;
			sb_printf(err, "not valid JSON at byte %zu (a RAS report cut short?)", bad);
			cJSON_Delete(doc);
			return -1;
		}
		if (jget(doc, "communicators"))
			json_report(doc, i, fn, ctx);
		else if (jget(doc, "event"))
			json_event(doc, i, fn, ctx);
		else if (!docs) {
			sb_adds(err, "JSON without \"communicators\" or \"event\": not a RAS report");
			cJSON_Delete(doc);
			return -1;
		}
		cJSON_Delete(doc);
		docs++;
		i = json_skip_blank(buf, n, (size_t)(end - buf));
	}
	return 0;
}
