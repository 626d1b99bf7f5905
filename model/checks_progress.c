/* Checks of progress: ranks that never started or finished init, what the
 * framework's watchdog reports, ranks behind the others or gone silent. */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/ipaddr.h"


/* An excerpt that starts after init (no bootstrap, banner or Init START
 * of any process) shows the ranks that spoke since, not all that were
 * there: their absence tells something only while a process it shows is
 * still connecting, short of its rings and trees (init hangs there). */
static bool ranks_judgeable(const model *m)
{
	bool connecting = false;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->init_start_seen || p->ev_boot.text || p->ev_version.text)
			return true;
		if (!p->init_done && p->phase >= PH_TOPOLOGY && p->phase < PH_CONNECTED)
			connecting = true;
	}
	return connecting;
}

void check_ranks(model *m)
{
	/* live: ranks may still be starting while any process logs */
	for (size_t i = 0; i < m->nprocs; i++)
		if (!quiet(m, &m->procs[i]))
			return;
	/* a cut paste ("[...]") shows some ranks by construction */
	if (m->ev_excerpt.text || !ranks_judgeable(m))
		return;
	jobinfo j;
	model_jobinfo(m, &j);
	if (j.main_comm >= 0 && j.nranks > 1 && (size_t)j.ranks_seen < (size_t)j.nranks) {
		const comm *c = &m->comms[j.main_comm];
		/* a rank is seen in the communicator's own lines or in a line of
		 * its process that names it (Init timings: rank R nranks N) */
		intset seen = { 0 }, missing = { 0 };
		int *held;
		size_t nheld = model_comm_ranks(c, CR_SEEN, &held);
		for (size_t i = 0; i < nheld; i++)
			intset_add(&seen, held[i]);
		free(held);
		for (size_t i = 0; i < m->nprocs; i++) {
			int r = model_proc_rank(m, (int)i);
			if (r >= 0 && m->procs[i].nranks == c->nranks)
				intset_add(&seen, r);
		}
		for (int r = 0; r < c->nranks && r < 1 << 20; r++)
			if (!intset_has(&seen, r))
				intset_add(&missing, r);
		intset_free(&seen);
		strbuf msg = { 0 };
		sb_printf(&msg, "a communicator of %d ranks shows %d of them in the logs; ranks ", c->nranks, j.ranks_seen);
		ranges_format(&msg, missing.v, missing.n);
		sb_adds(&msg, " never appear");
		finding *f = job_finding(m, "rank-missing", NULL, SEV_WARNING, msg.p,
					  "check that every rank's log was collected (one NCCL_DEBUG_FILE per rank, "
					  "e.g. %h-%p.log), and whether the missing ranks' processes started at all",
					  false);
		/* the finding is about the ranks that are not there (the message
		 * lists them all; the finding names as many as any finding does) */
		for (size_t k = 0; k < missing.n && k < FINDING_MAX_KEYS; k++)
			intset_add(&f->ranks, missing.v[k]);
		if (missing.n > FINDING_MAX_KEYS)
			f->scoped = true; /* its ranks are the message's, not the first few it holds */
		/* the init line of the lowest rank known */
		int *ranks;
		size_t nr = model_comm_ranks(c, 0, &ranks);
		for (size_t k = 0; k < nr; k++) {
			int pi = model_comm_proc(c, ranks[k]);
			if (pi >= 0) {
				const proc *p = &m->procs[pi];
				findings_note(f, pi, 0, p->ev_init.file, p->ev_init.line, slice_from(p->ev_init.text));
				break;
			}
		}
		free(ranks);
		intset_free(&missing);
		sb_free(&msg);
	}
	jobinfo_free(&j);
}

