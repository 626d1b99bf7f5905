/* Reassembly: which lines go on the line before them, how the pieces of a
 * hard-wrapped or word-wrapped paste are joined, and a wrapped WARN and
 * watchdog line going through the whole pipeline with every physical line
 * cited. */
#include <stdlib.h>

#include "../../model/pipeline.h"
#include "check.h"

static bool cont(const char *s)
{
	return join_continues(slice_from(s), SLICE_NONE);
}

static void test_continues(checks *c)
{
	CHECK(c, cont("iled : Connection refused"), "the rest of a cut word");
	CHECK(c, cont("    0, vendor err 129 (Recv)"), "indented rest");
	CHECK(c, cont(": 20585 PG status: last enqueued work: 20589"), "rest after a colon");
	CHECK(c, !cont(""), "a blank line ends a record");
	CHECK(c, !cont("   "), "blanks only");
	CHECK(c, !cont("node-a:1234:5678 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>"), "an NCCL record");
	CHECK(c, !cont("[0] misc/socket.cc:71 NCCL WARN socketStartConnect: Connect to"), "a stripped record");
	CHECK(c, !cont("3: node-a:1234:5678 [0] NCCL INFO x"), "srun label");
	CHECK(c, !cont("[1,3]<stderr>:rest"), "mpirun tag");
	CHECK(c, !cont("[rank3]:[E ProcessGroupNCCL.cpp:1537] timeout"), "torchrun prefix");
	CHECK(c, !cont("2025-03-12 10:22:33,120 INFO step"), "a timestamp");
	CHECK(c, !cont("E0709 17:05:38.162555 1234 run.py:12] x"), "glog");
	CHECK(c, !cont("[E ProcessGroupNCCL.cpp:456] Some NCCL operations have failed"), "c10 level");
	CHECK(c, !cont("Traceback (most recent call last):"), "traceback");
	CHECK(c, !cont("  File \"train.py\", line 3, in <module>"), "a frame");
	CHECK(c, !cont("RuntimeError: NCCL error in: x"), "an exception");
	CHECK(c, !cont("torch.distributed.DistBackendError: NCCL error"), "a dotted exception");
	CHECK(c, !cont("#  Rank  0 Group  0 Pid  1 on h device  0 [0x02] GPU"), "a table row");
	CHECK(c, !cont("progress 10%\r20%"), "a progress bar");
	CHECK(c, !cont("node-a7: rest"), "pdsh's host prefix, with no head known");
	CHECK(c, join_continues(slice_from("x5_0: mlx5dv_create_qp failed"), slice_from("h:1:2 [0] NCCL WARN NET/IB: ml")),
	      "a word with a colon after a head without a host prefix");
	CHECK(c, !join_continues(slice_from("> node01:"), slice_from("> node01: h:1:2 [0] NCCL WARN NET/IB : Got async event : GID table change")),
	      "an empty line of the same pdsh stream is a line of its own");
	CHECK(c, !join_continues(slice_from("node01:  "), slice_from("node01: h:1:2 [0] NCCL WARN NET/IB : Got async event : GID table change")),
	      "padded as well");
	CHECK(c, join_continues(slice_from("mlx5_0:"), slice_from("h:1:2 [0] NCCL WARN NET/IB : a message that a terminal cut on")),
	      "a word and a colon goes on a line without a pdsh label");
	CHECK(c, !join_continues(slice_from("node-a7: h:1:2 [0] NCCL INFO x"), slice_from("node-a6: h:1:2 [0] NCCL INFO y")),
	      "the next pdsh line");
	CHECK(c, cont("WARN DOCA Error 12"), "the level word after a break before it");
	CHECK(c, !cont("[...]"), "a paste's cut mark");
	CHECK(c, !cont("  [ ... ]  "), "an indented cut mark");
	CHECK(c, !cont("..."), "dots alone");
	CHECK(c, !cont("<snip>"), "a snip mark");
	CHECK(c, cont("... 4 more"), "dots that begin the rest of a line");
	CHECK(c, !cont("> "), "a quoted blank line");
	CHECK(c, !cont(">"), "a quote mark alone");
	CHECK(c, !cont("> node-a:1234:5678 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>"), "a quoted NCCL record");
	CHECK(c, cont("> iled : Connection refused"), "the quoted rest of a cut word");
	CHECK(c, !cont("[0607/1024][2025-02-16 22:31:34,418] [misc/socket.cc:586] [s12gn3064:pid=3942411] NCCL WARN socketPollConnect poll() returned 1"),
	      "a record in a logger's own format");
	CHECK(c, cont("with NCCL and its WARNs"), "NCCL and a level word apart are words");
	CHECK(c, !cont("voicec105:9"), "a torn NCCL prefix ending a cut paste");
	CHECK(c, !cont("gpu-node-07:4133:41"), "a torn NCCL prefix with its tid started");
	CHECK(c, cont("10.0.0.2<41234> failed : Connection refused"), "an address is no torn prefix");
	CHECK(c, !cont("5"), "a log viewer's line number");
	CHECK(c, !cont("  1207 "), "a padded line number");
	{
		char w80[81];
		memset(w80, 'x', 80);
		w80[80] = '\0';
		CHECK(c, join_continues(slice_from("129"), slice_from(w80)), "digits cut off a line that filled 80 columns");
	}
}

