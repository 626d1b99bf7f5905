/* The cross-rank match of FR dumps. Per process group (keyed by name and
 * members, as fr_trace keys split groups) the matcher keeps each member's
 * progress and a ring of collectives by collective_seq_id; per collective,
 * up to FRMATCH_MAX_VARIANTS distinct signatures (op, sizes, dtypes), each
 * with how many ranks called it so. What fr_trace compares and what it
 * leaves out follows its types.py (Op.match, dtype_mismatch) and utils.py
 * (error_analysis, the all_to_all totals). */
#include "frmatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/intern.h"

#define REPORTED_P2P 256 /* unpaired sends and receives reported */

typedef struct variant {
	uint64_t h_op, h_in, h_out, h_din, h_dout;
	uint32_t count;
	int32_t ex[FRMATCH_EXAMPLES];
	uint8_t nex;
	bool numel_bad;
	int text; /* -1: none kept */
} variant;

typedef struct slot {
	int64_t seq; /* -1: empty */
	variant v0;
	variant *more; /* FRMATCH_MAX_VARIANTS - 1 of them, once needed */
	uint8_t nvar;
	bool alltoall, alltoall_old;
	uint32_t overflow, contrib;
	int64_t sum_in, sum_out, t_min;
} slot;

typedef struct member {
	int64_t rank;
	int64_t enq, start, done;
	bool seen;
} member;

typedef struct pg {
	char *name, *desc;
	int64_t *ranks; /* sorted; for a group no pg_config listed, the ranks seen in it */
	member *mem;
	size_t n, cap;
	bool listed;
	uint64_t key;
	slot *ring;
	size_t rcap;
	int64_t lo, hi;
	bool any;
	size_t dropped;
} pg;

typedef struct pend {
	int pg;
	int64_t peer; /* -1: any source */
	bool send, paired;
	int64_t p2p_seq, record_id, numel;
	fr_state state;
	int text;
} pend;

typedef struct rinfo {
	frm_rank pub;
	pend p2p[FRMATCH_PENDING_P2P];
	int np2p;
} rinfo;

struct frmatch {
	pg *pgs;
	size_t npgs, pgcap;
	int32_t *ptab; /* open addressing over pgs by key */
	size_t ptcap;
	hashkey pkey;  /* ptab's keys are keyed: group names come from the dumps */
	rinfo **ranks; /* by rank */
	size_t nranks;
	intern texts;
	size_t text_bytes, texts_dropped;
	uint64_t *tkey; /* signature -> text, so that a text is printed once */
	int *tid;
	size_t tcap, tn;
	size_t nslots, dropped, pgs_dropped;
	int64_t latest_ns;
	char version[16];
	bool mixed;
};

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static uint64_t fnv_str(const char *s, uint64_t h)
{
	return fnv(s, strlen(s), h);
}

/* Copies s into out (cap bytes), control bytes as '?': report text never
 * carries a terminal escape, whatever the dump held. */
static void clean(char *out, size_t cap, const char *s)
{
	size_t k = 0;
	for (; s && *s && k + 1 < cap; s++)
		out[k++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
	out[k] = 0;
}

frmatch *frmatch_new(void)
{
	frmatch *m = xcalloc(1, sizeof *m);
	intern_init(&m->texts);
	hashkey_random(&m->pkey);
	return m;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* ---- groups ---- */

static uint64_t pg_key(const frmatch *m, const char *name, const int64_t *ranks, size_t n, bool listed)
{
	return siphash_ints(&m->pkey, siphash(&m->pkey, name, strlen(name)),
			    siphash(&m->pkey, ranks, n * sizeof *ranks) ^ (uint64_t)listed);
}

static bool pg_same(const pg *g, const char *name, const int64_t *ranks, size_t n, bool listed)
{
	return g->listed == listed && strcmp(g->name, name) == 0 &&
	       (!listed || (g->n == n && (n == 0 || memcmp(g->ranks, ranks, n * sizeof *ranks) == 0)));
}

static void ptab_rehash(frmatch *m)
{
	size_t cap = m->ptcap ? m->ptcap * 2 : 64;
	int32_t *t = xmalloc(cap * sizeof *t);
	memset(t, 0xff, cap * sizeof *t);
	for (size_t i = 0; i < m->npgs; i++) {
		size_t j = m->pgs[i].key & (cap - 1);
		while (t[j] >= 0)
			j = (j + 1) & (cap - 1);
		t[j] = (int32_t)i;
	}
	free(m->ptab);
	m->ptab = t;
	m->ptcap = cap;
}

/* The group (name, sorted ranks), added when new; -1 past the limit. An
 * unlisted group (entries name it, no pg_config does) is keyed by name. */
static int pg_find(frmatch *m, const char *name, const char *desc, int64_t *ranks, size_t n, bool listed)
{
	if (!listed)
		n = 0;
	uint64_t key = pg_key(m, name, ranks, n, listed);
	if (m->npgs * 2 >= m->ptcap)
		ptab_rehash(m);
	size_t j = key & (m->ptcap - 1);
	while (m->ptab[j] >= 0) {
		pg *g = &m->pgs[m->ptab[j]];
		if (g->key == key && pg_same(g, name, ranks, n, listed))
			return m->ptab[j];
		j = (j + 1) & (m->ptcap - 1);
	}
	if (m->npgs >= FRMATCH_MAX_PGS) {
		m->pgs_dropped++;
		return -1;
	}
	grow(&m->pgs, &m->pgcap, m->npgs, sizeof *m->pgs);
	pg *g = &m->pgs[m->npgs];
	*g = (pg){ 0 };
	g->name = xstrdup(name);
	g->desc = xstrdup(desc && *desc ? desc : "undefined");
	g->listed = listed;
	g->key = key;
	g->n = g->cap = n;
	if (n) {
		g->ranks = xmalloc(n * sizeof *g->ranks);
		memcpy(g->ranks, ranks, n * sizeof *ranks);
		g->mem = xmalloc(n * sizeof *g->mem);
		for (size_t i = 0; i < n; i++)
			g->mem[i] = (member){ ranks[i], -1, -1, -1, false };
	}
	m->ptab[j] = (int32_t)m->npgs;
	return (int)m->npgs++;
}

static member *pg_member(pg *g, int64_t rank)
{
	size_t lo = 0, hi = g->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->ranks[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->n && g->ranks[lo] == rank)
		return &g->mem[lo];
	if (g->listed)
		return NULL;
	/* an unlisted group learns its members as they show up */
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 8;
		g->ranks = xrealloc(g->ranks, g->cap * sizeof *g->ranks);
		g->mem = xrealloc(g->mem, g->cap * sizeof *g->mem);
	}
	memmove(g->ranks + lo + 1, g->ranks + lo, (g->n - lo) * sizeof *g->ranks);
	memmove(g->mem + lo + 1, g->mem + lo, (g->n - lo) * sizeof *g->mem);
	g->ranks[lo] = rank;
	g->mem[lo] = (member){ rank, -1, -1, -1, false };
	g->n++;
	return &g->mem[lo];
}

/* ---- signatures ---- */

static bool op_in(const char *op, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(op, *set))
			return true;
	return false;
}

