/* Merging job models: files are parsed on several threads (a big file in
 * parts, small ones in runs of consecutive files), each part or run into
 * a model of its own, and the models are merged in file order. Merging in
 * that order gives the same model as reading the files one after another:
 * first-seen evidence stays first, findings keep their arrival order. */
#include "model.h"
#include "system.h"
#include "../parser/ras.h"

#include <stdlib.h>
#include <string.h>

typedef struct remap {
	int *file;  /* src input -> dst input */
	uint64_t *shift; /* src input -> lines dst had read of it: a later part's numbers continue */
	int *str;   /* src interned id -> dst id */
	int *proc;  /* src proc -> dst proc */
	int *comm;  /* src comm -> dst comm */
	const intern *dstr; /* dst's strings */
	/* src borrowed dst's input table: files keep their indices, and only
	 * the inputs src read (own_file and the nown after it) are shifted */
	bool borrowed;
	int own_file;
	size_t nown;
} remap;

static int rs(const remap *r, int id)
{
	return id >= 0 ? r->str[id] : id;
}

static int rf(const remap *r, int file)
{
	return file >= 0 && !r->borrowed ? r->file[file] : file;
}

static uint64_t rl(const remap *r, int file, uint64_t line)
{
	if (r->borrowed) {
		size_t i = (size_t)(file - r->own_file);
		return file >= r->own_file && line && i < r->nown ? line + r->shift[i] : line;
	}
	return file >= 0 && line ? line + r->shift[file] : line;
}

static void evref_merge(evref *dst, const evref *src, const remap *r)
{
	if (dst->text || !src->text)
		return;
	*dst = *src;
	dst->file = rf(r, src->file);
	dst->line = rl(r, src->file, src->line);
	dst->text = xstrdup(src->text);
}

/* Cites src's line e (src's numbering) as the first line a cap dropped
 * something from, when it comes before the one dst cites: inputs are
 * merged in reading order, so the smaller (input, line) was read first. */
static void cite_drop(model *dst, const evref *e, const remap *r)
{
	if (!e->text)
		return;
	int file = rf(r, e->file);
	uint64_t line = rl(r, e->file, e->line);
	evref *d = &dst->ev_cap;
	if (d->text && (d->file < file || (d->file == file && d->line <= line)))
		return;
	free(d->text);
	*d = (evref){ 0 };
	evref_merge(d, e, r);
}

static iface iface_map(const remap *r, iface f)
{
	return (iface){ rs(r, f.name), rs(r, f.addr) };
}

/* A process src knew only by its launcher stream is the one dst resolves
 * that stream to, as reading the inputs in one go would have (the order
 * of resolve_proc in model.c); -1 when dst knows none. */
static int pseudo_target(const model *dst, const proc *sp, const remap *r)
{
	int file = rf(r, sp->file), tag = rs(r, sp->tag);
	int d = tag >= 0 ? model_stream_proc(dst, file, tag) : -1;
	if (d >= 0)
		return d;
	bool untagged = tag >= 0 && dst->str.strs[tag][0] == '\0';
	return model_guess_proc(dst, file, sp->lrank, untagged);
}

/* A fact of s as dst numbers it: strings, inputs, communicators and line
 * numbers are renumbered; the rest is as it is. */
#define FACT_MAP_INT(r, s, v, f) (v)
#define FACT_MAP_LONG(r, s, v, f) (v)
#define FACT_MAP_UINT(r, s, v, f) (v)
#define FACT_MAP_U64(r, s, v, f) (v)
#define FACT_MAP_DOUBLE(r, s, v, f) (v)
#define FACT_MAP_BOOL(r, s, v, f) (v)
#define FACT_MAP_PHASE(r, s, v, f) (v)
#define FACT_MAP_STR(r, s, v, f) rs(r, v)
#define FACT_MAP_FILE(r, s, v, f) rf(r, v)
#define FACT_MAP_COMM(r, s, v, f) ((v) >= 0 ? (r)->comm[v] : -1)
#define FACT_MAP_LINE(r, s, v, f) rl(r, (s)->f, v)

/* The merge policies of facts.h. */
#define MERGE_FIRST(type, name, init, f)                                   \
	if (d->name == (init))                                             \
		d->name = FACT_MAP_##type(r, s, s->name, f);
#define MERGE_LAST(type, name, init, f)                                    \
	if (s->name != (init))                                             \
		d->name = FACT_MAP_##type(r, s, s->name, f);
