/* Findings from what the kernel and the scheduler said, joined to the
 * job: Xid and SXid lines to the ranks on that GPU (PCI bus id against
 * NCCL's busId and nccl-tests' device table) and their host; OOM kills
 * and scheduler kills to the processes of their host. Also the joins all
 * system checks share (checks_system.h); RAS is checks_ras.c, nccl-tests
 * checks_ncclt.c. */
#include "checks_system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../parser/ncclt.h"
#include "../parser/pcibus.h"
#include "xids.h"

#define GROUP_MAX 64

const char *sys_str(const model *m, int id)
{
	return id >= 0 ? intern_str(&m->str, id) : "";
}

/* ---- hosts, addresses, processes ---- */

static bool is_host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
	       c == '.';
}

/* The host of the processes whose socket address is addr ("10.0.0.12"),
 * or -1. */
int sys_host_of_addr(const model *m, const char *addr)
{
	size_t an = strlen(addr);
	if (!an)
		return -1;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->host < 0)
			continue;
		iface f[20];
		const evref *ev[20];
		int n = used_ifaces(p, f, ev);
		for (int k = 0; k < n; k++) {
			const char *a = sys_str(m, f[k].addr);
			if (strlen(a) >= an && strncmp(a, addr, an) == 0 && !is_host_char(a[an]) && a[an] != ':')
				return p->host;
		}
	}
	return -1;
}

bool sys_host_known(const model *m, int h)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].host == h && m->procs[i].pid >= 0)
			return true;
	return false;
}

/* A host the name of an input names ("dmesg-node-b.txt"), the longest. */
static int host_of_name(const model *m, int file)
{
	if (file < 0 || (size_t)file >= m->nin)
		return -1;
	const char *name = m->in[file].name;
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	int best = -1;
	size_t best_n = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		int h = m->procs[i].host;
		if (h < 0 || m->procs[i].pid < 0)
			continue;
		const char *hs = sys_str(m, h);
		size_t hn = strlen(hs);
		if (hn <= best_n || hn < 2)
			continue;
		for (const char *p = strstr(base, hs); p; p = strstr(p + 1, hs))
			if ((p == base || !is_host_char(p[-1]) || p[-1] == '_' || p[-1] == '.' || p[-1] == '-') &&
			    (!is_host_char(p[hn]) || p[hn] == '.' || p[hn] == '_' || p[hn] == '-')) {
				best = h;
				best_n = hn;
				break;
			}
	}
	return best;
}

/* The one host of the NCCL processes an input holds, or -1. */
static int host_of_file(const model *m, int file)
{
	int h = -1;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->file != file || p->pid < 0 || p->host < 0)
			continue;
		if (h >= 0 && h != p->host)
			return -1;
		h = p->host;
	}
	return h;
}

static int only_host(const model *m)
{
	int h = -1;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->pid < 0 || p->host < 0)
			continue;
		if (h >= 0 && h != p->host)
			return -1;
		h = p->host;
	}
	return h;
}

/* Where an event happened: the host its line names (a name, or an address
 * the logs give a host), else the host of its input's processes, else one
 * its input's name names, else the job's only host; -1 when unknown. */
int sys_event_host(const model *m, const sysev *e)
{
	if (e->host >= 0) {
		if (sys_host_known(m, e->host))
			return e->host;
		int h = sys_host_of_addr(m, sys_str(m, e->host));
		return h >= 0 ? h : e->host;
	}
	if (e->proc >= 0 && (size_t)e->proc < m->nprocs && m->procs[e->proc].host >= 0)
		return m->procs[e->proc].host;
	int h = host_of_file(m, e->ev.file);
	if (h < 0)
		h = host_of_name(m, e->ev.file);
	return h >= 0 ? h : only_host(m);
}

void sys_procs_on_host(const model *m, int host, intset *out)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].host == host && m->procs[i].pid >= 0 && host >= 0)
			intset_add(out, (int)i);
}

/* The process with pid on host (any host when -1), if exactly one fits. */
int sys_proc_by_pid(const model *m, int host, long pid)
{
	int found = -1;
	for (size_t i = 0; i < m->nprocs && pid >= 0; i++) {
		const proc *p = &m->procs[i];
		if (p->pid != pid || (host >= 0 && p->host != host))
			continue;
		if (found >= 0)
			return -1;
		found = (int)i;
	}
	return found;
}

void sys_ranks_of(const model *m, const intset *procs, intset *out)
{
	for (size_t i = 0; i < procs->n; i++) {
		int r = model_proc_rank(m, procs->v[i]);
		if (r >= 0)
			intset_add(out, r);
	}
}

