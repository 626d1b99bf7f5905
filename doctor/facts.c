#include "facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/escape.h"

static const char *const kind_names[] = { "routable", "loopback", "virtual", "link-local" };

/* Names and values come from the system and the environment: valid UTF-8 only. */
static void put_str(cJSON *o, const char *k, const char *v)
{
	if (!v) {
		cJSON_AddNullToObject(o, k);
		return;
	}
	strbuf b = { 0 };
	escape_utf8(&b, slice_from(v));
	cJSON_AddStringToObject(o, k, b.p ? b.p : "");
	sb_free(&b);
}

static void nic_facts(cJSON *o, const nic *n)
{
	if (!n)
		return;
	put_str(o, "driver", n->driver[0] ? n->driver : NULL);
	put_str(o, "driver_version", n->version[0] ? n->version : NULL);
	put_str(o, "firmware", n->firmware[0] ? n->firmware : NULL);
	put_str(o, "bus", n->bus[0] ? n->bus : NULL);
	if (n->speed > 0)
		cJSON_AddNumberToObject(o, "speed_mbps", (double)n->speed);
	else
		cJSON_AddNullToObject(o, "speed_mbps");
}

static cJSON *iface_obj(const doctor_facts *f, const dif *d, bool full)
{
	cJSON *o = cJSON_CreateObject();
	strbuf a = { 0 };
	put_str(o, "name", d->name);
	if (d->addr.family) {
		ifaces_addr_str(d, &a);
		put_str(o, "family", d->addr.family == 4 ? "inet" : "inet6");
		put_str(o, "addr", a.p);
		cJSON_AddNumberToObject(o, "prefix", d->prefix);
	} else {
		cJSON_AddNullToObject(o, "family");
		cJSON_AddNullToObject(o, "addr");
		cJSON_AddNullToObject(o, "prefix");
	}
	if (d->mtu > 0)
		cJSON_AddNumberToObject(o, "mtu", d->mtu);
	else
		cJSON_AddNullToObject(o, "mtu");
	if (full) {
		cJSON_AddBoolToObject(o, "up", d->up);
		cJSON_AddBoolToObject(o, "running", d->running);
	}
	nic_facts(o, nics_find(&f->nics, d->name));
	if (d->addr.family)
		put_str(o, "kind", kind_names[doctor_iface_kind(d)]);
	else
		cJSON_AddNullToObject(o, "kind"); /* no address: NCCL never considers it */
	sb_free(&a);
	return o;
}

static cJSON *pick_obj(const doctor_facts *f, const sel_pick *p, bool one)
{
	if (one && !p->n)
		return cJSON_CreateNull();
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < p->n; i++)
		cJSON_AddItemToArray(a, iface_obj(f, &f->ifs.v[p->idx[i]], false));
	if (!one)
		return a;
	cJSON *o = cJSON_DetachItemFromArray(a, 0);
	cJSON_Delete(a);
	put_str(o, "list", p->list);
	put_str(o, "why", p->why);
	return o;
}

static const char *const vsrc_names[] = { "latest", "option", "library" };
static const char *const from_names[] = { NULL, "ncclGetVersion", "version string", "file name", "wheel metadata" };

static cJSON *nccl_obj(const doctor_facts *f)
{
	const versions *v = &f->vers;
	if (!v->nnccl)
		return cJSON_CreateNull();
	const ncclcopy *c = &v->nccl[0];
	cJSON *o = cJSON_CreateObject();
	put_str(o, "path", c->lib.path);
	put_str(o, "real_path", c->lib.real);
	put_str(o, "found_through", loader_where_name(c->lib.where));
	put_str(o, "version", c->version[0] ? c->version : NULL);
	put_str(o, "version_from", from_names[c->from]);
	put_str(o, "cuda", c->cuda[0] ? c->cuda : NULL);
	put_str(o, "wheel", c->wheel[0] ? c->wheel : NULL);
	put_str(o, "error", c->err[0] ? c->err : NULL);
	cJSON *others = cJSON_AddArrayToObject(o, "others");
	for (size_t i = 1; i < v->nnccl; i++) {
		cJSON *e = cJSON_CreateObject();
		put_str(e, "path", v->nccl[i].lib.path);
		put_str(e, "version", v->nccl[i].version[0] ? v->nccl[i].version : NULL);
		put_str(e, "found_through", loader_where_name(v->nccl[i].lib.where));
		cJSON_AddItemToArray(others, e);
	}
	return o;
}