#define MERGE_OR(type, name, init, f) d->name |= s->name;
#define MERGE_MAX(type, name, init, f)                                     \
	if (s->name > d->name)                                             \
		d->name = s->name;
#define MERGE_MINSET(type, name, init, f)                                  \
	if (s->name != (init) && (d->name == (init) || s->name < d->name)) \
		d->name = s->name;
#define MERGE_SUM(type, name, init, f) d->name += s->name;
#define MERGE_OWN(type, name, init, f)

static void proc_merge(proc *d, const proc *s, const remap *r)
{
	/* the ranks of the largest communicator it joined go together. An
	 * init line of as many ranks moves it (on_comm_init); a rank without
	 * a communicator (an info or COMPLETE line) only fills one unknown or
	 * smaller, and leaves the communicator and bus id as they were. */
	if (s->rank >= 0 && (d->rank < 0 || s->nranks > d->nranks || (s->nranks == d->nranks && s->comm >= 0))) {
		d->rank = s->rank;
		d->nranks = s->nranks;
		if (s->comm >= 0)
			d->comm = r->comm[s->comm];
		if (s->busid >= 0)
			d->busid = rs(r, s->busid);
	} else if (d->busid < 0) {
		d->busid = rs(r, s->busid); /* a device table's */
	}
	/* progress in a later part, after the init an earlier part saw
	 * complete: it ran then, whatever inits the later part shows after */
	if (s->progress_unplaced && d->phase >= PH_COMPLETE && d->phase < PH_RUNNING) {
		free(d->ev_last_phase.text);
		d->ev_last_phase = (evref){ 0 };
		evref_merge(&d->ev_last_phase, &s->ev_unplaced, r);
		d->phase = PH_RUNNING;
	}
	if (s->phase > d->phase) {
		/* the line that raised the phase last is the later part's */
		free(d->ev_last_phase.text);
		d->ev_last_phase = (evref){ 0 };
		evref_merge(&d->ev_last_phase, &s->ev_last_phase, r);
		d->phase = s->phase;
	}
	/* a new "-> N" chain starts unrecovered (on_result) */
	if (s->chain_line)
		d->chain_recovered = s->chain_recovered;
	if (!d->ev_warn.text && s->ev_warn.text)
		d->warn_time = s->warn_time;
	/* the banner with "+cudaX.Y" says more than a bare version, and a
	 * later one replaces an earlier one, as in on_version */
	int sv = rs(r, s->version);
	if (sv >= 0 && (d->version < 0 || strchr(intern_str(r->dstr, sv), '+')))
		d->version = sv;
#define X(type, name, init, merge, f) MERGE_##merge(type, name, init, f)
	PROC_FACTS(X)
#undef X
#define X(name) evref_merge(&d->ev_##name, &s->ev_##name, r);
	PROC_EVIDENCE(X)
#undef X
	if (d->boot.name < 0)
		d->boot = iface_map(r, s->boot);
	if (s->oob.name >= 0)
		d->oob = iface_map(r, s->oob); /* each NET/IB line sets it */
	for (int i = 0; i < s->nsocket; i++) {
		iface f = iface_map(r, s->socket[i]);
		bool have = false;
		for (int k = 0; k < d->nsocket; k++)
			have |= d->socket[k].name == f.name;
		if (!have && d->nsocket < (int)(sizeof d->socket / sizeof d->socket[0]))
			d->socket[d->nsocket++] = f;
	}
	for (int i = 0; i < s->nlinks; i++) {
		int k = 0;
		while (k < d->nlinks && !(d->links[k].from == s->links[i].from && d->links[k].to == s->links[i].to))
			k++;
		if (k < d->nlinks)
			d->links[k].via |= s->links[i].via;
		else if (d->nlinks < (int)(sizeof d->links / sizeof d->links[0]))
			d->links[d->nlinks++] = s->links[i];
	}
	/* s's records go on d's ring after d's, oldest first: fewer than
	 * the ring holds leave d's last ones in it */
	unsigned nr = s->nrecent < PROC_RECENT ? s->nrecent : PROC_RECENT;
	for (unsigned i = s->nrecent - nr; i < s->nrecent; i++) {
		const lineref *l = &s->recent[i % PROC_RECENT];
		d->recent[d->nrecent++ % PROC_RECENT] = (lineref){ rf(r, l->file), rl(r, l->file, l->line), l->off };
	}
}

