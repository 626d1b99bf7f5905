/* From the facts of one node to report lines and findings: the sections,
 * and the network part (interfaces, NCCL's choice, environment, peers). */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const doctor_section_names[DS_COUNT] = { "doctor:ifaces", "doctor:nccl", "doctor:node", "doctor:env",
						      "doctor:peers", "doctor:libs", "doctor:names" };
const enum doctor_section doctor_section_order[DS_COUNT] = { DS_LIBS, DS_IFACES, DS_NCCL, DS_NODE,
							     DS_ENV,  DS_NAMES,  DS_PEERS };
const char *const doctor_section_titles[DS_COUNT] = { "network interfaces, in kernel order", "NCCL's choice", "node",
						       "environment", "peers", "NCCL, CUDA driver, net plugin",
						       "names and addresses" };

/* ---- report lines ---- */

size_t diag_line(doctor_report *r, enum doctor_section s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char tmp[1024];
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	grow(&r->lines[s], &r->cap[s], r->n[s], sizeof *r->lines[s]);
	r->lines[s][r->n[s]++] = xstrdup(tmp);
	return r->n[s];
}

finding *diag_finding(model *m, const char *id, const char *key, enum severity sev, const char *msg, const char *hint)
{
	const catentry *ce = catalog_find(m->cat, id);
	return findings_get(&m->fs, id, key, ce ? ce->title : id, sev, msg, hint, NULL);
}

void diag_cite(finding *fd, const doctor_report *r, enum doctor_section s, size_t line)
{
	if (!line)
		return;
	slice text = slice_from(r->lines[s][line - 1]);
	/* the first line notes the node; every cited line is evidence */
	findings_note(fd, r->proc, 0, r->file[s], line, text);
	findings_add_evidence(fd, r->file[s], line, r->proc, text);
}

void diag_addr(const ipaddr *a, strbuf *b)
{
	dif tmp = { .addr = *a };
	ifaces_addr_str(&tmp, b);
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

/* One line per interface with what `ethtool -i` knows of it. */
static void write_nics(const doctor_facts *f, doctor_report *r)
{
	for (size_t i = 0; i < f->nics.n; i++) {
		const nic *n = &f->nics.v[i];
		if (!n->driver[0] && n->speed < 0)
			continue;
		strbuf b = { 0 };
		sb_printf(&b, "%s: driver %s", n->name, n->driver[0] ? n->driver : "unknown");
		if (n->version[0])
			sb_printf(&b, " %s", n->version);
		if (n->firmware[0])
			sb_printf(&b, ", firmware %s", n->firmware);
		if (n->bus[0])
			sb_printf(&b, ", bus %s", n->bus);
		if (n->speed > 0)
			sb_printf(&b, ", %ld Mb/s", n->speed);
		if (n->mtu > 0)
			sb_printf(&b, ", mtu %d", n->mtu);
		diag_line(r, DS_IFACES, "%s", b.p);
		sb_free(&b);
	}
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
		diag_line(r, DS_IFACES, "%-16s %-34s %-10s %s%s", d->name, a.p, mtu, d->up ? "UP" : "DOWN",
			  d->running ? ",RUNNING" : d->up ? ",NO-CARRIER" : "");
		sb_free(&a);
	}
	write_nics(f, r);
}

/* Line numbers of the prediction lines, for evidence. */
typedef struct predlines {
	size_t boot, sock, old;
} predlines;

