/* Reading an FR dump: decode (pickle, or JSON into the same values), then
 * one pass over the values into plain arrays. What each version writes, in
 * PyTorch's torch/csrc/distributed/c10d/:
 *   2.3  NCCLUtils.hpp (NCCLTraceBuffer::dump, getCollectiveTrace):
 *        version, pg_config {name: {name, desc, ranks "[0, 1]"}},
 *        pg_status {pg_id: {last_enqueued/started/completed_collective}},
 *        entries [{frames [{name, filename, line}], record_id, pg_id,
 *        process_group (name, desc), collective_seq_id, p2p_seq_id, op_id,
 *        profiling_name, time_created_ns, duration_ms (with timing only),
 *        input_sizes, input_dtypes, output_sizes, output_dtypes, state,
 *        time_discovered_started_ns, time_discovered_completed_ns (None
 *        until discovered), retired, timeout_ms, is_p2p}], nccl_comm_state
 *   2.4  FlightRecorder.hpp: the same keys (all_to_all sizes from here on)
 *   2.7  FlightRecorder.hpp/.cpp: + nccl_version (xccl_version for XCCL)
 *   2.10 FlightRecorder.hpp, FlightRecorderDetail.hpp: comm_lib_version in
 *        its place; entries + thread_id, thread_name
 * The JSON form (dump_json, nlohmann): the same keys sorted, no frames,
 * pg_status values as strings, 0 for a time not discovered, process_group
 * as a list; torchcomms (hooks/fr/FlightRecorder.cpp) writes ranks as
 * "[0,1]" and p2p_seq_id 0. fr_trace's tests put ids in strings and a dtype
 * as one string; those are read too. tests/gen_fr.py writes them all. */
#include "frdump.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

/* ---- the string and frame pool of one dump ---- */

typedef struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
} chunk;

typedef struct sslot {
	uint64_t h;
	const char *s;
	size_t n;
} sslot;

typedef struct fslot {
	const char *name, *file;
	int64_t line;
	uint32_t idx;
	bool used;
} fslot;

struct frdump_pool {
	chunk *chunks;
	sslot *tab;
	size_t tcap, tn;
	fslot *ftab;
	size_t fcap, fn;
};

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static char *pool_alloc(frdump_pool *pl, size_t n)
{
	chunk *c = pl->chunks;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		c = xmalloc(sizeof *c + cap);
		c->next = pl->chunks;
		c->used = 0;
		c->cap = cap;
		pl->chunks = c;
	}
	char *p = c->data + c->used;
	c->used += n;
	return p;
}

/* The pooled copy of s (cut at a NUL), the same pointer for equal bytes. */
static const char *pool_str(frdump_pool *pl, slice s)
{
	const char *nul = s.n ? memchr(s.p, 0, s.n) : NULL;
	if (nul)
		s.n = (size_t)(nul - s.p);
	if (pl->tn * 2 >= pl->tcap) {
		size_t cap = pl->tcap ? pl->tcap * 2 : 256;
		sslot *t = xcalloc(cap, sizeof *t);
		for (size_t i = 0; i < pl->tcap; i++)
			if (pl->tab[i].s) {
				size_t j = pl->tab[i].h & (cap - 1);
				while (t[j].s)
					j = (j + 1) & (cap - 1);
				t[j] = pl->tab[i];
			}
		free(pl->tab);
		pl->tab = t;
		pl->tcap = cap;
	}
	uint64_t h = fnv(s.p, s.n, 1469598103934665603ull);
	size_t j = h & (pl->tcap - 1);
	while (pl->tab[j].s) {
		if (pl->tab[j].h == h && pl->tab[j].n == s.n && memcmp(pl->tab[j].s, s.p, s.n) == 0)
			return pl->tab[j].s;
		j = (j + 1) & (pl->tcap - 1);
	}
	char *p = pool_alloc(pl, s.n + 1);
	if (s.n)
		memcpy(p, s.p, s.n);
	p[s.n] = 0;
	pl->tab[j] = (sslot){ h, p, s.n };
	pl->tn++;
	return p;
}

static void pool_free(frdump_pool *pl)
{
	if (!pl)
		return;
	for (chunk *c = pl->chunks, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(pl->tab);
	free(pl->ftab);
	free(pl);
}

/* ---- small helpers ---- */

/* PyTorch's pickler writes each distinct string once and refers to it
 * after: one value for every "record_id" key, every "nccl:all_reduce".
 * Direct-mapped caches by value skip hashing them again. */
#define SCACHE 1024
#define FCACHE 64
#define FRCACHE 1024

typedef struct reader {
	frdump *d;
	frdump_pool *pl;
	size_t dims_cap, dtypes_cap, frames_cap, fidx_cap, pgs_cap, status_cap;
	struct {
		const pk_value *v;
		const char *s;
	} scache[SCACHE];
	struct {
		const pk_value *k;
		int f;
	} fcache[FCACHE];
	struct {
		const pk_value *v; /* a frame dict, shared by every entry it is in */
		uint32_t idx;
	} frcache[FRCACHE];
} reader;

static size_t vslot(const pk_value *v, size_t n)
{
	return ((uintptr_t)v / sizeof *v) & (n - 1);
}

static void bad(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(reader *r, const char *fmt, ...)
{
	if (!r->d->bad_fields++) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->d->first_bad, sizeof r->d->first_bad, fmt, ap);
		va_end(ap);
	}
}

static bool is_str(const pk_value *v)
{
	return v && v->kind == PK_STR;
}

static slice str_of(const pk_value *v)
{
	return v->u.s;
}

static bool slice_is(slice s, const char *lit, size_t n)
{
	return s.n == n && memcmp(s.p, lit, n) == 0;
}
#define IS(s, lit) slice_is((s), lit, sizeof(lit) - 1)

