#include "facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/escape.h"

static const char *const kind_names[] = { "routable", "loopback", "virtual", "link-local" };

/* Names and values come from the system and the environment: valid UTF-8 only. */
static void put_str(cJSON *o, const char *k, const char *v)
{
	strbuf b = { 0 };
	escape_utf8(&b, slice_from(v ? v : ""));
	cJSON_AddStringToObject(o, k, b.p ? b.p : "");
	sb_free(&b);
}

static cJSON *iface_obj(const dif *d, bool full)
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
	if (full) {
		if (d->mtu > 0)
			cJSON_AddNumberToObject(o, "mtu", d->mtu);
		else
			cJSON_AddNullToObject(o, "mtu");
		cJSON_AddBoolToObject(o, "up", d->up);
		cJSON_AddBoolToObject(o, "running", d->running);
	}
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
		cJSON_AddItemToArray(a, iface_obj(&f->ifs.v[p->idx[i]], false));
	if (!one)
		return a;
	cJSON *o = cJSON_DetachItemFromArray(a, 0);
	cJSON_Delete(a);
	put_str(o, "list", p->list);
	put_str(o, "why", p->why);
	return o;
}

cJSON *facts_json(const doctor_facts *f)
{
	const node_facts *n = &f->node;
	cJSON *o = cJSON_CreateObject();
	char vb[32];
	snprintf(vb, sizeof vb, "%d.%d.%d", f->sel.version / 10000, f->sel.version / 100 % 100, f->sel.version % 100);
	put_str(o, "host", n->host);
	put_str(o, "nccl_version", vb);
	cJSON_AddBoolToObject(o, "nccl_version_given", f->version_given);
	cJSON_AddNumberToObject(o, "gpus", n->gpus);
	cJSON *ifs = cJSON_AddArrayToObject(o, "interfaces");
	for (size_t i = 0; i < f->ifs.n; i++)
		cJSON_AddItemToArray(ifs, iface_obj(&f->ifs.v[i], true));
	cJSON_AddItemToObject(o, "bootstrap", pick_obj(f, &f->pick.boot, true));
	cJSON_AddItemToObject(o, "net_socket", pick_obj(f, &f->pick.sock, false));
	put_str(o, "net_socket_why", f->pick.sock.why);
	if (!f->version_given)
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
		cJSON_AddItemToArray(rd, p);
	}
	cJSON *env = cJSON_AddObjectToObject(o, "env");
	for (size_t i = 0; i < n->nenv; i++)
		put_str(env, n->env[i].name, n->env[i].value);
	cJSON *peers = cJSON_AddArrayToObject(o, "peers");
	for (size_t i = 0; i < f->peers.n; i++) {
		const peer *p = &f->peers.v[i];
		cJSON *e = cJSON_CreateObject();
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
