/* The names part of the report: how this node's own name resolves, and
 * MASTER_ADDR / MASTER_PORT, the rendezvous of PyTorch's env:// init. */
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void addr_list(const resolved *s, strbuf *b)
{
	for (int i = 0; i < s->naddr; i++) {
		if (i)
			sb_adds(b, ", ");
		diag_addr(&s->addr[i], b);
	}
}

static void write_self(model *m, const doctor_facts *f, doctor_report *r)
{
	const resolved *s = &f->self;
	const char *host = f->node.host;
	const dif *boot = f->pick.boot.n ? &f->ifs.v[f->pick.boot.idx[0]] : NULL;
	strbuf ba = { 0 }, hint = { 0 }, msg = { 0 };
	if (boot)
		ifaces_addr_str(boot, &ba);
	if (boot)
		sb_printf(&hint, "map %s to %s (the address of %s, NCCL's interface) in /etc/hosts or DNS, the same on every node",
			  host, ba.p, boot->name);
	else
		sb_printf(&hint, "map %s to the node's routable address in /etc/hosts or DNS, the same on every node", host);
	if (!s->ok) {
		size_t l = diag_line(r, DS_NAMES, "host name %s: %s", host, s->err);
		sb_printf(&msg, "this node's host name %s does not resolve (%s): tools that reach a node by its name "
				"(Gloo, MPI, torch elastic's rendezvous, hostname -i) fail",
			  host, s->err);
		finding *fd = diag_finding(m, "hostname-mismatch", "self", SEV_WARNING, msg.p, hint.p);
		diag_cite(fd, r, DS_NAMES, l);
		goto out;
	}
	strbuf list = { 0 };
	addr_list(s, &list);
	const dif *on = f->self_if >= 0 ? &f->ifs.v[f->self_if] : NULL;
	char src[64];
	if (s->hosts_line)
		snprintf(src, sizeof src, "/etc/hosts line %d", s->hosts_line);
	else
		snprintf(src, sizeof src, "the resolver");
	size_t l = diag_line(r, DS_NAMES, "host name %s resolves to %s (%s), %s%s", host, list.p, src,
			     on ? "on " : "an address of no local interface", on ? on->name : "");
	sb_free(&list);
	strbuf a0 = { 0 };
	diag_addr(&s->addr[0], &a0);
	if (ipaddr_kind(&s->addr[0]) == IP_LOOPBACK) {
		sb_printf(&msg, "this node's host name %s resolves to %s, a loopback address: what finds this node by its "
				"name, or advertises it to the others (Gloo, MPI, torch elastic's rendezvous), gets this "
				"host itself",
			  host, a0.p);
		sb_clear(&hint);
		char where[64] = "the line of /etc/hosts that maps it";
		if (s->hosts_line)
			snprintf(where, sizeof where, "line %d of /etc/hosts", s->hosts_line);
		sb_printf(&hint, "replace %s with \"%s %s\" (the address of %s), the same way on every node%s", where,
			  boot ? ba.p : "ADDRESS", host, boot ? boot->name : "the interface the nodes share",
			  s->addr[0].family == 4 && s->addr[0].b[3] == 1 && s->addr[0].b[2] == 1
				  ? " (Debian and Ubuntu write 127.0.1.1 for the host name there)"
				  : "");
		finding *fd = diag_finding(m, "hostname-loopback", "self", SEV_WARNING, msg.p, hint.p);
		diag_cite(fd, r, DS_NAMES, l);
	} else if (boot && !on) {
		sb_printf(&msg, "this node's host name %s resolves to %s, which no interface of this node has: the other "
				"nodes reach some other machine by that name",
			  host, a0.p);
		finding *fd = diag_finding(m, "hostname-mismatch", "self", SEV_WARNING, msg.p, hint.p);
		diag_cite(fd, r, DS_NAMES, l);
	} else if (boot && strcmp(on->name, boot->name) != 0 && doctor_iface_kind(on) != K_ROUTABLE) {
		sb_printf(&msg, "this node's host name %s resolves to %s on %s, while NCCL would bootstrap over %s (%s)",
			  host, a0.p, on->name, boot->name, ba.p);
		finding *fd = diag_finding(m, "hostname-mismatch", "self", SEV_WARNING, msg.p, hint.p);
		diag_cite(fd, r, DS_NAMES, l);
	}
	sb_free(&a0);
out:
	sb_free(&ba);
	sb_free(&hint);
	sb_free(&msg);
}

