/* Names, versions and routes of one node, from facts made by hand: the
 * hosts file, how this node's name and MASTER_ADDR resolve, the CUDA
 * driver against the CUDA NCCL was built for, the net plugin, a peer
 * routed through a VPN, the RoCE GID; each with the finding it must give
 * and the ones it must not.
 * usage: test_doctor_names */
#include <stdlib.h>
#include <unistd.h>

#include "../../doctor/diagnose.h"
#include "check.h"

static void add_if(doctor_facts *f, const char *name, const char *addr, int prefix)
{
	dif *d = ifaces_add(&f->ifs, name);
	ipaddr_parse(slice_from(addr), &d->addr);
	d->prefix = prefix;
	d->up = d->running = true;
	d->loopback = strcmp(name, "lo") == 0;
	d->mtu = 1500;
}

static void set_env(doctor_facts *f, const char *name, const char *value)
{
	f->node.env = xrealloc(f->node.env, (f->node.nenv + 1) * sizeof *f->node.env);
	f->node.env[f->node.nenv++] = (envvar){ xstrdup(name), xstrdup(value) };
}

/* lo, eth1 10.0.0.5/24 and the VPN tun0; its name resolves to eth1's address. */
static void base(doctor_facts *f)
{
	*f = (doctor_facts){ .self_if = -1 };
	snprintf(f->node.host, sizeof f->node.host, "node-a");
	f->node.pid = 4242;
	f->node.shm_ok = true;
	f->node.shm_size = f->node.shm_free = 1ull << 30;
	f->node.memlock_unlimited = true;
	add_if(f, "lo", "127.0.0.1", 8);
	add_if(f, "eth1", "10.0.0.5", 24);
	add_if(f, "tun0", "10.8.0.2", 24);
	f->self.ok = true;
	f->self.naddr = 1;
	ipaddr_parse(SLICE_LIT("10.0.0.5"), &f->self.addr[0]);
	f->self_if = 1;
}

typedef struct run {
	catalog cat;
	model m;
	doctor_report r;
} run;

static void diagnose(run *x, doctor_facts *f)
{
	doctor_predict(f);
	x->cat = (catalog){ 0 };
	model_init(&x->m, &x->cat);
	doctor_diagnose(&x->m, f, &x->r);
}

static void done(run *x, doctor_facts *f)
{
	doctor_report_free(&x->r);
	model_free(&x->m);
	doctor_facts_free(f);
}

static finding *get(run *x, const char *id)
{
	return findings_find(&x->m.fs, id);
}

static bool has(const finding *fd, const char *text)
{
	return fd && ((fd->message && strstr(fd->message, text)) || (fd->hint && strstr(fd->hint, text)));
}

static void test_hosts_file(checks *c)
{
	char path[] = "/tmp/ncclog-hosts-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return;
	FILE *h = fdopen(fd, "w");
	fputs("# comment node-a\n127.0.0.1 localhost\n127.0.1.1\tNode-A.cluster node-a   # Debian\n", h);
	for (int i = 0; i < 2000; i++)
		fputc('x', h); /* a line longer than the reader's buffer */
	fputs(" node-a\nnot-an-address node-a\n10.0.0.5 node-a\nfe80::1%eth0 six\n", h);
	fclose(h);
	ipaddr a[4];
	int line;
	int n = names_hosts_lookup(path, "node-a", a, 4, &line);
	CHECK(c, n == 2 && line == 3 && a[0].b[2] == 1 && a[1].b[0] == 10, "two lines name node-a, the first on line 3 (%d, %d)",
	      n, line);
	CHECK(c, names_hosts_lookup(path, "NODE-A.cluster", a, 4, &line) == 1, "names are case-insensitive");
	CHECK(c, names_hosts_lookup(path, "comment", a, 4, &line) == 0, "comments are not names");
	CHECK(c, names_hosts_lookup(path, "six", a, 4, &line) == 1 && a[0].family == 6, "IPv6 with a scope");
	resolved r;
	names_resolve("node-a", path, true, &r);
	CHECK(c, r.ok && r.naddr == 2 && r.hosts_line == 3, "files only: from the file");
	names_resolve("nowhere", path, true, &r);
	CHECK(c, !r.ok && strstr(r.err, "not in"), "files only: not there (%s)", r.err);
	names_resolve("10.1.2.3", path, true, &r);
	CHECK(c, r.ok && r.naddr == 1 && !r.hosts_line, "an address resolves to itself");
	CHECK(c, names_hosts_lookup("/nonexistent/hosts", "node-a", a, 4, &line) == 0, "no file");
	unlink(path);
}

