/* NCCL's interface choice over fake interface lists: every form of
 * NCCL_SOCKET_IFNAME, the default order across versions, NCCL_COMM_ID;
 * then doctor's findings for a node whose only link is docker0. */
#include <stdlib.h>

#include "../../doctor/diagnose.h"
#include "check.h"

enum { UP = 1, RUN = 2, LOOP = 4 };

/* Adds "name addr/prefix" (addr NULL: no address); flags UP|RUN by default. */
static void add(diflist *l, const char *name, const char *cidr, int flags)
{
	dif *d = ifaces_add(l, name);
	d->up = flags & UP;
	d->running = flags & RUN;
	d->loopback = flags & LOOP;
	if (!cidr)
		return;
	char a[64];
	snprintf(a, sizeof a, "%s", cidr);
	char *slash = strchr(a, '/');
	*slash = '\0';
	ipaddr_parse(slice_from(a), &d->addr);
	d->prefix = atoi(slash + 1);
}

/* The names picked, "eth0,eth1", or "-". */
static const char *picked(const diflist *l, const sel_pick *p, char *buf)
{
	buf[0] = '\0';
	if (!p->n)
		return strcpy(buf, "-");
	for (int i = 0; i < p->n; i++) {
		strcat(buf, i ? "," : "");
		strcat(buf, l->v[p->idx[i]].name);
	}
	return buf;
}

static char bb[1024], sb[1024];

/* Predicts, then checks the bootstrap and NET/Socket picks. */
#define EXPECT(c, l, in, want_boot, want_sock)                                                        \
	do {                                                                                           \
		sel_result r_;                                                                         \
		select_predict((l)->v, (l)->n, (in), &r_);                                             \
		CHECK(c, strcmp(picked(l, &r_.boot, bb), want_boot) == 0, "ifname '%s' v%d: boot %s, want %s", \
		      (in)->ifname ? (in)->ifname : "(unset)", (in)->version, bb, want_boot);          \
		CHECK(c, strcmp(picked(l, &r_.sock, sb), want_sock) == 0, "ifname '%s' v%d: socket %s, want %s", \
		      (in)->ifname ? (in)->ifname : "(unset)", (in)->version, sb, want_sock);          \
	} while (0)

