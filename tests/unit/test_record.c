/* Every line shape of format.md and of the real-incident line-shape list. */
#include "../../parser/record.h"
#include "check.h"

#include <stdint.h>

typedef struct shape {
	const char *line;
	enum level lv;
	const char *host; /* NULL: no NCCL prefix */
	long pid;
	int dev;
	const char *site, *func, *ts;
	int lrank;
	const char *body;
} shape;

static const shape shapes[] = {
	{ "node-01:3873285:3873285 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.11<0>", LV_INFO, "node-01", 3873285, 0, "", "", "", -1, "Bootstrap: Using eth0:10.0.0.11<0>" },
	{ "[2026-05-05 06:16:47] node-01:189884:189884 [3] plugin/net.cc:349 (ncclNetInit) NCCL WARN Failed to initialize any NET plugin", LV_WARN, "node-01", 189884, 3, "plugin/net.cc:349", "ncclNetInit", "2026-05-05 06:16:47", -1, "Failed to initialize any NET plugin" },
	{ "[2025-07-01 14:02:11] node1:12345:12401 [1] transport/net_ib.cc:1693 NCCL WARN NET/IB: Got completion", LV_WARN, "node1", 12345, 1, "transport/net_ib.cc:1693", "", "2025-07-01 14:02:11", -1, "NET/IB: Got completion" },
	{ "node1:12345:12401 [1] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.12<43311> failed : Connection refused", LV_WARN, "node1", 12345, 1, "misc/socket.cc:484", "", "", -1, "socketStartConnect: Connect to 10.0.0.12<43311> failed : Connection refused" },
	{ "node-01:986207:986207 NCCL CALL ncclGroupStart()", LV_CALL, "node-01", 986207, -1, "", "", "", -1, "ncclGroupStart()" },
	{ "node-01:1:2 [0] 1234.567890 ncclProxyProgress:123 NCCL TRACE progress", LV_TRACE, "node-01", 1, 0, "ncclProxyProgress:123", "", "", -1, "progress" },
	{ "NCCL version 2.18.3+cuda12.2", LV_VERSION, NULL, -1, -1, "", "", "", -1, "NCCL version 2.18.3+cuda12.2" },
	{ "c39f5cf046aa:4533:4667 [0] NCCL INFO misc/socket.cc:568 -> 2 [Async thread]", LV_INFO, "c39f5cf046aa", 4533, 0, "", "", "", -1, "misc/socket.cc:568 -> 2 [Async thread]" },
	{ "dlbox:27768:92501 [0] INFO NET : Using interface eth1:10.0.0.1<0>", LV_INFO, "dlbox", 27768, 0, "", "", "", -1, "NET : Using interface eth1:10.0.0.1<0>" },
	{ "include/socket.h:360 WARN Net : Connect to 10.0.0.2<1234> failed", LV_WARN, NULL, -1, -1, "include/socket.h:360", "", "", -1, "Net : Connect to 10.0.0.2<1234> failed" },
	{ "[1,30]<stdout>:node-a:1:1 [0] NCCL INFO hi", LV_INFO, "node-a", 1, 0, "", "", "", 30, "hi" },
	{ "  3: gpu-07:5:6 [2] NCCL INFO srun", LV_INFO, "gpu-07", 5, 2, "", "", "", 3, "srun" },
	{ "[default0]:node:1:2 [0] NCCL INFO torchrun", LV_INFO, "node", 1, 0, "", "", "", -1, "torchrun" },
	{ "[rank3]:node:1:2 [3] NCCL INFO torchrun rank", LV_INFO, "node", 1, 3, "", "", "", 3, "torchrun rank" },
	{ "(RayWorkerWrapper pid=306, ip=10.90.40.163) node:1:2 [0] NCCL INFO ray", LV_INFO, "node", 1, 0, "", "", "", -1, "ray" },
	{ "(pid=93499) node:1:2 [0] NCCL INFO old ray", LV_INFO, "node", 1, 0, "", "", "", -1, "old ray" },
	{ "node-b: node-b:123:456 [0] NCCL INFO pdsh", LV_INFO, "node-b", 123, 0, "", "", "", -1, "pdsh" },
	{ "[0] misc/socket.cc:71 NCCL WARN pasted", LV_WARN, NULL, -1, 0, "misc/socket.cc:71", "", "", -1, "pasted" },
	{ "NCCL WARN bare", LV_WARN, NULL, -1, -1, "", "", "", -1, "bare" },
	{ "Mon May 24 07:12:46 2021[1,0]<stderr>:host:1:2 [0] NCCL INFO ts", LV_INFO, "host", 1, 0, "", "", "", 0, "ts" },
	{ "[trainer3]:host:1:2 [0] NCCL INFO trainer", LV_INFO, "host", 1, 0, "", "", "", -1, "trainer" },
	{ "[56] host-a:7:8 [1] NCCL INFO numbered", LV_INFO, "host-a", 7, 1, "", "", "", 56, "numbered" },
	{ "(VllmWorker rank=3 pid=63957) ERROR 06-19 07:06:13 [multiproc_executor.py:527] boom", LV_NONE, NULL, -1, -1, "", "", "", 3, "ERROR 06-19 07:06:13 [multiproc_executor.py:527] boom" },
	{ "2: [rank18]:[W ProcessGroupNCCL.cpp:2302] Warning: x", LV_NONE, NULL, -1, -1, "", "", "", 18, "[W ProcessGroupNCCL.cpp:2302] Warning: x" },
	{ "[pod/trainer-worker-1/pytorch] trainer-worker-1:88:88 [0] NCCL INFO kubectl", LV_INFO, "trainer-worker-1", 88, 0, "", "", "", -1, "kubectl" },
	{ "[pod/trainer-worker-1/pytorch] [rank1]:[E ProcessGroupNCCL.cpp:632] x", LV_NONE, NULL, -1, -1, "", "", "", 1, "[E ProcessGroupNCCL.cpp:632] x" },
	{ "[rank2]:[E709 17:05:38.162555850 ProcessGroupNCCL.cpp:632] [Rank 2] Watchdog caught", LV_NONE, NULL, -1, -1, "", "", "", 2, "[Rank 2] Watchdog caught" },
	{ "10.0.0.33: Traceback (most recent call last):", LV_NONE, NULL, -1, -1, "", "", "", -1, "Traceback (most recent call last):" },
	{ "torch.distributed.DistBackendError: NCCL error in: x", LV_NONE, NULL, -1, -1, "", "", "", -1, "torch.distributed.DistBackendError: NCCL error in: x" },
	{ "[2025-02-24 14:09:34 TP14] node:1:2 [0] NCCL INFO sglang", LV_INFO, "node", 1, 0, "", "", "", -1, "sglang" },
	{ "WorkerWrapper pid=7086) node:1:2 [0] NCCL INFO cut ray", LV_INFO, "node", 1, 0, "", "", "", -1, "cut ray" },
	{ "(head, rank=0, pid=73055) node:1:2 [0] NCCL INFO skypilot", LV_INFO, "node", 1, 0, "", "", "", 0, "skypilot" },
	{ "\xe2\x94\x82 node-c:9:9 [0] NCCL INFO Using network IB   \xe2\x94\x82", LV_INFO, "node-c", 9, 0, "", "", "", -1, "Using network IB" },
	{ "    [rank5]:[E ProcessGroupNCCL.cpp:1] boom |", LV_NONE, NULL, -1, -1, "", "", "", 5, "[E ProcessGroupNCCL.cpp:1] boom |" },
	/* a pid and a tid of up to 18 digits are read (test_long_ids: longer ones) */
	{ "node:123456789012345678:987654321098765432 [0] NCCL INFO long", LV_INFO, "node", 123456789012345678, 0, "", "", "", -1, "long" },
	{ "> RuntimeError: NCCL error in: quoted", LV_NONE, NULL, -1, -1, "", "", "", -1, "RuntimeError: NCCL error in: quoted" },
	{ "> [rank1]:node:1:2 [1] NCCL INFO quoted torchrun", LV_INFO, "node", 1, 1, "", "", "", 1, "quoted torchrun" },
	{ "logs/rank0.log:node-a:1:2 [0] NCCL INFO grep -H", LV_INFO, "node-a", 1, 0, "", "", "", -1, "grep -H" },
	{ "rank_604.s12gn3064.4031852.log:17:node-a:1:2 [0] NCCL INFO grep -n", LV_INFO, "node-a", 1, 0, "", "", "", -1, "grep -n" },
	{ "train.err.1:RuntimeError: NCCL error in: x", LV_NONE, NULL, -1, -1, "", "", "", -1, "RuntimeError: NCCL error in: x" },
	{ "rank0.log-17-node-a:1:2 [0] NCCL INFO grep -C context", LV_INFO, "node-a", 1, 0, "", "", "", -1, "grep -C context" },
	{ "logs/train.log-9-node-a:1:2 [0] misc/socket.cc:484 NCCL WARN ctx", LV_WARN, "node-a", 1, 0, "misc/socket.cc:484", "", "", -1, "ctx" },
	{ "node-17-a:1:2 [0] NCCL INFO a host with digits between dashes", LV_INFO, "node-17-a", 1, 0, "", "", "", -1, "a host with digits between dashes" },
	{ "job.out-12-Traceback (most recent call last):", LV_NONE, NULL, -1, -1, "", "", "", -1, "Traceback (most recent call last):" },
	{ "node-07.local:x", LV_NONE, NULL, -1, -1, "", "", "", -1, "node-07.local:x" },
	{ "18:11:06.680 [rank4]:[E205 18:11:06.375750231 ProcessGroupNCCL.cpp:1870] stuck", LV_NONE, NULL, -1, -1, "", "", "", 4, "stuck" },
	{ "2025-02-05 18:11:06,680 [rank2]:node:1:2 [2] NCCL INFO dated", LV_INFO, "node", 1, 2, "", "", "", 2, "dated" },
	/* a host with dots is not a log's name before grep's colon */
	{ "ip-10-0-0-1.ec2.internal:12:34 [0] NCCL INFO dotted", LV_INFO, "ip-10-0-0-1.ec2.internal", 12, 0, "", "", "", -1, "dotted" },
};

