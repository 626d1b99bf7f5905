/* The cross-rank matcher: each scenario tests/gen_fr.py writes (its
 * scenario.txt says which rank and collective are odd), the same report
 * whatever order dumps come in, and dumps built here for what the
 * generator does not write: coalesced groups, all_to_all totals,
 * all_gather sizes against the group size, a window that moves on, bad
 * ranks.
 * usage: test_frmatch FRDATA_DIR */
#include <dirent.h>
#include <stdlib.h>

#include "../../model/frmatch.h"
#include "check.h"

static const char *dir;

typedef struct scenario {
	int ranks, rank, seq;
	char name[32];
} scenario;

static scenario read_scenario(const char *sub)
{
	scenario s = { 0 };
	char path[4096], line[256];
	snprintf(path, sizeof path, "%s/%s/scenario.txt", dir, sub);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		sscanf(line, "ranks=%d", &s.ranks);
		sscanf(line, "rank=%d", &s.rank);
		sscanf(line, "seq=%d", &s.seq);
		sscanf(line, "scenario=%31s", s.name);
	}
	if (f)
		fclose(f);
	return s;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds every dump of sub, in name order or reversed; returns how many. */
static int add_dir(checks *c, frmatch *m, const char *sub, bool reverse)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, sub);
	DIR *d = opendir(path);
	CHECK(c, d != NULL, "%s", path);
	if (!d)
		return 0;
	char *names[2048];
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < 2048)
		if (!strncmp(de->d_name, "nccl_trace_rank_", 16))
			names[n++] = xstrdup(de->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, cmp_name);
	for (int i = 0; i < n; i++) {
		const char *name = names[reverse ? n - 1 - i : i];
		snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
		frdump dump;
		frdump_error e;
		CHECK(c, frdump_load(path, &dump, &e) == 0, "%s: %s", path, e.msg);
		strbuf err = { 0 };
		CHECK(c, frmatch_add(m, &dump, path, &err) == 0, "%s", err.p);
		sb_free(&err);
		frdump_free(&dump);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	return n;
}

static const frm_pg *default_pg(const frmatch_report *r)
{
	for (size_t i = 0; i < r->npgs; i++)
		if (!strcmp(r->pgs[i].desc, "default_pg"))
			return &r->pgs[i];
	return NULL;
}

static bool only(const int64_t *a, size_t n, int64_t x)
{
	return n == 1 && a[0] == x;
}

