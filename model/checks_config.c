/* Checks of what the ranks run with: NCCL versions, the CUDA driver,
 * settings from the environment, GPUs and host names shared by mistake. */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/ipaddr.h"

/* Processes in order of NCCL version (interned ids), then index. */
static int cmp_version(const void *a, const void *b, void *ctx)
{
	const model *m = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	if (m->procs[x].version_short != m->procs[y].version_short)
		return m->procs[x].version_short < m->procs[y].version_short ? -1 : 1;
	return x - y;
}

void check_versions(model *m)
{
	int *ord = xmalloc((m->nprocs ? m->nprocs : 1) * sizeof *ord);
	size_t nord = 0;
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].version_short >= 0)
			ord[nord++] = (int)i;
	qsort_r(ord, nord, sizeof *ord, cmp_version, m);
	intset vers = { 0 };
	for (size_t i = 0; i < nord; i++)
		if (!i || m->procs[ord[i]].version_short != m->procs[ord[i - 1]].version_short) {
			grow(&vers.v, &vers.cap, vers.n, sizeof *vers.v);
			vers.v[vers.n++] = m->procs[ord[i]].version_short;
		}
	bool old = false, modern = false;
	unsigned fmt = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->pid < 0)
			continue;
		if (p->old_format)
			old = true;
		else if (p->nlines > 2)
			modern = true;
		fmt |= p->fmt & 3;
	}
	bool fmt_differs = (old && modern) || fmt == 3;
	if (vers.n < 2 && !fmt_differs) {
		intset_free(&vers);
		free(ord);
		return;
	}
	strbuf msg = { 0 };
	if (vers.n >= 2) {
		sb_adds(&msg, "ranks run different NCCL versions: ");
		/* each version's processes are a run of ord; a message past what a
		 * finding keeps is cut there anyway */
		for (size_t i = 0, j; i < nord && msg.n <= FINDING_MAX_TEXT; i = j) {
			intset ps = { 0 };
			for (j = i; j < nord && m->procs[ord[j]].version_short == m->procs[ord[i]].version_short; j++) {
				grow(&ps.v, &ps.cap, ps.n, sizeof *ps.v);
				ps.v[ps.n++] = ord[j];
			}
			if (i)
				sb_adds(&msg, "; ");
			bool one = model_describe(m, &ps, &msg);
			sb_printf(&msg, " %s %s", one ? "runs" : "run", intern_str(&m->str, m->procs[ord[i]].version_short));
			intset_free(&ps);
		}
	} else {
		sb_adds(&msg, "hosts print NCCL lines in the formats of different NCCL releases");
		if (old && modern)
			sb_adds(&msg, " (some without the NCCL token, as before 2.3)");
		else
			sb_adds(&msg, " (\"Bootstrap : Using\" up to 2.23 and \"Bootstrap: Using\" from 2.24)");
	}
	finding *f = job_finding(m, "nccl-version-mismatch", NULL, SEV_ERROR, msg.p,
				  "use one NCCL build on every node (the same container image, or the same "
				  "nvidia-nccl-cu* wheel); check LD_LIBRARY_PATH and LD_PRELOAD, and compare the "
				  "`NCCL version` line of each node",
				  true);
	intset shown = { 0 };
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		int key = p->version_short >= 0 ? p->version_short : (p->old_format ? -2 : (int)(p->fmt & 3) - 10);
		if (p->pid < 0 && p->version_short < 0)
			continue;
		const evref *e = p->ev_version.text ? &p->ev_version : (p->ev_boot.text ? &p->ev_boot : NULL);
		findings_note(f, (int)i, 0, -1, 0, SLICE_NONE);
		if (e && f->nev < FINDING_MAX_EVIDENCE && intset_add(&shown, key))
			findings_add_evidence(f, e->file, e->line, (int)i, slice_from(e->text));
	}
	intset_free(&shown);
	intset_free(&vers);
	free(ord);
	sb_free(&msg);
}

static bool risky_env(const char *var, const char *val)
{
	static const char *const on[] = { "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_IB_DISABLE" };
	if (strcmp(var, "NCCL_NET") == 0 && strcmp(val, "Socket") == 0)
		return true;
	static const char *const any[] = { "NCCL_ALGO", "NCCL_PROTO", "NCCL_GRAPH_FILE", "NCCL_TOPO_FILE" };
	for (size_t i = 0; i < 3; i++)
		if (strcmp(var, on[i]) == 0 && strcmp(val, "0") != 0)
			return true;
	for (size_t i = 0; i < 4; i++)
		if (strcmp(var, any[i]) == 0)
			return true;
	return false;
}