static void test_shapes(checks *c)
{
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		const shape *t = &shapes[i];
		record r;
		slice s = slice_from(t->line);
		size_t k = record_parse(s, &r);
		CHECK(c, k == s.n, "line %zu consumed %zu of %zu", i, k, s.n);
		CHECK(c, r.level == t->lv, "line %zu level %d want %d", i, r.level, t->lv);
		CHECK(c, r.nccl == (t->host != NULL), "line %zu nccl %d", i, r.nccl);
		if (t->host)
			CHECK_SLICE(c, r.host, t->host, t->line);
		CHECK(c, r.pid == t->pid, "line %zu pid %ld want %ld", i, r.pid, t->pid);
		CHECK(c, r.dev == t->dev, "line %zu dev %d want %d", i, r.dev, t->dev);
		CHECK_SLICE(c, r.site, t->site, t->line);
		CHECK_SLICE(c, r.func, t->func, t->line);
		CHECK_SLICE(c, r.ts, t->ts, t->line);
		CHECK(c, r.ln.rank == t->lrank, "line %zu launcher rank %d want %d", i, r.ln.rank, t->lrank);
		CHECK_SLICE(c, r.body, t->body, t->line);
	}
}

/* Two processes' records on one line, and an NCCL record glued after a bar. */
static void test_glued(checks *c)
{
	slice s = SLICE_LIT("a:1:2 [0] NCCL INFO one b:3:4 [1] NCCL INFO two");
	record r;
	size_t k = record_parse(s, &r);
	CHECK_SLICE(c, r.host, "a", "first host");
	CHECK_SLICE(c, r.body, "one", "first body");
	k += record_parse((slice){ s.p + k, s.n - k }, &r);
	CHECK_SLICE(c, r.host, "b", "second host");
	CHECK_SLICE(c, r.body, "two", "second body");
	CHECK(c, k == s.n, "consumed %zu", k);

	s = SLICE_LIT("Epoch 1: 100%|#####| 50/50 [00:02<00:00] acc: 0.8081dlbox:27768:92501 [0] INFO NET : glued");
	k = record_parse(s, &r);
	CHECK(c, r.level == LV_NONE && k < s.n, "the bar is its own record (k=%zu)", k);
	k += record_parse((slice){ s.p + k, s.n - k }, &r);
	CHECK(c, r.nccl && r.pid == 27768, "glued record pid %ld", r.pid);
	CHECK_SLICE(c, r.body, "NET : glued", "glued body");

	/* a time's digits are not the host's; a container's hex name keeps its
	 * leading digits after a launcher's prefix */
	s = SLICE_LIT("2024-05-01T10:00:00-07:00ip-10-5:27768:92501 [0] NCCL INFO after a time");
	k = record_parse(s, &r);
	k += record_parse((slice){ s.p + k, s.n - k }, &r);
	CHECK_SLICE(c, r.host, "ip-10-5", "host after a time");
	s = SLICE_LIT("[1,0]<stdout>:5873af64cf59:123:456 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.2<0>");
	k = record_parse(s, &r);
	CHECK(c, k == s.n && r.pid == 123, "one record (k=%zu, pid %ld)", k, r.pid);
	CHECK_SLICE(c, r.host, "5873af64cf59", "hex container name after <stdout>:");
}