static void scenarios(checks *c)
{
	static const char *const subs[] = { "healthy", "missing", "absent", "mismatch", "dtype", "optype", "p2p",
					    "r64-missing" };
	for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
		scenario s = read_scenario(subs[i]);
		CHECK(c, s.ranks > 1, "%s: scenario.txt", subs[i]);
		frmatch *m = frmatch_new();
		int n = add_dir(c, m, subs[i], false);
		bool absent = !strcmp(s.name, "absent");
		CHECK(c, n == s.ranks - absent, "%s: %d dumps", subs[i], n);
		frmatch_report r;
		frmatch_finish(m, &r);
		const frm_pg *g = default_pg(&r);
		CHECK(c, g && g->nmembers == (size_t)s.ranks, "%s: default_pg of %d", subs[i], s.ranks);
		if (!g) {
			frmatch_report_free(&r);
			frmatch_free(m);
			continue;
		}
		CHECK(c, r.nranks == (size_t)s.ranks && r.ranks[s.ranks - 1].rank == s.ranks - 1, "%s: every rank",
		      subs[i]);
		const frm_rank *odd = frm_report_rank(&r, s.rank);
		if (!strcmp(s.name, "healthy")) {
			for (size_t k = 0; k < r.npgs; k++)
				CHECK(c, !r.pgs[k].stuck && !r.pgs[k].nmm_total && !r.pgs[k].nbehind, "healthy: %s",
				      r.pgs[k].name);
			CHECK(c, r.first_stuck == -1 && r.np2p_total == 0 && r.nabsent == 0, "healthy: nothing");
		} else {
			CHECK(c, g->stuck && g->stuck_seq == s.seq, "%s: stuck at %lld, want %d", subs[i],
			      (long long)g->stuck_seq, s.seq);
			CHECK(c, r.first_stuck >= 0 && &r.pgs[r.first_stuck] == g, "%s: the hang began in default_pg",
			      subs[i]);
			CHECK(c, g->stuck_sig_known && !strcmp(g->stuck_sig.op, "all_reduce") &&
					 !strcmp(g->stuck_sig.in_sizes, "[[1088, 1088]]") &&
					 !strcmp(g->stuck_sig.in_dtypes, "Float"),
			      "%s: the stuck call %s %s %s", subs[i], g->stuck_sig.op, g->stuck_sig.in_sizes,
			      g->stuck_sig.in_dtypes);
			CHECK(c, g->max_completed == s.seq - 1 && g->nbehind == 0, "%s: all completed %d", subs[i],
			      s.seq - 1);
			CHECK(c, g->stuck_created_ns > 0 && g->stuck_created_ns <= r.latest_ns, "%s: when it was called",
			      subs[i]);
		}
		bool never = !strcmp(s.name, "missing") || !strcmp(s.name, "p2p");
		if (never) {
			CHECK(c, only(g->missing, g->nmissing, s.rank), "%s: rank %d never called it (%zu missing)",
			      subs[i], s.rank, g->nmissing);
			CHECK(c, g->n_inside == (size_t)s.ranks - 1 && g->n_ahead == 0, "%s: the others wait in it",
			      subs[i]);
			const frm_member *me = frm_pg_member(g, s.rank);
			CHECK(c, me && me->standing == FRM_MISSING && me->last_enqueued == s.seq - 1, "%s: its standing",
			      subs[i]);
			const frm_member *other = frm_pg_member(g, s.rank ? 0 : 1);
			CHECK(c, other && other->standing == FRM_INSIDE && other->state == FR_SCHEDULED,
			      "%s: another rank is inside, scheduled", subs[i]);
			CHECK(c, odd && odd->has_dump && odd->nlast > 0 && odd->user_frame >= 0, "%s: its summary",
			      subs[i]);
			if (odd && odd->user_frame >= 0)
				CHECK(c, !strcmp(odd->frames[odd->user_frame].file, "/workspace/train.py"),
				      "%s: its last frame in the user's code", subs[i]);
		}
		if (absent) {
			CHECK(c, only(g->nodump, g->nnodump, s.rank) && g->nmissing == 0, "absent: no dump of rank %d",
			      s.rank);
			CHECK(c, only(r.absent, r.nabsent, s.rank), "absent: listed once");
			CHECK(c, odd && !odd->has_dump && !odd->file, "absent: a rank entry without a dump");
			const frm_member *me = frm_pg_member(g, s.rank);
			CHECK(c, me && me->standing == FRM_NODUMP, "absent: standing");
		}
		static const struct {
			const char *name;
			frm_kind kind;
			const char *found;
		} mm[] = { { "mismatch", FRM_SIZES, "[[1088, 1087]]" },
			   { "dtype", FRM_DTYPES, "BFloat16" },
			   { "optype", FRM_OP, "all_gather" } };
		for (size_t k = 0; k < 3; k++) {
			if (strcmp(s.name, mm[k].name))
				continue;
			CHECK(c, g->nmm == 1 && g->nmm_total == 1, "%s: one mismatch, %zu", subs[i], g->nmm_total);
			if (!g->nmm)
				continue;
			const frm_mismatch *x = &g->mm[0];
			CHECK(c, x->seq == s.seq && x->kind == mm[k].kind, "%s: %s at %lld", subs[i],
			      frm_kind_name(x->kind), (long long)x->seq);
			CHECK(c, only(x->ranks, x->nranks, s.rank) && x->nranks_total == 1, "%s: rank %d is the odd one",
			      subs[i], s.rank);
			CHECK(c, x->expected_count == (size_t)s.ranks - 1 && x->expected_rank == 0, "%s: the others",
			      subs[i]);
			CHECK(c, strstr(x->found.in_sizes, mm[k].found) || strstr(x->found.in_dtypes, mm[k].found) ||
					 !strcmp(x->found.op, mm[k].found),
			      "%s: what it called: %s %s %s", subs[i], x->found.op, x->found.in_sizes, x->found.in_dtypes);
			CHECK(c, g->nmissing == 0 && g->n_inside == (size_t)s.ranks, "%s: everyone is inside", subs[i]);
			CHECK(c, odd && odd->has_pending && odd->pending.seq == s.seq, "%s: it waits in it too", subs[i]);
		}
		if (!strcmp(s.name, "p2p")) {
			CHECK(c, r.np2p == 1 && r.np2p_total == 1, "p2p: one unpaired, %zu", r.np2p_total);
			if (r.np2p) {
				const frm_p2p *p = &r.p2p[0];
				CHECK(c, p->send && p->rank == s.rank && p->peer == s.rank + 1 && p->peer_has_dump &&
						 !p->size_mismatch && p->pg >= 0 && &r.pgs[p->pg] == g,
				      "p2p: rank %lld sends to %lld", (long long)p->rank, (long long)p->peer);
				CHECK(c, !strcmp(p->sig.op, "send 4->5") || strstr(p->sig.op, "send "), "p2p: %s", p->sig.op);
			}
		} else {
			CHECK(c, r.np2p_total == 0, "%s: no unpaired p2p (%zu)", subs[i], r.np2p_total);
		}
		CHECK(c, !r.mixed_versions && r.dropped == 0 && r.texts_dropped == 0, "%s: nothing dropped", subs[i]);
		frmatch_report_free(&r);
		frmatch_free(m);
	}
}

