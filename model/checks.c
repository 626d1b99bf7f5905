/* Job-level checks: diagnoses that need the whole job, not one line. Each
 * check reads the model and adds findings; none of them looks at bytes. */
#include "model.h"
#include "causes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/ipaddr.h"

enum if_kind { IFK_PHYS, IFK_LOOP, IFK_VIRTUAL, IFK_LINK_LOCAL };

/* A finding of a job-level check; `scoped` when msg already names the ranks. */
static finding *job_finding(model *m, const char *id, const char *key, enum severity sev, const char *msg,
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

static const char *const virtual_prefixes[] = {
	"docker", "veth", "virbr", "br-", "cni", "flannel", "cali", "tun", "tap", "wg",
	"tailscale", "ip6tnl", "vxlan", "wl", "cilium", "lxc", "kube-", "weave", "vnet", "podman",
};

bool model_iface_virtual(const char *n)
{
	for (size_t i = 0; i < sizeof virtual_prefixes / sizeof virtual_prefixes[0]; i++)
		if (strncmp(n, virtual_prefixes[i], strlen(virtual_prefixes[i])) == 0)
			return true;
	return false;
}

static enum if_kind iface_kind(const model *m, iface f)
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

static bool iface_addr(const model *m, iface f, ipaddr *a)
{
	return f.addr >= 0 && ipaddr_parse(slice_from(intern_str(&m->str, f.addr)), a);
}

/* The interfaces a process uses for sockets, with the line that shows each. */
static int used_ifaces(const proc *p, iface *out, const evref **ev)
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
static bool quiet(const model *m, const proc *p)
{
	return m->now <= 0 || m->now - p->last_wall >= m->settle;
}

static int count_hosts(const model *m)
{
	intset h = { 0 };
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].host >= 0 && m->procs[i].pid >= 0)
			intset_add(&h, m->procs[i].host);
	int n = (int)h.n;
	intset_free(&h);
	return n;
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
static bool multi_host(const model *m)
{
	if (count_hosts(m) > 1 || max_nnodes(m) > 1 || m->table_hosts.n > 1)
		return true;
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].transports & (TR_NET_IB | TR_NET_SOCKET | TR_NET_OTHER))
			return true;
	return false;
}

/* Provably one host: one host name, nNodes 1 or every rank of the job seen there. */
static bool single_host(const model *m)
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

/* The name of an interface that every host has, not virtual, with its
 * addresses on one /24 (then /16): the value NCCL_SOCKET_IFNAME wants. */
static int shared_iface(const model *m, strbuf *net)
{
	intset hosts = { 0 }, names = { 0 };
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		iface ifs[20];
		const evref *ev[20];
		int n = used_ifaces(p, ifs, ev);
		if (p->host >= 0 && n)
			intset_add(&hosts, p->host);
		for (int k = 0; k < n; k++)
			if (iface_kind(m, ifs[k]) == IFK_PHYS)
				intset_add(&names, ifs[k].name);
	}
	int best = -1, best_users = -1;
	for (size_t ni = 0; ni < names.n; ni++) {
		int name = names.v[ni], users = 0;
		ipaddr first = { 0 };
		bool have_first = false, on_all = true, same24 = true, same16 = true;
		for (size_t hi = 0; hi < hosts.n && on_all; hi++) {
			bool found = false;
			for (size_t i = 0; i < m->nprocs && !found; i++) {
				const proc *p = &m->procs[i];
				if (p->host != hosts.v[hi])
					continue;
				iface ifs[20];
				const evref *ev[20];
				int n = used_ifaces(p, ifs, ev);
				for (int k = 0; k < n && !found; k++) {
					ipaddr a;
					if (ifs[k].name != name || !iface_addr(m, ifs[k], &a))
						continue;
					found = true;
					if (!have_first) {
						first = a;
						have_first = true;
					}
					same24 = same24 && ipaddr_same_net(&first, &a, a.family == 4 ? 24 : 64);
					same16 = same16 && ipaddr_same_net(&first, &a, a.family == 4 ? 16 : 48);
				}
			}
			on_all = found;
		}
		if (!on_all || !same16)
			continue;
		for (size_t i = 0; i < m->nprocs; i++)
			if (m->procs[i].boot.name == name)
				users++;
		if (same24)
			users += 1000;
		if (users > best_users) {
			best_users = users;
			best = name;
			sb_clear(net);
			ipaddr_net_str(&first, first.family == 4 ? (same24 ? 24 : 16) : (same24 ? 64 : 48), net);
		}
	}
	intset_free(&hosts);
	intset_free(&names);
	return best;
}

