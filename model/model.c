#include "model.h"
#include "frmatch.h"
#include "system.h"
#include "../parser/join.h"
#include "../parser/lines.h"
#include "../util/ipaddr.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define X(e, s) s,
const char *const model_tag_names[] = { MODEL_TAGS(X) NULL };
#undef X

/* Format tells: line shapes that only some NCCL versions print. */
enum {
	FMT_BOOT_SPACE = 1,   /* "Bootstrap : Using" (<= 2.23) */
	FMT_BOOT_NOSPACE = 2, /* "Bootstrap: Using" (2.24+) */
	FMT_WARN_TS = 4,      /* timestamped WARN (2.26.2+) */
	FMT_WARN_FUNC = 8,    /* WARN with (func) (2.30.7) */
};

const char *phase_name(enum phase p)
{
	static const char *names[] = { "started", "bootstrap", "init-start", "topology",
				       "channel-connect", "connected", "init-complete", "running" };
	return names[p];
}

struct procidx;
static void pidx_free(struct procidx *x);

void model_init(model *m, const catalog *cat)
{
	hashkey k;
	hashkey_random(&k);
	model_init_keyed(m, cat, &k);
}

/* The labels of the keys a model derives from its own. */
enum { KEY_STRINGS = 1 };

void model_init_keyed(model *m, const catalog *cat, const hashkey *key)
{
	*m = (model){ 0 };
	m->cat = cat;
	m->hkey = *key;
	hashkey sk;
	hashkey_child(&sk, key, KEY_STRINGS);
	intern_init_keyed(&m->str, &sk);
	m->cur_proc = -1;
	m->tagless.file = -1;
	m->snap_seq = -2;
	m->msg_file = m->msg_proc = -1;
	m->last.file = -1;
}

static void evref_free(evref *e)
{
	free(e->text);
	e->text = NULL;
}

void model_free(model *m)
{
	system_free(m);
	for (size_t i = 0; i < m->nin && !m->in_borrowed; i++)
		free(m->in[i].name);
	if (!m->in_borrowed)
		free(m->in);
	for (size_t i = 0; i < m->nprocs; i++) {
#define X(name) evref_free(&m->procs[i].ev_##name);
		PROC_EVIDENCE(X)
#undef X
		evref_free(&m->procs[i].ev_unplaced);
	}
	free(m->procs);
	for (size_t i = 0; i < m->ncomms; i++) {
		free(m->comms[i].rk);
		free(m->comms[i].rf);
		free(m->comms[i].rp);
		evref_free(&m->comms[i].ev);
	}
	free(m->comms);
	hashidx_free(&m->commidx);
	for (size_t i = 0; i < m->nwd; i++)
		evref_free(&m->wd[i].ev);
	free(m->wd);
	hashidx_free(&m->wdidx);
	for (size_t i = 0; i < m->nenv; i++)
		evref_free(&m->env[i].ev);
	free(m->env);
	hashidx_free(&m->envidx);
	evref_free(&m->ev_cap);
	free(m->streams);
	pidx_free(m->pidx);
	evref_free(&m->ev_killed);
	evref_free(&m->ev_excerpt);
	intset_free(&m->table_hosts);
	if (m->fr) {
		frmatch_report_free(m->fr);
		free(m->fr);
	}
	findings_free(&m->fs);
	intern_free(&m->str);
	*m = (model){ 0 };
}

/* "rank3.log", "log.rank-12.txt": the rank a per-rank file name gives. */
static int rank_from_name(const char *name)
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	for (const char *p = base; (p = strstr(p, "rank"));) {
		p += 4;
		while (*p == '-' || *p == '_' || *p == '.')
			p++;
		if (*p >= '0' && *p <= '9')
			return atoi(p);
	}
	return -1;
}

bool model_has_content(const model *m)
{
	return m->nccl_records || m->matched || m->fr || m->fs.n || m->nsys || m->nnt;
}

void model_take_fr(model *m, struct frmatch_report *r)
{
	if (m->fr) {
		frmatch_report_free(m->fr);
		free(m->fr);
	}
	m->fr = r;
}

int model_input_find(const model *m, const char *name)
{
	for (size_t i = 0; i < m->nin; i++)
		if (strcmp(m->in[i].name, name) == 0)
			return (int)i;
	return -1;
}

int model_add_input(model *m, const char *name)
{
	grow(&m->in, &m->incap, m->nin, sizeof *m->in);
	input *in = &m->in[m->nin];
	*in = (input){ 0 };
	in->name = xstrdup(name);
	in->frank = rank_from_name(name);
	return (int)m->nin++;
}

void model_borrow_inputs(model *m, const model *from)
{
	m->in = from->in;
	m->nin = from->nin;
	m->in_borrowed = true;
	m->own_file = -1;
}

static void own_init(model *m, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const input *in = &m->in[(size_t)m->own_file + i];
		m->own[i] = (input){ .name = in->name, .frank = in->frank };
	}
}

input *model_input_counts(model *m, int file)
{
	if (!m->in_borrowed)
		return &m->in[file];
	if (!m->nown)
		m->own_file = file;
	if (file < m->own_file) {
		/* a reader reads its inputs in order: this is for any other use */
		size_t by = (size_t)(m->own_file - file);
		m->own = xrealloc(m->own, (m->nown + by) * sizeof *m->own);
		memmove(m->own + by, m->own, m->nown * sizeof *m->own);
		m->own_file = file;
		own_init(m, 0, by);
		m->nown += by;
	}
	size_t i = (size_t)(file - m->own_file);
	if (i >= m->nown) {
		m->own = xrealloc(m->own, (i + 1) * sizeof *m->own);
		own_init(m, m->nown, i + 1);
		m->nown = i + 1;
	}
	return &m->own[i];
}

/* Records the line being fed, once. */
static void evref_here(model *m, evref *e)
{
	if (e->text)
		return;
	e->file = m->cur_file;
	e->line = m->cur_line;
	e->off = m->cur_off;
	e->text = xstrndup(m->cur_text.p, m->cur_text.n < 512 ? m->cur_text.n : 512);
}

void model_proc_init(proc *p)
{
	*p = (proc){ 0 };
#define X(type, name, init, merge, f) p->name = init;
	PROC_FACTS(X)
#undef X
	/* no interface: id 0 is an interned string like any other */
	p->boot = p->oob = (iface){ -1, -1 };
}

/* A new process; -1 past MODEL_MAX_PROCS (counted). */
static int proc_new(model *m, int host, long pid, int file)
{
	if (m->nprocs >= MODEL_MAX_PROCS) {
		model_drop(m, CAP_PROCS);
		return -1;
	}
	/* a rank file's model (one a file when read on threads) holds one
	 * process: room for eight would be 13 KB to clear for each */
	grow_from(&m->procs, &m->proccap, m->nprocs, sizeof *m->procs, 1);
	proc *p = &m->procs[m->nprocs];
	model_proc_init(p);
	p->host = host;
	p->pid = pid;
	p->file = file;
	p->frank = m->in[file].frank;
	m->gen++;
	return (int)m->nprocs++;
}

int model_add_proc(model *m, const char *host, long pid, int file)
{
	return proc_new(m, host ? intern_get(&m->str, slice_from(host)) : -1, pid, file);
}

static size_t stream_slot(const model *m, int file, int tag)
{
	size_t i = (size_t)siphash_ints(&m->hkey, (uint32_t)file, (uint32_t)tag) & (m->streamcap - 1);
	while (m->streams[i].proc >= 0 && !(m->streams[i].file == file && m->streams[i].tag == tag))
		i = (i + 1) & (m->streamcap - 1);
	return i;
}

static stream *stream_find(model *m, int file, int tag)
{
	if (!m->streamcap)
		return NULL;
	stream *s = &m->streams[stream_slot(m, file, tag)];
	return s->proc >= 0 ? s : NULL;
}

static void stream_set(model *m, int file, int tag, int pi)
{
	if (m->nstreams * 2 >= m->streamcap) {
		stream *old = m->streams;
		size_t oldcap = m->streamcap;
		m->streamcap = oldcap ? oldcap * 2 : 64;
		m->streams = xmalloc(m->streamcap * sizeof *m->streams);
		for (size_t i = 0; i < m->streamcap; i++)
			m->streams[i].proc = -1;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].proc >= 0)
				m->streams[stream_slot(m, old[i].file, old[i].tag)] = old[i];
		free(old);
	}
	stream *s = &m->streams[stream_slot(m, file, tag)];
	if (s->proc < 0)
		m->nstreams++;
	*s = (stream){ file, tag, pi };
	m->gen++;
}

/* What model_guess_proc asks of the processes, indexed so that a guess
 * costs a few probes whatever their number: the processes of NCCL's
 * prefix (with a pid) of each input, in creation order, and the same by
 * (input, rank or launcher rank). Processes never change their input; a
 * process that gets its pid, rank or launcher rank after it was indexed
 * is told by model_proc_keyed. */