/* Environment settings in order of variable, then value (interned ids,
 * so the order of first appearance), then arrival. */
static int cmp_env(const void *a, const void *b, void *ctx)
{
	const model *m = ctx;
	const envset *x = &m->env[*(const int *)a], *y = &m->env[*(const int *)b];
	if (x->var != y->var)
		return x->var < y->var ? -1 : 1;
	if (x->val != y->val)
		return x->val < y->val ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

/* At most this many variables are reported as inconsistent, one finding
 * each: a log with thousands of them says the same thing. */
#define ENV_INCONSISTENT_MAX 32

void check_env(model *m)
{
	if (!m->nenv)
		return;
	int *ord = xmalloc(m->nenv * sizeof *ord);
	for (size_t i = 0; i < m->nenv; i++)
		ord[i] = (int)i;
	qsort_r(ord, m->nenv, sizeof *ord, cmp_env, m);
	bool risky = false;
	for (size_t i = 0; i < m->nenv; i++)
		if (risky_env(intern_str(&m->str, m->env[i].var), intern_str(&m->str, m->env[i].val)))
			risky = true;
	strbuf msg = { 0 };
	sb_adds(&msg, "NCCL settings from the environment: ");
	for (size_t i = 0; i < m->nenv; i++) {
		const envset *e = &m->env[ord[i]], *prev = i ? &m->env[ord[i - 1]] : NULL;
		bool first = !prev || prev->var != e->var;
		if (first)
			sb_printf(&msg, "%s%s=", i ? ", " : "", intern_str(&m->str, e->var));
		if (e->val >= 0 && (first || prev->val != e->val))
			sb_printf(&msg, "%s%s", first || prev->val < 0 ? "" : "|", intern_str(&m->str, e->val));
		if (msg.n > FINDING_MAX_TEXT)
			break; /* the message is cut there anyway */
	}
	finding *f = job_finding(m, "env-override", NULL, risky ? SEV_WARNING : SEV_INFO,
				  msg.p,
				  risky ? "variables that disable transports or force ALGO/PROTO, NCCL_GRAPH_FILE and "
					  "NCCL_TOPO_FILE are debugging aids: remove them in production unless you know "
					  "why they are set (they may come from /etc/nccl.conf)"
					: NULL,
				  false);
	intset shown = { 0 };
	for (size_t i = 0; i < m->nenv; i++) {
		const envset *e = &m->env[i];
		bool r = risky_env(intern_str(&m->str, e->var), intern_str(&m->str, e->val));
		findings_note(f, e->proc, 0, -1, 0, SLICE_NONE);
		if ((r || !risky) && f->nev < FINDING_MAX_EVIDENCE && intset_add(&shown, e->var))
			findings_add_evidence(f, e->ev.file, e->ev.line, e->proc, slice_from(e->ev.text));
	}
	intset_free(&shown);
	sb_free(&msg);
	/* inconsistent: a variable set on some hosts and not on others that print their settings */
	intset env_hosts = { 0 }, boot_hosts = { 0 };
	for (size_t i = 0; i < m->nenv; i++)
		if (m->procs[m->env[i].proc].host >= 0)
			intset_add(&env_hosts, m->procs[m->env[i].proc].host);
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].host >= 0 && m->procs[i].boot.name >= 0)
			intset_add(&boot_hosts, m->procs[i].host);
	bool hosts = count_hosts(m) > 1 && env_hosts.n;
	int reported = 0;
	for (size_t i = 0, j; hosts && i < m->nenv && reported < ENV_INCONSISTENT_MAX; i = j) {
		int var = m->env[ord[i]].var;
		intset with = { 0 }, vals = { 0 }, lack = { 0 };
		for (j = i; j < m->nenv && m->env[ord[j]].var == var; j++) {
			const envset *e = &m->env[ord[j]];
			if (m->procs[e->proc].host >= 0) {
				intset_add(&with, m->procs[e->proc].host);
				intset_add(&vals, e->val);
			}
		}
		/* a host that logs its bootstrap but not the setting does not have it */
		size_t covered = 0;
		for (size_t k = 0; k < with.n; k++)
			covered += intset_has(&boot_hosts, with.v[k]);
		for (size_t k = 0; covered < boot_hosts.n && k < m->nprocs; k++)
			if (m->procs[k].host >= 0 && !intset_has(&with, m->procs[k].host) && m->procs[k].boot.name >= 0)
				intset_add(&lack, (int)k);
		if (lack.n || vals.n > 1) {
			strbuf im = { 0 };
			const char *name = intern_str(&m->str, var);
			if (vals.n > 1) {
				sb_printf(&im, "%s has different values on different hosts:", name);
				for (size_t k = 0; k < vals.n; k++)
					sb_printf(&im, "%s '%s'", k ? "," : "", intern_str(&m->str, vals.v[k]));
			} else {
				sb_printf(&im, "%s is set on some hosts but not for ", name);
				model_describe(m, &lack, &im);
			}
			finding *g = job_finding(m, "socket-env-inconsistent", name, SEV_WARNING, im.p,
						  "set NCCL variables the same way for every rank and pass them through the "
						  "launcher (srun --export=ALL, mpirun -x VAR, the torchrun environment)",
						  false);
			/* in arrival order, as the lines came */
			intset idx = { 0 };
			for (size_t k = i; k < j; k++)
				intset_add(&idx, ord[k]);
			for (size_t k = 0; k < idx.n; k++) {
				const envset *e = &m->env[idx.v[k]];
				findings_note(g, e->proc, 0, e->ev.file, e->ev.line, slice_from(e->ev.text));
			}
			intset_free(&idx);
			sb_free(&im);
			reported++;
		}
		intset_free(&with);
		intset_free(&vals);
		intset_free(&lack);
	}
	intset_free(&env_hosts);
	intset_free(&boot_hosts);
	free(ord);
}

