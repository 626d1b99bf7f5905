#include "crosscheck.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>

#define SHOW_HOSTS 4

/* What a check compares: the value of a node (NULL when the node does not
 * know it), the message's lead ("the nodes would load different NCCL
 * versions"), the noun of a value in the evidence ("NCCL"), and the member
 * of the report to cite. */
enum aspect_when {
	A_ALWAYS,
	A_RDMA,           /* only when a node has ACTIVE RDMA ports */
	A_UNLESS_PLUGIN,  /* only when the net plugins agree (they explain it otherwise) */
};

typedef struct aspect {
	const char *id, *key;
	enum severity sev;
	size_t field;          /* offsetof(cnode, a char * member): the value, when value is NULL */
	const char *(*value)(const cnode *n, char *buf, size_t size);
	const char *lead, *noun;
	size_t line_off;       /* offsetof(cnode, *_line) */
	enum aspect_when when;
	const char *hint;      /* IFACE stands for the interface NCCL uses */
} aspect;

static const char *value_of(const aspect *a, const cnode *n, char *buf, size_t size)
{
	if (a->value)
		return a->value(n, buf, size);
	return *(char *const *)(const void *)((const char *)n + a->field);
}

static uint64_t line_at(const cnode *n, size_t off)
{
	return *(const uint64_t *)(const void *)((const char *)n + off);
}

typedef struct nodeval {
	size_t node;
	char val[160];
} nodeval;

static int cmp_val(const void *a, const void *b)
{
	const nodeval *x = a, *y = b;
	int c = strcmp(x->val, y->val);
	return c ? c : x->node < y->node ? -1 : x->node > y->node;
}

/* "2.21.5 on node-a, node-b; 2.19.3 on node-c" into msg, the groups in the
 * order of their first node; returns the number of groups (nodes of unknown
 * value are left out, named in unknown). Sorts, so that a thousand nodes
 * cost no more than a few. */
static size_t describe_groups(const compare *c, const aspect *a, strbuf *msg, strbuf *unknown)
{
	nodeval *v = xcalloc(c->n ? c->n : 1, sizeof *v);
	size_t nv = 0, nunknown = 0;
	for (size_t i = 0; i < c->n; i++) {
		const char *x = value_of(a, &c->v[i], v[nv].val, sizeof v[nv].val);
		if (!x) {
			if (nunknown++ < SHOW_HOSTS)
				sb_printf(unknown, "%s%s", nunknown > 1 ? ", " : "", c->v[i].host);
			continue;
		}
		if (x != v[nv].val)
			snprintf(v[nv].val, sizeof v[nv].val, "%s", x);
		v[nv++].node = i;
	}
	if (nunknown > SHOW_HOSTS)
		sb_printf(unknown, " and %zu more", nunknown - SHOW_HOSTS);
	qsort(v, nv, sizeof *v, cmp_val);
	/* the groups: runs of one value, each led by its first node */
	size_t *start = xcalloc(nv ? nv : 1, sizeof *start), ng = 0;
	for (size_t i = 0; i < nv; i++)
		if (!i || strcmp(v[i].val, v[i - 1].val) != 0)
			start[ng++] = i;
	for (size_t g = 1; g < ng; g++) /* by first node: insertion sort, few groups */
		for (size_t k = g; k > 0 && v[start[k]].node < v[start[k - 1]].node; k--) {
			size_t t = start[k];
			start[k] = start[k - 1];
			start[k - 1] = t;
		}
	for (size_t g = 0; g < ng; g++) {
		size_t i = start[g];
		sb_printf(msg, "%s%s on ", g ? "; " : "", v[i].val);
		size_t k = i;
		for (; k < nv && strcmp(v[k].val, v[i].val) == 0; k++)
			if (k - i < SHOW_HOSTS)
				sb_printf(msg, "%s%s", k > i ? ", " : "", c->v[v[k].node].host);
		if (k - i > SHOW_HOSTS)
			sb_printf(msg, " and %zu more", k - i - SHOW_HOSTS);
	}
	free(start);
	free(v);
	return ng;
}