/* The report does not depend on the order dumps come in. */
static void order(checks *c)
{
	frmatch_report a, b;
	frmatch *m = frmatch_new();
	add_dir(c, m, "r64-missing", false);
	frmatch_finish(m, &a);
	frmatch_free(m);
	m = frmatch_new();
	add_dir(c, m, "r64-missing", true);
	frmatch_finish(m, &b);
	frmatch_free(m);
	bool same = a.npgs == b.npgs && a.nranks == b.nranks && a.first_stuck == b.first_stuck;
	for (size_t i = 0; same && i < a.npgs; i++) {
		const frm_pg *x = &a.pgs[i], *y = &b.pgs[i];
		same = !strcmp(x->name, y->name) && x->stuck == y->stuck && x->stuck_seq == y->stuck_seq &&
		       x->nmissing == y->nmissing && x->n_inside == y->n_inside && x->nmembers == y->nmembers &&
		       !memcmp(x->members, y->members, x->nmembers * sizeof *x->members) &&
		       !strcmp(x->stuck_sig.op, y->stuck_sig.op) && x->stuck_created_ns == y->stuck_created_ns;
	}
	for (size_t i = 0; same && i < a.nranks; i++)
		same = a.ranks[i].rank == b.ranks[i].rank && a.ranks[i].nlast == b.ranks[i].nlast &&
		       a.ranks[i].last[0].pg == b.ranks[i].last[0].pg && a.ranks[i].user_frame == b.ranks[i].user_frame;
	CHECK(c, same, "the same report in either order");
	const frm_pg *g = default_pg(&a);
	CHECK(c, g && g->stuck_seq == 315 && only(g->missing, g->nmissing, 37), "64 ranks: rank 37 never joined 315");
	/* the rings wrapped: record ids start above 0, yet each rank's group
	 * progress comes from pg_status */
	const frm_rank *r37 = frm_report_rank(&a, 37);
	CHECK(c, r37 && r37->nentries == 300 && r37->last[0].record_id > 0, "rank 37's ring wrapped");
	frmatch_report_free(&a);
	frmatch_report_free(&b);
}

/* ---- dumps built here ---- */

typedef struct build {
	frdump d;
	size_t ecap, dcap, tcap;
} build;

