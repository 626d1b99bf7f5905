#include "compare.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"
#include "crosscheck.h"

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An interface object of the node document into d; false when it has no address. */
static bool read_iface(const cJSON *o, dif *d)
{
	const char *name = jstr(o, "name"), *addr = jstr(o, "addr");
	const cJSON *prefix = cJSON_GetObjectItemCaseSensitive(o, "prefix");
	*d = (dif){ .mtu = -1 };
	snprintf(d->name, sizeof d->name, "%s", name ? name : "?");
	if (!addr || !cJSON_IsNumber(prefix) || !ipaddr_parse(slice_from(addr), &d->addr))
		return false;
	d->prefix = prefix->valueint;
	const char *kind = jstr(o, "kind");
	d->routable = !kind || strcmp(kind, "routable") == 0;
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(o, "running");
	d->running = !run || cJSON_IsTrue(run);
	return true;
}

/* The line of "key": within the "node" member (the report's other members
 * have keys of the same names). */
static uint64_t line_of_key(const char *text, const char *key)
{
	char pat[64];
	const char *node = strstr(text, "\"node\":");
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = strstr(node ? node : text, pat);
	if (!p)
		return 0;
	uint64_t line = 1;
	for (const char *q = text; q < p; q++)
		line += *q == '\n';
	return line;
}

/* What one report may bring: far more than a node has, far less than a
 * crafted file could hold. */
#define CMP_MAX_ITEMS 1024
#define CMP_MAX_FINDINGS 4096

static char *dup_or_null(const char *s)
{
	return s && *s ? xstrdup(s) : NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void using_text(const dif *d, strbuf *b)
{
	sb_printf(b, "Bootstrap: Using %s:", d->name);
	ifaces_addr_str(d, b);
	sb_adds(b, "<0>");
}

/* A node's own finding, folded with the same finding of other nodes. */
static void load_finding(model *m, const cnode *n, const cJSON *fj)
{
	const char *id = jstr(fj, "id"), *msg = jstr(fj, "message"), *hint = jstr(fj, "hint");
	const char *title = jstr(fj, "title"), *sevs = jstr(fj, "severity");
	enum severity sev = SEV_WARNING;
	if (!id || !msg || (sevs && !severity_parse(sevs, &sev)))
		return;
	/* the renderer names the hosts again: drop the node's own "on HOST: " */
	char pre[300];
	snprintf(pre, sizeof pre, "on %s: ", n->host);
	if (strncmp(msg, pre, strlen(pre)) == 0)
		msg += strlen(pre);
	strbuf key = { 0 };
	sb_printf(&key, "%s|%s", id, msg);
	const catentry *ce = catalog_find(m->cat, id);
	finding *f = findings_get(&m->fs, id, key.p, ce ? ce->title : title ? title : id, sev, msg, hint, NULL);
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(fj, "evidence"), *e;
	bool noted = false;
	size_t nev = 0;
	cJSON_ArrayForEach(e, ev)
	{
		if (nev++ >= FINDING_MAX_EVIDENCE)
			break; /* a finding keeps no more */
		const char *file = jstr(e, "file"), *text = jstr(e, "text");
		const cJSON *line = cJSON_GetObjectItemCaseSensitive(e, "line");
		if (!file || !text || !cJSON_IsNumber(line))
			continue;
		strbuf name = { 0 };
		sb_printf(&name, "%s/%s", n->host, file);
		int in = -1;
		for (size_t i = 0; i < m->nin; i++)
			if (strcmp(m->in[i].name, name.p) == 0)
				in = (int)i;
		if (in < 0)
			in = model_add_input(m, name.p);
		if (!noted)
			findings_note(f, n->proc, 0, in, (uint64_t)line->valuedouble, slice_from(text));
		else
			findings_add_evidence(f, in, (uint64_t)line->valuedouble, n->proc, slice_from(text));
		noted = true;
		sb_free(&name);
	}
	if (!noted)
		findings_note(f, n->proc, 0, -1, 0, SLICE_NONE);
	sb_free(&key);
}

static void load_versions(cnode *n, const cJSON *node, const char *text)
{
	const cJSON *nc = cJSON_GetObjectItemCaseSensitive(node, "nccl");
	n->nccl_known = nc != NULL;
	n->nccl_line = line_of_key(text, "nccl");
	if (cJSON_IsObject(nc)) {
		n->nccl = dup_or_null(jstr(nc, "version"));
		n->nccl_path = dup_or_null(jstr(nc, "path"));
	}
	const cJSON *cd = cJSON_GetObjectItemCaseSensitive(node, "cuda_driver");
	n->driver_line = line_of_key(text, "cuda_driver");
	const char *kmod = jstr(cd, "kernel_module"), *cuda = jstr(cd, "cuda");
	if (kmod || cuda) {
		strbuf d = { 0 };
		if (kmod)
			sb_printf(&d, "%s%s%s%s", kmod, cuda ? " (CUDA " : "", cuda ? cuda : "", cuda ? ")" : "");
		else
			sb_printf(&d, "supporting CUDA %s", cuda);
		n->driver = sb_take(&d);
	}
	const cJSON *pl = cJSON_GetObjectItemCaseSensitive(node, "net_plugin");
	n->plugin_line = line_of_key(text, "net_plugin");
	n->has_plugin = pl != NULL;
	if (cJSON_IsObject(pl)) {
		const char *name = jstr(pl, "name"), *path = jstr(pl, "path");
		n->plugin = dup_or_null(name ? name : path);
	}
}

static void load_rdma(cnode *n, const cJSON *node, const char *text)
{
	n->rdma_line = line_of_key(text, "rdma");
	bool ib = false, eth = false, other = false;
	const cJSON *e;
	size_t ports = 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(node, "rdma"))
	{
		if (ports++ >= CMP_MAX_ITEMS)
			break;
		const char *st = jstr(e, "state"), *ll = jstr(e, "link_layer");
		if (!st || strcmp(st, "ACTIVE") != 0)
			continue;
		n->rdma_active++;
		if (ll && strcmp(ll, "InfiniBand") == 0)
			ib = true;
		else if (ll && strcmp(ll, "Ethernet") == 0)
			eth = true;
		else
			other = true;
		if (!n->rdma_fw)
			n->rdma_fw = dup_or_null(jstr(e, "firmware"));
	}
	if (ib || eth || other) {
		strbuf l = { 0 };
		sb_printf(&l, "%s%s%s%s%s", eth ? "Ethernet (RoCE)" : "", eth && (ib || other) ? " and " : "",
			  ib ? "InfiniBand" : "", ib && other ? " and " : "", other ? "other" : "");
		n->links = sb_take(&l);
	}
}