static void write_master(model *m, const doctor_facts *f, doctor_report *r)
{
	const peer *p = NULL;
	for (size_t i = 0; i < f->peers.n; i++)
		if (f->peers.v[i].master)
			p = &f->peers.v[i];
	if (!p) {
		if (f->master_port[0])
			diag_line(r, DS_NAMES, "MASTER_PORT=%s is set, MASTER_ADDR is not", f->master_port);
		else
			diag_line(r, DS_NAMES, "MASTER_ADDR and MASTER_PORT are unset (torchrun and most launchers set them)");
		return;
	}
	const char *port = f->master_port[0] ? f->master_port : "unset";
	strbuf msg = { 0 };
	if (!p->resolved) {
		size_t l = diag_line(r, DS_NAMES, "MASTER_ADDR=%s: %s; MASTER_PORT=%s", f->master_addr, p->err, port);
		sb_printf(&msg, "MASTER_ADDR=%s does not resolve (%s): PyTorch cannot reach the store of its rendezvous",
			  f->master_addr, p->err);
		finding *fd = diag_finding(m, "bootstrap-connect-failed", "master", SEV_ERROR, msg.p,
					   "set MASTER_ADDR to the address, or a name every node resolves, of the node of rank 0");
		diag_cite(fd, r, DS_NAMES, l);
		sb_free(&msg);
		return;
	}
	strbuf a = { 0 }, conn = { 0 };
	diag_addr(&p->addr, &a);
	if (f->connected && !p->no_connect) {
		if (p->conn == PC_OK)
			sb_printf(&conn, "; port %d: connected in %.1f ms", p->port, p->ms);
		else if (p->conn == PC_REFUSED)
			sb_printf(&conn, "; port %d: refused, nothing listens yet (as before rank 0 starts)", p->port);
		else
			sb_printf(&conn, "; port %d: %s", p->port, peers_conn_name(p->conn));
	}
	size_t l = diag_line(r, DS_NAMES, "MASTER_ADDR=%s resolves to %s%s%s; MASTER_PORT=%s%s", f->master_addr, a.p,
			     p->local >= 0 ? " on the subnet of " : "", p->local >= 0 ? f->ifs.v[p->local].name : "", port,
			     conn.p ? conn.p : "");
	if (ipaddr_kind(&p->addr) == IP_LOOPBACK) {
		sb_printf(&msg, "MASTER_ADDR=%s resolves to %s, a loopback address: ranks on other nodes cannot reach the "
				"store (fine on one node)",
			  f->master_addr, a.p);
		finding *fd = diag_finding(m, "hostname-loopback", "master", SEV_WARNING, msg.p,
					   "set MASTER_ADDR to a routable address of the node of rank 0, the same on every node");
		diag_cite(fd, r, DS_NAMES, l);
		sb_clear(&msg);
	}
	if (f->master_port_bad) {
		sb_printf(&msg, "MASTER_PORT=%s is not a port number (1 to 65535): PyTorch cannot reach its store",
			  f->master_port);
		finding *fd = diag_finding(m, "bootstrap-connect-failed", "master-port", SEV_ERROR, msg.p,
					   "set MASTER_PORT to a free port of the node of rank 0 (torchrun uses 29500), the "
					   "same on every node");
		diag_cite(fd, r, DS_NAMES, l);
		sb_clear(&msg);
	}
	if (f->connected && !p->no_connect && p->conn != PC_OK && p->conn != PC_REFUSED) {
		sb_printf(&msg, "MASTER_ADDR:MASTER_PORT (%s:%d) cannot be reached from this node: connect %s", a.p, p->port,
			  peers_conn_name(p->conn));
		finding *fd = diag_finding(m, "bootstrap-connect-failed", "master", SEV_ERROR, msg.p,
					   "check the route and firewalls between this node and the node of rank 0 (ip route "
					   "get ADDR), and that MASTER_ADDR is its address on a network both share");
		diag_cite(fd, r, DS_NAMES, l);
	}
	sb_free(&a);
	sb_free(&conn);
	sb_free(&msg);
}

void diag_names(model *m, const doctor_facts *f, doctor_report *r)
{
	write_self(m, f, r);
	write_master(m, f, r);
}