/* A pid or a tid longer than 18 digits makes no NCCL prefix: its text is a
 * record of its own, and the rest a record without a host, of the [dev]. */
static void test_long_ids(checks *c)
{
	static const char *const lines[] = {
		"node:1234567890123456789:1 [0] NCCL INFO longer",
		"node:1:1234567890123456789 [0] NCCL INFO longer",
	};
	for (size_t i = 0; i < 2; i++) {
		slice s = slice_from(lines[i]);
		record r;
		size_t k = record_parse(s, &r);
		CHECK(c, k == 27 && r.level == LV_NONE && !r.nccl && r.pid == -1, "%s: its own record first (k=%zu)",
		      lines[i], k);
		CHECK_SLICE(c, r.body, i ? "node:1:1234567890123456789" : "node:1234567890123456789:1", lines[i]);
		k += record_parse((slice){ s.p + k, s.n - k }, &r);
		CHECK(c, k == s.n && r.level == LV_INFO && !r.nccl && r.pid == -1 && r.dev == 0, "%s: then the record",
		      lines[i]);
		CHECK_SLICE(c, r.body, "longer", lines[i]);
	}
}

/* Text that mentions NCCL levels is not a record. */
static void test_not_records(checks *c)
{
	const char *lines[] = {
		"please run with NCCL_DEBUG=INFO for details",
		"the NCCL INFO lines below show it",
		"",
		"\x1b[0m",
		"::::",
		"[] [",
		"(pid=",
		"1,2]<stdout>:",
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		record r;
		slice s = slice_from(lines[i]);
		size_t k = record_parse(s, &r);
		CHECK(c, !r.nccl, "line %zu is not an NCCL record", i);
		CHECK(c, k == s.n, "line %zu consumed", i);
	}
}