static void test_self(checks *c)
{
	doctor_facts f;
	run x;
	base(&f);
	diagnose(&x, &f);
	CHECK(c, !get(&x, "hostname-loopback") && !get(&x, "hostname-mismatch"), "the name resolves to NCCL's interface");
	done(&x, &f);

	base(&f);
	ipaddr_parse(SLICE_LIT("127.0.1.1"), &f.self.addr[0]);
	f.self.hosts_line = 2;
	f.self_if = 0;
	diagnose(&x, &f);
	finding *fd = get(&x, "hostname-loopback");
	CHECK(c, fd && fd->severity == SEV_WARNING && has(fd, "resolves to 127.0.1.1"), "127.0.1.1: hostname-loopback");
	CHECK(c, has(fd, "replace line 2 of /etc/hosts with \"10.0.0.5 node-a\"") && has(fd, "Debian"),
	      "the hint names the line and the address: %s", fd ? fd->hint : "");
	CHECK(c, fd && fd->nev == 1 && strstr(fd->ev[0].text, "host name node-a resolves to 127.0.1.1"), "evidence");
	done(&x, &f);

	base(&f);
	ipaddr_parse(SLICE_LIT("10.9.9.9"), &f.self.addr[0]);
	f.self_if = -1;
	diagnose(&x, &f);
	CHECK(c, has(get(&x, "hostname-mismatch"), "which no interface of this node has"), "another machine's address");
	done(&x, &f);

	base(&f);
	f.self = (resolved){ .ok = false };
	snprintf(f.self.err, sizeof f.self.err, "cannot resolve: Name or service not known");
	diagnose(&x, &f);
	fd = get(&x, "hostname-mismatch");
	CHECK(c, fd && fd->severity == SEV_WARNING && has(fd, "does not resolve") && has(fd, "map node-a to 10.0.0.5"),
	      "unresolvable");
	done(&x, &f);

	base(&f);
	ipaddr_parse(SLICE_LIT("10.8.0.2"), &f.self.addr[0]);
	f.self_if = 2;
	diagnose(&x, &f);
	CHECK(c, has(get(&x, "hostname-mismatch"), "on tun0, while NCCL would bootstrap over eth1"), "the VPN's address");
	done(&x, &f);
}