struct pislot {
	int file;     /* -1: empty */
	intset real;  /* its processes with a pid */
};
struct prslot {
	int file, val; /* file -1: empty */
	intset procs;  /* processes of file whose rank or launcher rank is val */
};
typedef struct procidx {
	size_t indexed;
	struct pislot *slot; /* file -1 = empty */
	size_t slotcap, nslots; /* a power of two */
	struct prslot *rk;
	size_t rkcap, nrk, rklive; /* slots used (with emptied sets), sets not empty */
	int *ix;              /* [2 * proc]: the rank and launcher rank it is indexed under; -2: no pid */
	size_t ixcap;
	/* and NCCL's processes by (host, pid): proc -1 = empty */
	struct pkslot { int host, proc; long pid; } *key;
	size_t keycap, nkeys;
	hashkey hk; /* the model's: pids and ranks come from the input */
} procidx;

static struct pkslot *pkey_slot(const procidx *x, int host, long pid)
{
	size_t i = (size_t)siphash_ints(&x->hk, (uint32_t)host, (uint64_t)pid) & (x->keycap - 1);
	while (x->key[i].proc >= 0 && !(x->key[i].host == host && x->key[i].pid == pid))
		i = (i + 1) & (x->keycap - 1);
	return &x->key[i];
}

/* Keys procs[pi] by its host and pid; the newest process of a key wins. */
static void pkey_add(procidx *x, const model *m, int pi)
{
	if ((x->nkeys + 1) * 2 > x->keycap) {
		struct pkslot *old = x->key;
		size_t oldcap = x->keycap;
		x->keycap = oldcap ? oldcap * 2 : 64;
		x->key = xmalloc(x->keycap * sizeof *x->key);
		for (size_t i = 0; i < x->keycap; i++)
			x->key[i].proc = -1;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].proc >= 0)
				*pkey_slot(x, old[i].host, old[i].pid) = old[i];
		free(old);
	}
	const proc *p = &m->procs[pi];
	struct pkslot *sl = pkey_slot(x, p->host, p->pid);
	if (sl->proc < 0)
		x->nkeys++;
	if (sl->proc < pi)
		*sl = (struct pkslot){ p->host, pi, p->pid };
}

static struct pislot *pidx_slot(const procidx *x, int file)
{
	size_t i = (size_t)((uint32_t)file * 0x9e3779b9u) & (x->slotcap - 1);
	while (x->slot[i].file >= 0 && x->slot[i].file != file)
		i = (i + 1) & (x->slotcap - 1);
	return &x->slot[i];
}

static struct pislot *pidx_file(procidx *x, int file)
{
	if ((x->nslots + 1) * 2 > x->slotcap) {
		struct pislot *old = x->slot;
		size_t oldcap = x->slotcap;
		x->slotcap = oldcap ? oldcap * 2 : 64;
		x->slot = xmalloc(x->slotcap * sizeof *x->slot);
		for (size_t i = 0; i < x->slotcap; i++)
			x->slot[i].file = -1;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].file >= 0)
				*pidx_slot(x, old[i].file) = old[i];
		free(old);
	}
	struct pislot *sl = pidx_slot(x, file);
	if (sl->file < 0) {
		*sl = (struct pislot){ .file = file };
		x->nslots++;
	}
	return sl;
}

static struct prslot *prank_slot(const procidx *x, int file, int val)
{
	size_t i = (size_t)siphash_ints(&x->hk, (uint32_t)file, (uint64_t)(uint32_t)val) & (x->rkcap - 1);
	while (x->rk[i].file >= 0 && !(x->rk[i].file == file && x->rk[i].val == val))
		i = (i + 1) & (x->rkcap - 1);
	return &x->rk[i];
}

/* The table again, as big as its sets that are not empty need: slots of
 * emptied sets stay until then, so ranks that keep changing cost no more
 * than the processes. */
static void prank_rehash(procidx *x)
{
	struct prslot *old = x->rk;
	size_t oldcap = x->rkcap;
	x->rkcap = 64;
	while (x->rkcap < (x->rklive + 1) * 4)
		x->rkcap *= 2;
	x->rk = xmalloc(x->rkcap * sizeof *x->rk);
	for (size_t i = 0; i < x->rkcap; i++)
		x->rk[i].file = -1;
	x->nrk = 0;
	for (size_t i = 0; i < oldcap; i++) {
		if (old[i].file < 0)
			continue;
		if (!old[i].procs.n) {
			intset_free(&old[i].procs);
			continue;
		}
		*prank_slot(x, old[i].file, old[i].val) = old[i];
		x->nrk++;
	}
	free(old);
}

static void prank_add(procidx *x, int file, int val, int pi)
{
	if ((x->nrk + 1) * 2 > x->rkcap)
		prank_rehash(x);
	struct prslot *sl = prank_slot(x, file, val);
	if (sl->file < 0) {
		*sl = (struct prslot){ .file = file, .val = val };
		x->nrk++;
	}
	if (!sl->procs.n)
		x->rklive++;
	intset_add(&sl->procs, pi);
}

static void prank_del(procidx *x, int file, int val, int pi)
{
	struct prslot *sl = x->rkcap ? prank_slot(x, file, val) : NULL;
	if (!sl || sl->file < 0)
		return;
	size_t n = sl->procs.n;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (sl->procs.v[mid] < pi)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || sl->procs.v[lo] != pi)
		return;
	memmove(sl->procs.v + lo, sl->procs.v + lo + 1, (n - lo - 1) * sizeof *sl->procs.v);
	if (!--sl->procs.n)
		x->rklive--;
}

/* Indexes procs[pi] as it is now: under its file once it has a pid, and
 * under its rank and launcher rank there. */
static void pidx_index(procidx *x, const model *m, int pi)
{
	const proc *p = &m->procs[pi];
	int *ix = &x->ix[2 * (size_t)pi];
	if (p->pid < 0)
		return; /* ix[0] stays -2 */
	if (ix[0] == -2) {
		intset_add(&pidx_file(x, p->file)->real, pi);
		pkey_add(x, m, pi);
		ix[0] = ix[1] = -1;
	}
	int now[2] = { p->rank, p->lrank };
	if (now[0] == ix[0] && now[1] == ix[1])
		return;
	for (int k = 0; k < 2; k++)
		if (ix[k] >= 0 && ix[k] != now[0] && ix[k] != now[1] && (k == 0 || ix[k] != ix[0]))
			prank_del(x, p->file, ix[k], pi);
	for (int k = 0; k < 2; k++)
		if (now[k] >= 0 && now[k] != ix[0] && now[k] != ix[1] && (k == 0 || now[k] != now[0]))
			prank_add(x, p->file, now[k], pi);
	ix[0] = now[0];
	ix[1] = now[1];
}

static const procidx *pidx_update(model *m)
{
	if (!m->pidx) {
		m->pidx = xcalloc(1, sizeof *m->pidx);
		m->pidx->hk = m->hkey;
	}
	procidx *x = m->pidx;
	if (x->indexed < m->nprocs) {
		if (x->ixcap < 2 * m->nprocs) {
			size_t cap = x->ixcap ? x->ixcap : 64;
			while (cap < 2 * m->nprocs)
				cap *= 2;
			x->ix = xrealloc(x->ix, cap * sizeof *x->ix);
			x->ixcap = cap;
		}
		for (size_t i = x->indexed; i < m->nprocs; i++) {
			x->ix[2 * i] = x->ix[2 * i + 1] = -2;
			pidx_index(x, m, (int)i);
		}
		x->indexed = m->nprocs;
	}
	return x;
}

static void pidx_free(struct procidx *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->slotcap; i++)
		if (x->slot[i].file >= 0)
			intset_free(&x->slot[i].real);
	for (size_t i = 0; i < x->rkcap; i++)
		if (x->rk[i].file >= 0)
			intset_free(&x->rk[i].procs);
	free(x->slot);
	free(x->rk);
	free(x->ix);
	free(x->key);
	free(x);
}

int model_proc_find(const model *m, int host, long pid)
{
	const procidx *x = pidx_update((model *)m);
	if (!x->keycap)
		return -1;
	const struct pkslot *sl = pkey_slot(x, host, pid);
	return sl->proc;
}

void model_proc_keyed(model *m, int pi)
{
	m->gen++;
	if (m->pidx && (size_t)pi < m->pidx->indexed)
		pidx_index(m->pidx, m, pi);
}

