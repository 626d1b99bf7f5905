/* The node part of the report: GPUs, /dev/shm, RDMA ports and the GID
 * RoCE will use, the memlock limit. */
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *roce_name(int v)
{
	return v == 2 ? "RoCE v2" : v == 1 ? "RoCE v1" : "type unknown";
}

static void gid_text(const gident *g, strbuf *b)
{
	gid_str(g->raw, b);
	sb_printf(b, ", %s", roce_name(g->roce));
	if (g->ndev[0])
		sb_printf(b, ", %s", g->ndev);
}

/* The GID table of an ACTIVE RoCE port and the entry NCCL will use. */
static void check_gid(model *m, const doctor_facts *f, doctor_report *r, const ibport *p)
{
	const node_facts *n = &f->node;
	gid_input in = { p->gids, p->ngids, p->gid_tbl_len, f->sel.version, node_env(n, "NCCL_IB_GID_INDEX"),
			 node_env(n, "NCCL_IB_ADDR_FAMILY"), node_env(n, "NCCL_IB_ADDR_RANGE"),
			 node_env(n, "NCCL_IB_ROCE_VERSION_NUM") };
	for (size_t i = 0; i < p->ngids && i < 8; i++) {
		strbuf t = { 0 };
		gid_text(&p->gids[i], &t);
		diag_line(r, DS_NODE, "  GID %d: %s", p->gids[i].index, t.p);
		sb_free(&t);
	}
	if (p->ngids > 8)
		diag_line(r, DS_NODE, "  ... %zu more GIDs", p->ngids - 8);
	enum gid_how how;
	int idx = gid_pick(&in, &how);
	const gident *g = gid_at(&in, idx);
	int pref = gid_preferred(&in);
	char vb[32];
	doctor_version_str(f->sel.version, vb, sizeof vb);
	strbuf t = { 0 };
	if (g)
		gid_text(g, &t);
	else
		sb_adds(&t, "an empty entry");
	const char *why = how == GID_ENV ? "NCCL_IB_GID_INDEX" : how == GID_DEFAULT_ZERO ? "the default before 2.21.5"
									       : "its scan for an IPv4 RoCE v2 GID";
	size_t l = diag_line(r, DS_NODE, "  NCCL %s uses GID %d (%s): %s", vb, idx, t.p, why);
	sb_free(&t);
	if (gid_wanted(&in, g))
		return;
	strbuf msg = { 0 }, hint = { 0 }, key = { 0 };
	sb_printf(&key, "gid:%s:%d", p->dev, p->port);
	enum severity sev = SEV_WARNING;
	if (!g && how == GID_ENV) {
		sev = SEV_ERROR;
		sb_printf(&msg, "NCCL_IB_GID_INDEX=%s names an empty GID entry of %s port %d: RoCE connections fail "
				"(ibv_modify_qp)",
			  in.gid_index, p->dev, p->port);
	} else if (pref < 0) {
		sb_printf(&msg, "%s port %d (RoCE) has no RoCE v2 GID with an IPv4 address: NCCL %s uses GID %d, which %s",
			  p->dev, p->port, vb, idx,
			  g && gid_valid(g->raw) ? "is not one the fabric routes" : "is link-local or empty and does not route between subnets");
	} else {
		sb_printf(&msg, "NCCL %s uses GID %d of %s port %d (%s), but GID %d is its RoCE v2 IPv4 GID", vb, idx,
			  p->dev, p->port, how == GID_ENV		 ? "forced by NCCL_IB_GID_INDEX"
			  : how == GID_DEFAULT_ZERO ? "NCCL_IB_GID_INDEX defaulted to 0 before 2.21.5"
						    : "the result of its scan",
			  pref);
	}
	if (pref >= 0)
		sb_printf(&hint, "%s NCCL_IB_GID_INDEX=%d on the nodes of this fabric (the index can differ per node: "
				 "compare show_gids), or use NCCL 2.21.5 or later, which picks the GID itself",
			  how == GID_ENV ? "set" : "export", pref);
	else
		sb_printf(&hint, "give %s an IPv4 address (the GID table follows the interface's addresses), or select "
				 "IPv6 GIDs with NCCL_IB_ADDR_FAMILY=AF_INET6",
			  p->netdev[0] ? p->netdev : "the port's interface");
	finding *fd = diag_finding(m, "ib-setup-failed", key.p, sev, msg.p, hint.p);
	diag_cite(fd, r, DS_NODE, l);
	sb_free(&msg);
	sb_free(&hint);
	sb_free(&key);
}