static void test_ifname_forms(checks *c)
{
	diflist l = { 0 };
	add(&l, "lo", "127.0.0.1/8", UP | RUN | LOOP);
	add(&l, "docker0", "172.17.0.1/16", UP | RUN);
	add(&l, "eth0", "10.0.0.1/24", UP | RUN);
	add(&l, "eth1", "192.168.1.1/24", UP | RUN);
	add(&l, "eth10", "192.168.10.1/24", UP | RUN);
	add(&l, "ib0", "10.10.0.1/16", UP | RUN);
	sel_input in = { .version = SEL_VERSION_LATEST };

	in.ifname = "eth1"; /* a prefix: eth1 and eth10 */
	EXPECT(c, &l, &in, "eth1", "eth1,eth10");
	in.ifname = "eth";
	EXPECT(c, &l, &in, "eth0", "eth0,eth1,eth10");
	in.ifname = "=eth1"; /* exact */
	EXPECT(c, &l, &in, "eth1", "eth1");
	in.ifname = "=eth1,eth0"; /* a list keeps kernel order, not list order */
	EXPECT(c, &l, &in, "eth0", "eth0,eth1");
	in.ifname = "=eth"; /* exact: nothing, and no fallback */
	EXPECT(c, &l, &in, "-", "-");
	in.ifname = "^docker,lo"; /* exclude, prefix: the user's list replaces ib-first */
	EXPECT(c, &l, &in, "eth0", "eth0,eth1,eth10,ib0");
	in.ifname = "^docker,lo,eth";
	EXPECT(c, &l, &in, "ib0", "ib0");
	in.ifname = "^=eth1"; /* exclude exactly eth1: lo comes first in kernel order */
	EXPECT(c, &l, &in, "lo", "lo,docker0,eth0,eth10,ib0");
	in.ifname = "^=eth1,lo,docker0,eth0";
	EXPECT(c, &l, &in, "eth10", "eth10,ib0");
	in.ifname = "e"; /* length 1: unset, default order (ib first) */
	EXPECT(c, &l, &in, "ib0", "ib0");
	sel_result r;
	select_predict(l.v, l.n, &in, &r);
	CHECK(c, r.ifname_ignored, "a one-character value is reported as ignored");
	in.ifname = "^"; /* length 1 as well */
	EXPECT(c, &l, &in, "ib0", "ib0");
	in.ifname = "=eth1:1234"; /* ports are ignored for sockets */
	EXPECT(c, &l, &in, "eth1", "eth1");
	in.ifname = "eth1:5,eth0:7";
	EXPECT(c, &l, &in, "eth0", "eth0,eth1,eth10");
	in.ifname = ":5,,=eth0"; /* empty entries dropped; '=' only counts first */
	EXPECT(c, &l, &in, "-", "-");
	in.ifname = "^,"; /* an empty exclude list matches every name: nothing is left */
	EXPECT(c, &l, &in, "-", "-");
	in.ifname = "=,"; /* an empty list matches everything */
	EXPECT(c, &l, &in, "lo", "lo,docker0,eth0,eth1,eth10,ib0");
	/* before 2.5.6 there is no '=': "=eth1" is a prefix no name has */
	in.ifname = "=eth1";
	in.version = SEL_VERSION(2, 4, 8);
	EXPECT(c, &l, &in, "-", "-");
	/* before 2.8.3 the bootstrap took every match */
	in.ifname = "eth";
	EXPECT(c, &l, &in, "eth0,eth1,eth10", "eth0,eth1,eth10");
	CHECK(c, select_list_matches("^=docker0", "docker1", 0), "^=docker0 keeps docker1");
	CHECK(c, !select_list_matches("^docker", "docker1", 0), "^docker drops docker1");
	CHECK(c, select_list_matches("=eth0:1", "eth0", 0), "=eth0:1 is eth0, port 1");
	CHECK(c, !select_list_matches("=eth0:1", "eth0:1", 0), "alias names cannot be named");
	ifaces_free(&l);
}

