/* Findings from NCCL's RAS (2.24+) and 2.31's diagnostics, joined to the
 * job: a communicator by the hash NCCL prints as commId, a process by its
 * pid and the address its host's interfaces have, or by the RAS address
 * its own INFO line says it listens at. */
#include "checks_system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "0x00cf264a..." and "cf264a..." alike: lower case, no 0x, no leading 0. */
static void hash_norm(const char *h, char *out, size_t cap)
{
	if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X'))
		h += 2;
	while (h[0] == '0' && h[1])
		h++;
	size_t n = 0;
	for (; *h && n + 1 < cap; h++)
		out[n++] = (char)(*h >= 'A' && *h <= 'F' ? *h - 'A' + 'a' : *h);
	out[n] = '\0';
}

/* The communicator of the logs with that hash (commId), or -1. */
static int comm_of_hash(const model *m, int hash)
{
	if (hash < 0)
		return -1;
	char want[24], have[24];
	hash_norm(sys_str(m, hash), want, sizeof want);
	for (size_t i = 0; i < m->ncomms; i++) {
		hash_norm(sys_str(m, m->comms[i].key), have, sizeof have);
		if (strcmp(want, have) == 0)
			return (int)i;
	}
	return -1;
}

/* The process a RAS item names: rank r of its communicator when the logs
 * know it, else its pid on the host its address belongs to. */
static int ras_proc(const model *m, const sysev *e, int *host)
{
	*host = e->host >= 0 ? sys_event_host(m, e) : -1;
	/* "RAS declaring peer 10.0.0.22<30413> as DEAD": the process that listens there */
	if (e->kind == SE_RAS_DEAD && e->pid < 0 && e->a >= 0)
		for (size_t i = 0; i < m->nprocs; i++)
			if (m->procs[i].ras_addr == e->a) {
				if (m->procs[i].host >= 0)
					*host = m->procs[i].host;
				return (int)i;
			}
	int c = comm_of_hash(m, e->a);
	if (c >= 0 && e->rank >= 0 && e->rank <= INT32_MAX && model_comm_proc(&m->comms[c], (int)e->rank) >= 0) {
		int pi = model_comm_proc(&m->comms[c], (int)e->rank);
		if (m->procs[pi].host >= 0)
			*host = m->procs[pi].host;
		return pi;
	}
	int pi = sys_proc_by_pid(m, *host, e->pid);
	if (pi < 0 && e->pid >= 0)
		pi = sys_proc_by_pid(m, -1, e->pid);
	return pi;
}

static void ras_where(const model *m, const sysev *e, int host, int pi, strbuf *msg)
{
	if (e->pid >= 0)
		sb_printf(msg, "process %ld ", e->pid);
	if (host >= 0 && e->host >= 0 && host != e->host)
		sb_printf(msg, "on %s (%s)", sys_str(m, host), sys_str(m, e->host));
	else if (host >= 0 || e->host >= 0)
		sb_printf(msg, "on %s", sys_str(m, host >= 0 ? host : e->host));
	if (e->b >= 0 && (e->kind == SE_RAS_DEAD || e->kind == SE_RAS_NODATA || e->kind == SE_RAS_MISSING))
		sb_printf(msg, ", GPU%s %s", strchr(sys_str(m, e->b), ',') ? "s" : "", sys_str(m, e->b));
	int r = model_proc_rank(m, pi);
	if (r >= 0)
		sb_printf(msg, ", rank %d", r);
}

static void add_peer(model *m, finding *f, const sysev *e)
{
	if (e->host >= 0 && !sys_host_known(m, e->host))
		intset_add(&f->peers, e->host);
}

