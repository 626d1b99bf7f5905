/* RDMA and NIC facts: the GID NCCL's RoCE connections use, by the rules of
 * each release and the NCCL_IB_* variables; a port's GID table read from
 * a fake sysfs (tests/doctor/roots/roce); NIC drivers, firmware and speed
 * from a fake /sys/class/net.
 * usage: test_doctor_gid SOURCE_ROOT */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../doctor/gid.h"
#include "../../doctor/nics.h"
#include "../../doctor/node.h"
#include "../../doctor/select.h"
#include "check.h"

/* An entry "fe80:...": a parsed GID of RoCE version roce on ndev. */
static gident entry(int index, const char *text, int roce)
{
	gident g = { .index = index, .roce = roce };
	gid_parse(text, g.raw);
	snprintf(g.ndev, sizeof g.ndev, "eth2");
	return g;
}

#define LL "fe80:0000:0000:0000:0e42:a1ff:fe6b:91c4"
#define V4 "0000:0000:0000:0000:0000:ffff:0a00:0005" /* ::ffff:10.0.0.5 */
#define V4B "0000:0000:0000:0000:0000:ffff:0a01:0005" /* ::ffff:10.1.0.5 */
#define V6 "fd00:0000:0000:0000:0000:0000:0000:0005"

static void test_pick(checks *c)
{
	unsigned char raw[16];
	CHECK(c, gid_parse(V4, raw) && gid_is_v4(raw) && gid_valid(raw), "an IPv4 GID");
	CHECK(c, gid_parse(LL, raw) && !gid_is_v4(raw) && !gid_valid(raw), "link-local: not valid for NCCL");
	CHECK(c, !gid_parse("fe80::1", raw) && !gid_parse(LL ":0000", raw), "sysfs's form only");
	strbuf b = { 0 };
	gid_parse(V4, raw);
	gid_str(raw, &b);
	CHECK(c, strcmp(b.p, "::ffff:10.0.0.5") == 0, "printed as %s", b.p);
	sb_free(&b);

	/* a usual RoCE table: v1 and v2 link-local, then v1 and v2 of the address */
	gident t[] = { entry(0, LL, 1), entry(1, LL, 2), entry(2, V4, 1), entry(3, V4, 2) };
	gid_input in = { t, 4, 6, SEL_VERSION(2, 21, 5), NULL, NULL, NULL, NULL };
	enum gid_how how;
	CHECK(c, gid_pick(&in, &how) == 3 && how == GID_SCAN, "2.21.5 scans for IPv4 RoCE v2: 3");
	CHECK(c, gid_preferred(&in) == 3 && gid_wanted(&in, gid_at(&in, 3)) && !gid_wanted(&in, gid_at(&in, 2)),
	      "preferred");
	in.version = SEL_VERSION(2, 20, 5);
	CHECK(c, gid_pick(&in, &how) == 0 && how == GID_DEFAULT_ZERO, "before 2.21.5: index 0");
	in.gid_index = "2";
	CHECK(c, gid_pick(&in, &how) == 2 && how == GID_ENV, "NCCL_IB_GID_INDEX");
	in.gid_index = "-1";
	in.version = SEL_VERSION(2, 30, 7);
	CHECK(c, gid_pick(&in, &how) == 3 && how == GID_SCAN, "-1 means automatic");
	in.gid_index = NULL;
	in.roce_version = "1";
	CHECK(c, gid_pick(&in, &how) == 2, "NCCL_IB_ROCE_VERSION_NUM=1: 2");
	in.roce_version = NULL;
	/* two addresses: NCCL_IB_ADDR_RANGE picks one */
	gident t2[] = { entry(0, LL, 1), entry(1, LL, 2), entry(2, V4, 2), entry(3, V4B, 2) };
	gid_input in2 = { t2, 4, 4, SEL_VERSION(2, 22, 3), NULL, NULL, "10.1.0.0/16", NULL };
	CHECK(c, gid_pick(&in2, &how) == 3, "NCCL_IB_ADDR_RANGE=10.1.0.0/16: 3");
	in2.addr_range = NULL;
	CHECK(c, gid_pick(&in2, &how) == 2, "no range: the first IPv4 RoCE v2");
	/* IPv6 only: AF_INET finds nothing and stays on 0; AF_INET6 takes the global one */
	gident t3[] = { entry(0, LL, 1), entry(1, LL, 2), entry(2, V6, 1), entry(3, V6, 2) };
	gid_input in3 = { t3, 4, 4, SEL_VERSION(2, 22, 3), NULL, NULL, NULL, NULL };
	CHECK(c, gid_pick(&in3, &how) == 0 && gid_preferred(&in3) < 0, "no IPv4 GID: 0, nothing preferred");
	in3.addr_family = "AF_INET6";
	CHECK(c, gid_pick(&in3, &how) == 3 && gid_preferred(&in3) == 3, "AF_INET6: 3");
	/* the table is longer than its non-zero entries: empty entries are zero GIDs */
	gident t4[] = { entry(0, LL, 1), entry(5, V4, 2) };
	gid_input in4 = { t4, 2, 8, SEL_VERSION(2, 24, 3), NULL, NULL, NULL, NULL };
	CHECK(c, gid_pick(&in4, &how) == 5 && !gid_at(&in4, 3), "holes in the table");
}