/* kubectl logs --prefix names the pod: the host of lines without NCCL's prefix. */
static void test_kubectl(checks *c)
{
	record r;
	record_parse(SLICE_LIT("[pod/trainer-worker-1/pytorch] Traceback (most recent call last):"), &r);
	CHECK_SLICE(c, r.ln.host, "trainer-worker-1", "pod as host");
	CHECK_SLICE(c, r.body, "Traceback (most recent call last):", "after the pod");
	record_parse(SLICE_LIT("[pod/] x"), &r);
	CHECK(c, r.ln.host.n == 0, "no pod name");
	record_parse(SLICE_LIT("[pod/a/b]x"), &r);
	CHECK(c, r.ln.host.n == 0, "no blank after the prefix");
}

static void test_timestamps(checks *c)
{
	double a = 0, b = 0, g = 0;
	CHECK(c, timestamp_parse(SLICE_LIT("2025-03-12 10:22:33"), &a) == 19, "NCCL timestamp");
	CHECK(c, timestamp_parse(SLICE_LIT("[2025-03-12 10:22:34.5] x"), &b) > 0, "bracketed with fraction");
	CHECK(c, b - a > 1.4 && b - a < 1.6, "difference %f", b - a);
	CHECK(c, timestamp_parse(SLICE_LIT("E0709 17:05:38.162555850 x"), &g) > 0, "glog");
	CHECK(c, timestamp_parse(SLICE_LIT("E709 17:05:38.162555850 x"), &g) > 0, "c10 glog");
	CHECK(c, timestamp_parse(SLICE_LIT("2021-08-17 17:10:55,737\tINFO"), &g) > 0, "python logging");
	CHECK(c, timestamp_parse(SLICE_LIT("E1399 17:05:38"), &g) == 0, "bad month");
	CHECK(c, timestamp_parse(SLICE_LIT("12:00"), &g) == 0, "not a timestamp");
	/* the kernel's heads */
	double k1 = 0, k2 = 0;
	CHECK(c, timestamp_parse(SLICE_LIT("[Wed Mar 12 10:22:33 2025] NVRM: Xid"), &k1) == 25 && time_dated(k1), "dmesg -T");
	CHECK(c, timestamp_parse(SLICE_LIT("2025-03-12 10:22:34 x"), &k2) > 0 && k2 - k1 > 0.9 && k2 - k1 < 1.1, "dmesg -T is dated");
	CHECK(c, timestamp_parse(SLICE_LIT("Mar  2 10:22:33 node-b kernel: x"), &g) == 15 && !time_dated(g), "syslog, no year");
	CHECK(c, timestamp_parse(SLICE_LIT("[ 4711.232921] NVRM: x"), &g) == 13 && g == 0, "seconds since boot");
	CHECK(c, timestamp_parse(SLICE_LIT(" 4711.232921"), &g) == 12, "inside its brackets");
	CHECK(c, timestamp_parse(SLICE_LIT("[ 12.5] x"), &g) == 0, "not the kernel's");
	CHECK(c, timestamp_parse(SLICE_LIT("4711.232921 x"), &g) == 0, "unbracketed seconds");
	CHECK(c, timestamp_parse(SLICE_LIT("Mar 32 10:22:33"), &g) == 0, "bad day");
	CHECK(c, timestamp_parse(SLICE_LIT("Wed Mar 12 10:22:33 x"), &g) == 0, "ctime without year");
	record kr;
	record_parse(SLICE_LIT("[ 4711.232921] NVRM: Xid (PCI:0000:07:00): 79, GPU has fallen off the bus."), &kr);
	CHECK_SLICE(c, kr.body, "NVRM: Xid (PCI:0000:07:00): 79, GPU has fallen off the bus.", "dmesg body");
}