void diag_node(model *m, const doctor_facts *f, doctor_report *r)
{
	const node_facts *n = &f->node;
	diag_line(r, DS_NODE, "host %s", n->host);
	diag_line(r, DS_NODE, "GPUs: %d (%s)", n->gpus, n->gpus_given ? "--gpus" : "/dev/nvidia*");
	/* /dev/shm */
	const char *bs = node_env(n, "NCCL_BUFFSIZE");
	uint64_t need = node_shm_need(n->gpus, bs ? strtoull(bs, NULL, 0) : 0);
	strbuf a = { 0 }, b = { 0 }, c = { 0 };
	if (!n->shm_ok) {
		size_t l = diag_line(r, DS_NODE, "/dev/shm: missing or unreadable");
		if (n->gpus > 1) {
			finding *fd = diag_finding(m, "shm-too-small", "shm", SEV_ERROR,
					  "/dev/shm is missing: NCCL's shared-memory transport cannot create its segments",
					  "mount a tmpfs on /dev/shm (Docker: --shm-size=1g or --ipc=host; Kubernetes: an "
					  "emptyDir with medium: Memory)");
			diag_cite(fd, r, DS_NODE, l);
		}
	} else {
		node_bytes_str(n->shm_size, &a);
		node_bytes_str(n->shm_free, &b);
		node_bytes_str(need, &c);
		size_t l = n->gpus > 1 ? diag_line(r, DS_NODE, "/dev/shm: %s, %s free; %d GPUs need about %s", a.p, b.p,
						 n->gpus, c.p)
				       : diag_line(r, DS_NODE, "/dev/shm: %s, %s free%s", a.p, b.p,
						 n->gpus ? "" : " (no GPU here: --gpus N checks it for N GPUs)");
		if (need && (n->shm_size < need || n->shm_free < need)) {
			bool total = n->shm_size < need;
			strbuf msg = { 0 };
			sb_printf(&msg, "/dev/shm has %s %s, and NCCL's shared-memory segments for %d local GPUs need about %s",
				  total ? a.p : b.p, total ? "in all" : "free", n->gpus, c.p);
			finding *fd = diag_finding(m, "shm-too-small", "shm", total ? SEV_ERROR : SEV_WARNING, msg.p,
					  total ? "give the container more shared memory: Docker --shm-size=1g (or more) or "
						  "--ipc=host; Kubernetes: an emptyDir with medium: Memory at /dev/shm"
						: "free /dev/shm: stale nccl-* or torch_* segments of earlier jobs are the "
						  "usual cause (ls -la /dev/shm)");
			diag_cite(fd, r, DS_NODE, l);
			sb_free(&msg);
		}
	}
	/* RDMA ports */
	size_t *port_line = xcalloc(n->nib ? n->nib : 1, sizeof *port_line);
	bool active = false, mixed = false;
	const char *layer = NULL;
	for (size_t i = 0; i < n->nib; i++) {
		const ibport *p = &n->ib[i];
		bool roce = strcmp(p->link, "Ethernet") == 0;
		strbuf more = { 0 };
		if (p->fw[0])
			sb_printf(&more, ", firmware %s", p->fw);
		if (p->rate[0])
			sb_printf(&more, ", %s", p->rate);
		if (p->netdev[0])
			sb_printf(&more, ", interface %s", p->netdev);
		port_line[i] = diag_line(r, DS_NODE, "RDMA %s port %d: %s, link layer %s%s%s", p->dev, p->port, p->state,
					 p->link, roce ? " (RoCE)" : "", more.p ? more.p : "");
		sb_free(&more);
		if (strcmp(p->state, "ACTIVE") != 0)
			continue;
		if (roce)
			check_gid(m, f, r, p);
		active = true;
		if (layer && strcmp(layer, p->link) != 0)
			mixed = true;
		layer = p->link;
	}
	if (!n->nib)
		diag_line(r, DS_NODE, "RDMA: no device under /sys/class/infiniband");
	if (n->nib && !active) {
		finding *fd = diag_finding(m, "net-socket-fallback", "ib", SEV_WARNING,
				  "RDMA devices are present but no port is ACTIVE: NCCL will find no IB device and use "
				  "sockets between nodes",
				  "check the ports (ibstat, ibv_devinfo): cable, subnet manager (IB), or the switch port "
				  "(RoCE)");
		for (size_t i = 0; i < n->nib && i < 3; i++)
			diag_cite(fd, r, DS_NODE, port_line[i]);
	}
	if (mixed) {
		finding *fd = diag_finding(m, "ib-setup-failed", "mixed", SEV_WARNING,
				  "ACTIVE RDMA ports mix InfiniBand and Ethernet (RoCE) link layers: NCCL fails to connect "
				  "incompatible devices",
				  "select NICs of one link type with NCCL_IB_HCA (e.g. NCCL_IB_HCA==mlx5_0,mlx5_1)");
		for (size_t i = 0; i < n->nib && i < 4; i++)
			diag_cite(fd, r, DS_NODE, port_line[i]);
	}
	const char *ibd = node_env(n, "NCCL_IB_DISABLE"), *net = node_env(n, "NCCL_NET");
	if (active && ((ibd && strcmp(ibd, "0") != 0) || (net && strcmp(net, "Socket") == 0))) {
		strbuf msg = { 0 };
		sb_printf(&msg, "%s is set although this node has ACTIVE RDMA ports: traffic between nodes goes over TCP",
			  ibd && strcmp(ibd, "0") != 0 ? "NCCL_IB_DISABLE" : "NCCL_NET=Socket");
		finding *fd = diag_finding(m, "ib-disabled-by-env", "ib", SEV_WARNING, msg.p,
				  "remove NCCL_IB_DISABLE / NCCL_NET=Socket from the environment, job scripts and "
				  "/etc/nccl.conf, and fix the IB problem it was hiding");
		diag_cite(fd, r, DS_NODE, port_line[0]);
		sb_free(&msg);
	}
	/* memlock */
	size_t l;
	if (n->memlock_unlimited) {
		l = diag_line(r, DS_NODE, "memlock (ulimit -l): unlimited");
	} else {
		sb_clear(&a);
		node_bytes_str(n->memlock_soft, &a);
		l = diag_line(r, DS_NODE, "memlock (ulimit -l): %s", a.p);
	}
	if (n->nib && !n->memlock_unlimited) {
		strbuf msg = { 0 };
		sb_printf(&msg, "the locked-memory limit is %s: RDMA memory registration (ibv_reg_mr) can fail", a.p);
		finding *fd = diag_finding(m, "ib-reg-mr-failed", "memlock", SEV_WARNING, msg.p,
				  "raise it to unlimited: /etc/security/limits.conf (* soft memlock unlimited, * hard "
				  "memlock unlimited), Docker --ulimit memlock=-1, Slurm "
				  "PropagateResourceLimitsExcept=MEMLOCK");
		diag_cite(fd, r, DS_NODE, l);
		sb_free(&msg);
	}
	free(port_line);
	sb_free(&a);
	sb_free(&b);
	sb_free(&c);
}