static const char *const alltoall_ops[] = { "all_to_all", "all_to_all_single", "all_to_all_v_single", "alltoall",
					    "alltoall_base", NULL };
static const char *const gather_ops[] = { "all_gather", "_all_gather_base", "all_gather_base",
					  "all_gather_into_tensor_coalesced", NULL };
static const char *const scatter_ops[] = { "reduce_scatter", "_reduce_scatter_base", "reduce_scatter_base",
					   "reduce_scatter_tensor_coalesced", NULL };

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t sizes_hash(const frdump *d, const fr_entry *e, bool out, uint64_t h)
{
	size_t off = out ? e->out : e->in, nt = out ? e->n_out : e->n_in;
	size_t end = off;
	for (size_t t = 0; t < nt && end < d->ndims; t++)
		end += 1 + (size_t)d->dims[end];
	if (end > d->ndims)
		end = d->ndims;
	h = mix(h, nt);
	for (size_t i = off; i < end; i++)
		h = mix(h, (uint64_t)d->dims[i]);
	return h;
}

/* The hash of a dtype name, cached by pointer for the dump being added
 * (its strings are pooled); NULL cache: no caching. */
#define DTCACHE 16
typedef struct dtcache {
	const char *s;
	uint64_t h;
} dtcache;

static uint64_t dtype_h(dtcache *c, const char *s)
{
	if (!c)
		return fnv_str(s, 99);
	dtcache *e = &c[((uintptr_t)s >> 3) & (DTCACHE - 1)];
	if (e->s != s) {
		e->s = s;
		e->h = fnv_str(s, 99);
	}
	return e->h;
}

/* The set of dtypes, not the list: fr_trace compares sets. */
static uint64_t dtypes_hash(const frdump *d, size_t off, uint32_t n, uint64_t h, dtcache *c)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < n; i++) {
		bool dup = false;
		for (uint32_t k = 0; k < i; k++)
			dup |= d->dtypes[off + k] == d->dtypes[off + i];
		if (!dup)
			sum += dtype_h(c, d->dtypes[off + i]);
	}
	return mix(h, sum);
}

static bool has_dims(const frdump *d, size_t off, uint32_t nt)
{
	return nt && off < d->ndims && d->dims[off] > 0;
}

static int64_t first_numel(const frdump *d, size_t off, uint32_t nt)
{
	if (!nt || off >= d->ndims)
		return 0;
	int64_t p = 1;
	size_t nd = (size_t)d->dims[off];
	for (size_t i = 1; i <= nd && off + i < d->ndims; i++) {
		int64_t x = d->dims[off + i] < 0 ? 0 : d->dims[off + i];
		p = x && p > INT64_MAX / x ? INT64_MAX : p * x;
	}
	return p;
}

static void dtypes_text(const frdump *d, size_t off, uint32_t n, char *buf, size_t cap)
{
	size_t k = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < n && k + 1 < cap; i++) {
		int w = snprintf(buf + k, cap - k, "%s%s", i ? "," : "", d->dtypes[off + i]);
		if (w < 0 || (size_t)w >= cap - k)
			break;
		k += (size_t)w;
	}
}

static void sig_of(const frdump *d, const fr_entry *e, frm_sig *s)
{
	char tmp[64];
	*s = (frm_sig){ 0 };
	clean(s->op, sizeof s->op, fr_op_name(e->profiling_name));
	clean(s->in_sizes, sizeof s->in_sizes, fr_sizes_text(d, e, false, tmp, sizeof tmp));
	clean(s->out_sizes, sizeof s->out_sizes, fr_sizes_text(d, e, true, tmp, sizeof tmp));
	dtypes_text(d, e->in_dtypes, e->n_in_dtypes, tmp, sizeof s->in_dtypes);
	clean(s->in_dtypes, sizeof s->in_dtypes, tmp);
	dtypes_text(d, e->out_dtypes, e->n_out_dtypes, tmp, sizeof s->out_dtypes);
	clean(s->out_dtypes, sizeof s->out_dtypes, tmp);
	s->in_numel = fr_numel(d, e, false);
	s->out_numel = fr_numel(d, e, true);
	s->ops = 1;
}

/* A signature kept as one interned string; -1 once the budget is spent. */
static int text_of(frmatch *m, const frm_sig *s)
{
	char buf[320];
	int n = snprintf(buf, sizeof buf, "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%lld\x1f%lld\x1f%u", s->op, s->in_sizes,
			 s->out_sizes, s->in_dtypes, s->out_dtypes, (long long)s->in_numel, (long long)s->out_numel,
			 s->ops);
	if (n < 0)
		return -1;
	slice t = { buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1 };
	int id = intern_find(&m->texts, t);
	if (id >= 0)
		return id;
	if (m->text_bytes + t.n > FRMATCH_TEXT_BUDGET) {
		m->texts_dropped++;
		return -1;
	}
	m->text_bytes += t.n + 1;
	return intern_get(&m->texts, t);
}

static void sig_from_text(const frmatch *m, int id, frm_sig *s)
{
	*s = (frm_sig){ 0 };
	if (id < 0) {
		snprintf(s->op, sizeof s->op, "?");
		return;
	}
	const char *p = intern_str(&m->texts, id);
	char *fields[5] = { s->op, s->in_sizes, s->out_sizes, s->in_dtypes, s->out_dtypes };
	size_t caps[5] = { sizeof s->op, sizeof s->in_sizes, sizeof s->out_sizes, sizeof s->in_dtypes,
			   sizeof s->out_dtypes };
	for (int f = 0; f < 5; f++) {
		const char *e = strchr(p, '\x1f');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		snprintf(fields[f], caps[f], "%.*s", (int)n, p);
		p = e ? e + 1 : p + n;
	}
	long long in = 0, out = 0;
	unsigned ops = 1;
	sscanf(p, "%lld\x1f%lld\x1f%u", &in, &out, &ops);
	s->in_numel = in;
	s->out_numel = out;
	s->ops = ops;
}