/* ---- record_parse's fast path agrees with the general reading ---- */

static bool same_slice(slice a, slice b)
{
	return a.n == b.n && (a.n == 0 || a.p == b.p);
}

static bool same_record(const record *a, const record *b)
{
	return same_slice(a->text, b->text) && a->level == b->level && a->nccl == b->nccl &&
	       a->legacy == b->legacy && same_slice(a->host, b->host) && a->pid == b->pid && a->tid == b->tid &&
	       a->dev == b->dev && same_slice(a->ts, b->ts) && a->time == b->time && same_slice(a->site, b->site) &&
	       same_slice(a->func, b->func) && same_slice(a->body, b->body) && a->ln.rank == b->ln.rank &&
	       a->ln.local == b->ln.local && same_slice(a->ln.tag, b->ln.tag) && same_slice(a->ln.host, b->ln.host) &&
	       a->ln.time == b->ln.time;
}

/* Both readings of every record of line (glued ones too) match, and so
 * does the reading from the prefix known of the lines before. */
static bool same_readings(checks *c, slice line, recprefix *known)
{
	size_t off = 0;
	do {
		slice s = { line.p + off, line.n - off };
		record f, g, k;
		size_t kf = record_parse(s, &f), kg = record_parse_general(s, &g);
		size_t kk = record_parse_known(s, &k, known);
		if (kk != kf || !same_record(&k, &f)) {
			CHECK(c, false, "'%.*s' at %zu: read from the known prefix %zu bytes (body '%.*s'), else %zu "
			      "(body '%.*s')", (int)line.n, line.p, off, kk, (int)k.body.n, k.body.p ? k.body.p : "", kf,
			      (int)f.body.n, f.body.p ? f.body.p : "");
			return false;
		}
		if (kf != kg || !same_record(&f, &g)) {
			CHECK(c, false, "'%.*s' at %zu: fast path read %zu bytes (host '%.*s', body '%.*s'), general %zu "
			      "(host '%.*s', body '%.*s')", (int)line.n, line.p, off, kf, (int)f.host.n,
			      f.host.p ? f.host.p : "", (int)f.body.n, f.body.p ? f.body.p : "", kg, (int)g.host.n,
			      g.host.p ? g.host.p : "", (int)g.body.n, g.body.p ? g.body.p : "");
			return false;
		}
		off += kf ? kf : s.n;
	} while (off < line.n);
	return true;
}

