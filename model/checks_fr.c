/* Findings from PyTorch's Flight Recorder dumps, joined with the logs: the
 * ranks a hung collective waits for, with the hosts and last lines the
 * logs give them and the stack frame the dumps saw them in last. */
#include "checks.h"

#include <stdio.h>
#include <string.h>

#include "frmatch.h"

/* The processes the logs know for a global rank. */
static void procs_of_rank(const model *m, int64_t rank, intset *out)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (model_proc_rank(m, (int)i) == rank)
			intset_add(out, (int)i);
}

/* "train.py:88 in step" */
static void last_frame(const frmatch_report *r, int64_t rank, strbuf *b)
{
	const frm_rank *fr = frm_report_rank(r, rank);
	if (!fr || !fr->nframes)
		return;
	const frm_frame *f = &fr->frames[fr->user_frame >= 0 ? fr->user_frame : 0];
	sb_printf(b, "%s:%lld in %s", f->file, (long long)f->line, f->name);
}

static const char *group_name(const frm_pg *g)
{
	return g->desc && *g->desc && strcmp(g->desc, "undefined") != 0 ? g->desc : g->name;
}

static void rank_list(strbuf *b, const int64_t *v, size_t n)
{
	int *tmp = xmalloc((n ? n : 1) * sizeof *tmp);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] >= 0 && v[i] < MODEL_RANKS_MAX)
			tmp[k++] = (int)v[i];
	sb_adds(b, k == 1 ? "rank " : "ranks ");
	ranges_format(b, tmp, k);
	free(tmp);
}

/* Cites a rank's dump, and its log's last word where the logs have it. */
static void cite_rank(model *m, finding *f, const frmatch_report *r, const frm_pg *g, int64_t rank)
{
	intset ps = { 0 };
	procs_of_rank(m, rank, &ps);
	for (size_t i = 0; i < ps.n; i++) {
		intset_add(&f->procs, ps.v[i]);
		const proc *p = &m->procs[ps.v[i]];
		const evref *e = p->ev_warn.text ? &p->ev_warn : &p->ev_last_phase;
		if (e->text)
			findings_add_evidence(f, e->file, e->line, ps.v[i], slice_from(e->text));
	}
	const frm_rank *fr = frm_report_rank(r, rank);
	if (fr && fr->file) {
		strbuf t = { 0 };
		sb_printf(&t, "Flight Recorder: %s #%lld", group_name(g), (long long)g->stuck_seq);
		if (fr->has_pending)
			sb_printf(&t, ", waiting in %s (%s)", fr->pending.sig.op,
				  fr->pending.state == FR_STARTED ? "started" : "scheduled");
		if (fr->nframes) {
			sb_adds(&t, ", last seen at ");
			last_frame(r, rank, &t);
		}
		int file = -1;
		for (size_t k = 0; k < m->nin && file < 0; k++)
			if (strcmp(m->in[k].name, fr->file) == 0)
				file = (int)k;
		findings_add_evidence(f, file, 0, ps.n ? ps.v[0] : -1, (slice){ t.p, t.n });
		sb_free(&t);
	}
	intset_free(&ps);
}

/* One stuck group: who never joined its collective, who left no dump. */
static void stuck_group(model *m, const frmatch_report *r, const frm_pg *g)
{
	bool missing = g->nmissing > 0;
	const int64_t *who = missing ? g->missing : g->nodump;
	size_t nwho = missing ? g->nmissing : g->nnodump;
	if (!nwho)
		return;
	strbuf msg = { 0 }, key = { 0 };
	const char *op = g->stuck_sig_known ? g->stuck_sig.op : "a collective";
	size_t waiting = g->n_inside + g->n_ahead;
	if (missing)
		sb_printf(&msg, "never joined %s #%lld of process group %s, which %zu other rank%s in", op,
			  (long long)g->stuck_seq, group_name(g), waiting, waiting == 1 ? " waits" : "s wait");
	else
		sb_printf(&msg, "left no Flight Recorder dump while %zu rank%s of process group %s wait in %s #%lld",
			  waiting, waiting == 1 ? "" : "s", group_name(g), op, (long long)g->stuck_seq);
	strbuf where = { 0 };
	last_frame(r, who[0], &where);
	if (where.n) {
		sb_printf(&msg, "; last seen at %s", where.p);
	} else {
		/* no dump to say where it was: its log's last word */
		intset ps = { 0 };
		procs_of_rank(m, who[0], &ps);
		const proc *p = ps.n ? &m->procs[ps.v[0]] : NULL;
		const evref *e = p ? (p->ev_warn.text ? &p->ev_warn : &p->ev_last_phase) : NULL;
		if (e && e->text)
			sb_printf(&msg, "; its log last shows \"%.160s\"", e->text);
		intset_free(&ps);
	}
	sb_printf(&key, "fr:%s", g->name);
	finding *f = job_finding(m, "collective-desync", key.p, SEV_ERROR, msg.p,
				 "look at what the ranks named here did instead: their last log lines and stack "
				 "frame (py-spy dump of a live one); a data-dependent branch, an exception or a "
				 "rank that finished early leaves the others waiting",
				 false);
	f->confidence = missing ? CONF_ESTABLISHED : CONF_INFERRED;
	for (size_t i = 0; i < nwho; i++) {
		if (who[i] >= 0 && who[i] < MODEL_RANKS_MAX)
			intset_add(&f->ranks, (int)who[i]);
		cite_rank(m, f, r, g, who[i]);
	}
	sb_free(&msg);
	sb_free(&key);
	sb_free(&where);
}