/* ---- one rank's collectives, grouped by seq ---- */

/* What an op name means for matching, cached per profiling name of the
 * dump being added (its strings are pooled: one pointer per name). */
enum { OPC_A2A = 1, OPC_SCATTER = 2, OPC_GATHER = 4, OPC_BCAST = 8, OPC_ALLGATHER = 16, OPC_REDSCATTER = 32 };
#define OPCACHE 64

typedef struct opinfo {
	const char *pn; /* profiling name */
	const char *op;
	uint64_t h;
	uint8_t cls;
} opinfo;

static const opinfo *op_info(opinfo *cache, const char *pn)
{
	opinfo *o = &cache[((uintptr_t)pn >> 3) & (OPCACHE - 1)];
	if (o->pn != pn) {
		o->pn = pn;
		o->op = fr_op_name(pn);
		o->h = fnv_str(o->op, 1469598103934665603ull);
		o->cls = (op_in(o->op, alltoall_ops) ? OPC_A2A : 0) | (!strcmp(o->op, "scatter") ? OPC_SCATTER : 0) |
			 (!strcmp(o->op, "gather") ? OPC_GATHER : 0) |
			 (!strcmp(o->op, "broadcast") || !strcmp(o->op, "_broadcast_oop") ? OPC_BCAST : 0) |
			 (op_in(o->op, gather_ops) ? OPC_ALLGATHER : 0) | (op_in(o->op, scatter_ops) ? OPC_REDSCATTER : 0);
	}
	return o;
}

/* The collective entries of one rank under one seq: one, or several when
 * coalesced (their ops and sizes hashed in order). */

typedef struct batch {
	int64_t seq; /* -1: none */
	uint64_t h_op, h_in, h_out, h_din, h_dout;
	int64_t in_numel, out_numel, created;
	uint32_t n;
	bool all_done, any_started, alltoall;
	uint8_t cls; /* of the first entry's op */
	const fr_entry *first;
} batch;

typedef struct local {
	const char *name; /* pooled in the dump: equal names, equal pointers */
	int pg;           /* index into m->pgs; -1 */
	member *me;
	batch o;
	int64_t pg_id; /* ProcessGroupNCCL uid on this rank, from entries; -1 */
} local;

/* Keeps the lowest FRMATCH_EXAMPLES ranks, sorted: the same whatever the
 * order dumps come in. */
static void add_example(variant *v, int64_t rank)
{
	int i = v->nex;
	if (i == FRMATCH_EXAMPLES) {
		if (rank >= v->ex[i - 1])
			return;
		i--;
	} else {
		v->nex++;
	}
	while (i > 0 && v->ex[i - 1] > rank) {
		v->ex[i] = v->ex[i - 1];
		i--;
	}
	v->ex[i] = (int32_t)rank;
}

static void variant_init(variant *v, const batch *o, int64_t rank, int text, bool numel_bad)
{
	*v = (variant){ o->h_op, o->h_in, o->h_out, o->h_din, o->h_dout, 1, { (int32_t)rank }, 1, numel_bad, text };
}

static void ring_grow(pg *g, size_t need)
{
	size_t cap = g->rcap ? g->rcap : 16;
	while (cap < need)
		cap *= 2;
	if (cap == g->rcap)
		return;
	slot *r = xmalloc(cap * sizeof *r);
	for (size_t i = 0; i < cap; i++)
		r[i].seq = -1;
	for (size_t i = 0; i < g->rcap; i++)
		if (g->ring[i].seq >= 0)
			r[(size_t)g->ring[i].seq & (cap - 1)] = g->ring[i];
	free(g->ring);
	g->ring = r;
	g->rcap = cap;
}

/* Empties s; what it held counts as calls not compared. */
static void slot_clear(frmatch *m, pg *g, slot *s)
{
	if (s->seq < 0)
		return;
	for (int i = 0; i < s->nvar; i++)
		g->dropped += i ? s->more[i - 1].count : s->v0.count;
	g->dropped += s->overflow;
	free(s->more);
	s->more = NULL;
	s->seq = -1;
	m->nslots--;
}

/* Moves the low end of g's window up to lo, dropping what falls out. */
static void ring_raise(frmatch *m, pg *g, int64_t lo)
{
	if (lo - g->lo >= (int64_t)g->rcap) {
		for (size_t i = 0; i < g->rcap; i++)
			slot_clear(m, g, &g->ring[i]);
	} else {
		for (int64_t s = g->lo; s < lo; s++) {
			slot *sl = &g->ring[(size_t)s & (g->rcap - 1)];
			if (sl->seq == s)
				slot_clear(m, g, sl);
		}
	}
	g->lo = lo;
}

/* The text of the signature of a batch, made once per distinct one. */
static int batch_text(frmatch *m, const frdump *d, const batch *o)
{
	const fr_entry *e = o->first;
	uint64_t k = mix(mix(fnv_str(e->profiling_name, 5), sizes_hash(d, e, false, 1)), sizes_hash(d, e, true, 2));
	for (uint32_t i = 0; i < e->n_in_dtypes; i++)
		k = mix(k, fnv_str(d->dtypes[e->in_dtypes + i], 3));
	for (uint32_t i = 0; i < e->n_out_dtypes; i++)
		k = mix(k, fnv_str(d->dtypes[e->out_dtypes + i], 4));
	/* the slot from a keyed hash: a dump cannot line its signatures up */
	k = siphash_ints(&m->pkey, k, o->n) | 1; /* 0 marks a free slot */
	if (m->tn * 2 >= m->tcap) {
		size_t cap = m->tcap ? m->tcap * 2 : 256;
		uint64_t *keys = xcalloc(cap, sizeof *keys);
		int *ids = xmalloc(cap * sizeof *ids);
		for (size_t i = 0; i < m->tcap; i++)
			if (m->tkey[i]) {
				size_t j = m->tkey[i] & (cap - 1);
				while (keys[j])
					j = (j + 1) & (cap - 1);
				keys[j] = m->tkey[i];
				ids[j] = m->tid[i];
			}
		free(m->tkey);
		free(m->tid);
		m->tkey = keys;
		m->tid = ids;
		m->tcap = cap;
	}
	size_t j = k & (m->tcap - 1);
	while (m->tkey[j]) {
		if (m->tkey[j] == k)
			return m->tid[j];
		j = (j + 1) & (m->tcap - 1);
	}
	frm_sig sig;
	sig_of(d, e, &sig);
	sig.ops = o->n;
	int id = text_of(m, &sig);
	if (id >= 0) {
		m->tkey[j] = k;
		m->tid[j] = id;
		m->tn++;
	}
	return id;
}