static const char *const leads[] = {
	"", "[2026-05-05 06:16:47] ", "[2026-05-05 06:16:47]", "[2026-05-05 06:16:47.123] ", "[2026-13-45 06:16:47] ",
	"[[2026-05-05 06:16:47] ", "3: ", "  3: ", "[1,0]<stdout>:", "[rank3]:", "[default0]:", "node-b: ", "(pid=12) ",
	"logs/rank0.log:", "rank0.log-17-", "x.log:17:", "2025-02-05 18:11:06,680 [rank2]:", "18:11:06.680 ",
	"junk!", "0.8081", "acc: 0.8081", "srun: ", "slurmstepd-node: ", "> ", "| ", "\xe2\x94\x82 ",
	"Mon May 24 07:12:46 2021[1,0]<stderr>:", "[pod/a/b] ", "12:", "\t", " ", "[2026-05-05 06:16:47] 3: ",
	"<stdout>:", "x", "-07:00", "[56] ", "[E0709 17:05:38 abcd] ", "[[E0709 17:05:38.123] ",
};
static const char *const hosts[] = {
	"gpu-node-0000", "node1", "a", "node-01.cluster.local", "ip-10-0-0-1.ec2.internal", "5873af64cf59", "10.0.0.5",
	"1.5node", "10", "12", "2024", "2024-01-01T10", "rank0.log", "x.log-1", "a.log.1", "slurmstepd-node", "srun",
	"_h", "-h", ".h", "node.log", "NCCL", "123456", "1234567", "a.b", "1a", "0.8081dlbox", "07", "1", "h.out",
	"hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh.log", "UPPER", "", "pid",
};
static const char *const ids[] = {
	"10022:10122", "1:2", "0:0", "", "1:", ":2", "123456789012345678:987654321098765432",
	"1234567890123456789:1", "1:1234567890123456789", "01:02", "22:33", "1:2:3", "1", "12:34.5",
};
static const char *const devs[] = {
	"[3] ", "", "[0] ", "[123456] ", "[1234567] ", "[-1] ", "[] ", "[a] ", "[3]", "[ 3] ", " [3] ", "[3]  ",
	"misc/socket.cc:484 ", "[3] misc/socket.cc:484 ", "[3] plugin/net.cc:349 (ncclNetInit) ",
	"[0] 1234.567890 ncclProxyProgress:123 ", "(f) ", "[3] (f) ",
};
static const char *const nccls[] = { "NCCL ", "RCCL ", "NCCL  ", "NCCL", "" };
static const char *const levels[] = { "INFO", "WARN", "TRACE", "CALL", "ABORT", "VERSION", "INFOX", "info", "" };
static const char *const bodies[] = {
	" Channel 00/0 : 3[3] -> 4[4] via P2P/IPC/read", "", " ", " x\r", "\r", " body |", " body \xe2\x94\x82",
	" misc/socket.cc:484 NCCL WARN x", " one b:3:4 [1] NCCL INFO two", " glued:1:2 [0] NCCL INFO x",
	" (pid=3) Init", " [1,0]<stdout>: x", " NCCL version 2.18.3", " a b:1:2 NCCL WARN c",
	" x.log:1:2 [0] NCCL INFO y", " Bootstrap : Using eth0:10.0.0.12<0>", " a\tb ", "  two blanks",
	" x [2026-05-05 06:16:47] c:1:2 [0] NCCL WARN y", " 0.8081dlbox:27768:92501 [0] INFO old glued",
};

