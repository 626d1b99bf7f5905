/* Findings from what the system around the job said, joined to the job:
 * kernel Xid and SXid lines to the ranks on that GPU (PCI bus id against
 * NCCL's busId and nccl-tests' device table) and host; OOM kills and
 * scheduler kills to the processes of their host; RAS reports to ranks
 * through the communicator hash NCCL prints (commId) and the addresses
 * the logs show; nccl-tests runs to the ranks of their device table. */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../parser/ncclt.h"
#include "../parser/pcibus.h"
#include "xids.h"

#define GROUP_MAX 64

static const char *str(const model *m, int id)
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
static int host_of_addr(const model *m, const char *addr)
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
			const char *a = str(m, f[k].addr);
			if (strlen(a) >= an && strncmp(a, addr, an) == 0 && !is_host_char(a[an]) && a[an] != ':')
				return p->host;
		}
	}
	return -1;
}

static bool host_known(const model *m, int h)
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
		const char *hs = str(m, h);
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
static int event_host(const model *m, const sysev *e)
{
	if (e->host >= 0) {
		if (host_known(m, e->host))
			return e->host;
		int h = host_of_addr(m, str(m, e->host));
		return h >= 0 ? h : e->host;
	}
	if (e->proc >= 0 && (size_t)e->proc < m->nprocs && m->procs[e->proc].host >= 0)
		return m->procs[e->proc].host;
	int h = host_of_file(m, e->ev.file);
	if (h < 0)
		h = host_of_name(m, e->ev.file);
	return h >= 0 ? h : only_host(m);
}

static void procs_on_host(const model *m, int host, intset *out)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].host == host && m->procs[i].pid >= 0 && host >= 0)
			intset_add(out, (int)i);
}

/* The process with pid on host (any host when -1), if exactly one fits. */
static int proc_by_pid(const model *m, int host, long pid)
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

static void ranks_of(const model *m, const intset *procs, intset *out)
{
	for (size_t i = 0; i < procs->n; i++) {
		int r = model_proc_rank(m, procs->v[i]);
		if (r >= 0)
			intset_add(out, r);
	}
}

static void cite(finding *f, const evref *e, int pi)
{
	if (e->text)
		findings_add_evidence(f, e->file, e->line, pi, slice_from(e->text));
}

/* The finding's processes: their ranks and hosts come with them (ranks
 * alone would name every host that has a rank of that number). */
static void place(model *m, finding *f, const intset *procs)
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
		if (pcibus_parse(slice_from(str(m, p->busid)), &q) && pcibus_same(b, &q))
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
	if (e->a >= 0 && pcibus_parse(slice_from(str(m, e->a)), &b))
		procs_on_bus(m, host, &b, &on);
	if (e->pid >= 0 && host >= 0) {
		int pi = proc_by_pid(m, host, e->pid);
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
	if (e->kind == SE_SXID && e->b >= 0 && strncmp(str(m, e->b), "Fatal", 5) == 0)
		g->fatal = true;
}