/* A decimal integer in s; false when s is anything else. */
static bool dec_int(slice s, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < s.n && (s.p[i] == '-' || s.p[i] == '+'))
		neg = s.p[i++] == '-';
	if (i == s.n || s.n - i > 18)
		return false;
	int64_t v = 0;
	for (; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return false;
		v = v * 10 + (s.p[i] - '0');
	}
	*out = neg ? -v : v;
	return true;
}

/* An int, a float without fraction, a bool or a numeric str (the JSON form
 * writes pg_status as strings; hand-made dumps put ids in strings). */
static bool as_int(const pk_value *v, int64_t *out)
{
	if (!v)
		return false;
	switch (v->kind) {
	case PK_INT:
		*out = v->u.i;
		return true;
	case PK_BOOL:
		*out = v->u.b;
		return true;
	case PK_FLOAT:
		if (v->u.f >= -9.2e18 && v->u.f <= 9.2e18 && v->u.f == (double)(int64_t)v->u.f) {
			*out = (int64_t)v->u.f;
			return true;
		}
		return false;
	case PK_STR:
		return dec_int(v->u.s, out);
	}
	return false;
}

static const char *pstr(reader *r, const pk_value *v)
{
	size_t i = vslot(v, SCACHE);
	if (r->scache[i].v != v) {
		r->scache[i].v = v;
		r->scache[i].s = pool_str(r->pl, str_of(v));
	}
	return r->scache[i].s;
}

/* ---- pg_config and pg_status ---- */

/* "[0, 1, 2]" (PyTorch) or "[0,1]" (torchcomms) into ranks. */
static bool parse_ranks(slice s, int64_t **out, size_t *n)
{
	size_t cap = 0, k = 0;
	int64_t *v = NULL;
	size_t i = 0;
	while (i < s.n && (s.p[i] == ' ' || s.p[i] == '['))
		i++;
	while (i < s.n && s.p[i] != ']') {
		size_t j = i;
		while (j < s.n && s.p[j] != ',' && s.p[j] != ']' && s.p[j] != ' ')
			j++;
		int64_t x;
		if (!dec_int((slice){ s.p + i, j - i }, &x) || k >= FRDUMP_MAX_RANKS) {
			free(v);
			return false;
		}
		grow(&v, &cap, k, sizeof *v);
		v[k++] = x;
		while (j < s.n && (s.p[j] == ',' || s.p[j] == ' '))
			j++;
		i = j;
	}
	*out = v;
	*n = k;
	return true;
}

static void read_pg(reader *r, const pk_value *key, const pk_value *info)
{
	frdump *d = r->d;
	grow(&d->pgs, &r->pgs_cap, d->npgs, sizeof *d->pgs);
	fr_pg *g = &d->pgs[d->npgs++];
	*g = (fr_pg){ 0 };
	char num[24];
	if (is_str(key)) {
		g->name = pstr(r, key);
	} else if (key && key->kind == PK_INT) {
		snprintf(num, sizeof num, "%lld", (long long)key->u.i);
		g->name = pool_str(r->pl, slice_from(num));
	} else {
		g->name = "";
	}
	g->desc = "undefined";
	const pk_value *ranks = NULL;
	if (info && info->kind == PK_DICT) {
		for (size_t i = 0; i + 1 < info->u.c.n; i += 2) {
			const pk_value *k = info->u.c.items[i], *v = info->u.c.items[i + 1];
			if (!is_str(k))
				continue;
			if (IS(k->u.s, "name") && is_str(v))
				g->name = pstr(r, v);
			else if (IS(k->u.s, "desc") && is_str(v))
				g->desc = pstr(r, v);
			else if (IS(k->u.s, "ranks"))
				ranks = v;
		}
	} else {
		ranks = info; /* the 1.x form: the list itself */
	}
	if (is_str(ranks)) {
		g->ranks_ok = parse_ranks(ranks->u.s, &g->ranks, &g->nranks);
	} else if (ranks && (ranks->kind == PK_LIST || ranks->kind == PK_TUPLE)) {
		size_t n = pk_len(ranks);
		if (n > FRDUMP_MAX_RANKS)
			n = FRDUMP_MAX_RANKS;
		g->ranks = n ? xmalloc(n * sizeof *g->ranks) : NULL;
		g->ranks_ok = true;
		for (size_t i = 0; i < n; i++)
			if (as_int(pk_at(ranks, i), &g->ranks[g->nranks]))
				g->nranks++;
			else
				g->ranks_ok = false;
	}
	if (!g->ranks_ok)
		bad(r, "pg_config[%s].ranks is not a list of ranks", g->name);
}

static void read_status(reader *r, const pk_value *key, const pk_value *st)
{
	frdump *d = r->d;
	grow(&d->status, &r->status_cap, d->nstatus, sizeof *d->status);
	fr_pg_status *s = &d->status[d->nstatus++];
	*s = (fr_pg_status){ "", -1, -1, -1 };
	char num[24];
	if (is_str(key)) {
		s->pg_id = pstr(r, key);
	} else if (key && key->kind == PK_INT) {
		snprintf(num, sizeof num, "%lld", (long long)key->u.i);
		s->pg_id = pool_str(r->pl, slice_from(num));
	}
	if (!st || st->kind != PK_DICT) {
		bad(r, "pg_status[%s] has the wrong type (%s)", s->pg_id, st ? pk_kind_name(st->kind) : "?");
		return;
	}
	for (size_t i = 0; i + 1 < st->u.c.n; i += 2) {
		const pk_value *k = st->u.c.items[i], *v = st->u.c.items[i + 1];
		if (!is_str(k))
			continue;
		int64_t *dst = IS(k->u.s, "last_enqueued_collective")	? &s->last_enqueued
			       : IS(k->u.s, "last_started_collective")	? &s->last_started
			       : IS(k->u.s, "last_completed_collective") ? &s->last_completed
									 : NULL;
		if (dst && !as_int(v, dst))
			bad(r, "pg_status[%s] has a value of the wrong type (%s)", s->pg_id, pk_kind_name(v->kind));
	}
}