void sys_cite(finding *f, const evref *e, int pi)
{
	if (e->text)
		findings_add_evidence(f, e->file, e->line, pi, slice_from(e->text));
}

/* The finding's processes: their ranks and hosts come with them (ranks
 * alone would name every host that has a rank of that number). */
void sys_place(model *m, finding *f, const intset *procs)
{
	(void)m;
	intset_addall(&f->procs, procs);
}

/* ---- Xid and SXid ---- */

typedef struct xgroup {
	int host;
	long code;
	bool sx, fatal;
	bool by_host;   /* no rank is known on the bus: procs are the host's */
	intset buses;   /* interned bus texts */
	intset procs;
	intset ambiguous; /* processes on several hosts that have the bus, when no host is known */
	const sysev *ev[FINDING_MAX_EVIDENCE];
	int nev;
	double time;
	uint64_t count;
} xgroup;

/* The processes whose GPU is on bus b: NCCL's busId, nccl-tests' table. */
static void procs_on_bus(const model *m, int host, const pcibus *b, intset *out)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->busid < 0 || (host >= 0 && p->host != host))
			continue;
		pcibus q;
		if (pcibus_parse(slice_from(sys_str(m, p->busid)), &q) && pcibus_same(b, &q))
			intset_add(out, (int)i);
	}
}

static size_t hosts_of(const model *m, const intset *procs, intset *hosts)
{
	for (size_t i = 0; i < procs->n; i++)
		if (m->procs[procs->v[i]].host >= 0)
			intset_add(hosts, m->procs[procs->v[i]].host);
	return hosts->n;
}

static void xid_group_event(model *m, xgroup *g, const sysev *e, int host)
{
	if (e->a >= 0)
		intset_add(&g->buses, e->a);
	pcibus b;
	intset on = { 0 };
	if (e->a >= 0 && pcibus_parse(slice_from(sys_str(m, e->a)), &b))
		procs_on_bus(m, host, &b, &on);
	if (e->pid >= 0 && host >= 0) {
		int pi = sys_proc_by_pid(m, host, e->pid);
		if (pi >= 0)
			intset_add(&on, pi);
	}
	intset hs = { 0 };
	if (host < 0 && hosts_of(m, &on, &hs) > 1)
		intset_addall(&g->ambiguous, &on);
	else
		intset_addall(&g->procs, &on);
	intset_free(&hs);
	intset_free(&on);
	if (g->nev < FINDING_MAX_EVIDENCE)
		g->ev[g->nev++] = e;
	if (e->time > 0 && (g->time == 0 || e->time < g->time))
		g->time = e->time;
	g->count += e->count;
	if (e->kind == SE_SXID && e->b >= 0 && strncmp(sys_str(m, e->b), "Fatal", 5) == 0)
		g->fatal = true;
}

static void xid_message(model *m, const xgroup *g, const xid_info *xi, strbuf *msg)
{
	sb_printf(msg, "%s %ld", g->sx ? "SXid" : "Xid", g->code);
	if (xi)
		sb_printf(msg, " (%s)", xi->meaning);
	if (g->host >= 0)
		sb_printf(msg, " on %s", sys_str(m, g->host));
	sb_adds(msg, g->sx ? ", NVSwitch " : ", GPU ");
	for (size_t i = 0; i < g->buses.n && i < 4; i++)
		sb_printf(msg, "%s%s", i ? ", " : "", sys_str(m, g->buses.v[i]));
	if (!g->buses.n)
		sb_adds(msg, "?");
	if (g->sx) {
		if (g->nev && g->ev[0]->b >= 0)
			sb_printf(msg, ": %s", sys_str(m, g->ev[0]->b));
		return;
	}
	intset ranks = { 0 };
	sys_ranks_of(m, &g->procs, &ranks);
	if (g->by_host) {
		sb_adds(msg, "; the logs do not show which rank uses that GPU");
		if (ranks.n) {
			sb_printf(msg, " (%s: ", sys_str(m, g->host));
			sb_adds(msg, ranks.n == 1 ? "rank " : "ranks ");
			ranges_format(msg, ranks.v, ranks.n);
			sb_adds(msg, ")");
		}
	} else if (ranks.n) {
		sb_adds(msg, ranks.n == 1 ? " of rank " : " of ranks ");
		ranges_format(msg, ranks.v, ranks.n);
	} else if (g->ambiguous.n) {
		sb_adds(msg, ", which is the GPU of ");
		model_describe(m, &g->ambiguous, msg);
		sb_adds(msg, ": the kernel log names no host");
	}
	intset_free(&ranks);
}