static void slot_add(frmatch *m, pg *g, const batch *o, const frdump *d, int64_t rank)
{
	int64_t s = o->seq;
	if (!g->any) {
		g->any = true;
		g->lo = g->hi = s;
		ring_grow(g, 16);
	}
	if (s > g->hi) {
		g->hi = s;
		if (g->lo < s - FRMATCH_WINDOW + 1)
			ring_raise(m, g, s - FRMATCH_WINDOW + 1);
	}
	if (s < g->hi - FRMATCH_WINDOW + 1) {
		g->dropped++;
		return;
	}
	if (s < g->lo)
		g->lo = s;
	ring_grow(g, (size_t)(g->hi - g->lo + 1));
	slot *sl = &g->ring[(size_t)s & (g->rcap - 1)];
	bool numel_bad = false;
	if (o->n == 1 && g->listed && (o->cls & (OPC_ALLGATHER | OPC_REDSCATTER))) {
		int64_t in0 = first_numel(d, o->first->in, o->first->n_in);
		int64_t out0 = first_numel(d, o->first->out, o->first->n_out);
		int64_t n = (int64_t)g->n;
		if ((o->cls & OPC_ALLGATHER) && in0 && out0 && in0 <= INT64_MAX / n && out0 != in0 * n)
			numel_bad = true;
		if ((o->cls & OPC_REDSCATTER) && in0 && out0 && out0 <= INT64_MAX / n && in0 != out0 * n)
			numel_bad = true;
	}
	if (sl->seq != s) {
		if (m->nslots >= FRMATCH_MAX_SLOTS) {
			g->dropped++;
			m->dropped++;
			return;
		}
		*sl = (slot){ .seq = s, .nvar = 1, .t_min = o->created };
		variant_init(&sl->v0, o, rank, batch_text(m, d, o), numel_bad);
		m->nslots++;
	} else {
		variant *hit = NULL;
		for (int i = 0; i < sl->nvar && !hit; i++) {
			variant *v = i ? &sl->more[i - 1] : &sl->v0;
			if (v->h_op == o->h_op && v->h_in == o->h_in && v->h_out == o->h_out && v->h_din == o->h_din &&
			    v->h_dout == o->h_dout)
				hit = v;
		}
		if (hit) {
			hit->count++;
			add_example(hit, rank);
		} else if (sl->nvar < FRMATCH_MAX_VARIANTS) {
			if (!sl->more)
				sl->more = xcalloc(FRMATCH_MAX_VARIANTS - 1, sizeof *sl->more);
			variant_init(&sl->more[sl->nvar - 1], o, rank, batch_text(m, d, o), numel_bad);
			sl->nvar++;
		} else {
			sl->overflow++;
		}
		if (o->created && (!sl->t_min || o->created < sl->t_min))
			sl->t_min = o->created;
	}
	if (o->alltoall) {
		sl->alltoall = true;
		if (d->ver_major == 2 && d->ver_minor <= 3)
			sl->alltoall_old = true; /* sizes of all_to_all were not recorded yet */
		sl->sum_in = sl->sum_in > INT64_MAX - o->in_numel ? INT64_MAX : sl->sum_in + o->in_numel;
		sl->sum_out = sl->sum_out > INT64_MAX - o->out_numel ? INT64_MAX : sl->sum_out + o->out_numel;
		sl->contrib++;
	}
}

static void flush(frmatch *m, local *l, const frdump *d, int64_t rank)
{
	batch *o = &l->o;
	if (o->seq < 0)
		return;
	if (l->me) {
		member *me = l->me;
		me->seen = true;
		if (o->seq > me->enq)
			me->enq = o->seq;
		if ((o->any_started || o->all_done) && o->seq > me->start)
			me->start = o->seq;
		if (o->all_done && o->seq > me->done)
			me->done = o->seq;
	}
	if (l->pg >= 0)
		slot_add(m, &m->pgs[l->pg], o, d, rank);
	o->seq = -1;
}

static void accumulate(frmatch *m, local *l, const frdump *d, const fr_entry *e, int64_t rank, opinfo *cache,
		       dtcache *dtc)
{
	batch *o = &l->o;
	if (o->seq != e->collective_seq_id)
		flush(m, l, d, rank);
	const opinfo *oi = op_info(cache, e->profiling_name);
	bool a2a = oi->cls & OPC_A2A, scatter = oi->cls & OPC_SCATTER, gather = oi->cls & OPC_GATHER;
	bool bcast = oi->cls & OPC_BCAST;
	if (o->seq < 0) {
		*o = (batch){ .seq = e->collective_seq_id, .h_op = 1469598103934665603ull, .h_in = 7, .h_out = 11,
			     .h_din = 13, .h_dout = 17, .all_done = true, .cls = oi->cls, .first = e,
			     .created = e->time_created_ns };
	}
	o->n++;
	o->h_op = mix(o->h_op, oi->h);
	/* what fr_trace's Op.match leaves out for each op */
	if (!a2a && !scatter)
		o->h_in = sizes_hash(d, e, false, o->h_in);
	if (!a2a && !gather)
		o->h_out = sizes_hash(d, e, true, o->h_out);
	if (!scatter && !bcast && has_dims(d, e->in, e->n_in))
		o->h_din = dtypes_hash(d, e->in_dtypes, e->n_in_dtypes, o->h_din, dtc);
	if (!gather && has_dims(d, e->out, e->n_out))
		o->h_dout = dtypes_hash(d, e->out_dtypes, e->n_out_dtypes, o->h_dout, dtc);
	if (a2a) {
		o->alltoall = true;
		o->in_numel += fr_numel(d, e, false);
		o->out_numel += fr_numel(d, e, true);
	}
	if (e->state != FR_COMPLETED)
		o->all_done = false;
	if (e->state == FR_STARTED || e->state == FR_COMPLETED)
		o->any_started = true;
}

/* ---- one rank's summary ---- */

static void entry_of(const frdump *d, const fr_entry *e, int pgi, frm_entry *out)
{
	*out = (frm_entry){ .record_id = e->record_id, .seq = e->collective_seq_id, .p2p_seq = e->p2p_seq_id,
			    .pg = pgi, .is_p2p = e->is_p2p, .retired = e->retired, .has_duration = e->has_duration,
			    .state = e->state, .time_created_ns = e->time_created_ns, .timeout_ms = e->timeout_ms,
			    .duration_ms = e->duration_ms };
	sig_of(d, e, &out->sig);
}