/* ---- entries ---- */

enum field {
	F_NONE,
	F_FRAMES,
	F_RECORD_ID,
	F_PG_ID,
	F_PROCESS_GROUP,
	F_COLLECTIVE_SEQ_ID,
	F_P2P_SEQ_ID,
	F_OP_ID,
	F_PROFILING_NAME,
	F_TIME_CREATED,
	F_DURATION,
	F_INPUT_SIZES,
	F_INPUT_DTYPES,
	F_OUTPUT_SIZES,
	F_OUTPUT_DTYPES,
	F_STATE,
	F_STARTED,
	F_COMPLETED,
	F_RETIRED,
	F_TIMEOUT,
	F_IS_P2P,
	F_THREAD_ID,
	F_THREAD_NAME,
};

/* The field of an entry key, by length first: this runs for every key of
 * every entry. */
static enum field entry_field(slice k)
{
	switch (k.n) {
	case 5:
		return IS(k, "pg_id") ? F_PG_ID : IS(k, "op_id") ? F_OP_ID : IS(k, "state") ? F_STATE : F_NONE;
	case 6:
		return IS(k, "frames") ? F_FRAMES : IS(k, "is_p2p") ? F_IS_P2P : F_NONE;
	case 7:
		return IS(k, "retired") ? F_RETIRED : F_NONE;
	case 9:
		return IS(k, "record_id") ? F_RECORD_ID : IS(k, "thread_id") ? F_THREAD_ID : F_NONE;
	case 10:
		return IS(k, "p2p_seq_id") ? F_P2P_SEQ_ID : IS(k, "timeout_ms") ? F_TIMEOUT : F_NONE;
	case 11:
		return IS(k, "duration_ms")   ? F_DURATION
		       : IS(k, "input_sizes") ? F_INPUT_SIZES
		       : IS(k, "thread_name") ? F_THREAD_NAME
					      : F_NONE;
	case 12:
		return IS(k, "input_dtypes") ? F_INPUT_DTYPES : IS(k, "output_sizes") ? F_OUTPUT_SIZES : F_NONE;
	case 13:
		return IS(k, "process_group") ? F_PROCESS_GROUP : IS(k, "output_dtypes") ? F_OUTPUT_DTYPES : F_NONE;
	case 14:
		return IS(k, "profiling_name") ? F_PROFILING_NAME : F_NONE;
	case 15:
		return IS(k, "time_created_ns") ? F_TIME_CREATED : F_NONE;
	case 17:
		return IS(k, "collective_seq_id") ? F_COLLECTIVE_SEQ_ID : F_NONE;
	case 26:
		return IS(k, "time_discovered_started_ns") ? F_STARTED : F_NONE;
	case 28:
		return IS(k, "time_discovered_completed_ns") ? F_COMPLETED : F_NONE;
	}
	return F_NONE;
}

static const char *const field_names[] = {
	"?",		     "frames",	      "record_id",    "pg_id",	       "process_group",
	"collective_seq_id", "p2p_seq_id",    "op_id",	      "profiling_name", "time_created_ns",
	"duration_ms",	     "input_sizes",   "input_dtypes", "output_sizes",   "output_dtypes",
	"state",	     "time_discovered_started_ns",    "time_discovered_completed_ns",
	"retired",	     "timeout_ms",    "is_p2p",	      "thread_id",	"thread_name",
};

/* Sizes: a list of tensors, each a list of dims, into d->dims. A field
 * that does not read (or repeats) leaves no tensors behind. */
static bool read_sizes(reader *r, const pk_value *v, uint32_t *ntensors, size_t *off)
{
	frdump *d = r->d;
	*ntensors = 0;
	*off = d->ndims;
	if (!v || (v->kind != PK_LIST && v->kind != PK_TUPLE))
		return false;
	size_t n = pk_len(v);
	if (n > 65536)
		return false;
	for (size_t t = 0; t < n; t++) {
		const pk_value *dims = pk_at(v, t);
		if (!dims || (dims->kind != PK_LIST && dims->kind != PK_TUPLE) || pk_len(dims) > 64) {
			d->ndims = *off;
			return false;
		}
		size_t nd = pk_len(dims);
		if (d->ndims + nd + 1 > r->dims_cap) {
			size_t cap = r->dims_cap ? r->dims_cap * 2 : 1024;
			while (cap < d->ndims + nd + 1)
				cap *= 2;
			d->dims = xrealloc(d->dims, cap * sizeof *d->dims);
			r->dims_cap = cap;
		}
		d->dims[d->ndims++] = (int64_t)nd;
		for (size_t k = 0; k < nd; k++)
			if (!as_int(pk_at(dims, k), &d->dims[d->ndims++])) {
				d->ndims = *off;
				return false;
			}
	}
	*ntensors = (uint32_t)n;
	return true;
}

