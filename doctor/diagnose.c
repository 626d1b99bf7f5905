/* From the facts of one node to report lines and findings. */
#include "doctor.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const doctor_section_names[DS_COUNT] = { "doctor:ifaces", "doctor:nccl", "doctor:node", "doctor:env",
						      "doctor:peers" };

enum { K_ROUTABLE, K_LOOP, K_VIRTUAL, K_LINK_LOCAL };

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
			if (f->peers.v[k].resolved && ifaces_same_subnet(d, &f->peers.v[k].addr))
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
	if (!f->version_given) {
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
	else
		snprintf(f->net, sizeof f->net, "%s", active && !(ibd && strcmp(ibd, "0") != 0) ? "IB" : "Socket");
}

/* ---- report lines ---- */

static size_t sec_add(doctor_report *r, enum doctor_section s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static size_t sec_add(doctor_report *r, enum doctor_section s, const char *fmt, ...)
{
	strbuf b = { 0 };
	va_list ap;
	va_start(ap, fmt);
	char tmp[1024];
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	sb_adds(&b, tmp);
	grow(&r->lines[s], &r->cap[s], r->n[s], sizeof *r->lines[s]);
	r->lines[s][r->n[s]++] = sb_take(&b);
	return r->n[s];
}

static const char *line_of(const doctor_report *r, enum doctor_section s, size_t line)
{
	return r->lines[s][line - 1];
}

static void addr_prefix(const dif *d, strbuf *b)
{
	ifaces_addr_str(d, b);
	if (d->addr.family)
		sb_printf(b, "/%d", d->prefix);
}

/* "eth1:192.168.1.1<0>", the form of NCCL's "Using" lines. */
static void using_str(const dif *d, strbuf *b)
{
	sb_printf(b, "%s:", d->name);
	ifaces_addr_str(d, b);
	sb_adds(b, "<0>");
}

static void using_list(const doctor_facts *f, const sel_pick *p, strbuf *b)
{
	for (int i = 0; i < p->n; i++) {
		sb_printf(b, "%s[%d]", i ? " " : "", i);
		using_str(&f->ifs.v[p->idx[i]], b);
	}
}

/* The line number of interface i in the ifaces section: entries are listed in order. */
static size_t if_line(int i)
{
	return (size_t)i + 1;
}

static void write_ifaces(const doctor_facts *f, doctor_report *r)
{
	for (size_t i = 0; i < f->ifs.n; i++) {
		const dif *d = &f->ifs.v[i];
		strbuf a = { 0 };
		if (d->addr.family) {
			sb_adds(&a, d->addr.family == 4 ? "inet " : "inet6 ");
			addr_prefix(d, &a);
		} else {
			sb_adds(&a, "no address");
		}
		char mtu[32] = "";
		if (d->mtu > 0)
			snprintf(mtu, sizeof mtu, "mtu %d", d->mtu);
		sec_add(r, DS_IFACES, "%-16s %-34s %-10s %s%s", d->name, a.p, mtu, d->up ? "UP" : "DOWN",
			d->running ? ",RUNNING" : d->up ? ",NO-CARRIER" : "");
		sb_free(&a);
	}
}

static const char *version_str(int v, char *buf, size_t size)
{
	snprintf(buf, size, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	return buf;
}

/* Line numbers of the prediction lines, for evidence. */
typedef struct predlines {
	size_t boot, sock, old;
} predlines;

static void write_nccl(const doctor_facts *f, doctor_report *r, predlines *pl)
{
	char vb[32];
	sec_add(r, DS_NCCL, "predicted for NCCL %s%s", version_str(f->sel.version, vb, sizeof vb),
		f->version_given ? "" : " (the latest; --nccl-version to change)");
	strbuf b = { 0 };
	if (f->pick.boot.n) {
		using_str(&f->ifs.v[f->pick.boot.idx[0]], &b);
		pl->boot = sec_add(r, DS_NCCL, "Bootstrap: Using %s", b.p);
	} else {
		pl->boot = sec_add(r, DS_NCCL, "Bootstrap: no socket interface found");
	}
	sec_add(r, DS_NCCL, "  because %s", f->pick.boot.why);
	sb_clear(&b);
	if (f->pick.sock.n) {
		using_list(f, &f->pick.sock, &b);
		pl->sock = sec_add(r, DS_NCCL, "NET/Socket : Using %s", b.p);
	} else {
		pl->sock = sec_add(r, DS_NCCL, "NET/Socket : no interface found");
	}
	if (strcmp(f->pick.sock.why, f->pick.boot.why) != 0)
		sec_add(r, DS_NCCL, "  because %s", f->pick.sock.why);
	sec_add(r, DS_NCCL, "Using network %s%s", f->net,
		strcmp(f->net, "Socket") == 0 ? " (NET/Socket carries the traffic between nodes)" : "");
	for (int i = 0; i < f->pick.ndown; i++) {
		const dif *d = &f->ifs.v[f->pick.down[i]];
		sec_add(r, DS_NCCL, "skipped %s: no RUNNING flag (link down or no carrier); NCCL skips such interfaces from 2.28.3",
			d->name);
	}
	if (!f->version_given && f->pick_old.boot.n != f->pick.boot.n) {
		pl->old = sec_add(r, DS_NCCL, "with NCCL before 2.28.3: %s", f->pick_old.boot.n ? f->ifs.v[f->pick_old.boot.idx[0]].name : "no interface");
	} else if (!f->version_given && f->pick_old.boot.n &&
		   strcmp(f->ifs.v[f->pick_old.boot.idx[0]].name, f->ifs.v[f->pick.boot.idx[0]].name) != 0) {
		sb_clear(&b);
		using_str(&f->ifs.v[f->pick_old.boot.idx[0]], &b);
		pl->old = sec_add(r, DS_NCCL, "with NCCL before 2.28.3: Bootstrap: Using %s", b.p);
	}
	if (f->suggest >= 0)
		sec_add(r, DS_NCCL, "suggested: NCCL_SOCKET_IFNAME==%s", f->ifs.v[f->suggest].name);
	sb_free(&b);
}

/* ---- findings ---- */

static finding *add(model *m, const char *id, const char *key, enum severity sev,
		    const char *msg, const char *hint)
{
	const catentry *ce = catalog_find(m->cat, id);
	finding *f = findings_get(&m->fs, id, key, ce ? ce->title : id, sev, msg, hint, NULL);
	return f;
}

static void cite(finding *fd, const doctor_report *r, enum doctor_section s, size_t line)
{
	if (!line)
		return;
	slice text = slice_from(line_of(r, s, line));
	/* the first line notes the node; every cited line is evidence */
	findings_note(fd, r->proc, 0, r->file[s], line, text);
	findings_add_evidence(fd, r->file[s], line, r->proc, text);
}

/* The NCCL_SOCKET_IFNAME advice: a value verified against the rules. */
static void ifname_hint(const doctor_facts *f, strbuf *h)
{
	if (f->suggest < 0) {
		sb_adds(h, "this node has no routable interface with an address: give it one, then name it in "
			   "NCCL_SOCKET_IFNAME");
		return;
	}
	const dif *d = &f->ifs.v[f->suggest];
	char want[DIF_NAME_MAX + 2];
	snprintf(want, sizeof want, "=%s", d->name);
	sel_input in = f->sel;
	in.ifname = want;
	in.comm_id = NULL;
	sel_result check;
	select_predict(f->ifs.v, f->ifs.n, &in, &check);
	strbuf a = { 0 };
	addr_prefix(d, &a);
	if (!d->running)
		sb_printf(h, "%s (%s) looks routable but has no link (not RUNNING): bring it up, then ", d->name, a.p);
	sb_printf(h, "export NCCL_SOCKET_IFNAME=%s on every node (%s %s here; =%s matches it exactly)", d->name,
		  d->name, a.p, d->name);
	if (!check.boot.n && d->running)
		sb_adds(h, "; NCCL_SOCKET_FAMILY excludes it: unset NCCL_SOCKET_FAMILY");
	sb_free(&a);
}

static void check_choice(model *m, const doctor_facts *f, const doctor_report *r, const predlines *pl)
{
	const sel_pick *p = &f->pick.boot;
	bool sock_matters = strcmp(f->net, "Socket") == 0;
	/* the bootstrap interface, then NET/Socket's when sockets carry the data */
	for (int w = 0; w < 2; w++) {
		const sel_pick *q = w == 0 ? p : &f->pick.sock;
		if (w == 1 && !sock_matters)
			break;
		for (int i = 0; i < q->n; i++) {
			const dif *d = &f->ifs.v[q->idx[i]];
			int kind = doctor_iface_kind(d);
			if (kind == K_ROUTABLE)
				continue;
			strbuf a = { 0 }, msg = { 0 }, hint = { 0 };
			ifaces_addr_str(d, &a);
			const char *what = w == 0 ? "bootstrap" : "NET/Socket";
			const char *id = kind == K_LOOP ? "socket-iface-loopback"
				       : kind == K_VIRTUAL ? "socket-iface-virtual"
							   : "socket-iface-link-local";
			enum severity sev = kind == K_LOOP ? SEV_ERROR : SEV_WARNING;
			sb_printf(&msg, "NCCL would %s over %s %s (%s): other nodes cannot reach it", w == 0 ? "bootstrap" : "send NET/Socket traffic",
				  kind == K_LOOP ? "the loopback interface" : kind == K_VIRTUAL ? "the virtual interface" : "the link-local address of",
				  d->name, a.p);
			if (f->pick.ndown)
				sb_printf(&msg, " (%s is skipped: not RUNNING)", f->ifs.v[f->pick.down[0]].name);
			if (kind == K_LINK_LOCAL)
				sb_adds(&hint, "export NCCL_SOCKET_FAMILY=AF_INET or name an interface: ");
			ifname_hint(f, &hint);
			if (kind == K_VIRTUAL)
				sb_adds(&hint, "; in containers, run with --network=host (Kubernetes: hostNetwork: true) or name "
					       "the pod's routable interface");
			finding *fd = add(m, id, d->name, sev, msg.p, hint.p);
			cite(fd, r, DS_NCCL, w == 0 ? pl->boot : pl->sock);
			cite(fd, r, DS_IFACES, if_line(q->idx[i]));
			(void)what;
			sb_free(&a);
			sb_free(&msg);
			sb_free(&hint);
		}
	}
	/* an older NCCL binds a down interface */
	for (int i = 0; i < p->n; i++) {
		const dif *d = &f->ifs.v[p->idx[i]];
		if (d->running)
			continue;
		strbuf msg = { 0 }, hint = { 0 };
		char vb[32];
		sb_printf(&msg, "NCCL %s would bootstrap over %s, which is %s (no RUNNING flag): connections over it fail",
			  version_str(f->sel.version, vb, sizeof vb), d->name, d->up ? "up without a link" : "down");
		sb_adds(&hint, "NCCL before 2.28.3 does not skip interfaces without a link; ");
		ifname_hint(f, &hint);
		finding *fd = add(m, "socket-iface-not-found", "down", SEV_ERROR, msg.p, hint.p);
		cite(fd, r, DS_NCCL, pl->boot);
		cite(fd, r, DS_IFACES, if_line(p->idx[i]));
		sb_free(&msg);
		sb_free(&hint);
	}
}

static void check_not_found(model *m, const doctor_facts *f, const doctor_report *r, const predlines *pl)
{
	const sel_result *s = &f->pick;
	if (s->sock.n && s->boot.n)
		return;
	strbuf msg = { 0 }, hint = { 0 };
	const char *key = "ifname";
	if (!s->boot.n && s->boot.step == SEL_NONE && f->sel.comm_id && s->sock.n) {
		key = "comm-id";
		sb_printf(&msg, "%s", s->boot.why);
		sb_adds(&hint, "set NCCL_COMM_ID to HOST:PORT of the root rank on a subnet this node shares with it");
	} else {
		bool user = f->sel.ifname && strlen(f->sel.ifname) > 1;
		if (user) {
			sb_printf(&msg, "NCCL_SOCKET_IFNAME=%s matches no usable interface", f->sel.ifname);
			if (s->ndown) {
				sb_adds(&msg, ": only ");
				for (int i = 0; i < s->ndown; i++)
					sb_printf(&msg, "%s%s", i ? ", " : "", f->ifs.v[s->down[i]].name);
				sb_adds(&msg, s->ndown == 1 ? ", which is not RUNNING" : ", which are not RUNNING");
			}
			sb_adds(&msg, "; NCCL fails with \"no socket interface found\"");
		} else {
			sb_adds(&msg, "no interface with an address is usable: NCCL fails with \"no socket interface found\"");
		}
		sb_adds(&hint, "the interfaces here: ");
		int shown = 0;
		for (size_t i = 0; i < f->ifs.n && shown < 8; i++) {
			const dif *d = &f->ifs.v[i];
			if (!d->addr.family)
				continue;
			bool dup = false;
			for (size_t k = 0; k < i; k++)
				if (strcmp(f->ifs.v[k].name, d->name) == 0)
					dup = true;
			if (dup)
				continue;
			sb_printf(&hint, "%s%s", shown++ ? ", " : "", d->name);
		}
		if (!shown)
			sb_adds(&hint, "none with an address");
		sb_adds(&hint, "; the syntax: eth (prefix), =eth0 (exact), =eth0,eth1 (a list), ^docker,lo (exclude)");
		if (f->suggest >= 0) {
			sb_adds(&hint, "; ");
			ifname_hint(f, &hint);
		}
	}
	finding *fd = add(m, "socket-iface-not-found", key, SEV_ERROR, msg.p, hint.p);
	cite(fd, r, DS_NCCL, s->sock.n ? pl->boot : pl->sock);
	for (int i = 0; i < s->ndown && i < 2; i++)
		cite(fd, r, DS_IFACES, if_line(s->down[i]));
	sb_free(&msg);
	sb_free(&hint);
}

static void write_env(model *m, const doctor_facts *f, doctor_report *r)
{
	const node_facts *n = &f->node;
	if (!n->nenv) {
		sec_add(r, DS_ENV, "no NCCL_* or TORCH_NCCL_* variable is set");
		return;
	}
	bool risky = false;
	strbuf msg = { 0 };
	sb_adds(&msg, "NCCL settings from the environment: ");
	size_t first = r->n[DS_ENV] + 1;
	for (size_t i = 0; i < n->nenv; i++) {
		sec_add(r, DS_ENV, "%s=%s", n->env[i].name, n->env[i].value);
		sb_printf(&msg, "%s%s=%s", i ? ", " : "", n->env[i].name, n->env[i].value);
		if (node_env_risky(n->env[i].name, n->env[i].value))
			risky = true;
	}
	finding *fd = add(m, "env-override", "env", risky ? SEV_WARNING : SEV_INFO, msg.p,
			  risky ? "variables that disable transports or force ALGO/PROTO, NCCL_GRAPH_FILE and "
				  "NCCL_TOPO_FILE are debugging aids: remove them in production unless you know "
				  "why they are set (they may come from /etc/nccl.conf)"
				: NULL);
	for (size_t i = 0; i < n->nenv; i++)
		if (!risky || node_env_risky(n->env[i].name, n->env[i].value))
			cite(fd, r, DS_ENV, first + i);
	const char *ifn = f->sel.ifname;
	if (ifn && *ifn && strlen(ifn) <= 1) {
		strbuf h = { 0 };
		ifname_hint(f, &h);
		for (size_t i = 0; i < n->nenv; i++)
			if (strcmp(n->env[i].name, "NCCL_SOCKET_IFNAME") == 0) {
				strbuf im = { 0 };
				sb_printf(&im, "NCCL_SOCKET_IFNAME=%s is ignored: NCCL treats a value of one character as unset "
					       "and picks by its default order",
					  ifn);
				finding *g = add(m, "env-override", "ifname-short", SEV_WARNING, im.p, h.p);
				cite(g, r, DS_ENV, first + i);
				sb_free(&im);
			}
		sb_free(&h);
	}
	sb_free(&msg);
}

static void write_node(model *m, const doctor_facts *f, doctor_report *r)
{
	const node_facts *n = &f->node;
	sec_add(r, DS_NODE, "host %s", n->host);
	sec_add(r, DS_NODE, "GPUs: %d (%s)", n->gpus, n->gpus_given ? "--gpus" : "/dev/nvidia*");
	/* /dev/shm */
	const char *bs = node_env(n, "NCCL_BUFFSIZE");
	uint64_t need = node_shm_need(n->gpus, bs ? strtoull(bs, NULL, 0) : 0);
	strbuf a = { 0 }, b = { 0 }, c = { 0 };
	if (!n->shm_ok) {
		size_t l = sec_add(r, DS_NODE, "/dev/shm: missing or unreadable");
		if (n->gpus > 1) {
			finding *fd = add(m, "shm-too-small", "shm", SEV_ERROR,
					  "/dev/shm is missing: NCCL's shared-memory transport cannot create its segments",
					  "mount a tmpfs on /dev/shm (Docker: --shm-size=1g or --ipc=host; Kubernetes: an "
					  "emptyDir with medium: Memory)");
			cite(fd, r, DS_NODE, l);
		}
	} else {
		node_bytes_str(n->shm_size, &a);
		node_bytes_str(n->shm_free, &b);
		node_bytes_str(need, &c);
		size_t l = n->gpus > 1 ? sec_add(r, DS_NODE, "/dev/shm: %s, %s free; %d GPUs need about %s", a.p, b.p,
						 n->gpus, c.p)
				       : sec_add(r, DS_NODE, "/dev/shm: %s, %s free%s", a.p, b.p,
						 n->gpus ? "" : " (no GPU here: --gpus N checks it for N GPUs)");
		if (need && (n->shm_size < need || n->shm_free < need)) {
			bool total = n->shm_size < need;
			strbuf msg = { 0 };
			sb_printf(&msg, "/dev/shm has %s %s, and NCCL's shared-memory segments for %d local GPUs need about %s",
				  total ? a.p : b.p, total ? "in all" : "free", n->gpus, c.p);
			finding *fd = add(m, "shm-too-small", "shm", total ? SEV_ERROR : SEV_WARNING, msg.p,
					  total ? "give the container more shared memory: Docker --shm-size=1g (or more) or "
						  "--ipc=host; Kubernetes: an emptyDir with medium: Memory at /dev/shm"
						: "free /dev/shm: stale nccl-* or torch_* segments of earlier jobs are the "
						  "usual cause (ls -la /dev/shm)");
			cite(fd, r, DS_NODE, l);
			sb_free(&msg);
		}
	}
	/* RDMA ports */
	size_t ib_first = r->n[DS_NODE] + 1;
	bool active = false, mixed = false;
	const char *layer = NULL;
	for (size_t i = 0; i < n->nib; i++) {
		const ibport *p = &n->ib[i];
		bool roce = strcmp(p->link, "Ethernet") == 0;
		sec_add(r, DS_NODE, "RDMA %s port %d: %s, link layer %s%s", p->dev, p->port, p->state, p->link,
			roce ? " (RoCE)" : "");
		if (strcmp(p->state, "ACTIVE") != 0)
			continue;
		active = true;
		if (layer && strcmp(layer, p->link) != 0)
			mixed = true;
		layer = p->link;
	}
	if (!n->nib)
		sec_add(r, DS_NODE, "RDMA: no device under /sys/class/infiniband");
	if (n->nib && !active) {
		finding *fd = add(m, "net-socket-fallback", "ib", SEV_WARNING,
				  "RDMA devices are present but no port is ACTIVE: NCCL will find no IB device and use "
				  "sockets between nodes",
				  "check the ports (ibstat, ibv_devinfo): cable, subnet manager (IB), or the switch port "
				  "(RoCE)");
		for (size_t i = 0; i < n->nib && i < 3; i++)
			cite(fd, r, DS_NODE, ib_first + i);
	}
	if (mixed) {
		finding *fd = add(m, "ib-setup-failed", "mixed", SEV_WARNING,
				  "ACTIVE RDMA ports mix InfiniBand and Ethernet (RoCE) link layers: NCCL fails to connect "
				  "incompatible devices",
				  "select NICs of one link type with NCCL_IB_HCA (e.g. NCCL_IB_HCA==mlx5_0,mlx5_1)");
		for (size_t i = 0; i < n->nib && i < 4; i++)
			cite(fd, r, DS_NODE, ib_first + i);
	}
	const char *ibd = node_env(n, "NCCL_IB_DISABLE"), *net = node_env(n, "NCCL_NET");
	if (active && ((ibd && strcmp(ibd, "0") != 0) || (net && strcmp(net, "Socket") == 0))) {
		strbuf msg = { 0 };
		sb_printf(&msg, "%s is set although this node has ACTIVE RDMA ports: traffic between nodes goes over TCP",
			  ibd && strcmp(ibd, "0") != 0 ? "NCCL_IB_DISABLE" : "NCCL_NET=Socket");
		finding *fd = add(m, "ib-disabled-by-env", "ib", SEV_WARNING, msg.p,
				  "remove NCCL_IB_DISABLE / NCCL_NET=Socket from the environment, job scripts and "
				  "/etc/nccl.conf, and fix the IB problem it was hiding");
		cite(fd, r, DS_NODE, ib_first);
		sb_free(&msg);
	}
	/* memlock */
	size_t l;
	if (n->memlock_unlimited) {
		l = sec_add(r, DS_NODE, "memlock (ulimit -l): unlimited");
	} else {
		sb_clear(&a);
		node_bytes_str(n->memlock_soft, &a);
		l = sec_add(r, DS_NODE, "memlock (ulimit -l): %s", a.p);
	}
	if (n->nib && !n->memlock_unlimited) {
		strbuf msg = { 0 };
		sb_printf(&msg, "the locked-memory limit is %s: RDMA memory registration (ibv_reg_mr) can fail", a.p);
		finding *fd = add(m, "ib-reg-mr-failed", "memlock", SEV_WARNING, msg.p,
				  "raise it to unlimited: /etc/security/limits.conf (* soft memlock unlimited, * hard "
				  "memlock unlimited), Docker --ulimit memlock=-1, Slurm "
				  "PropagateResourceLimitsExcept=MEMLOCK");
		cite(fd, r, DS_NODE, l);
		sb_free(&msg);
	}
	sb_free(&a);
	sb_free(&b);
	sb_free(&c);
}

static void write_peers(model *m, const doctor_facts *f, doctor_report *r)
{
	const peerlist *pl = &f->peers;
	const dif *boot = f->pick.boot.n ? &f->ifs.v[f->pick.boot.idx[0]] : NULL;
	for (size_t i = 0; i < pl->n; i++) {
		const peer *p = &pl->v[i];
		strbuf a = { 0 }, s = { 0 };
		if (!p->resolved) {
			size_t l = sec_add(r, DS_PEERS, "%s:%d %s", p->host, p->port, p->err);
			strbuf msg = { 0 };
			sb_printf(&msg, "peer %s: %s", p->host, p->err);
			finding *fd = add(m, "bootstrap-connect-failed", p->host, SEV_ERROR, msg.p,
					  "check the name (getent hosts NAME) or give the peer's address");
			cite(fd, r, DS_PEERS, l);
			sb_free(&msg);
			continue;
		}
		dif tmp = { .addr = p->addr };
		ifaces_addr_str(&tmp, &a);
		/* "node2 (10.0.0.2)", or the address alone when it was given as one */
		strbuf who = { 0 };
		sb_adds(&who, p->host);
		if (strcmp(p->host, a.p) != 0)
			sb_printf(&who, " (%s)", a.p);
		if (p->local >= 0)
			sb_printf(&s, "shares a subnet with %s", f->ifs.v[p->local].name);
		else
			sb_adds(&s, "on no local subnet (routed)");
		bool on_boot = false;
		for (size_t k = 0; boot && k < f->ifs.n; k++)
			if (strcmp(f->ifs.v[k].name, boot->name) == 0 && f->ifs.v[k].addr.family &&
			    ifaces_same_subnet(&f->ifs.v[k], &p->addr))
				on_boot = true;
		char conn[256] = "";
		if (f->connected && p->conn == PC_OK)
			snprintf(conn, sizeof conn, "; port %d: connected in %.1f ms", p->port, p->ms);
		else if (f->connected && p->conn == PC_TIMEOUT)
			snprintf(conn, sizeof conn, "; port %d: timed out after %.0f ms", p->port, p->ms);
		else if (f->connected)
			snprintf(conn, sizeof conn, "; port %d: %s (%s, %.1f ms)", p->port, peers_conn_name(p->conn), p->err,
				 p->ms);
		size_t l = sec_add(r, DS_PEERS, "%s: %s%s", who.p, s.p, conn);
		/* a peer on lo or docker0's subnet is this host or a container: nothing to name */
		if (boot && p->local >= 0 && !on_boot && strcmp(f->ifs.v[p->local].name, boot->name) != 0 &&
		    doctor_iface_kind(&f->ifs.v[p->local]) == K_ROUTABLE) {
			strbuf msg = { 0 }, hint = { 0 };
			sb_printf(&msg, "peer %s is on the subnet of %s, but NCCL would bootstrap over %s", who.p,
				  f->ifs.v[p->local].name, boot->name);
			sb_printf(&hint, "export NCCL_SOCKET_IFNAME=%s on every node (=%s matches it exactly)",
				  f->ifs.v[p->local].name, f->ifs.v[p->local].name);
			finding *fd = add(m, "socket-iface-mismatch", f->ifs.v[p->local].name, SEV_WARNING, msg.p, hint.p);
			cite(fd, r, DS_PEERS, l);
			sb_free(&msg);
			sb_free(&hint);
		}
		if (f->connected && p->conn != PC_OK) {
			strbuf msg = { 0 };
			sb_printf(&msg, "peer %s port %d: connect %s", who.p, p->port, peers_conn_name(p->conn));
			if (p->err[0] && p->conn != PC_TIMEOUT)
				sb_printf(&msg, " (%s)", p->err);
			bool refused = p->conn == PC_REFUSED;
			finding *fd = add(m, "bootstrap-connect-failed", p->host, refused ? SEV_WARNING : SEV_ERROR, msg.p,
					  refused ? "the host answers but nothing listens on that port: the route is fine; "
						    "check the port, or the firewall for NCCL's ephemeral ports"
						  : "this node cannot reach the peer: check the interface and subnet both use, "
						    "routes and firewalls (ping, ip route get ADDR)");
			cite(fd, r, DS_PEERS, l);
			sb_free(&msg);
		}
		sb_free(&a);
		sb_free(&s);
		sb_free(&who);
	}
}

/* The node as a process of the model, so that findings name its host. */
static int add_proc(model *m, const doctor_facts *f, int file)
{
	int pi = model_add_proc(m, f->node.host, f->node.pid, file);
	proc *p = &m->procs[pi];
	p->net = intern_get(&m->str, slice_from(f->net));
	if (f->pick.boot.n) {
		const dif *d = &f->ifs.v[f->pick.boot.idx[0]];
		strbuf a = { 0 };
		ifaces_addr_str(d, &a);
		p->boot.name = intern_get(&m->str, slice_from(d->name));
		p->boot.addr = intern_get(&m->str, (slice){ a.p, a.n });
		sb_free(&a);
	}
	return pi;
}

void doctor_diagnose(model *m, const doctor_facts *f, doctor_report *r)
{
	*r = (doctor_report){ 0 };
	for (int s = 0; s < DS_COUNT; s++)
		r->file[s] = model_add_input(m, doctor_section_names[s]);
	r->proc = add_proc(m, f, r->file[DS_IFACES]);
	predlines pl = { 0 };
	write_ifaces(f, r);
	write_nccl(f, r, &pl);
	check_not_found(m, f, r, &pl);
	check_choice(m, f, r, &pl);
	write_node(m, f, r);
	write_env(m, f, r);
	write_peers(m, f, r);
	for (int s = 0; s < DS_COUNT; s++) {
		m->in[r->file[s]].lines = r->n[s];
		for (size_t i = 0; i < r->n[s]; i++)
			m->in[r->file[s]].bytes += strlen(r->lines[s][i]) + 1;
	}
}

void doctor_report_free(doctor_report *r)
{
	for (int s = 0; s < DS_COUNT; s++) {
		for (size_t i = 0; i < r->n[s]; i++)
			free(r->lines[s][i]);
		free(r->lines[s]);
	}
	*r = (doctor_report){ 0 };
}

void doctor_facts_free(doctor_facts *f)
{
	ifaces_free(&f->ifs);
	node_free(&f->node);
	peers_free(&f->peers);
}