static void ifname_hint(const model *m, strbuf *h, const char *bad_prefixes)
{
	strbuf net = { 0 };
	int name = shared_iface(m, &net);
	int hosts = count_hosts(m);
	if (name >= 0) {
		const char *n = intern_str(&m->str, name);
		sb_printf(h, "export NCCL_SOCKET_IFNAME=%s on every node (", n);
		if (hosts > 1)
			sb_printf(h, "present on all %d hosts, subnet %s; ", hosts, net.p);
		else
			sb_printf(h, "subnet %s; ", net.p);
		sb_printf(h, "=%s matches it exactly)", n);
	} else {
		sb_printf(h, "name the routable interface of every node with NCCL_SOCKET_IFNAME (e.g. =eth0), "
			     "or exclude the bad ones: export NCCL_SOCKET_IFNAME=^%s", bad_prefixes);
	}
	sb_free(&net);
}

/* Prefix of an interface name as NCCL's exclude list wants it ("docker", "veth"). */
static void add_prefix(strbuf *list, const char *name)
{
	char pre[32];
	size_t n = 0;
	if (strcmp(name, "lo") == 0) {
		snprintf(pre, sizeof pre, "lo");
	} else {
		for (size_t i = 0; i < sizeof virtual_prefixes / sizeof virtual_prefixes[0]; i++)
			if (strncmp(name, virtual_prefixes[i], strlen(virtual_prefixes[i])) == 0)
				n = strlen(virtual_prefixes[i]);
		snprintf(pre, sizeof pre, "%.*s", (int)(n ? n : strlen(name)), name);
	}
	/* as a whole item of the comma list */
	for (const char *p = list->p; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == strlen(pre) && memcmp(p, pre, len) == 0)
			return;
		p = e ? e + 1 : NULL;
	}
	if (list->n)
		sb_addc(list, ',');
	sb_adds(list, pre);
}

/* What the other (good) processes use: "ranks 0-3 on node-a use eth1 (192.168.1.101)". */
static void describe_good(const model *m, const intset *bad, strbuf *b)
{
	intset good = { 0 };
	int gi = -1;
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (intset_has(bad, (int)i) || p->boot.name < 0 || iface_kind(m, p->boot) != IFK_PHYS)
			continue;
		if (gi < 0)
			gi = (int)i;
		if (p->boot.name == m->procs[gi].boot.name)
			intset_add(&good, (int)i);
	}
	if (gi >= 0) {
		sb_adds(b, "; ");
		model_describe(m, &good, b);
		sb_printf(b, " use %s (%s)", intern_str(&m->str, m->procs[gi].boot.name),
			  intern_str(&m->str, m->procs[gi].boot.addr));
	}
	intset_free(&good);
}

typedef struct ifgroup {
	intset procs;
	iface first;
	const evref *ev[FINDING_MAX_EVIDENCE];
	int nev;
	strbuf prefixes;
} ifgroup;

static void ifgroup_add(ifgroup *g, int pi, iface f, const evref *ev)
{
	if (!g->procs.n)
		g->first = f;
	intset_add(&g->procs, pi);
	for (int i = 0; i < g->nev; i++)
		if (g->ev[i] == ev)
			return;
	if (g->nev < FINDING_MAX_EVIDENCE && ev->text)
		g->ev[g->nev++] = ev;
}

static void emit_ifgroup(model *m, ifgroup *g, const char *id, enum severity sev, const char *what,
			 const char *extra_hint)
{
	if (!g->procs.n)
		return;
	strbuf msg = { 0 }, hint = { 0 };
	model_describe(m, &g->procs, &msg);
	sb_printf(&msg, " %s %s (%s)", what, intern_str(&m->str, g->first.name),
		  intern_str(&m->str, g->first.addr));
	describe_good(m, &g->procs, &msg);
	ifname_hint(m, &hint, g->prefixes.n ? g->prefixes.p : "docker,lo");
	if (extra_hint)
		sb_printf(&hint, "; %s", extra_hint);
	finding *f = job_finding(m, id, NULL, sev, msg.p, hint.p, true);
	for (size_t i = 0; i < g->procs.n; i++)
		findings_note(f, g->procs.v[i], 0, -1, 0, SLICE_NONE);
	for (int i = 0; i < g->nev; i++)
		findings_add_evidence(f, g->ev[i]->file, g->ev[i]->line, -1, slice_from(g->ev[i]->text));
	sb_free(&msg);
	sb_free(&hint);
}