int model_guess_proc(const model *m, int file, int lrank, bool untagged)
{
	/* the index is a cache: filling it leaves what m says unchanged */
	const procidx *x = pidx_update((model *)m);
	/* "[rank3]:" lines: the first process of that rank in the same file */
	if (lrank >= 0 && x->rkcap) {
		const struct prslot *rs = prank_slot(x, file, lrank);
		if (rs->file >= 0 && rs->procs.n)
			return rs->procs.v[0];
	}
	const struct pislot *sl = x->slotcap ? pidx_slot(x, file) : NULL;
	size_t nreal = sl && sl->file >= 0 ? sl->real.n : 0;
	/* a per-rank file: its one process, unless that one is known to be another rank */
	if (nreal == 1) {
		int only = sl->real.v[0];
		if (lrank < 0 || (m->procs[only].lrank < 0 && m->procs[only].rank < 0))
			return only;
	}
	stream *s = untagged ? stream_find((model *)m, file, -1) : NULL;
	return s ? s->proc : -1;
}

/* The process of the NCCL record before, when r names the same one and
 * nothing it was found by has changed since; else -1. */
static int last_proc(const model *m, int file, const record *r)
{
	const lastproc *c = &m->last;
	if (c->file != file || c->pid != r->pid || c->gen != m->gen || c->nprocs != m->nprocs ||
	    c->host.n != r->host.n || c->tag.n != r->ln.tag.n || !bytes_same(c->host.p, r->host.p, c->host.n) ||
	    !bytes_same(c->tag.p, r->ln.tag.p, c->tag.n))
		return -1;
	return c->proc;
}

static void last_keep(model *m, int file, const record *r, int tag, int host, int p)
{
	m->last = (lastproc){ .file = file, .pid = r->pid, .proc = p, .gen = m->gen, .nprocs = m->nprocs };
	m->last.host = intern_slice(&m->str, host);
	m->last.tag = intern_slice(&m->str, tag);
}

/* The process a record belongs to; -1 when it cannot be kept (a cap). */
static int resolve_proc(model *m, int file, const record *r)
{
	if (r->nccl) {
		int p = last_proc(m, file, r);
		if (p >= 0)
			return p;
	}
	int tag = intern_get(&m->str, r->ln.tag);
	if (tag < 0)
		return -1; /* no room for its stream's name: as if unread */
	if (r->nccl) {
		/* a host no process has is named only once a process can take it:
		 * hosts past the process cap do not fill the names as well */
		int host = intern_find(&m->str, r->host);
		int p = host >= 0 ? model_proc_find(m, host, r->pid) : -1;
		if (p < 0) {
			/* the untagged lines of this file so far had no NCCL prefix: they
			 * were this process's (a per-rank file, a framework's banner first) */
			stream *s = r->ln.tag.n || m->partial ? NULL : stream_find(m, file, tag);
			bool takes = s && m->procs[s->proc].pid < 0 && m->procs[s->proc].host < 0 &&
				     !m->procs[s->proc].activity_only;
			if (!takes && m->nprocs >= MODEL_MAX_PROCS) {
				model_drop(m, CAP_PROCS);
				return -1;
			}
			if (host < 0 && (host = intern_get(&m->str, r->host)) < 0)
				return -1;
			if (takes) {
				p = s->proc;
				m->procs[p].host = host;
				m->procs[p].pid = r->pid;
				model_proc_keyed(m, p);
			} else {
				p = proc_new(m, host, r->pid, file);
				if (p < 0)
					return -1;
			}
		}
		stream_set(m, file, tag, p);
		stream_set(m, file, -1, p);
		last_keep(m, file, r, tag, host, p);
		return p;
	}
	stream *s = stream_find(m, file, tag);
	if (s) {
		m->procs[s->proc].activity_only = false;
		return s->proc;
	}
	int p = m->partial ? -1 : model_guess_proc(m, file, r->ln.rank, r->ln.tag.n == 0);
	if (p >= 0)
		return p;
	int host = r->ln.host.n ? intern_get(&m->str, r->ln.host) : -1;
	p = proc_new(m, host, -1, file);
	if (p < 0)
		return -1;
	m->procs[p].tag = tag;
	stream_set(m, file, tag, p);
	if (!r->ln.tag.n)
		stream_set(m, file, -1, p);
	return p;
}

int model_stream_proc(const model *m, int file, int tag)
{
	stream *s = stream_find((model *)m, file, tag);
	return s ? s->proc : -1;
}

void model_stream_set(model *m, int file, int tag, int pi)
{
	stream_set(m, file, tag, pi);
}

static void proc_seen(const model *m, proc *p, int file, uint64_t lineno, double t)
{
	if (m->now > 0)
		p->last_wall = m->now;
	p->nlines++;
	p->last_line = lineno;
	p->last_file = file;
	if (time_dated(t)) {
		if (p->first_time == 0)
			p->first_time = t;
		if (t > p->last_time)
			p->last_time = t;
	}
}

void model_activity(model *m, int file, uint64_t lineno, uint64_t off, slice text)
{
	lineinfo li;
	lineinfo_init(&li, text);
	model_activity_info(m, file, lineno, &li);
	(void)off;
}

/* The process whose stream the lines of a launcher's tag are, or -1. */
static int tagged_proc(model *m, int file, slice tag)
{
	const stream *s = stream_find(m, file, intern_find(&m->str, tag));
	return s ? s->proc : -1;
}

/* The same for a line without a tag: the stream of the file's untagged
 * lines, or its stream of no tag at all. Most lines of a rank's file are
 * such, one after the other: the answer is kept until a stream, a
 * process's key or the strings change. */
static int tagless_proc(model *m, int file)
{
	if (m->tagless.file == file && m->tagless.gen == m->gen && m->tagless.nstr == m->str.n)
		return m->tagless.proc;
	const stream *s = stream_find(m, file, intern_find(&m->str, SLICE_NONE));
	if (!s)
		s = stream_find(m, file, -1);
	m->tagless.file = file;
	m->tagless.proc = s ? s->proc : -1;
	m->tagless.gen = m->gen;
	m->tagless.nstr = m->str.n;
	return m->tagless.proc;
}

void model_activity_info(model *m, int file, uint64_t lineno, lineinfo *li)
{
	/* a line of its own ends a c10 message, seen or not by the rules */
	if (m->msg_file == file && !join_bare(li->s))
		m->msg_file = -1;
	/* most lines carry no date: nothing below could change */
	if (li->undated || !line_may_be_dated(li->s))
		return;
	const launch *ln = lineinfo_launch(li);
	double t = ln->time;
	if (t == 0)
		lineinfo_stamp(li, li->rest, &t);
	if (!time_dated(t))
		return;
	int pi = ln->tag.n ? tagged_proc(m, file, ln->tag) : tagless_proc(m, file);
	if (pi < 0 && m->partial) {
		/* a later part: the merge gives these times to whoever wrote the stream */
		int tag = intern_get(&m->str, ln->tag);
		pi = tag >= 0 ? proc_new(m, -1, -1, file) : -1;
		if (pi < 0)
			return;
		m->procs[pi].tag = tag;
		m->procs[pi].lrank = ln->rank;
		m->procs[pi].activity_only = true;
		stream_set(m, file, tag, pi);
		if (!ln->tag.n)
			stream_set(m, file, -1, pi);
	}
	if (pi >= 0)
		proc_seen(m, &m->procs[pi], file, lineno, t);
}

void model_activity_undated(model *m, int file, slice s)
{
	for (slice part; m->msg_file == file && line_part(&s, &part);)
		if (part.n && !join_bare(part))
			m->msg_file = -1;
}

/* The lines that go on a c10 message carrying an NCCL error (see
 * join_record_opens_msg) are the process's of its first line, the only
 * one with the rank's prefix. */
static int msg_line_proc(model *m, int file, const record *r)
{
	if (m->msg_file != file || !join_record_bare(r)) {
		m->msg_file = -1;
		return -1;
	}
	return m->msg_proc;
}

void model_record(model *m, int file, uint64_t lineno, uint64_t off, const record *r, const linespan *span)
{
	m->cur_file = file;
	m->cur_line = lineno;
	m->cur_off = off;
	m->cur_span = span && span->n > 1 ? span : NULL;
	m->cur_explained = m->cur_fwerr = false;
	m->cur = r;
	m->cur_text = r->text;
	m->cur_drops = caps_mark(m);
	m->cur_sys_done = 0;
	if (r->level != LV_NONE)
		m->nccl_records++;
	int pi = msg_line_proc(m, file, r);
	if (pi < 0)
		pi = resolve_proc(m, file, r);
	if (pi >= 0 && join_record_opens_msg(r)) {
		m->msg_file = file;
		m->msg_proc = pi;
	}
	m->cur_proc = pi;
	if (pi < 0) {
		/* a cap left no room for its process: the record is not analyzed */
		caps_note_line(m);
		return;
	}
	proc *p = &m->procs[pi];
	p->records++;
	p->recent[p->nrecent++ % PROC_RECENT] = (lineref){ file, lineno, off };
	if (r->ln.rank >= 0 && p->lrank < 0) {
		p->lrank = r->ln.rank;
		model_proc_keyed(m, pi);
	}
	if (r->nccl && r->dev >= 0 && p->dev < 0)
		p->dev = r->dev;
	if (r->legacy)
		p->old_format = true;
	if (r->level == LV_WARN) {
		if (r->ts.n)
			p->fmt |= FMT_WARN_TS;
		if (r->func.n)
			p->fmt |= FMT_WARN_FUNC;
		p->warned = true;
		if (!p->ev_warn.text)
			p->warn_time = r->time;
		evref_here(m, &p->ev_warn);
	}
	proc_seen(m, p, file, lineno, r->time);
}