static void write_nccl(const doctor_facts *f, doctor_report *r, predlines *pl)
{
	char vb[32];
	const char *why = f->vsrc == VS_OPTION	 ? " (--nccl-version)"
			  : f->vsrc == VS_LIBRARY ? " (the NCCL found on this node)"
						  : " (the latest known: no NCCL version found; --nccl-version or "
						    "--nccl-lib to change)";
	diag_line(r, DS_NCCL, "predicted for NCCL %s%s", doctor_version_str(f->sel.version, vb, sizeof vb), why);
	strbuf b = { 0 };
	if (f->pick.boot.n) {
		using_str(&f->ifs.v[f->pick.boot.idx[0]], &b);
		pl->boot = diag_line(r, DS_NCCL, "Bootstrap: Using %s", b.p);
	} else {
		pl->boot = diag_line(r, DS_NCCL, "Bootstrap: no socket interface found");
	}
	diag_line(r, DS_NCCL, "  because %s", f->pick.boot.why);
	sb_clear(&b);
	if (f->pick.sock.n) {
		using_list(f, &f->pick.sock, &b);
		pl->sock = diag_line(r, DS_NCCL, "NET/Socket : Using %s", b.p);
	} else {
		pl->sock = diag_line(r, DS_NCCL, "NET/Socket : no interface found");
	}
	if (strcmp(f->pick.sock.why, f->pick.boot.why) != 0)
		diag_line(r, DS_NCCL, "  because %s", f->pick.sock.why);
	diag_line(r, DS_NCCL, "Using network %s%s", f->net,
		  strcmp(f->net, "Socket") == 0 ? " (NET/Socket carries the traffic between nodes)" : "");
	for (int i = 0; i < f->pick.ndown; i++) {
		const dif *d = &f->ifs.v[f->pick.down[i]];
		diag_line(r, DS_NCCL,
			  "skipped %s: no RUNNING flag (link down or no carrier); NCCL skips such interfaces from 2.28.3",
			  d->name);
	}
	bool latest = f->vsrc == VS_LATEST;
	if (latest && f->pick_old.boot.n != f->pick.boot.n) {
		pl->old = diag_line(r, DS_NCCL, "with NCCL before 2.28.3: %s",
				    f->pick_old.boot.n ? f->ifs.v[f->pick_old.boot.idx[0]].name : "no interface");
	} else if (latest && f->pick_old.boot.n &&
		   strcmp(f->ifs.v[f->pick_old.boot.idx[0]].name, f->ifs.v[f->pick.boot.idx[0]].name) != 0) {
		sb_clear(&b);
		using_str(&f->ifs.v[f->pick_old.boot.idx[0]], &b);
		pl->old = diag_line(r, DS_NCCL, "with NCCL before 2.28.3: Bootstrap: Using %s", b.p);
	}
	if (f->suggest >= 0)
		diag_line(r, DS_NCCL, "suggested: NCCL_SOCKET_IFNAME==%s", f->ifs.v[f->suggest].name);
	sb_free(&b);
}

/* ---- findings ---- */

void diag_ifname_hint(const doctor_facts *f, strbuf *h)
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
			const char *id = kind == K_LOOP ? "socket-iface-loopback"
				       : kind == K_VIRTUAL ? "socket-iface-virtual"
							   : "socket-iface-link-local";
			enum severity sev = kind == K_LOOP ? SEV_ERROR : SEV_WARNING;
			sb_printf(&msg, "NCCL would %s over %s %s (%s): other nodes cannot reach it",
				  w == 0 ? "bootstrap" : "send NET/Socket traffic",
				  kind == K_LOOP ? "the loopback interface" : kind == K_VIRTUAL ? "the virtual interface" : "the link-local address of",
				  d->name, a.p);
			if (f->pick.ndown)
				sb_printf(&msg, " (%s is skipped: not RUNNING)", f->ifs.v[f->pick.down[0]].name);
			if (kind == K_LINK_LOCAL)
				sb_adds(&hint, "export NCCL_SOCKET_FAMILY=AF_INET or name an interface: ");
			diag_ifname_hint(f, &hint);
			if (kind == K_VIRTUAL)
				sb_adds(&hint, "; in containers, run with --network=host (Kubernetes: hostNetwork: true) or name "
					       "the pod's routable interface");
			finding *fd = diag_finding(m, id, d->name, sev, msg.p, hint.p);
			diag_cite(fd, r, DS_NCCL, w == 0 ? pl->boot : pl->sock);
			diag_cite(fd, r, DS_IFACES, if_line(q->idx[i]));
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
			  doctor_version_str(f->sel.version, vb, sizeof vb), d->name, d->up ? "up without a link" : "down");
		sb_adds(&hint, "NCCL before 2.28.3 does not skip interfaces without a link; ");
		diag_ifname_hint(f, &hint);
		finding *fd = diag_finding(m, "socket-iface-not-found", "down", SEV_ERROR, msg.p, hint.p);
		diag_cite(fd, r, DS_NCCL, pl->boot);
		diag_cite(fd, r, DS_IFACES, if_line(p->idx[i]));
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
			diag_ifname_hint(f, &hint);
		}
	}
	finding *fd = diag_finding(m, "socket-iface-not-found", key, SEV_ERROR, msg.p, hint.p);
	diag_cite(fd, r, DS_NCCL, s->sock.n ? pl->boot : pl->sock);
	for (int i = 0; i < s->ndown && i < 2; i++)
		diag_cite(fd, r, DS_IFACES, if_line(s->down[i]));
	sb_free(&msg);
	sb_free(&hint);
}