/* P2P that hangs without a word: ranks `procs`, and what they did. */
static void report_p2p_hang(model *m, const intset *procs, const char *what)
{
	strbuf msg = { 0 };
	model_describe(m, procs, &msg);
	sb_adds(&msg, what);
	finding *f = job_finding(m, "p2p-hang-suspect", NULL, SEV_WARNING, msg.p,
				 "as a test (not a fix), run with NCCL_P2P_DISABLE=1; if that works, check PCIe ACS "
				 "(`lspci -vvv | grep ACSCtl`) and the IOMMU (`iommu=pt` or off)",
				 true);
	for (size_t i = 0; i < procs->n; i++) {
		const evref *e = &m->procs[procs->v[i]].ev_last_phase;
		findings_note(f, procs->v[i], 0, e->file, e->line, e->text ? slice_from(e->text) : SLICE_NONE);
	}
	sb_free(&msg);
}

/* Absence of Init COMPLETE means a hang only where the log shows the
 * init from its start: a pasted excerpt that begins with channel setup
 * says nothing about how it ended. */
static bool init_seen_from_start(const proc *p)
{
	return p->init_started || p->ev_boot.text || p->ev_version.text;
}

void check_init(model *m)
{
	intset stuck = { 0 }, p2p = { 0 };
	bool any_done = false;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->init_done || p->phase == PH_RUNNING)
			any_done = true;
		else if (p->phase >= PH_BOOTSTRAP && p->phase < PH_COMPLETE && !p->aborted && !p->destroyed &&
			 quiet(m, p) && init_seen_from_start(p))
			intset_add(&stuck, (int)i);
	}
	/* ranks of a communicator seen starting but never completing */
	for (size_t c = 0; c < m->ncomms; c++) {
		int *seen;
		size_t ns = model_comm_ranks(&m->comms[c], CR_SEEN, &seen);
		for (size_t k = 0; k < ns; k++) {
			int pi = model_comm_proc(&m->comms[c], seen[k]);
			if (pi >= 0 && !model_comm_has(&m->comms[c], seen[k], CR_DONE) && !m->procs[pi].aborted &&
			    !m->procs[pi].destroyed && m->procs[pi].phase != PH_RUNNING && !m->procs[pi].init_done &&
			    quiet(m, &m->procs[pi]))
				intset_add(&stuck, pi);
		}
		free(seen);
	}
	if (!stuck.n) {
		intset_free(&stuck);
		return;
	}
	/* Before 2.18.3 there is no "Init START": a bootstrap line alone is weak
	 * evidence that init began, and excerpts often end there. A job that
	 * failed with errors or was killed makes a stuck init certain. */
	bool errors = any_error(m), killed = m->ev_killed.text != NULL, explicit_init = false;
	for (size_t i = 0; i < stuck.n; i++)
		if (m->procs[stuck.v[i]].init_started || m->procs[stuck.v[i]].phase >= PH_TOPOLOGY)
			explicit_init = true;
	/* an excerpt ("[...]") with nothing else wrong: the rest was cut, not hung */
	if (m->ev_excerpt.text && !errors && !killed) {
		intset_free(&stuck);
		return;
	}
	enum severity sev;
	if (explicit_init)
		sev = errors || any_done || killed ? SEV_ERROR : SEV_WARNING;
	else if (!errors && (any_done || killed))
		sev = SEV_WARNING;
	else {
		intset_free(&stuck);
		return;
	}
	strbuf msg = { 0 };
	model_describe(m, &stuck, &msg);
	sb_adds(&msg, " started NCCL init but never logged Init COMPLETE; last phase: ");
	int nphases = 0;
	for (enum phase ph = PH_BOOTSTRAP; ph <= PH_RUNNING; ph++)
		for (size_t i = 0; i < stuck.n; i++)
			if (m->procs[stuck.v[i]].phase == ph) {
				nphases++;
				break;
			}
	for (enum phase ph = PH_BOOTSTRAP; ph <= PH_RUNNING; ph++) {
		intset at = { 0 };
		for (size_t i = 0; i < stuck.n; i++)
			if (m->procs[stuck.v[i]].phase == ph)
				intset_add(&at, stuck.v[i]);
		if (at.n) {
			if (msg.p[msg.n - 1] != ' ')
				sb_adds(&msg, "; ");
			sb_adds(&msg, phase_name(ph));
			if (nphases > 1) {
				sb_adds(&msg, " (");
				model_describe(m, &at, &msg);
				sb_adds(&msg, ")");
			}
		}
		intset_free(&at);
	}
	if (any_done)
		sb_adds(&msg, ", while other ranks completed");
	else if (killed)
		sb_adds(&msg, "; the job was then killed");
	const char *hint = "look at what the stuck ranks did last: a bootstrap phase points at the network "
			   "(interface, firewall), channel-connect at the transport between the ranks named there";
	finding *f = job_finding(m, "init-incomplete", NULL, sev, msg.p, hint, true);
	for (size_t i = 0; i < stuck.n; i++) {
		const proc *p = &m->procs[stuck.v[i]];
		const evref *e = p->ev_last_phase.text ? &p->ev_last_phase : &p->ev_init;
		findings_note(f, stuck.v[i], 0, e->file, e->line, e->text ? slice_from(e->text) : SLICE_NONE);
		if (killed && i + 1 == stuck.n)
			findings_add_evidence(f, m->ev_killed.file, m->ev_killed.line, -1, slice_from(m->ev_killed.text));
		if (p->transports & TR_P2P && p->phase >= PH_CONNECT && !p->warned &&
		    e->text && strstr(e->text, "P2P"))
			intset_add(&p2p, stuck.v[i]);
	}
	if (p2p.n && !errors)
		report_p2p_hang(m, &p2p, " stopped right after P2P channel setup, with no error");
	intset_free(&p2p);
	intset_free(&stuck);
	sb_free(&msg);
}

