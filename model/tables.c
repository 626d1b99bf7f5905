/* The keyed tables of the job model: communicators and their ranks,
 * watchdog reports, environment settings. Each is found by its key
 * through a hash and capped (model.h). A communicator's ranks live in a
 * map of its own, as big as the ranks the logs showed: a crafted nranks
 * costs nothing. */
#include "model.h"

#include <stdlib.h>

typedef struct ckey {
	const model *m;
	int key;
} ckey;

static bool comm_eq(const void *ctx, int i)
{
	const ckey *k = ctx;
	return k->m->comms[i].key == k->key;
}

static comm *comm_find(const model *m, int key, uint64_t h)
{
	ckey k = { m, key };
	int i = hashidx_find(&m->commidx, h, comm_eq, &k);
	return i >= 0 ? &m->comms[i] : NULL;
}

comm *model_comm_find(const model *m, int key)
{
	if (m->lastcomm < m->ncomms && m->comms[m->lastcomm].key == key)
		return &m->comms[m->lastcomm];
	return comm_find(m, key, siphash_ints(&m->hkey, (uint32_t)key, 0));
}

comm *model_comm_get(model *m, int key, int nranks)
{
	if (m->lastcomm < m->ncomms && m->comms[m->lastcomm].key == key)
		return &m->comms[m->lastcomm];
	uint64_t h = siphash_ints(&m->hkey, (uint32_t)key, 0);
	comm *c = comm_find(m, key, h);
	if (c) {
		m->lastcomm = (size_t)(c - m->comms);
		return c;
	}
	if (m->ncomms >= MODEL_MAX_COMMS) {
		model_drop(m, CAP_COMMS);
		return NULL;
	}
	grow(&m->comms, &m->commcap, m->ncomms, sizeof *m->comms);
	c = &m->comms[m->ncomms];
	*c = (comm){ 0 };
	c->key = key;
	c->nranks = nranks;
	c->hk = m->hkey;
	hashidx_put(&m->commidx, h, (int)m->ncomms);
	m->lastcomm = m->ncomms++;
	return c;
}

int model_comm_key(model *m, slice name)
{
	if (m->lastcomm < m->ncomms) {
		int k = m->comms[m->lastcomm].key;
		if (slice_eq(intern_slice(&m->str, k), name))
			return k;
	}
	return intern_get(&m->str, name);
}

/* In a dense map the flags of a rank also say that it is held, and that
 * its process is known (rp[rank] is set only then). */
enum { CR_HELD = 4, CR_PROC = 8 };

static size_t rank_slot(const comm *c, int rank)
{
	size_t i = (size_t)siphash_ints(&c->hk, (uint32_t)rank, 1) & (c->rkcap - 1);
	while (c->rk[i].rank >= 0 && c->rk[i].rank != rank)
		i = (i + 1) & (c->rkcap - 1);
	return i;
}

static const commrank *rank_find(const comm *c, int rank)
{
	if (!c->rkcap || rank < 0)
		return NULL;
	/* a rank has one slot: the last one is it when it holds that rank */
	if (c->lastrk < c->rkcap && c->rk[c->lastrk].rank == rank)
		return &c->rk[c->lastrk];
	const commrank *r = &c->rk[rank_slot(c, rank)];
	return r->rank >= 0 ? r : NULL;
}

/* The hashed ranks moved to a map by rank: what a map of cap slots would
 * cost, or less. */
static void comm_densify(comm *c)
{
	c->rf = xcalloc((size_t)c->nranks, 1);
	c->rp = xmalloc((size_t)c->nranks * sizeof *c->rp);
	for (size_t i = 0; i < c->rkcap; i++) {
		const commrank *r = &c->rk[i];
		if (r->rank < 0)
			continue;
		c->rf[r->rank] = (unsigned char)(r->flags | CR_HELD | (r->proc >= 0 ? CR_PROC : 0));
		c->rp[r->rank] = r->proc;
	}
	free(c->rk);
	c->rk = NULL;
	c->rkcap = c->lastrk = 0;
}

/* A rank of a dense map, marked. */
static bool dense_mark(model *m, comm *c, int rank, unsigned flags, int pi)
{
	unsigned char *f = &c->rf[rank];
	if (!(*f & CR_HELD)) {
		if (m->ncommranks >= MODEL_MAX_COMM_RANKS) {
			model_drop(m, CAP_COMM_RANKS);
			return false;
		}
		*f = CR_HELD;
		c->nrk++;
		m->ncommranks++;
	}
	if ((flags & CR_SEEN) && !(*f & CR_SEEN))
		c->nseen++;
	if ((flags & CR_DONE) && !(*f & CR_DONE))
		c->ndone++;
	*f |= (unsigned char)(flags & (CR_SEEN | CR_DONE));
	if (pi >= 0 && !(*f & CR_PROC)) {
		c->rp[rank] = pi;
		*f |= CR_PROC;
	}
	return true;
}

