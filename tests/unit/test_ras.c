/* NCCL RAS output: the text status report of 2.24 and of 2.26+, monitor
 * events, NCCL DIAG lines, the JSON report and JSON events, read into
 * items with the processes and ranks they name. */
#include "../../parser/ras.h"
#include "check.h"

typedef struct got {
	ras_item v[32];
	char text[32][160];
	size_t n;
} got;

static const char *const kinds[] = { "none", "version", "group", "member", "missing-proc", "dead", "missing-rank",
				     "error", "behind", "ahead", "status", "timeouts", "event", "diag" };

static void keep(got *g, const ras_item *it)
{
	if (g->n >= 32)
		return;
	g->v[g->n] = *it;
	snprintf(g->text[g->n], sizeof g->text[0], "%s r%ld p%ld %.*s %.*s gpus=%.*s a=%.*s b=%.*s n=%ld,%ld c%d", kinds[it->kind],
		 it->rank, it->pid, (int)it->hash.n, it->hash.p ? it->hash.p : "", (int)it->node.n,
		 it->node.p ? it->node.p : "", (int)it->gpus.n, it->gpus.p ? it->gpus.p : "", (int)it->a.n,
		 it->a.p ? it->a.p : "", (int)it->b.n, it->b.p ? it->b.p : "", it->n[0], it->n[1], it->code);
	g->n++;
}

static void feed(got *g, const char *text)
{
	ras_cursor c = { 0 };
	const char *p = text;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		ras_item it;
		if (ras_text_line(&c, (slice){ p, n }, 0, &it)) {
			keep(g, &it);
			while (ras_text_more(&c, &it))
				keep(g, &it);
		}
		p += n + (e ? 1 : 0);
	}
}

static bool has(const got *g, const char *want)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->text[i], want) == 0)
			return true;
	return false;
}

static void dump(const got *g)
{
	for (size_t i = 0; i < g->n; i++)
		fprintf(stderr, "  got: %s\n", g->text[i]);
}

static void json_cb(void *ctx, const ras_item *it, size_t at)
{
	(void)at;
	keep(ctx, it);
}