/* Dtypes: a list of str ("Float"), or one str as hand-made dumps have. */
static bool read_dtypes(reader *r, const pk_value *v, uint32_t *n, size_t *off)
{
	frdump *d = r->d;
	*n = 0;
	*off = d->ndtypes;
	if (is_str(v)) {
		grow(&d->dtypes, &r->dtypes_cap, d->ndtypes, sizeof *d->dtypes);
		d->dtypes[d->ndtypes++] = pstr(r, v);
		*n = 1;
		return true;
	}
	if (!v || (v->kind != PK_LIST && v->kind != PK_TUPLE) || pk_len(v) > 65536)
		return false;
	size_t k = pk_len(v);
	for (size_t i = 0; i < k; i++) {
		const pk_value *s = pk_at(v, i);
		if (!is_str(s)) {
			d->ndtypes = *off;
			return false;
		}
		grow(&d->dtypes, &r->dtypes_cap, d->ndtypes, sizeof *d->dtypes);
		d->dtypes[d->ndtypes++] = pstr(r, s);
	}
	*n = (uint32_t)k;
	return true;
}

/* Frames are keyed by their pooled strings: equal text, equal pointer. */
static uint64_t frame_hash(const char *name, const char *file, int64_t line)
{
	uintptr_t k[3] = { (uintptr_t)name, (uintptr_t)file, (uintptr_t)line };
	return fnv(k, sizeof k, 7);
}

/* The index of frame (name, file, line) in d->frames, added when new. */
static uint32_t frame_index(reader *r, const char *name, const char *file, int64_t line)
{
	frdump_pool *pl = r->pl;
	frdump *d = r->d;
	if (pl->fn * 2 >= pl->fcap) {
		size_t cap = pl->fcap ? pl->fcap * 2 : 256;
		fslot *t = xcalloc(cap, sizeof *t);
		for (size_t i = 0; i < pl->fcap; i++)
			if (pl->ftab[i].used) {
				uint64_t h = frame_hash(pl->ftab[i].name, pl->ftab[i].file, pl->ftab[i].line);
				size_t j = h & (cap - 1);
				while (t[j].used)
					j = (j + 1) & (cap - 1);
				t[j] = pl->ftab[i];
			}
		free(pl->ftab);
		pl->ftab = t;
		pl->fcap = cap;
	}
	fslot key = { name, file, line, 0, true };
	uint64_t h = frame_hash(name, file, line);
	size_t j = h & (pl->fcap - 1);
	while (pl->ftab[j].used) {
		fslot *s = &pl->ftab[j];
		if (s->name == name && s->file == file && s->line == line)
			return s->idx;
		j = (j + 1) & (pl->fcap - 1);
	}
	grow(&d->frames, &r->frames_cap, d->nframes, sizeof *d->frames);
	d->frames[d->nframes] = (fr_frame){ name, file, line };
	key.idx = (uint32_t)d->nframes++;
	pl->ftab[j] = key;
	pl->fn++;
	return key.idx;
}

static bool read_frames(reader *r, const pk_value *v, fr_entry *e)
{
	frdump *d = r->d;
	if (!v || (v->kind != PK_LIST && v->kind != PK_TUPLE))
		return false;
	size_t n = pk_len(v);
	e->frame0 = d->nframe_idx;
	e->nframes = e->frames_dropped = 0;
	for (size_t i = 0; i < n; i++) {
		if (e->nframes >= FRDUMP_MAX_FRAMES) {
			e->frames_dropped = (uint32_t)(n - i);
			break;
		}
		const pk_value *f = pk_at(v, i);
		if (!f || f->kind != PK_DICT)
			return false;
		size_t ci = vslot(f, FRCACHE);
		if (r->frcache[ci].v != f) {
			const char *name = "", *file = "";
			int64_t line = 0;
			for (size_t k = 0; k + 1 < f->u.c.n; k += 2) {
				const pk_value *key = f->u.c.items[k], *val = f->u.c.items[k + 1];
				if (!is_str(key))
					continue;
				if (IS(key->u.s, "name") && is_str(val))
					name = pstr(r, val);
				else if (IS(key->u.s, "filename") && is_str(val))
					file = pstr(r, val);
				else if (IS(key->u.s, "line"))
					as_int(val, &line);
			}
			r->frcache[ci].v = f;
			r->frcache[ci].idx = frame_index(r, name, file, line);
		}
		grow(&d->frame_idx, &r->fidx_cap, d->nframe_idx, sizeof *d->frame_idx);
		d->frame_idx[d->nframe_idx++] = r->frcache[ci].idx;
		e->nframes++;
	}
	return true;
}

static fr_state state_of(slice s)
{
	return IS(s, "completed") ? FR_COMPLETED
	       : IS(s, "started") ? FR_STARTED
	       : IS(s, "scheduled") ? FR_SCHEDULED
				    : FR_STATE_UNKNOWN;
}