static void xid_hint(model *m, const xgroup *g, const xid_info *xi, strbuf *hint)
{
	if (g->sx) {
		sb_adds(hint, g->fatal ? "a fatal SXid takes down NVLink traffic through that NVSwitch: reset the GPUs and "
					  "NVSwitches (restart nvidia-fabricmanager) or reboot the node, and look the SXid up in "
					  "the Fabric Manager user guide"
				       : "a non-fatal SXid was corrected by the NVSwitch; repeated ones point at a link to check "
					 "with the Fabric Manager user guide");
		return;
	}
	if (xi) {
		sb_printf(hint, "NVIDIA's Xid catalog: %s (%s)", xid_bucket_action(xi->now), xid_bucket_name(xi->now));
		if (xi->then != XB_NONE && xi->then != xi->now && xi->then != XB_IGNORE)
			sb_printf(hint, "; if it recurs, %s (%s)", xid_bucket_action(xi->then), xid_bucket_name(xi->then));
	} else {
		sb_adds(hint, "this Xid is not in NVIDIA's catalog for current GPUs: look it up for the GPU's generation");
	}
	if (g->host >= 0 && xi && xi->now != XB_IGNORE && xi->now != XB_FOLLOW && xi->now != XB_RESTART_APP)
		sb_printf(hint, "; until then keep %s out of the job (Slurm: scontrol update nodename=%s state=drain "
				"reason=\"Xid %ld\"; Kubernetes: kubectl cordon) and restart from the last checkpoint",
			  sys_str(m, g->host), sys_str(m, g->host), g->code);
}

void check_xid(model *m)
{
	xgroup g[GROUP_MAX];
	size_t ng = 0;
	for (size_t i = 0; i < m->nsys; i++) {
		const sysev *e = &m->sys[i];
		if (e->kind != SE_XID && e->kind != SE_SXID)
			continue;
		int host = sys_event_host(m, e);
		size_t k = 0;
		while (k < ng && !(g[k].host == host && g[k].code == e->code && g[k].sx == (e->kind == SE_SXID)))
			k++;
		if (k == ng) {
			if (ng == GROUP_MAX)
				continue;
			g[ng++] = (xgroup){ .host = host, .code = e->code, .sx = e->kind == SE_SXID };
		}
		xid_group_event(m, &g[k], e, host);
	}
	for (size_t k = 0; k < ng; k++) {
		xgroup *x = &g[k];
		const xid_info *xi = x->sx ? NULL : xid_lookup(x->code);
		/* a rank on the bus, or failing that the processes of that host */
		if (!x->procs.n && !x->ambiguous.n && x->host >= 0) {
			sys_procs_on_host(m, x->host, &x->procs);
			x->by_host = true;
		}
		if (x->host < 0 && x->procs.n) {
			intset hs = { 0 };
			if (hosts_of(m, &x->procs, &hs) == 1)
				x->host = hs.v[0];
			intset_free(&hs);
		}
		strbuf msg = { 0 }, hint = { 0 }, key = { 0 };
		xid_message(m, x, xi, &msg);
		xid_hint(m, x, xi, &hint);
		bool minor = x->sx ? !x->fatal : !xi || xi->now == XB_IGNORE || xi->now == XB_FOLLOW;
		sb_printf(&key, "%s:%s:%ld", x->sx ? "sxid" : "xid", sys_str(m, x->host), x->code);
		finding *f = job_finding(m, x->sx ? "nvswitch-sxid" : "gpu-xid", key.p, minor ? SEV_WARNING : SEV_ERROR, msg.p,
					 hint.p, true);
		sys_place(m, f, &x->procs);
		for (int i = 0; i < x->nev; i++)
			sys_cite(f, &x->ev[i]->ev, x->ev[i]->proc);
		f->time = x->time;
		f->count = x->count;
		sb_free(&msg);
		sb_free(&hint);
		sb_free(&key);
		intset_free(&x->buses);
		intset_free(&x->procs);
		intset_free(&x->ambiguous);
	}
}

/* ---- OOM kills and scheduler kills ---- */

static const char *oom_what(long src)
{
	switch (src) {
	case OOM_K8S:
		return "Kubernetes killed a container for exceeding its memory limit (OOMKilled)";
	case OOM_SLURM:
		return "Slurm's memory enforcement killed tasks of the step";
	case OOM_CGROUP:
		return "the memory cgroup's OOM killer ended";
	default:
		return "the kernel's OOM killer ended";
	}
}