static int wd_rank(const model *m, const wdog *w)
{
	return w->pgrank >= 0 ? w->pgrank : model_proc_rank(m, w->proc);
}

/* Init completed over P2P, no NCCL warning anywhere, and the first
 * collectives time out: the classic PCIe ACS / IOMMU P2P hang. */
static void check_p2p_hang(model *m, const intset *timed)
{
	intset p2p = { 0 };
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->warned)
			goto out;
		if (p->init_done && (p->transports & TR_P2P))
			intset_add(&p2p, (int)i);
	}
	for (size_t i = 0; i < timed->n; i++)
		if (m->wd[timed->v[i]].seq > 10 || m->wd[timed->v[i]].last_done > 10)
			goto out;
	if (p2p.n && timed->n)
		report_p2p_hang(m, &p2p, " completed init over P2P, then the first collectives hung with no NCCL error");
out:
	intset_free(&p2p);
}

/* A report that says a collective timed out but not which (a line cut
 * before its WorkNCCL(...), a stack frame of the check that timed out). */
static bool unknown_collective(const wdog *w)
{
	return w->seq == -1 && w->op < 0;
}

/* Two reports are of one collective when their SeqNum is the same and
 * their OpTypes do not differ (the PG status lines carry no OpType); a
 * report that does not say which collective is of any. */
static bool same_collective(const wdog *a, const wdog *b)
{
	if (unknown_collective(a) || unknown_collective(b))
		return true;
	return a->seq == b->seq && (a->op < 0 || b->op < 0 || a->op == b->op);
}

/* The reports of one collective, in groups: a report leads the group of
 * those after it that same_collective() puts with it, and that no earlier
 * leader took. same_collective() is not transitive (a report without an
 * OpType goes with any), so the groups follow from that order: within one
 * SeqNum, a first report without an OpType takes all, and one with an
 * OpType takes those with its OpType and those without; every later group
 * is then one OpType whole. Sorting by (SeqNum, OpType) finds them, where
 * comparing every report with every leader took reports times groups. */
typedef struct wdgroups {
	size_t *lead;  /* [position in timed]: the position of its group's leader */
	int *op;       /* [leader position]: the OpType its group reports, -1 none */
	size_t *count; /* [leader position]: the reports of its group */
	size_t *member; /* the positions, grouped by leader, leaders in order */
	size_t *start; /* [leader position]: where its members begin in member */
} wdgroups;