/* ---- tag handlers ---- */

static long cap_long(const match *mt, enum rule_capture c, long dflt)
{
	long v;
	return slice_to_long(match_cap(mt, c), &v) ? v : dflt;
}

static int cap_str(model *m, const match *mt, enum rule_capture c)
{
	slice s = match_cap(mt, c);
	return s.n ? intern_get(&m->str, s) : -1;
}

static void phase_at_least(model *m, proc *p, enum phase ph)
{
	if (p->phase < ph) {
		p->phase = ph;
		evref_free(&p->ev_last_phase);
		evref_here(m, &p->ev_last_phase);
	}
}

static void on_comm_init(model *m, proc *p, int pi, const match *mt)
{
	long rank = cap_long(mt, CAPT_RANK, -1), nranks = cap_long(mt, CAPT_NRANKS, -1);
	if (rank < 0 || nranks <= 0 || rank >= nranks || nranks > MODEL_RANKS_MAX)
		return;
	slice commid = match_cap(mt, CAPT_COMMID);
	char key[32];
	if (!commid.n) {
		snprintf(key, sizeof key, "n%ld", nranks);
		commid = slice_from(key);
	}
	int k = model_comm_key(m, commid);
	slice state = match_cap(mt, CAPT_STATE);
	bool complete = slice_eq_str(state, "COMPLETE"), start = !complete && slice_eq_str(state, "START");
	comm *c = k >= 0 ? model_comm_get(m, k, (int)nranks) : NULL;
	if (c) {
		c->lines++;
		evref_here(m, &c->ev);
		model_comm_mark(m, c, (int)rank, CR_SEEN | (complete ? CR_DONE : 0), pi);
	}
	if (nranks >= p->nranks) {
		bool moved = p->rank != rank;
		p->rank = (int)rank;
		p->nranks = (int)nranks;
		p->comm = c ? (int)(c - m->comms) : -1;
		/* the index knows it by its rank: only a new one needs telling */
		if (moved)
			model_proc_keyed(m, pi);
		/* a process's every communicator is on its one device */
		slice bus = match_cap(mt, CAPT_BUSID);
		if (bus.n && !slice_eq(intern_slice(&m->str, p->busid), bus))
			p->busid = intern_get(&m->str, bus);
		long dev = cap_long(mt, CAPT_DEV, -1);
		if (dev >= 0)
			p->dev = (int)dev;
	}
	if (start || complete)
		p->init_started = true;
	p->init_start_seen |= start;
	evref_here(m, &p->ev_init);
	if (complete) {
		if (p->done_file < 0) {
			p->done_file = m->cur_file;
			p->done_line = m->cur_line;
		}
		p->init_done = true;
		phase_at_least(m, p, PH_COMPLETE);
	} else {
		phase_at_least(m, p, PH_INIT_START);
	}
}

/* Where the name of "name:address" ends: an alias keeps its colon
 * ("eth0:1:10.0.0.5", "eno1:avahi:169.254.3.7"), so the address is the
 * first suffix after a colon that reads as one ("eth0:fe80::1%eth0" has
 * colons in its address); a redacted IPv4 ("x.x.x.x") follows the last
 * colon. SIZE_MAX when there is no colon. */
static size_t iface_colon(const char *p, size_t n)
{
	size_t first = SIZE_MAX, last = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (p[i] != ':')
			continue;
		if (first == SIZE_MAX)
			first = i;
		last = i;
		ipaddr a;
		if (i > 0 && ipaddr_parse((slice){ p + i + 1, n - i - 1 }, &a))
			return i;
	}
	if (last != first && memchr(p + last, '.', n - last))
		return last;
	return first;
}

/* Parses "eth0:10.0.0.5<0>" lists ("[0]ib0:... [1]eth0:..."); returns the count. */
static int parse_iflist(model *m, slice s, iface *out, int max)
{
	int n = 0;
	size_t i = 0;
	while (i < s.n && n < max) {
		while (i < s.n && (s.p[i] == ' ' || s.p[i] == ';'))
			i++;
		if (i < s.n && s.p[i] == '[') {
			while (i < s.n && s.p[i] != ']')
				i++;
			i++;
		}
		size_t st = i, end = i;
		while (end < s.n && s.p[end] != '<' && s.p[end] != ' ')
			end++;
		size_t colon = iface_colon(s.p + st, end - st);
		if (colon == SIZE_MAX)
			break;
		slice name = { s.p + st, colon };
		size_t as = st + colon + 1;
		i = end;
		slice addr = { s.p + as, end - as };
		while (i < s.n && s.p[i] != ' ')
			i++;
		if (!name.n || !addr.n)
			continue;
		out[n].name = intern_get(&m->str, name);
		out[n].addr = intern_get(&m->str, addr);
		n++;
	}
	return n;
}

static void add_socket_iface(proc *p, iface f)
{
	for (int i = 0; i < p->nsocket; i++)
		if (p->socket[i].name == f.name)
			return;
	if (p->nsocket < (int)(sizeof p->socket / sizeof p->socket[0]))
		p->socket[p->nsocket++] = f;
}

/* True when w (a constant word) starts p, which has n bytes. */
static inline bool word_at(const char *p, size_t n, const char *w, size_t wn)
{
	return n >= wn && memcmp(p, w, wn) == 0;
}
#define WORD_AT(p, n, w) word_at(p, n, w, sizeof w - 1)

/* The transports a channel line's "via" text names, wherever in it each
 * word stands: one pass, keyed on the byte that starts a word. */
static unsigned transport_bits(slice via)
{
	unsigned bits = 0;
	bool net = false;
	for (size_t i = 0; i < via.n; i++) {
		const char *p = via.p + i;
		size_t n = via.n - i;
		switch (*p) {
		case 'P':
			if (WORD_AT(p, n, "P2P"))
				bits |= TR_P2P;
			break;
		case 'S':
			if (WORD_AT(p, n, "SHM"))
				bits |= TR_SHM;
			break;
		case 's':
			if (WORD_AT(p, n, "shared memory"))
				bits |= TR_SHM;
			break;
		case 'N':
			if (WORD_AT(p, n, "NET/")) {
				net = true;
				if (WORD_AT(p, n, "NET/IB"))
					bits |= TR_NET_IB;
				else if (WORD_AT(p, n, "NET/Socket"))
					bits |= TR_NET_SOCKET;
			} else if (WORD_AT(p, n, "NVLS")) {
				bits |= TR_NVLS;
			}
			break;
		case 'G':
			if (WORD_AT(p, n, "GDRDMA"))
				bits |= TR_GDR;
			break;
		case 'C':
			if (WORD_AT(p, n, "CollNet"))
				bits |= TR_COLLNET;
			break;
		}
	}
	if (net && !(bits & (TR_NET_IB | TR_NET_SOCKET)))
		bits |= TR_NET_OTHER;
	return bits;
}

static void on_transport(model *m, proc *p, slice via, long from, long to)
{
	/* a communicator's channel lines name the same path line after line:
	 * the words of the last one are known */
	unsigned bits;
	if (via.n && via.n == m->via_n && memcmp(via.p, m->via, via.n) == 0) {
		bits = m->via_bits;
	} else {
		bits = transport_bits(via);
		m->via_n = via.n <= sizeof m->via ? via.n : 0;
		memcpy(m->via, via.p, m->via_n);
		m->via_bits = bits;
	}
	p->transports |= bits;
	/* which end is this process is known once its rank is, maybe later */
	if (from < 0 || to < 0 || from > INT32_MAX || to > INT32_MAX)
		return;
	for (int i = 0; i < p->nlinks; i++)
		if (p->links[i].from == from && p->links[i].to == to) {
			p->links[i].via |= bits;
			return;
		}
	if (p->nlinks < (int)(sizeof p->links / sizeof p->links[0]))
		p->links[p->nlinks++] = (struct peerlink){ (int)from, (int)to, bits };
}

/* The digits at *c (before e), at most four; -1 past that. */
static long version_part(const char **c, const char *e)
{
	long v = 0;
	int n = 0;
	for (; *c < e && **c >= '0' && **c <= '9'; (*c)++)
		if (++n <= 4)
			v = v * 10 + (**c - '0');
	return n <= 4 ? v : -1;
}