/* One finding when the nodes that know the value disagree. Returns true when it fired. */
static bool check_aspect(const compare *c, model *m, const aspect *a, const char *hint)
{
	strbuf msg = { 0 }, unknown = { 0 };
	sb_printf(&msg, "%s: ", a->lead);
	size_t groups = describe_groups(c, a, &msg, &unknown);
	bool fired = groups > 1;
	if (fired) {
		if (unknown.n)
			sb_printf(&msg, " (unknown on %s)", unknown.p);
		const catentry *ce = catalog_find(m->cat, a->id);
		strbuf key = { 0 };
		sb_printf(&key, "compare:%s", a->key);
		finding *f = findings_get(&m->fs, a->id, key.p, ce ? ce->title : a->id, a->sev, msg.p, hint, NULL);
		f->scoped = true;
		for (size_t i = 0; i < c->n; i++) {
			char buf[160];
			const char *v = value_of(a, &c->v[i], buf, sizeof buf);
			if (!v)
				continue;
			strbuf t = { 0 };
			sb_printf(&t, "%s %s", a->noun, v);
			findings_note(f, c->v[i].proc, 0, c->v[i].file, line_at(&c->v[i], a->line_off), (slice){ t.p, t.n });
			sb_free(&t);
		}
		sb_free(&key);
	}
	sb_free(&msg);
	sb_free(&unknown);
	return fired;
}

static const char *v_mtu(const cnode *n, char *buf, size_t size)
{
	if (!n->has_boot || n->boot.mtu <= 0)
		return NULL;
	snprintf(buf, size, "%d", n->boot.mtu);
	return buf;
}

static const char *v_rdma_count(const cnode *n, char *buf, size_t size)
{
	snprintf(buf, size, "%d", n->rdma_active);
	return buf;
}

static const char *v_plugin(const cnode *n, char *buf, size_t size)
{
	(void)buf, (void)size;
	return !n->has_plugin ? NULL : n->plugin ? n->plugin : "none";
}

/* The interface NCCL uses on the first node that knows it, for a hint. */
static const char *boot_name(const compare *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].has_boot)
			return c->v[i].boot.name;
	return "NCCL's interface";
}

#define NAMES_REPORTED 16 /* names that differ, each its own finding; more is one fleet-wide problem */

static void addr_text(const ipaddr *a, strbuf *b)
{
	dif tmp = { .addr = *a };
	ifaces_addr_str(&tmp, b);
}

static bool same_addr(const ipaddr *a, const ipaddr *b)
{
	return a->family == b->family && memcmp(a->b, b->b, a->family == 4 ? 4 : 16) == 0;
}

/* The entry for name id on node j, or NULL. */
static const cname *name_on(const cnode *n, const intern *ids, int id)
{
	for (size_t q = 0; q < n->nnames; q++) {
		strbuf low = { 0 };
		for (const char *p = n->names[q].name; *p; p++)
			sb_addc(&low, (char)tolower((unsigned char)*p));
		int k = intern_find(ids, (slice){ low.p, low.n });
		sb_free(&low);
		if (k == id)
			return &n->names[q];
	}
	return NULL;
}

static void report_name(const compare *c, model *m, const intern *ids, int id)
{
	strbuf msg = { 0 };
	sb_printf(&msg, "%s resolves to", intern_str(ids, id));
	size_t shown = 0;
	for (size_t j = 0; j < c->n; j++) {
		const cname *y = name_on(&c->v[j], ids, id);
		if (!y || shown++ >= 6)
			continue;
		strbuf a = { 0 };
		addr_text(&y->addr, &a);
		sb_printf(&msg, "%s %s on %s%s", shown > 1 ? "," : "", a.p, c->v[j].host, y->self ? " (its own name)" : "");
		sb_free(&a);
	}
	const catentry *ce = catalog_find(m->cat, "hostname-mismatch");
	strbuf key = { 0 };
	sb_printf(&key, "compare:%s", intern_str(ids, id));
	finding *f = findings_get(&m->fs, "hostname-mismatch", key.p, ce ? ce->title : "", SEV_WARNING, msg.p,
				  "make the name resolve to one address everywhere: the same /etc/hosts on every node, or "
				  "DNS alone; a stale /etc/hosts line on some nodes is the usual cause (getent hosts NAME "
				  "on each)",
				  NULL);
	f->scoped = true;
	for (size_t j = 0; j < c->n; j++) {
		const cname *y = name_on(&c->v[j], ids, id);
		if (!y)
			continue;
		strbuf t = { 0 }, a = { 0 };
		addr_text(&y->addr, &a);
		sb_printf(&t, "%s -> %s", y->name, a.p);
		findings_note(f, c->v[j].proc, 0, c->v[j].file, y->self ? c->v[j].hostname_line : c->v[j].peers_line,
			      (slice){ t.p, t.n });
		sb_free(&t);
		sb_free(&a);
	}
	sb_free(&key);
	sb_free(&msg);
}