static void test_joining(checks *c)
{
	joiner *j = calloc(1, sizeof *j);
	/* a terminal cut at 80 columns, mid-word */
	const char *a = "host-a:1:2 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.fa";
	CHECK(c, strlen(a) == 80, "the head is 80 wide");
	join_start(j, slice_from(a), 10, 100);
	CHECK(c, join_add(j, slice_from("iled"), 11, 181), "added");
	CHECK_SLICE(c, join_text(j), "host-a:1:2 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.failed",
		    "mid-word at a terminal width");
	CHECK(c, j->tight == 2 && j->direct == 2, "a tight joint read mid-word (%x %x)", j->tight, j->direct);
	CHECK(c, j->nparts == 2 && j->part[1].no == 11 && j->part[1].off == 181, "part 2 is line 11");
	CHECK(c, join_flip(j, 1), "the other reading");
	CHECK_SLICE(c, join_text(j), "host-a:1:2 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.fa iled",
		    "word-wrap reading");
	CHECK_SLICE(c, ((slice){ j->buf + j->part[1].at, j->part[1].n }), "iled", "part 2 moved with its text");
	CHECK(c, join_flip(j, 1) && j->n == 84, "and back (%zu)", j->n);
	CHECK(c, !join_flip(j, 0) && !join_flip(j, 2), "only joints that exist");

	/* an issue box: padded to its width, the next line indented */
	join_start(j, slice_from("node:1:2 [0] NCCL WARN NET/IB : Got completion from peer   "), 1, 0);
	join_add(j, slice_from("  10.0.0.2<1234> with error 12"), 2, 70);
	CHECK_SLICE(c, join_text(j), "node:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1234> with error 12",
		    "padding and indentation become one blank");
	CHECK(c, !j->tight && !join_flip(j, 1), "no other reading at a blank");

	/* a word wrap at a width that is no terminal's: a blank by default */
	join_start(j, slice_from("abcdefghij klmnopqrst uvwxyzabcd efghijklmn opqrstuvwx yzabcdefg"), 1, 0);
	join_add(j, slice_from("hijk"), 2, 70);
	CHECK_SLICE(c, join_text(j), "abcdefghij klmnopqrst uvwxyzabcd efghijklmn opqrstuvwx yzabcdefg hijk", "blank between words");
	CHECK(c, j->tight == 2 && j->direct == 0, "tight, read as a word wrap");

	/* a wrap breaks where the next word does not fit: a line that the next
	 * word fits behind, at the width the next line shows, ended there */
	join_start(j, slice_from("gpu-b05:18817:18817 [0] NCCL INFO Using network IB"), 1, 0);
	CHECK(c, !join_add(j, slice_from("step 10/2000 | loss 9.8721 | lr 1.50e-05 | 412.3 TFLOPS | 1.92 s/step"), 2, 52),
	      "a wider line whose first word fits behind the line before is a line of its own");
	CHECK(c, j->nparts == 1, "nothing added (%d parts)", j->nparts);
	join_start(j, slice_from("gpu-b05:18817:18817 [0] NCCL INFO NET/IB : Got completion from peer"), 1, 0);
	CHECK(c, join_add(j, slice_from("10.0.0.2<1234> with error 12"), 2, 70),
	      "a shorter line goes on the one before");
	join_start(j, slice_from("gpu-b05:18817:18817 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to"), 1, 0);
	CHECK(c, join_add(j, slice_from("10.0.0.2<44321> failed : Connection refused; the peer might not be up yet, or a firewall"), 2, 90),
	      "a wider line whose first word would not have fit goes on");

	/* bounded */
	char w97[98];
	memset(w97, 'x', 97);
	w97[97] = 0;
	join_start(j, slice_from(w97), 1, 0);
	int added = 0;
	while (join_add(j, slice_from(w97), 2, 0))
		added++;
	CHECK(c, added == JOIN_MAX_PARTS - 1, "at most %d parts, got %d", JOIN_MAX_PARTS, added + 1);
	CHECK(c, !join_open(j), "full: no more parts");
	free(j);
}