static bool torch_file(const char *f)
{
	return !*f || strstr(f, "/torch/") || !strncmp(f, "torch/", 6) || !strncmp(f, "<frozen", 7);
}

static void frame_copy(frm_frame *o, const fr_frame *f)
{
	clean(o->name, sizeof o->name, f->name);
	clean(o->file, sizeof o->file, f->file);
	o->line = f->line;
}

/* The innermost frames of e; when none of them is the user's code, the
 * last kept one gives way to the first frame that is. */
static void frames_of(const frdump *d, const fr_entry *e, frm_rank *r)
{
	r->nframes = 0;
	r->user_frame = -1;
	for (uint32_t i = 0; i < e->nframes; i++) {
		const fr_frame *f = &d->frames[d->frame_idx[e->frame0 + i]];
		bool user = !torch_file(f->file);
		if (r->nframes < FRMATCH_FRAMES) {
			frame_copy(&r->frames[r->nframes], f);
			if (user && r->user_frame < 0)
				r->user_frame = r->nframes;
			r->nframes++;
		} else if (user && r->user_frame < 0) {
			frame_copy(&r->frames[FRMATCH_FRAMES - 1], f);
			r->user_frame = FRMATCH_FRAMES - 1;
		}
		if (r->nframes == FRMATCH_FRAMES && r->user_frame >= 0)
			break;
	}
}

/* "send 0->1", "recv 1<-0", "recv 1<-?": group-local ranks. */
static bool parse_p2p(const char *op, bool *send, int64_t *me, int64_t *peer)
{
	long a, b;
	char q;
	if (sscanf(op, "send %ld->%ld", &a, &b) == 2) {
		*send = true;
		*me = a;
		*peer = b;
		return true;
	}
	if (sscanf(op, "recv %ld<-%ld", &a, &b) == 2) {
		*send = false;
		*me = a;
		*peer = b;
		return true;
	}
	if (sscanf(op, "recv %ld<-%c", &a, &q) == 2 && q == '?') {
		*send = false;
		*me = a;
		*peer = -1;
		return true;
	}
	return false;
}

static void add_p2p(frmatch *m, rinfo *ri, const frdump *d, const fr_entry *e, int pgi)
{
	bool send;
	int64_t me, peer;
	if (e->state == FR_COMPLETED || !parse_p2p(fr_op_name(e->profiling_name), &send, &me, &peer))
		return;
	if (ri->np2p >= FRMATCH_PENDING_P2P)
		return;
	/* group-local to global ranks, through the sorted members */
	if (pgi >= 0 && peer >= 0) {
		const pg *g = &m->pgs[pgi];
		peer = g->listed && (size_t)peer < g->n ? g->ranks[peer] : -1;
	}
	frm_sig sig;
	sig_of(d, e, &sig);
	ri->p2p[ri->np2p++] = (pend){ pgi, peer, send, false, e->p2p_seq_id, e->record_id,
				      send ? sig.in_numel : sig.out_numel, e->state, text_of(m, &sig) };
}

/* The local group of a name: by pointer (a dump pools its strings), then
 * by text for dumps built otherwise. */
static size_t local_of(const local *loc, size_t nl, const char *name)
{
	for (size_t k = 0; k < nl; k++)
		if (loc[k].name == name)
			return k;
	for (size_t k = 0; k < nl; k++)
		if (!strcmp(loc[k].name, name))
			return k;
	return nl;
}