static void add_name(cnode *n, size_t *cap, const char *name, const char *addr, bool self)
{
	ipaddr a, num;
	if (!name || !addr || !ipaddr_parse(slice_from(addr), &a) || ipaddr_parse(slice_from(name), &num))
		return; /* an address given as such resolves to itself everywhere */
	grow(&n->names, cap, n->nnames, sizeof *n->names);
	n->names[n->nnames++] = (cname){ xstrdup(name), a, self };
}

static void load_names(cnode *n, const cJSON *node, const char *text)
{
	size_t cap = 0;
	n->hostname_line = line_of_key(text, "hostname");
	n->peers_line = line_of_key(text, "peers");
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(node, "hostname");
	const cJSON *addrs = cJSON_GetObjectItemCaseSensitive(h, "addrs");
	const cJSON *first = cJSON_IsArray(addrs) ? cJSON_GetArrayItem(addrs, 0) : NULL;
	if (cJSON_IsString(first)) {
		ipaddr a;
		/* a loopback answer is the node's own problem (hostname-loopback), not drift */
		if (ipaddr_parse(slice_from(first->valuestring), &a) && ipaddr_kind(&a) != IP_LOOPBACK)
			add_name(n, &cap, jstr(h, "name"), first->valuestring, true);
	}
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(node, "peers"))
	{
		if (n->nnames >= CMP_MAX_ITEMS)
			break;
		add_name(n, &cap, jstr(e, "host"), jstr(e, "addr"), false);
	}
}

