/* The job model over real samples: ranks and hosts resolved, the interface
 * hint computed from the logs, and the checks idempotent (live mode reruns
 * them as input arrives). */
#include <dirent.h>
#include <stdlib.h>

#include "../../model/pipeline.h"
#include "../../util/fileio.h"
#include "check.h"

typedef struct env {
	catalog cat;
	ruleset rs;
} env;

static void env_load(checks *c, env *e, const char *rules)
{
	strbuf err = { 0 }, path = { 0 };
	sb_printf(&path, "%s/catalog.json", rules);
	CHECK(c, catalog_load(&e->cat, path.p, &err) == 0, "catalog: %s", err.p);
	ruleset_init(&e->rs, &e->cat, model_tag_names);
	CHECK(c, ruleset_load(&e->rs, rules, &err) == 0, "rules: %s", err.p);
	ruleset_finish(&e->rs);
	sb_free(&err);
	sb_free(&path);
}

static void feed_dir(model *m, ruleset *rs, const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			strbuf p = { 0 }, err = { 0 };
			char *text;
			size_t len;
			sb_printf(&p, "%s/%s", dir, names[i]->d_name);
			if (file_slurp(p.p, &text, &len, &err) == 0) {
				pipeline pl;
				pipeline_begin(&pl, m, rs, model_add_input(m, p.p));
				/* in odd-sized pieces: records torn across reads */
				for (size_t o = 0; o < len; o += 777)
					pipeline_feed(&pl, text + o, len - o < 777 ? len - o : 777);
				pipeline_end(&pl);
				free(text);
			}
			sb_free(&p);
			sb_free(&err);
		}
		free(names[i]);
	}
	free(names);
}

static finding *find(model *m, const char *id)
{
	return findings_find(&m->fs, id);
}

static void test_scenario(checks *c, env *e, const char *samples)
{
	model m;
	model_init(&m, &e->cat);
	strbuf dir = { 0 };
	sb_printf(&dir, "%s/lightning-2node-docker0", samples);
	feed_dir(&m, &e->rs, dir.p);
	model_check(&m);
	size_t n1 = m.fs.n;
	model_check(&m);
	CHECK(c, m.fs.n == n1, "checks are idempotent: %zu then %zu findings", n1, m.fs.n);
	finding *v = find(&m, "socket-iface-virtual");
	CHECK(c, v && v->severity == SEV_ERROR, "docker0 flagged as an error");
	CHECK(c, v && v->hint && strstr(v->hint, "NCCL_SOCKET_IFNAME=eth1"), "hint: %s", v && v->hint ? v->hint : "");
	CHECK(c, v && v->procs.n == 4, "four processes on node-b");
	for (size_t i = 0; v && i < v->procs.n; i++) {
		CHECK(c, strcmp(model_host(&m, v->procs.v[i]), "node-b") == 0, "host of %d", v->procs.v[i]);
		int r = model_proc_rank(&m, v->procs.v[i]);
		CHECK(c, r >= 4 && r <= 7, "rank %d", r);
	}
	jobinfo j;
	model_jobinfo(&m, &j);
	CHECK(c, j.nranks == 8 && j.ranks_seen == 8 && j.hosts.n == 2, "job %d/%d on %zu hosts", j.ranks_seen, j.nranks, j.hosts.n);
	CHECK(c, j.versions.n == 1, "one NCCL version, %zu", j.versions.n);
	jobinfo_free(&j);
	int ff = model_first_failure(&m);
	CHECK(c, ff >= 0 && model_proc_rank(&m, ff) == 0, "first failure on rank 0");
	/* evidence lines can be found again by offset */
	for (size_t i = 0; v && i < v->nev; i++) {
		char *text;
		size_t len;
		strbuf err = { 0 };
		int f = v->ev[i].file;
		if (f >= 0 && file_slurp(m.in[f].name, &text, &len, &err) == 0) {
			const char *l = text;
			for (uint64_t k = 1; k < v->ev[i].line; k++)
				l = strchr(l, '\n') + 1;
			CHECK(c, strncmp(l, v->ev[i].text, strlen(v->ev[i].text)) == 0 || strstr(l, v->ev[i].text),
			      "evidence %zu is line %llu", i, (unsigned long long)v->ev[i].line);
			free(text);
		}
		sb_free(&err);
	}
	model_free(&m);
	sb_free(&dir);
}