/* Findings by arrival: the order of the first occurrence. */
static int cmp_seq(const void *a, const void *b, void *ctx)
{
	const findings *fs = ctx;
	uint64_t x = fs->v[*(const size_t *)a].seq, y = fs->v[*(const size_t *)b].seq;
	return (x > y) - (x < y);
}

void model_merge(model *dst, const model *src)
{
	remap r = { .dstr = &dst->str };
	r.str = xmalloc((src->str.n ? src->str.n : 1) * sizeof(int));
	for (size_t i = 0; i < src->str.n; i++)
		r.str[i] = intern_get(&dst->str, slice_from(src->str.strs[i]));
	/* inputs: a list both sides share keeps its indices (threads of one
	 * run); other inputs are appended (summaries of other nodes) */
	r.borrowed = src->in_borrowed && src->in == dst->in;
	r.own_file = src->own_file;
	r.nown = r.borrowed ? src->nown : 0;
	r.file = xmalloc((src->nin && !r.borrowed ? src->nin : 1) * sizeof(int));
	size_t nshift = r.borrowed ? r.nown : src->nin;
	r.shift = xmalloc((nshift ? nshift : 1) * sizeof(uint64_t));
	for (size_t i = 0; i < r.nown; i++) {
		input *d = &dst->in[(size_t)src->own_file + i];
		r.shift[i] = d->lines;
		d->lines += src->own[i].lines;
		d->bytes += src->own[i].bytes;
	}
	for (size_t i = 0; i < src->nin && !r.borrowed; i++) {
		bool same = i < dst->nin && strcmp(dst->in[i].name, src->in[i].name) == 0;
		int k = same ? (int)i : model_add_input(dst, src->in[i].name);
		r.file[i] = k;
		r.shift[i] = dst->in[k].lines;
		dst->in[k].lines += src->in[i].lines;
		dst->in[k].bytes += src->in[i].bytes;
		if (!same)
			dst->in[k].frank = src->in[i].frank;
	}
	r.comm = xmalloc((src->ncomms ? src->ncomms : 1) * sizeof(int));
	for (size_t i = 0; i < src->ncomms; i++) {
		const comm *sc = &src->comms[i];
		int key = rs(&r, sc->key);
		comm *dc = key >= 0 ? model_comm_find(dst, key) : NULL;
		if (!dc && key >= 0 && dst->ncomms < MODEL_MAX_COMMS)
			dc = model_comm_get(dst, key, sc->nranks);
		if (dc) {
			dc->lines += sc->lines;
			evref_merge(&dc->ev, &sc->ev, &r);
		} else {
			/* what reading it after dst's inputs would have dropped */
			dst->dropped[CAP_COMMS] += sc->lines;
			cite_drop(dst, &sc->ev, &r);
		}
		r.comm[i] = dc ? (int)(dc - dst->comms) : -1;
	}
	r.proc = xmalloc((src->nprocs ? src->nprocs : 1) * sizeof(int));
	for (size_t i = 0; i < src->nprocs; i++) {
		const proc *sp = &src->procs[i];
		int host = rs(&r, sp->host);
		if (host < 0 && sp->host >= 0) {
			r.proc[i] = -1; /* no room for its host's name (counted): as if unread */
			continue;
		}
		int d = sp->pid >= 0 ? model_proc_find(dst, host, sp->pid) : pseudo_target(dst, sp, &r);
		if (d < 0 && sp->pid >= 0) {
			/* as reading the whole file would: an NCCL process takes over the
			 * anonymous process of the untagged lines before it */
			int st = model_stream_proc(dst, rf(&r, sp->file), -1);
			if (st >= 0 && dst->procs[st].pid < 0 && dst->procs[st].host < 0 && !dst->procs[st].activity_only &&
			    sp->lrank < 0) {
				d = st;
				dst->procs[d].host = host;
				dst->procs[d].pid = sp->pid;
				model_proc_keyed(dst, d);
			}
		}
		if (d < 0 && sp->activity_only) {
			r.proc[i] = -1; /* nobody to give these times to: as if unread */
			continue;
		}
		if (d < 0 && dst->nprocs >= MODEL_MAX_PROCS) {
			dst->dropped[CAP_PROCS] += sp->records;
			r.proc[i] = -1;
			continue;
		}
		if (d < 0) {
			grow(&dst->procs, &dst->proccap, dst->nprocs, sizeof *dst->procs);
			proc *np = &dst->procs[dst->nprocs];
			/* a new process: who it is; the rest comes from proc_merge */
			model_proc_init(np);
			np->host = host;
			np->pid = sp->pid;
			np->file = rf(&r, sp->file);
			np->tag = rs(&r, sp->tag);
			np->activity_only = sp->activity_only;
			d = (int)dst->nprocs++;
		}
		r.proc[i] = d;
		proc_merge(&dst->procs[d], sp, &r);
		model_proc_keyed(dst, d);
	}
	for (size_t i = 0; i < src->ncomms; i++) {
		const comm *sc = &src->comms[i];
		if (r.comm[i] < 0)
			continue;
		comm *dc = &dst->comms[r.comm[i]];
		/* in rank order, not the hash's: a cap keeps the same ranks every run */
		int *v;
		size_t n = model_comm_ranks(sc, 0, &v);
		for (size_t k = 0; k < n; k++) {
			int pi = model_comm_proc(sc, v[k]);
			unsigned fl = (model_comm_has(sc, v[k], CR_SEEN) ? CR_SEEN : 0) | (model_comm_has(sc, v[k], CR_DONE) ? CR_DONE : 0);
			model_comm_mark(dst, dc, v[k], fl, pi >= 0 ? r.proc[pi] : -1);
		}
		free(v);
	}
	for (size_t i = 0; i < src->nwd; i++) {
		const wdog *s = &src->wd[i];
		int pi = r.proc[s->proc];
		if (pi < 0)
			continue;
		wdog *w = model_wdog_find(dst, pi, s->pgrank);
		if (!w && dst->nwd >= MODEL_MAX_WATCHDOG) {
			dst->dropped[CAP_WATCHDOG] += s->lines;
			continue;
		}
		if (!w) {
			grow(&dst->wd, &dst->wdcap, dst->nwd, sizeof *dst->wd);
			w = &dst->wd[dst->nwd];
			*w = (wdog){ pi, s->pgrank, -2, -2, -2, -1, 0, { 0 }, 0, false };
			model_wdog_indexed(dst, (int)dst->nwd++);
		}
		/* what later lines said wins, as in model_match; a status line's
		 * SeqNum only where none was known */
		if (s->seq_told || (s->seq >= -1 && w->seq < -1)) {
			w->seq = s->seq;
			w->seq_told |= s->seq_told;
		}
		if (s->last_enq >= -1)
			w->last_enq = s->last_enq;
		if (s->last_done >= -1)
			w->last_done = s->last_done;
		if (s->op >= 0)
			w->op = rs(&r, s->op);
		if (s->timeout_ms)
			w->timeout_ms = s->timeout_ms;
		w->lines += s->lines;
		evref_merge(&w->ev, &s->ev, &r);
	}
	/* later inputs (or later parts of one) resolve streams as src left them */
	for (size_t i = 0; i < src->streamcap; i++)
		if (src->streams[i].proc >= 0 && r.proc[src->streams[i].proc] >= 0)
			model_stream_set(dst, rf(&r, src->streams[i].file), rs(&r, src->streams[i].tag),
					 r.proc[src->streams[i].proc]);
	for (size_t i = 0; i < src->nenv; i++) {
		const envset *s = &src->env[i];
		int var = rs(&r, s->var), pi = r.proc[s->proc];
		if (pi < 0 || var < 0)
			continue;
		envset *have = model_env_find(dst, pi, var);
		if (have) {
			have->lines += s->lines;
			continue;
		}
		if (dst->nenv >= MODEL_MAX_ENV) {
			dst->dropped[CAP_ENV] += s->lines;
			continue;
		}
		grow(&dst->env, &dst->envcap, dst->nenv, sizeof *dst->env);
		envset *e = &dst->env[dst->nenv];
		*e = (envset){ var, rs(&r, s->val), pi, { 0 }, s->lines };
		model_env_indexed(dst, (int)dst->nenv++);
		evref_merge(&e->ev, &s->ev, &r);
	}
	for (size_t i = 0; i < src->nsys; i++) {
		const sysev *s = &src->sys[i];
		sysev e = *s;
		e.host = rs(&r, s->host);
		e.a = rs(&r, s->a);
		e.b = rs(&r, s->b);
		e.proc = s->proc >= 0 ? r.proc[s->proc] : -1;
		sysev *x = system_event_put(dst, &e);
		if (x) {
			x->count += s->count - 1;
			evref_merge(&x->ev, &s->ev, &r);
		}
	}
	/* the lines a later part could not place, read now after the parts before */
	for (size_t i = 0; i < src->npend; i++) {
		const sysline *l = &src->pend[i];
		sysline d = *l;
		d.ev.file = rf(&r, l->ev.file);
		d.ev.line = rl(&r, l->ev.file, l->ev.line);
		d.proc = l->proc >= 0 ? r.proc[l->proc] : -1;
		bool was = dst->partial;
		dst->partial = false;
		system_replay(dst, &d);
		dst->partial = was;
	}
	/* where a RAS report is at the end of src's part; of a borrowed table
	 * only src's own inputs can have one (a walk of all is N^2 for N files) */
	size_t lo = r.borrowed ? (size_t)src->own_file : 0, hi = r.borrowed ? lo + r.nown : src->nin;
	for (size_t i = lo; i < hi; i++) {
		const input *sin = r.borrowed ? &src->own[i - lo] : &src->in[i];
		if (!sin->ras || !sin->ras->section)
			continue;
		input *din = &dst->in[rf(&r, (int)i)];
		if (!din->ras)
			din->ras = xmalloc(sizeof *din->ras);
		*din->ras = *sin->ras;
	}
	for (size_t i = 0; i < src->nnt; i++) {
		const ntrun *s = &src->nt[i];
		ntrun *d = system_run_get(dst, rf(&r, s->file));
		if (!d)
			continue;
		if (s->program >= 0)
			d->program = rs(&r, s->program); /* its last START line's */
		if (s->col)
			d->col = s->col; /* its last header's */
		if (s->wrong_rows && (!d->wrong_rows || s->wrong_lo < d->wrong_lo))
			d->wrong_lo = s->wrong_lo;
		if (s->wrong_hi > d->wrong_hi)
			d->wrong_hi = s->wrong_hi;
		d->rows += s->rows;
		d->wrong_rows += s->wrong_rows;
		d->wrong += s->wrong;
		if (s->oob >= 0)
			d->oob = s->oob;
		if (s->avg_bw >= 0)
			d->avg_bw = s->avg_bw;
		if (s->max_size > d->max_size || (s->max_size == d->max_size && s->max_busbw > d->max_busbw)) {
			d->max_size = s->max_size;
			d->max_busbw = s->max_busbw;
			free(d->ev_max.text);
			d->ev_max = (evref){ 0 };
		}
		for (size_t k = 0; k < s->procs.n; k++)
			if (r.proc[s->procs.v[k]] >= 0)
				intset_add(&d->procs, r.proc[s->procs.v[k]]);
		evref_merge(&d->ev_head, &s->ev_head, &r);
		evref_merge(&d->ev_wrong, &s->ev_wrong, &r);
		evref_merge(&d->ev_oob, &s->ev_oob, &r);
		evref_merge(&d->ev_bw, &s->ev_bw, &r);
		evref_merge(&d->ev_max, &s->ev_max, &r);
	}
	evref_merge(&dst->ev_killed, &src->ev_killed, &r);
	evref_merge(&dst->ev_excerpt, &src->ev_excerpt, &r);
	for (size_t i = 0; i < src->table_hosts.n; i++)
		intset_add(&dst->table_hosts, rs(&r, src->table_hosts.v[i]));
	/* findings in their arrival order */
	size_t *order = xmalloc((src->fs.n ? src->fs.n : 1) * sizeof *order);
	for (size_t i = 0; i < src->fs.n; i++)
		order[i] = i;
	qsort_r(order, src->fs.n, sizeof *order, cmp_seq, (void *)&src->fs);
	for (size_t oi = 0; oi < src->fs.n; oi++) {
		const finding *s = &src->fs.v[order[oi]];
		if (s->job)
			continue;
		finding *f = findings_add(&dst->fs, dst->cat,
					  &(findspec){ .id = s->id, .key = s->key, .title = s->title, .severity = (int)s->severity,
						       .message = s->message, .hint = s->hint },
					  NULL);
		f->scoped |= s->scoped;
		for (size_t k = 0; k < s->procs.n; k++)
			if (r.proc[s->procs.v[k]] >= 0)
				intset_add(&f->procs, r.proc[s->procs.v[k]]);
		for (size_t k = 0; k < s->ranks.n; k++)
			findings_add_key(&dst->fs, f, &f->ranks, s->ranks.v[k]);
		for (size_t k = 0; k < s->peers.n; k++)
			if (rs(&r, s->peers.v[k]) >= 0)
				findings_add_key(&dst->fs, f, &f->peers, rs(&r, s->peers.v[k]));
		for (size_t k = 0; k < s->pids.n; k++)
			findings_add_key(&dst->fs, f, &f->pids, s->pids.v[k]);
		/* one line per process, as findings_note keeps them: two processes
		 * of src may be one in dst */
		bool took = false;
		for (size_t k = 0; k < s->nev; k++) {
			int pi = s->ev[k].proc >= 0 ? r.proc[s->ev[k].proc] : -1;
			bool cited = false;
			for (size_t j = 0; j < f->nev && pi >= 0; j++)
				cited |= f->ev[j].proc == pi;
			/* the next physical line of a joined record goes with its first */
			const evidence *pe = k ? &s->ev[k - 1] : NULL;
			bool rest = took && pe->proc == s->ev[k].proc && pe->file == s->ev[k].file &&
				    pe->line + 1 == s->ev[k].line;
			took = f->nev == 0 || !cited || rest;
			if (took)
				findings_add_evidence(f, rf(&r, s->ev[k].file), rl(&r, s->ev[k].file, s->ev[k].line), pi,
						      slice_from(s->ev[k].text));
		}
		f->count += s->count;
		if (s->time > 0 && (f->time == 0 || s->time < f->time))
			f->time = s->time;
	}
	free(order);
	/* what src's caps dropped of its input (not of a check run it had);
	 * every part was read with the same rules: they failed to load once */
	uint64_t rules = src->dropped[CAP_RULES] > dst->dropped[CAP_RULES] ? src->dropped[CAP_RULES] : dst->dropped[CAP_RULES];
	for (int k = 0; k < CAP_COUNT; k++)
		dst->dropped[k] += model_dropped(src, (enum model_cap)k) - (k == CAP_FINDINGS ? src->fs.dropped.job : 0);
	dst->dropped[CAP_RULES] = rules;
	cite_drop(dst, &src->ev_cap, &r);
	dst->nloose += src->nloose;
	dst->nccl_records += src->nccl_records;
	dst->matched += src->matched;
	free(r.file);
	free(r.shift);
	free(r.str);
	free(r.proc);
	free(r.comm);
}