static void unlink_is(checks *c, const char *in, const char *want)
{
	char out[512];
	size_t n = join_unlink(slice_from(in), out, sizeof out);
	if (!want)
		CHECK(c, n == 0, "'%s' has no link to undo, got '%.*s'", in, (int)n, out);
	else
		CHECK_SLICE(c, ((slice){ out, n }), want, in);
}

static void test_unlink(checks *c)
{
	unlink_is(c, "h:1:2 [0] transport/[net_ib.cc:101](http://net_ib.cc:101/) NCCL WARN NET/IB : x",
		  "h:1:2 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : x");
	unlink_is(c, "Got completion from peer [10.1.3.201](http://10.1.3.201/)<33057> with status=9",
		  "Got completion from peer 10.1.3.201<33057> with status=9");
	unlink_is(c, "Bootstrap : Using eth0:10.0.0.5<http://10.0.0.5><0>", "Bootstrap : Using eth0:10.0.0.5<0>");
	unlink_is(c, "connect to <http://10.0.0.5/><0> failed", "connect to 10.0.0.5<0> failed");
	unlink_is(c, "node-a<http://node-a>:1:2 [0] NCCL INFO x", "node-a:1:2 [0] NCCL INFO x");
	unlink_is(c, "peer <http://node-b.example|node-b.example> closed", "peer node-b.example closed");
	unlink_is(c, "see <https://pytorch.org/docs/stable/distributed.html> for more",
		  "see https://pytorch.org/docs/stable/distributed.html for more");
	/* NCCL's own brackets and angle brackets are no links */
	unlink_is(c, "h:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.5<0> [1]ib0:10.1.0.5<0>", NULL);
	unlink_is(c, "NCCL INFO Channel 00/02 : 0 1 via P2P/IPC [rank0]: see http://x.y/", NULL);
	unlink_is(c, "[rank0](not a link) <33057>", NULL);
	unlink_is(c, "[unclosed](http://a.b", NULL);
}

static void test_unmark(checks *c)
{
	char out[512];
	bool whole;
	size_t n = join_unmark(slice_from("`misc/ibvwrap.cc:206 NCCL WARN Call to ibv_modify_qp failed with error Invalid argument`"),
			       out, sizeof out, &whole);
	CHECK_SLICE(c, ((slice){ out, n }), "misc/ibvwrap.cc:206 NCCL WARN Call to ibv_modify_qp failed with error Invalid argument",
		    "a line quoted as one code span");
	CHECK(c, whole, "a code span is a whole line");
	n = join_unmark(slice_from("  `h:1:2 [0] NCCL INFO NET/IB : Using [0]irdma0:1/RoCE [RO]; `  "), out, sizeof out, &whole);
	CHECK_SLICE(c, ((slice){ out, n }), "h:1:2 [0] NCCL INFO NET/IB : Using [0]irdma0:1/RoCE [RO]; ", "padded span");
	n = join_unmark(slice_from("the `NCCL_IB_HCA` and `NCCL_SOCKET_IFNAME` settings"), out, sizeof out, &whole);
	CHECK(c, n == 0 && !whole, "spans inside a line are left alone");
	n = join_unmark(slice_from("```"), out, sizeof out, &whole);
	CHECK(c, n == 0 && !whole, "a fence is no span");
	CHECK(c, !join_continues(slice_from("```"), slice_from("h:1:2 [0] NCCL WARN a line of a log that is wide enough to go on")),
	      "a closing code fence is a line of its own");
}

typedef struct env {
	catalog cat;
	ruleset rs;
} env;