static void ras_dead(model *m, const sysev *e)
{
	int host, pi = ras_proc(m, e, &host);
	strbuf msg = { 0 }, key = { 0 };
	long pid = pi >= 0 ? m->procs[pi].pid : e->pid;
	sb_adds(&msg, "RAS declared ");
	if (pid < 0 && e->host >= 0)
		sb_printf(&msg, "the process at %s%s%s", sys_str(m, e->host), host >= 0 && host != e->host ? " on " : "",
			  host >= 0 && host != e->host ? sys_str(m, host) : "");
	else {
		sysev x = *e;
		x.pid = pid;
		ras_where(m, &x, host, pi, &msg);
	}
	sb_adds(&msg, " dead: unreachable over the RAS network");
	sb_printf(&key, "ras-dead:%s:%ld", sys_str(m, host >= 0 ? host : e->host), pid);
	finding *f = job_finding(m, "ras-peer-dead", key.p, SEV_ERROR, msg.p,
				 "that process crashed, was killed or hangs outside NCCL: read its last log lines and its "
				 "host's dmesg (OOM killer, Xid), and py-spy dump it if it still runs",
				 true);
	if (pi >= 0)
		intset_add(&f->procs, pi);
	add_peer(m, f, e);
	sys_cite(f, &e->ev, e->proc);
	if (e->time > 0 && (f->time == 0 || e->time < f->time))
		f->time = e->time;
	sb_free(&msg);
	sb_free(&key);
}

/* A missing rank that names no process (2.24 and 2.25 print another hash
 * than NCCL's commId, and "The missing rank: 5" alone): the process the
 * same report says gave no data, when it is the only one and holds that
 * rank. */
static int nodata_proc(const model *m, const sysev *e)
{
	int found = -1, n = 0;
	for (size_t i = 0; i < m->nsys; i++) {
		const sysev *x = &m->sys[i];
		if (x->kind != SE_RAS_NODATA || x->ev.file != e->ev.file)
			continue;
		int h;
		int pi = ras_proc(m, x, &h);
		n++;
		if (pi >= 0 && model_proc_rank(m, pi) == e->rank)
			found = pi;
	}
	return n == 1 ? found : -1;
}

static void ras_missing(model *m, const sysev *e)
{
	int host, pi = ras_proc(m, e, &host);
	if (pi < 0 && e->kind == SE_RAS_MISSING && (pi = nodata_proc(m, e)) >= 0)
		host = m->procs[pi].host;
	strbuf msg = { 0 }, key = { 0 };
	sb_adds(&msg, "RAS got no data from ");
	strbuf where = { 0 };
	ras_where(m, e, host, pi, &where);
	if (e->kind == SE_RAS_MISSING) {
		sb_printf(&msg, "rank %ld of communicator %s", e->rank, sys_str(m, e->a));
		if (where.n)
			sb_printf(&msg, " (%s)", where.p);
	} else {
		sb_adds(&msg, where.n ? where.p : "a process");
	}
	sb_free(&where);
	sb_adds(&msg, ": it did not answer when RAS gathered the communicators' state");
	if (pi >= 0)
		sb_printf(&key, "ras-missing:p%d", pi);
	else
		sb_printf(&key, "ras-missing:%s:%ld:%ld", sys_str(m, e->a), e->rank, e->pid);
	finding *f = job_finding(m, "ras-rank-missing", key.p, SEV_WARNING, msg.p,
				 "query RAS again: a rank missing in repeated queries is hung or dead (its log and its host's "
				 "dmesg say which); one missing once, during init or teardown, can be a transition",
				 true);
	if (pi >= 0)
		intset_add(&f->procs, pi);
	add_peer(m, f, e);
	sys_cite(f, &e->ev, e->proc);
	sb_free(&msg);
	sb_free(&key);
}

static void ras_error(model *m, const sysev *e)
{
	const char *id = model_result_id((int)e->code);
	if (!id)
		return;
	int host, pi = ras_proc(m, e, &host);
	strbuf msg = { 0 }, key = { 0 };
	sb_printf(&msg, "RAS: rank %ld of communicator %s reported %s", e->rank, sys_str(m, e->a),
		  e->b >= 0 ? sys_str(m, e->b) : "an error");
	if (e->pid >= 0 || host >= 0) {
		sb_adds(&msg, " (");
		ras_where(m, e, host, pi, &msg);
		sb_adds(&msg, ")");
	}
	sb_printf(&key, "ras:%s:%ld", sys_str(m, e->a), e->code);
	finding *f = job_finding(m, id, key.p, SEV_DEFAULT, msg.p, NULL, false);
	if (pi >= 0)
		intset_add(&f->procs, pi);
	sys_cite(f, &e->ev, e->proc);
	sb_free(&msg);
	sb_free(&key);
}