static void behind(model *m, const frm_pg *g)
{
	if (!g->nbehind)
		return;
	strbuf msg = { 0 }, key = { 0 };
	rank_list(&msg, g->behind, g->nbehind);
	sb_printf(&msg, " %s behind in process group %s: the others completed collective #%lld",
		  g->nbehind == 1 ? "is" : "are", group_name(g), (long long)g->max_completed);
	sb_printf(&key, "fr:%s", g->name);
	finding *f = job_finding(m, "straggler-rank", key.p, SEV_WARNING, msg.p,
				 "inspect what the slow rank was doing (py-spy dump, its last log lines)", false);
	for (size_t i = 0; i < g->nbehind; i++) {
		if (g->behind[i] >= 0 && g->behind[i] < MODEL_RANKS_MAX)
			intset_add(&f->ranks, (int)g->behind[i]);
		procs_of_rank(m, g->behind[i], &f->procs);
	}
	sb_free(&msg);
	sb_free(&key);
}

static void mismatches(model *m, const frm_pg *g)
{
	for (size_t k = 0; k < g->nmm; k++) {
		const frm_mismatch *mm = &g->mm[k];
		strbuf msg = { 0 }, key = { 0 };
		rank_list(&msg, mm->ranks, mm->nranks);
		sb_printf(&msg, " called collective #%lld of process group %s with other %s: %s %s %s where %zu rank%s called %s %s %s",
			  (long long)mm->seq, group_name(g), frm_kind_name(mm->kind), mm->found.op, mm->found.in_sizes,
			  mm->found.in_dtypes, mm->expected_count, mm->expected_count == 1 ? "" : "s", mm->expected.op,
			  mm->expected.in_sizes, mm->expected.in_dtypes);
		sb_printf(&key, "fr:%s:%lld:%d", g->name, (long long)mm->seq, (int)mm->kind);
		finding *f = job_finding(m, "collective-mismatch", key.p, SEV_ERROR, msg.p,
					 "make every rank call the same collectives with the same sizes and dtypes "
					 "(TORCH_DISTRIBUTED_DEBUG=DETAIL checks each call)",
					 false);
		for (size_t i = 0; i < mm->nranks; i++) {
			if (mm->ranks[i] >= 0 && mm->ranks[i] < MODEL_RANKS_MAX)
				intset_add(&f->ranks, (int)mm->ranks[i]);
			procs_of_rank(m, mm->ranks[i], &f->procs);
		}
		sb_free(&msg);
		sb_free(&key);
	}
}

static void unpaired(model *m, const frmatch_report *r)
{
	for (size_t k = 0; k < r->np2p && k < 16; k++) {
		const frm_p2p *x = &r->p2p[k];
		strbuf msg = { 0 }, key = { 0 };
		sb_printf(&msg, "rank %lld's %s %s rank %lld (%s) has %s", (long long)x->rank, x->send ? "send to" : "receive from",
			  "", (long long)x->peer, x->sig.op,
			  x->size_mismatch ? "a partner of another size" : x->peer_has_dump ? "no partner" : "no partner in the dumps");
		sb_printf(&key, "fr:p2p:%lld:%lld", (long long)x->rank, (long long)x->p2p_seq);
		finding *f = job_finding(m, "collective-mismatch", key.p, SEV_ERROR, msg.p,
					 "pair every send with a receive of the same size on the peer, in the same order",
					 false);
		if (x->rank >= 0 && x->rank < MODEL_RANKS_MAX)
			intset_add(&f->ranks, (int)x->rank);
		procs_of_rank(m, x->rank, &f->procs);
		sb_free(&msg);
		sb_free(&key);
	}
}

void check_flight_recorder(model *m)
{
	const frmatch_report *r = m->fr;
	if (!r)
		return;
	/* the group where the hang began first: its finding leads */
	if (r->first_stuck >= 0)
		stuck_group(m, r, &r->pgs[r->first_stuck]);
	for (size_t i = 0; i < r->npgs; i++) {
		const frm_pg *g = &r->pgs[i];
		if (g->stuck && (int)i != r->first_stuck)
			stuck_group(m, r, g);
		behind(m, g);
		mismatches(m, g);
	}
	unpaired(m, r);
}