/* The processes that could share a GPU, by (busId, host, comm): each is
 * compared with its own kind only, not with every process of the job. */
typedef struct gpukey {
	int busid, host, comm, proc;
} gpukey;

static int cmp_gpukey(const void *x, const void *y)
{
	const gpukey *a = x, *b = y;
	if (a->busid != b->busid)
		return a->busid < b->busid ? -1 : 1;
	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	return (a->proc > b->proc) - (a->proc < b->proc);
}

void check_duplicate_gpu(model *m)
{
	gpukey *k = xmalloc((m->nprocs ? m->nprocs : 1) * sizeof *k);
	size_t nk = 0;
	for (size_t a = 0; a < m->nprocs; a++) {
		const proc *p = &m->procs[a];
		if (p->busid >= 0 && p->host >= 0 && p->comm >= 0)
			k[nk++] = (gpukey){ p->busid, p->host, p->comm, (int)a };
	}
	qsort(k, nk, sizeof *k, cmp_gpukey);
	/* where each process's group starts and ends in k */
	size_t *gs = xmalloc((m->nprocs ? m->nprocs : 1) * sizeof *gs), *ge = xmalloc((m->nprocs ? m->nprocs : 1) * sizeof *ge);
	for (size_t i = 0; i < nk;) {
		size_t j = i;
		while (j < nk && k[j].busid == k[i].busid && k[j].host == k[i].host && k[j].comm == k[i].comm)
			j++;
		for (size_t x = i; x < j; x++) {
			gs[k[x].proc] = i;
			ge[k[x].proc] = j;
		}
		i = j;
	}
	for (size_t a = 0; a < m->nprocs; a++) {
		const proc *p = &m->procs[a];
		if (p->busid < 0 || p->host < 0 || p->comm < 0)
			continue;
		intset same = { 0 };
		bool seen_before = false;
		for (size_t x = gs[a]; x < ge[a]; x++) {
			size_t b = (size_t)k[x].proc;
			const proc *q = &m->procs[b];
			if (q->rank != p->rank && !(q->boot.addr >= 0 && p->boot.addr >= 0 && q->boot.addr != p->boot.addr)) {
				if (b < a)
					seen_before = true;
				intset_add(&same, (int)b);
			}
		}
		if (same.n && !seen_before) {
			intset_add(&same, (int)a);
			strbuf msg = { 0 };
			model_describe(m, &same, &msg);
			sb_printf(&msg, " share one GPU (busId %s)", intern_str(&m->str, p->busid));
			finding *f = job_finding(m, "duplicate-gpu", intern_str(&m->str, p->busid),
						  SEV_ERROR, msg.p,
						  "bind each process to its own GPU: torch.cuda.set_device(local_rank) before "
						  "init_process_group (or pass device_id), and check CUDA_VISIBLE_DEVICES and the "
						  "launcher's LOCAL_RANK",
						  true);
			for (size_t i = 0; i < same.n; i++) {
				const proc *q = &m->procs[same.v[i]];
				findings_note(f, same.v[i], 0, q->ev_init.file, q->ev_init.line, slice_from(q->ev_init.text));
			}
			sb_free(&msg);
		}
		intset_free(&same);
	}
	free(k);
	free(gs);
	free(ge);
}