/* dst holds nothing yet and src read the start of one of dst's inputs on
 * a thread: src is what reading that input into dst would have made. */
static bool adoptable(const model *dst, const model *src)
{
	bool blank = !dst->nprocs && !dst->ncomms && !dst->nwd && !dst->nenv && !dst->fs.n && !dst->str.n && !dst->nsys &&
		     !dst->nnt && !dst->npend && !dst->fr && !dst->ev_killed.text && !dst->ev_excerpt.text &&
		     !dst->ev_cap.text && !dst->table_hosts.n && !dst->nstreams && !dst->nloose && !dst->nccl_records &&
		     !dst->matched && !caps_total(dst);
	if (!blank || !src->in_borrowed || src->in != dst->in || src->npend || src->partial)
		return false;
	for (size_t i = 0; i < src->nown; i++)
		if (dst->in[(size_t)src->own_file + i].lines)
			return false;
	return true;
}

void model_merge_take(model *dst, model *src)
{
	if (!adoptable(dst, src)) {
		model_merge(dst, src);
		model_free(src);
		return;
	}
	for (size_t i = 0; i < src->nown; i++) {
		input *d = &dst->in[(size_t)src->own_file + i];
		const input *s = &src->own[i];
		d->lines += s->lines;
		d->bytes += s->bytes;
		if (s->ras && s->ras->section) {
			if (!d->ras)
				d->ras = xmalloc(sizeof *d->ras);
			*d->ras = *s->ras;
		}
		free(s->ras);
	}
	free(src->own);
	/* dst keeps who it is (its catalog, inputs and clock) and takes the rest */
	model old = *dst;
	*dst = *src;
	dst->cat = old.cat;
	dst->in = old.in;
	dst->nin = old.nin;
	dst->incap = old.incap;
	dst->in_borrowed = old.in_borrowed;
	dst->own_file = old.own_file;
	dst->own = old.own;
	dst->nown = old.nown;
	dst->now = old.now;
	dst->settle = old.settle;
	dst->partial = old.partial;
	dst->cur = NULL;
	dst->cur_proc = -1;
	/* what old still owns is empty: free it without its inputs */
	old.in = NULL;
	old.nin = 0;
	old.in_borrowed = true;
	old.own = NULL;
	old.nown = 0;
	model_free(&old);
	*src = (model){ 0 };
}