int frmatch_add(frmatch *m, const frdump *d, const char *file, strbuf *err)
{
	int64_t rank = d->rank;
	if (rank < 0) {
		sb_printf(err, "%s: the dump names no rank, nor does its file name", file ? file : "dump");
		return -1;
	}
	if (rank > FRMATCH_MAX_RANK) {
		sb_printf(err, "%s: rank %lld is beyond %d", file ? file : "dump", (long long)rank, FRMATCH_MAX_RANK);
		return -1;
	}
	if ((size_t)rank < m->nranks && m->ranks[rank]) {
		sb_printf(err, "%s: a second dump of rank %lld (the first was %s)", file ? file : "dump", (long long)rank,
			  m->ranks[rank]->pub.file ? m->ranks[rank]->pub.file : "?");
		return -1;
	}
	if ((size_t)rank >= m->nranks) {
		size_t n = m->nranks ? m->nranks : 64;
		while (n <= (size_t)rank)
			n *= 2;
		m->ranks = xrealloc(m->ranks, n * sizeof *m->ranks);
		memset(m->ranks + m->nranks, 0, (n - m->nranks) * sizeof *m->ranks);
		m->nranks = n;
	}
	rinfo *ri = xcalloc(1, sizeof *ri);
	m->ranks[rank] = ri;
	frm_rank *pub = &ri->pub;
	pub->rank = rank;
	pub->has_dump = true;
	pub->file = file ? xstrdup(file) : NULL;
	pub->nentries = d->nentries;
	pub->user_frame = -1;
	clean(pub->version, sizeof pub->version, d->version);
	if (!m->version[0])
		snprintf(m->version, sizeof m->version, "%s", pub->version);
	else if (strcmp(m->version, pub->version))
		m->mixed = true;

	/* the groups of this dump: its pg_config, then names only entries give */
	size_t nl = d->npgs, lcap = d->npgs + 4;
	local *loc = xcalloc(lcap, sizeof *loc);
	for (size_t i = 0; i < d->npgs; i++) {
		const fr_pg *p = &d->pgs[i];
		int64_t *sorted = xmalloc((p->nranks + 1) * sizeof *sorted);
		if (p->nranks) {
			memcpy(sorted, p->ranks, p->nranks * sizeof *sorted);
			qsort(sorted, p->nranks, sizeof *sorted, cmp_i64);
		}
		size_t k = 0;
		for (size_t j = 0; j < p->nranks; j++)
			if (!k || sorted[j] != sorted[k - 1])
				sorted[k++] = sorted[j];
		loc[i].name = p->name;
		loc[i].pg = pg_find(m, p->name, p->desc, sorted, k, p->ranks_ok && k > 0);
		free(sorted);
		loc[i].me = loc[i].pg >= 0 ? pg_member(&m->pgs[loc[i].pg], rank) : NULL;
		loc[i].o.seq = -1;
		loc[i].pg_id = -1;
	}
	size_t li = 0;
	const fr_entry *pending = NULL;
	opinfo opc[OPCACHE] = { 0 };
	dtcache dtc[DTCACHE] = { 0 };
	for (size_t i = 0; i < d->nentries; i++) {
		const fr_entry *e = &d->entries[i];
		if (li >= nl || loc[li].name != e->pg_name)
			li = local_of(loc, nl, e->pg_name);
		if (li == nl) {
			if (nl == lcap) {
				lcap *= 2;
				loc = xrealloc(loc, lcap * sizeof *loc);
			}
			loc[nl].name = e->pg_name;
			loc[nl].pg = pg_find(m, e->pg_name, e->pg_desc, NULL, 0, false);
			loc[nl].me = loc[nl].pg >= 0 ? pg_member(&m->pgs[loc[nl].pg], rank) : NULL;
			loc[nl].o.seq = -1;
			loc[nl].pg_id = -1;
			li = nl++;
		}
		local *l = &loc[li];
		if (e->pg_id >= 0)
			l->pg_id = e->pg_id;
		int64_t t = e->time_created_ns;
		if (e->time_started_ns > t)
			t = e->time_started_ns;
		if (e->time_completed_ns > t)
			t = e->time_completed_ns;
		if (t > pub->latest_ns)
			pub->latest_ns = t;
		if (!pending && e->state != FR_COMPLETED)
			pending = e;
		if (!pub->timed_out && e->retired && e->state != FR_COMPLETED) {
			pub->timed_out = true;
			entry_of(d, e, l->pg, &pub->timeout);
		}
		if (e->is_p2p)
			add_p2p(m, ri, d, e, l->pg);
		else if (e->collective_seq_id >= 0)
			accumulate(m, l, d, e, rank, opc, dtc);
	}
	for (size_t k = 0; k < nl; k++)
		flush(m, &loc[k], d, rank);
	/* pg_status: the watchdog's counters, beyond what the ring still holds.
	 * Its keys are ProcessGroupNCCL uids, which only entries tie to a group;
	 * when one status and one listed group are left untied, they go
	 * together (the default group whose entries left the ring, usually). */
	int64_t *ids = xmalloc((d->nstatus + 1) * sizeof *ids);
	size_t untied = 0, last_untied = 0;
	for (size_t i = 0; i < d->nstatus; i++) {
		char *end;
		ids[i] = strtoll(d->status[i].pg_id, &end, 10);
		if (end == d->status[i].pg_id || *end)
			ids[i] = -1;
		bool tied = false;
		for (size_t k = 0; k < nl && !tied; k++)
			tied = ids[i] >= 0 && loc[k].pg_id == ids[i];
		if (!tied && ids[i] >= 0) {
			untied++;
			last_untied = i;
		}
	}
	if (untied == 1) {
		size_t free_k = nl, nfree = 0;
		for (size_t k = 0; k < d->npgs; k++)
			if (loc[k].pg_id < 0 && loc[k].me) {
				free_k = k;
				nfree++;
			}
		if (nfree == 1)
			loc[free_k].pg_id = ids[last_untied];
	}
	for (size_t i = 0; i < d->nstatus; i++) {
		const fr_pg_status *s = &d->status[i];
		for (size_t k = 0; k < nl; k++) {
			member *me = loc[k].me;
			if (ids[i] < 0 || loc[k].pg_id != ids[i] || !me)
				continue;
			me->seen = true;
			if (s->last_enqueued > me->enq)
				me->enq = s->last_enqueued;
			if (s->last_started > me->start)
				me->start = s->last_started;
			if (s->last_completed > me->done)
				me->done = s->last_completed;
		}
	}
	free(ids);
	/* a ring that never wrapped holds every collective this rank called:
	 * a group absent from it was never used here */
	bool wrapped = d->nentries && d->entries[0].record_id > 0;
	if (!wrapped)
		for (size_t k = 0; k < nl; k++)
			if (loc[k].me)
				loc[k].me->seen = true;
	size_t first = d->nentries > FRMATCH_LAST ? d->nentries - FRMATCH_LAST : 0;
	for (size_t i = first; i < d->nentries; i++) {
		const fr_entry *e = &d->entries[i];
		size_t k = local_of(loc, nl, e->pg_name);
		entry_of(d, e, k < nl ? loc[k].pg : -1, &pub->last[pub->nlast++]);
	}
	if (pending) {
		pub->has_pending = true;
		size_t k = local_of(loc, nl, pending->pg_name);
		entry_of(d, pending, k < nl ? loc[k].pg : -1, &pub->pending);
		frames_of(d, pending, pub);
	} else if (d->nentries) {
		frames_of(d, &d->entries[d->nentries - 1], pub);
	}
	if (pub->latest_ns > m->latest_ns)
		m->latest_ns = pub->latest_ns;
	free(loc);
	return 0;
}

/* ---- the report ---- */

static void push_rank(int64_t **arr, size_t *n, int64_t r)
{
	if ((*n & (*n - 1)) == 0)
		*arr = xrealloc(*arr, (*n ? *n * 2 : 4) * sizeof **arr);
	(*arr)[(*n)++] = r;
}

static bool dumped(const frmatch *m, int64_t r)
{
	return r >= 0 && (size_t)r < m->nranks && m->ranks[r];
}

static variant *var_at(slot *s, int i)
{
	return i ? &s->more[i - 1] : &s->v0;
}

/* The variant most ranks called; on a tie, the one with the lowest rank. */
static int majority(slot *s)
{
	int best = 0;
	for (int i = 1; i < s->nvar; i++) {
		variant *v = var_at(s, i), *b = var_at(s, best);
		if (v->count > b->count || (v->count == b->count && v->nex && b->nex && v->ex[0] < b->ex[0]))
			best = i;
	}
	return best;
}

static void add_mismatch(frm_pg *o, int64_t seq, frm_kind kind, const frmatch *m, const variant *exp,
			 const variant *got)
{
	o->nmm_total++;
	if (o->nmm >= FRMATCH_REPORTED)
		return;
	if (!o->mm)
		o->mm = xcalloc(FRMATCH_REPORTED, sizeof *o->mm);
	frm_mismatch *x = &o->mm[o->nmm++];
	x->seq = seq;
	x->kind = kind;
	sig_from_text(m, exp->text, &x->expected);
	x->expected_count = exp->count;
	x->expected_rank = exp->nex ? exp->ex[0] : -1;
	sig_from_text(m, got->text, &x->found);
	for (uint8_t i = 0; i < got->nex; i++)
		x->ranks[x->nranks++] = got->ex[i];
	x->nranks_total = got->count;
}