typedef struct wdkey {
	long seq;
	int op; /* -1: none */
	size_t pos;
} wdkey;

static int cmp_wdkey(const void *a, const void *b)
{
	const wdkey *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static void wd_group(const model *m, const intset *timed, wdgroups *g)
{
	size_t n = timed->n;
	wdkey *k = xmalloc(n * sizeof *k);
	g->lead = xmalloc(n * sizeof *g->lead);
	g->op = xmalloc(n * sizeof *g->op);
	g->count = xcalloc(n, sizeof *g->count);
	g->member = xmalloc(n * sizeof *g->member);
	g->start = xmalloc(n * sizeof *g->start);
	for (size_t i = 0; i < n; i++) {
		const wdog *w = &m->wd[timed->v[i]];
		k[i] = (wdkey){ w->seq, w->op >= 0 ? w->op : -1, i };
	}
	qsort(k, n, sizeof *k, cmp_wdkey);
	for (size_t s = 0; s < n;) {
		size_t e = s;
		size_t first = k[s].pos, first_op = (size_t)-1; /* the first report, the first with an OpType */
		for (; e < n && k[e].seq == k[s].seq; e++) {
			if (k[e].pos < first)
				first = k[e].pos;
			if (k[e].op >= 0 && (first_op == (size_t)-1 || k[e].pos < k[first_op].pos))
				first_op = e;
		}
		int lop = m->wd[timed->v[first]].op >= 0 ? m->wd[timed->v[first]].op : -1;
		for (size_t c = s; c < e;) {
			size_t d = c;
			while (d < e && k[d].op == k[c].op)
				d++;
			/* an OpType class is sorted by position: its first leads it */
			size_t leader = lop < 0 || k[c].op < 0 || k[c].op == lop ? first : k[c].pos;
			for (size_t j = c; j < d; j++)
				g->lead[k[j].pos] = leader;
			c = d;
		}
		int gop = first_op == (size_t)-1 ? -1 : k[first_op].op;
		for (size_t j = s; j < e; j++)
			if (g->lead[k[j].pos] == k[j].pos)
				g->op[k[j].pos] = k[j].op >= 0 ? k[j].op : gop;
		s = e;
	}
	free(k);
	/* a report that does not say which collective (a line cut before its
	 * WorkNCCL(...)) joins the first group of reports that do */
	size_t known = (size_t)-1;
	for (size_t i = 0; i < n && known == (size_t)-1; i++)
		if (g->lead[i] == i && !unknown_collective(&m->wd[timed->v[i]]))
			known = i;
	if (known != (size_t)-1)
		for (size_t i = 0; i < n; i++)
			if (unknown_collective(&m->wd[timed->v[i]]) || unknown_collective(&m->wd[timed->v[g->lead[i]]]))
				g->lead[i] = known;
	for (size_t i = 0; i < n; i++)
		g->count[g->lead[i]]++;
	size_t at = 0;
	for (size_t i = 0; i < n; i++)
		if (g->lead[i] == i) {
			g->start[i] = at;
			at += g->count[i];
		}
	size_t *fill = xcalloc(n, sizeof *fill);
	for (size_t i = 0; i < n; i++) {
		size_t l = g->lead[i];
		g->member[g->start[l] + fill[l]++] = i;
	}
	free(fill);
}

static void wd_groups_free(wdgroups *g)
{
	free(g->lead);
	free(g->op);
	free(g->count);
	free(g->member);
	free(g->start);
}

/* The ranks behind, by the first test that singles some out:
 *  1. a rank whose last enqueued work is before `stuck`, the collective
 *     the others timed out in: it never joined it (enqueued counts may
 *     differ otherwise: ranks run ahead enqueueing);
 *  2. a rank whose last completed work is before the others';
 *  3. a rank that timed out in an earlier collective than the others.
 * Each compares reports that carry that number, and only them. */
/* A rank that completed all it enqueued, while another waits in a later
 * collective, never joined that one: true whatever the ranks enqueue
 * ahead, as the waiting rank's own numbers show it. */
static bool check_idle_behind(model *m)
{
	long waits = -2;
	const wdog *waiter = NULL;
	for (size_t i = 0; i < m->nwd; i++) {
		const wdog *w = &m->wd[i];
		if (w->last_done >= -1 && w->last_enq > w->last_done && w->last_enq > waits) {
			waits = w->last_enq;
			waiter = w;
		}
	}
	if (waits < 0)
		return false;
	/* the desync report's own analysis named the rank: say it once */
	if (findings_find(&m->fs, "collective-desync"))
		return true;
	intset sr = { 0 };
	const wdog *ex = NULL;
	for (size_t i = 0; i < m->nwd; i++) {
		const wdog *w = &m->wd[i];
		if (w->last_done < -1 || w->last_enq != w->last_done || w->last_done >= waits)
			continue;
		int r = wd_rank(m, w);
		if (r >= 0)
			intset_add(&sr, r);
		if (!ex || w->last_done < ex->last_done)
			ex = w;
	}
	if (!ex) {
		intset_free(&sr);
		return false;
	}
	strbuf sm = { 0 };
	sb_adds(&sm, sr.n == 1 ? "rank " : "ranks ");
	ranges_format(&sm, sr.v, sr.n);
	if (!sr.n)
		sb_adds(&sm, "?");
	sb_printf(&sm, " %s behind: %s every collective %s enqueued (up to %ld) and never started collective %ld, "
		  "which the others wait in",
		  sr.n > 1 ? "are" : "is", sr.n > 1 ? "they completed" : "it completed", sr.n > 1 ? "they" : "it",
		  ex->last_done, waits);
	finding *f = job_finding(m, "straggler-rank", NULL, SEV_WARNING, sm.p,
				 "inspect what the slow rank was doing after that collective (py-spy dump, its last "
				 "log lines): a data loader stall, an exception, or a branch that skips a collective",
				 true);
	findings_note(f, ex->proc, 0, ex->ev.file, ex->ev.line, slice_from(ex->ev.text));
	if (waiter->ev.text && (waiter->ev.file != ex->ev.file || waiter->ev.line != ex->ev.line))
		findings_note(f, waiter->proc, 0, waiter->ev.file, waiter->ev.line, slice_from(waiter->ev.text));
	f->ranks = sr;
	sb_free(&sm);
	return true;
}

/* Can the watchdog reports come from one process group? There a rank
 * completes a collective only once every rank has enqueued it, so no
 * rank's last enqueued work is before another's last completed one.
 * Reports that break this are of different groups (their own SeqNum
 * counters), and comparing their numbers says nothing of who is behind. */
static bool wd_one_group(const model *m)
{
	long done = -2;
	for (size_t i = 0; i < m->nwd; i++)
		if (m->wd[i].last_done > done)
			done = m->wd[i].last_done;
	for (size_t i = 0; i < m->nwd; i++)
		if (m->wd[i].last_enq >= 0 && m->wd[i].last_enq < done)
			return false;
	return true;
}

static void check_straggler(model *m, long stuck)
{
	if (!wd_one_group(m))
		return;
	if (check_idle_behind(m))
		return;
	static const char *const what[] = {
		"it never enqueued collective %ld, which the others wait in (its last: %ld)",
		"its last completed collective is %2$ld while others completed %1$ld",
		"it timed out in collective %2$ld while others timed out in %1$ld",
	};
	for (int test = 0; test < 3; test++) {
		long lo = -2, hi = -2;
		for (size_t i = 0; i < m->nwd; i++) {
			const wdog *w = &m->wd[i];
			long v = test == 0 ? w->last_enq : test == 1 ? w->last_done : w->seq;
			if (v < -1 || (test == 2 && v < 0))
				continue;
			if (lo < -1 || v < lo)
				lo = v;
			if (v > hi)
				hi = v;
		}
		long limit = test == 0 ? stuck : hi;
		if (lo < -1 || limit < 0 || lo >= limit)
			continue;
		intset sr = { 0 };
		const wdog *ex = NULL;
		long shown = -2;
		for (size_t i = 0; i < m->nwd; i++) {
			const wdog *w = &m->wd[i];
			long v = test == 0 ? w->last_enq : test == 1 ? w->last_done : w->seq;
			if (v < -1 || (test == 2 && v < 0) || (test == 0 ? v >= limit : v != lo))
				continue;
			int r = wd_rank(m, w);
			if (r >= 0)
				intset_add(&sr, r);
			if (!ex) {
				ex = w;
				shown = v;
			}
		}
		strbuf sm = { 0 };
		sb_adds(&sm, sr.n == 1 ? "rank " : "ranks ");
		ranges_format(&sm, sr.v, sr.n);
		sb_printf(&sm, " %s behind: ", sr.n == 1 ? "is" : "are");
		sb_printf(&sm, what[test], limit, shown);
		finding *f = job_finding(m, "straggler-rank", NULL, SEV_WARNING, sm.p,
					 "inspect what the slow rank was doing (py-spy dump, its last log lines): a data "
					 "loader stall, an exception, or a branch that skips a collective",
					 true);
		if (ex)
			findings_note(f, ex->proc, 0, ex->ev.file, ex->ev.line, slice_from(ex->ev.text));
		f->ranks = sr;
		sb_free(&sm);
		return;
	}
}

void check_watchdog(model *m)
{
	intset timed = { 0 };
	for (size_t i = 0; i < m->nwd; i++)
		if (m->wd[i].seq >= -1 || m->wd[i].op >= 0)
			intset_add(&timed, (int)i);
	if (!timed.n) {
		intset_free(&timed);
		check_straggler(m, -1);
		return;
	}
	strbuf msg = { 0 };
	/* one group per collective: "ranks 1-3 timed out in ALLREDUCE SeqNum=19" */
	wdgroups g;
	wd_group(m, &timed, &g);
	int ngroups = 0, big = -1, bigop = -1;
	size_t bign = 0;
	for (size_t a = 0; a < timed.n; a++) {
		if (g.lead[a] != a)
			continue;
		const wdog *x = &m->wd[timed.v[a]];
		size_t cnt = g.count[a];
		/* the largest group is the collective most ranks are in; on a tie,
		 * the one furthest on: the rank behind is the odd one */
		if (cnt > bign || (cnt == bign && big >= 0 && x->seq > m->wd[big].seq)) {
			bign = cnt;
			big = timed.v[a];
			bigop = g.op[a];
		}
		if (ngroups++)
			sb_adds(&msg, "; ");
		/* past what a finding keeps of its message, only the count goes on */
		if (msg.n > FINDING_MAX_TEXT)
			continue;
		int *rv = xmalloc(cnt * sizeof *rv);
		size_t nr = 0;
		for (size_t j = 0; j < cnt; j++) {
			int r = wd_rank(m, &m->wd[timed.v[g.member[g.start[a] + j]]]);
			if (r >= 0)
				rv[nr++] = r;
		}
		intset ranks = { 0 };
		intset_build(&ranks, rv, nr);
		free(rv);
		if (ranks.n) {
			sb_adds(&msg, ranks.n == 1 ? "rank " : "ranks ");
			ranges_format(&msg, ranks.v, ranks.n);
			sb_adds(&msg, " ");
		}
		sb_adds(&msg, "timed out");
		if (g.op[a] >= 0)
			sb_printf(&msg, " in %s", intern_str(&m->str, g.op[a]));
		if (x->seq >= 0)
			sb_printf(&msg, " SeqNum=%ld", x->seq);
		if (x->timeout_ms > 0)
			sb_printf(&msg, " after %ld ms", x->timeout_ms);
		intset_free(&ranks);
	}
	wd_groups_free(&g);
	check_p2p_hang(m, &timed);
	finding *f = job_finding(m, "watchdog-timeout", NULL, SEV_ERROR, msg.p,
				  "a collective never completed: find the rank that did not join it (see straggler "
				  "and desync findings); enable the flight recorder with TORCH_NCCL_TRACE_BUFFER_SIZE=2000 "
				  "and TORCH_NCCL_DUMP_ON_TIMEOUT=1, and take `py-spy dump` of a hung rank",
				  true);
	for (size_t i = 0; i < timed.n; i++) {
		const wdog *w = &m->wd[timed.v[i]];
		findings_note(f, w->proc, 0, w->ev.file, w->ev.line, slice_from(w->ev.text));
		int r = wd_rank(m, w);
		if (r >= 0)
			intset_add(&f->ranks, r);
	}
	sb_free(&msg);
	/* desync: the ranks outside the largest group, where the reports can be of one group */
	if (ngroups > 1 && big >= 0 && wd_one_group(m)) {
		const wdog *maj = &m->wd[big];
		int majop = bigop;
		intset odd = { 0 }, oddp = { 0 };
		strbuf dm = { 0 };
		for (size_t i = 0; i < timed.n; i++) {
			const wdog *w = &m->wd[timed.v[i]];
			if (!same_collective(w, maj) || (majop >= 0 && w->op >= 0 && w->op != majop)) {
				int r = wd_rank(m, w);
				if (r >= 0)
					intset_add(&odd, r);
				intset_add(&oddp, (int)i);
			}
		}
		sb_adds(&dm, "ranks of one group timed out in different collectives: ");
		sb_adds(&dm, odd.n == 1 ? "rank " : "ranks ");
		ranges_format(&dm, odd.v, odd.n);
		sb_adds(&dm, odd.n == 1 ? " differs from the others" : " differ from the others");
		if (majop >= 0)
			sb_printf(&dm, " (%s SeqNum=%ld)", intern_str(&m->str, majop), maj->seq);
		else if (maj->seq >= 0)
			sb_printf(&dm, " (SeqNum=%ld)", maj->seq);
		finding *d = job_finding(m, "collective-desync", NULL, SEV_ERROR, dm.p,
					  "make every rank issue the same collectives in the same order (data-dependent "
					  "branches, uneven data per rank, hooks that run on rank 0 only); "
					  "TORCH_DISTRIBUTED_DEBUG=DETAIL checks this",
					  true);
		for (size_t i = 0; i < oddp.n; i++) {
			const wdog *w = &m->wd[timed.v[oddp.v[i]]];
			findings_note(d, w->proc, 0, w->ev.file, w->ev.line, slice_from(w->ev.text));
		}
		d->ranks = odd;
		intset_free(&oddp);
		sb_free(&dm);
	}
	check_straggler(m, big >= 0 ? m->wd[big].seq : -1);
	intset_free(&timed);
}

/* The newest line of p that the model kept a copy of: the evidence of a
 * rank that went silent, when its very last line was not kept. */
static const evref *newest_copy(const proc *p)
{
#define X(name) &p->ev_##name,
	const evref *all[] = { PROC_EVIDENCE(X) };
#undef X
	const evref *best = NULL;
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		const evref *e = all[i];
		if (!e->text)
			continue;
		/* its last file first, then the latest line */
		bool better = !best || (e->file == p->last_file && best->file != p->last_file) ||
			      (e->file == best->file && e->line > best->line);
		if (better)
			best = e;
	}
	return best;
}