static void xid_message(model *m, const xgroup *g, const xid_info *xi, strbuf *msg)
{
	sb_printf(msg, "%s %ld", g->sx ? "SXid" : "Xid", g->code);
	if (xi)
		sb_printf(msg, " (%s)", xi->meaning);
	if (g->host >= 0)
		sb_printf(msg, " on %s", str(m, g->host));
	sb_adds(msg, g->sx ? ", NVSwitch " : ", GPU ");
	for (size_t i = 0; i < g->buses.n && i < 4; i++)
		sb_printf(msg, "%s%s", i ? ", " : "", str(m, g->buses.v[i]));
	if (!g->buses.n)
		sb_adds(msg, "?");
	if (g->sx) {
		if (g->nev && g->ev[0]->b >= 0)
			sb_printf(msg, ": %s", str(m, g->ev[0]->b));
		return;
	}
	intset ranks = { 0 };
	ranks_of(m, &g->procs, &ranks);
	if (g->by_host) {
		sb_adds(msg, "; the logs do not show which rank uses that GPU");
		if (ranks.n) {
			sb_printf(msg, " (%s: ", str(m, g->host));
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
			  str(m, g->host), str(m, g->host), g->code);
}

void check_xid(model *m)
{
	xgroup g[GROUP_MAX];
	size_t ng = 0;
	for (size_t i = 0; i < m->nsys; i++) {
		const sysev *e = &m->sys[i];
		if (e->kind != SE_XID && e->kind != SE_SXID)
			continue;
		int host = event_host(m, e);
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
			procs_on_host(m, x->host, &x->procs);
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
		sb_printf(&key, "%s:%s:%ld", x->sx ? "sxid" : "xid", str(m, x->host), x->code);
		finding *f = job_finding(m, x->sx ? "nvswitch-sxid" : "gpu-xid", key.p, minor ? SEV_WARNING : SEV_ERROR, msg.p,
					 hint.p, true);
		place(m, f, &x->procs);
		for (int i = 0; i < x->nev; i++)
			cite(f, &x->ev[i]->ev, x->ev[i]->proc);
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
	int pi = proc_by_pid(m, host, e->pid);
	if (pi < 0 && e->pid >= 0 && host >= 0)
		pi = proc_by_pid(m, -1, e->pid);
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
		int host = event_host(m, e);
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
			procs_on_host(m, x->host, &x->procs);
		strbuf msg = { 0 }, key = { 0 };
		sb_adds(&msg, oom_what(e->code));
		if (e->code == OOM_KERNEL || e->code == OOM_CGROUP) {
			if (e->pid >= 0)
				sb_printf(&msg, " process %ld", e->pid);
			if (e->b >= 0)
				sb_printf(&msg, " (%s)", str(m, e->b));
		}
		if (x->host >= 0)
			sb_printf(&msg, " on %s", str(m, x->host));
		intset ranks = { 0 };
		ranks_of(m, &x->procs, &ranks);
		if (ranks.n) {
			sb_adds(&msg, ranks.n == 1 ? ", rank " : ", ranks ");
			ranges_format(&msg, ranks.v, ranks.n);
		}
		intset_free(&ranks);
		sb_printf(&key, "oom:%s", str(m, x->host));
		finding *f = job_finding(m, "host-oom-kill", key.p, SEV_ERROR, msg.p,
					 "the host ran out of CPU memory, not GPU memory: lower the data loader's workers and "
					 "prefetch, pinned-memory buffers and per-rank copies of the dataset, or ask the "
					 "scheduler for more (Slurm --mem, Kubernetes resources.limits.memory); dmesg on that "
					 "host shows what used it",
					 true);
		place(m, f, &x->procs);
		for (int i = 0; i < x->nev; i++)
			cite(f, &x->ev[i]->ev, x->ev[i]->proc);
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
	const char *who = e->a >= 0 ? str(m, e->a) : "the job";
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
			if (g->ev[i]->b >= 0 && strcmp(str(m, g->ev[i]->b), "Evicted") != 0) {
				sb_printf(msg, " (%s)", str(m, g->ev[i]->b));
				break;
			}
		break;
	}
	if (g->host >= 0)
		sb_printf(msg, " on %s", str(m, g->host));
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
		int host = e->host >= 0 ? event_host(m, e) : -1;
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
		procs_on_host(m, x->host, &procs);
		strbuf msg = { 0 }, key = { 0 };
		kill_message(m, x, &msg);
		sb_printf(&key, "kill:%s:%ld", str(m, x->host), x->code);
		finding *f = job_finding(
			m, limit ? "job-cancelled" : "job-preempted", key.p, limit ? SEV_WARNING : SEV_ERROR, msg.p,
			limit ? "a job that ends at its time limit usually hung first: the findings above say where; "
				"otherwise ask for more time (sbatch --time) or checkpoint more often"
			      : "the job lost its nodes to the scheduler, not to a bug: resubmit it (sbatch --requeue, a "
				"Kubernetes restartPolicy or an elastic launcher), resume from the last checkpoint, and ask the "
				"administrators about the node when a node failure is named",
			true);
		place(m, f, &procs);
		for (int i = 0; i < x->nev; i++)
			cite(f, &x->ev[i]->ev, x->ev[i]->proc);
		f->time = x->time;
		intset_free(&procs);
		sb_free(&msg);
		sb_free(&key);
	}
}

/* ---- RAS ---- */

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
	hash_norm(str(m, hash), want, sizeof want);
	for (size_t i = 0; i < m->ncomms; i++) {
		hash_norm(str(m, m->comms[i].key), have, sizeof have);
		if (strcmp(want, have) == 0)
			return (int)i;
	}
	return -1;
}