/* A name that resolves to different addresses on different nodes (names
 * compare without case, as resolvers do). */
static void check_names(const compare *c, model *m)
{
	intern ids;
	intern_init(&ids);
	ipaddr *first = NULL;
	bool *differ = NULL;
	size_t cap = 0, ncap = 0;
	for (size_t j = 0; j < c->n; j++)
		for (size_t q = 0; q < c->v[j].nnames; q++) {
			const cname *y = &c->v[j].names[q];
			strbuf low = { 0 };
			for (const char *p = y->name; *p; p++)
				sb_addc(&low, (char)tolower((unsigned char)*p));
			size_t before = ids.n;
			int id = intern_get(&ids, (slice){ low.p, low.n });
			sb_free(&low);
			grow(&first, &cap, (size_t)id, sizeof *first);
			grow(&differ, &ncap, (size_t)id, sizeof *differ);
			if (ids.n > before)
				first[id] = y->addr;
			else if (!same_addr(&first[id], &y->addr))
				differ[id] = true;
		}
	size_t reported = 0;
	for (size_t id = 0; id < ids.n && reported < NAMES_REPORTED; id++)
		if (differ[id]) {
			report_name(c, m, &ids, (int)id);
			reported++;
		}
	free(first);
	free(differ);
	intern_free(&ids);
}