static model *analyze_text(env *e, const char *text, size_t piece)
{
	model *m = calloc(1, sizeof *m);
	model_init(m, &e->cat);
	pipeline p;
	pipeline_begin(&p, m, &e->rs, model_add_input(m, "t.log"));
	size_t n = strlen(text);
	for (size_t o = 0; o < n; o += piece)
		pipeline_feed(&p, text + o, n - o < piece ? n - o : piece);
	pipeline_end(&p);
	model_check(m);
	return m;
}

/* The same, each read ending at a newline. */
static model *analyze_lines(env *e, const char *text)
{
	model *m = calloc(1, sizeof *m);
	model_init(m, &e->cat);
	pipeline p;
	pipeline_begin(&p, m, &e->rs, model_add_input(m, "t.log"));
	for (const char *q = text; *q;) {
		const char *nl = strchr(q, '\n');
		size_t n = nl ? (size_t)(nl - q) + 1 : strlen(q);
		pipeline_feed(&p, q, n);
		q += n;
	}
	pipeline_end(&p);
	model_check(m);
	return m;
}

static void drop(model *m)
{
	model_free(m);
	free(m);
}

static void test_ahead(checks *c, env *e);
static void test_redrawn(checks *c, env *e);

static void test_pipeline(checks *c, const char *rules)
{
	env e = { 0 };
	strbuf err = { 0 }, path = { 0 };
	sb_printf(&path, "%s/catalog.json", rules);
	CHECK(c, catalog_load(&e.cat, path.p, &err) == 0, "catalog: %s", err.p);
	ruleset_init(&e.rs, &e.cat, model_tag_names);
	CHECK(c, ruleset_load(&e.rs, rules, &err) == 0, "rules: %s", err.p);
	ruleset_finish(&e.rs);
	/* a WARN cut by a terminal at 80 columns: read whole, every line cited */
	const char *warn = "node-b:4711:4800 [1] transport/net_ib.cc:2317 NCCL WARN NET/IB: Got completion f\n"
			   "rom peer 10.1.0.12<46107> with status=12 opcode=0 len=0 vendor err 129 (Send) lo\n"
			   "calGid ::ffff:10.1.0.11 hca mlx5_1\n"
			   "node-b:4711:4800 [1] NCCL INFO transport/net_ib.cc:2394 -> 6\n";
	for (size_t piece = 1; piece <= 4096; piece *= 8) {
		model *m = analyze_text(&e, warn, piece);
		finding *f = findings_find(&m->fs, "ib-completion-error");
		CHECK(c, f != NULL, "the wrapped WARN is understood (pieces of %zu)", piece);
		if (f) {
			CHECK(c, f->nev == 3, "three physical lines cited, got %zu", f->nev);
			CHECK(c, f->nev == 3 && f->ev[0].line == 1 && f->ev[1].line == 2 && f->ev[2].line == 3,
			      "lines 1-3 in order");
		}
		CHECK(c, findings_find(&m->fs, "nccl-warn") == NULL, "no catch-all for an understood WARN");
		drop(m);
	}
	/* a literal that the break cut in two, in a line without any other hit */
	const char *watchdog = /* cut at 120 columns: "WorkN" | "CCL(" */
		"[rank1]:[E1107 09:40:34.685295463 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkN\n"
		"CCL(SeqNum=20585, OpType=ALLREDUCE, NumelIn=1259621, NumelOut=1259621, Timeout(ms)=600000) ran for 600023 milliseconds\n"
		" before timing out.\n";
	model *m = analyze_text(&e, watchdog, 4096);
	CHECK(c, m->nwd == 1 && m->wd[0].seq == 20585, "the watchdog line is read whole (%zu reports)", m->nwd);
	drop(m);
	/* a paste whose prefix and site a markdown editor made links */
	const char *linked = "[node-c](http://node-c):77:78 [0] transport/[net_ib.cc:1909](http://net_ib.cc:1909/) NCCL WARN "
			     "NET/IB : Got completion from peer [10.1.0.12](http://10.1.0.12/)<46107> with status=12 opcode=0\n";
	m = analyze_text(&e, linked, 4096);
	finding *fl = findings_find(&m->fs, "ib-completion-error");
	CHECK(c, fl != NULL, "the linked WARN is understood");
	CHECK(c, m->nprocs == 1 && strcmp(intern_str(&m->str, m->procs[0].host), "node-c") == 0,
	      "its host is node-c (%zu processes)", m->nprocs);
	drop(m);
	/* the link found wherever it lies in the chunk (the chunk's one pass
	 * looks 16 and 32 places at a time) */
	bool all = true;
	for (int pad = 0; pad < 80; pad++) {
		char text[512];
		snprintf(text, sizeof text, "%.*s\n%s", pad, "################################################################################", linked);
		m = analyze_text(&e, text, 4096);
		all &= findings_find(&m->fs, "ib-completion-error") != NULL && m->nprocs == 1 &&
		       strcmp(intern_str(&m->str, m->procs[0].host), "node-c") == 0;
		drop(m);
	}
	CHECK(c, all, "the linked WARN is understood after a line of any length");
	/* a WARN quoted as a code span, then prose; a closing fence after a WARN */
	const char *quoted = "`h:1:2 [0] misc/ibvwrap.cc:206 NCCL WARN Call to ibv_modify_qp failed with error Invalid argument`\n"
			     "Your cross-node comm interface is using RoCE:\n"
			     "h:1:2 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<44321> failed : Connection refused\n"
			     "```\n";
	m = analyze_text(&e, quoted, 4096);
	finding *fq = findings_find(&m->fs, "ib-setup-failed");
	CHECK(c, fq && strstr(fq->message, "RoCE") == NULL, "the prose after the span is not the WARN's (%s)",
	      fq ? fq->message : "none");
	fq = findings_find(&m->fs, "bootstrap-connect-failed");
	CHECK(c, fq && strstr(fq->message, "```") == NULL, "the fence is not the WARN's (%s)", fq ? fq->message : "none");
	drop(m);
	/* a c10 message prefixed on its first line only: its NCCL text is that rank's */
	const char *async = "[rank1]:[E415 21:17:08.996319560 ProcessGroupNCCL.cpp:552] [Rank 1] Collective WorkNCCL(SeqNum=335, "
			    "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) raised the following async exception: "
			    "NCCL error: remote process exited or there was a network error, NCCL version 2.21.5\n"
			    "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
			    "Last error:\n"
			    "socketProgress: Connection closed by remote peer node-b<32926>\n"
			    "W0415 21:17:09.100000 4242 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 4250 closing signal SIGTERM\n"
			    "socketProgress: Connection closed by remote peer node-c<32927>\n";
	m = analyze_text(&e, async, 4096);
	finding *fa = findings_find(&m->fs, "remote-peer-closed");
	bool on1 = false;
	for (size_t k = 0; fa && k < fa->procs.n; k++)
		on1 |= m->procs[fa->procs.v[k]].lrank == 1;
	CHECK(c, fa && on1, "the WARN text after the rank's first line is rank 1's");
	CHECK(c, fa && fa->procs.n == 2, "a line after one with a time of its own is not (%zu processes)", fa ? fa->procs.n : 0);
	drop(m);
	/* an unexplained WARN goes to the catch-all, once per template */
	const char *loose = "h:1:2 [0] misc/x.cc:10 NCCL WARN Strange thing 17 at 0x55d0\n"
			    "h:1:3 [1] misc/x.cc:10 NCCL WARN Strange thing 42 at 0x55e1\n";
	m = analyze_text(&e, loose, 4096);
	finding *f = findings_find(&m->fs, "nccl-warn");
	CHECK(c, f && f->count == 2 && f->nev == 1, "one catch-all for one template (count %llu)",
	      f ? (unsigned long long)f->count : 0ULL);
	drop(m);
	test_ahead(c, &e);
	test_redrawn(c, &e);
	ruleset_free(&e.rs);
	catalog_free(&e.cat);
	sb_free(&err);
	sb_free(&path);
}