static void check_ifaces(model *m)
{
	ifgroup loop = { 0 }, virt = { 0 }, ll = { 0 };
	bool multi = multi_host(m);
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		iface ifs[20];
		const evref *ev[20];
		int n = used_ifaces(p, ifs, ev);
		for (int k = 0; k < n; k++) {
			const char *name = intern_str(&m->str, ifs[k].name);
			switch (iface_kind(m, ifs[k])) {
			case IFK_LOOP:
				ifgroup_add(&loop, (int)i, ifs[k], ev[k]);
				add_prefix(&loop.prefixes, name);
				break;
			case IFK_VIRTUAL:
				ifgroup_add(&virt, (int)i, ifs[k], ev[k]);
				add_prefix(&virt.prefixes, name);
				break;
			case IFK_LINK_LOCAL:
				ifgroup_add(&ll, (int)i, ifs[k], ev[k]);
				break;
			case IFK_PHYS:
				break;
			}
			/* a virtual interface holding a link-local address counts for both */
			ipaddr a;
			if (iface_kind(m, ifs[k]) != IFK_LINK_LOCAL && iface_addr(m, ifs[k], &a) &&
			    ipaddr_kind(&a) == IP_LINK_LOCAL)
				ifgroup_add(&ll, (int)i, ifs[k], ev[k]);
		}
	}
	/* hosts disagree: some use a physical interface where others use a virtual one */
	bool disagree = false;
	for (size_t i = 0; i < m->nprocs && virt.procs.n; i++)
		if (m->procs[i].boot.name >= 0 && iface_kind(m, m->procs[i].boot) == IFK_PHYS &&
		    !intset_has(&virt.procs, (int)i))
			disagree = true;
	emit_ifgroup(m, &loop, "socket-iface-loopback", multi || !single_host(m) ? SEV_ERROR : SEV_INFO,
		     "use the loopback interface", NULL);
	emit_ifgroup(m, &virt, "socket-iface-virtual", disagree ? SEV_ERROR : SEV_WARNING,
		     "use the virtual interface",
		     "in containers, run with --network=host (Kubernetes: hostNetwork: true) or name the pod's routable interface");
	if (ll.procs.n) {
		sb_clear(&ll.prefixes);
		emit_ifgroup(m, &ll, "socket-iface-link-local", SEV_WARNING, "use a link-local address on",
			     "or export NCCL_SOCKET_FAMILY=AF_INET so that link-local IPv6 addresses are not used");
	}
	intset_free(&loop.procs);
	intset_free(&virt.procs);
	intset_free(&ll.procs);
	sb_free(&loop.prefixes);
	sb_free(&virt.prefixes);
	sb_free(&ll.prefixes);
}

/* Hosts of one job bootstrapping on different networks. */
static void check_iface_mismatch(model *m)
{
	int first = -1;
	intset odd = { 0 };
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->boot.name < 0 || p->host < 0)
			continue;
		if (first < 0) {
			first = (int)i;
			continue;
		}
		const proc *f = &m->procs[first];
		if (p->host == f->host)
			continue;
		ipaddr a, b;
		bool pa = iface_addr(m, p->boot, &a), pb = iface_addr(m, f->boot, &b);
		/* Without netmasks in the log: one interface name on a shared /8
		 * (10.1.x and 10.2.x in one VPC) is routed; other names need a /16. */
		int bits = p->boot.name == f->boot.name ? 8 : 16;
		bool differ = iface_kind(m, p->boot) != iface_kind(m, f->boot) || (pa != pb) ||
			      (pa && pb && !ipaddr_same_net(&a, &b, a.family == 4 ? bits : 3 * bits));
		if (differ)
			intset_add(&odd, (int)i);
	}
	if (odd.n) {
		const proc *f = &m->procs[first];
		const proc *o = &m->procs[odd.v[0]];
		intset fp = { 0 };
		for (size_t i = 0; i < m->nprocs; i++)
			if (m->procs[i].host == f->host && m->procs[i].boot.name >= 0)
				intset_add(&fp, (int)i);
		strbuf msg = { 0 }, hint = { 0 };
		sb_adds(&msg, "hosts bootstrap on different networks: ");
		model_describe(m, &fp, &msg);
		sb_printf(&msg, " use %s (%s), ", intern_str(&m->str, f->boot.name), intern_str(&m->str, f->boot.addr));
		model_describe(m, &odd, &msg);
		sb_printf(&msg, " use %s (%s)", intern_str(&m->str, o->boot.name), intern_str(&m->str, o->boot.addr));
		strbuf bad = { 0 };
		add_prefix(&bad, intern_str(&m->str, o->boot.name));
		ifname_hint(m, &hint, bad.p);
		finding *fd = job_finding(m, "socket-iface-mismatch", NULL, SEV_ERROR,
					   msg.p, hint.p, true);
		findings_note(fd, first, 0, f->ev_boot.file, f->ev_boot.line, slice_from(f->ev_boot.text));
		for (size_t i = 0; i < odd.n; i++) {
			const proc *p = &m->procs[odd.v[i]];
			findings_note(fd, odd.v[i], 0, p->ev_boot.file, p->ev_boot.line, slice_from(p->ev_boot.text));
		}
		intset_free(&fp);
		sb_free(&msg);
		sb_free(&hint);
		sb_free(&bad);
	}
	intset_free(&odd);
}

/* A connect to an address of no family, on a process that names
 * NCCL_SOCKET_IFNAME and never printed an interface it uses: the name
 * matched nothing, and NCCL sent an empty address. */