static cJSON *driver_obj(const versions *v)
{
	cJSON *o = cJSON_CreateObject();
	put_str(o, "kernel_module", v->kmod[0] ? v->kmod : NULL);
	char cv[16];
	versions_cuda_str(v->driver, cv, sizeof cv);
	put_str(o, "cuda", v->driver ? cv : NULL);
	put_str(o, "cuda_from", !v->driver ? NULL : v->driver_called ? "cuDriverGetVersion" : "driver table");
	cJSON_AddBoolToObject(o, "cuda_or_newer", v->driver_past_table);
	put_str(o, "libcuda", v->libcuda);
	return o;
}

static cJSON *plugin_obj(const versions *v)
{
	if (!v->plugin_want[0])
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	put_str(o, "want", v->plugin_want);
	put_str(o, "path", v->plugin);
	put_str(o, "name", v->plugin_name[0] ? v->plugin_name : NULL);
	if (v->plugin_abi)
		cJSON_AddNumberToObject(o, "abi", v->plugin_abi);
	put_str(o, "error", v->plugin_err[0] ? v->plugin_err : NULL);
	return o;
}

static cJSON *addr_str(const ipaddr *a)
{
	strbuf b = { 0 };
	names_addr_str(a, &b);
	cJSON *s = cJSON_CreateString(b.p);
	sb_free(&b);
	return s;
}

static cJSON *hostname_obj(const doctor_facts *f)
{
	cJSON *o = cJSON_CreateObject();
	put_str(o, "name", f->node.host);
	cJSON *a = cJSON_AddArrayToObject(o, "addrs");
	for (int i = 0; i < f->self.naddr; i++)
		cJSON_AddItemToArray(a, addr_str(&f->self.addr[i]));
	if (f->self.hosts_line)
		cJSON_AddNumberToObject(o, "hosts_line", f->self.hosts_line);
	else
		cJSON_AddNullToObject(o, "hosts_line");
	put_str(o, "iface", f->self_if >= 0 ? f->ifs.v[f->self_if].name : NULL);
	put_str(o, "error", f->self.ok ? NULL : f->self.err);
	return o;
}

static cJSON *gids_obj(const doctor_facts *f, const ibport *p, cJSON *port)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < p->ngids; i++) {
		cJSON *g = cJSON_CreateObject();
		cJSON_AddNumberToObject(g, "index", p->gids[i].index);
		strbuf t = { 0 };
		gid_str(p->gids[i].raw, &t);
		put_str(g, "gid", t.p);
		sb_free(&t);
		if (p->gids[i].roce)
			cJSON_AddNumberToObject(g, "roce", p->gids[i].roce);
		else
			cJSON_AddNullToObject(g, "roce");
		put_str(g, "netdev", p->gids[i].ndev[0] ? p->gids[i].ndev : NULL);
		cJSON_AddItemToArray(a, g);
	}
	if (strcmp(p->link, "Ethernet") == 0) {
		const node_facts *n = &f->node;
		gid_input in = { p->gids, p->ngids, p->gid_tbl_len, f->sel.version, node_env(n, "NCCL_IB_GID_INDEX"),
				 node_env(n, "NCCL_IB_ADDR_FAMILY"), node_env(n, "NCCL_IB_ADDR_RANGE"),
				 node_env(n, "NCCL_IB_ROCE_VERSION_NUM") };
		enum gid_how how;
		cJSON_AddNumberToObject(port, "gid_used", gid_pick(&in, &how));
	}
	return a;
}

