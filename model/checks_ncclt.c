/* Findings from nccl-tests runs: wrong results, a bus bandwidth far below
 * what the transport the logs show gives, a run on one host that never
 * got its first result; placed on the ranks of the run's device table. */
#include "checks.h"
#include "checks_system.h"

#include <stdio.h>
#include <string.h>

#include "../parser/ncclt.h"

/* The processes of a run: its device table, else the NCCL processes of its input. */
static void run_procs(const model *m, const ntrun *r, intset *out)
{
	intset_addall(out, &r->procs);
	for (size_t i = 0; !r->procs.n && i < m->nprocs; i++)
		if (m->procs[i].file == r->file && m->procs[i].pid >= 0)
			intset_add(out, (int)i);
}

static const char *run_name(const model *m, const ntrun *r)
{
	return r->program >= 0 ? sys_str(m, r->program) : "nccl-tests";
}

/* What bus bandwidth a transport gives at the least, for large messages:
 * a quarter of its slowest common link (25 Gb/s RoCE, 10 GbE, PCIe 3 P2P,
 * shared memory), so that only far lower numbers are reported. */
static bool transport_floor(const model *m, const intset *procs, double *least, const char **name)
{
	unsigned via = 0;
	intset hosts = { 0 };
	for (size_t i = 0; i < procs->n; i++) {
		via |= m->procs[procs->v[i]].transports;
		if (m->procs[procs->v[i]].host >= 0)
			intset_add(&hosts, m->procs[procs->v[i]].host);
	}
	size_t nh = hosts.n;
	intset_free(&hosts);
	if (nh > 1 && (via & (TR_NET_IB | TR_NET_OTHER | TR_COLLNET))) {
		*least = 0.75;
		*name = via & TR_NET_IB ? "NET/IB" : "the network plugin";
		return true;
	}
	if (nh > 1 && (via & TR_NET_SOCKET)) {
		*least = 0.25;
		*name = "NET/Socket";
		return true;
	}
	if (nh == 1 && (via & (TR_P2P | TR_NVLS))) {
		*least = 2.5;
		*name = "P2P";
		return true;
	}
	if (nh == 1 && (via & TR_SHM)) {
		*least = 1.0;
		*name = "SHM";
		return true;
	}
	return false;
}

static void human_size(uint64_t b, strbuf *out)
{
	if (b >= (1u << 30) && b % (1u << 30) == 0)
		sb_printf(out, "%llu GiB", (unsigned long long)(b >> 30));
	else if (b >= (1u << 20) && b % (1u << 20) == 0)
		sb_printf(out, "%llu MiB", (unsigned long long)(b >> 20));
	else if (b >= 1024 && b % 1024 == 0)
		sb_printf(out, "%llu KiB", (unsigned long long)(b >> 10));
	else
		sb_printf(out, "%llu bytes", (unsigned long long)b);
}

static void run_wrong(model *m, const ntrun *r, const intset *procs)
{
	strbuf msg = { 0 }, key = { 0 };
	sb_adds(&msg, run_name(m, r));
	if (r->wrong > 0) {
		sb_printf(&msg, " found %g wrong element%s in %ld of %ld sizes (", r->wrong, r->wrong == 1 ? "" : "s",
			  r->wrong_rows, r->rows);
		human_size(r->wrong_lo, &msg);
		if (r->wrong_hi != r->wrong_lo) {
			sb_adds(&msg, " to ");
			human_size(r->wrong_hi, &msg);
		}
		sb_adds(&msg, ")");
	} else {
		sb_adds(&msg, " reported wrong results");
	}
	if (r->oob > 0)
		sb_printf(&msg, "; Out of bounds values: %ld", r->oob);
	if (procs->n) {
		sb_adds(&msg, "; the run: ");
		model_describe(m, procs, &msg);
	}
	sb_printf(&key, "nt:%d", r->file);
	finding *f = job_finding(m, "nccl-tests-wrong-results", key.p, SEV_ERROR, msg.p,
				 "a collective returned data that differs from what was sent: a GPU, its memory, an NVLink "
				 "or PCIe path or a NIC corrupts data. Run the test on each node alone, then on pairs of "
				 "nodes, to find the component; check the hosts' dmesg for Xid and nvidia-smi -q -d ECC; "
				 "NCCL_PROTO=Simple or NCCL_ALGO=Ring narrows down the path",
				 true);
	sys_place(m, f, procs);
	sys_cite(f, &r->ev_wrong, -1);
	sys_cite(f, &r->ev_oob, -1);
	sys_cite(f, &r->ev_head, -1);
	sb_free(&msg);
	sb_free(&key);
}