int compare_load(compare *c, model *m, const char *path, strbuf *err)
{
	char *text;
	size_t len;
	if (file_slurp(path, &text, &len, err) != 0)
		return -1;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	const cJSON *node = doc ? cJSON_GetObjectItemCaseSensitive(doc, "node") : NULL;
	const char *host = node ? jstr(node, "host") : NULL;
	if (!doc || !cJSON_IsObject(node) || !host) {
		sb_printf(err, "%s: not the output of 'ncclog doctor --format json'", path);
		cJSON_Delete(doc);
		free(text);
		return -1;
	}
	grow(&c->v, &c->cap, c->n, sizeof *c->v);
	cnode *n = &c->v[c->n++];
	*n = (cnode){ 0 };
	n->host = xstrdup(host);
	n->file = model_add_input(m, path);
	m->in[n->file].bytes = len;
	for (size_t i = 0; i < len; i++)
		m->in[n->file].lines += text[i] == '\n';
	/* the node as a process of the model */
	/* pid: distinct nodes may share a host name */
	n->proc = model_add_proc(m, host, (long)c->n, n->file);
	proc *p = &m->procs[n->proc];
	const char *net = jstr(node, "net");
	p->net = net ? intern_get(&m->str, slice_from(net)) : -1;
	n->net = dup_or_null(net);
	const cJSON *boot = cJSON_GetObjectItemCaseSensitive(node, "bootstrap");
	if (cJSON_IsObject(boot) && read_iface(boot, &n->boot)) {
		n->has_boot = true;
		const cJSON *mtu = cJSON_GetObjectItemCaseSensitive(boot, "mtu");
		n->boot.mtu = cJSON_IsNumber(mtu) ? mtu->valueint : -1;
		const char *drv = jstr(boot, "driver"), *dv = jstr(boot, "driver_version");
		if (drv) {
			strbuf d = { 0 };
			sb_printf(&d, "%s%s%s", drv, dv ? " " : "", dv ? dv : "");
			n->boot_driver = sb_take(&d);
		}
		n->boot_fw = dup_or_null(jstr(boot, "firmware"));
		n->boot_line = line_of_key(text, "bootstrap");
		strbuf a = { 0 };
		ifaces_addr_str(&n->boot, &a);
		p = &m->procs[n->proc];
		p->boot.name = intern_get(&m->str, slice_from(n->boot.name));
		p->boot.addr = intern_get(&m->str, (slice){ a.p, a.n });
		sb_free(&a);
	}
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(node, "interfaces"))
	{
		if (n->ifs.n >= CMP_MAX_ITEMS)
			break;
		dif d;
		if (read_iface(e, &d)) {
			dif *x = ifaces_add(&n->ifs, d.name);
			*x = d;
		}
	}
	size_t cap = 0;
	n->env_line = line_of_key(text, "env");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(node, "env"))
	{
		if (n->nenv >= CMP_MAX_ITEMS)
			break;
		if (!cJSON_IsString(e) || !e->string)
			continue;
		strbuf kv = { 0 };
		sb_printf(&kv, "%s=%s", e->string, e->valuestring);
		grow(&n->env, &cap, n->nenv, sizeof *n->env);
		n->env[n->nenv++] = sb_take(&kv);
	}
	/* the launcher's rendezvous drifts like NCCL's variables */
	const cJSON *ms = cJSON_GetObjectItemCaseSensitive(node, "master");
	static const char *const mkeys[][2] = { { "addr", "MASTER_ADDR" }, { "port", "MASTER_PORT" } };
	for (size_t k = 0; k < 2; k++) {
		const char *v = jstr(ms, mkeys[k][0]);
		if (!v)
			continue;
		strbuf kv = { 0 };
		sb_printf(&kv, "%s=%s", mkeys[k][1], v);
		grow(&n->env, &cap, n->nenv, sizeof *n->env);
		n->env[n->nenv++] = sb_take(&kv);
	}
	if (n->nenv > 1)
		qsort(n->env, n->nenv, sizeof *n->env, cmp_str);
	load_versions(n, node, text);
	load_rdma(n, node, text);
	load_names(n, node, text);
	size_t nf = 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "findings"))
		if (nf++ < CMP_MAX_FINDINGS)
			load_finding(m, n, e);
	cJSON_Delete(doc);
	free(text);
	return 0;
}

static void net_str(const dif *d, strbuf *b)
{
	ipaddr_net_str(&d->addr, d->prefix, b);
}

/* An interface name that every node has, on one subnet everywhere. */
static bool common_iface(const compare *c, strbuf *name, strbuf *net)
{
	if (!c->n)
		return false;
	const cnode *first = &c->v[0];
	for (size_t i = 0; i < first->ifs.n; i++) {
		const dif *d = &first->ifs.v[i];
		if (d->addr.family != 4 || !d->routable)
			continue;
		strbuf want = { 0 };
		net_str(d, &want);
		bool all = true;
		for (size_t k = 1; k < c->n && all; k++) {
			bool found = false;
			for (size_t j = 0; j < c->v[k].ifs.n && !found; j++) {
				const dif *o = &c->v[k].ifs.v[j];
				if (strcmp(o->name, d->name) != 0 || !o->running || !o->routable)
					continue;
				strbuf got = { 0 };
				net_str(o, &got);
				found = strcmp(got.p, want.p) == 0;
				sb_free(&got);
			}
			all = found;
		}
		if (all && d->running) {
			sb_adds(name, d->name);
			sb_adds(net, want.p);
			sb_free(&want);
			return true;
		}
		sb_free(&want);
	}
	return false;
}