static void write_env(model *m, const doctor_facts *f, doctor_report *r)
{
	const node_facts *n = &f->node;
	if (!n->nenv) {
		diag_line(r, DS_ENV, "no NCCL_* or TORCH_NCCL_* variable is set");
		return;
	}
	bool risky = false;
	strbuf msg = { 0 };
	sb_adds(&msg, "NCCL settings from the environment: ");
	size_t first = r->n[DS_ENV] + 1;
	for (size_t i = 0; i < n->nenv; i++) {
		diag_line(r, DS_ENV, "%s=%s", n->env[i].name, n->env[i].value);
		sb_printf(&msg, "%s%s=%s", i ? ", " : "", n->env[i].name, n->env[i].value);
		if (node_env_risky(n->env[i].name, n->env[i].value))
			risky = true;
	}
	finding *fd = diag_finding(m, "env-override", "env", risky ? SEV_WARNING : SEV_INFO, msg.p,
				   risky ? "variables that disable transports or force ALGO/PROTO, NCCL_GRAPH_FILE and "
					   "NCCL_TOPO_FILE are debugging aids: remove them in production unless you know "
					   "why they are set (they may come from /etc/nccl.conf)"
					 : NULL);
	for (size_t i = 0; i < n->nenv; i++)
		if (!risky || node_env_risky(n->env[i].name, n->env[i].value))
			diag_cite(fd, r, DS_ENV, first + i);
	const char *ifn = f->sel.ifname;
	if (ifn && *ifn && strlen(ifn) <= 1) {
		strbuf h = { 0 };
		diag_ifname_hint(f, &h);
		for (size_t i = 0; i < n->nenv; i++)
			if (strcmp(n->env[i].name, "NCCL_SOCKET_IFNAME") == 0) {
				strbuf im = { 0 };
				sb_printf(&im, "NCCL_SOCKET_IFNAME=%s is ignored: NCCL treats a value of one character as unset "
					       "and picks by its default order",
					  ifn);
				finding *g = diag_finding(m, "env-override", "ifname-short", SEV_WARNING, im.p, h.p);
				diag_cite(g, r, DS_ENV, first + i);
				sb_free(&im);
			}
		sb_free(&h);
	}
	sb_free(&msg);
}

/* A route to a peer through a VPN or tunnel interface: NCCL binds its own
 * interface, but the kernel sends the packets where the route says. */
static void check_route(model *m, const doctor_facts *f, const doctor_report *r, const peer *p, const char *who,
			size_t line)
{
	if (p->route < 0)
		return;
	const dif *via = &f->ifs.v[p->route];
	if (doctor_iface_kind(via) != K_VIRTUAL || (f->pick.boot.n && strcmp(f->ifs.v[f->pick.boot.idx[0]].name, via->name) == 0))
		return;
	strbuf msg = { 0 }, hint = { 0 };
	sb_printf(&msg, "the route to peer %s goes through the virtual interface %s (a VPN, tunnel or bridge): NCCL's "
			"connections to it take that path whatever interface NCCL binds",
		  who, via->name);
	sb_printf(&hint, "reach the other nodes over the interface NCCL uses (ip route get %s shows the route): drop the "
			 "VPN's route for the cluster network, or give the nodes addresses on a shared subnet",
		  p->host);
	finding *fd = diag_finding(m, "socket-iface-virtual", p->host, SEV_WARNING, msg.p, hint.p);
	diag_cite(fd, r, DS_PEERS, line);
	sb_free(&msg);
	sb_free(&hint);
}