static void mismatches(const frmatch *m, pg *g, frm_pg *o, size_t ndumped)
{
	if (!g->any)
		return;
	for (int64_t s = g->lo; s <= g->hi; s++) {
		slot *sl = &g->ring[(size_t)s & (g->rcap - 1)];
		if (sl->seq != s)
			continue;
		int best = majority(sl);
		variant *b = var_at(sl, best);
		for (int i = 0; i < sl->nvar; i++) {
			variant *v = var_at(sl, i);
			if (i != best) {
				frm_kind k = v->h_op != b->h_op				      ? FRM_OP
					     : v->h_in != b->h_in || v->h_out != b->h_out ? FRM_SIZES
											  : FRM_DTYPES;
				add_mismatch(o, s, k, m, b, v);
			}
			if (v->numel_bad)
				add_mismatch(o, s, FRM_NUMEL, m, v, v);
		}
		if (sl->alltoall && !sl->alltoall_old && sl->contrib == ndumped && sl->sum_in != sl->sum_out)
			add_mismatch(o, s, FRM_ALLTOALL, m, b, b);
	}
}

static void stuck_sig(const frmatch *m, pg *g, frm_pg *o)
{
	if (g->any && o->stuck_seq >= g->lo && o->stuck_seq <= g->hi) {
		slot *sl = &g->ring[(size_t)o->stuck_seq & (g->rcap - 1)];
		if (sl->seq == o->stuck_seq) {
			int best = majority(sl);
			if (var_at(sl, best)->text >= 0) {
				sig_from_text(m, var_at(sl, best)->text, &o->stuck_sig);
				o->stuck_sig_known = true;
			}
			o->stuck_created_ns = sl->t_min;
		}
	}
}

static void group_report(const frmatch *m, size_t gi, frm_pg *o)
{
	pg *g = &m->pgs[gi];
	o->name = xstrdup(g->name);
	o->desc = xstrdup(g->desc);
	o->nmembers = g->n;
	o->members = g->n ? xcalloc(g->n, sizeof *o->members) : NULL;
	o->dropped = g->dropped;
	o->max_completed = -1;
	int64_t min_done = INT64_MAX;
	bool any = false;
	size_t ndumped = 0;
	for (size_t i = 0; i < g->n; i++) {
		const member *me = &g->mem[i];
		frm_member *x = &o->members[i];
		*x = (frm_member){ me->rank, dumped(m, me->rank), me->enq, me->start, me->done, FRM_UNKNOWN,
				   FR_STATE_UNKNOWN };
		if (!x->has_dump) {
			x->standing = FRM_NODUMP;
			push_rank(&o->nodump, &o->nnodump, me->rank);
			continue;
		}
		ndumped++;
		if (!me->seen) {
			push_rank(&o->unknown, &o->nunknown, me->rank);
			continue;
		}
		any = true;
		if (me->done < min_done)
			min_done = me->done;
		if (me->done > o->max_completed)
			o->max_completed = me->done;
	}
	if (any) {
		/* the first collective after the least any member completed; with
		 * none completed (-1), the first one: seq 1 in PyTorch, 0 in writers
		 * that count from 0 */
		int64_t s = min_done + 1;
		if (s == 0 && !(g->any && g->lo == 0))
			s = 1;
		for (size_t i = 0; i < g->n; i++)
			if (o->members[i].has_dump && g->mem[i].seen && g->mem[i].enq >= s)
				o->stuck = true;
		o->stuck_seq = o->stuck ? s : -1;
		for (size_t i = 0; i < g->n; i++) {
			frm_member *x = &o->members[i];
			const member *me = &g->mem[i];
			if (!x->has_dump || !me->seen)
				continue;
			if (me->done < o->max_completed)
				push_rank(&o->behind, &o->nbehind, me->rank);
			if (!o->stuck)
				continue;
			if (me->done >= s) {
				x->standing = FRM_AHEAD;
				x->state = FR_COMPLETED;
				o->n_ahead++;
			} else if (me->enq >= s) {
				x->standing = FRM_INSIDE;
				x->state = me->start >= s ? FR_STARTED : FR_SCHEDULED;
				o->n_inside++;
			} else {
				x->standing = FRM_MISSING;
				push_rank(&o->missing, &o->nmissing, me->rank);
			}
		}
	} else {
		o->stuck_seq = -1;
	}
	if (o->stuck)
		stuck_sig(m, g, o);
	mismatches(m, g, o, ndumped);
}

static void p2p_report(frmatch *m, frmatch_report *r)
{
	for (size_t a = 0; a < m->nranks; a++) {
		rinfo *ra = m->ranks[a];
		if (!ra)
			continue;
		for (int i = 0; i < ra->np2p; i++) {
			pend *p = &ra->p2p[i];
			if (!p->send || p->paired || p->peer < 0 || !dumped(m, p->peer))
				continue;
			rinfo *rb = m->ranks[p->peer];
			for (int k = 0; k < rb->np2p; k++) {
				pend *q = &rb->p2p[k];
				if (q->send || q->paired || q->pg != p->pg || (q->peer != (int64_t)a && q->peer >= 0))
					continue;
				p->paired = q->paired = true;
				if (p->numel != q->numel) {
					r->np2p_total++;
					if (r->np2p < REPORTED_P2P) {
						frm_p2p *x = &r->p2p[r->np2p++];
						*x = (frm_p2p){ .pg = p->pg, .rank = (int64_t)a, .peer = p->peer, .send = true,
								.p2p_seq = p->p2p_seq, .record_id = p->record_id,
								.state = p->state };
						sig_from_text(m, p->text, &x->sig);
						x->peer_has_dump = true;
						x->size_mismatch = true;
						sig_from_text(m, q->text, &x->peer_sig);
					}
				}
				break;
			}
		}
	}
	for (size_t a = 0; a < m->nranks; a++) {
		rinfo *ra = m->ranks[a];
		if (!ra)
			continue;
		for (int i = 0; i < ra->np2p; i++) {
			pend *p = &ra->p2p[i];
			if (p->paired)
				continue;
			r->np2p_total++;
			if (r->np2p >= REPORTED_P2P)
				continue;
			frm_p2p *x = &r->p2p[r->np2p++];
			*x = (frm_p2p){ .pg = p->pg, .rank = (int64_t)a, .peer = p->peer, .send = p->send,
					.p2p_seq = p->p2p_seq, .record_id = p->record_id, .state = p->state };
			sig_from_text(m, p->text, &x->sig);
			x->peer_has_dump = dumped(m, p->peer);
		}
	}
}