/* What the nodes must agree on, in the order the findings come. */
static const aspect aspects[] = {
	{ "nccl-version-mismatch", "nccl", SEV_ERROR, offsetof(cnode, nccl), NULL,
	  "the nodes would load different NCCL versions", "NCCL", offsetof(cnode, nccl_line), A_ALWAYS,
	  "use one NCCL build on every node (the same container image, or the same nvidia-nccl-cu* wheel); check "
	  "LD_LIBRARY_PATH and LD_PRELOAD on the nodes that differ: the NCCL line of `ncclog doctor` names the "
	  "library each one loads and how it was found" },
	{ "cuda-driver-mismatch", "driver", SEV_WARNING, offsetof(cnode, driver), NULL,
	  "the nodes have different CUDA drivers", "CUDA driver", offsetof(cnode, driver_line), A_ALWAYS,
	  "install one NVIDIA driver version on every node (nvidia-smi shows it): NVLink SHARP, multi-node NVLink "
	  "(IMEX) and the fabric manager need the same driver everywhere, and the oldest driver bounds the CUDA "
	  "builds the whole job can use" },
	{ "net-mtu-mismatch", "mtu", SEV_WARNING, 0, v_mtu, "the interfaces NCCL would use have different MTUs", "MTU",
	  offsetof(cnode, boot_line), A_ALWAYS,
	  "set one MTU on IFACE of every node and on the switch ports between them (ip link set dev IFACE mtu N, and "
	  "in the network configuration so that it stays): where MTUs differ, large frames are dropped on the way, "
	  "which stalls TCP connections on some paths and breaks RoCE" },
	{ "net-nic-mismatch", "driver", SEV_WARNING, offsetof(cnode, boot_driver), NULL,
	  "the interfaces NCCL would use have different drivers", "driver", offsetof(cnode, boot_line), A_ALWAYS,
	  "install the same NIC driver on every node (ethtool -i IFACE shows it): drivers differ in offloads, queue "
	  "counts and bugs, and RDMA NICs in their verbs features" },
	{ "net-nic-mismatch", "firmware", SEV_WARNING, offsetof(cnode, boot_fw), NULL,
	  "the interfaces NCCL would use run different firmware", "firmware", offsetof(cnode, boot_line), A_ALWAYS,
	  "flash one firmware version on the NICs of every node (ethtool -i IFACE shows it): firmware differences "
	  "change offloads and fixes between the two ends of a connection" },
	{ "net-nic-mismatch", "rdma-count", SEV_WARNING, 0, v_rdma_count,
	  "the nodes have different numbers of ACTIVE RDMA ports", "ACTIVE RDMA ports:", offsetof(cnode, rdma_line),
	  A_RDMA,
	  "bring up the missing ports or devices (ibstat, ibv_devinfo: cable, subnet manager, switch port, a disabled "
	  "device): NCCL gives a node with fewer NICs less bandwidth and builds its rings around it" },
	{ "net-nic-mismatch", "link-layer", SEV_ERROR, offsetof(cnode, links), NULL,
	  "the nodes' ACTIVE RDMA ports have different link layers", "RDMA link layer", offsetof(cnode, rdma_line),
	  A_RDMA,
	  "NCCL cannot connect InfiniBand ports to RoCE ports: give every node ports of one link type (mlxconfig "
	  "LINK_TYPE_P1), or select the same kind everywhere with NCCL_IB_HCA" },
	{ "net-nic-mismatch", "rdma-firmware", SEV_WARNING, offsetof(cnode, rdma_fw), NULL,
	  "the nodes' RDMA devices run different firmware", "RDMA firmware", offsetof(cnode, rdma_line), A_RDMA,
	  "flash one firmware version on the RDMA NICs of every node (mlxfwmanager, or the vendor's tool): firmware "
	  "differences change RDMA features and fixes between the two ends of a connection" },
	{ "net-plugin-mismatch", "plugin", SEV_ERROR, 0, v_plugin, "the nodes would load different net plugins",
	  "net plugin", offsetof(cnode, plugin_line), A_ALWAYS,
	  "install the same net plugin on every node, where the loader finds it, or none (NCCL_NET_PLUGIN=none): "
	  "with a plugin on some nodes only, the nodes pick different networks and cannot connect" },
	{ "transport-mismatch", "net", SEV_WARNING, offsetof(cnode, net), NULL, "the nodes would use different networks",
	  "network", offsetof(cnode, boot_line), A_UNLESS_PLUGIN,
	  "nodes that pick different networks cannot connect: make the RDMA ports ACTIVE on every node, or set NCCL_NET "
	  "(IB or Socket) the same way everywhere" },
};

/* The hint with IFACE replaced by the interface NCCL uses. */
static void hint_for(const compare *c, const char *hint, strbuf *b)
{
	const char *name = boot_name(c);
	for (const char *p = hint; *p;) {
		const char *at = strstr(p, "IFACE");
		if (!at) {
			sb_adds(b, p);
			break;
		}
		sb_add(b, p, (size_t)(at - p));
		sb_adds(b, name);
		p = at + 5;
	}
}

void crosscheck_run(const compare *c, model *m)
{
	if (c->n < 2)
		return;
	bool rdma = false, plugins_differ = false;
	for (size_t i = 0; i < c->n; i++)
		rdma = rdma || c->v[i].rdma_active > 0;
	for (size_t k = 0; k < sizeof aspects / sizeof aspects[0]; k++) {
		const aspect *a = &aspects[k];
		if ((a->when == A_RDMA && !rdma) || (a->when == A_UNLESS_PLUGIN && plugins_differ))
			continue;
		strbuf hint = { 0 };
		hint_for(c, a->hint, &hint);
		bool fired = check_aspect(c, m, a, hint.p);
		if (a->value == v_plugin)
			plugins_differ = fired;
		sb_free(&hint);
	}
	check_names(c, m);
}