/* The NCCL prefix a line starts with, as join_continues_info reads it: the
 * pipeline knows the next record of a held line's process by it. */
static void test_token(checks *c)
{
	const struct {
		const char *s;
		size_t tok;
	} v[] = {
		{ "node-a:1234:5678 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read", 16 },
		{ "h:1:2 [0] NCCL WARN x", 5 },
		{ "> node-a:1234:5678 [0] NCCL INFO x", 0 },
		{ "  node-a:1:2 [0] NCCL INFO x", 0 },
		{ "iled : Connection refused", 0 },
		{ "node-a:12a:5 [0] NCCL INFO x", 0 },
	};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		lineinfo li;
		lineinfo_init(&li, slice_from(v[i].s));
		bool goes_on = join_continues_info(&li, SLICE_NONE);
		CHECK(c, li.nccl_tok == v[i].tok && (!v[i].tok || !goes_on), "'%s': token %zu, want %zu", v[i].s, li.nccl_tok,
		      v[i].tok);
	}
}

/* What a model made of: its findings with their evidence and counts, and
 * each process's rank, phase and last time. */
static void digest(const model *m, strbuf *b)
{
	for (size_t i = 0; i < m->fs.n; i++) {
		const finding *f = &m->fs.v[i];
		sb_printf(b, "%s x%llu:", f->id, (unsigned long long)f->count);
		for (size_t k = 0; k < f->nev; k++)
			sb_printf(b, " %llu=%s", (unsigned long long)f->ev[k].line, f->ev[k].text ? f->ev[k].text : "");
		sb_printf(b, "\n");
	}
	for (size_t i = 0; i < m->nprocs; i++)
		sb_printf(b, "proc %zu rank %d phase %d last %.3f\n", i, m->procs[i].rank, (int)m->procs[i].phase,
			  m->procs[i].last_time);
}