static bool read_field(reader *r, fr_entry *e, enum field f, const pk_value *v)
{
	int64_t x;
	switch (f) {
	case F_NONE:
		return true;
	case F_FRAMES:
		return read_frames(r, v, e);
	case F_RECORD_ID:
		return as_int(v, &e->record_id);
	case F_PG_ID:
		return as_int(v, &e->pg_id);
	case F_COLLECTIVE_SEQ_ID:
		return as_int(v, &e->collective_seq_id);
	case F_P2P_SEQ_ID:
		return as_int(v, &e->p2p_seq_id);
	case F_OP_ID:
		return as_int(v, &e->op_id);
	case F_TIME_CREATED:
		return as_int(v, &e->time_created_ns);
	case F_TIMEOUT:
		return as_int(v, &e->timeout_ms);
	case F_STARTED:
	case F_COMPLETED:
		/* None (pickle) or 0 (JSON) until discovered */
		if (v->kind == PK_NONE)
			x = 0;
		else if (!as_int(v, &x))
			return false;
		*(f == F_STARTED ? &e->time_started_ns : &e->time_completed_ns) = x;
		return true;
	case F_PROCESS_GROUP:
		if ((v->kind != PK_TUPLE && v->kind != PK_LIST) || pk_len(v) != 2 || !is_str(pk_at(v, 0)) ||
		    !is_str(pk_at(v, 1)))
			return false;
		e->pg_name = pstr(r, pk_at(v, 0));
		e->pg_desc = pstr(r, pk_at(v, 1));
		return true;
	case F_PROFILING_NAME:
		if (!is_str(v))
			return false;
		e->profiling_name = pstr(r, v);
		return true;
	case F_THREAD_ID:
	case F_THREAD_NAME:
		if (!is_str(v))
			return false;
		*(f == F_THREAD_ID ? &e->thread_id : &e->thread_name) = pstr(r, v);
		return true;
	case F_STATE:
		if (!is_str(v))
			return false;
		e->state = state_of(v->u.s);
		return true;
	case F_DURATION:
		if (v->kind == PK_FLOAT)
			e->duration_ms = v->u.f;
		else if (v->kind == PK_INT)
			e->duration_ms = (double)v->u.i;
		else
			return v->kind == PK_NONE;
		e->has_duration = true;
		return true;
	case F_RETIRED:
	case F_IS_P2P:
		if (!as_int(v, &x))
			return false;
		*(f == F_RETIRED ? &e->retired : &e->is_p2p) = x != 0;
		return true;
	case F_INPUT_SIZES:
		return read_sizes(r, v, &e->n_in, &e->in);
	case F_OUTPUT_SIZES:
		return read_sizes(r, v, &e->n_out, &e->out);
	case F_INPUT_DTYPES:
		return read_dtypes(r, v, &e->n_in_dtypes, &e->in_dtypes);
	case F_OUTPUT_DTYPES:
		return read_dtypes(r, v, &e->n_out_dtypes, &e->out_dtypes);
	}
	return true;
}

static void read_entry(reader *r, const pk_value *v, size_t idx)
{
	frdump *d = r->d;
	fr_entry *e = &d->entries[d->nentries++];
	*e = (fr_entry){ .record_id = -1, .pg_id = -1, .collective_seq_id = -1, .p2p_seq_id = -1, .op_id = -1,
			 .pg_name = "", .pg_desc = "", .profiling_name = "", .thread_id = "", .thread_name = "",
			 .in = d->ndims, .out = d->ndims, .in_dtypes = d->ndtypes, .out_dtypes = d->ndtypes,
			 .frame0 = d->nframe_idx };
	if (!v || v->kind != PK_DICT) {
		bad(r, "entries[%zu] has the wrong type (%s)", idx, v ? pk_kind_name(v->kind) : "?");
		return;
	}
	bool has_p2p = false;
	for (size_t i = 0; i + 1 < v->u.c.n; i += 2) {
		const pk_value *k = v->u.c.items[i];
		if (!is_str(k))
			continue;
		size_t ci = vslot(k, FCACHE);
		if (r->fcache[ci].k != k) {
			r->fcache[ci].k = k;
			r->fcache[ci].f = entry_field(k->u.s);
		}
		enum field f = (enum field)r->fcache[ci].f;
		has_p2p |= f == F_IS_P2P;
		if (!read_field(r, e, f, v->u.c.items[i + 1]))
			bad(r, "entries[%zu].%s has the wrong type (%s)", idx, field_names[f],
			    pk_kind_name(v->u.c.items[i + 1]->kind));
	}
	if (!has_p2p) {
		const char *op = fr_op_name(e->profiling_name);
		e->is_p2p = !strncmp(op, "send ", 5) || !strncmp(op, "recv ", 5);
	}
}

/* ---- the top level ---- */

static int parse_version(const char *v, int *major, int *minor)
{
	char *end;
	long a = strtol(v, &end, 10);
	if (end == v || *end != '.')
		return -1;
	long b = strtol(end + 1, &end, 10);
	*major = (int)(a < 0 || a > 1000 ? -1 : a);
	*minor = (int)(b < 0 || b > 1000 ? -1 : b);
	return 0;
}

static int read_dump(reader *r, const pk_value *root, frdump_error *err)
{
	frdump *d = r->d;
	if (root->kind != PK_DICT) {
		err->off = root->off;
		snprintf(err->msg, sizeof err->msg, "not a Flight Recorder dump: it holds a %s, not a dict",
			 pk_kind_name(root->kind));
		return -1;
	}
	bool fr = false;
	int64_t rank = -1;
	for (size_t i = 0; i + 1 < root->u.c.n; i += 2) {
		const pk_value *k = root->u.c.items[i], *v = root->u.c.items[i + 1];
		if (!is_str(k))
			continue;
		slice ks = k->u.s;
		if (IS(ks, "version")) {
			if (is_str(v))
				d->version = pstr(r, v);
			else
				bad(r, "version has the wrong type (%s)", pk_kind_name(v->kind));
		} else if (IS(ks, "nccl_version") || IS(ks, "comm_lib_version") || IS(ks, "xccl_version")) {
			if (is_str(v))
				d->comm_lib_version = pstr(r, v);
		} else if (IS(ks, "rank")) {
			if (!as_int(v, &rank))
				bad(r, "rank has the wrong type (%s)", pk_kind_name(v->kind));
		} else if (IS(ks, "pg_config")) {
			fr = true;
			if (v->kind != PK_DICT) {
				bad(r, "pg_config has the wrong type (%s)", pk_kind_name(v->kind));
				continue;
			}
			for (size_t j = 0; j + 1 < v->u.c.n; j += 2)
				read_pg(r, v->u.c.items[j], v->u.c.items[j + 1]);
		} else if (IS(ks, "pg_status")) {
			fr = true;
			if (v->kind != PK_DICT) {
				bad(r, "pg_status has the wrong type (%s)", pk_kind_name(v->kind));
				continue;
			}
			for (size_t j = 0; j + 1 < v->u.c.n; j += 2)
				read_status(r, v->u.c.items[j], v->u.c.items[j + 1]);
		} else if (IS(ks, "entries")) {
			fr = true;
			if (v->kind != PK_LIST && v->kind != PK_TUPLE) {
				bad(r, "entries has the wrong type (%s)", pk_kind_name(v->kind));
				continue;
			}
			size_t n = pk_len(v);
			if (n > FRDUMP_MAX_ENTRIES) {
				d->entries_dropped = n - FRDUMP_MAX_ENTRIES;
				n = FRDUMP_MAX_ENTRIES;
			}
			/* the newest entries matter most: drop the oldest */
			free(d->entries);
			d->nentries = 0;
			d->entries = n ? xmalloc(n * sizeof *d->entries) : NULL;
			for (size_t j = pk_len(v) - n; j < pk_len(v); j++)
				read_entry(r, pk_at(v, j), j);
		}
	}
	if (!fr) {
		err->off = root->off;
		snprintf(err->msg, sizeof err->msg,
			 "not a Flight Recorder dump: a dict without pg_config, pg_status or entries");
		return -1;
	}
	if (rank >= 0) {
		d->rank = rank;
		d->rank_from_name = false;
	}
	if (parse_version(d->version, &d->ver_major, &d->ver_minor) < 0)
		d->ver_major = d->ver_minor = -1;
	return 0;
}