static void note_silent(finding *f, const model *m, int pi, double time)
{
	const evref *e = newest_copy(&m->procs[pi]);
	if (e)
		findings_note(f, pi, time, e->file, e->line, slice_from(e->text));
	else
		findings_note(f, pi, time, -1, 0, SLICE_NONE);
}

/* A rank whose last dated line is long before everyone else's: it went
 * silent (hung, died, or its node did) while the others kept logging. */
void check_silence(model *m)
{
	double first = 0, last = 0;
	int active = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (!time_dated(p->last_time))
			continue;
		active++;
		if (first == 0 || p->first_time < first)
			first = p->first_time;
		if (p->last_time > last)
			last = p->last_time;
	}
	if (active < 3)
		return;
	double limit = (last - first) / 10;
	if (limit < 120)
		limit = 120;
	intset silent = { 0 };
	int later = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (!time_dated(p->last_time))
			continue;
		if (last - p->last_time > limit && !p->destroyed)
			intset_add(&silent, (int)i);
		else
			later++;
	}
	/* most ranks must have kept going: a job-wide stop is no silent rank */
	if (silent.n && later >= 2 && silent.n * 2 < (size_t)active) {
		const proc *p = &m->procs[silent.v[0]];
		long gap = (long)(last - p->last_time);
		strbuf msg = { 0 }, sm = { 0 };
		model_describe(m, &silent, &msg);
		sb_printf(&msg, " went silent %ld min %ld s before the other ranks' last lines", gap / 60, gap % 60);
		finding *f = job_finding(m, "rank-silent", NULL, SEV_WARNING, msg.p,
					 "look at the silent rank's node: a hang (py-spy dump), a crash or OOM kill "
					 "(dmesg), or a lost node; its last lines tell where it stopped",
					 true);
		for (size_t i = 0; i < silent.n; i++)
			note_silent(f, m, silent.v[i], m->procs[silent.v[i]].last_time);
		/* a new finding may move the array: f is not valid past this point */
		model_describe(m, &silent, &sm);
		sb_printf(&sm, " %s behind: its last activity is %ld min %ld s older than the others'",
			  silent.n == 1 ? "is" : "are", gap / 60, gap % 60);
		finding *g = job_finding(m, "straggler-rank", NULL, SEV_WARNING, sm.p,
					 "inspect what the slow rank was doing (py-spy dump, its last log lines)", true);
		for (size_t i = 0; i < silent.n; i++)
			note_silent(g, m, silent.v[i], m->procs[silent.v[i]].last_time);
		sb_free(&msg);
		sb_free(&sm);
	}
	intset_free(&silent);
}

