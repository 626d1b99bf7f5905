#include "select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_NCCL 16 /* MAX_IF_NAME_SIZE: longer list entries are cut */

typedef struct iflist {
	char prefix[SEL_MAX_IFS][NAME_MAX_NCCL + 1];
	int n;
	bool not, exact;
} iflist;

/* NCCL's parseStringList: entries split on ',', then ':' (the port, unused
 * for sockets); empty entries dropped; at most 16. */
static void parse_list(const char *s, int version, iflist *l)
{
	*l = (iflist){ 0 };
	if (*s == '^') {
		l->not = true;
		s++;
	}
	if (*s == '=' && version >= SEL_VERSION(2, 5, 6)) {
		l->exact = true;
		s++;
	}
	int c = 0;
	for (;; s++) {
		if (*s == ':') {
			if (c > 0) {
				l->prefix[l->n++][c] = '\0';
				c = 0;
			}
			while (*s && *s != ',')
				s++;
		}
		if (*s == ',' || *s == '\0') {
			if (c > 0) {
				l->prefix[l->n++][c] = '\0';
				c = 0;
			}
		} else if (c < NAME_MAX_NCCL) {
			l->prefix[l->n][c++] = *s;
		}
		if (!*s || l->n == SEL_MAX_IFS)
			break;
	}
}

/* NCCL's matchIfList for a socket (port -1): an empty list matches all. */
static bool list_match(const iflist *l, const char *name)
{
	if (l->n == 0)
		return true;
	for (int i = 0; i < l->n; i++) {
		if (l->exact ? strcmp(name, l->prefix[i]) == 0
			     : strncmp(name, l->prefix[i], strlen(l->prefix[i])) == 0)
			return true;
	}
	return false;
}

bool select_list_matches(const char *list, const char *name, int version)
{
	iflist l;
	parse_list(list, version ? version : SEL_VERSION_LATEST, &l);
	return list_match(&l, name) != l.not;
}

static int want_family(const char *f)
{
	if (!f)
		return 0;
	if (strcmp(f, "AF_INET") == 0)
		return 4;
	if (strcmp(f, "AF_INET6") == 0)
		return 6;
	return 0;
}

static bool is_v6_loopback(const ipaddr *a)
{
	static const unsigned char lo[16] = { [15] = 1 };
	return a->family == 6 && memcmp(a->b, lo, 16) == 0;
}

static void note_down(sel_result *r, const dif *ifs, int i)
{
	for (int k = 0; k < r->ndown; k++)
		if (strcmp(ifs[r->down[k]].name, ifs[i].name) == 0)
			return;
	if (r->ndown < SEL_MAX_IFS)
		r->down[r->ndown++] = i;
}

/* NCCL's findInterfaces: kernel order, IPv4/IPv6 only, RUNNING from 2.28.3,
 * the requested family, no ::1, list match, first address per name. */
static int find_ifaces(const dif *ifs, size_t n, const char *list, int fam, int version, int max, sel_pick *p,
		       sel_result *r)
{
	iflist l;
	parse_list(list, version, &l);
	p->n = 0;
	snprintf(p->list, sizeof p->list, "%s", list);
	for (size_t i = 0; i < n && p->n < max; i++) {
		const dif *d = &ifs[i];
		if (d->addr.family != 4 && d->addr.family != 6)
			continue;
		if (fam && d->addr.family != fam)
			continue;
		if (is_v6_loopback(&d->addr))
			continue;
		if (list_match(&l, d->name) == l.not)
			continue;
		if (version >= SEL_VERSION(2, 28, 3) && !d->running) {
			note_down(r, ifs, (int)i);
			continue;
		}
		bool dup = false;
		for (int k = 0; k < p->n; k++)
			if (strcmp(ifs[p->idx[k]].name, d->name) == 0)
				dup = true;
		if (!dup)
			p->idx[p->n++] = (int)i;
	}
	return p->n;
}

/* NCCL's ncclFindInterfaceMatchSubnet: the first address (kernel order) of
 * the remote's family whose subnet holds it. */
static int match_subnet(const dif *ifs, size_t n, const ipaddr *remote, sel_pick *p)
{
	p->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (ifs[i].addr.family != remote->family || !remote->family)
			continue;
		if (ifaces_same_subnet(&ifs[i], remote)) {
			p->idx[p->n++] = (int)i;
			break;
		}
	}
	return p->n;
}

bool select_comm_id_host(const char *s, char *buf, size_t size)
{
	const char *end;
	if (*s == '[') {
		s++;
		end = strchr(s, ']');
	} else {
		end = strrchr(s, ':');
	}
	if (!end || end == s || (size_t)(end - s) >= size)
		return false;
	memcpy(buf, s, (size_t)(end - s));
	buf[end - s] = '\0';
	return true;
}

static bool comm_addr(const sel_input *in, ipaddr *a)
{
	char host[256];
	if (!select_comm_id_host(in->comm_id, host, sizeof host))
		return false;
	if (ipaddr_parse(slice_from(host), a))
		return true;
	*a = in->comm_addr;
	return a->family != 0;
}

static const char *names(const dif *ifs, const sel_pick *p, char *buf, size_t size)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int i = 0; i < p->n && k + 1 < size; i++)
		k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? "," : "", ifs[p->idx[i]].name);
	return buf;
}

/* ncclFindInterfaces: the user's list alone, else ib, COMM_ID subnet,
 * everything but docker/lo(/virbr), then docker, lo (, virbr). */