/* ---- JSON into the same values ---- */

static pk_value *from_json(pickle_doc *doc, const cJSON *j, uint64_t off, size_t depth, const char **why)
{
	pk_value *v = NULL;
	if (depth > doc->lim.max_depth) {
		*why = "nested too deeply";
		return NULL;
	}
	if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
		bool obj = cJSON_IsObject(j);
		if (!(v = pickle_new(doc, obj ? PK_DICT : PK_LIST, off)))
			goto limit;
		for (const cJSON *c = j->child; c; c = c->next) {
			if (obj) {
				pk_value *k = pickle_new(doc, PK_STR, off);
				if (!k)
					goto limit;
				k->u.s = slice_from(c->string ? c->string : "");
				if (!pickle_append(doc, v, k))
					goto limit;
			}
			pk_value *x = from_json(doc, c, off, depth + 1, why);
			if (!x)
				return NULL;
			if (!pickle_append(doc, v, x))
				goto limit;
		}
		return v;
	}
	if (cJSON_IsString(j)) {
		if (!(v = pickle_new(doc, PK_STR, off)))
			goto limit;
		v->u.s = slice_from(j->valuestring);
	} else if (cJSON_IsNumber(j)) {
		double f = j->valuedouble;
		/* an integral number is an int: the dump's ints are ids, sizes and
		 * nanosecond times (exact to 2^53, within 256 ns above it) */
		bool integral = f >= -9.2e18 && f <= 9.2e18 && f == (double)(int64_t)f;
		if (!(v = pickle_new(doc, integral ? PK_INT : PK_FLOAT, off)))
			goto limit;
		if (integral)
			v->u.i = (int64_t)f;
		else
			v->u.f = f;
	} else if (cJSON_IsBool(j)) {
		if (!(v = pickle_new(doc, PK_BOOL, off)))
			goto limit;
		v->u.b = cJSON_IsTrue(j);
	} else {
		if (!(v = pickle_new(doc, PK_NONE, off)))
			goto limit;
	}
	return v;
limit:
	*why = "needs more memory than the limit";
	return NULL;
}

/* The number of values in a JSON text, counted before cJSON builds a node
 * for each: a JSON array of a million zeros is 2 MB and 64 MB of nodes. */
static size_t json_values(const unsigned char *b, size_t n)
{
	size_t v = 1;
	bool str = false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = b[i];
		if (str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				str = false;
		} else if (c == '"') {
			str = true;
		} else if (c == ',' || c == '[' || c == '{' || c == ':') {
			v++;
		}
	}
	return v;
}

/* ---- entry points ---- */

static const char *const top_keys[] = { "version", "pg_config", "pg_status", "entries", "nccl_comm_state",
					"comm_lib_version", "nccl_version", "xccl_version" };
static const char *const entry_keys[] = { "collective_seq_id", "duration_ms", "frames", "input_dtypes",
					  "input_sizes", "is_p2p", "op_id", "output_dtypes", "output_sizes",
					  "p2p_seq_id", "pg_id", "process_group", "profiling_name", "record_id",
					  "retired", "state", "thread_id", "thread_name", "time_created_ns",
					  "time_discovered_completed_ns", "time_discovered_started_ns", "timeout_ms" };

static int key_in(const unsigned char *p, size_t n, const char *const *keys, size_t nkeys)
{
	for (size_t i = 0; i < nkeys; i++)
		if (strlen(keys[i]) == n && memcmp(p, keys[i], n) == 0)
			return (int)i;
	return -1;
}

static size_t skip_ws(const unsigned char *b, size_t i, size_t n)
{
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	return i;
}

/* The JSON string key at b[i] (a '"'); its bytes in *k, *kn; the index
 * after its colon, or 0. */
static size_t json_key(const unsigned char *b, size_t i, size_t n, const unsigned char **k, size_t *kn)
{
	if (i >= n || b[i] != '"')
		return 0;
	size_t j = i + 1;
	while (j < n && b[j] != '"' && b[j] != '\\' && j - i < 40)
		j++;
	if (j >= n || b[j] != '"')
		return 0;
	*k = b + i + 1;
	*kn = j - i - 1;
	j = skip_ws(b, j + 1, n);
	return j < n && b[j] == ':' ? j + 1 : 0;
}