cJSON *facts_json(const doctor_facts *f)
{
	const node_facts *n = &f->node;
	cJSON *o = cJSON_CreateObject();
	char vb[32];
	snprintf(vb, sizeof vb, "%d.%d.%d", f->sel.version / 10000, f->sel.version / 100 % 100, f->sel.version % 100);
	put_str(o, "host", n->host);
	put_str(o, "nccl_version", vb);
	cJSON_AddBoolToObject(o, "nccl_version_given", f->vsrc == VS_OPTION);
	put_str(o, "nccl_version_from", vsrc_names[f->vsrc]);
	cJSON_AddItemToObject(o, "nccl", nccl_obj(f));
	cJSON_AddItemToObject(o, "cuda_driver", driver_obj(&f->vers));
	cJSON_AddItemToObject(o, "net_plugin", plugin_obj(&f->vers));
	cJSON_AddItemToObject(o, "hostname", hostname_obj(f));
	cJSON_AddNumberToObject(o, "gpus", n->gpus);
	cJSON *ifs = cJSON_AddArrayToObject(o, "interfaces");
	for (size_t i = 0; i < f->ifs.n; i++)
		cJSON_AddItemToArray(ifs, iface_obj(f, &f->ifs.v[i], true));
	cJSON_AddItemToObject(o, "bootstrap", pick_obj(f, &f->pick.boot, true));
	cJSON_AddItemToObject(o, "net_socket", pick_obj(f, &f->pick.sock, false));
	put_str(o, "net_socket_why", f->pick.sock.why);
	if (f->vsrc == VS_LATEST)
		cJSON_AddItemToObject(o, "bootstrap_before_2_28_3", pick_obj(f, &f->pick_old.boot, true));
	put_str(o, "net", f->net);
	if (f->suggest >= 0)
		put_str(o, "suggested_socket_ifname", f->ifs.v[f->suggest].name);
	else
		cJSON_AddNullToObject(o, "suggested_socket_ifname");
	cJSON *shm = cJSON_AddObjectToObject(o, "shm");
	if (n->shm_ok) {
		cJSON_AddNumberToObject(shm, "size", (double)n->shm_size);
		cJSON_AddNumberToObject(shm, "free", (double)n->shm_free);
	}
	const char *bs = node_env(n, "NCCL_BUFFSIZE");
	cJSON_AddNumberToObject(shm, "need", (double)node_shm_need(n->gpus, bs ? strtoull(bs, NULL, 0) : 0));
	if (n->memlock_unlimited)
		put_str(o, "memlock", "unlimited");
	else
		cJSON_AddNumberToObject(o, "memlock", (double)n->memlock_soft);
	cJSON *rd = cJSON_AddArrayToObject(o, "rdma");
	for (size_t i = 0; i < n->nib; i++) {
		cJSON *p = cJSON_CreateObject();
		put_str(p, "dev", n->ib[i].dev);
		cJSON_AddNumberToObject(p, "port", n->ib[i].port);
		put_str(p, "state", n->ib[i].state);
		put_str(p, "link_layer", n->ib[i].link);
		put_str(p, "firmware", n->ib[i].fw[0] ? n->ib[i].fw : NULL);
		put_str(p, "rate", n->ib[i].rate[0] ? n->ib[i].rate : NULL);
		put_str(p, "netdev", n->ib[i].netdev[0] ? n->ib[i].netdev : NULL);
		cJSON_AddItemToObject(p, "gids", gids_obj(f, &n->ib[i], p));
		cJSON_AddItemToArray(rd, p);
	}
	cJSON *env = cJSON_AddObjectToObject(o, "env");
	for (size_t i = 0; i < n->nenv; i++)
		put_str(env, n->env[i].name, n->env[i].value);
	cJSON *ms = cJSON_AddObjectToObject(o, "master");
	put_str(ms, "addr", f->master_addr[0] ? f->master_addr : NULL);
	put_str(ms, "port", f->master_port[0] ? f->master_port : NULL);
	cJSON *peers = cJSON_AddArrayToObject(o, "peers");
	for (size_t i = 0; i < f->peers.n; i++) {
		const peer *p = &f->peers.v[i];
		cJSON *e = cJSON_CreateObject();
		if (p->master) {
			if (p->resolved)
				cJSON_AddItemToObject(ms, "resolved", addr_str(&p->addr));
			else
				cJSON_AddNullToObject(ms, "resolved");
			if (f->connected && p->resolved && !p->no_connect)
				put_str(ms, "connect", p->conn == PC_OK ? "ok" : peers_conn_name(p->conn));
			cJSON_Delete(e);
			continue;
		}
		put_str(e, "host", p->host);
		cJSON_AddNumberToObject(e, "port", p->port);
		if (p->resolved) {
			dif tmp = { .addr = p->addr };
			strbuf a = { 0 };
			ifaces_addr_str(&tmp, &a);
			put_str(e, "addr", a.p);
			sb_free(&a);
		} else {
			cJSON_AddNullToObject(e, "addr");
		}
		if (p->local >= 0)
			put_str(e, "local_iface", f->ifs.v[p->local].name);
		else
			cJSON_AddNullToObject(e, "local_iface");
		put_str(e, "route_iface", p->route >= 0 ? f->ifs.v[p->route].name : NULL);
		if (p->hosts_line)
			cJSON_AddNumberToObject(e, "hosts_line", p->hosts_line);
		if (f->connected && p->resolved) {
			put_str(e, "connect", p->conn == PC_OK ? "ok" : peers_conn_name(p->conn));
			cJSON_AddNumberToObject(e, "connect_ms", p->ms);
		}
		if (p->err[0])
			put_str(e, "error", p->err);
		cJSON_AddItemToArray(peers, e);
	}
	return o;
}