/* A wide line with a hit waits for the next one unless the next one is in
 * the same read already and shows that it ends: read whole, line by line
 * (the next line never there yet) and a byte at a time, the same model. */
static void test_ahead(checks *c, env *e)
{
	const char *text =
		"node-b:4711:4800 [1] NCCL INFO comm 0x55d1c0a30000 rank 1 nranks 4 cudaDev 1 busId 41000 - Init START\n"
		"node-b:4711:4800 [1] NCCL INFO comm 0x55d1c0a30000 rank 1 nRanks 4 nNodes 2 localRanks 2 localRank 1 MNNVL 0\n"
		"node-b:4711:4801 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/Socket/0\r\n"
		"2025-06-03 10:00:00,050 INFO trainer.py:201 -- step 1 loss 2.2551 lr 3.0e-4 grad_norm 0.495\n"
		"node-b:4711:4800 [1] transport/net_ib.cc:2317 NCCL WARN NET/IB: Got completion f\n"
		"rom peer 10.1.0.12<46107> with status=12 opcode=0 len=0 vendor err 129 (Send) lo\n"
		"calGid ::ffff:10.1.0.11 hca mlx5_1\n"
		"node-b:4711:4800 [1] NCCL INFO comm 0x55d1c0a30000 rank 1 nranks 4 cudaDev 1 busId 41000 - Init COMPLETE\n"
		/* the same from a Windows terminal: CRLF */
		"node-c:4712:4900 [0] transport/net_ib.cc:2317 NCCL WARN NET/IB: Got completion f\r\n"
		"rom peer 10.1.0.11<46107> with status=12 opcode=0 len=0 vendor err 129 (Send) lo\r\n"
		"calGid ::ffff:10.1.0.12 hca mlx5_0\r\n"
		"Epoch 0:  25%|##        | 25/100 [00:25<00:10]\rnode-b:4711:4800 [1] NCCL INFO Connected all rings\n"
		"node-b:4711:4800 [1] NCCL INFO comm 0x55d1c0a30000 rank 1 nranks 4 cudaDev 1 busId 41000 - Init COMPLETE";
	strbuf whole = { 0 };
	model *m = analyze_text(e, text, strlen(text));
	digest(m, &whole);
	finding *f = findings_find(&m->fs, "ib-completion-error");
	CHECK(c, f && f->count == 2 && f->nev == FINDING_MAX_EVIDENCE, "both wrapped WARNs are understood (%llu)",
	      f ? (unsigned long long)f->count : 0ULL);
	drop(m);
	/* line by line: each read ends at a newline */
	m = analyze_lines(e, text);
	strbuf lines = { 0 };
	digest(m, &lines);
	drop(m);
	CHECK(c, whole.n && strcmp(whole.p, lines.p) == 0, "whole and line by line alike:\n%s---\n%s", whole.p, lines.p);
	strbuf bytes = { 0 };
	m = analyze_text(e, text, 1);
	digest(m, &bytes);
	drop(m);
	CHECK(c, strcmp(whole.p, bytes.p) == 0, "whole and a byte at a time alike:\n%s---\n%s", whole.p, bytes.p);
	sb_free(&whole);
	sb_free(&lines);
	sb_free(&bytes);
}

/* A progress bar redrawn with \r: a line without a literal is a line of
 * activity in every part, one with a literal (in any part) is read part by
 * part, and a part's own date counts. The same read whole, line by line and
 * a byte at a time. */