bool model_comm_mark(model *m, comm *c, int rank, unsigned flags, int pi)
{
	/* a later part's communicator has the size of its first line there,
	 * which may not be the first line of all: the merge judges its ranks
	 * by the size the earlier parts gave it */
	if (rank < 0 || rank >= (m->partial ? MODEL_RANKS_MAX : c->nranks))
		return false;
	if (c->rf) /* never a part's: its ranks lie below nranks */
		return rank < c->nranks && dense_mark(m, c, rank, flags, pi);
	commrank *r = (commrank *)rank_find(c, rank);
	if (!r) {
		if (m->ncommranks >= MODEL_MAX_COMM_RANKS) {
			model_drop(m, CAP_COMM_RANKS);
			return false;
		}
		if ((c->nrk + 1) * 2 > c->rkcap) {
			size_t cap = c->rkcap ? c->rkcap * 2 : 8;
			/* a map by rank once it is no bigger than the hashed one would
			 * be (a part's ranks may lie past nranks: it stays hashed). The
			 * ranks of one communicator are met far apart in the input,
			 * one file each: by rank, a mark reads one byte, often cached,
			 * where a hashed one read two slots that rarely are. */
			if (!m->partial && (size_t)c->nranks * (1 + sizeof *c->rp) <= cap * sizeof *c->rk) {
				comm_densify(c);
				return dense_mark(m, c, rank, flags, pi);
			}
			commrank *old = c->rk;
			size_t oldcap = c->rkcap;
			c->rkcap = cap;
			c->rk = xmalloc(c->rkcap * sizeof *c->rk);
			for (size_t i = 0; i < c->rkcap; i++)
				c->rk[i].rank = -1;
			for (size_t i = 0; i < oldcap; i++)
				if (old[i].rank >= 0)
					c->rk[rank_slot(c, old[i].rank)] = old[i];
			free(old);
		}
		r = &c->rk[rank_slot(c, rank)];
		*r = (commrank){ rank, -1, 0 };
		c->nrk++;
		m->ncommranks++;
	}
	c->lastrk = (size_t)(r - c->rk);
	if ((flags & CR_SEEN) && !(r->flags & CR_SEEN))
		c->nseen++;
	if ((flags & CR_DONE) && !(r->flags & CR_DONE))
		c->ndone++;
	r->flags |= flags;
	if (pi >= 0 && r->proc < 0)
		r->proc = pi;
	return true;
}

int model_comm_proc(const comm *c, int rank)
{
	if (c->rf)
		return rank >= 0 && rank < c->nranks && (c->rf[rank] & CR_PROC) ? c->rp[rank] : -1;
	const commrank *r = rank_find(c, rank);
	return r ? r->proc : -1;
}

bool model_comm_has(const comm *c, int rank, unsigned flags)
{
	if (c->rf)
		return rank >= 0 && rank < c->nranks && (c->rf[rank] & CR_HELD) && (c->rf[rank] & flags) == flags;
	const commrank *r = rank_find(c, rank);
	return r && (r->flags & flags) == flags;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

size_t model_comm_ranks(const comm *c, unsigned flags, int **out)
{
	int *v = xmalloc((c->nrk ? c->nrk : 1) * sizeof *v);
	size_t n = 0;
	if (c->rf) {
		/* in order already */
		for (int r = 0; r < c->nranks; r++)
			if ((c->rf[r] & CR_HELD) && (c->rf[r] & flags) == flags)
				v[n++] = r;
		*out = v;
		return n;
	}
	for (size_t i = 0; i < c->rkcap; i++)
		if (c->rk[i].rank >= 0 && (c->rk[i].flags & flags) == flags)
			v[n++] = c->rk[i].rank;
	/* slots are in hash order: the callers see ranks in order */
	qsort(v, n, sizeof *v, cmp_int);
	*out = v;
	return n;
}

/* ---- watchdog reports by (process, rank), settings by (process, variable) ---- */

typedef struct pkey {
	const model *m;
	int proc, k;
} pkey;

static uint64_t pair_hash(const model *m, int a, int b)
{
	return siphash_ints(&m->hkey, (uint32_t)a, (uint32_t)b);
}

static bool wd_eq(const void *ctx, int i)
{
	const pkey *q = ctx;
	return q->m->wd[i].proc == q->proc && q->m->wd[i].pgrank == q->k;
}

wdog *model_wdog_find(const model *m, int pi, int pgrank)
{
	pkey q = { m, pi, pgrank };
	int i = hashidx_find(&m->wdidx, pair_hash(m, pi, pgrank), wd_eq, &q);
	return i >= 0 ? &m->wd[i] : NULL;
}

void model_wdog_indexed(model *m, int i)
{
	hashidx_put(&m->wdidx, pair_hash(m, m->wd[i].proc, m->wd[i].pgrank), i);
}

static bool env_eq(const void *ctx, int i)
{
	const pkey *q = ctx;
	return q->m->env[i].proc == q->proc && q->m->env[i].var == q->k;
}

envset *model_env_find(const model *m, int pi, int var)
{
	pkey q = { m, pi, var };
	int i = hashidx_find(&m->envidx, pair_hash(m, pi, var), env_eq, &q);
	return i >= 0 ? &m->env[i] : NULL;
}

void model_env_indexed(model *m, int i)
{
	hashidx_put(&m->envidx, pair_hash(m, m->env[i].proc, m->env[i].var), i);
}