static void on_version(model *m, proc *p, const match *mt)
{
	slice v = match_cap(mt, CAPT_VERSION);
	if (!v.n)
		return;
	size_t n = 0;
	while (n < v.n && ((v.p[n] >= '0' && v.p[n] <= '9') || v.p[n] == '.'))
		n++;
	/* keep only MAJOR.MINOR.PATCH: "2.12.12.MSCCL.0.7.3" has more dots */
	size_t dots = 0, k = 0;
	for (; k < n; k++)
		if (v.p[k] == '.' && ++dots == 3)
			break;
	slice shortv = { v.p, k };
	if (p->version < 0 || (p->version >= 0 && memchr(v.p, '+', v.n)))
		p->version = intern_get(&m->str, v);
	p->version_short = intern_get(&m->str, shortv);
	long at = slice_find(v, "+cuda", 5);
	if (at >= 0) {
		const char *c = v.p + at + 5, *e = v.p + v.n;
		long maj = version_part(&c, e), min = c < e && *c == '.' ? (c++, version_part(&c, e)) : 0;
		/* a part of more than four digits is no CUDA version */
		if (maj >= 0 && min >= 0)
			p->cuda_build = (int)(maj * 1000 + min * 10);
	}
	evref_here(m, &p->ev_version);
}

/* The watchdog report of (process, rank), made when new; NULL past
 * MODEL_MAX_WATCHDOG (counted). */
static wdog *wdog_get(model *m, int pi, int pgrank)
{
	wdog *w = model_wdog_find(m, pi, pgrank);
	if (w) {
		w->lines++;
		return w;
	}
	if (m->nwd >= MODEL_MAX_WATCHDOG) {
		model_drop(m, CAP_WATCHDOG);
		return NULL;
	}
	grow(&m->wd, &m->wdcap, m->nwd, sizeof *m->wd);
	w = &m->wd[m->nwd];
	*w = (wdog){ 0 };
	w->proc = pi;
	w->pgrank = pgrank;
	w->seq = w->last_enq = w->last_done = -2;
	w->op = -1;
	w->lines = 1;
	model_wdog_indexed(m, (int)m->nwd++);
	return w;
}

/* PyTorch's desync snapshot ("#330 started ranks:" then "[1] started
 * OP") and its assert ("Timeout rank [0] last trace item must be
 * kEventStart. thisSeq = 329": that rank's last trace is the end of 329)
 * say where each rank's collectives stand: started N is enqueued N,
 * completed N-1; finished N is both N. */
static void on_desync_state(model *m, int pi, const match *mt)
{
	long done = cap_long(mt, CAPT_DONE, -2);
	if (done >= 0) {
		wdog *w = wdog_get(m, pi, (int)cap_long(mt, CAPT_RANK, -1));
		w->last_enq = w->last_enq > done ? w->last_enq : done;
		w->last_done = w->last_done > done ? w->last_done : done;
		return;
	}
	long seq = cap_long(mt, CAPT_SEQ, -2);
	slice ranks = match_cap(mt, CAPT_RANKS);
	const record *rec = m->cur;
	if (seq >= 0) {
		m->snap_seq = seq;
		m->snap_file = m->cur_file;
		m->snap_line = m->cur_line;
		return;
	}
	/* a rank list belongs to the header right above it; "[1] " alone at
	 * the start of a line reads as a launcher's rank prefix */
	if (m->snap_seq < 0 || m->snap_file != m->cur_file || m->cur_line > m->snap_line + 1)
		return;
	m->snap_line = m->cur_line;
	char one[16];
	if (!ranks.n && rec && rec->ln.rank >= 0) {
		int k = snprintf(one, sizeof one, "%d", rec->ln.rank);
		ranks = (slice){ one, (size_t)k };
	}
	if (!ranks.n)
		return;
	bool started = match_cap(mt, CAPT_STARTED).n > 0;
	long enq = m->snap_seq, fin = started ? m->snap_seq - 1 : m->snap_seq;
	/* "[0, 1, 2]": a bounded list, each rank once */
	for (size_t i = 0, n = 0; i < ranks.n && n < 4096; n++) {
		while (i < ranks.n && (ranks.p[i] < '0' || ranks.p[i] > '9'))
			i++;
		long r = 0;
		size_t st = i;
		while (i < ranks.n && ranks.p[i] >= '0' && ranks.p[i] <= '9' && i - st < 8)
			r = r * 10 + (ranks.p[i++] - '0');
		if (i == st)
			break;
		wdog *w = wdog_get(m, pi, (int)r);
		if (enq > w->last_enq)
			w->last_enq = enq;
		if (fin > w->last_done)
			w->last_done = fin;
		if (!w->ev.text)
			evref_here(m, &w->ev);
	}
}

static void on_env(model *m, proc *p, int pi, const match *mt)
{
	int var = cap_str(m, mt, CAPT_VAR), val = cap_str(m, mt, CAPT_VAL);
	if (var < 0)
		return;
	p->nenv++;
	envset *have = model_env_find(m, pi, var);
	if (have) {
		have->lines++;
		return;
	}
	if (m->nenv >= MODEL_MAX_ENV) {
		model_drop(m, CAP_ENV);
		return;
	}
	grow(&m->env, &m->envcap, m->nenv, sizeof *m->env);
	envset *e = &m->env[m->nenv];
	*e = (envset){ var, val, pi, { 0 }, 1 };
	model_env_indexed(m, (int)m->nenv++);
	evref_here(m, &e->ev);
}

/* Notes the current record as an occurrence of f: the evidence cites each
 * physical line of a joined record. */
static void note_here(model *m, finding *f, int pi)
{
	double t = m->cur ? m->cur->time : 0;
	const linespan *sp = m->cur_span;
	if (!sp) {
		findings_note(f, pi, t, m->cur_file, m->cur_line, m->cur_text);
		return;
	}
	size_t before = f->nev;
	findings_note(f, pi, t, m->cur_file, sp->part[0].no, (slice){ sp->buf + sp->part[0].at, sp->part[0].n });
	for (int k = 1; f->nev > before && k < sp->n; k++)
		findings_add_evidence(f, m->cur_file, sp->part[k].no, pi,
				      (slice){ sp->buf + sp->part[k].at, sp->part[k].n });
}

/* "3", "0,3-5", "[3, 5]", "ranks 2 and 7": the ranks a capture names,
 * added to f's (within the caps of findings_add_key). */
static void add_rank_list(findings *fs, finding *f, slice s)
{
	intset *out = &f->ranks;
	long prev = -1;
	bool range = false;
	for (size_t i = 0; i < s.n;) {
		if (s.p[i] >= '0' && s.p[i] <= '9') {
			long v = 0;
			while (i < s.n && s.p[i] >= '0' && s.p[i] <= '9' && v < (1L << 24))
				v = v * 10 + (s.p[i++] - '0');
			if (v >= (1L << 24))
				return;
			if (range && prev >= 0 && v >= prev && v - prev <= 4096) {
				for (long r = prev + 1; r <= v; r++)
					if (!findings_add_key(fs, f, out, (int)r))
						return;
			} else if (!findings_add_key(fs, f, out, (int)v)) {
				return;
			}
			prev = v;
			range = false;
			continue;
		}
		if (s.p[i] == '-')
			range = true;
		else if (s.p[i] != ' ')
			range = false;
		i++;
	}
}

/* The address of "10.0.0.5<43215>", "10.0.0.5:29500", "[fe80::1]:29500". */
static slice peer_addr(slice s)
{
	if (s.n && s.p[0] == '[') {
		const char *e = memchr(s.p, ']', s.n);
		return e ? (slice){ s.p + 1, (size_t)(e - s.p - 1) } : SLICE_NONE;
	}
	size_t n = 0, colons = 0;
	while (n < s.n && s.p[n] != '<' && s.p[n] != ' ' && s.p[n] != ',')
		colons += s.p[n++] == ':';
	if (colons == 1) /* host:port; IPv6 keeps its colons */
		n = (size_t)((const char *)memchr(s.p, ':', n) - s.p);
	return (slice){ s.p, n };
}

/* The ncclResult_t family: a code, a name or the error string. */
static const struct result_id {
	int code;
	const char *name, *text, *id;
} results[] = {
	{ 1, "ncclUnhandledCudaError", "unhandled cuda error", "nccl-unhandled-cuda-error" },
	{ 2, "ncclSystemError", "unhandled system error", "nccl-system-error" },
	{ 3, "ncclInternalError", "internal error", "nccl-internal-error" },
	{ 4, "ncclInvalidArgument", "invalid argument", "nccl-invalid-argument" },
	{ 5, "ncclInvalidUsage", "invalid usage", "nccl-invalid-usage" },
	{ 6, "ncclRemoteError", "remote process exited or there was a network error", "nccl-remote-error" },
	{ 8, "ncclTimeout", "timeout", "nccl-timeout" },
};