/* Processes in order of host (interned ids), then index. */
static int cmp_host(const void *a, const void *b, void *ctx)
{
	const model *m = ctx;
	int x = *(const int *)a, y = *(const int *)b;
	if (m->procs[x].host != m->procs[y].host)
		return m->procs[x].host < m->procs[y].host ? -1 : 1;
	return x - y;
}

/* Distinct nodes reporting one hostname: NCCL then takes them for one
 * node and tries shared memory and P2P between them. */
void check_duplicate_hostname(model *m)
{
	/* the processes of each host together: one pass over them all */
	int *ord = xmalloc((m->nprocs ? m->nprocs : 1) * sizeof *ord);
	size_t n = 0;
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].host >= 0)
			ord[n++] = (int)i;
	qsort_r(ord, n, sizeof *ord, cmp_host, m);
	for (size_t h = 0, next; h < n; h = next) {
		int host = m->procs[ord[h]].host;
		intset addrs = { 0 }, procs = { 0 };
		for (next = h; next < n && m->procs[ord[next]].host == host; next++) {
			const proc *p = &m->procs[ord[next]];
			if (p->boot.addr < 0 || iface_kind(m, p->boot) != IFK_PHYS)
				continue;
			intset_add(&addrs, p->boot.addr);
			intset_add(&procs, ord[next]);
		}
		if (addrs.n > 1) {
			strbuf msg = { 0 };
			sb_printf(&msg, "%zu nodes with different addresses all report the hostname %s:", addrs.n,
				  intern_str(&m->str, host));
			for (size_t k = 0; k < addrs.n && k < 4; k++)
				sb_printf(&msg, " %s", intern_str(&m->str, addrs.v[k]));
			finding *f = job_finding(m, "duplicate-hostname", intern_str(&m->str, host), SEV_WARNING, msg.p,
						  "give every node (pod, container) its own hostname, or set NCCL_HOSTID per node; "
						  "NCCL otherwise assumes shared memory and P2P between them",
						  false);
			intset shown = { 0 };
			for (size_t i = 0; i < procs.n; i++) {
				const proc *p = &m->procs[procs.v[i]];
				findings_note(f, procs.v[i], 0, -1, 0, SLICE_NONE);
				if (f->nev < FINDING_MAX_EVIDENCE && intset_add(&shown, p->boot.addr))
					findings_add_evidence(f, p->ev_boot.file, p->ev_boot.line, procs.v[i], slice_from(p->ev_boot.text));
			}
			intset_free(&shown);
			sb_free(&msg);
		}
		intset_free(&addrs);
		intset_free(&procs);
	}
	free(ord);
}

/* cudaDriverVersion older than the CUDA NCCL was built with ("+cuda12.4"). */
void check_driver(model *m)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (!p->driver || !p->cuda_build || p->driver >= p->cuda_build)
			continue;
		bool major = p->driver / 1000 < p->cuda_build / 1000;
		strbuf msg = { 0 };
		sb_printf(&msg, "the CUDA driver supports CUDA %ld.%ld but NCCL was built for CUDA %d.%d", p->driver / 1000,
			  (p->driver % 1000) / 10, p->cuda_build / 1000, (p->cuda_build % 1000) / 10);
		if (!major)
			sb_adds(&msg, " (minor-version compatibility covers most, not all, of the CUDA API)");
		finding *f = job_finding(m, "cuda-driver-too-old", NULL, major ? SEV_ERROR : SEV_WARNING, msg.p,
					  "upgrade the NVIDIA driver, or use a PyTorch/NCCL build for the CUDA version that "
					  "`nvidia-smi` reports",
					  false);
		findings_note(f, (int)i, 0, p->ev_version.file, p->ev_version.line,
			      p->ev_version.text ? slice_from(p->ev_version.text) : SLICE_NONE);
		sb_free(&msg);
	}
}