#define COUNT(a) (sizeof(a) / sizeof(a)[0])

/* xorshift64: the same variants on every run */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static size_t compose(char *buf, size_t cap, const char *parts[6])
{
	size_t n = 0;
	for (int k = 0; k < 6; k++) {
		size_t m = strlen(parts[k]);
		if (n + m >= cap)
			break;
		memcpy(buf + n, parts[k], m);
		n += m;
		if (k == 1 && n + 1 < cap)
			buf[n++] = ':';
		if (k == 2 && n + 1 < cap)
			buf[n++] = ' ';
	}
	return n;
}

static void test_fast_path(checks *c)
{
	char buf[512];
	size_t lines = 0, bad = 0;
	recprefix known = { 0 };
	/* every lead, host, ids, [dev] and level with the common separators */
	for (size_t l = 0; l < COUNT(leads); l++)
		for (size_t h = 0; h < COUNT(hosts); h++)
			for (size_t i = 0; i < COUNT(ids); i++)
				for (size_t d = 0; d < COUNT(devs); d++)
					for (size_t v = 0; v < COUNT(levels); v++) {
						size_t b = (l + h + i + d + v) % COUNT(bodies);
						const char *parts[6] = { leads[l], hosts[h], ids[i], devs[d], "NCCL ", levels[v] };
						size_t n = compose(buf, sizeof buf - 64, parts);
						size_t m = strlen(bodies[b]);
						memcpy(buf + n, bodies[b], m);
						lines++;
						if (bad < 20)
							bad += !same_readings(c, (slice){ buf, n + m }, &known);
					}
	/* random picks of every part, then bytes changed, added and cut */
	static const char alphabet[] = " :[]0123456789.-_aZ<>()|\r\t=/NCLIFOW,s";
	uint64_t x = 0x9e3779b97f4a7c15u;
	const char *parts[6];
	for (int t = 0; t < 400000; t++) {
		/* every other line the same parts again: the next record of a
		 * process, another body, read from the prefix known */
		if (t % 2 == 0) {
			parts[0] = leads[next_rand(&x) % COUNT(leads)];
			parts[1] = hosts[next_rand(&x) % COUNT(hosts)];
			parts[2] = ids[next_rand(&x) % COUNT(ids)];
			parts[3] = devs[next_rand(&x) % COUNT(devs)];
			parts[4] = nccls[next_rand(&x) % COUNT(nccls)];
			parts[5] = levels[next_rand(&x) % COUNT(levels)];
		}
		size_t n = compose(buf, 300, parts);
		const char *body = bodies[next_rand(&x) % COUNT(bodies)];
		memcpy(buf + n, body, strlen(body));
		n += strlen(body);
		int edits = (int)(next_rand(&x) % 4);
		for (int e = 0; e < edits && n > 0; e++) {
			size_t at = next_rand(&x) % n;
			char ch = alphabet[next_rand(&x) % (sizeof alphabet - 1)];
			switch (next_rand(&x) % 3) {
			case 0:
				buf[at] = ch;
				break;
			case 1:
				memmove(buf + at + 1, buf + at, n - at);
				buf[at] = ch;
				n++;
				break;
			default:
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
			}
		}
		lines++;
		if (bad < 20)
			bad += !same_readings(c, (slice){ buf, n }, &known);
	}
	CHECK(c, lines > 1000000, "%zu lines", lines);
	/* a line read after one whose prefix it shares but for one byte, any
	 * byte of it, that byte another */
	static const char other[] = " :[]0X.<";
	for (size_t h = 0; h < COUNT(hosts); h += 3)
		for (size_t d = 0; d < COUNT(devs); d += 2)
			for (size_t v = 0; v < 3; v++) {
				const char *pp[6] = { leads[(h + d) % 3], hosts[h], ids[0], devs[d], "NCCL ", levels[v] };
				size_t n = compose(buf, 300, pp);
				buf[n] = ' ';
				for (size_t at = 0; at <= n; at++)
					for (size_t o = 0; o < sizeof other - 1; o++) {
						const char *body = bodies[(at + o) % COUNT(bodies)];
						size_t m = strlen(body);
						memcpy(buf + n + 1, body, m);
						if (bad < 20)
							bad += !same_readings(c, (slice){ buf, n + 1 + m }, &known);
						char keep = buf[at];
						buf[at] = other[o];
						if (bad < 20)
							bad += !same_readings(c, (slice){ buf, n + 1 + m }, &known);
						buf[at] = keep;
					}
			}
}