/* One stream or eight files: the same processes and ranks. */
static void test_interleaved(checks *c, env *e, const char *samples)
{
	model m;
	model_init(&m, &e->cat);
	strbuf dir = { 0 };
	sb_printf(&dir, "%s/lightning-2node-docker0-srun", samples);
	feed_dir(&m, &e->rs, dir.p);
	model_check(&m);
	int real = 0;
	intset ranks = { 0 };
	for (size_t i = 0; i < m.nprocs; i++)
		if (m.procs[i].pid >= 0) {
			real++;
			intset_add(&ranks, model_proc_rank(&m, (int)i));
		}
	CHECK(c, real == 8 && ranks.n == 8, "8 processes (%d), 8 ranks (%zu)", real, ranks.n);
	for (size_t i = 0; i < m.nprocs; i++)
		if (m.procs[i].pid >= 0 && m.procs[i].lrank >= 0)
			CHECK(c, m.procs[i].lrank == m.procs[i].rank, "srun label %d is rank %d", m.procs[i].lrank, m.procs[i].rank);
	intset_free(&ranks);
	model_free(&m);
	sb_free(&dir);
}

/* A model of the given log text, checked. */
static void feed_text(model *m, env *e, const char *text)
{
	model_init(m, &e->cat);
	pipeline pl;
	pipeline_begin(&pl, m, &e->rs, model_add_input(m, "text.log"));
	pipeline_feed(&pl, text, strlen(text));
	pipeline_end(&pl);
	model_check(m);
}

/* lo is an error across hosts or next to a failure; on a one-host excerpt
 * that failed nowhere it is a warning. */
static void test_loopback(checks *c, env *e)
{
	const char *init =
		"hosta:100:100 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n"
		"hosta:100:100 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n"
		"NCCL version 2.5.6+cuda10.2\n"
		"hosta:101:101 [1] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n";
	model m;
	feed_text(&m, e, init);
	finding *f = find(&m, "socket-iface-loopback");
	CHECK(c, f && f->severity == SEV_WARNING, "one host, no failure: warning (%d)", f ? (int)f->severity : -1);
	model_free(&m);

	strbuf t = { 0 };
	sb_printf(&t, "%s%s", init,
		  "hostb:200:200 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n");
	feed_text(&m, e, t.p);
	f = find(&m, "socket-iface-loopback");
	CHECK(c, f && f->severity == SEV_ERROR, "two hosts: error (%d)", f ? (int)f->severity : -1);
	model_free(&m);

	sb_clear(&t);
	sb_printf(&t, "%s%s", init,
		  "hosta:100:120 [0] misc/socket.cc:409 NCCL WARN Net : Connect to 10.0.0.9<41234> failed : Connection refused\n");
	feed_text(&m, e, t.p);
	f = find(&m, "socket-iface-loopback");
	CHECK(c, f && f->severity == SEV_ERROR, "next to a failure: error (%d)", f ? (int)f->severity : -1);
	model_free(&m);
	sb_free(&t);
}