static void test_sysfs_roce(checks *c, const char *src)
{
	char ib[4096];
	snprintf(ib, sizeof ib, "%s/tests/doctor/roots/roce/sys/class/infiniband", src);
	node_paths p = { "/nonexistent", "/nonexistent", ib };
	node_facts f;
	node_collect(&f, &p, NULL, 0);
	CHECK(c, f.nib == 1, "one port: %zu", f.nib);
	if (f.nib == 1) {
		const ibport *q = &f.ib[0];
		CHECK(c, strcmp(q->fw, "22.36.1010") == 0 && strcmp(q->rate, "100 Gb/sec (4X EDR)") == 0 &&
			      strcmp(q->netdev, "eth1") == 0 && strcmp(q->link, "Ethernet") == 0,
		      "fw %s, rate %s, netdev %s", q->fw, q->rate, q->netdev);
		CHECK(c, q->ngids == 4 && q->gid_tbl_len == 5, "4 non-zero GIDs of 5: %zu of %d", q->ngids, q->gid_tbl_len);
		CHECK(c, q->ngids == 4 && q->gids[3].index == 3 && q->gids[3].roce == 2 && gid_is_v4(q->gids[3].raw) &&
			      q->gids[0].roce == 1 && strcmp(q->gids[2].ndev, "eth1") == 0,
		      "types and interfaces");
		gid_input in = { q->gids, q->ngids, q->gid_tbl_len, SEL_VERSION(2, 21, 5), NULL, NULL, NULL, NULL };
		enum gid_how how;
		CHECK(c, gid_pick(&in, &how) == 3, "NCCL 2.21.5 on this port: GID 3");
	}
	node_free(&f);
}

static void test_nics(checks *c)
{
	char root[] = "/tmp/ncclog-nics-XXXXXX";
	if (!mkdtemp(root))
		return;
	char cmd[8192];
	snprintf(cmd, sizeof cmd,
		 "cd '%s' && mkdir -p sys/devices/pci0000:00/0000:3b:00.0/infiniband/mlx5_0 sys/bus/pci/drivers/mlx5_core "
		 "sys/class/net/ens1f0 sys/module/mlx5_core sys/class/net/lo && "
		 "echo 9000 > sys/class/net/ens1f0/mtu && echo 100000 > sys/class/net/ens1f0/speed && "
		 "ln -s ../../../devices/pci0000:00/0000:3b:00.0 sys/class/net/ens1f0/device && "
		 "ln -s ../../../bus/pci/drivers/mlx5_core sys/devices/pci0000:00/0000:3b:00.0/driver && "
		 "echo 22.36.1010 > sys/devices/pci0000:00/0000:3b:00.0/infiniband/mlx5_0/fw_ver && "
		 "echo 23.10-1.1.9 > sys/module/mlx5_core/version && echo 65536 > sys/class/net/lo/mtu",
		 root);
	CHECK(c, system(cmd) == 0, "fake /sys/class/net");
	diflist ifs = { 0 };
	ifaces_add(&ifs, "ens1f0");
	ifaces_add(&ifs, "ens1f0"); /* an interface with two addresses: one entry */
	ifaces_add(&ifs, "lo");
	niclist l = { 0 };
	nics_collect(&l, &ifs, root, false);
	const nic *n = nics_find(&l, "ens1f0");
	CHECK(c, l.n == 2 && n, "one entry per name: %zu", l.n);
	if (n)
		CHECK(c, strcmp(n->driver, "mlx5_core") == 0 && strcmp(n->version, "23.10-1.1.9") == 0 &&
			      strcmp(n->firmware, "22.36.1010") == 0 && strcmp(n->bus, "0000:3b:00.0") == 0 &&
			      n->speed == 100000 && n->mtu == 9000,
		      "driver %s %s, fw %s, bus %s, %ld Mb/s, mtu %d", n->driver, n->version, n->firmware, n->bus, n->speed,
		      n->mtu);
	n = nics_find(&l, "lo");
	CHECK(c, n && !n->driver[0] && n->speed < 0 && n->mtu == 65536, "a virtual device: no driver, no speed");
	nics_free(&l);
	ifaces_free(&ifs);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(c, system(cmd) == 0, "cleanup");
}

int main(int argc, char **argv)
{
	checks c = { 0 };
	if (argc < 2) {
		fprintf(stderr, "usage: test_doctor_gid SOURCE_ROOT\n");
		return 2;
	}
	test_pick(&c);
	test_sysfs_roce(&c, argv[1]);
	test_nics(&c);
	return check_done(&c, "doctor_gid");
}