static void find_default(const dif *ifs, size_t n, const sel_input *in, int version, int max, sel_pick *p,
			 sel_result *r)
{
	int fam = want_family(in->family);
	char nb[128];
	if (in->ifname && strlen(in->ifname) > 1) {
		p->step = SEL_USER;
		if (find_ifaces(ifs, n, in->ifname, fam, version, max, p, r))
			snprintf(p->why, sizeof p->why, "NCCL_SOCKET_IFNAME=%s matches %s (kernel order)", in->ifname,
				 names(ifs, p, nb, sizeof nb));
		else {
			p->step = SEL_NONE;
			snprintf(p->why, sizeof p->why,
				 "NCCL_SOCKET_IFNAME=%s matches no usable interface, and NCCL does not fall back", in->ifname);
		}
		return;
	}
	p->step = SEL_IB;
	if (find_ifaces(ifs, n, "ib", fam, version, max, p, r)) {
		snprintf(p->why, sizeof p->why, "NCCL_SOCKET_IFNAME is unset and NCCL takes ib* interfaces first: %s",
			 names(ifs, p, nb, sizeof nb));
		return;
	}
	ipaddr ca;
	if (in->comm_id && strlen(in->comm_id) > 1 && comm_addr(in, &ca)) {
		p->step = SEL_COMM_ID;
		if (match_subnet(ifs, n, &ca, p)) {
			snprintf(p->list, sizeof p->list, "NCCL_COMM_ID");
			snprintf(p->why, sizeof p->why,
				 "NCCL_SOCKET_IFNAME is unset, no ib* interface, and %s is on the subnet of NCCL_COMM_ID",
				 ifs[p->idx[0]].name);
			return;
		}
	}
	bool virbr = version >= SEL_VERSION(2, 28, 3);
	static const struct {
		enum sel_step step;
		const char *list;
	} order[] = { { SEL_DEFAULT, "^docker,lo,virbr" }, { SEL_DOCKER, "docker" }, { SEL_LO, "lo" },
		      { SEL_VIRBR, "virbr" } };
	for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
		const char *list = order[k].list;
		if (order[k].step == SEL_DEFAULT && !virbr)
			list = "^docker,lo";
		if (order[k].step == SEL_VIRBR && !virbr)
			break;
		p->step = order[k].step;
		if (find_ifaces(ifs, n, list, fam, version, max, p, r)) {
			if (order[k].step == SEL_DEFAULT)
				snprintf(p->why, sizeof p->why,
					 "NCCL_SOCKET_IFNAME is unset, no ib* interface%s; NCCL takes any interface but %s, "
					 "in kernel order: %s",
					 in->comm_id ? ", none on the NCCL_COMM_ID subnet" : "",
					 virbr ? "docker*, lo* and virbr*" : "docker* and lo*", names(ifs, p, nb, sizeof nb));
			else
				snprintf(p->why, sizeof p->why,
					 "NCCL_SOCKET_IFNAME is unset and no other interface is usable; NCCL falls back to "
					 "%s*: %s",
					 list, names(ifs, p, nb, sizeof nb));
			return;
		}
	}
	p->step = SEL_NONE;
	snprintf(p->list, sizeof p->list, "%s", "");
	snprintf(p->why, sizeof p->why, "no usable interface at all: NCCL fails with \"no socket interface found\"");
}

void select_predict(const dif *ifs, size_t n, const sel_input *in, sel_result *out)
{
	*out = (sel_result){ 0 };
	int version = in->version ? in->version : SEL_VERSION_LATEST;
	out->ifname_ignored = in->ifname && in->ifname[0] && strlen(in->ifname) <= 1;
	ipaddr ca;
	bool comm_set = in->comm_id && strlen(in->comm_id) > 1;
	out->comm_id_bad = comm_set && !comm_addr(in, &ca);
	find_default(ifs, n, in, version, SEL_MAX_IFS, &out->sock, out);
	/* bootstrapNetInit: with NCCL_COMM_ID, its subnet alone (NCCL_SOCKET_IFNAME
	 * and NCCL_SOCKET_FAMILY play no part); else the socket order. */
	if (comm_set) {
		sel_pick *p = &out->boot;
		p->step = SEL_COMM_ID;
		snprintf(p->list, sizeof p->list, "NCCL_COMM_ID");
		if (!out->comm_id_bad && match_subnet(ifs, n, &ca, p))
			snprintf(p->why, sizeof p->why,
				 "NCCL_COMM_ID=%s is set: the bootstrap takes the interface on its subnet (%s), whatever "
				 "NCCL_SOCKET_IFNAME says",
				 in->comm_id, ifs[p->idx[0]].name);
		else {
			p->step = SEL_NONE;
			snprintf(p->why, sizeof p->why,
				 out->comm_id_bad ? "NCCL_COMM_ID=%s is not an address NCCL can read"
						  : "NCCL_COMM_ID=%s is set but no local interface is on its subnet: NCCL "
						    "fails with \"No usable listening interface found\"",
				 in->comm_id);
		}
		return;
	}
	find_default(ifs, n, in, version, version >= SEL_VERSION(2, 8, 3) ? 1 : SEL_MAX_IFS, &out->boot, out);
}

bool select_version_parse(const char *s, int *out)
{
	if (*s == 'v' || *s == 'V')
		s++;
	char *end;
	long v[3] = { 0 };
	for (int i = 0; i < 3; i++) {
		if (*s < '0' || *s > '9')
			return false;
		v[i] = strtol(s, &end, 10);
		s = end;
		if (i < 2 && *s++ != '.')
			return false;
	}
	if (*s && *s != '-' && *s != '+' && *s != ' ')
		return false;
	if (v[0] > 99 || v[1] > 99 || v[2] > 99)
		return false;
	*out = SEL_VERSION((int)v[0], (int)v[1], (int)v[2]);
	return true;
}