static void write_peers(model *m, const doctor_facts *f, doctor_report *r)
{
	const peerlist *pl = &f->peers;
	const dif *boot = f->pick.boot.n ? &f->ifs.v[f->pick.boot.idx[0]] : NULL;
	for (size_t i = 0; i < pl->n; i++) {
		const peer *p = &pl->v[i];
		if (p->master)
			continue; /* in the names section */
		strbuf a = { 0 }, s = { 0 };
		if (!p->resolved) {
			size_t l = diag_line(r, DS_PEERS, "%s:%d %s", p->host, p->port, p->err);
			strbuf msg = { 0 };
			sb_printf(&msg, "peer %s: %s", p->host, p->err);
			finding *fd = diag_finding(m, "bootstrap-connect-failed", p->host, SEV_ERROR, msg.p,
						   "check the name (getent hosts NAME) or give the peer's address");
			diag_cite(fd, r, DS_PEERS, l);
			sb_free(&msg);
			continue;
		}
		diag_addr(&p->addr, &a);
		/* "node2 (10.0.0.2)", or the address alone when it was given as one */
		strbuf who = { 0 };
		sb_adds(&who, p->host);
		if (strcmp(p->host, a.p) != 0)
			sb_printf(&who, " (%s)", a.p);
		if (p->local >= 0)
			sb_printf(&s, "shares a subnet with %s", f->ifs.v[p->local].name);
		else
			sb_adds(&s, "on no local subnet (routed)");
		if (p->route >= 0 && (p->local < 0 || strcmp(f->ifs.v[p->route].name, f->ifs.v[p->local].name) != 0))
			sb_printf(&s, "; the kernel sends to it from %s", f->ifs.v[p->route].name);
		if (p->hosts_line)
			sb_printf(&s, "; the name is in /etc/hosts line %d", p->hosts_line);
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
		size_t l = diag_line(r, DS_PEERS, "%s: %s%s", who.p, s.p, conn);
		/* a peer on lo or docker0's subnet is this host or a container: nothing to name */
		if (boot && p->local >= 0 && !on_boot && strcmp(f->ifs.v[p->local].name, boot->name) != 0 &&
		    doctor_iface_kind(&f->ifs.v[p->local]) == K_ROUTABLE) {
			strbuf msg = { 0 }, hint = { 0 };
			sb_printf(&msg, "peer %s is on the subnet of %s, but NCCL would bootstrap over %s", who.p,
				  f->ifs.v[p->local].name, boot->name);
			sb_printf(&hint, "export NCCL_SOCKET_IFNAME=%s on every node (=%s matches it exactly)",
				  f->ifs.v[p->local].name, f->ifs.v[p->local].name);
			finding *fd = diag_finding(m, "socket-iface-mismatch", f->ifs.v[p->local].name, SEV_WARNING, msg.p, hint.p);
			diag_cite(fd, r, DS_PEERS, l);
			sb_free(&msg);
			sb_free(&hint);
		}
		check_route(m, f, r, p, who.p, l);
		if (f->connected && p->conn != PC_OK) {
			strbuf msg = { 0 };
			sb_printf(&msg, "peer %s port %d: connect %s", who.p, p->port, peers_conn_name(p->conn));
			if (p->err[0] && p->conn != PC_TIMEOUT)
				sb_printf(&msg, " (%s)", p->err);
			bool refused = p->conn == PC_REFUSED;
			finding *fd = diag_finding(m, "bootstrap-connect-failed", p->host, refused ? SEV_WARNING : SEV_ERROR, msg.p,
						   refused ? "the host answers but nothing listens on that port: the route is fine; "
							     "check the port, or the firewall for NCCL's ephemeral ports"
							   : "this node cannot reach the peer: check the interface and subnet both use, "
							     "routes and firewalls (ping, ip route get ADDR)");
			diag_cite(fd, r, DS_PEERS, l);
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
	diag_libs(m, f, r);
	write_nccl(f, r, &pl);
	check_not_found(m, f, r, &pl);
	check_choice(m, f, r, &pl);
	diag_node(m, f, r);
	write_env(m, f, r);
	diag_names(m, f, r);
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
