/* Job-level checks: diagnoses that need the whole job, not one line. Each
 * check reads the model and adds findings; none of them looks at bytes.
 * This file holds the job facts the families share and the table of
 * checks in the order they run; the families live in checks_*.c. */
#include "checks.h"
#include "causes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/ipaddr.h"

/* A finding of a job-level check; `scoped` when msg already names the ranks. */
finding *job_finding(model *m, const char *id, const char *key, enum severity sev, const char *msg,
			    const char *hint, bool scoped)
{
	strbuf k = { 0 };
	sb_printf(&k, "job:%s", key ? key : "");
	finding *f = findings_add(&m->fs, m->cat,
				  &(findspec){ .id = id, .key = k.p, .severity = (int)sev, .message = msg, .hint = hint, .job = true },
				  NULL);
	f->scoped = scoped;
	sb_free(&k);
	return f;
}

enum if_kind iface_kind(const model *m, iface f)
{
	const char *name = intern_str(&m->str, f.name);
	ipaddr a;
	bool ok = ipaddr_parse(slice_from(intern_str(&m->str, f.addr)), &a);
	if (strcmp(name, "lo") == 0 || (ok && ipaddr_kind(&a) == IP_LOOPBACK))
		return IFK_LOOP;
	if (model_iface_virtual(name))
		return IFK_VIRTUAL;
	if (ok && ipaddr_kind(&a) == IP_LINK_LOCAL)
		return IFK_LINK_LOCAL;
	return IFK_PHYS;
}

bool iface_addr(const model *m, iface f, ipaddr *a)
{
	return f.addr >= 0 && ipaddr_parse(slice_from(intern_str(&m->str, f.addr)), a);
}

/* The interfaces a process uses for sockets, with the line that shows each. */
int used_ifaces(const proc *p, iface *out, const evref **ev)
{
	int n = 0;
	if (p->boot.name >= 0) {
		ev[n] = &p->ev_boot;
		out[n++] = p->boot;
	}
	if (p->oob.name >= 0) {
		ev[n] = p->ev_net.text ? &p->ev_net : &p->ev_boot;
		out[n++] = p->oob;
	}
	for (int i = 0; i < p->nsocket && n < 18; i++) {
		ev[n] = &p->ev_socket;
		out[n++] = p->socket[i];
	}
	return n;
}

/* Absence means something only once a process has been quiet for a while:
 * always in analyze (all input is there), after m->settle seconds live. */
bool quiet(const model *m, const proc *p)
{
	return m->now <= 0 || m->now - p->last_wall >= m->settle;
}

int count_hosts(const model *m)
{
	int *v = xmalloc((m->nprocs ? m->nprocs : 1) * sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].host >= 0 && m->procs[i].pid >= 0)
			v[n++] = m->procs[i].host;
	intset h = { 0 };
	intset_build(&h, v, n);
	int hosts = (int)h.n;
	intset_free(&h);
	free(v);
	return hosts;
}

static int max_nnodes(const model *m)
{
	int n = 0;
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].nnodes > n)
			n = m->procs[i].nnodes;
	return n;
}

/* A job spans hosts when several hosts log, or NCCL says so (nNodes, NET channels). */
bool multi_host(const model *m)
{
	if (count_hosts(m) > 1 || max_nnodes(m) > 1 || m->table_hosts.n > 1)
		return true;
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].transports & (TR_NET_IB | TR_NET_SOCKET | TR_NET_OTHER))
			return true;
	return false;
}

/* Provably one host: one host name, nNodes 1 or every rank of the job seen there. */
bool single_host(const model *m)
{
	if (count_hosts(m) > 1 || max_nnodes(m) > 1 || m->table_hosts.n > 1)
		return false;
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].transports & (TR_NET_IB | TR_NET_SOCKET | TR_NET_OTHER))
			return false;
	/* nNodes 1, or nccl-tests' table of every rank on one host */
	if (max_nnodes(m) == 1 || m->table_hosts.n == 1)
		return true;
	jobinfo j;
	model_jobinfo(m, &j);
	bool all = j.nranks > 0 && j.ranks_seen >= j.nranks;
	jobinfo_free(&j);
	return all;
}

bool any_error(const model *m)
{
	for (size_t i = 0; i < m->fs.n; i++)
		if (m->fs.v[i].severity == SEV_ERROR)
			return true;
	return false;
}

bool env_is(const model *m, const envset *e, const char *var, const char *val)
{
	return strcmp(intern_str(&m->str, e->var), var) == 0 &&
	       (!val || strcmp(intern_str(&m->str, e->val), val) == 0);
}

/* The checks in the order they run. The order matters where one check
 * reads what another found: the interface checks come first (later hints
 * name the interfaces), the system's reports (Xid, OOM and scheduler
 * kills, RAS) before the watchdog, ranks and init (a GPU fault makes a
 * stuck init certain), the watchdog before ranks and init (a job that
 * timed out makes a stuck init certain), the result chains NCCL handled
 * before both (no error that makes a stuck init certain), the other
 * per-process checks after the findings they adjust, what the caps
 * dropped, and the cause graph last, over all of them. The names are those of the catalog's "emitted_by":
 * "check:NAME". */
static const struct check {
	const char *name;
	void (*run)(model *m);
} checks[] = {
	{ "ifaces", check_ifaces },
	{ "iface-mismatch", check_iface_mismatch },
	{ "iface-not-found", infer_iface_not_found },
	{ "iface-hint", hint_iface_not_found },
	{ "versions", check_versions },
	{ "transport", check_transport },
	{ "env", check_env },
	{ "duplicate-hostname", check_duplicate_hostname },
	{ "duplicate-gpu", check_duplicate_gpu },
	{ "driver", check_driver },
	{ "flight-recorder", check_flight_recorder },
	{ "xid", check_xid },
	{ "oom", check_oom },
	{ "scheduler", check_kills },
	{ "ras", check_ras },
	{ "nccl-tests", check_nccl_tests },
	{ "recovered-chains", check_recovered_chains },
	{ "watchdog", check_watchdog },
	{ "ranks", check_ranks },
	{ "silence", check_silence },
	{ "silence-live", check_silence_live },
	{ "init", check_init },
	{ "place-by-pid", place_by_pid },
	{ "root-warns", cite_root_warns },
	{ "first-failure", hint_first_failure },
	{ "connect-target", name_connect_target },
	{ "caps", check_caps },
	{ "causes", causes_link },
};

void model_check(model *m)
{
	findings_drop_job(&m->fs);
	for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
		checks[i].run(m);
}