/* Live: a process silent for much longer than the others, which keep
 * logging. Uses arrival times, so it works without timestamps in logs. */
void check_silence_live(model *m)
{
	if (m->now <= 0)
		return;
	intset silent = { 0 };
	int talking = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->pid < 0 || p->last_wall <= 0 || p->destroyed)
			continue;
		double gap = m->now - p->last_wall;
		if (gap < m->settle / 2)
			talking++;
		else if (gap >= m->settle)
			intset_add(&silent, (int)i);
	}
	if (silent.n && talking >= 1 && (size_t)talking >= silent.n) {
		strbuf msg = { 0 };
		model_describe(m, &silent, &msg);
		long gap = (long)(m->now - m->procs[silent.v[0]].last_wall);
		sb_printf(&msg, " %s silent for %ld s while %d other process%s keep logging",
			  silent.n == 1 ? "has been" : "have been", gap, talking, talking == 1 ? "" : "es");
		/* where it was last heard: the line its silence follows */
		const proc *q = &m->procs[silent.v[0]];
		if (q->last_file >= 0 && (size_t)q->last_file < m->nin)
			sb_printf(&msg, "; last heard at %s:%llu", m->in[q->last_file].name, (unsigned long long)q->last_line);
		finding *f = job_finding(m, "rank-silent", "live", SEV_WARNING, msg.p,
					 "look at the silent rank's node: a hang (py-spy dump), a crash or OOM kill "
					 "(dmesg), or a lost node; its last lines tell where it stopped",
					 true);
		for (size_t i = 0; i < silent.n; i++)
			note_silent(f, m, silent.v[i], 0);
		sb_free(&msg);
	}
	intset_free(&silent);
}