static void ras_behind(model *m, const sysev *e)
{
	int host, pi = ras_proc(m, e, &host);
	strbuf msg = { 0 }, key = { 0 };
	sb_printf(&msg, "RAS: rank %ld of communicator %s ", e->rank, sys_str(m, e->a));
	if (e->pid >= 0 || host >= 0) {
		sb_adds(&msg, "(");
		ras_where(m, e, host, pi, &msg);
		sb_adds(&msg, ") ");
	}
	sb_adds(&msg, e->b >= 0 ? sys_str(m, e->b) : "is behind the others");
	sb_printf(&key, "ras-behind:%s", sys_str(m, e->a));
	finding *f = job_finding(m, "straggler-rank", key.p, SEV_WARNING, msg.p,
				 "one RAS query is a snapshot: when repeated queries show the same gap, that rank is stuck "
				 "(py-spy dump it; its last log lines say where)",
				 false);
	f->confidence = CONF_SUSPECTED;
	if (pi >= 0)
		intset_add(&f->procs, pi);
	sys_cite(f, &e->ev, e->proc);
	sb_free(&msg);
	sb_free(&key);
}

/* x is a rank listed ahead in the same report, communicator and gap as e. */
static bool same_gap(const sysev *x, const sysev *e)
{
	return x->kind == SE_RAS_AHEAD && x->ev.file == e->ev.file && x->a == e->a && x->b == e->b;
}

/* A few ranks RAS lists as ahead in some operation: the many it counts
 * are behind them. One finding per report, communicator and gap, naming
 * the ranks listed ahead; the ranks behind are the communicator's others. */
static void ras_ahead(model *m, size_t first)
{
	const sysev *e = &m->sys[first];
	for (size_t i = 0; i < first; i++) {
		const sysev *x = &m->sys[i];
		if (same_gap(x, e))
			return; /* told with the first of its group */
	}
	strbuf msg = { 0 }, key = { 0 }, ahead = { 0 };
	intset ranks = { 0 };
	size_t n = 0;
	for (size_t i = first; i < m->nsys; i++) {
		const sysev *x = &m->sys[i];
		if (!same_gap(x, e))
			continue;
		if (x->rank >= 0 && x->rank <= INT32_MAX && !intset_add(&ranks, (int)x->rank))
			continue;
		if (n < 8)
			sb_printf(&ahead, "%s%ld", n ? ", " : "", x->rank);
		else if (n == 8)
			sb_adds(&ahead, ", ...");
		n++;
	}
	sb_printf(&msg, "RAS: %ld ranks of communicator %s %s while rank%s %s went further: those %ld are behind", e->code,
		  sys_str(m, e->a), sys_str(m, e->b), n == 1 ? "" : "s", ahead.p ? ahead.p : "?", e->code);
	sb_printf(&key, "ras-behind:%s", sys_str(m, e->a));
	finding *f = job_finding(m, "straggler-rank", key.p, SEV_WARNING, msg.p,
				 "one RAS query is a snapshot: when repeated queries show the same gap, the ranks behind are "
				 "stuck before that operation (py-spy dump one; its last log lines say where), and the ranks "
				 "ahead wait for them",
				 false);
	f->confidence = CONF_SUSPECTED;
	/* the ranks behind, when the logs know the communicator's members */
	int c = comm_of_hash(m, e->a);
	if (c >= 0) {
		int *held = NULL;
		size_t nh = model_comm_ranks(&m->comms[c], 0, &held);
		for (size_t k = 0; k < nh; k++) {
			int pi = model_comm_proc(&m->comms[c], held[k]);
			if (pi >= 0 && !intset_has(&ranks, held[k]))
				intset_add(&f->procs, pi);
		}
		free(held);
	}
	for (size_t i = first; i < m->nsys; i++) {
		const sysev *x = &m->sys[i];
		if (same_gap(x, e))
			sys_cite(f, &x->ev, x->proc);
	}
	intset_free(&ranks);
	sb_free(&msg);
	sb_free(&key);
	sb_free(&ahead);
}