static void test_default_order(checks *c)
{
	sel_input in = { .version = SEL_VERSION_LATEST };
	diflist l = { 0 };
	add(&l, "lo", "127.0.0.1/8", UP | RUN | LOOP);
	add(&l, "docker0", "172.17.0.1/16", UP | RUN);
	add(&l, "veth12ab", "10.88.0.1/24", UP | RUN);
	add(&l, "eth0", "10.0.0.1/24", UP | RUN);
	add(&l, "ibp12s0", "10.10.0.1/16", UP | RUN);
	add(&l, "ib0", "10.11.0.1/16", UP | RUN);
	EXPECT(c, &l, &in, "ibp12s0", "ibp12s0,ib0"); /* every ib* first, even unrouted */
	sel_result r;
	select_predict(l.v, l.n, &in, &r);
	CHECK(c, r.boot.step == SEL_IB, "step ib");
	l.n = 4; /* no ib: the first that is not docker/lo/virbr, veth included */
	EXPECT(c, &l, &in, "veth12ab", "veth12ab,eth0");
	l.n = 2; /* docker, then lo */
	EXPECT(c, &l, &in, "docker0", "docker0");
	select_predict(l.v, l.n, &in, &r);
	CHECK(c, r.boot.step == SEL_DOCKER, "step docker");
	l.n = 1;
	EXPECT(c, &l, &in, "lo", "lo");
	l.n = 0;
	EXPECT(c, &l, &in, "-", "-");
	ifaces_free(&l);

	/* virbr: a default candidate before 2.28.3, the last resort after lo from then */
	add(&l, "lo", "127.0.0.1/8", UP | RUN | LOOP);
	add(&l, "virbr0", "192.168.122.1/24", UP | RUN);
	in.version = SEL_VERSION(2, 28, 2);
	EXPECT(c, &l, &in, "virbr0", "virbr0");
	in.version = SEL_VERSION(2, 28, 3);
	EXPECT(c, &l, &in, "lo", "lo");
	select_predict(l.v + 1, 1, &in, &r); /* virbr0 alone */
	CHECK(c, r.boot.n == 1 && r.boot.step == SEL_VIRBR, "virbr last from 2.28.3 (step %d)", r.boot.step);
	in.version = SEL_VERSION(2, 27, 7);
	select_predict(l.v + 1, 1, &in, &r);
	CHECK(c, r.boot.n == 1 && r.boot.step == SEL_DEFAULT, "virbr a default candidate before (step %d)", r.boot.step);
	ifaces_free(&l);

	/* IFF_RUNNING is required from 2.28.3 */
	add(&l, "lo", "127.0.0.1/8", UP | RUN | LOOP);
	add(&l, "eth0", "10.0.0.1/24", UP); /* no carrier */
	add(&l, "eth1", "10.0.1.1/24", 0);  /* down, address kept */
	add(&l, "eth2", "10.0.2.1/24", UP | RUN);
	in.version = SEL_VERSION(2, 28, 3);
	EXPECT(c, &l, &in, "eth2", "eth2");
	select_predict(l.v, l.n, &in, &r);
	CHECK(c, r.ndown == 2 && strcmp(l.v[r.down[0]].name, "eth0") == 0, "skipped not running: %d", r.ndown);
	in.version = SEL_VERSION(2, 28, 2);
	EXPECT(c, &l, &in, "eth0", "eth0,eth1,eth2");
	in.version = SEL_VERSION_LATEST;
	in.ifname = "=eth0"; /* matches only a down interface: not found */
	EXPECT(c, &l, &in, "-", "-");
	select_predict(l.v, l.n, &in, &r);
	CHECK(c, r.ndown == 1 && r.sock.step == SEL_NONE, "down match reported");
	in.ifname = NULL;
	ifaces_free(&l);

	/* address rules: first address per name, family, no ::1, at most 16 */
	add(&l, "lo", "::1/128", UP | RUN | LOOP);
	add(&l, "eth0", "10.0.0.1/24", UP | RUN);
	add(&l, "eth0", "10.0.0.2/24", UP | RUN);
	add(&l, "eth0", "fd00::1/64", UP | RUN);
	add(&l, "eth0", "fe80::1/64", UP | RUN);
	add(&l, "eth1", NULL, UP | RUN);
	select_predict(l.v, l.n, &in, &r);
	CHECK(c, r.boot.n == 1 && r.boot.idx[0] == 1, "first IPv4 address of eth0 wins");
	in.family = "AF_INET6";
	select_predict(l.v, l.n, &in, &r);
	CHECK(c, r.boot.n == 1 && r.boot.idx[0] == 3, "AF_INET6: first IPv6 address (idx %d)", r.boot.idx[0]);
	l.n = 1; /* ::1 alone is never used */
	select_predict(l.v, l.n, &in, &r);
	CHECK(c, r.boot.n == 0, "::1 skipped");
	in.family = NULL;
	ifaces_free(&l);
	char name[16];
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof name, "eth%d", i);
		char cidr[32];
		snprintf(cidr, sizeof cidr, "10.0.%d.1/24", i);
		add(&l, name, cidr, UP | RUN);
	}
	select_predict(l.v, l.n, &in, &r);
	CHECK(c, r.sock.n == SEL_MAX_IFS && r.boot.n == 1, "NET/Socket takes 16 (%d)", r.sock.n);
	ifaces_free(&l);
}