static void check_subnets(compare *c, model *m)
{
	/* groups of nodes by the subnet of their bootstrap interface */
	char **nets = xcalloc(c->n ? c->n : 1, sizeof *nets);
	size_t ngroups = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (!c->v[i].has_boot)
			continue;
		strbuf s = { 0 };
		net_str(&c->v[i].boot, &s);
		nets[i] = sb_take(&s);
		bool seen = false;
		for (size_t k = 0; k < i; k++)
			if (nets[k] && strcmp(nets[k], nets[i]) == 0)
				seen = true;
		ngroups += !seen;
	}
	if (ngroups > 1) {
		strbuf msg = { 0 }, hint = { 0 }, name = { 0 }, net = { 0 };
		bool done[256] = { 0 };
		size_t groups = 0;
		for (size_t i = 0; i < c->n && i < 256; i++) {
			if (!nets[i] || done[i])
				continue;
			sb_adds(&msg, groups++ ? "; " : "");
			size_t shown = 0, more = 0;
			for (size_t k = i; k < c->n && k < 256; k++)
				if (nets[k] && strcmp(nets[k], nets[i]) == 0) {
					done[k] = true;
					if (shown < 4)
						sb_printf(&msg, "%s%s", shown++ ? ", " : "", c->v[k].host);
					else
						more++;
				}
			if (more)
				sb_printf(&msg, " and %zu more", more);
			strbuf a = { 0 };
			ifaces_addr_str(&c->v[i].boot, &a);
			sb_printf(&msg, " would bootstrap over %s (%s, subnet %s)", c->v[i].boot.name, a.p, nets[i]);
			sb_free(&a);
		}
		if (common_iface(c, &name, &net)) {
			char where[48];
			if (c->n == 2)
				snprintf(where, sizeof where, "both hosts");
			else
				snprintf(where, sizeof where, "all %zu hosts", c->n);
			sb_printf(&hint, "export NCCL_SOCKET_IFNAME=%s on every node (present on %s, subnet %s; "
					 "=%s matches it exactly)",
				  name.p, where, net.p, name.p);
		} else {
			sb_adds(&hint, "no interface name is on one subnet on every node: give the nodes addresses on a "
				       "shared network and name that interface in NCCL_SOCKET_IFNAME, per node if the names "
				       "differ (a list works: =eth1,ens3)");
		}
		const catentry *ce = catalog_find(m->cat, "socket-iface-mismatch");
		finding *f = findings_get(&m->fs, "socket-iface-mismatch", "compare", ce ? ce->title : "",
					  SEV_ERROR, msg.p, hint.p, NULL);
		f->scoped = true;
		for (size_t i = 0; i < c->n; i++) {
			if (!c->v[i].has_boot)
				continue;
			strbuf t = { 0 };
			using_text(&c->v[i].boot, &t);
			findings_note(f, c->v[i].proc, 0, c->v[i].file, c->v[i].boot_line, (slice){ t.p, t.n });
			sb_free(&t);
		}
		sb_free(&msg);
		sb_free(&hint);
		sb_free(&name);
		sb_free(&net);
	}
	for (size_t i = 0; i < c->n; i++)
		free(nets[i]);
	free(nets);
}

static const char *env_value(const cnode *n, const char *name, size_t nlen)
{
	for (size_t i = 0; i < n->nenv; i++)
		if (strncmp(n->env[i], name, nlen) == 0 && n->env[i][nlen] == '=')
			return n->env[i] + nlen + 1;
	return NULL;
}