static void b_init(build *b, int64_t rank, const char *version)
{
	memset(b, 0, sizeof *b);
	b->d.rank = rank;
	b->d.version = version;
	b->d.comm_lib_version = "";
	sscanf(version, "%d.%d", &b->d.ver_major, &b->d.ver_minor);
}

static void b_pg(build *b, const char *name, const char *desc, int n)
{
	frdump *d = &b->d;
	d->pgs = xrealloc(d->pgs, (d->npgs + 1) * sizeof *d->pgs);
	fr_pg *g = &d->pgs[d->npgs++];
	*g = (fr_pg){ name, desc, xmalloc((size_t)n * sizeof(int64_t)), (size_t)n, true };
	for (int i = 0; i < n; i++)
		g->ranks[i] = i;
}

static size_t b_sizes(build *b, const int64_t *dims, int nd)
{
	frdump *d = &b->d;
	size_t off = d->ndims;
	grow(&d->dims, &b->dcap, d->ndims + (size_t)nd + 1, sizeof *d->dims);
	d->dims[d->ndims++] = nd;
	for (int i = 0; i < nd; i++)
		d->dims[d->ndims++] = dims[i];
	return off;
}

static fr_entry *b_entry(build *b, const char *pg, int64_t seq, const char *prof, fr_state st, int64_t in_numel,
			 int64_t out_numel)
{
	frdump *d = &b->d;
	grow(&d->entries, &b->ecap, d->nentries, sizeof *d->entries);
	grow(&d->dtypes, &b->tcap, d->ndtypes, sizeof *d->dtypes);
	size_t dt = d->ndtypes;
	d->dtypes[d->ndtypes++] = "Float";
	fr_entry *e = &d->entries[d->nentries];
	*e = (fr_entry){ .record_id = (int64_t)d->nentries, .pg_id = 0, .pg_name = pg, .pg_desc = "default_pg",
			 .collective_seq_id = seq, .p2p_seq_id = 0, .profiling_name = prof, .state = st,
			 .time_created_ns = 1000 + (int64_t)d->nentries, .n_in = 1, .n_out = 1, .n_in_dtypes = 1,
			 .n_out_dtypes = 1, .in_dtypes = dt, .out_dtypes = dt, .thread_id = "", .thread_name = "" };
	e->in = b_sizes(b, &in_numel, 1);
	e->out = b_sizes(b, &out_numel, 1);
	d->nentries++;
	return &d->entries[d->nentries - 1];
}

static void b_add(checks *c, frmatch *m, build *b)
{
	strbuf err = { 0 };
	CHECK(c, frmatch_add(m, &b->d, NULL, &err) == 0, "add: %s", err.p);
	sb_free(&err);
	b->d.pool = NULL;
	frdump_free(&b->d);
}

static const frm_pg *only_pg(checks *c, const frmatch_report *r)
{
	CHECK(c, r->npgs == 1, "one group, %zu", r->npgs);
	return r->npgs ? &r->pgs[0] : NULL;
}