/* The OOM kills of one host, as the kernel, the cgroup, Slurm and
 * Kubernetes each saw them: one finding. */
typedef struct oomgroup {
	int host;
	const sysev *best;  /* the most specific line: the kernel's, with the pid */
	intset procs;
	const sysev *ev[FINDING_MAX_EVIDENCE];
	int nev;
	double time;
} oomgroup;

static int oom_rank(long src)
{
	return src == OOM_CGROUP ? 0 : src == OOM_KERNEL ? 1 : src == OOM_SLURM ? 2 : 3;
}

static void oom_procs(const model *m, const sysev *e, int host, intset *out)
{
	int pi = sys_proc_by_pid(m, host, e->pid);
	if (pi < 0 && e->pid >= 0 && host >= 0)
		pi = sys_proc_by_pid(m, -1, e->pid);
	if (pi >= 0)
		intset_add(out, pi);
	for (size_t k = 0; pi < 0 && e->rank >= 0 && k < m->nprocs; k++)
		if (model_proc_rank(m, (int)k) == e->rank && m->procs[k].pid >= 0 && (host < 0 || m->procs[k].host == host))
			intset_add(out, (int)k);
}

void check_oom(model *m)
{
	oomgroup g[GROUP_MAX];
	size_t ng = 0;
	for (size_t i = 0; i < m->nsys; i++) {
		const sysev *e = &m->sys[i];
		if (e->kind != SE_OOM)
			continue;
		int host = sys_event_host(m, e);
		size_t k = 0;
		while (k < ng && g[k].host != host)
			k++;
		if (k == ng) {
			if (ng == GROUP_MAX)
				continue;
			g[ng++] = (oomgroup){ .host = host };
		}
		oomgroup *x = &g[k];
		oom_procs(m, e, host, &x->procs);
		if (!x->best || (e->pid >= 0 && x->best->pid < 0) ||
		    ((e->pid >= 0) == (x->best->pid >= 0) && oom_rank(e->code) < oom_rank(x->best->code)))
			x->best = e;
		if (x->nev < FINDING_MAX_EVIDENCE)
			x->ev[x->nev++] = e;
		if (e->time > 0 && (x->time == 0 || e->time < x->time))
			x->time = e->time;
	}
	/* a kill no line places (Slurm's step line) is the one a placed line names */
	size_t placed = 0, at = 0;
	for (size_t k = 0; k < ng; k++)
		if (g[k].host >= 0) {
			placed++;
			at = k;
		}
	for (size_t k = 0; placed == 1 && k < ng; k++) {
		if (g[k].host >= 0)
			continue;
		for (int i = 0; i < g[k].nev && g[at].nev < FINDING_MAX_EVIDENCE; i++)
			g[at].ev[g[at].nev++] = g[k].ev[i];
		intset_addall(&g[at].procs, &g[k].procs);
		intset_free(&g[k].procs);
		g[k].nev = 0;
		g[k].best = NULL;
	}
	for (size_t k = 0; k < ng; k++) {
		oomgroup *x = &g[k];
		const sysev *e = x->best;
		if (!e)
			continue;
		if (!x->procs.n && x->host >= 0)
			sys_procs_on_host(m, x->host, &x->procs);
		strbuf msg = { 0 }, key = { 0 };
		sb_adds(&msg, oom_what(e->code));
		if (e->code == OOM_KERNEL || e->code == OOM_CGROUP) {
			if (e->pid >= 0)
				sb_printf(&msg, " process %ld", e->pid);
			if (e->b >= 0)
				sb_printf(&msg, " (%s)", sys_str(m, e->b));
		}
		if (x->host >= 0)
			sb_printf(&msg, " on %s", sys_str(m, x->host));
		intset ranks = { 0 };
		sys_ranks_of(m, &x->procs, &ranks);
		if (ranks.n) {
			sb_adds(&msg, ranks.n == 1 ? ", rank " : ", ranks ");
			ranges_format(&msg, ranks.v, ranks.n);
		}
		intset_free(&ranks);
		sb_printf(&key, "oom:%s", sys_str(m, x->host));
		finding *f = job_finding(m, "host-oom-kill", key.p, SEV_ERROR, msg.p,
					 "the host ran out of CPU memory, not GPU memory: lower the data loader's workers and "
					 "prefetch, pinned-memory buffers and per-rank copies of the dataset, or ask the "
					 "scheduler for more (Slurm --mem, Kubernetes resources.limits.memory); dmesg on that "
					 "host shows what used it",
					 true);
		sys_place(m, f, &x->procs);
		for (int i = 0; i < x->nev; i++)
			sys_cite(f, &x->ev[i]->ev, x->ev[i]->proc);
		f->time = x->time;
		intset_free(&x->procs);
		sb_free(&msg);
		sb_free(&key);
	}
}