static void test_driver(checks *c)
{
	static const char hint[] = "upgrade the NVIDIA driver, or use a PyTorch/NCCL build for the CUDA version that "
				   "`nvidia-smi` reports";
	struct {
		int driver;
		bool past;
		int build;
		const char *sev;
	} cases[] = {
		{ 11080, false, 12040, "error" },   { 12020, false, 12040, "warning" }, { 12040, false, 12040, NULL },
		{ 13000, true, 13010, NULL },       { 0, false, 12040, NULL },          { 12040, false, 0, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		doctor_facts f;
		run x;
		base(&f);
		f.vers.nnccl = 1;
		ncclcopy *n = &f.vers.nccl[0];
		n->lib = (libcand){ xstrdup("/usr/lib/libnccl.so.2"), xstrdup("/usr/lib/libnccl.so.2.21.5"), LW_LDCACHE,
				    xstrdup("/etc/ld.so.cache") };
		n->code = SEL_VERSION(2, 21, 5);
		snprintf(n->version, sizeof n->version, "2.21.5");
		n->from = VF_CALL;
		n->cuda_build = cases[i].build;
		f.vers.driver = cases[i].driver;
		f.vers.driver_past_table = cases[i].past;
		f.vsrc = VS_LIBRARY;
		f.sel.version = n->code;
		diagnose(&x, &f);
		finding *fd = get(&x, "cuda-driver-too-old");
		if (!cases[i].sev)
			CHECK(c, !fd, "case %zu: no finding", i);
		else
			CHECK(c, fd && strcmp(severity_name(fd->severity), cases[i].sev) == 0 && strcmp(fd->hint, hint) == 0 &&
				      fd->nev == 2,
			      "case %zu: %s with analyze's hint", i, cases[i].sev);
		CHECK(c, strstr(x.r.lines[DS_NCCL][0], "predicted for NCCL 2.21.5 (the NCCL found on this node)"),
		      "the prediction is for the NCCL found: %s", x.r.lines[DS_NCCL][0]);
		done(&x, &f);
	}
}

static void test_plugin(checks *c)
{
	doctor_facts f;
	run x;
	base(&f);
	set_env(&f, "NCCL_NET_PLUGIN", "ofi");
	snprintf(f.vers.plugin_want, sizeof f.vers.plugin_want, "ofi");
	diagnose(&x, &f);
	CHECK(c, has(get(&x, "net-plugin-error"), "NCCL_NET_PLUGIN=ofi names a plugin this node does not have"),
	      "a named plugin that is missing");
	done(&x, &f);

	base(&f);
	snprintf(f.vers.plugin_want, sizeof f.vers.plugin_want, "libnccl-net.so");
	diagnose(&x, &f);
	CHECK(c, !get(&x, "net-plugin-error"), "no plugin, none asked for: nothing to say");
	done(&x, &f);

	base(&f);
	snprintf(f.vers.plugin_want, sizeof f.vers.plugin_want, "libnccl-net.so");
	f.vers.plugin = xstrdup("/opt/ofi/lib/libnccl-net.so");
	snprintf(f.vers.plugin_err, sizeof f.vers.plugin_err, "libfabric.so.1: cannot open shared object file");
	diagnose(&x, &f);
	CHECK(c, has(get(&x, "net-plugin-error"), "libfabric.so.1"), "a plugin that cannot be loaded");
	done(&x, &f);

	base(&f);
	snprintf(f.vers.plugin_want, sizeof f.vers.plugin_want, "libnccl-net.so");
	f.vers.plugin = xstrdup("/opt/ofi/lib/libnccl-net.so");
	snprintf(f.vers.plugin_name, sizeof f.vers.plugin_name, "AWS Libfabric");
	f.vers.plugin_abi = 9;
	diagnose(&x, &f);
	CHECK(c, !get(&x, "net-plugin-error") && strcmp(f.net, "AWS Libfabric") == 0, "a plugin that loads: its network");
	done(&x, &f);
}

static void add_master(doctor_facts *f, const char *addr, const char *port, bool ok)
{
	snprintf(f->master_addr, sizeof f->master_addr, "%s", addr);
	snprintf(f->master_port, sizeof f->master_port, "%s", port);
	strbuf e = { 0 };
	peers_add(&f->peers, "x:29500", &e);
	sb_free(&e);
	peer *p = &f->peers.v[f->peers.n - 1];
	snprintf(p->host, sizeof p->host, "%s", addr);
	p->master = true;
	p->resolved = ok && ipaddr_parse(slice_from(addr), &p->addr);
	if (!ok)
		snprintf(p->err, sizeof p->err, "cannot resolve: Name or service not known");
}

static void test_master(checks *c)
{
	doctor_facts f;
	run x;
	base(&f);
	add_master(&f, "10.0.0.1", "29500", true);
	f.peers.v[0].local = 1;
	diagnose(&x, &f);
	CHECK(c, !get(&x, "bootstrap-connect-failed") && !get(&x, "hostname-loopback") && !get(&x, "socket-iface-mismatch"),
	      "a good MASTER_ADDR");
	bool line = false;
	for (size_t i = 0; i < x.r.n[DS_NAMES]; i++)
		line = line || strstr(x.r.lines[DS_NAMES][i], "MASTER_ADDR=10.0.0.1 resolves to 10.0.0.1 on the subnet of eth1");
	CHECK(c, line, "the names section says where it leads");
	done(&x, &f);

	base(&f);
	add_master(&f, "127.0.0.1", "29500", true);
	diagnose(&x, &f);
	CHECK(c, has(get(&x, "hostname-loopback"), "MASTER_ADDR=127.0.0.1 resolves to 127.0.0.1"), "MASTER_ADDR loopback");
	done(&x, &f);

	base(&f);
	add_master(&f, "rank0.invalid", "29500", false);
	diagnose(&x, &f);
	finding *fd = get(&x, "bootstrap-connect-failed");
	CHECK(c, fd && fd->severity == SEV_ERROR && has(fd, "MASTER_ADDR=rank0.invalid does not resolve"), "unresolvable");
	done(&x, &f);

	base(&f);
	add_master(&f, "10.0.0.1", "port", true);
	f.master_port_bad = true;
	diagnose(&x, &f);
	CHECK(c, has(get(&x, "bootstrap-connect-failed"), "MASTER_PORT=port is not a port number"), "a bad MASTER_PORT");
	done(&x, &f);

	base(&f);
	add_master(&f, "10.0.0.1", "29500", true);
	f.connected = true;
	f.peers.v[0].conn = PC_REFUSED;
	diagnose(&x, &f);
	CHECK(c, !get(&x, "bootstrap-connect-failed"), "refused before the job: nothing listens yet, no finding");
	done(&x, &f);

	base(&f);
	add_master(&f, "10.0.0.1", "29500", true);
	f.connected = true;
	f.peers.v[0].conn = PC_UNREACHABLE;
	diagnose(&x, &f);
	CHECK(c, has(get(&x, "bootstrap-connect-failed"), "cannot be reached from this node"), "unreachable");
	done(&x, &f);
}

static void test_route(checks *c)
{
	doctor_facts f;
	run x;
	base(&f);
	set_env(&f, "NCCL_SOCKET_IFNAME", "=eth1"); /* NET/Socket would take tun0 too otherwise */
	strbuf e = { 0 };
	peers_add(&f.peers, "node-b", &e);
	sb_free(&e);
	peer *p = &f.peers.v[0];
	p->resolved = true;
	ipaddr_parse(SLICE_LIT("10.20.0.7"), &p->addr);
	p->route = 2; /* the kernel sends to it from tun0 */
	diagnose(&x, &f);
	finding *fd = get(&x, "socket-iface-virtual");
	CHECK(c, fd && has(fd, "the route to peer node-b (10.20.0.7) goes through the virtual interface tun0"),
	      "a peer behind the VPN");
	done(&x, &f);
	base(&f);
	set_env(&f, "NCCL_SOCKET_IFNAME", "=eth1");
	peers_add(&f.peers, "node-b", &e);
	sb_free(&e);
	f.peers.v[0].resolved = true;
	ipaddr_parse(SLICE_LIT("10.0.0.7"), &f.peers.v[0].addr);
	f.peers.v[0].local = f.peers.v[0].route = 1;
	diagnose(&x, &f);
	CHECK(c, !get(&x, "socket-iface-virtual"), "a peer on eth1's subnet");
	done(&x, &f);
}

static void test_gid(checks *c)
{
	struct {
		int version;
		const char *force;
		const char *id_sev; /* NULL: none */
		const char *text;
	} cases[] = {
		{ SEL_VERSION(2, 19, 3), NULL, "warning", "but GID 3 is its RoCE v2 IPv4 GID" },
		{ SEL_VERSION(2, 21, 5), NULL, NULL, NULL },
		{ SEL_VERSION(2, 21, 5), "1", "warning", "forced by NCCL_IB_GID_INDEX" },
		{ SEL_VERSION(2, 21, 5), "7", "error", "names an empty GID entry" },
		{ SEL_VERSION(2, 19, 3), "3", NULL, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		doctor_facts f;
		run x;
		base(&f);
		f.node.ib = xcalloc(1, sizeof *f.node.ib);
		f.node.nib = 1;
		ibport *p = &f.node.ib[0];
		snprintf(p->dev, sizeof p->dev, "mlx5_0");
		p->port = 1;
		snprintf(p->state, sizeof p->state, "ACTIVE");
		snprintf(p->link, sizeof p->link, "Ethernet");
		const char *g[] = { "fe80:0000:0000:0000:0e42:a1ff:fe6b:91c4", "fe80:0000:0000:0000:0e42:a1ff:fe6b:91c4",
				    "0000:0000:0000:0000:0000:ffff:0a00:0005", "0000:0000:0000:0000:0000:ffff:0a00:0005" };
		p->gids = xcalloc(4, sizeof *p->gids);
		p->ngids = 4;
		p->gid_tbl_len = 16;
		for (int k = 0; k < 4; k++) {
			p->gids[k].index = k;
			p->gids[k].roce = k % 2 ? 2 : 1;
			gid_parse(g[k], p->gids[k].raw);
		}
		if (cases[i].force)
			set_env(&f, "NCCL_IB_GID_INDEX", cases[i].force);
		f.vsrc = VS_OPTION;
		f.sel.version = cases[i].version;
		diagnose(&x, &f);
		finding *fd = get(&x, "ib-setup-failed");
		if (!cases[i].id_sev)
			CHECK(c, !fd, "case %zu: no ib-setup-failed (%s)", i, fd ? fd->message : "");
		else
			CHECK(c, fd && strcmp(severity_name(fd->severity), cases[i].id_sev) == 0 && has(fd, cases[i].text),
			      "case %zu: %s", i, fd ? fd->message : "none");
		done(&x, &f);
	}
}

int main(void)
{
	checks c = { 0 };
	test_hosts_file(&c);
	test_self(&c);
	test_driver(&c);
	test_plugin(&c);
	test_master(&c);
	test_route(&c);
	test_gid(&c);
	return check_done(&c, "doctor_names");
}