/* The process a RAS item names: rank r of its communicator when the logs
 * know it, else its pid on the host its address belongs to. */
static int ras_proc(const model *m, const sysev *e, int *host)
{
	*host = e->host >= 0 ? event_host(m, e) : -1;
	/* "RAS declaring peer 10.0.0.22<30413> as DEAD": the process that listens there */
	if (e->kind == SE_RAS_DEAD && e->pid < 0 && e->a >= 0)
		for (size_t i = 0; i < m->nprocs; i++)
			if (m->procs[i].ras_addr == e->a) {
				if (m->procs[i].host >= 0)
					*host = m->procs[i].host;
				return (int)i;
			}
	int c = comm_of_hash(m, e->a);
	if (c >= 0 && e->rank >= 0 && e->rank < m->comms[c].rank_cap && m->comms[c].rank_proc[e->rank] >= 0) {
		int pi = m->comms[c].rank_proc[e->rank];
		if (m->procs[pi].host >= 0)
			*host = m->procs[pi].host;
		return pi;
	}
	int pi = proc_by_pid(m, *host, e->pid);
	if (pi < 0 && e->pid >= 0)
		pi = proc_by_pid(m, -1, e->pid);
	return pi;
}

static void ras_where(const model *m, const sysev *e, int host, int pi, strbuf *msg)
{
	if (e->pid >= 0)
		sb_printf(msg, "process %ld ", e->pid);
	if (host >= 0 && e->host >= 0 && host != e->host)
		sb_printf(msg, "on %s (%s)", str(m, host), str(m, e->host));
	else if (host >= 0 || e->host >= 0)
		sb_printf(msg, "on %s", str(m, host >= 0 ? host : e->host));
	if (e->b >= 0 && (e->kind == SE_RAS_DEAD || e->kind == SE_RAS_NODATA || e->kind == SE_RAS_MISSING))
		sb_printf(msg, ", GPU%s %s", strchr(str(m, e->b), ',') ? "s" : "", str(m, e->b));
	int r = model_proc_rank(m, pi);
	if (r >= 0)
		sb_printf(msg, ", rank %d", r);
}

static void add_peer(model *m, finding *f, const sysev *e)
{
	if (e->host >= 0 && !host_known(m, e->host))
		intset_add(&f->peers, e->host);
}

static void ras_dead(model *m, const sysev *e)
{
	int host, pi = ras_proc(m, e, &host);
	strbuf msg = { 0 }, key = { 0 };
	long pid = pi >= 0 ? m->procs[pi].pid : e->pid;
	sb_adds(&msg, "RAS declared ");
	if (pid < 0 && e->host >= 0)
		sb_printf(&msg, "the process at %s%s%s", str(m, e->host), host >= 0 && host != e->host ? " on " : "",
			  host >= 0 && host != e->host ? str(m, host) : "");
	else {
		sysev x = *e;
		x.pid = pid;
		ras_where(m, &x, host, pi, &msg);
	}
	sb_adds(&msg, " dead: unreachable over the RAS network");
	sb_printf(&key, "ras-dead:%s:%ld", str(m, host >= 0 ? host : e->host), pid);
	finding *f = job_finding(m, "ras-peer-dead", key.p, SEV_ERROR, msg.p,
				 "that process crashed, was killed or hangs outside NCCL: read its last log lines and its "
				 "host's dmesg (OOM killer, Xid), and py-spy dump it if it still runs",
				 true);
	if (pi >= 0)
		intset_add(&f->procs, pi);
	add_peer(m, f, e);
	cite(f, &e->ev, e->proc);
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
		sb_printf(&msg, "rank %ld of communicator %s", e->rank, str(m, e->a));
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
		sb_printf(&key, "ras-missing:%s:%ld:%ld", str(m, e->a), e->rank, e->pid);
	finding *f = job_finding(m, "ras-rank-missing", key.p, SEV_WARNING, msg.p,
				 "query RAS again: a rank missing in repeated queries is hung or dead (its log and its host's "
				 "dmesg say which); one missing once, during init or teardown, can be a transition",
				 true);
	if (pi >= 0)
		intset_add(&f->procs, pi);
	add_peer(m, f, e);
	cite(f, &e->ev, e->proc);
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
	sb_printf(&msg, "RAS: rank %ld of communicator %s reported %s", e->rank, str(m, e->a),
		  e->b >= 0 ? str(m, e->b) : "an error");
	if (e->pid >= 0 || host >= 0) {
		sb_adds(&msg, " (");
		ras_where(m, e, host, pi, &msg);
		sb_adds(&msg, ")");
	}
	sb_printf(&key, "ras:%s:%ld", str(m, e->a), e->code);
	finding *f = job_finding(m, id, key.p, SEV_DEFAULT, msg.p, NULL, false);
	if (pi >= 0)
		intset_add(&f->procs, pi);
	cite(f, &e->ev, e->proc);
	sb_free(&msg);
	sb_free(&key);
}