static const struct result_id *result_lookup(const match *mt)
{
	long code = cap_long(mt, CAPT_CODE, -1);
	slice name = match_cap(mt, CAPT_NAME), text = match_cap(mt, CAPT_TEXT);
	for (size_t i = 0; i < sizeof results / sizeof results[0]; i++) {
		if (code == results[i].code)
			return &results[i];
		if (name.n && slice_eq_str(name, results[i].name))
			return &results[i];
		if (text.n && slice_starts(text, results[i].text))
			return &results[i];
	}
	return NULL;
}

const char *model_result_id(int code)
{
	for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
		if (results[i].code == code)
			return results[i].id;
	return NULL;
}

static void on_result(model *m, int pi, const match *mt)
{
	const struct result_id *r = result_lookup(mt);
	if (!r)
		return;
	m->cur_explained = true;
	proc *p = &m->procs[pi];
	if (m->cur && m->cur->nccl) {
		p->chain_tid = m->cur->tid;
		p->chain_file = m->cur_file;
		p->chain_line = m->cur_line;
		p->chain_recovered = false;
	}
	char msg[200];
	snprintf(msg, sizeof msg, "NCCL call failed with %s (%d): %s", r->name, r->code, r->text);
	finding *f = findings_add(&m->fs, m->cat, &(findspec){ .id = r->id, .severity = SEV_DEFAULT, .message = msg },
				  NULL);
	note_here(m, f, pi);
}

static void on_finding(model *m, int pi, const match *mt)
{
	const rule *r = mt->r;
	const catentry *ce = catalog_find(m->cat, r->finding);
	strbuf msg = { 0 }, hint = { 0 }, key = { 0 };
	/* a message whose captures the match all left out is all holes: the
	 * title says it whole */
	if (r->message && template_filled(r->message, mt))
		template_render(&msg, r->message, mt);
	else
		sb_adds(&msg, ce ? ce->title : r->title);
	if (r->hint)
		template_render(&hint, r->hint, mt);
	if (r->fold)
		template_render(&key, r->fold, mt);
	finding *f = findings_add(&m->fs, m->cat,
				  &(findspec){ .id = r->finding, .key = key.p, .severity = (int)r->severity,
					       .message = msg.p, .hint = hint.p, .title = r->title },
				  NULL);
	note_here(m, f, pi);
	add_rank_list(&m->fs, f, match_cap(mt, CAPT_RANKS));
	long pid;
	if (slice_to_long(match_cap(mt, CAPT_PID), &pid) && pid >= 0 && pid <= INT32_MAX)
		findings_add_key(&m->fs, f, &f->pids, (int)pid);
	slice peer = peer_addr(match_cap(mt, CAPT_PEER));
	int peer_id = peer.n ? intern_get(&m->str, peer) : -1;
	if (peer_id >= 0)
		findings_add_key(&m->fs, f, &f->peers, peer_id);
	sb_free(&msg);
	sb_free(&hint);
	sb_free(&key);
}

/* nccl-tests' "#  Rank  3 Group  0 Pid  1234 on node-a device  3 [0x1b] ...":
 * a rank's host, pid, device and bus id, for every rank of the test. */
static void on_device_row(model *m, const match *mt)
{
	slice host = match_cap(mt, CAPT_HOST);
	long pid = cap_long(mt, CAPT_PID, -1), rank = cap_long(mt, CAPT_RANK, -1);
	if (!host.n || pid < 0 || rank < 0 || rank >= MODEL_RANKS_MAX)
		return;
	int h = intern_get(&m->str, host);
	if (h < 0)
		return;
	intset_add(&m->table_hosts, h);
	int pi = model_proc_find(m, h, pid);
	if (pi < 0)
		pi = proc_new(m, h, pid, m->cur_file);
	if (pi < 0)
		return;
	proc *q = &m->procs[pi];
	if (q->lrank < 0) {
		q->lrank = (int)rank;
		model_proc_keyed(m, pi);
	}
	long dev = cap_long(mt, CAPT_DEV, -1);
	if (q->dev < 0 && dev >= 0 && dev < (1 << 20))
		q->dev = (int)dev;
	if (dev >= 0 && dev < 64)
		q->devs |= 1ull << dev;
	int b = cap_str(m, mt, CAPT_BUSID);
	if (q->busid < 0 && b >= 0)
		q->busid = b;
	system_device_row(m, pi);
}

/* Init that goes on, on the thread of the last "-> N" chain, after it:
 * NCCL handled that error (2.4's missing sysfs paths of virtio NICs). */
static void init_goes_on(model *m, proc *p)
{
	if (p->chain_line && m->cur && m->cur->nccl && m->cur->tid == p->chain_tid && m->cur_file == p->chain_file &&
	    m->cur_line > p->chain_line)
		p->chain_recovered = true;
}