static frdump_kind sniff_json(const unsigned char *b, size_t n)
{
	size_t i = 0;
	if (n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
		i = 3;
	i = skip_ws(b, i, n);
	if (i >= n || b[i] != '{')
		return FRDUMP_NONE;
	const unsigned char *k;
	size_t kn;
	size_t j = json_key(b, skip_ws(b, i + 1, n), n, &k, &kn);
	if (!j)
		return FRDUMP_NONE;
	int t = key_in(k, kn, top_keys, sizeof top_keys / sizeof *top_keys);
	if (t < 0)
		return FRDUMP_NONE;
	if (t == 0) {
		/* "version" alone is common: want another FR key close by */
		static const char *const more[] = { "\"pg_config\"", "\"pg_status\"", "\"entries\"" };
		slice hay = { (const char *)b, n };
		for (size_t m = 0; m < 3; m++)
			if (slice_find(hay, more[m], strlen(more[m])) >= 0)
				return FRDUMP_JSON;
		return FRDUMP_NONE;
	}
	if (t == 3) {
		/* "entries" first (sorted keys of older versions): an entry follows */
		j = skip_ws(b, j, n);
		if (j >= n || b[j] != '[')
			return FRDUMP_NONE;
		j = skip_ws(b, j + 1, n);
		if (j < n && b[j] == ']')
			return FRDUMP_JSON;
		if (j >= n || b[j] != '{')
			return FRDUMP_NONE;
		if (!json_key(b, skip_ws(b, j + 1, n), n, &k, &kn))
			return FRDUMP_NONE;
		return key_in(k, kn, entry_keys, sizeof entry_keys / sizeof *entry_keys) >= 0 ? FRDUMP_JSON
											: FRDUMP_NONE;
	}
	return FRDUMP_JSON;
}

frdump_kind frdump_sniff(const unsigned char *b, size_t n)
{
	if (n >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5) {
		size_t i = 2;
		if (i < n && b[i] == 0x95) /* FRAME */
			i += 9;
		if (i >= n || b[i] != '}') /* EMPTY_DICT */
			return FRDUMP_NONE;
		i++;
		if (i < n && b[i] == 'q') /* BINPUT */
			i += 2;
		else if (i < n && b[i] == 'r') /* LONG_BINPUT */
			i += 5;
		else if (i < n && b[i] == 0x94) /* MEMOIZE */
			i++;
		if (i < n && b[i] == '(') /* MARK */
			i++;
		if (i >= n)
			return FRDUMP_NONE;
		size_t kn;
		if (b[i] == 'X' && i + 5 <= n) {
			kn = (size_t)b[i + 1] | (size_t)b[i + 2] << 8 | (size_t)b[i + 3] << 16 | (size_t)b[i + 4] << 24;
			i += 5;
		} else if ((b[i] == 0x8c || b[i] == 'U') && i + 2 <= n) {
			kn = b[i + 1];
			i += 2;
		} else {
			return FRDUMP_NONE;
		}
		if (kn > 32 || i + kn > n)
			return FRDUMP_NONE;
		return key_in(b + i, kn, top_keys, sizeof top_keys / sizeof *top_keys) >= 0 ? FRDUMP_PICKLE
											   : FRDUMP_NONE;
	}
	return sniff_json(b, n);
}

int64_t frdump_rank_from_name(const char *path)
{
	if (!path)
		return -1;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	static const char *const exts[] = { ".gz", ".zst", ".json", ".pkl", ".pickle", ".bin" };
	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
			size_t e = strlen(exts[i]);
			if (n > e && memcmp(base + n - e, exts[i], e) == 0) {
				n -= e;
				again = true;
			}
		}
	}
	size_t k = n;
	while (k > 0 && base[k - 1] >= '0' && base[k - 1] <= '9')
		k--;
	if (k == n || n - k > 9)
		return -1;
	int64_t r = 0;
	for (size_t i = k; i < n; i++)
		r = r * 10 + (base[i] - '0');
	return r;
}

static void setup(frdump *d, const char *name)
{
	*d = (frdump){ 0 };
	d->version = "";
	d->comm_lib_version = "";
	d->rank = frdump_rank_from_name(name);
	d->rank_from_name = d->rank >= 0;
	d->ver_major = d->ver_minor = -1;
	d->pool = xcalloc(1, sizeof *d->pool);
}

int frdump_parse(const unsigned char *buf, size_t n, const char *name, frdump *d, frdump_error *err)
{
	setup(d, name);
	*err = (frdump_error){ 0 };
	frdump_kind kind = frdump_sniff(buf, n);
	if (kind == FRDUMP_NONE)
		kind = n && buf[0] == 0x80 ? FRDUMP_PICKLE : FRDUMP_JSON;
	d->kind = kind;
	pickle_doc doc;
	pickle_doc_init(&doc, NULL);
	cJSON *json = NULL;
	const pk_value *root;
	int rc = -1;
	if (kind == FRDUMP_PICKLE) {
		pickle_error pe;
		if (n > FRDUMP_MAX_FILE) {
			snprintf(err->msg, sizeof err->msg, "%zu MiB is more than a dump may have (%zu MiB)", n >> 20,
				 FRDUMP_MAX_FILE >> 20);
			goto out;
		}
		if (pickle_decode(buf, n, NULL, &doc, &pe) < 0) {
			err->off = pe.off;
			snprintf(err->msg, sizeof err->msg, "%s", pe.msg);
			goto out;
		}
		root = doc.root;
	} else {
		if (n > FRDUMP_MAX_JSON) {
			snprintf(err->msg, sizeof err->msg, "%zu MiB is more than a JSON dump may have (%zu MiB)",
				 n >> 20, FRDUMP_MAX_JSON >> 20);
			goto out;
		}
		size_t nv = json_values(buf, n);
		if (nv > FRDUMP_MAX_JSON_VALUES) {
			snprintf(err->msg, sizeof err->msg, "a JSON dump of %zu values is more than the %u taken", nv,
				 FRDUMP_MAX_JSON_VALUES);
			goto out;
		}
		const char *end = NULL;
		json = cJSON_ParseWithLengthOpts((const char *)buf, n, &end, 0);
		if (!json) {
			err->off = end && end >= (const char *)buf ? (uint64_t)(end - (const char *)buf) : 0;
			snprintf(err->msg, sizeof err->msg,
				 "offset %llu: neither a pickle nor valid JSON: not a Flight Recorder dump",
				 (unsigned long long)err->off);
			goto out;
		}
		const char *why = NULL;
		root = from_json(&doc, json, 0, 0, &why);
		if (!root) {
			snprintf(err->msg, sizeof err->msg, "JSON %s", why ? why : "too large");
			goto out;
		}
	}
	reader *r = xcalloc(1, sizeof *r);
	r->d = d;
	r->pl = d->pool;
	rc = read_dump(r, root, err);
	free(r);
out:
	pickle_free(&doc);
	cJSON_Delete(json);
	if (rc < 0) {
		frdump_free(d);
		setup(d, name);
		d->kind = kind;
	}
	return rc;
}