static void ras_behind(model *m, const sysev *e)
{
	int host, pi = ras_proc(m, e, &host);
	strbuf msg = { 0 }, key = { 0 };
	sb_printf(&msg, "RAS: rank %ld of communicator %s ", e->rank, str(m, e->a));
	if (e->pid >= 0 || host >= 0) {
		sb_adds(&msg, "(");
		ras_where(m, e, host, pi, &msg);
		sb_adds(&msg, ") ");
	}
	sb_adds(&msg, e->b >= 0 ? str(m, e->b) : "is behind the others");
	sb_printf(&key, "ras-behind:%s", str(m, e->a));
	finding *f = job_finding(m, "straggler-rank", key.p, SEV_WARNING, msg.p,
				 "one RAS query is a snapshot: when repeated queries show the same gap, that rank is stuck "
				 "(py-spy dump it; its last log lines say where)",
				 false);
	f->confidence = CONF_SUSPECTED;
	if (pi >= 0)
		intset_add(&f->procs, pi);
	cite(f, &e->ev, e->proc);
	sb_free(&msg);
	sb_free(&key);
}

static void ras_diag(model *m, const sysev *e)
{
	strbuf msg = { 0 }, key = { 0 };
	const char *check = e->a >= 0 ? str(m, e->a) : "diagnostics";
	sb_printf(&msg, "NCCL DIAG: %s: %s", check, str(m, e->b));
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
	cite(f, &e->ev, -1);
	sb_free(&msg);
	sb_free(&key);
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
		case SE_DIAG:
			ras_diag(m, e);
			break;
		default:
			break;
		}
	}
}

/* ---- nccl-tests ---- */

/* The processes of a run: its device table, else the NCCL processes of its input. */
static void run_procs(const model *m, const ntrun *r, intset *out)
{
	intset_addall(out, &r->procs);
	for (size_t i = 0; !r->procs.n && i < m->nprocs; i++)
		if (m->procs[i].file == r->file && m->procs[i].pid >= 0)
			intset_add(out, (int)i);
}

static const char *run_name(const model *m, const ntrun *r)
{
	return r->program >= 0 ? str(m, r->program) : "nccl-tests";
}

/* What bus bandwidth a transport gives at the least, for large messages:
 * a quarter of its slowest common link (25 Gb/s RoCE, 10 GbE, PCIe 3 P2P,
 * shared memory), so that only far lower numbers are reported. */
static bool transport_floor(const model *m, const intset *procs, double *least, const char **name)
{
	unsigned via = 0;
	intset hosts = { 0 };
	for (size_t i = 0; i < procs->n; i++) {
		via |= m->procs[procs->v[i]].transports;
		if (m->procs[procs->v[i]].host >= 0)
			intset_add(&hosts, m->procs[procs->v[i]].host);
	}
	size_t nh = hosts.n;
	intset_free(&hosts);
	if (nh > 1 && (via & (TR_NET_IB | TR_NET_OTHER | TR_COLLNET))) {
		*least = 0.75;
		*name = via & TR_NET_IB ? "NET/IB" : "the network plugin";
		return true;
	}
	if (nh > 1 && (via & TR_NET_SOCKET)) {
		*least = 0.25;
		*name = "NET/Socket";
		return true;
	}
	if (nh == 1 && (via & (TR_P2P | TR_NVLS))) {
		*least = 2.5;
		*name = "P2P";
		return true;
	}
	if (nh == 1 && (via & TR_SHM)) {
		*least = 1.0;
		*name = "SHM";
		return true;
	}
	return false;
}

