/* Checks of what the ranks run with: NCCL versions, the CUDA driver,
 * settings from the environment, GPUs and host names shared by mistake. */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/ipaddr.h"


void check_versions(model *m)
{
	intset vers = { 0 };
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].version_short >= 0)
			intset_add(&vers, m->procs[i].version_short);
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
		return;
	}
	strbuf msg = { 0 };
	if (vers.n >= 2) {
		sb_adds(&msg, "ranks run different NCCL versions: ");
		for (size_t v = 0; v < vers.n; v++) {
			intset ps = { 0 };
			for (size_t i = 0; i < m->nprocs; i++)
				if (m->procs[i].version_short == vers.v[v])
					intset_add(&ps, (int)i);
			if (v)
				sb_adds(&msg, "; ");
			bool one = model_describe(m, &ps, &msg);
			sb_printf(&msg, " %s %s", one ? "runs" : "run", intern_str(&m->str, vers.v[v]));
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
		if (e && intset_add(&shown, key))
			findings_add_evidence(f, e->file, e->line, (int)i, slice_from(e->text));
	}
	intset_free(&shown);
	intset_free(&vers);
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

void check_env(model *m)
{
	if (!m->nenv)
		return;
	intset vars = { 0 };
	bool risky = false;
	for (size_t i = 0; i < m->nenv; i++) {
		intset_add(&vars, m->env[i].var);
		if (risky_env(intern_str(&m->str, m->env[i].var), intern_str(&m->str, m->env[i].val)))
			risky = true;
	}
	strbuf msg = { 0 };
	sb_adds(&msg, "NCCL settings from the environment: ");
	for (size_t v = 0; v < vars.n; v++) {
		intset vals = { 0 };
		for (size_t i = 0; i < m->nenv; i++)
			if (m->env[i].var == vars.v[v] && m->env[i].val >= 0)
				intset_add(&vals, m->env[i].val);
		if (v)
			sb_adds(&msg, ", ");
		sb_printf(&msg, "%s=", intern_str(&m->str, vars.v[v]));
		for (size_t k = 0; k < vals.n; k++)
			sb_printf(&msg, "%s%s", k ? "|" : "", intern_str(&m->str, vals.v[k]));
		intset_free(&vals);
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
		if ((r || !risky) && intset_add(&shown, e->var))
			findings_add_evidence(f, e->ev.file, e->ev.line, e->proc, slice_from(e->ev.text));
	}
	intset_free(&shown);
	sb_free(&msg);
	/* inconsistent: a variable set on some hosts and not on others that print their settings */
	intset env_hosts = { 0 };
	for (size_t i = 0; i < m->nenv; i++)
		if (m->procs[m->env[i].proc].host >= 0)
			intset_add(&env_hosts, m->procs[m->env[i].proc].host);
	for (size_t v = 0; v < vars.n && count_hosts(m) > 1 && env_hosts.n; v++) {
		intset with = { 0 }, vals = { 0 }, lack = { 0 };
		for (size_t i = 0; i < m->nenv; i++)
			if (m->env[i].var == vars.v[v] && m->procs[m->env[i].proc].host >= 0) {
				intset_add(&with, m->procs[m->env[i].proc].host);
				intset_add(&vals, m->env[i].val);
			}
		/* a host that logs its bootstrap but not the setting does not have it */
		for (size_t i = 0; i < m->nprocs; i++)
			if (m->procs[i].host >= 0 && !intset_has(&with, m->procs[i].host) && m->procs[i].boot.name >= 0)
				intset_add(&lack, (int)i);
		if (lack.n || vals.n > 1) {
			strbuf im = { 0 };
			const char *var = intern_str(&m->str, vars.v[v]);
			if (vals.n > 1) {
				sb_printf(&im, "%s has different values on different hosts:", var);
				for (size_t k = 0; k < vals.n; k++)
					sb_printf(&im, "%s '%s'", k ? "," : "", intern_str(&m->str, vals.v[k]));
			} else {
				sb_printf(&im, "%s is set on some hosts but not for ", var);
				model_describe(m, &lack, &im);
			}
			strbuf key = { 0 };
			sb_adds(&key, var);
			finding *g = job_finding(m, "socket-env-inconsistent", key.p, SEV_WARNING, im.p,
						  "set NCCL variables the same way for every rank and pass them through the "
						  "launcher (srun --export=ALL, mpirun -x VAR, the torchrun environment)",
						  false);
			for (size_t i = 0; i < m->nenv; i++)
				if (m->env[i].var == vars.v[v])
					findings_note(g, m->env[i].proc, 0, m->env[i].ev.file, m->env[i].ev.line,
						      slice_from(m->env[i].ev.text));
			sb_free(&key);
			sb_free(&im);
		}
		intset_free(&with);
		intset_free(&vals);
		intset_free(&lack);
	}
	intset_free(&env_hosts);
	intset_free(&vars);
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

/* Distinct nodes reporting one hostname: NCCL then takes them for one
 * node and tries shared memory and P2P between them. */
void check_duplicate_hostname(model *m)
{
	intset hosts = { 0 };
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].host >= 0)
			intset_add(&hosts, m->procs[i].host);
	for (size_t h = 0; h < hosts.n; h++) {
		intset addrs = { 0 }, procs = { 0 };
		for (size_t i = 0; i < m->nprocs; i++) {
			const proc *p = &m->procs[i];
			if (p->host != hosts.v[h] || p->boot.addr < 0 || iface_kind(m, p->boot) != IFK_PHYS)
				continue;
			intset_add(&addrs, p->boot.addr);
			intset_add(&procs, (int)i);
		}
		if (addrs.n > 1) {
			strbuf msg = { 0 };
			sb_printf(&msg, "%zu nodes with different addresses all report the hostname %s:", addrs.n,
				  intern_str(&m->str, hosts.v[h]));
			for (size_t k = 0; k < addrs.n && k < 4; k++)
				sb_printf(&msg, " %s", intern_str(&m->str, addrs.v[k]));
			finding *f = job_finding(m, "duplicate-hostname", intern_str(&m->str, hosts.v[h]), SEV_WARNING, msg.p,
						  "give every node (pod, container) its own hostname, or set NCCL_HOSTID per node; "
						  "NCCL otherwise assumes shared memory and P2P between them",
						  false);
			intset shown = { 0 };
			for (size_t i = 0; i < procs.n; i++) {
				const proc *p = &m->procs[procs.v[i]];
				findings_note(f, procs.v[i], 0, -1, 0, SLICE_NONE);
				if (intset_add(&shown, p->boot.addr))
					findings_add_evidence(f, p->ev_boot.file, p->ev_boot.line, procs.v[i], slice_from(p->ev_boot.text));
			}
			intset_free(&shown);
			sb_free(&msg);
		}
		intset_free(&addrs);
		intset_free(&procs);
	}
	intset_free(&hosts);
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