static void check_env(compare *c, model *m)
{
	/* every variable set on any node */
	intern names;
	intern_init(&names);
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = 0; k < c->v[i].nenv; k++) {
			const char *kv = c->v[i].env[k];
			intern_get(&names, (slice){ kv, strcspn(kv, "=") });
		}
	for (size_t v = 0; v < names.n; v++) {
		const char *name = intern_str(&names, (int)v);
		size_t nlen = strlen(name);
		const char *first = NULL;
		bool differ = false, missing = false;
		for (size_t i = 0; i < c->n; i++) {
			const char *val = env_value(&c->v[i], name, nlen);
			if (!val)
				missing = true;
			else if (!first)
				first = val;
			else if (strcmp(first, val) != 0)
				differ = true;
		}
		if (!differ && !missing)
			continue;
		strbuf msg = { 0 };
		intset lack = { 0 };
		if (differ) {
			sb_printf(&msg, "%s has different values on different hosts:", name);
			int shown = 0;
			for (size_t i = 0; i < c->n && shown < 6; i++) {
				const char *val = env_value(&c->v[i], name, nlen);
				sb_printf(&msg, "%s %s on %s", shown++ ? "," : "", val ? val : "unset", c->v[i].host);
			}
		} else {
			for (size_t i = 0; i < c->n; i++)
				if (!env_value(&c->v[i], name, nlen))
					intset_add(&lack, c->v[i].proc);
			/* "but not on node-1, node-2": where, not who */
			intset none = { 0 }, hosts = { 0 };
			for (size_t i = 0; i < lack.n; i++)
				if (m->procs[lack.v[i]].host >= 0)
					intset_add(&hosts, m->procs[lack.v[i]].host);
			sb_printf(&msg, "%s is set on some hosts but not ", name);
			model_describe_place(m, &none, &hosts, &msg);
			intset_free(&hosts);
		}
		const catentry *ce = catalog_find(m->cat, "socket-env-inconsistent");
		strbuf key = { 0 };
		sb_printf(&key, "compare:%s", name);
		finding *f = findings_get(&m->fs, "socket-env-inconsistent", key.p, ce ? ce->title : "", SEV_WARNING,
					  msg.p,
					  "set NCCL variables the same way for every rank and pass them through the launcher "
					  "(srun --export=ALL, mpirun -x VAR, the torchrun environment)",
					  NULL);
		f->scoped = true;
		for (size_t i = 0; i < c->n; i++) {
			const char *val = env_value(&c->v[i], name, nlen);
			strbuf t = { 0 };
			sb_printf(&t, "%s=%s", name, val ? val : "(unset)");
			findings_note(f, c->v[i].proc, 0, c->v[i].file, c->v[i].env_line, (slice){ t.p, t.n });
			sb_free(&t);
		}
		sb_free(&key);
		sb_free(&msg);
		intset_free(&lack);
	}
	intern_free(&names);
}

static void check_hostnames(compare *c, model *m)
{
	for (size_t i = 0; i < c->n; i++)
		for (size_t k = i + 1; k < c->n; k++) {
			if (strcmp(c->v[i].host, c->v[k].host) != 0)
				continue;
			strbuf msg = { 0 };
			sb_printf(&msg, "%s and %s both report the host name %s", m->in[c->v[i].file].name,
				  m->in[c->v[k].file].name, c->v[i].host);
			const catentry *ce = catalog_find(m->cat, "duplicate-hostname");
			finding *f = findings_get(&m->fs, "duplicate-hostname", c->v[i].host, ce ? ce->title : "",
						  SEV_WARNING, msg.p,
						  "give every node a distinct host name (NCCL treats equal names as one node), "
						  "or check that the same file was not given twice",
						  NULL);
			f->scoped = true;
			findings_note(f, c->v[i].proc, 0, -1, 0, SLICE_NONE);
			findings_note(f, c->v[k].proc, 0, -1, 0, SLICE_NONE);
			sb_free(&msg);
		}
}

void compare_check(compare *c, model *m)
{
	check_subnets(c, m);
	check_env(c, m);
	check_hostnames(c, m);
	crosscheck_run(c, m);
}

void compare_free(compare *c)
{
	for (size_t i = 0; i < c->n; i++) {
		cnode *n = &c->v[i];
		free(n->host);
		free(n->boot_driver);
		free(n->boot_fw);
		free(n->nccl);
		free(n->nccl_path);
		free(n->driver);
		free(n->plugin);
		free(n->net);
		free(n->links);
		free(n->rdma_fw);
		for (size_t k = 0; k < n->nnames; k++)
			free(n->names[k].name);
		free(n->names);
		ifaces_free(&c->v[i].ifs);
		for (size_t k = 0; k < c->v[i].nenv; k++)
			free(c->v[i].env[k]);
		free(c->v[i].env);
	}
	free(c->v);
	*c = (compare){ 0 };
}