void model_match(model *m, const match *mt)
{
	int pi = m->cur_proc;
	if (pi < 0)
		return;
	m->matched++;
	proc *p = &m->procs[pi];
	switch ((enum model_tag)mt->r->tag) {
	case TAG_COMM_INIT:
	case TAG_TOPOLOGY:
	case TAG_CHANNEL:
	case TAG_CONNECTED:
	case TAG_INIT_DONE:
	case TAG_COLLNET_OFF:
		init_goes_on(m, p);
		break;
	default:
		break;
	}
	/* A rule explains its line unless all it takes from it is an incidental
	 * fact (the version a framework error quotes, a time); a result code
	 * explains it only when ncclog knows the code. */
	switch (mt->r->tag) {
	case TAG_FRAMEWORK_ERROR:
		m->cur_fwerr = true;
		break;
	case TAG_VERSION:
	case TAG_DRIVER:
	case TAG_PROGRESS:
	case TAG_RANK_OF:
	case TAG_EXCERPT:
	case TAG_DEVICE_ROW:
	case TAG_RESULT:
		break;
	default:
		m->cur_explained = true;
	}
	if (mt->r->finding)
		m->cur_explained = true;
	if (mt->r->finding)
		on_finding(m, pi, mt);
	switch ((enum model_tag)mt->r->tag) {
	case TAG_VERSION:
		on_version(m, p, mt);
		break;
	case TAG_DRIVER:
		p->driver = cap_long(mt, CAPT_DRIVER, 0);
		break;
	case TAG_COMM_INIT:
		on_comm_init(m, p, pi, mt);
		break;
	case TAG_COMM_INFO: {
		long nn = cap_long(mt, CAPT_NNODES, 0);
		if (nn > p->nnodes)
			p->nnodes = (int)nn;
		if (p->rank < 0 || cap_long(mt, CAPT_NRANKS, 0) > p->nranks) {
			long r = cap_long(mt, CAPT_RANK, -1), n = cap_long(mt, CAPT_NRANKS, -1);
			if (r >= 0 && n > r) {
				p->rank = (int)r;
				p->nranks = (int)n;
				model_proc_keyed(m, pi);
			}
		}
		phase_at_least(m, p, PH_INIT_START);
		break;
	}
	case TAG_TOPOLOGY:
		phase_at_least(m, p, PH_TOPOLOGY);
		break;
	case TAG_CHANNEL:
		on_transport(m, p, match_cap(mt, CAPT_VIA), cap_long(mt, CAPT_FROM, -1), cap_long(mt, CAPT_TO, -1));
		if (slice_starts(match_cap(mt, CAPT_VIA), "NET/"))
			evref_here(m, &p->ev_netchan);
		phase_at_least(m, p, PH_CONNECT);
		break;
	case TAG_CONNECTED:
		phase_at_least(m, p, PH_CONNECTED);
		break;
	case TAG_COMM_END:
		if (slice_eq_str(match_cap(mt, CAPT_WHAT), "Abort"))
			p->aborted = true;
		else
			p->destroyed = true;
		break;
	case TAG_ENV:
		on_env(m, p, pi, mt);
		break;
	case TAG_BOOTSTRAP_IF: {
		/* The first interface bootstraps; NCCL up to 2.7 lists every usable
		 * one (2.3 one per line), and sockets may use them all. */
		iface ifs[16];
		int n = parse_iflist(m, match_cap(mt, CAPT_LIST), ifs, 16);
		for (int i = 0; i < n; i++) {
			if (p->boot.name < 0) {
				p->boot = ifs[i];
				evref_here(m, &p->ev_boot);
			} else if (ifs[i].name != p->boot.name) {
				add_socket_iface(p, ifs[i]);
				evref_here(m, &p->ev_socket);
			}
		}
		p->fmt |= match_cap(mt, CAPT_SPACE).n ? FMT_BOOT_SPACE : FMT_BOOT_NOSPACE;
		phase_at_least(m, p, PH_BOOTSTRAP);
		break;
	}
	case TAG_SOCKET_IFS: {
		iface ifs[16];
		int n = parse_iflist(m, match_cap(mt, CAPT_LIST), ifs, 16);
		for (int i = 0; i < n; i++)
			add_socket_iface(p, ifs[i]);
		if (n)
			evref_here(m, &p->ev_socket);
		break;
	}
	case TAG_IB_USING: {
		iface o;
		if (parse_iflist(m, match_cap(mt, CAPT_OOB), &o, 1) == 1)
			p->oob = o;
		evref_here(m, &p->ev_ib);
		break;
	}
	case TAG_NET:
		if (p->net < 0)
			p->net = cap_str(m, mt, CAPT_NET);
		evref_here(m, &p->ev_net);
		break;
	case TAG_IB_MISSING:
		p->ib_missing = true;
		break;
	case TAG_RESULT:
		on_result(m, pi, mt);
		break;
	case TAG_WATCHDOG: {
		wdog *w = wdog_get(m, pi, (int)cap_long(mt, CAPT_RANK, -1));
		if (!w)
			break;
		long seq = cap_long(mt, CAPT_SEQ, -2);
		if (seq >= -1) {
			w->seq = seq;
			w->seq_told = true;
		}
		int op = cap_str(m, mt, CAPT_OP);
		if (op >= 0)
			w->op = op;
		/* a report cut before its WorkNCCL(...) still says a collective
		 * timed out: SeqNum -1, not known */
		if (seq < -1 && op < 0 && w->seq < -1)
			w->seq = -1;
		w->timeout_ms = cap_long(mt, CAPT_TIMEOUT, w->timeout_ms);
		evref_here(m, &w->ev);
		break;
	}
	case TAG_PG_STATUS: {
		wdog *w = wdog_get(m, pi, (int)cap_long(mt, CAPT_RANK, -1));
		if (!w)
			break;
		long seq = cap_long(mt, CAPT_SEQ, -2);
		if (seq >= -1 && w->seq < -1)
			w->seq = seq;
		w->last_enq = cap_long(mt, CAPT_ENQ, w->last_enq);
		w->last_done = cap_long(mt, CAPT_DONE, w->last_done);
		evref_here(m, &w->ev);
		break;
	}
	case TAG_DESYNC_STATE:
		on_desync_state(m, pi, mt);
		break;
	case TAG_PROGRESS:
		/* progress bars before init (data loading) say nothing of NCCL */
		if (p->phase >= PH_COMPLETE)
			phase_at_least(m, p, PH_RUNNING);
		else if (m->partial && !p->progress_unplaced) {
			/* the parts before may have seen its init complete */
			p->progress_unplaced = true;
			evref_here(m, &p->ev_unplaced);
		}
		break;
	case TAG_KILLED:
		evref_here(m, &m->ev_killed);
		break;
	case TAG_INIT_DONE: {
		long r = cap_long(mt, CAPT_RANK, -1), n = cap_long(mt, CAPT_NRANKS, -1);
		if (p->rank < 0 && r >= 0 && n > r && n <= MODEL_RANKS_MAX) {
			p->rank = (int)r;
			p->nranks = (int)n;
			model_proc_keyed(m, pi);
		}
		p->init_started = p->init_done = true;
		phase_at_least(m, p, PH_COMPLETE);
		break;
	}
	case TAG_DEVICE_ROW:
		on_device_row(m, mt);
		break;
	case TAG_EXCERPT:
		evref_here(m, &m->ev_excerpt);
		break;
	case TAG_COLLNET_OFF:
		p->collnet_off = true;
		break;
	case TAG_RANK_OF: {
		/* a framework saying which rank its process is */
		long r = cap_long(mt, CAPT_RANK, -1);
		if (p->lrank < 0 && r >= 0 && r < MODEL_RANKS_MAX) {
			p->lrank = (int)r;
			model_proc_keyed(m, pi);
		}
		break;
	}
	case TAG_XID:
	case TAG_OOM:
	case TAG_SCHED:
	case TAG_NCCLT:
	case TAG_RAS:
		system_match(m, mt);
		break;
	case TAG_BENIGN:
	case TAG_FRAMEWORK_ERROR:
	case TAG_COUNT:
		break;
	}
}

/* The catch-all findings: one per kind of line and template, at most
 * LOOSE_MAX of them; what comes after folds into one. */
#define LOOSE_MAX 64
#define LOOSE_TEXT 240

/* A message's template: numbers, hex and addresses as "#", so that one
 * warning on many ranks folds into one finding. */
static void loose_key(slice body, strbuf *k)
{
	for (size_t i = 0; i < body.n && k->n < 120; i++) {
		char c = body.p[i];
		if ((c >= '0' && c <= '9') || (c == 'x' && k->n && k->p[k->n - 1] == '#')) {
			if (!k->n || k->p[k->n - 1] != '#')
				sb_addc(k, '#');
			continue;
		}
		if (k->n && k->p[k->n - 1] == '#' && ((c >= 'a' && c <= 'f') || c == '.' || c == ':'))
			continue;
		sb_addc(k, c);
	}
}

static void loose_add(model *m, const char *id, const char *what, slice body)
{
	body = slice_trim(body);
	if (!body.n)
		return;
	strbuf key = { 0 }, msg = { 0 };
	loose_key(body, &key);
	bool created = false;
	finding *f = findings_find_key(&m->fs, id, key.p);
	if (!f && m->nloose >= LOOSE_MAX) {
		sb_clear(&key);
		sb_adds(&key, "*");
		f = findings_find_key(&m->fs, id, key.p);
	}
	if (!f) {
		if (key.p[0] == '*')
			sb_printf(&msg, "more %s lines than ncclog lists one by one, the first: ", what);
		else
			sb_printf(&msg, "%s: ", what);
		sb_add(&msg, body.p, body.n < LOOSE_TEXT ? body.n : LOOSE_TEXT);
		if (body.n > LOOSE_TEXT)
			sb_adds(&msg, "...");
		f = findings_add(&m->fs, m->cat, &(findspec){ .id = id, .key = key.p, .severity = SEV_DEFAULT, .message = msg.p },
				 &created);
		m->nloose++;
	}
	note_here(m, f, m->cur_proc);
	sb_free(&key);
	sb_free(&msg);
}

void model_record_end(model *m)
{
	/* the first line anything was dropped from is what the cap finding cites */
	if (caps_mark(m) != m->cur_drops)
		caps_note_line(m);
	const record *r = m->cur;
	if (!r || m->cur_proc < 0 || m->cur_explained)
		return;
	if (r->level == LV_WARN || r->level == LV_ABORT)
		loose_add(m, "nccl-warn", "NCCL warned", r->body);
	else if (m->cur_fwerr && !r->nccl && r->level == LV_NONE)
		loose_add(m, "framework-error", "the framework reported", r->body);
	m->cur_fwerr = false;
}

int model_proc_rank(const model *m, int pi)
{
	if (pi < 0 || (size_t)pi >= m->nprocs)
		return -1;
	const proc *p = &m->procs[pi];
	if (p->rank >= 0)
		return p->rank;
	if (p->lrank >= 0)
		return p->lrank;
	return p->frank;
}

const char *model_host(const model *m, int pi)
{
	if (pi < 0 || (size_t)pi >= m->nprocs || m->procs[pi].host < 0)
		return NULL;
	return intern_str(&m->str, m->procs[pi].host);
}

/* v absorbs u: u is a proper prefix of v and v goes on with a non-digit
 * ("2.21.5+cuda12.4" absorbs "2.21.5", "2.21.50" does not). */
static bool absorbs(const char *v, const char *u, size_t un)
{
	return strncmp(v, u, un) == 0 && v[un] && !isdigit((unsigned char)v[un]);
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One entry per release: the versions (interned ids, sorted) that no
 * other version absorbs. The ones absorbing a string follow it in sorted
 * order, sharing its prefix: a sort and a short look ahead each, not a
 * comparison of every pair. */
static void versions_keep(const model *m, intset *vs)
{
	size_t n = vs->n;
	const char **s = xmalloc((n ? n : 1) * sizeof *s);
	for (size_t i = 0; i < n; i++)
		s[i] = intern_str(&m->str, vs->v[i]);
	qsort(s, n, sizeof *s, cmp_str_ptr);
	int *keep = xmalloc((n ? n : 1) * sizeof *keep);
	size_t nk = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(s[i]);
		bool absorbed = false;
		/* a chain of nested prefixes is looked at 64 deep at most */
		for (size_t k = i + 1; k < n && k <= i + 64 && strncmp(s[k], s[i], len) == 0 && !absorbed; k++)
			absorbed = absorbs(s[k], s[i], len);
		if (!absorbed)
			keep[nk++] = intern_find(&m->str, slice_from(s[i]));
	}
	intset_free(vs);
	intset_build(vs, keep, nk);
	free(keep);
	free(s);
}