/* The scheduler's kills, one finding per host and reason; a line that
 * names no host (a Kubernetes event) goes with the one that does. */
typedef struct killgroup {
	int host;
	long code;
	const sysev *first;
	const sysev *ev[FINDING_MAX_EVIDENCE];
	int nev;
	double time;
} killgroup;

static void kill_message(model *m, const killgroup *g, strbuf *msg)
{
	const sysev *e = g->first;
	const char *who = e->a >= 0 ? sys_str(m, e->a) : "the job";
	switch (g->code) {
	case KILL_TIME_LIMIT:
		sb_printf(msg, "the scheduler cancelled %s at its time limit", who);
		break;
	case KILL_PREEMPTED:
		sb_printf(msg, "the scheduler preempted %s", who);
		break;
	case KILL_NODE_FAIL:
		sb_printf(msg, "the scheduler ended %s because a node failed", who);
		break;
	case KILL_REQUEUE:
		sb_printf(msg, "the scheduler requeued %s", who);
		break;
	default:
		sb_printf(msg, "the node evicted %s", e->a >= 0 ? who : "the pod");
		for (int i = 0; i < g->nev; i++)
			if (g->ev[i]->b >= 0 && strcmp(sys_str(m, g->ev[i]->b), "Evicted") != 0) {
				sb_printf(msg, " (%s)", sys_str(m, g->ev[i]->b));
				break;
			}
		break;
	}
	if (g->host >= 0)
		sb_printf(msg, " on %s", sys_str(m, g->host));
}

void check_kills(model *m)
{
	killgroup g[GROUP_MAX];
	size_t ng = 0;
	for (size_t i = 0; i < m->nsys; i++) {
		const sysev *e = &m->sys[i];
		/* a cancel without a reason is srun ending a step after a task
		 * failed as often as a user's scancel: the other findings tell */
		if (e->kind != SE_KILL || e->code == KILL_CANCELLED)
			continue;
		int host = e->host >= 0 ? sys_event_host(m, e) : -1;
		size_t k = 0;
		while (k < ng && !(g[k].host == host && g[k].code == e->code))
			k++;
		if (k == ng) {
			if (ng == GROUP_MAX)
				continue;
			g[ng++] = (killgroup){ .host = host, .code = e->code, .first = e };
		}
		if (g[k].nev < FINDING_MAX_EVIDENCE)
			g[k].ev[g[k].nev++] = e;
		if (e->time > 0 && (g[k].time == 0 || e->time < g[k].time))
			g[k].time = e->time;
	}
	for (size_t k = 0; k < ng; k++) {
		if (g[k].host >= 0)
			continue;
		size_t at = ng, n = 0;
		for (size_t j = 0; j < ng; j++)
			if (g[j].host >= 0 && g[j].code == g[k].code) {
				at = j;
				n++;
			}
		if (n != 1)
			continue;
		for (int i = 0; i < g[k].nev && g[at].nev < FINDING_MAX_EVIDENCE; i++)
			g[at].ev[g[at].nev++] = g[k].ev[i];
		g[k].nev = 0;
	}
	for (size_t k = 0; k < ng; k++) {
		killgroup *x = &g[k];
		if (!x->nev)
			continue;
		bool limit = x->code == KILL_TIME_LIMIT;
		intset procs = { 0 };
		sys_procs_on_host(m, x->host, &procs);
		strbuf msg = { 0 }, key = { 0 };
		kill_message(m, x, &msg);
		sb_printf(&key, "kill:%s:%ld", sys_str(m, x->host), x->code);
		finding *f = job_finding(
			m, limit ? "job-cancelled" : "job-preempted", key.p, limit ? SEV_WARNING : SEV_ERROR, msg.p,
			limit ? "a job that ends at its time limit usually hung first: the findings above say where; "
				"otherwise ask for more time (sbatch --time) or checkpoint more often"
			      : "the job lost its nodes to the scheduler, not to a bug: resubmit it (sbatch --requeue, a "
				"Kubernetes restartPolicy or an elastic launcher), resume from the last checkpoint, and ask the "
				"administrators about the node when a node failure is named",
			true);
		sys_place(m, f, &procs);
		for (int i = 0; i < x->nev; i++)
			sys_cite(f, &x->ev[i]->ev, x->ev[i]->proc);
		f->time = x->time;
		intset_free(&procs);
		sb_free(&msg);
		sb_free(&key);
	}
}