static void infer_iface_not_found(model *m)
{
	const finding *bad = findings_find_key(&m->fs, "bootstrap-connect-failed", "bad-family");
	int var = intern_find(&m->str, SLICE_LIT("NCCL_SOCKET_IFNAME"));
	if (!bad || var < 0 || findings_find(&m->fs, "socket-iface-not-found"))
		return;
	const envset *set = NULL;
	for (size_t i = 0; i < m->nenv && !set; i++)
		if (m->env[i].var == var)
			set = &m->env[i];
	if (!set)
		return;
	for (size_t i = 0; i < m->nprocs; i++) {
		iface ifs[20];
		const evref *ev[20];
		if (intset_has(&bad->procs, (int)i) && used_ifaces(&m->procs[i], ifs, ev))
			return; /* it did find an interface */
	}
	strbuf msg = { 0 };
	sb_printf(&msg, "NCCL_SOCKET_IFNAME=%s matches no interface: no rank printed the interface it uses, and "
			"NCCL then connected to an empty address", intern_str(&m->str, set->val));
	finding *f = job_finding(m, "socket-iface-not-found", NULL, SEV_ERROR, msg.p, NULL, false);
	findings_note(f, set->proc, 0, set->ev.file, set->ev.line, slice_from(set->ev.text));
	sb_free(&msg);
}

/* socket-iface-not-found fired from a line: the hint lists what the log shows. */
static void hint_iface_not_found(model *m)
{
	finding *f = findings_find(&m->fs, "socket-iface-not-found");
	if (!f || f->hint)
		return;
	strbuf h = { 0 }, seen = { 0 };
	intset names = { 0 };
	for (size_t i = 0; i < m->nprocs; i++) {
		iface ifs[20];
		const evref *ev[20];
		int n = used_ifaces(&m->procs[i], ifs, ev);
		for (int k = 0; k < n; k++)
			if (intset_add(&names, ifs[k].name)) {
				if (seen.n)
					sb_adds(&seen, ", ");
				sb_adds(&seen, intern_str(&m->str, ifs[k].name));
			}
	}
	int var = intern_find(&m->str, SLICE_LIT("NCCL_SOCKET_IFNAME"));
	for (size_t i = 0; var >= 0 && i < m->nenv; i++)
		if (m->env[i].var == var) {
			sb_printf(&h, "NCCL_SOCKET_IFNAME is %s and matches no interface with an address; ",
				  intern_str(&m->str, m->env[i].val));
			break;
		}
	if (seen.n)
		sb_printf(&h, "the log shows %s; ", seen.p);
	sb_adds(&h, "check `ip -br addr` on each node and set NCCL_SOCKET_IFNAME to an interface that exists "
		    "and has an IP (prefix `eth`, exact `=eth0`, exclude `^docker,lo`; a value of one character is ignored)");
	f->hint = sb_take(&h);
	sb_free(&seen);
	intset_free(&names);
}

static void check_versions(model *m)
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
			sb_printf(&msg, "%s on ", intern_str(&m->str, vers.v[v]));
			model_describe(m, &ps, &msg);
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

static bool any_error(const model *m)
{
	for (size_t i = 0; i < m->fs.n; i++)
		if (m->fs.v[i].severity == SEV_ERROR)
			return true;
	return false;
}