static int cmp_rank(const void *a, const void *b)
{
	const frm_rank *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int pg_cmp(const pg *a, const pg *b)
{
	if (all_digits(a->name) && all_digits(b->name)) {
		size_t la = strlen(a->name), lb = strlen(b->name);
		if (la != lb)
			return la < lb ? -1 : 1;
	}
	int c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->n && b->n && a->ranks[0] != b->ranks[0])
		return a->ranks[0] < b->ranks[0] ? -1 : 1;
	return (a->n > b->n) - (a->n < b->n);
}

static int pg_ptr_cmp(const void *a, const void *b)
{
	return pg_cmp(*(const pg *const *)a, *(const pg *const *)b);
}

/* The report lists groups in a fixed order, whatever order dumps came in. */
static size_t *pg_order(const frmatch *m)
{
	const pg **p = xmalloc((m->npgs + 1) * sizeof *p);
	for (size_t i = 0; i < m->npgs; i++)
		p[i] = &m->pgs[i];
	if (m->npgs)
		qsort(p, m->npgs, sizeof *p, pg_ptr_cmp);
	size_t *ord = xmalloc((m->npgs + 1) * sizeof *ord);
	for (size_t i = 0; i < m->npgs; i++)
		ord[i] = (size_t)(p[i] - m->pgs);
	free(p);
	return ord;
}

static void remap(int *pgi, const int *inv)
{
	if (*pgi >= 0)
		*pgi = inv[*pgi];
}

void frmatch_finish(frmatch *m, frmatch_report *r)
{
	*r = (frmatch_report){ 0 };
	r->first_stuck = -1;
	r->npgs = m->npgs;
	r->pgs = m->npgs ? xcalloc(m->npgs, sizeof *r->pgs) : NULL;
	size_t *ord = pg_order(m);
	int *inv = xmalloc((m->npgs + 1) * sizeof *inv);
	for (size_t i = 0; i < m->npgs; i++) {
		inv[ord[i]] = (int)i;
		group_report(m, ord[i], &r->pgs[i]);
		const frm_pg *g = &r->pgs[i];
		if (g->stuck) {
			const frm_pg *f = r->first_stuck >= 0 ? &r->pgs[r->first_stuck] : NULL;
			if (!f || (g->stuck_created_ns && (!f->stuck_created_ns || g->stuck_created_ns < f->stuck_created_ns)))
				r->first_stuck = (int)i;
		}
	}
	/* every member without a dump, once */
	int64_t *absent = NULL;
	size_t na = 0;
	for (size_t i = 0; i < r->npgs; i++)
		for (size_t k = 0; k < r->pgs[i].nnodump; k++)
			push_rank(&absent, &na, r->pgs[i].nodump[k]);
	if (na)
		qsort(absent, na, sizeof *absent, cmp_i64);
	for (size_t i = 0; i < na; i++)
		if (!r->nabsent || absent[i] != absent[r->nabsent - 1])
			absent[r->nabsent++] = absent[i];
	r->absent = absent;
	size_t nd = 0;
	for (size_t i = 0; i < m->nranks; i++)
		nd += m->ranks[i] != NULL;
	r->ranks = xcalloc(nd + r->nabsent + 1, sizeof *r->ranks);
	for (size_t i = 0; i < m->nranks; i++)
		if (m->ranks[i]) {
			frm_rank *x = &r->ranks[r->nranks++];
			*x = m->ranks[i]->pub;
			x->file = x->file ? xstrdup(x->file) : NULL;
			for (int k = 0; k < x->nlast; k++)
				remap(&x->last[k].pg, inv);
			remap(&x->pending.pg, inv);
			remap(&x->timeout.pg, inv);
		}
	for (size_t i = 0; i < r->nabsent; i++)
		r->ranks[r->nranks++] = (frm_rank){ .rank = r->absent[i], .user_frame = -1 };
	qsort(r->ranks, r->nranks, sizeof *r->ranks, cmp_rank);
	r->p2p = xcalloc(REPORTED_P2P, sizeof *r->p2p);
	p2p_report(m, r);
	for (size_t i = 0; i < r->np2p; i++)
		remap(&r->p2p[i].pg, inv);
	free(ord);
	free(inv);
	r->mixed_versions = m->mixed;
	r->latest_ns = m->latest_ns;
	r->dropped = m->dropped;
	for (size_t i = 0; i < m->npgs; i++)
		r->dropped += m->pgs[i].dropped;
	r->texts_dropped = m->texts_dropped;
	r->pgs_dropped = m->pgs_dropped;
}

void frmatch_report_free(frmatch_report *r)
{
	for (size_t i = 0; i < r->npgs; i++) {
		frm_pg *g = &r->pgs[i];
		free(g->name);
		free(g->desc);
		free(g->members);
		free(g->missing);
		free(g->nodump);
		free(g->unknown);
		free(g->behind);
		free(g->mm);
	}
	free(r->pgs);
	for (size_t i = 0; i < r->nranks; i++)
		free(r->ranks[i].file);
	free(r->ranks);
	free(r->p2p);
	free(r->absent);
	*r = (frmatch_report){ 0 };
}

void frmatch_free(frmatch *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->npgs; i++) {
		pg *g = &m->pgs[i];
		for (size_t k = 0; k < g->rcap; k++)
			if (g->ring[k].seq >= 0)
				free(g->ring[k].more);
		free(g->ring);
		free(g->name);
		free(g->desc);
		free(g->ranks);
		free(g->mem);
	}
	free(m->pgs);
	free(m->ptab);
	free(m->tkey);
	free(m->tid);
	for (size_t i = 0; i < m->nranks; i++)
		if (m->ranks[i]) {
			free(m->ranks[i]->pub.file);
			free(m->ranks[i]);
		}
	free(m->ranks);
	intern_free(&m->texts);
	free(m);
}

const char *frm_standing_name(frm_standing s)
{
	static const char *const names[] = { "unknown", "ahead", "inside", "missing", "no-dump" };
	return (unsigned)s < 5 ? names[s] : "unknown";
}

const char *frm_kind_name(frm_kind k)
{
	static const char *const names[] = { "op", "sizes", "dtypes", "numel", "all_to_all" };
	return (unsigned)k < 5 ? names[k] : "?";
}

const frm_member *frm_pg_member(const frm_pg *g, int64_t rank)
{
	size_t lo = 0, hi = g->nmembers;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->members[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->nmembers && g->members[lo].rank == rank ? &g->members[lo] : NULL;
}

const frm_rank *frm_report_rank(const frmatch_report *r, int64_t rank)
{
	size_t lo = 0, hi = r->nranks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->ranks[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nranks && r->ranks[lo].rank == rank ? &r->ranks[lo] : NULL;
}