static void human_size(uint64_t b, strbuf *out)
{
	if (b >= (1u << 30) && b % (1u << 30) == 0)
		sb_printf(out, "%llu GiB", (unsigned long long)(b >> 30));
	else if (b >= (1u << 20) && b % (1u << 20) == 0)
		sb_printf(out, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		sb_printf(out, "%llu KiB", (unsigned long long)(b >> 10));
	else
		sb_printf(out, "%llu bytes", (unsigned long long)b);
}

static void run_wrong(model *m, const ntrun *r, const intset *procs)
{
	strbuf msg = { 0 }, key = { 0 };
	sb_adds(&msg, run_name(m, r));
	if (r->wrong > 0) {
		sb_printf(&msg, " found %g wrong element%s in %ld of %ld sizes (", r->wrong, r->wrong == 1 ? "" : "s",
			  r->wrong_rows, r->rows);
		human_size(r->wrong_lo, &msg);
		if (r->wrong_hi != r->wrong_lo) {
			sb_adds(&msg, " to ");
			human_size(r->wrong_hi, &msg);
		}
		sb_adds(&msg, ")");
	} else {
		sb_adds(&msg, " reported wrong results");
	}
	if (r->oob > 0)
		sb_printf(&msg, "; Out of bounds values: %ld", r->oob);
	if (procs->n) {
		sb_adds(&msg, "; the run's ");
		model_describe(m, procs, &msg);
	}
	sb_printf(&key, "nt:%d", r->file);
	finding *f = job_finding(m, "nccl-tests-wrong-results", key.p, SEV_ERROR, msg.p,
				 "a collective returned data that differs from what was sent: a GPU, its memory, an NVLink "
				 "or PCIe path or a NIC corrupts data. Run the test on each node alone, then on pairs of "
				 "nodes, to find the component; check the hosts' dmesg for Xid and nvidia-smi -q -d ECC; "
				 "NCCL_PROTO=Simple or NCCL_ALGO=Ring narrows down the path",
				 true);
	place(m, f, procs);
	cite(f, &r->ev_wrong, -1);
	cite(f, &r->ev_oob, -1);
	cite(f, &r->ev_head, -1);
	sb_free(&msg);
	sb_free(&key);
}

static void run_bandwidth(model *m, const ntrun *r, const intset *procs)
{
	double least;
	const char *via;
	if (r->max_size < (32u << 20) || r->max_busbw < 0 || procs->n < 2 || !transport_floor(m, procs, &least, &via))
		return;
	if (r->max_busbw >= least)
		return;
	strbuf msg = { 0 }, key = { 0 };
	sb_printf(&msg, "%s reached %.2f GB/s bus bandwidth at ", run_name(m, r), r->max_busbw);
	human_size(r->max_size, &msg);
	sb_printf(&msg, " over %s (", via);
	model_describe(m, procs, &msg);
	sb_printf(&msg, "): far below what %s gives (%.2f GB/s even on its slowest common links)", via, least * 4);
	sb_printf(&key, "nt-bw:%d", r->file);
	finding *f = job_finding(m, "nccl-tests-low-bandwidth", key.p, SEV_WARNING, msg.p,
				 "compare with the channel lines: NET/IB without GDRDMA, a NET/Socket fallback, a NIC or "
				 "GPU on a far PCIe switch, or NCCL_P2P_DISABLE / NCCL_SHM_DISABLE / NCCL_IB_HCA settings "
				 "slow a run down; run the test per node and per pair of nodes to find the slow link",
				 true);
	f->confidence = CONF_SUSPECTED;
	place(m, f, procs);
	cite(f, &r->ev_max, -1);
	cite(f, &r->ev_bw, -1);
	sb_free(&msg);
	sb_free(&key);
}

void check_nccl_tests(model *m)
{
	for (size_t i = 0; i < m->nnt; i++) {
		const ntrun *r = &m->nt[i];
		intset procs = { 0 };
		run_procs(m, r, &procs);
		if (r->wrong > 0 || r->oob > 0)
			run_wrong(m, r, &procs);
		run_bandwidth(m, r, &procs);
		intset_free(&procs);
	}
}