int frdump_load(const char *path, frdump *d, frdump_error *err)
{
	strbuf e = { 0 };
	*err = (frdump_error){ 0 };
	source *s = source_open(path, &e);
	if (!s) {
		setup(d, path);
		snprintf(err->msg, sizeof err->msg, "%s", e.p ? e.p : "cannot open");
		sb_free(&e);
		return -1;
	}
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0;
	const char *p;
	ssize_t k;
	while ((k = source_next(s, &p, &e)) > 0) {
		if (n + (size_t)k > FRDUMP_MAX_FILE) {
			k = -2;
			break;
		}
		if (n + (size_t)k > cap) {
			cap = cap ? cap * 2 : 1 << 20;
			while (cap < n + (size_t)k)
				cap *= 2;
			buf = xrealloc(buf, cap);
		}
		memcpy(buf + n, p, (size_t)k);
		n += (size_t)k;
	}
	source_close(s);
	int rc;
	if (k < 0) {
		setup(d, path);
		if (k == -2)
			snprintf(err->msg, sizeof err->msg, "more than %zu MiB: too large for a dump", FRDUMP_MAX_FILE >> 20);
		else
			snprintf(err->msg, sizeof err->msg, "%s", e.p ? e.p : "read error");
		rc = -1;
	} else {
		rc = frdump_parse(buf ? buf : (const unsigned char *)"", n, path, d, err);
	}
	free(buf);
	sb_free(&e);
	return rc;
}

void frdump_free(frdump *d)
{
	for (size_t i = 0; i < d->npgs; i++)
		free(d->pgs[i].ranks);
	free(d->pgs);
	free(d->status);
	free(d->entries);
	free(d->dims);
	free(d->dtypes);
	free(d->frames);
	free(d->frame_idx);
	pool_free(d->pool);
	*d = (frdump){ 0 };
	d->version = d->comm_lib_version = "";
	d->rank = -1;
}

const char *fr_state_name(fr_state s)
{
	static const char *const names[] = { "unknown", "scheduled", "started", "completed" };
	return (unsigned)s < 4 ? names[s] : "unknown";
}

const char *fr_op_name(const char *profiling_name)
{
	const char *c = profiling_name ? strchr(profiling_name, ':') : NULL;
	/* the backend has no spaces; an op may (send 0->1) */
	if (c && !memchr(profiling_name, ' ', (size_t)(c - profiling_name)))
		return c + 1;
	return profiling_name ? profiling_name : "";
}

char *fr_sizes_text(const frdump *d, const fr_entry *e, bool out, char *buf, size_t cap)
{
	size_t off = out ? e->out : e->in, nt = out ? e->n_out : e->n_in, k = 0;
	if (!cap)
		return buf;
	buf[0] = 0;
#define PUT(...)                                                                   \
	do {                                                                       \
		int w_ = snprintf(buf + k, cap - k, __VA_ARGS__);                  \
		if (w_ < 0 || (size_t)w_ >= cap - k)                               \
			goto cut;                                                  \
		k += (size_t)w_;                                                   \
	} while (0)
	PUT("[");
	for (size_t t = 0; t < nt && off < d->ndims; t++) {
		size_t nd = (size_t)d->dims[off++];
		PUT("%s[", t ? ", " : "");
		for (size_t i = 0; i < nd && off < d->ndims; i++)
			PUT("%s%lld", i ? ", " : "", (long long)d->dims[off++]);
		PUT("]");
	}
	PUT("]");
	return buf;
cut:
	if (cap >= 4)
		memcpy(buf + cap - 4, "...", 4);
	return buf;
#undef PUT
}

int64_t fr_numel(const frdump *d, const fr_entry *e, bool out)
{
	size_t off = out ? e->out : e->in, nt = out ? e->n_out : e->n_in;
	int64_t sum = 0;
	for (size_t t = 0; t < nt && off < d->ndims; t++) {
		size_t nd = (size_t)d->dims[off++];
		int64_t p = 1;
		for (size_t i = 0; i < nd && off < d->ndims; i++, off++) {
			int64_t x = d->dims[off];
			if (x < 0)
				x = 0;
			if (x && p > INT64_MAX / x)
				p = INT64_MAX;
			else
				p *= x;
		}
		sum = sum > INT64_MAX - p ? INT64_MAX : sum + p;
	}
	return sum;
}