static void check_ranks(model *m)
{
	/* live: ranks may still be starting while any process logs */
	for (size_t i = 0; i < m->nprocs; i++)
		if (!quiet(m, &m->procs[i]))
			return;
	jobinfo j;
	model_jobinfo(m, &j);
	if (j.main_comm >= 0 && j.nranks > 1 && (size_t)j.ranks_seen < (size_t)j.nranks) {
		const comm *c = &m->comms[j.main_comm];
		intset missing = { 0 };
		for (int r = 0; r < c->nranks && r < 1 << 20; r++)
			if (!intset_has(&c->seen, r))
				intset_add(&missing, r);
		strbuf msg = { 0 };
		sb_printf(&msg, "a communicator of %d ranks shows %d of them in the logs; ranks ", c->nranks, j.ranks_seen);
		ranges_format(&msg, missing.v, missing.n);
		sb_adds(&msg, " never appear");
		finding *f = job_finding(m, "rank-missing", NULL, SEV_WARNING, msg.p,
					  "check that every rank's log was collected (one NCCL_DEBUG_FILE per rank, "
					  "e.g. %h-%p.log), and whether the missing ranks' processes started at all",
					  false);
		/* the finding is about the ranks that are not there */
		intset_addall(&f->ranks, &missing);
		for (int r = 0; r < c->rank_cap; r++)
			if (c->rank_proc[r] >= 0) {
				const proc *p = &m->procs[c->rank_proc[r]];
				findings_note(f, c->rank_proc[r], 0, p->ev_init.file, p->ev_init.line,
					      slice_from(p->ev_init.text));
				break;
			}
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

static void check_init(model *m)
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
	for (size_t c = 0; c < m->ncomms; c++)
		for (size_t k = 0; k < m->comms[c].seen.n; k++) {
			int r = m->comms[c].seen.v[k];
			if (!intset_has(&m->comms[c].done, r) && r < m->comms[c].rank_cap && m->comms[c].rank_proc[r] >= 0) {
				int pi = m->comms[c].rank_proc[r];
				if (!m->procs[pi].aborted && !m->procs[pi].destroyed && m->procs[pi].phase != PH_RUNNING &&
				    !m->procs[pi].init_done && quiet(m, &m->procs[pi]))
					intset_add(&stuck, pi);
			}
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

/* Two reports are of one collective when their SeqNum is the same and
 * their OpTypes do not differ (the PG status lines carry no OpType). */
static bool same_collective(const wdog *a, const wdog *b)
{
	return a->seq == b->seq && (a->op < 0 || b->op < 0 || a->op == b->op);
}

/* The OpType of the collective that w and others with its SeqNum report. */
static int group_op(const model *m, const intset *timed, const wdog *w)
{
	if (w->op >= 0)
		return w->op;
	for (size_t i = 0; i < timed->n; i++)
		if (same_collective(&m->wd[timed->v[i]], w) && m->wd[timed->v[i]].op >= 0)
			return m->wd[timed->v[i]].op;
	return -1;
}

/* The ranks behind, by the first test that singles some out:
 *  1. a rank whose last enqueued work is before `stuck`, the collective
 *     the others timed out in: it never joined it (enqueued counts may
 *     differ otherwise: ranks run ahead enqueueing);
 *  2. a rank whose last completed work is before the others';
 *  3. a rank that timed out in an earlier collective than the others.
 * Each compares reports that carry that number, and only them. */
static void check_straggler(model *m, long stuck)
{
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
			if (v < -1)
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
			if (v < -1 || (test == 0 ? v >= limit : v != lo))
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

static void check_watchdog(model *m)
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
	intset done = { 0 };
	int ngroups = 0, big = -1;
	size_t bign = 0;
	for (size_t a = 0; a < timed.n; a++) {
		const wdog *x = &m->wd[timed.v[a]];
		if (intset_has(&done, (int)a))
			continue;
		intset ranks = { 0 };
		size_t cnt = 0;
		for (size_t b = a; b < timed.n; b++) {
			const wdog *y = &m->wd[timed.v[b]];
			if (!intset_has(&done, (int)b) && same_collective(x, y)) {
				intset_add(&done, (int)b);
				int r = wd_rank(m, y);
				if (r >= 0)
					intset_add(&ranks, r);
				cnt++;
			}
		}
		/* the largest group is the collective most ranks are in; on a tie,
		 * the one furthest on: the rank behind is the odd one */
		if (cnt > bign || (cnt == bign && big >= 0 && x->seq > m->wd[big].seq)) {
			bign = cnt;
			big = timed.v[a];
		}
		if (ngroups++)
			sb_adds(&msg, "; ");
		if (ranks.n) {
			sb_adds(&msg, ranks.n == 1 ? "rank " : "ranks ");
			ranges_format(&msg, ranks.v, ranks.n);
			sb_adds(&msg, " ");
		}
		sb_adds(&msg, "timed out");
		int op = group_op(m, &timed, x);
		if (op >= 0)
			sb_printf(&msg, " in %s", intern_str(&m->str, op));
		if (x->seq >= 0)
			sb_printf(&msg, " SeqNum=%ld", x->seq);
		if (x->timeout_ms > 0)
			sb_printf(&msg, " after %ld ms", x->timeout_ms);
		intset_free(&ranks);
	}
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
	/* desync: the ranks outside the largest group */
	if (ngroups > 1 && big >= 0) {
		const wdog *maj = &m->wd[big];
		int majop = group_op(m, &timed, maj);
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
	intset_free(&done);
}

static bool env_is(const model *m, const envset *e, const char *var, const char *val)
{
	return strcmp(intern_str(&m->str, e->var), var) == 0 &&
	       (!val || strcmp(intern_str(&m->str, e->val), val) == 0);
}

static bool host_has_hca(const model *m, int host)
{
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].host == host && m->procs[i].oob.name >= 0)
			return true;
	return false;
}

/* One host on sockets because no RDMA device was found: fine for one
 * node (its ranks talk over P2P/SHM), worth a note. */
static void check_single_host_socket(model *m)
{
	intset sock = { 0 };
	int sock_net = intern_find(&m->str, SLICE_LIT("Socket"));
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		if (p->ib_missing && ((sock_net >= 0 && p->net == sock_net) || (p->net < 0 && p->nsocket > 0)))
			intset_add(&sock, (int)i);
	}
	if (sock.n) {
		strbuf msg = { 0 };
		model_describe(m, &sock, &msg);
		sb_adds(&msg, " found no RDMA device and use the Socket transport; within one host that only matters "
			      "if the job grows to more nodes");
		finding *f = job_finding(m, "net-socket-fallback", NULL, SEV_INFO, msg.p, NULL, true);
		const proc *p = &m->procs[sock.v[0]];
		const evref *e = p->ev_net.text ? &p->ev_net : &p->ev_socket;
		for (size_t i = 0; i < sock.n; i++)
			findings_note(f, sock.v[i], 0, -1, 0, SLICE_NONE);
		if (e->text)
			findings_add_evidence(f, e->file, e->line, sock.v[0], slice_from(e->text));
		sb_free(&msg);
	}
	intset_free(&sock);
}

static void check_transport(model *m)
{
	if (!multi_host(m)) {
		check_single_host_socket(m);
		return;
	}
	intset ib = { 0 }, sock = { 0 }, other = { 0 }, gdr = { 0 }, nogdr = { 0 };
	int sock_net = intern_find(&m->str, SLICE_LIT("Socket"));
	int ib_net = intern_find(&m->str, SLICE_LIT("IB"));
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		/* before 2.6.4 there is no "Using network": no IB device and a
		 * NET/Socket list mean sockets */
		if ((p->net >= 0 && p->net == sock_net) || (p->net < 0 && p->ib_missing && p->nsocket > 0))
			intset_add(&sock, (int)i);
		else if (p->net >= 0 && p->net == ib_net)
			intset_add(&ib, (int)i);
		else if (p->net >= 0)
			intset_add(&other, (int)i);
		if (p->transports & TR_NET_IB)
			intset_add(p->transports & TR_GDR ? &gdr : &nogdr, (int)i);
	}
	if (sock.n && (ib.n || other.n)) {
		strbuf msg = { 0 };
		model_describe(m, &sock, &msg);
		sb_adds(&msg, " use the Socket transport while ");
		model_describe(m, ib.n ? &ib : &other, &msg);
		sb_printf(&msg, " use %s", ib.n ? "InfiniBand/RoCE" : intern_str(&m->str, m->procs[other.v[0]].net));
		finding *f = job_finding(m, "transport-mismatch", NULL, SEV_WARNING, msg.p,
					  "make the RDMA stack the same on every node (libibverbs / rdma-core installed, "
					  "/dev/infiniband in the container, the same NCCL_IB_* and NCCL_NET settings)",
					  true);
		const proc *s = &m->procs[sock.v[0]];
		const proc *o = &m->procs[(ib.n ? ib : other).v[0]];
		findings_note(f, sock.v[0], 0, s->ev_net.file, s->ev_net.line, slice_from(s->ev_net.text));
		findings_note(f, (ib.n ? ib : other).v[0], 0, o->ev_net.file, o->ev_net.line, slice_from(o->ev_net.text));
		sb_free(&msg);
	} else if (gdr.n && nogdr.n) {
		strbuf msg = { 0 };
		model_describe(m, &gdr, &msg);
		sb_adds(&msg, " use GPU Direct RDMA while ");
		model_describe(m, &nogdr, &msg);
		sb_adds(&msg, " stage network traffic through host memory");
		finding *f = job_finding(m, "transport-mismatch", NULL, SEV_WARNING, msg.p,
					  "load nvidia-peermem (or use DMA-BUF) on every node: `lsmod | grep nvidia_peermem`", true);
		for (size_t i = 0; i < nogdr.n; i++)
			findings_note(f, nogdr.v[i], 0, -1, 0, SLICE_NONE);
		const evref *a = &m->procs[gdr.v[0]].ev_netchan, *b = &m->procs[nogdr.v[0]].ev_netchan;
		findings_add_evidence(f, b->file, b->line, nogdr.v[0], slice_from(b->text));
		findings_add_evidence(f, a->file, a->line, gdr.v[0], slice_from(a->text));
		sb_free(&msg);
	} else if (sock.n && !ib.n && !other.n) {
		/* every host on sockets: deliberate, or a fallback? */
		bool disabled = false, missing = false;
		intset hca = { 0 };
		const envset *why = NULL;
		for (size_t i = 0; i < m->nenv; i++)
			if (env_is(m, &m->env[i], "NCCL_IB_DISABLE", "1") || env_is(m, &m->env[i], "NCCL_NET", "Socket")) {
				disabled = true;
				why = &m->env[i];
				/* a setting without a host (an env dump) speaks for the whole job */
				int host = m->procs[m->env[i].proc].host;
				for (size_t k = 0; k < sock.n; k++) {
					int h = m->procs[sock.v[k]].host;
					if ((host < 0 || h == host) && host_has_hca(m, h))
						intset_add(&hca, sock.v[k]);
				}
			}
		for (size_t i = 0; i < sock.n; i++)
			if (m->procs[sock.v[i]].ib_missing)
				missing = true;
		if (hca.n) {
			strbuf msg = { 0 };
			model_describe(m, &hca, &msg);
			sb_adds(&msg, " disable InfiniBand by environment although their logs show HCAs");
			finding *f = job_finding(m, "ib-disabled-by-env", NULL, SEV_WARNING,
						  msg.p, "unset NCCL_IB_DISABLE (and NCCL_NET=Socket) unless sockets are meant", true);
			for (size_t i = 0; i < hca.n; i++)
				findings_note(f, hca.v[i], 0, -1, 0, SLICE_NONE);
			const evref *ibl = &m->procs[hca.v[0]].ev_ib;
			findings_add_evidence(f, why->ev.file, why->ev.line, why->proc, slice_from(why->ev.text));
			findings_add_evidence(f, ibl->file, ibl->line, hca.v[0], slice_from(ibl->text));
			sb_free(&msg);
		} else if (!disabled && missing) {
			strbuf msg = { 0 };
			model_describe(m, &sock, &msg);
			sb_adds(&msg, " talk across hosts over TCP sockets: NCCL found no usable RDMA device");
			finding *f = job_finding(m, "net-socket-fallback", NULL, SEV_WARNING,
						  msg.p,
						  "if the nodes have InfiniBand/RoCE NICs: install rdma-core/libibverbs, pass "
						  "/dev/infiniband into the container (--device=/dev/infiniband --cap-add=IPC_LOCK), "
						  "and check NCCL_IB_HCA",
						  true);
			const proc *s = &m->procs[sock.v[0]];
			findings_note(f, sock.v[0], 0, s->ev_net.file, s->ev_net.line, slice_from(s->ev_net.text));
			sb_free(&msg);
		}
		intset_free(&hca);
	}
	intset_free(&ib);
	intset_free(&sock);
	intset_free(&other);
	intset_free(&gdr);
	intset_free(&nogdr);
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

static void check_env(model *m)
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

static void check_duplicate_gpu(model *m)
{
	for (size_t a = 0; a < m->nprocs; a++) {
		const proc *p = &m->procs[a];
		if (p->busid < 0 || p->host < 0 || p->comm < 0)
			continue;
		intset same = { 0 };
		bool seen_before = false;
		for (size_t b = 0; b < m->nprocs; b++) {
			const proc *q = &m->procs[b];
			if (q->busid == p->busid && q->host == p->host && q->comm == p->comm && q->rank != p->rank &&
			    !(q->boot.addr >= 0 && p->boot.addr >= 0 && q->boot.addr != p->boot.addr)) {
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
}

/* Distinct nodes reporting one hostname: NCCL then takes them for one
 * node and tries shared memory and P2P between them. */
static void check_duplicate_hostname(model *m)
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
static void check_driver(model *m)
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

/* A rank whose last dated line is long before everyone else's: it went
 * silent (hung, died, or its node did) while the others kept logging. */
static void check_silence(model *m)
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
			findings_note(f, silent.v[i], m->procs[silent.v[i]].last_time, -1, 0, SLICE_NONE);
		/* a new finding may move the array: f is not valid past this point */
		model_describe(m, &silent, &sm);
		sb_printf(&sm, " %s behind: its last activity is %ld min %ld s older than the others'",
			  silent.n == 1 ? "is" : "are", gap / 60, gap % 60);
		finding *g = job_finding(m, "straggler-rank", NULL, SEV_WARNING, sm.p,
					 "inspect what the slow rank was doing (py-spy dump, its last log lines)", true);
		for (size_t i = 0; i < silent.n; i++)
			findings_note(g, silent.v[i], m->procs[silent.v[i]].last_time, -1, 0, SLICE_NONE);
		sb_free(&msg);
		sb_free(&sm);
	}
	intset_free(&silent);
}

/* Live: a process silent for much longer than the others, which keep
 * logging. Uses arrival times, so it works without timestamps in logs. */
static void check_silence_live(model *m)
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
		else if (gap >= m->settle * 4)
			intset_add(&silent, (int)i);
	}
	if (silent.n && talking >= 1 && (size_t)talking >= silent.n) {
		strbuf msg = { 0 };
		model_describe(m, &silent, &msg);
		long gap = (long)(m->now - m->procs[silent.v[0]].last_wall);
		sb_printf(&msg, " %s silent for %ld s while %d other process%s keep logging",
			  silent.n == 1 ? "has been" : "have been", gap, talking, talking == 1 ? "" : "es");
		finding *f = job_finding(m, "rank-silent", "live", SEV_WARNING, msg.p,
					 "look at the silent rank's node: a hang (py-spy dump), a crash or OOM kill "
					 "(dmesg), or a lost node; its last lines tell where it stopped",
					 true);
		for (size_t i = 0; i < silent.n; i++)
			findings_note(f, silent.v[i], 0, -1, 0, SLICE_NONE);
		sb_free(&msg);
	}
	intset_free(&silent);
}