int main(void)
{
	checks c = { 0 };
	/* 2.26+, as ncclras prints it (indentation already stripped by the reader) */
	static const char v230[] =
		"NCCL version 2.27.5 compiled with CUDA 12.9\n"
		"CUDA runtime version 12090, driver version 12090\n\n"
		"Job summary\n===========\n\n"
		"Nodes  Processes         GPUs  Processes     GPUs\n"
		"(total)   per node  per process    (total)  (total)\n"
		"2          8            1         16       16\n\n"
		"Communicators... (2.05s)\n=============\n\n"
		"Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
		"#  in group  per comm  per node  per comm  in group\n"
		"0         1         2       7-8        16        16   RUNNING  INCOMPLETE,ERROR\n\n"
		"Errors\n======\n\n"
		"INCOMPLETE\n"
		"Missing communicator data from 1 job process\n"
		"Process 3487984 on node 10.0.0.12 managing GPU 5\n\n"
		"DEAD\n"
		"1 job process is considered dead (unreachable via the RAS network)\n"
		"Process 3487990 on node 10.0.0.12 managing GPUs 6,7\n\n"
		"#0-0 (cf264af53edbe986) INCOMPLETE\n"
		"Missing communicator data from 1 rank\n"
		"Rank 13 -- GPU 5 managed by process 3487984 on node 10.0.0.12\n\n"
		"#0-0 (cf264af53edbe986) ERROR\n"
		"Asynchronous errors on 2 ranks\n"
		"2 ranks reported Remote process error\n"
		"Rank 2 -- GPU 2 managed by process 4001 on node 10.0.0.11\n"
		"Rank 9 reported System error -- GPU 1 (NVML 3) managed by process 5001 on node 10.0.0.12\n\n"
		"Warnings\n========\n\n"
		"TIMEOUT\n"
		"Encountered 2 communication timeouts while gathering communicator data\n\n"
		"#0-0 (27a079b828ff1a75) MISMATCH\n"
		"Communicator ranks have different AllReduce operation counts\n"
		"14 ranks have launched up to operation 6650\n"
		"2 ranks have launched up to operation 6649\n"
		"Rank 0 -- GPU 0 managed by process 483072 on node 10.0.0.11\n"
		"Rank 3 has launched up to operation 6640 -- GPU 3 managed by process 483075 on node 10.0.0.11\n";
	got g = { 0 };
	feed(&g, v230);
	CHECK(&c, has(&g, "version r-1 p-1   gpus= a=2.27.5 b= n=0,0 c0"), "version");
	CHECK(&c, has(&g, "group r-1 p-1   gpus= a=RUNNING b=INCOMPLETE,ERROR n=1,2 c0"), "comm table row");
	CHECK(&c, has(&g, "missing-proc r-1 p3487984  10.0.0.12 gpus=5 a= b= n=0,0 c0"), "process without data");
	CHECK(&c, has(&g, "dead r-1 p3487990  10.0.0.12 gpus=6,7 a= b= n=0,0 c0"), "dead process");
	CHECK(&c, has(&g, "missing-rank r13 p3487984 cf264af53edbe986 10.0.0.12 gpus=5 a= b= n=0,0 c0"), "missing rank");
	CHECK(&c, has(&g, "error r2 p4001 cf264af53edbe986 10.0.0.11 gpus=2 a=Remote process error b= n=0,0 c6"), "error group rank");
	CHECK(&c, has(&g, "error r9 p5001 cf264af53edbe986 10.0.0.12 gpus=1 (NVML 3) a=System error b= n=0,0 c2"), "error rank");
	CHECK(&c, has(&g, "timeouts r-1 p-1   gpus= a= b= n=2,0 c0"), "timeouts");
	CHECK(&c, has(&g, "behind r0 p483072 27a079b828ff1a75 10.0.0.11 gpus=0 a=AllReduce b= n=6649,6650 c0"), "behind, grouped");
	CHECK(&c, has(&g, "behind r3 p483075 27a079b828ff1a75 10.0.0.11 gpus=3 a=AllReduce b= n=6640,6650 c0"), "behind, alone");
	CHECK(&c, g.n == 10, "%zu items", g.n);
	if (c.failed)
		dump(&g);

	/* the group RAS lists is the smaller one, here ahead of the others:
	 * the listed ranks wait for the 30 RAS counts, which are behind */
	got a = { 0 };
	feed(&a, "Warnings\n========\n\n#0-0 (fa93daea854b060b) MISMATCH\n"
		 "  Communicator ranks have different AllGather operation counts\n"
		 "  30 ranks have launched up to operation 640\n  2 ranks have launched up to operation 641\n"
		 "  Rank 12 -- GPU 4 managed by process 323032 on node 10.0.0.24\n"
		 "  Rank 13 -- GPU 5 managed by process 323033 on node 10.0.0.24\n");
	CHECK(&c, a.n == 2, "%zu items for ranks ahead of the others", a.n);
	CHECK(&c, has(&a, "ahead r12 p323032 fa93daea854b060b 10.0.0.24 gpus=4 a=AllGather b= n=641,640 c0"), "rank ahead");
	CHECK(&c, a.n == 2 && a.v[0].n[2] == 30, "the ranks behind are counted");
	if (c.failed)
		dump(&a);

	/* 2.24: missing ranks as a list, status mismatch */
	static const char v224[] =
		"Errors\n======\n\n#0-0 (9e17999afaa87dbb) INCOMPLETE\nMissing communicator data from 3 ranks\n"
		"The missing ranks: 3,5,21\n\nWarnings\n========\n\n#1-0 (0badc0de00000001) MISMATCH\n"
		"Communicator ranks have different status\n26 ranks have status RUNNING\n"
		"2 ranks have status FINALIZE\nRank 4 -- GPU 4 managed by process 507289 on node 10.0.0.10\n";
	got h = { 0 };
	feed(&h, v224);
	CHECK(&c, has(&h, "missing-rank r3 p-1 9e17999afaa87dbb  gpus= a= b= n=0,0 c0") && has(&h, "missing-rank r21 p-1 9e17999afaa87dbb  gpus= a= b= n=0,0 c0"), "2.24 rank list");
	CHECK(&c, has(&h, "status r4 p507289 0badc0de00000001 10.0.0.10 gpus=4 a=FINALIZE b=RUNNING n=0,0 c0"), "status mismatch");
	if (c.failed)
		dump(&h);

	/* a "Process" line outside a block says nothing; neither do other logs */
	got z = { 0 };
	feed(&z, "Process 12 on node a managing GPU 1\nRank 3 -- GPU 1 managed by process 2 on node b\nDEAD\n"
		 "Epoch 3: 100%|##########| loss=0.1\nNCCL version 2.21.5+cuda12.4\nINFO: Errors: none\n");
	CHECK(&c, z.n == 0, "%zu items from no report", z.n);

	/* monitor mode, DIAG */
	got m = { 0 };
	feed(&m, "RAS Monitor Mode - watching for peer changes (Ctrl+C to exit)...\n"
		 "PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1 \n"
		 "PEER_CONNECTING: 10.0.0.9<28028> \n"
		 "PEER_RECOVERED: Process 77 on node 10.0.0.9 managing GPU 0 peer responding again\n"
		 "node042:12345 NCCL DIAG === RAS Diagnostics ===\n"
		 "node042:12345 NCCL DIAG [INFO] NCCL environment: NCCL_DEBUG=WARN on rank(s) {4,5,6,7}\n"
		 "NCCL DIAG [OK]   p2p: verified P2P access in both directions between every GPU pair (56 peer accesses)\n"
		 "NCCL DIAG NCCL diagnostics completed in 245.3 ms across 8 ranks\n");
	CHECK(&c, has(&m, "dead r-1 p1524345  172.16.64.245 gpus=1 a=PEER_DEAD b= n=0,0 c0"), "PEER_DEAD");
	CHECK(&c, has(&m, "event r-1 p-1  10.0.0.9 gpus= a=PEER_CONNECTING b= n=0,0 c0"), "event by address");
	CHECK(&c, has(&m, "event r-1 p77  10.0.0.9 gpus=0 a=PEER_RECOVERED b=peer responding again n=0,0 c0"), "event details");
	CHECK(&c, has(&m, "diag r-1 p12345  node042 gpus= a=NCCL environment b=NCCL_DEBUG=WARN on rank(s) {4,5,6,7} n=0,0 c1"), "DIAG INFO");
	CHECK(&c, has(&m, "diag r-1 p-1   gpus= a=p2p b=verified P2P access in both directions between every GPU pair (56 peer accesses) n=0,0 c0"), "DIAG OK");
	CHECK(&c, m.n == 5, "%zu monitor items", m.n);
	if (c.failed)
		dump(&m);

	/* JSON */
	static const char rep[] =
		"{\n  \"nccl_version\": \"2.29.1\",\n  \"cuda_runtime_version\": 13000,\n  \"cuda_driver_version\": 13000,\n"
		"  \"timestamp\": \"2025-12-19 13:06:53\",\n  \"communicators_count\": 1,\n  \"communicators\": [\n    {\n"
		"      \"hash\": \"0xae94423cfbb2ef4a\",\n      \"size\": 3,\n      \"ranks_count\": 2,\n      \"missing_ranks_count\": 1,\n"
		"      \"ranks\": [\n        {\"rank\": 0, \"host\": \"10.0.0.1\", \"pid\": 11, \"cuda_dev\": 0, \"nvml_dev\": 0,\n"
		"         \"status\": {\"init_state\": 0, \"async_error\": 6}, \"collective_counts\": {\"AllReduce\": 10, \"Broadcast\": 1}},\n"
		"        {\"rank\": 1, \"host\": \"10.0.0.1\", \"pid\": 12, \"cuda_dev\": 1, \"nvml_dev\": 1,\n"
		"         \"status\": {\"init_state\": 0, \"async_error\": 0}, \"collective_counts\": {\"AllReduce\": 9, \"Broadcast\": 1}}\n"
		"      ],\n      \"missing_ranks\": [\n        {\"rank\": 2, \"host\": \"10.0.0.2\", \"pid\": 13, \"cuda_dev\": 0, \"nvml_dev\": 0,\n"
		"         \"status\": {\"unresponsive\": true, \"considered_dead\": true}}\n      ]\n    }\n  ],\n"
		"  \"ras\": {\"collection_time_sec\": 0.5, \"timeouts_count\": 1}\n}\n";
	got j = { 0 };
	strbuf err = { 0 };
	CHECK(&c, ras_json_sniff((const unsigned char *)rep, sizeof rep - 1) == RAS_JSON_REPORT, "sniff report");
	CHECK(&c, ras_json_read(rep, sizeof rep - 1, json_cb, &j, &err) == 0, "read report: %s", err.p ? err.p : "");
	CHECK(&c, has(&j, "version r-1 p-1   gpus= a=2.29.1 b= n=0,0 c0"), "JSON version");
	CHECK(&c, has(&j, "member r1 p12 ae94423cfbb2ef4a 10.0.0.1 gpus=1 a= b= n=0,0 c0"), "JSON member");
	CHECK(&c, has(&j, "error r0 p11 ae94423cfbb2ef4a 10.0.0.1 gpus=0 a=asynchronous error b= n=0,0 c6"), "JSON async error");
	CHECK(&c, has(&j, "behind r1 p12 ae94423cfbb2ef4a 10.0.0.1 gpus= a=AllReduce b= n=9,10 c0") || has(&j, "behind r1 p12 ae94423cfbb2ef4a 10.0.0.1 gpus=1 a=AllReduce b= n=9,10 c0"), "JSON behind");
	CHECK(&c, has(&j, "missing-rank r2 p13 ae94423cfbb2ef4a 10.0.0.2 gpus=0 a= b= n=0,0 c1"), "JSON missing, dead");
	CHECK(&c, has(&j, "timeouts r-1 p-1   gpus= a= b= n=1,0 c0"), "JSON timeouts");
	if (c.failed)
		dump(&j);
	static const char ev[] =
		"RAS Monitor Mode - watching for peer changes (Ctrl+C to exit)...\n"
		"================================================================\n"
		"{\n  \"timestamp\": \"2025-12-19 13:07:07\",\n  \"group\": \"LIFECYCLE\",\n  \"event\": \"PEER_DEAD\",\n"
		"  \"peer\": {\n    \"host\": \"172.16.64.245\",\n    \"pid\": 1524345,\n    \"cuda_devs\": [1],\n    \"nvml_devs\": [1]\n  },\n"
		"  \"details\": \"\"\n}\n{\n  \"timestamp\": \"2025-12-19 13:07:09\",\n  \"group\": \"LIFECYCLE\",\n"
		"  \"event\": \"PEER_CONNECTING\",\n  \"peer\": {\n    \"addr\": \"10.0.0.9<28028>\"\n  },\n  \"details\": \"\"\n}\n";
	got e = { 0 };
	CHECK(&c, ras_json_sniff((const unsigned char *)ev, sizeof ev - 1) == RAS_JSON_EVENTS, "sniff events");
	CHECK(&c, ras_json_read(ev, sizeof ev - 1, json_cb, &e, &err) == 0, "read events: %s", err.p ? err.p : "");
	CHECK(&c, e.n == 2 && has(&e, "dead r-1 p1524345  172.16.64.245 gpus=1 a=PEER_DEAD b= n=0,0 c0") && has(&e, "event r-1 p-1  10.0.0.9 gpus= a=PEER_CONNECTING b= n=0,0 c0"), "JSON events");
	CHECK(&c, e.v[0].time > 1.7e9, "event time");
	if (c.failed)
		dump(&e);
	/* device lists from a hostile report: no cast of what is not a device
	 * index, and a long list stops at the buffer */
	static const char odd[] = "{\"timestamp\": \"2025-12-19 13:07:07\", \"group\": \"LIFECYCLE\", \"event\": \"PEER_DEAD\", "
				  "\"peer\": {\"host\": \"h\", \"pid\": 1, \"cuda_devs\": [1e300, 3, -1, 2.5e20, 7]}, \"details\": \"\"}\n";
	got o = { 0 };
	CHECK(&c, ras_json_read(odd, sizeof odd - 1, json_cb, &o, &err) == 0 && o.n == 1 && has(&o, "dead r-1 p1  h gpus=3,7 a=PEER_DEAD b= n=0,0 c0"),
	      "odd device list");
	if (c.failed)
		dump(&o);
	strbuf many = { 0 };
	sb_adds(&many, "{\"timestamp\": \"2025-12-19 13:07:07\", \"group\": \"LIFECYCLE\", \"event\": \"PEER_DEAD\", \"peer\": {\"host\": \"h\", \"pid\": 1, \"cuda_devs\": [");
	for (int i = 0; i < 400; i++)
		sb_printf(&many, "%s%d", i ? ", " : "", 100000000 + i);
	sb_adds(&many, "]}, \"details\": \"\"}\n");
	got l = { 0 };
	CHECK(&c, ras_json_read(many.p, many.n, json_cb, &l, &err) == 0 && l.n == 1, "long device list");
	sb_free(&many);
	const char *broken[] = { "{\"nccl_version\": \"2.29.1\", \"communicators\": [", "{\"a\": 1}", "{} garbage", "" };
	for (size_t i = 0; i < 3; i++) {
		got x = { 0 };
		sb_clear(&err);
		CHECK(&c, ras_json_read(broken[i], strlen(broken[i]), json_cb, &x, &err) != 0 && err.n, "'%s' accepted", broken[i]);
	}
	CHECK(&c, ras_error_code(slice_from("Remote process error")) == 6 && ras_error_code(slice_from("Unexpected error")) == 0, "error codes");
	sb_free(&err);
	return check_done(&c, "ras");
}
