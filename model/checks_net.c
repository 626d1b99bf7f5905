/* Checks of the network: the interfaces each host chose, whether the
 * hosts can reach each other, and the transports between them. */
#include "checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/ipaddr.h"



/* A verb phrase whose first word is the verb, for a subject that is one
 * (model_describe says): "uses eth0", else "use eth0". */
static void put_verb(strbuf *b, bool one, const char *phrase)
{
	size_t v = strcspn(phrase, " ");
	sb_add(b, phrase, v);
	if (one)
		sb_addc(b, 's');
	sb_adds(b, phrase + v);
}

static const char *const virtual_prefixes[] = {
	"docker", "veth", "virbr", "br-", "cni", "flannel", "cali", "tun", "tap", "wg",
	"tailscale", "ip6tnl", "vxlan", "wl", "cilium", "lxc", "kube-", "weave", "vnet", "podman",
};

bool model_iface_virtual(const char *n)
{
	/* byte by byte, without a call per prefix: the report asks this of
	 * every interface of every process, and most differ at the first */
	for (size_t i = 0; i < sizeof virtual_prefixes / sizeof virtual_prefixes[0]; i++) {
		const char *v = virtual_prefixes[i];
		size_t k = 0;
		while (v[k] && n[k] == v[k])
			k++;
		if (!v[k])
			return true;
	}
	return false;
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
		if (hosts == 2)
			sb_printf(h, "present on both hosts, subnet %s; ", net.p);
		else if (hosts > 2)
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
		bool one = model_describe(m, &good, b);
		sb_addc(b, ' ');
		put_verb(b, one, "use");
		sb_printf(b, " %s (%s)", intern_str(&m->str, m->procs[gi].boot.name),
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
	bool one = model_describe(m, &g->procs, &msg);
	sb_addc(&msg, ' ');
	put_verb(&msg, one, what);
	sb_printf(&msg, " %s (%s)", intern_str(&m->str, g->first.name), intern_str(&m->str, g->first.addr));
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

void check_ifaces(model *m)
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
	/* lo is fatal only across hosts: where nothing shows a second host and
	 * nothing failed, a one-host excerpt is a risk, not an error */
	enum severity lsev = multi ? SEV_ERROR
			     : single_host(m) ? SEV_INFO
			     : any_error(m) ? SEV_ERROR : SEV_WARNING;
	emit_ifgroup(m, &loop, "socket-iface-loopback", lsev, "use the loopback interface", NULL);
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

/* The kind of an interface by its name alone. */
static enum if_kind name_kind(const model *m, iface f)
{
	const char *name = intern_str(&m->str, f.name);
	if (strcmp(name, "lo") == 0)
		return IFK_LOOP;
	return model_iface_virtual(name) ? IFK_VIRTUAL : IFK_PHYS;
}

/* Hosts of one job bootstrapping on different networks. */
void check_iface_mismatch(model *m)
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
		bool differ = iface_kind(m, p->boot) != iface_kind(m, f->boot) ||
			      (pa && pb && !ipaddr_same_net(&a, &b, a.family == 4 ? bits : 3 * bits));
		/* an address redacted or cut in the paste says nothing of its
		 * network: only the kind its name tells */
		if (pa != pb)
			differ = name_kind(m, p->boot) != name_kind(m, f->boot);
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
		bool one = model_describe(m, &fp, &msg);
		sb_addc(&msg, ' ');
		put_verb(&msg, one, "use");
		sb_printf(&msg, " %s (%s), ", intern_str(&m->str, f->boot.name), intern_str(&m->str, f->boot.addr));
		one = model_describe(m, &odd, &msg);
		sb_addc(&msg, ' ');
		put_verb(&msg, one, "use");
		sb_printf(&msg, " %s (%s)", intern_str(&m->str, o->boot.name), intern_str(&m->str, o->boot.addr));
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
void infer_iface_not_found(model *m)
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
void hint_iface_not_found(model *m)
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
		bool one = model_describe(m, &sock, &msg);
		sb_adds(&msg, " found no RDMA device and ");
		put_verb(&msg, one, "use the Socket transport; within one host that only matters if the job grows "
				       "to more nodes");
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

void check_transport(model *m)
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
		bool one = model_describe(m, &sock, &msg);
		sb_addc(&msg, ' ');
		put_verb(&msg, one, "use the Socket transport while ");
		one = model_describe(m, ib.n ? &ib : &other, &msg);
		sb_addc(&msg, ' ');
		put_verb(&msg, one, "use");
		sb_printf(&msg, " %s", ib.n ? "InfiniBand/RoCE" : intern_str(&m->str, m->procs[other.v[0]].net));
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
		bool one = model_describe(m, &gdr, &msg);
		sb_addc(&msg, ' ');
		put_verb(&msg, one, "use GPU Direct RDMA while ");
		one = model_describe(m, &nogdr, &msg);
		sb_addc(&msg, ' ');
		put_verb(&msg, one, "stage network traffic through host memory");
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
			bool one = model_describe(m, &hca, &msg);
			sb_adds(&msg, one ? " disables InfiniBand by environment although its log shows HCAs"
						 : " disable InfiniBand by environment although their logs show HCAs");
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
			bool one = model_describe(m, &sock, &msg);
			sb_addc(&msg, ' ');
			put_verb(&msg, one, "talk across hosts over TCP sockets: NCCL found no usable RDMA device");
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

/* "could not connect to 172.17.0.1<41523>": say whose interface that is. */
void name_connect_target(model *m)
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