/* "could not connect to 172.17.0.1<41523>": say whose interface that is. */
static void name_connect_target(model *m)
{
	finding *f = findings_find(&m->fs, "bootstrap-connect-failed");
	if (!f || !f->nev)
		return;
	const char *at = strstr(f->message, "connect to ");
	if (!at)
		return;
	at += strlen("connect to ");
	size_t n = strcspn(at, "<: ");
	if (strstr(f->message, " is ") && strchr(f->message, '('))
		return; /* named by an earlier run */
	for (size_t i = 0; i < m->nprocs; i++) {
		const proc *p = &m->procs[i];
		iface ifs[20];
		const evref *ev[20];
		int k = used_ifaces(p, ifs, ev);
		for (int j = 0; j < k; j++) {
			const char *a = intern_str(&m->str, ifs[j].addr);
			if (strlen(a) != n || strncmp(a, at, n) != 0 || p->host < 0)
				continue;
			strbuf msg = { 0 };
			sb_printf(&msg, "%s (%s is %s on %s)", f->message, a, intern_str(&m->str, ifs[j].name),
				  intern_str(&m->str, p->host));
			free(f->message);
			f->message = sb_take(&msg);
			return;
		}
	}
}

/* A launcher's line names the process it is about by pid: that process,
 * not the stream the line happened to be written to. */