/* Watchdog numbers are compared only where they can be of one group. */
static void test_straggler_groups(checks *c, env *e)
{
	const char *a =
		"[rank2]:[E218 04:54:22.864467604 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
		"timeout: WorkNCCL(SeqNum=300, OpType=ALLTOALL_BASE, NumelIn=64, NumelOut=64, Timeout(ms)=600000) ran for "
		"600045 milliseconds before timing out.\n"
		"[rank2]:[E218 04:54:22.864535778 ProcessGroupNCCL.cpp:1795] [PG ID 3 PG GUID 7 Rank 0] Exception (either an "
		"error or timeout) detected by watchdog at work: 300, last enqueued NCCL work: 302, last completed NCCL work: 299.\n";
	const char *behind_other_group =
		"[rank3]:[E218 04:54:22.883327702 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
		"timeout: WorkNCCL(SeqNum=40, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for "
		"600045 milliseconds before timing out.\n"
		"[rank3]:[E218 04:54:22.883358915 ProcessGroupNCCL.cpp:1795] [PG ID 3 PG GUID 5 Rank 1] Exception (either an "
		"error or timeout) detected by watchdog at work: 40, last enqueued NCCL work: 40, last completed NCCL work: 39.\n";
	const char *behind_same_group =
		"[rank3]:[E218 04:54:22.883358915 ProcessGroupNCCL.cpp:1795] [PG ID 3 PG GUID 7 Rank 1] Exception (either an "
		"error or timeout) detected by watchdog at work: 299, last enqueued NCCL work: 299, last completed NCCL work: 299.\n";
	strbuf t = { 0 };
	model m;
	sb_printf(&t, "%s%s", a, behind_other_group);
	feed_text(&m, e, t.p);
	CHECK(c, !find(&m, "straggler-rank") && !find(&m, "collective-desync"), "numbers of two groups: no straggler, no desync");
	CHECK(c, find(&m, "watchdog-timeout") != NULL, "the timeouts are still reported");
	model_free(&m);
	sb_clear(&t);
	sb_printf(&t, "%s%s", a, behind_same_group);
	feed_text(&m, e, t.p);
	CHECK(c, find(&m, "straggler-rank") != NULL, "one group, a rank that never started the collective: a straggler");
	model_free(&m);
	sb_free(&t);
}

/* A virtual interface is told by its name's prefix, the whole prefix. */
static void test_iface_virtual(checks *c)
{
	const char *yes[] = { "docker0", "veth75fa783", "virbr0", "br-1a2b", "cni0", "flannel.1", "cali123", "tun0", "tap1",
			      "wg0", "tailscale0", "vxlan.calico", "wlan0", "cilium_host", "lxcbr0", "kube-ipvs0", "podman0" };
	const char *no[] = { "eth0", "ens1f0", "ib0", "bond0", "br0", "enp65s0", "lo", "", "d", "docke", "vet", "wx0" };
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		CHECK(c, model_iface_virtual(yes[i]), "%s is virtual", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		CHECK(c, !model_iface_virtual(no[i]), "'%s' is not", no[i]);
}

/* Each channel line's transports, whichever line came before: the same
 * path again, another of the same length, another process's. */
static void test_transports(checks *c, env *e)
{
	const char *text = "hosta:100:100 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
			   "hosta:100:100 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/IPC\n"
			   "hosta:100:100 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[1] via SHM/dir\n"
			   "hostb:200:200 [0] NCCL INFO Channel 00/0 : 1[0] -> 2[0] [send] via NET/IB/0\n"
			   "hostc:300:300 [0] NCCL INFO Channel 00/0 : 2[0] -> 3[0] [send] via NET/IB/0\n";
	model m;
	feed_text(&m, e, text);
	unsigned t[3] = { 0, 0, 0 };
	for (size_t i = 0; i < m.nprocs; i++) {
		const char *h = model_host(&m, (int)i);
		if (h && h[0] == 'h' && h[4] >= 'a' && h[4] <= 'c')
			t[h[4] - 'a'] |= m.procs[i].transports;
	}
	CHECK(c, t[0] == (TR_P2P | TR_SHM), "hosta: P2P and SHM (%u)", t[0]);
	CHECK(c, t[1] == TR_NET_IB && t[2] == TR_NET_IB, "hostb and hostc: IB (%u, %u)", t[1], t[2]);
	model_free(&m);
}

int main(int argc, char **argv)
{
	checks cc = { 0 }, *c = &cc;
	if (argc < 3) {
		fprintf(stderr, "usage: test_model RULES_DIR SAMPLES_DIR\n");
		return 2;
	}
	env e = { 0 };
	env_load(c, &e, argv[1]);
	test_scenario(c, &e, argv[2]);
	test_interleaved(c, &e, argv[2]);
	test_loopback(c, &e);
	test_straggler_groups(c, &e);
	test_iface_virtual(c);
	test_transports(c, &e);
	ruleset_free(&e.rs);
	catalog_free(&e.cat);
	return check_done(c, "model");
}