static void built(checks *c)
{
	/* coalesced: two all_reduce and the closing "coalesced" under one seq
	 * are one collective; a rank that coalesced other sizes mismatches */
	frmatch *m = frmatch_new();
	for (int r = 0; r < 3; r++) {
		build b;
		b_init(&b, r, "2.7");
		b_pg(&b, "0", "default_pg", 3);
		b_entry(&b, "0", 1, "nccl:all_reduce", FR_COMPLETED, 8, 8);
		b_entry(&b, "0", 1, "nccl:all_reduce", FR_COMPLETED, r == 2 ? 16 : 8, r == 2 ? 16 : 8);
		b_entry(&b, "0", 1, "nccl:coalesced", FR_COMPLETED, 0, 0);
		b_add(c, m, &b);
	}
	frmatch_report rep;
	frmatch_finish(m, &rep);
	const frm_pg *g = only_pg(c, &rep);
	CHECK(c, g && g->nmm == 1 && g->mm[0].kind == FRM_SIZES && only(g->mm[0].ranks, g->mm[0].nranks, 2) &&
			 g->mm[0].expected.ops == 3,
	      "coalesced: rank 2's group differs");
	CHECK(c, g && !g->stuck && g->max_completed == 1, "coalesced: completed as one");
	frmatch_report_free(&rep);
	frmatch_free(m);

	/* all_to_all: sizes may differ per rank; the totals must agree, from 2.4 */
	for (int old = 0; old < 2; old++) {
		m = frmatch_new();
		for (int r = 0; r < 2; r++) {
			build b;
			b_init(&b, r, old ? "2.3" : "2.4");
			b_pg(&b, "0", "default_pg", 2);
			b_entry(&b, "0", 1, "nccl:all_to_all_single", FR_STARTED, r ? 12 : 8, r ? 4 : 8);
			b_add(c, m, &b);
		}
		frmatch_finish(m, &rep);
		g = only_pg(c, &rep);
		if (old)
			CHECK(c, g && g->nmm == 0, "all_to_all before 2.4: sizes not recorded, not compared");
		else
			CHECK(c, g && g->nmm == 1 && g->mm[0].kind == FRM_ALLTOALL, "all_to_all: 20 sent, 12 received");
		CHECK(c, g && g->stuck && g->stuck_seq == 1 && g->n_inside == 2, "all_to_all: both inside");
		frmatch_report_free(&rep);
		frmatch_free(m);
	}

	/* all_gather: the output holds the input of each of the 4 ranks */
	m = frmatch_new();
	for (int r = 0; r < 4; r++) {
		build b;
		b_init(&b, r, "2.10");
		b_pg(&b, "0", "default_pg", 4);
		b_entry(&b, "0", 1, "nccl:_all_gather_base", FR_COMPLETED, 8, 32);
		b_entry(&b, "0", 2, "nccl:_all_gather_base", FR_COMPLETED, 8, 24);
		b_add(c, m, &b);
	}
	frmatch_finish(m, &rep);
	g = only_pg(c, &rep);
	CHECK(c, g && g->nmm == 1 && g->mm[0].kind == FRM_NUMEL && g->mm[0].seq == 2 && g->mm[0].nranks_total == 4,
	      "all_gather of 8 into 24 on 4 ranks");
	frmatch_report_free(&rep);
	frmatch_free(m);

	/* a straggler: rank 1 still in seq 3 while the others completed 5 */
	m = frmatch_new();
	for (int r = 0; r < 3; r++) {
		build b;
		b_init(&b, r, "2.10");
		b_pg(&b, "0", "default_pg", 3);
		for (int s = 1; s <= 5; s++)
			b_entry(&b, "0", s, "nccl:all_reduce", r == 1 && s >= 3 ? FR_STARTED : FR_COMPLETED, 4, 4);
		b_add(c, m, &b);
	}
	frmatch_finish(m, &rep);
	g = only_pg(c, &rep);
	CHECK(c, g && g->stuck && g->stuck_seq == 3 && g->n_ahead == 2 && g->n_inside == 1 &&
			 only(g->behind, g->nbehind, 1) && g->max_completed == 5,
	      "a straggler: rank 1 behind at 3");
	CHECK(c, g && frm_pg_member(g, 1)->last_completed == 2 && frm_pg_member(g, 1)->state == FR_STARTED,
	      "its last completed");
	frmatch_report_free(&rep);
	frmatch_free(m);

	/* a window that moves on: rank 1 is far ahead; rank 0's collectives
	 * fall out of the window, its standing does not */
	m = frmatch_new();
	for (int r = 0; r < 2; r++) {
		build b;
		b_init(&b, r, "2.10");
		b_pg(&b, "0", "default_pg", 2);
		int64_t base = r ? 100000 : 1;
		for (int s = 0; s < 10; s++)
			b_entry(&b, "0", base + s, "nccl:all_reduce", FR_COMPLETED, 4, 4);
		b_add(c, m, &b);
	}
	frmatch_finish(m, &rep);
	g = only_pg(c, &rep);
	CHECK(c, g && g->dropped == 10 && rep.dropped == 10, "10 collectives beyond the window: %zu",
	      g ? g->dropped : 0);
	CHECK(c, g && g->stuck && g->stuck_seq == 11 && only(g->missing, g->nmissing, 0) && g->n_ahead == 1 &&
			 only(g->behind, g->nbehind, 0),
	      "rank 0 never called 11, which rank 1 completed");
	frmatch_report_free(&rep);
	frmatch_free(m);

	/* the default group's entries left both rings; pg_status still tells
	 * that rank 1 never called its collective 9 */
	m = frmatch_new();
	for (int r = 0; r < 2; r++) {
		build b;
		b_init(&b, r, "2.10");
		b_pg(&b, "0", "default_pg", 2);
		b_pg(&b, "1", "tp", 2);
		b.d.status = xcalloc(2, sizeof *b.d.status);
		b.d.nstatus = 2;
		b.d.status[0] = (fr_pg_status){ "0", r ? 8 : 9, -1, 8 };
		b.d.status[1] = (fr_pg_status){ "1", 40, -1, 40 };
		for (int s = 31; s <= 40; s++) {
			fr_entry *e = b_entry(&b, "1", s, "nccl:all_reduce", FR_COMPLETED, 4, 4);
			e->pg_id = 1;
			e->record_id = 100 + s;
		}
		b_add(c, m, &b);
	}
	frmatch_finish(m, &rep);
	g = rep.npgs == 2 ? &rep.pgs[0] : NULL;
	CHECK(c, g && !strcmp(g->desc, "default_pg") && g->stuck && g->stuck_seq == 9 && only(g->missing, g->nmissing, 1),
	      "pg_status of a group with no entries left");
	frmatch_report_free(&rep);
	frmatch_free(m);

	/* bad ranks, a second dump of a rank, a group no pg_config lists */
	m = frmatch_new();
	build b;
	b_init(&b, -1, "2.10");
	strbuf err = { 0 };
	CHECK(c, frmatch_add(m, &b.d, "x", &err) < 0 && strstr(err.p, "no rank"), "no rank: %s", err.p);
	sb_clear(&err);
	b.d.rank = FRMATCH_MAX_RANK + 1;
	CHECK(c, frmatch_add(m, &b.d, "x", &err) < 0 && strstr(err.p, "beyond"), "rank too high: %s", err.p);
	sb_clear(&err);
	b.d.rank = 5;
	b_entry(&b, "7", 1, "nccl:broadcast", FR_SCHEDULED, 4, 4);
	CHECK(c, frmatch_add(m, &b.d, "first", &err) == 0, "rank 5: %s", err.p);
	CHECK(c, frmatch_add(m, &b.d, "second", &err) < 0 && strstr(err.p, "second dump of rank 5") &&
			 strstr(err.p, "first"),
	      "twice: %s", err.p);
	sb_free(&err);
	frdump_free(&b.d);
	frmatch_finish(m, &rep);
	g = only_pg(c, &rep);
	CHECK(c, g && !strcmp(g->name, "7") && g->nmembers == 1 && g->members[0].rank == 5,
	      "an unlisted group learns its members");
	CHECK(c, g && g->stuck && g->stuck_seq == 1 && g->n_inside == 1, "its pending broadcast");
	CHECK(c, rep.nranks == 1 && rep.ranks[0].has_pending && rep.ranks[0].pending.pg == 0, "its pending entry");
	frmatch_report_free(&rep);
	frmatch_free(m);
}

static void names(checks *c)
{
	CHECK(c, !strcmp(frm_standing_name(FRM_MISSING), "missing") && !strcmp(frm_kind_name(FRM_ALLTOALL), "all_to_all"),
	      "names");
}

int main(int argc, char **argv)
{
	checks cc = { 0 }, *c = &cc;
	if (argc != 2) {
		fprintf(stderr, "usage: test_frmatch FRDATA_DIR\n");
		return 2;
	}
	dir = argv[1];
	scenarios(c);
	order(c);
	built(c);
	names(c);
	return check_done(c, "frmatch");
}