/* A stamp is read once a line, and what is remembered is what a read
 * would say: for the same text, for another length of it, for a line
 * without one. */
static void test_stamp_once(checks *c)
{
	const char *lines[] = { "2025-03-12 10:22:33,123 INFO trainer.py:12 -- step 3", "I0603 10:00:11.197961 1 api.py:7] ok",
				"[ 4711.232921] NVRM: Xid", "0: 2025-03-12 10:22:33 x", "no stamp here at all", "" };
	for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) {
		slice s = slice_from(lines[k]);
		launch ln = LAUNCH_NONE;
		for (size_t cut = 0; cut <= s.n; cut += s.n > 8 ? s.n / 4 : 1) {
			slice part = { s.p, s.n - cut };
			double want = -1, got = -1, again = -1;
			size_t n = timestamp_parse(part, &want);
			size_t m = launch_stamp(&ln, part, &got), m2 = launch_stamp(&ln, part, &again);
			CHECK(c, m == n && m2 == n && got == want && again == want, "'%.*s': %zu %zu for %zu", (int)part.n,
			      part.p, m, m2, n);
		}
	}
	/* the whole line, then its launcher's rest: each its own */
	launch ln = LAUNCH_NONE;
	slice line = SLICE_LIT("0: 2025-03-12 10:22:33 x");
	double t = 0;
	CHECK(c, launch_stamp(&ln, line, &t) == 0 && t == 0, "no stamp at the launcher's prefix");
	CHECK(c, launch_stamp(&ln, (slice){ line.p + 3, line.n - 3 }, &t) == 19 && t > 0, "the rest's stamp");
	lineinfo li;
	lineinfo_init(&li, line);
	const launch *l = lineinfo_launch(&li);
	t = 0;
	CHECK(c, l->rank == 0 && launch_stamp(&li.ln, li.rest, &t) == 19 && t > 0, "the stamp after the rank");
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	test_shapes(c);
	test_glued(c);
	test_long_ids(c);
	test_not_records(c);
	test_kubectl(c);
	test_timestamps(c);
	test_fast_path(c);
	test_stamp_once(c);
	return check_done(c, "record");
}