static void run_bandwidth(model *m, const ntrun *r, const intset *procs)
{
	double least;
	const char *via;
	if (r->max_size < (32u << 20) || r->max_busbw < 0 || procs->n < 2 || !transport_floor(m, procs, &least, &via))
		return;
	if (r->max_busbw >= least)
		return;
	strbuf msg = { 0 }, key = { 0 };
	sb_printf(&msg, "%s reached %.2f GB/s bus bandwidth at ", run_name(m, r), r->max_busbw);
	human_size(r->max_size, &msg);
	sb_printf(&msg, " over %s (", via);
	model_describe(m, procs, &msg);
	sb_printf(&msg, "): far below what %s gives (%.2f GB/s even on its slowest common links)", via, least * 4);
	sb_printf(&key, "nt-bw:%d", r->file);
	finding *f = job_finding(m, "nccl-tests-low-bandwidth", key.p, SEV_WARNING, msg.p,
				 "compare with the channel lines: NET/IB without GDRDMA, a NET/Socket fallback, a NIC or "
				 "GPU on a far PCIe switch, or NCCL_P2P_DISABLE / NCCL_SHM_DISABLE / NCCL_IB_HCA settings "
				 "slow a run down; run the test per node and per pair of nodes to find the slow link",
				 true);
	f->confidence = CONF_SUSPECTED;
	sys_place(m, f, procs);
	sys_cite(f, &r->ev_max, -1);
	sys_cite(f, &r->ev_bw, -1);
	sb_free(&msg);
	sb_free(&key);
}

/* A run on one host that printed its size table's header and never a row,
 * with no error anywhere: its first collective between those GPUs never
 * completed, the P2P hang (ACS, the IOMMU, GPUs whose driver gives no
 * working peer access). */
static void run_stalled(model *m, const ntrun *r, const intset *procs)
{
	if (r->col == NCCLT_COL_NONE || r->rows > 0 || r->avg_bw >= 0 || r->oob >= 0 || !r->procs.n ||
	    m->ev_excerpt.text || any_error(m))
		return;
	int host = -1;
	for (size_t i = 0; i < procs->n; i++) {
		int h = m->procs[procs->v[i]].host;
		if (h < 0 || (host >= 0 && h != host))
			return;
		host = h;
	}
	strbuf msg = { 0 }, key = { 0 };
	sb_printf(&msg, "%s printed its size table and no result (", run_name(m, r));
	model_describe(m, procs, &msg);
	sb_adds(&msg, "): the first collective between these GPUs never completed, with no error");
	sb_printf(&key, "nt-stall:%d", r->file);
	finding *f = job_finding(m, "p2p-hang-suspect", key.p, SEV_WARNING, msg.p,
				 "as a test (not a fix), run with NCCL_P2P_DISABLE=1; if that works, the GPUs' peer path "
				 "is broken: PCIe ACS (`lspci -vvv | grep ACSCtl`), the IOMMU (`iommu=pt` or off), or a "
				 "driver that gives these GPUs no working P2P (GeForce cards); NCCL_DEBUG=INFO shows the "
				 "channels it set up",
				 true);
	f->confidence = CONF_SUSPECTED;
	sys_place(m, f, procs);
	sys_cite(f, &r->ev_head, -1);
	sb_free(&msg);
	sb_free(&key);
}

void check_nccl_tests(model *m)
{
	for (size_t i = 0; i < m->nnt; i++) {
		const ntrun *r = &m->nt[i];
		intset procs = { 0 };
		run_procs(m, r, &procs);
		if (r->wrong > 0 || r->oob > 0)
			run_wrong(m, r, &procs);
		run_bandwidth(m, r, &procs);
		run_stalled(m, r, &procs);
		intset_free(&procs);
	}
}