void model_jobinfo(const model *m, jobinfo *j)
{
	*j = (jobinfo){ 0 };
	j->main_comm = -1;
	for (size_t i = 0; i < m->ncomms; i++) {
		const comm *c = &m->comms[i];
		if (j->main_comm < 0 || c->nranks > j->nranks ||
		    (c->nranks == j->nranks && c->nseen > j->ranks_seen)) {
			j->main_comm = (int)i;
			j->nranks = c->nranks;
			j->ranks_seen = c->nseen;
		}
	}
	/* sets built by sorting: the processes may come in any order */
	size_t cap = m->nprocs ? m->nprocs : 1;
	int *hosts = xmalloc(cap * sizeof *hosts), *vers = xmalloc(cap * sizeof *vers), *rk = xmalloc(cap * sizeof *rk);
	size_t nh = 0, nv = 0, nr = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->host >= 0 && p->pid >= 0)
			hosts[nh++] = p->host;
		if (p->version >= 0)
			vers[nv++] = p->version;
		if (p->driver && (!j->driver || p->driver < j->driver))
			j->driver = p->driver;
		int r = model_proc_rank(m, (int)i);
		if (r >= 0 && (p->nranks == j->nranks || j->nranks == 0))
			rk[nr++] = r;
	}
	intset_build(&j->hosts, hosts, nh);
	intset_build(&j->versions, vers, nv);
	versions_keep(m, &j->versions);
	intset ranks = { 0 };
	intset_build(&ranks, rk, nr);
	if ((int)ranks.n > j->ranks_seen)
		j->ranks_seen = (int)ranks.n;
	if (j->nranks && j->ranks_seen > j->nranks)
		j->ranks_seen = j->nranks;
	intset_free(&ranks);
	free(hosts);
	free(vers);
	free(rk);
}

void jobinfo_free(jobinfo *j)
{
	intset_free(&j->hosts);
	intset_free(&j->versions);
}

void model_describe_place(const model *m, const intset *ranks, const intset *hosts, strbuf *b)
{
	if (ranks->n) {
		sb_adds(b, ranks->n == 1 ? "rank " : "ranks ");
		ranges_format(b, ranks->v, ranks->n);
	}
	if (hosts->n) {
		sb_adds(b, ranks->n ? " on " : "on ");
		for (size_t i = 0; i < hosts->n && i < 4; i++) {
			if (i)
				sb_adds(b, ", ");
			sb_adds(b, intern_str(&m->str, hosts->v[i]));
		}
		if (hosts->n > 4)
			sb_printf(b, " and %zu more hosts", hosts->n - 4);
	}
}

/* A process that drives several GPUs (nccl-tests -g N): no one rank. */
static bool proc_multi_gpu(const proc *p)
{
	return (p->devs & (p->devs - 1)) != 0;
}

bool model_describe(const model *m, const intset *procs, strbuf *b)
{
	intset ranks = { 0 }, hosts = { 0 };
	if (procs->n == 1 && proc_multi_gpu(&m->procs[procs->v[0]])) {
		const proc *p = &m->procs[procs->v[0]];
		sb_printf(b, "the process %ld", p->pid);
		if (p->host >= 0)
			sb_printf(b, " on %s", intern_str(&m->str, p->host));
		sb_adds(b, " driving GPUs ");
		for (int d = 0, n = 0; d < 64; d++)
			if (p->devs >> d & 1)
				sb_printf(b, "%s%d", n++ ? ", " : "", d);
		return true;
	}
	for (size_t i = 0; i < procs->n; i++) {
		int r = proc_multi_gpu(&m->procs[procs->v[i]]) ? -1 : model_proc_rank(m, procs->v[i]);
		if (r >= 0)
			intset_add(&ranks, r);
		if (m->procs[procs->v[i]].host >= 0)
			intset_add(&hosts, m->procs[procs->v[i]].host);
	}
	/* the subject of a sentence: never a bare "on node-a", never nothing */
	if (!ranks.n && hosts.n)
		sb_adds(b, procs->n == 1 ? "the process " : "the processes ");
	else if (!ranks.n && procs->n == 1 && m->procs[procs->v[0]].pid >= 0)
		sb_printf(b, "the process %ld", m->procs[procs->v[0]].pid);
	else if (!ranks.n && procs->n)
		sb_adds(b, procs->n == 1 ? "the process" : "the processes");
	model_describe_place(m, &ranks, &hosts, b);
	bool one = ranks.n ? ranks.n == 1 : procs->n == 1;
	intset_free(&ranks);
	intset_free(&hosts);
	return one;
}

void model_finding_place(const model *m, const finding *f, intset *ranks, intset *hosts)
{
	intset_addall(ranks, &f->ranks);
	for (size_t i = 0; i < f->procs.n; i++) {
		int r = proc_multi_gpu(&m->procs[f->procs.v[i]]) ? -1 : model_proc_rank(m, f->procs.v[i]);
		if (r >= 0 && !f->ranks.n)
			intset_add(ranks, r);
		if (m->procs[f->procs.v[i]].host >= 0)
			intset_add(hosts, m->procs[f->procs.v[i]].host);
	}
	/* the hosts of the ranks it names: one pass over the processes */
	if (f->ranks.n)
		for (size_t k = 0; k < m->nprocs; k++)
			if (m->procs[k].host >= 0 && intset_has(&f->ranks, model_proc_rank(m, (int)k)))
				intset_add(hosts, m->procs[k].host);
	if (!hosts->n) {
		int only = -1, n = 0;
		for (size_t k = 0; k < m->nprocs && n < 2; k++)
			if (m->procs[k].host >= 0 && m->procs[k].pid >= 0 && m->procs[k].host != only) {
				only = m->procs[k].host;
				n++;
			}
		if (n == 1)
			intset_add(hosts, only);
	}
}

static bool secondary_warn(const char *t)
{
	static const char *const words[] = { "closed by remote peer", "reset by peer", "Connection closed",
					     "remote process exited", "Broken pipe" };
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strstr(t, words[i]))
			return true;
	return false;
}

int model_first_failure(const model *m)
{
	int best = -1, first_any = -1;
	double bt = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (!p->ev_warn.text)
			continue;
		if (first_any < 0)
			first_any = (int)i;
		if (secondary_warn(p->ev_warn.text))
			continue;
		double t = p->warn_time;
		if (best < 0 || (t > 0 && bt > 0 && t < bt)) {
			best = (int)i;
			bt = t;
		}
	}
	return best >= 0 ? best : first_any;
}

void transport_str(unsigned via, strbuf *b)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ TR_P2P, "P2P" }, { TR_SHM, "SHM" }, { TR_NET_IB, "NET/IB" }, { TR_NET_SOCKET, "NET/Socket" },
		{ TR_NET_OTHER, "NET/plugin" }, { TR_GDR, "GDRDMA" }, { TR_COLLNET, "CollNet" }, { TR_NVLS, "NVLS" },
	};
	size_t start = b->n;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (via & names[i].bit) {
			if (b->n > start)
				sb_addc(b, '+');
			sb_adds(b, names[i].name);
		}
}

typedef struct linkkey {
	const hostlink *v;
	int a, b;
} linkkey;

static bool link_eq(const void *ctx, int i)
{
	const linkkey *k = ctx;
	return k->v[i].a == k->a && k->v[i].b == k->b;
}


size_t model_hostlinks(const model *m, hostlink **out)
{
	hostlink *v = NULL;
	size_t n = 0, cap = 0;
	hashidx idx = { 0 }; /* v by host pair */
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->host < 0 || p->comm < 0)
			continue;
		const comm *c = &m->comms[p->comm];
		for (int k = 0; k < p->nlinks; k++) {
			const struct peerlink *l = &p->links[k];
			int peer = l->from == p->rank ? l->to : l->to == p->rank ? l->from : -1;
			if (peer < 0)
				continue;
			int pp = model_comm_proc(c, peer);
			if (pp < 0 || m->procs[pp].host < 0)
				continue;
			int a = p->host, b = m->procs[pp].host;
			if (a > b) {
				int t = a;
				a = b;
				b = t;
			}
			linkkey lk = { v, a, b };
			int j = hashidx_find(&idx, siphash_ints(&m->hkey, (uint32_t)a, (uint32_t)b), link_eq, &lk);
			if (j < 0) {
				grow(&v, &cap, n, sizeof *v);
				v[n] = (hostlink){ a, b, 0 };
				j = (int)n;
				hashidx_put(&idx, siphash_ints(&m->hkey, (uint32_t)a, (uint32_t)b), (int)n++);
			}
			v[j].via |= p->links[k].via;
		}
	}
	hashidx_free(&idx);
	*out = v;
	return n;
}