static void place_by_pid(model *m)
{
	for (size_t i = 0; i < m->fs.n; i++) {
		finding *f = &m->fs.v[i];
		if (!f->pids.n)
			continue;
		intset named = { 0 };
		for (size_t k = 0; k < m->nprocs; k++)
			if (m->procs[k].pid >= 0 && m->procs[k].pid <= INT32_MAX && intset_has(&f->pids, (int)m->procs[k].pid))
				intset_add(&named, (int)k);
		if (named.n) {
			intset_free(&f->procs);
			f->procs = named;
		}
	}
}

/* An error chain after which init went on, on every process that printed
 * it, was handled inside NCCL: not a failure of the job. */
static void check_recovered_chains(model *m)
{
	for (size_t i = 0; i < m->fs.n; i++) {
		finding *f = &m->fs.v[i];
		if (f->kind != KIND_RESULT || f->job || !f->procs.n || f->severity == SEV_INFO)
			continue;
		bool all = true;
		for (size_t k = 0; k < f->procs.n && all; k++)
			all = m->procs[f->procs.v[k]].chain_recovered;
		if (!all)
			continue;
		f->severity = SEV_INFO;
		strbuf msg = { 0 };
		sb_printf(&msg, "%s; NCCL went on with init after it, so it handled the error itself", f->message);
		free(f->message);
		f->message = sb_take(&msg);
	}
}

