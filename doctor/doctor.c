/* Gathering a node's facts, and NCCL's choice over them. */
#include "doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/model.h"

#define PROBE_TIMEOUT_MS 10000
#define MASTER_DEFAULT_PORT 29500 /* torchrun's default */

static void join(char *dst, const char *root, const char *path)
{
	if (snprintf(dst, DOCTOR_PATH_MAX, "%s%s", root, path) >= DOCTOR_PATH_MAX)
		dst[0] = '\0'; /* a root that long names nothing */
}

void doctor_paths_at(doctor_paths *p, const char *root)
{
	*p = (doctor_paths){ .live = !root || !*root };
	snprintf(p->root, sizeof p->root, "%s", root ? root : "");
	join(p->shm, p->root, "/dev/shm");
	join(p->dev, p->root, "/dev");
	join(p->ib, p->root, "/sys/class/infiniband");
	join(p->hosts, p->root, "/etc/hosts");
}

node_paths doctor_node_paths(const doctor_paths *p)
{
	return (node_paths){ p->shm, p->dev, p->ib };
}

const char *doctor_version_str(int v, char *buf, size_t size)
{
	snprintf(buf, size, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	return buf;
}

int doctor_iface_kind(const dif *d)
{
	if (d->loopback || strcmp(d->name, "lo") == 0 || ipaddr_kind(&d->addr) == IP_LOOPBACK)
		return K_LOOP;
	if (model_iface_virtual(d->name))
		return K_VIRTUAL;
	if (ipaddr_kind(&d->addr) == IP_LINK_LOCAL)
		return K_LINK_LOCAL;
	return K_ROUTABLE;
}

/* The interface to recommend: routable, with a link, on a peer's subnet
 * when peers were named; IPv4 before IPv6; kernel order breaks ties. */
static int best_iface(const doctor_facts *f)
{
	int best = -1, best_score = -1;
	for (size_t i = 0; i < f->ifs.n; i++) {
		const dif *d = &f->ifs.v[i];
		if (!d->addr.family || doctor_iface_kind(d) != K_ROUTABLE)
			continue;
		int score = (d->running ? 4 : 0) + (d->addr.family == 4 ? 1 : 0);
		for (size_t k = 0; k < f->peers.n; k++)
			if (!f->peers.v[k].master && f->peers.v[k].resolved && ifaces_same_subnet(d, &f->peers.v[k].addr))
				score += 8;
		if (score > best_score) {
			best = (int)i;
			best_score = score;
		}
	}
	return best;
}

void doctor_predict(doctor_facts *f)
{
	const node_facts *n = &f->node;
	f->sel.ifname = node_env(n, "NCCL_SOCKET_IFNAME");
	f->sel.comm_id = node_env(n, "NCCL_COMM_ID");
	f->sel.family = node_env(n, "NCCL_SOCKET_FAMILY");
	if (!f->sel.version)
		f->sel.version = SEL_VERSION_LATEST;
	select_predict(f->ifs.v, f->ifs.n, &f->sel, &f->pick);
	if (f->vsrc == VS_LATEST) {
		sel_input old = f->sel;
		old.version = SEL_VERSION(2, 28, 2);
		select_predict(f->ifs.v, f->ifs.n, &old, &f->pick_old);
	}
	f->suggest = best_iface(f);
	const char *net = node_env(n, "NCCL_NET");
	const char *ibd = node_env(n, "NCCL_IB_DISABLE");
	bool active = false;
	for (size_t i = 0; i < n->nib; i++)
		if (strcmp(n->ib[i].state, "ACTIVE") == 0)
			active = true;
	if (net && *net)
		snprintf(f->net, sizeof f->net, "%s", net);
	else if (f->vers.plugin && f->vers.plugin_name[0])
		snprintf(f->net, sizeof f->net, "%s", f->vers.plugin_name);
	else
		snprintf(f->net, sizeof f->net, "%s", active && !(ibd && strcmp(ibd, "0") != 0) ? "IB" : "Socket");
}

/* NCCL_COMM_ID may name a host: resolve it as NCCL would (its first address). */
static void resolve_comm_id(doctor_facts *f, const doctor_paths *p)
{
	const char *cid = node_env(&f->node, "NCCL_COMM_ID");
	char host[256];
	if (!cid || !select_comm_id_host(cid, host, sizeof host))
		return;
	resolved r;
	names_resolve(host, p->hosts, !p->live, &r);
	if (r.ok)
		f->sel.comm_addr = r.addr[0];
}

/* The local entry with address a; for a loopback address, the loopback
 * entry whose subnet holds it (127.0.1.1 is lo's without being listed). */
static int entry_of(const doctor_facts *f, const ipaddr *a)
{
	for (size_t i = 0; i < f->ifs.n; i++) {
		const dif *d = &f->ifs.v[i];
		if (d->addr.family == a->family && memcmp(d->addr.b, a->b, a->family == 4 ? 4 : 16) == 0)
			return (int)i;
	}
	for (size_t i = 0; ipaddr_kind(a) == IP_LOOPBACK && i < f->ifs.n; i++)
		if (f->ifs.v[i].addr.family && ifaces_same_subnet(&f->ifs.v[i], a))
			return (int)i;
	return -1;
}

/* MASTER_ADDR and MASTER_PORT, when set: checked like a peer on that port. */
static void add_master(doctor_facts *f, char *const *env)
{
	const char *addr = loader_env_get(env, "MASTER_ADDR"), *port = loader_env_get(env, "MASTER_PORT");
	if (port) {
		snprintf(f->master_port, sizeof f->master_port, "%s", port);
		char *end;
		long v = strtol(port, &end, 10);
		f->master_port_bad = !*port || *end || v < 1 || v > 65535;
	}
	if (!addr || !*addr)
		return;
	snprintf(f->master_addr, sizeof f->master_addr, "%s", addr);
	strbuf spec = { 0 }, err = { 0 };
	int pn = port && !f->master_port_bad ? atoi(port) : MASTER_DEFAULT_PORT;
	sb_printf(&spec, strchr(addr, ':') ? "[%s]:%d" : "%s:%d", addr, pn);
	if (peers_add(&f->peers, spec.p, &err) == 0) {
		f->peers.v[f->peers.n - 1].master = true;
		f->peers.v[f->peers.n - 1].no_connect = f->master_port_bad;
	}
	sb_free(&spec);
	sb_free(&err);
}

int doctor_collect(doctor_facts *f, const doctor_paths *p, const doctor_opts *o, char *const *env, strbuf *err)
{
	if (ifaces_list(&f->ifs, err) != 0)
		return -1;
	node_paths np = doctor_node_paths(p);
	node_collect(&f->node, &np, env, o->gpus);
	/* the interfaces are this namespace's whatever the root: so is what the kernel says of them */
	nics_collect(&f->nics, &f->ifs, p->root, true);
	versions_opts vo = { o->nccl_lib, p->root, env, o->probe_ms > 0 ? o->probe_ms : PROBE_TIMEOUT_MS, o->probe };
	versions_collect(&f->vers, &vo);
	names_resolve(f->node.host, p->hosts, !p->live, &f->self);
	f->self_if = f->self.ok ? entry_of(f, &f->self.addr[0]) : -1;
	add_master(f, env);
	peers_resolve(&f->peers, p->hosts, !p->live);
	peers_match(&f->peers, f->ifs.v, f->ifs.n);
	if (o->connect) {
		peers_connect(&f->peers, o->timeout_ms);
		f->connected = true;
	}
	if (o->version) {
		f->sel.version = o->version;
		f->vsrc = VS_OPTION;
	} else if (f->vers.nnccl && f->vers.nccl[0].code) {
		f->sel.version = f->vers.nccl[0].code;
		f->vsrc = VS_LIBRARY;
	}
	resolve_comm_id(f, p);
	doctor_predict(f);
	return 0;
}

void doctor_facts_free(doctor_facts *f)
{
	ifaces_free(&f->ifs);
	nics_free(&f->nics);
	node_free(&f->node);
	versions_free(&f->vers);
	peers_free(&f->peers);
}