static void test_redrawn(checks *c, env *e)
{
	const char *text =
		"node-b:4711:4800 [1] NCCL INFO comm 0x55d1c0a30000 rank 1 nranks 4 cudaDev 1 busId 41000 - Init START\n"
		"Epoch 0:   0%|          | 0/100 [00:00<00:10]\rEpoch 0:  25%|##        | 25/100 [00:25<00:10]\n"
		"[2025-06-03 10:00:05] step 1 loss 2.25\r[2025-06-03 10:00:09] step 2 loss 2.20\n"
		"Epoch 0:  50%|#####     | 50/100\rEpoch 0:  75%|#######   | 75/100\r"
		"node-b:4711:4800 [1] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<44321> failed : "
		"Connection refused\rEpoch 0: 100%|##########| 100/100\n"
		"Epoch 1:   0%|          | 0/100\rEpoch 1:  25%|##        | 25/100\n";
	strbuf whole = { 0 };
	model *m = analyze_text(e, text, strlen(text));
	digest(m, &whole);
	finding *f = findings_find(&m->fs, "bootstrap-connect-failed");
	CHECK(c, f && f->count == 1 && f->nev == 1 && f->ev[0].line == 4,
	      "the WARN in the third part of line 4 is found there:\n%s", whole.p);
	CHECK(c, m->nprocs == 1 && m->procs[0].last_time > 0, "the dated parts are the process's activity");
	double last = m->nprocs ? m->procs[0].last_time : 0;
	drop(m);
	/* the second part's date is the later one */
	m = analyze_text(e, "node-b:4711:4800 [1] NCCL INFO x\n[2025-06-03 10:00:05] step 1\n", 4096);
	CHECK(c, m->nprocs == 1 && last - m->procs[0].last_time > 3.5 && last - m->procs[0].last_time < 4.5,
	      "the last part's time is the last seen (%.3f)", m->nprocs ? last - m->procs[0].last_time : 0);
	drop(m);
	strbuf bytes = { 0 }, lines = { 0 };
	m = analyze_text(e, text, 1);
	digest(m, &bytes);
	drop(m);
	CHECK(c, strcmp(whole.p, bytes.p) == 0, "redrawn lines whole and a byte at a time alike:\n%s---\n%s", whole.p,
	      bytes.p);
	m = analyze_lines(e, text);
	digest(m, &lines);
	drop(m);
	CHECK(c, strcmp(whole.p, lines.p) == 0, "redrawn lines whole and line by line alike:\n%s---\n%s", whole.p,
	      lines.p);
	sb_free(&whole);
	sb_free(&bytes);
	sb_free(&lines);
	/* a c10 message goes on past a bar's redrawn parts, and ends at a part
	 * that is a line of its own */
	const char *msg = "[rank1]:[E415 21:17:08.996319560 ProcessGroupNCCL.cpp:552] [Rank 1] Collective WorkNCCL(SeqNum=335, "
			  "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) raised the following async exception: "
			  "NCCL error: remote process exited or there was a network error, NCCL version 2.21.5\n"
			  "socketProgress: Connection closed by remote peer node-b<32926>\n"
			  "%s\n"
			  "socketProgress: Connection closed by remote peer node-c<32927>\n";
	const struct {
		const char *bar;
		size_t procs;
	} bars[] = {
		{ "Epoch 0:  10%|#         | 10/100\rEpoch 0:  20%|##        | 20/100", 1 },
		{ "Epoch 0:  10%|#         | 10/100\rINFO: saving a checkpoint", 2 },
	};
	for (size_t i = 0; i < sizeof bars / sizeof *bars; i++) {
		char t[1024];
		snprintf(t, sizeof t, msg, bars[i].bar);
		m = analyze_text(e, t, 4096);
		finding *fr = findings_find(&m->fs, "remote-peer-closed");
		CHECK(c, fr && fr->procs.n == bars[i].procs, "after '%s': %zu processes, want %zu", bars[i].bar,
		      fr ? fr->procs.n : 0, bars[i].procs);
		drop(m);
	}
}

int main(int argc, char **argv)
{
	checks cc = { 0 }, *c = &cc;
	test_continues(c);
	test_token(c);
	test_joining(c);
	test_unlink(c);
	test_unmark(c);
	if (argc > 1)
		test_pipeline(c, argv[1]);
	return check_done(c, "join");
}