/* An ncclResult_t failure is explained by the WARN its process printed
 * first: cite it before the chain lines. Idempotent, for live reruns. */
static void cite_root_warns(model *m)
{
	for (size_t i = 0; i < m->fs.n; i++) {
		finding *f = &m->fs.v[i];
		if (f->job || strncmp(f->id, "nccl-", 5) != 0)
			continue;
		evidence ev[2 * FINDING_MAX_EVIDENCE];
		size_t n = 0;
		for (size_t k = 0; k < f->nev; k++) {
			const evidence *e = &f->ev[k];
			const evref *w = e->proc >= 0 ? &m->procs[e->proc].ev_warn : NULL;
			if (w && w->text) {
				bool have = false;
				for (size_t j = 0; j < n; j++)
					have |= ev[j].file == w->file && ev[j].line == w->line;
				if (!have)
					ev[n++] = (evidence){ w->file, w->line, e->proc, w->text };
			}
			bool have = false;
			for (size_t j = 0; j < n; j++)
				have |= ev[j].file == e->file && ev[j].line == e->line;
			if (!have)
				ev[n++] = *e;
		}
		/* rebuild: copies of the chosen lines, the rest dropped */
		evidence keep[FINDING_MAX_EVIDENCE];
		size_t nk = n < FINDING_MAX_EVIDENCE ? n : FINDING_MAX_EVIDENCE;
		for (size_t k = 0; k < nk; k++)
			keep[k] = (evidence){ ev[k].file, ev[k].line, ev[k].proc, xstrdup(ev[k].text) };
		for (size_t k = 0; k < f->nev; k++)
			free(f->ev[k].text);
		memcpy(f->ev, keep, nk * sizeof *keep);
		f->nev = nk;
	}
}

/* remote-peer-closed is a symptom: name the rank that failed first. */
static void hint_first_failure(model *m)
{
	finding *f = findings_find(&m->fs, "remote-peer-closed");
	if (!f || f->hint)
		return;
	int pi = model_first_failure(m);
	strbuf h = { 0 };
	sb_adds(&h, "this is usually a symptom: a peer process died or lost its network first");
	if (pi >= 0 && m->procs[pi].ev_warn.text && !intset_has(&f->procs, pi)) {
		intset one = { 0 };
		intset_add(&one, pi);
		sb_adds(&h, "; the first failure is on ");
		model_describe(m, &one, &h);
		sb_printf(&h, " (%s:%llu)", m->in[m->procs[pi].ev_warn.file].name,
			  (unsigned long long)m->procs[pi].ev_warn.line);
		intset_free(&one);
	} else {
		sb_adds(&h, "; look for the earliest error on any rank (timestamps, OOM kills, Python exceptions)");
	}
	f->hint = sb_take(&h);
}

void model_check(model *m)
{
	findings_drop_job(&m->fs);
	check_ifaces(m);
	check_iface_mismatch(m);
	infer_iface_not_found(m);
	hint_iface_not_found(m);
	check_versions(m);
	check_transport(m);
	check_env(m);
	check_duplicate_hostname(m);
	check_duplicate_gpu(m);
	check_driver(m);
	check_watchdog(m);
	check_ranks(m);
	check_silence(m);
	check_silence_live(m);
	check_init(m);
	place_by_pid(m);
	check_recovered_chains(m);
	cite_root_warns(m);
	hint_first_failure(m);
	name_connect_target(m);
	causes_link(m);
}