static void test_comm_id(checks *c)
{
	diflist l = { 0 };
	add(&l, "lo", "127.0.0.1/8", UP | RUN | LOOP);
	add(&l, "eth0", "10.0.0.1/24", UP | RUN);
	add(&l, "eth1", "192.168.1.1/24", UP | RUN);
	add(&l, "eth2", "fd00:1::1/64", UP | RUN);
	sel_input in = { .version = SEL_VERSION_LATEST, .comm_id = "192.168.1.50:5000" };
	EXPECT(c, &l, &in, "eth1", "eth1"); /* NET/Socket: ib, then the COMM_ID subnet */
	in.ifname = "=eth0"; /* the bootstrap ignores NCCL_SOCKET_IFNAME; NET/Socket does not */
	EXPECT(c, &l, &in, "eth1", "eth0");
	in.ifname = NULL;
	in.comm_id = "192.168.7.50:5000"; /* no local interface there */
	EXPECT(c, &l, &in, "-", "eth0,eth1,eth2");
	in.comm_id = "[fd00:1::9]:5000";
	EXPECT(c, &l, &in, "eth2", "eth2");
	in.comm_id = "master:29500"; /* a host name: resolved by the caller */
	sel_result r;
	select_predict(l.v, l.n, &in, &r);
	CHECK(c, r.comm_id_bad && r.boot.n == 0, "an unresolved host name is no address");
	ipaddr_parse(SLICE_LIT("10.0.0.77"), &in.comm_addr);
	EXPECT(c, &l, &in, "eth0", "eth0");
	add(&l, "ib0", "10.10.0.1/16", UP | RUN);
	in.comm_id = "192.168.1.50:5000"; /* ib* still comes first for NET/Socket */
	EXPECT(c, &l, &in, "eth1", "ib0");
	ifaces_free(&l);
	char host[64];
	CHECK(c, select_comm_id_host("[fe80::1]:80", host, sizeof host) && strcmp(host, "fe80::1") == 0, "v6 host");
	CHECK(c, select_comm_id_host("10.0.0.1:80", host, sizeof host) && strcmp(host, "10.0.0.1") == 0, "v4 host");
	CHECK(c, !select_comm_id_host("10.0.0.1", host, sizeof host), "no port");
}

static void test_versions(checks *c)
{
	int v = 0;
	CHECK(c, select_version_parse("2.28.3", &v) && v == 22803, "2.28.3: %d", v);
	CHECK(c, select_version_parse("v2.30.7-1", &v) && v == 23007, "v2.30.7-1: %d", v);
	CHECK(c, select_version_parse("2.21.5+cuda12.4", &v) && v == 22105, "+cuda: %d", v);
	CHECK(c, !select_version_parse("2.28", &v), "two parts");
	CHECK(c, !select_version_parse("2.x.1", &v), "letters");
	CHECK(c, !select_version_parse("2.28.3x", &v), "trailing");
}

/* A node with docker0 up, eth1 without a link and no NCCL_SOCKET_IFNAME:
 * NCCL 2.28.3+ bootstraps over docker0; doctor says so and names eth1. */
static void test_docker0_node(checks *c)
{
	doctor_facts f = { 0 };
	add(&f.ifs, "lo", "127.0.0.1/8", UP | RUN | LOOP);
	add(&f.ifs, "eth1", "192.168.1.101/24", UP);
	add(&f.ifs, "docker0", "172.17.0.1/16", UP | RUN);
	snprintf(f.node.host, sizeof f.node.host, "node-b");
	f.node.pid = 1;
	f.node.memlock_unlimited = true;
	doctor_predict(&f);
	catalog cat = { 0 };
	model m;
	model_init(&m, &cat);
	doctor_report r;
	doctor_diagnose(&m, &f, &r);
	finding *v = findings_find(&m.fs, "socket-iface-virtual");
	CHECK(c, v != NULL, "docker0 flagged");
	if (v) {
		CHECK(c, strstr(v->message, "docker0") != NULL, "message: %s", v->message);
		CHECK(c, v->hint && strstr(v->hint, "NCCL_SOCKET_IFNAME=eth1") && strstr(v->hint, "not RUNNING"),
		      "hint: %s", v->hint ? v->hint : "(none)");
		CHECK(c, v->nev >= 1 && strstr(v->ev[0].text, "Bootstrap: Using docker0:172.17.0.1<0>"), "evidence: %s",
		      v->nev ? v->ev[0].text : "(none)");
		CHECK(c, v->procs.n == 1, "names the node");
	}
	CHECK(c, f.pick_old.boot.n && strcmp(f.ifs.v[f.pick_old.boot.idx[0]].name, "eth1") == 0,
	      "before 2.28.3, eth1 despite no carrier");
	doctor_report_free(&r);
	model_free(&m);
	doctor_facts_free(&f);
}

int main(void)
{
	checks c = { 0 };
	test_ifname_forms(&c);
	test_default_order(&c);
	test_comm_id(&c);
	test_versions(&c);
	test_docker0_node(&c);
	return check_done(&c, "doctor_select");
}