static void ras_diag(model *m, const sysev *e)
{
	strbuf msg = { 0 }, key = { 0 };
	const char *check = e->a >= 0 ? sys_str(m, e->a) : "diagnostics";
	sb_printf(&msg, "NCCL DIAG: %s: %s", check, sys_str(m, e->b));
	sb_printf(&key, "diag:%s", check);
	bool p2p = strncmp(check, "p2p", 3) == 0;
	finding *f = job_finding(m, "nccl-diag-info", key.p, p2p ? SEV_ERROR : SEV_WARNING, msg.p,
				 p2p ? "a GPU pair failed NCCL's own P2P verification: test that pair with NCCL_P2P_DISABLE=1 "
				       "(if the job then works, the PCIe/NVLink path or ACS/IOMMU setting of that pair is the "
				       "problem) and check nvidia-smi topo -m and the kernel log"
				     : "the ranks NCCL compared disagree: make the nodes alike (driver, GPU, NVLink state, the "
				       "NCCL_* environment every rank gets from the launcher)",
				 false);
	/* the process that asked is no part of what differs: no place */
	sys_cite(f, &e->ev, -1);
	sb_free(&msg);
	sb_free(&key);
}

/* "COMM_INIT_STUCK: Process 7716 on node 10.0.0.22 managing GPU 2": a
 * process RAS saw stop, in init or in a collective. */
static void ras_stuck(model *m, const sysev *e)
{
	int host, pi = ras_proc(m, e, &host);
	const char *name = sys_str(m, e->a);
	bool init = strstr(name, "INIT") != NULL;
	strbuf msg = { 0 }, key = { 0 }, where = { 0 };
	ras_where(m, e, host, pi, &where);
	sb_printf(&msg, "RAS reports %s for %s", name, where.n ? where.p : "a process");
	if (e->b >= 0 && sys_str(m, e->b)[0])
		sb_printf(&msg, ": %s", sys_str(m, e->b));
	sb_printf(&key, "ras-stuck:%s:%ld", sys_str(m, host), e->pid);
	finding *f = job_finding(m, init ? "init-incomplete" : "straggler-rank", key.p, init ? SEV_ERROR : SEV_WARNING,
				 msg.p,
				 "look at what that process did last (its log lines, py-spy dump); the findings above say "
				 "why it stopped when the logs show it",
				 true);
	if (!init)
		f->confidence = CONF_SUSPECTED;
	if (pi >= 0)
		intset_add(&f->procs, pi);
	add_peer(m, f, e);
	sys_cite(f, &e->ev, e->proc);
	sb_free(&msg);
	sb_free(&key);
	sb_free(&where);
}

void check_ras(model *m)
{
	for (size_t i = 0; i < m->nsys; i++) {
		const sysev *e = &m->sys[i];
		switch (e->kind) {
		case SE_RAS_DEAD:
			ras_dead(m, e);
			break;
		case SE_RAS_MISSING:
			if (e->code == 1)
				ras_dead(m, e);
			else
				ras_missing(m, e);
			break;
		case SE_RAS_NODATA:
			ras_missing(m, e);
			break;
		case SE_RAS_ERROR:
			ras_error(m, e);
			break;
		case SE_RAS_BEHIND:
			ras_behind(m, e);
			break;
		case SE_RAS_AHEAD:
			ras_ahead(m, i);
			break;
		case SE_DIAG:
			ras_diag(m, e);
			break;
		case SE_RAS_STUCK:
			ras_stuck(m, e);
			break;
		default:
			break;
		}
	}
}
