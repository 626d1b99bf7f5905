/* The job model: what the logs tell about each process and rank (host,
 * pid, device, ranks per communicator, phase reached, interfaces,
 * transports, versions, environment), built incrementally from records
 * and rule matches. `analyze` is the model fed to the end of input. */
#ifndef NCCLOG_MODEL_H
#define NCCLOG_MODEL_H

#include "../parser/join.h"
#include "../parser/record.h"
#include "../rules/rules.h"
#include "../util/hashidx.h"
#include "../util/intern.h"
#include "../util/ranges.h"
#include "../util/siphash.h"
#include "facts.h"
#include "findings.h"

/* The tags that line rules may emit for the model; see rules/README.md. */
#define MODEL_TAGS(X)                                                                              \
	X(TAG_VERSION, "version")                                                                  \
	X(TAG_DRIVER, "cuda-driver")                                                               \
	X(TAG_COMM_INIT, "comm-init")                                                              \
	X(TAG_COMM_INFO, "comm-info")                                                              \
	X(TAG_TOPOLOGY, "topology")                                                                \
	X(TAG_CHANNEL, "channel")                                                                  \
	X(TAG_CONNECTED, "connected")                                                              \
	X(TAG_COMM_END, "comm-end")                                                                \
	X(TAG_ENV, "env")                                                                          \
	X(TAG_BOOTSTRAP_IF, "bootstrap-iface")                                                     \
	X(TAG_SOCKET_IFS, "socket-ifaces")                                                         \
	X(TAG_IB_USING, "ib-using")                                                                \
	X(TAG_NET, "net")                                                                          \
	X(TAG_IB_MISSING, "ib-missing")                                                            \
	X(TAG_RESULT, "nccl-result")                                                               \
	X(TAG_WATCHDOG, "watchdog")                                                                \
	X(TAG_PG_STATUS, "pg-status")                                                              \
	X(TAG_DESYNC_STATE, "desync-state") /* a desync snapshot: seq header, ranks started/finished */ \
	X(TAG_PROGRESS, "progress")                                                                \
	X(TAG_KILLED, "job-killed")                                                                \
	X(TAG_BENIGN, "benign")                                                                    \
	X(TAG_FRAMEWORK_ERROR, "framework-error")                                                  \
	X(TAG_INIT_DONE, "init-done")                                                              \
	X(TAG_DEVICE_ROW, "device-row")                                                            \
	X(TAG_EXCERPT, "excerpt")                                                                  \
	X(TAG_RANK_OF, "rank-of")                                                                  \
	X(TAG_XID, "xid")                 /* a kernel Xid or SXid line: bus, xid/sxid, pid, msg */ \
	X(TAG_OOM, "oom-kill")            /* an OOM kill: pid, name, host */                        \
	X(TAG_SCHED, "scheduler-kill")    /* a scheduler ended the job: why, host, job */           \
	X(TAG_NCCLT, "nccl-tests")        /* nccl-tests text: header, row, oob, avgbw */            \
	X(TAG_RAS, "ras")                                                                          \
	X(TAG_COLLNET_OFF, "collnet-off") /* NCCL gave CollNet up and went on without it */

#define X(e, s) e,
enum model_tag { MODEL_TAGS(X) TAG_COUNT };
#undef X

extern const char *const model_tag_names[];

enum phase {
	PH_NONE,
	PH_BOOTSTRAP,  /* Bootstrap : Using ... */
	PH_INIT_START, /* comm ... Init START */
	PH_TOPOLOGY,   /* Trees, rings, graph search */
	PH_CONNECT,    /* Channel xx : a -> b via ... */
	PH_CONNECTED,  /* Connected all rings / trees */
	PH_COMPLETE,   /* Init COMPLETE */
	PH_RUNNING,    /* collectives or training progress after init */
};
const char *phase_name(enum phase p);

enum transport_bit {
	TR_P2P = 1, TR_SHM = 2, TR_NET_IB = 4, TR_NET_SOCKET = 8, TR_NET_OTHER = 16, TR_GDR = 32,
	TR_COLLNET = 64, TR_NVLS = 128,
};

typedef struct iface {
	int name, addr; /* interned */
} iface;

/* A line of an input: where to find it again (the viewer reads it back by
 * offset), and for evidence a bounded copy of its text. */
typedef struct evref {
	int file;
	uint64_t line;
	uint64_t off;
	char *text;    /* owned copy, NULL when unset */
} evref;

typedef struct lineref {
	int file;
	uint64_t line, off;
} lineref;

#define PROC_RECENT 32

/* The C type of each kind of fact in facts.h. */
#define FACT_CTYPE_INT int
#define FACT_CTYPE_LONG long
#define FACT_CTYPE_UINT unsigned
#define FACT_CTYPE_U64 uint64_t
#define FACT_CTYPE_DOUBLE double
#define FACT_CTYPE_BOOL bool
#define FACT_CTYPE_STR int
#define FACT_CTYPE_FILE int
#define FACT_CTYPE_COMM int
#define FACT_CTYPE_LINE uint64_t
#define FACT_CTYPE_PHASE enum phase

/* One process, identified by (host, pid) from NCCL's prefix, or by a
 * launcher stream when its lines carry no NCCL prefix. Its facts are
 * listed once, in facts.h; the arrays below are merged by hand. */
typedef struct proc {
#define X(type, name, init, merge, file) FACT_CTYPE_##type name;
	PROC_FACTS(X)
#undef X
#define X(name) evref ev_##name;
	PROC_EVIDENCE(X)
#undef X
	iface boot;         /* bootstrap interface, name -1 when unseen */
	iface socket[16];
	int nsocket;
	iface oob;
	/* a later part's first progress line while its own phase was before
	 * COMPLETE: the merge places it once the parts before are known */
	evref ev_unplaced;
	struct peerlink {
		int from, to;    /* ranks of a channel line; one of them is this process */
		unsigned via;    /* transport bits */
	} links[16];             /* channel ends, first 16 */
	int nlinks;
	lineref recent[PROC_RECENT]; /* its last NCCL records, a ring */
	unsigned nrecent;            /* records seen; recent[n % PROC_RECENT] is next */
} proc;

/* What the model holds at most, whatever the input. Past a cap what does
 * not fit is dropped and counted, the analysis goes on, and one finding
 * (input-cap-reached) says what was dropped and how much. */
#define MODEL_MAX_PROCS (1 << 14)
#define MODEL_MAX_COMMS 4096
#define MODEL_MAX_COMM_RANKS (1 << 20) /* over all communicators */
#define MODEL_MAX_WATCHDOG (1 << 16)
#define MODEL_MAX_ENV (1 << 16)

/* The largest communicator a log is believed about (ranks are below it):
 * a larger number is a misread, never a job. */
#define MODEL_RANKS_MAX (1 << 24)

/* X(cap, what it keeps, its limit, what each drop it counts is) */
#define MODEL_CAPS(X)                                                                                  \
	X(CAP_PROCS, "processes", MODEL_MAX_PROCS, "lines of more processes")                          \
	X(CAP_COMMS, "communicators", MODEL_MAX_COMMS, "lines of more communicators")                  \
	X(CAP_COMM_RANKS, "ranks of communicators", MODEL_MAX_COMM_RANKS, "more ranks")                \
	X(CAP_WATCHDOG, "watchdog reports", MODEL_MAX_WATCHDOG, "more reports")                        \
	X(CAP_ENV, "environment settings", MODEL_MAX_ENV, "more settings")                             \
	X(CAP_FINDINGS, "findings", FINDINGS_MAX, "lines of more findings")                            \
	X(CAP_KEYS, "ranks, pids and peers named by findings", FINDINGS_MAX_KEYS, "more names")        \
	X(CAP_STRINGS, "distinct names", INTERN_MAX_STRINGS, "more names")                             \
	X(CAP_SYSTEM, "system events", SYSEV_MAX, "more events")                                       \
	X(CAP_RULES, "rules", RULES_MAX, "more rules")

#define X(e, what, max, unit) e,
enum model_cap { MODEL_CAPS(X) CAP_COUNT };
#undef X

/* A communicator's ranks are hashed while few: its map is as big as the
 * ranks the logs show, not as its nranks says. Once they fill a good part
 * of nranks they are kept by rank (rf, rp), in no more room. */
enum { CR_SEEN = 1, CR_DONE = 2 };
typedef struct commrank {
	int rank;           /* -1: an empty slot */
	int proc;           /* -1 until known */
	unsigned flags;     /* CR_SEEN, CR_DONE */
} commrank;

typedef struct comm {
	int key;            /* interned commId or "n<nranks>" */
	int nranks;
	commrank *rk;       /* hashed: open addressing on the rank */
	size_t rkcap, nrk;  /* a power of two (or 0); ranks held */
	unsigned char *rf;  /* by rank (NULL: hashed): its flags, nranks of them */
	int *rp;            /* by rank: its process, where rf says it is known */
	int nseen, ndone;   /* ranks with CR_SEEN, CR_DONE */
	hashkey hk;         /* rk's hash key: its model's */
	size_t lastrk;      /* the slot of the rank marked last: its next line is likely the same rank's */
	uint64_t lines;     /* its init lines: what a cap counts when a merge drops it */
	evref ev;           /* the first of them */
} comm;

/* One rank's watchdog report for one process group. */
typedef struct wdog {
	int proc;
	int pgrank;         /* [Rank R] in the message */
	long seq, last_enq, last_done;
	int op;             /* interned OpType */
	long timeout_ms;
	evref ev;
	uint64_t lines;     /* lines that said it: what a cap counts when it drops it */
	/* seq is a timeout report's, which replaces it; else a status line's
	 * (or a cut report's), which only fills it in: the merge keeps that */
	bool seq_told;
} wdog;

typedef struct envset {
	int var, val, proc;
	evref ev;
	uint64_t lines;     /* as for wdog */
} envset;

typedef struct input {
	char *name;
	uint64_t lines, bytes;
	int frank;          /* rank named by the file name, -1 */
	struct ras_cursor *ras; /* where a RAS report in it is, while it is read */
} input;

/* What the system around the job said of a GPU, a process or a rank: the
 * kernel, the scheduler, NCCL's RAS. Read by model/system.c; joined to
 * the job (hosts, PCI bus ids, communicators) by checks_system.c once all
 * of it is known. Equal events fold into one (count). */
enum sysev_kind {
	SE_XID,        /* code: Xid; a: bus "0000:07:00"; b: the message */
	SE_SXID,       /* code: SXid; a: the NVSwitch's bus; b: the message */
	SE_OOM,        /* pid, b: the process name; code: enum oom_src */
	SE_KILL,       /* code: enum kill_why; a: job or step */
	SE_RAS_DEAD,   /* pid on host (an address); b: its GPUs */
	SE_RAS_NODATA, /* a process that gave no communicator data */
	SE_RAS_MISSING, /* rank of communicator a (hash) gave no data; code 1: considered dead */
	SE_RAS_ERROR,  /* rank of a reported ncclResult_t code */
	SE_RAS_BEHIND, /* rank of a behind the others; b: how */
	SE_RAS_AHEAD,  /* rank of a ahead of code others, who are behind; b: how */
	SE_DIAG,       /* an NCCL DIAG [INFO] result: a the check, b the text */
	SE_RAS_STUCK,  /* a monitor event naming a stuck process (COMM_INIT_STUCK, ...): a the event, b its details */
};
enum oom_src { OOM_KERNEL, OOM_CGROUP, OOM_SLURM, OOM_K8S };
enum kill_why { KILL_TIME_LIMIT, KILL_CANCELLED, KILL_PREEMPTED, KILL_NODE_FAIL, KILL_REQUEUE, KILL_EVICTED };

typedef struct sysev {
	enum sysev_kind kind;
	int host;       /* interned host name or address the line names, -1 */
	long pid, rank; /* -1 when not given */
	long code;
	int a, b;       /* interned texts, -1 */
	int proc;       /* the process the line was read with (its stream), -1 */
	double time;
	uint64_t count; /* occurrences folded in */
	evref ev;
} sysev;

/* A system line a later part of an input could not place alone (a RAS
 * report's line before its section, a size-table row before its header):
 * the merge reads it again after the parts before it. */
typedef struct sysline {
	int kind;              /* 1 nccl-tests, 2 RAS */
	int proc;              /* the process the line was read with, -1 */
	double time;
	evref ev;              /* where it is, and its text */
} sysline;

/* One nccl-tests run: the text of one input, or one JSON report. */
typedef struct ntrun {
	int file;
	int program;           /* interned "all_reduce_perf", -1 */
	int col;               /* enum ncclt_col of its size table */
	long rows, wrong_rows;
	double wrong;          /* elements reported wrong, summed */
	uint64_t wrong_lo, wrong_hi; /* the sizes with wrong elements */
	long oob;              /* "Out of bounds values", -1 */
	double avg_bw;         /* "Avg bus bandwidth", -1 */
	uint64_t max_size;     /* the largest size measured */
	double max_busbw;      /* the best bus bandwidth at it */
	intset procs;          /* the ranks of its device table */
	evref ev_head, ev_wrong, ev_oob, ev_bw, ev_max;
} ntrun;

/* The physical lines of a logical line that reassembly joined. */
typedef struct linespan {
	const joinpart *part;
	int n;
	const char *buf;
} linespan;

typedef struct stream {
	int file;
	int tag;            /* interned launcher tag */
	int proc;
} stream;

/* The process the last NCCL record resolved to, by what named it: the
 * next record of the same rank reuses it without hashing again. Valid
 * while gen and nprocs are what they were when it was filled (every
 * change of a stream or of a process's key bumps gen). */
typedef struct lastproc {
	int file;           /* -1: empty */
	long pid;
	slice host, tag;    /* the interned bytes: the intern table never moves them */
	int proc;
	uint64_t gen;
	size_t nprocs;
} lastproc;

typedef struct model {
	const catalog *cat;
	hashkey hkey;          /* of every table keyed by input, drawn by model_init or given */
	intern str;
	input *in;
	size_t nin, incap;
	/* a reader thread's model borrows the run's input table (names and
	 * ranks, read-only) and counts the inputs it reads in own: own[i]
	 * is input own_file + i (a run of consecutive small files) */
	bool in_borrowed;
	int own_file;
	input *own;
	size_t nown;
	proc *procs;
	size_t nprocs, proccap;
	comm *comms;
	size_t ncomms, commcap;
	hashidx commidx;       /* comms by key */
	size_t lastcomm;       /* the one found or made last: init lines come in runs of one */
	size_t ncommranks;     /* ranks held by all communicators */
	wdog *wd;
	size_t nwd, wdcap;
	hashidx wdidx;         /* wd by (proc, pgrank) */
	envset *env;
	size_t nenv, envcap;
	hashidx envidx;        /* env by (proc, var) */
	uint64_t dropped[CAP_COUNT]; /* what the caps refused (findings and names: see model_dropped) */
	evref ev_cap;          /* the first line something was dropped from */
	uint64_t ndrops;       /* model_drop's calls: part of caps_mark */
	uint64_t cur_drops;    /* caps_mark when the current record began */
	uint64_t gen;          /* bumped when a stream or a process's key changes */
	lastproc last;
	struct procidx *pidx;  /* processes by input, built as model_guess_proc needs it */
	stream *streams;       /* open addressing on (file, tag); proc -1 = empty */
	size_t streamcap;      /* a power of two */
	size_t nstreams;
	/* the process a line without a launcher's tag was the stream of last,
	 * good while gen and the strings stay as they were (proc -1: none) */
	struct {
		int file, proc;
		uint64_t gen;
		size_t nstr;
	} tagless;
	evref ev_killed;       /* the launcher killed the job (time limit, SIGTERM) */
	evref ev_excerpt;      /* a cut mark ("[...]"): the logs are an excerpt */
	intset table_hosts;    /* hosts of a device table (nccl-tests' "# Using devices") */
	sysev *sys;            /* what the kernel, the scheduler and RAS said (capped) */
	size_t nsys, syscap;
	int *syshash;          /* open addressing over sys (SYSEV_HASH slots, -1 empty) */
	size_t syshashed;      /* events of sys indexed there */
	unsigned syskinds[16]; /* events of each kind: one kind's flood leaves room for the others */
	ntrun *nt;             /* nccl-tests runs */
	size_t nnt, ntcap;
	sysline *pend;         /* lines a later part left for the merge (capped) */
	size_t npend, pendcap;
	int nloose;            /* distinct catch-all findings, capped */
	struct frmatch_report *fr; /* the Flight Recorder dumps' match, or NULL */
	uint64_t nccl_records; /* records with NCCL's prefix or level word */
	uint64_t matched;      /* records some rule matched */
	long snap_seq;         /* the collective of the desync snapshot list being read, -2 */
	int snap_file;         /* and where its last line is */
	uint64_t snap_line;
	findings fs;
	/* live mode: the wall clock (0 in analyze: all input is there), and
	 * how long a process must be quiet before its absence means something */
	double now, settle;
	/* reading a later part of an input: who wrote a line without NCCL's
	 * prefix is left to the merge, which knows the earlier parts */
	bool partial;
	/* the record being fed */
	int cur_file;
	uint64_t cur_line, cur_off;
	int cur_proc;
	/* the "via" text of the last channel line, and the transports it names */
	char via[32];
	size_t via_n;
	unsigned via_bits;
	const record *cur;
	slice cur_text;
	const linespan *cur_span; /* its physical lines when it was joined, or NULL */
	bool cur_explained;       /* a rule matched it (a finding, a fact, benign) */
	bool cur_fwerr;           /* a framework error line that names NCCL or c10d */
	unsigned cur_sys_done;    /* system readers (1 nccl-tests, 2 RAS) that read its lines already */
	int msg_file, msg_proc;   /* a prefixed message whose next lines carry no prefix, or -1 */
} model;

void model_init(model *m, const catalog *cat);
/* The same with the keys of its tables derived from key: the models of
 * one run (one per input on the thread pool) share a key drawn once. */
void model_init_keyed(model *m, const catalog *cat, const hashkey *key);
/* Sets every fact of p to its initial value (facts.h). */
void model_proc_init(proc *p);
void model_free(model *m);
/* Adds a process that no log line introduced (doctor's node, say): host
 * and pid as given, everything else unknown. Returns its index. */
int model_add_proc(model *m, const char *host, long pid, int file);
/* True for interface names NCCL users should not bootstrap over: container
 * bridges and veths, VPNs and tunnels, wireless (docker*, veth*, wl*, ...). */
bool model_iface_virtual(const char *name);
/* The process a launcher stream (file, interned tag; -1 for the file's
 * untagged lines) was last seen with, or -1; and setting it (merges). */
int model_stream_proc(const model *m, int file, int tag);
void model_stream_set(model *m, int file, int tag, int pi);
/* The process NCCL's prefix names by host and pid, or -1 (hashed). */
int model_proc_find(const model *m, int host, long pid);
/* Says that procs[pi], made before, now has a host and pid of its own, or
 * another rank or launcher rank: the lookups above and below index them. */
void model_proc_keyed(model *m, int pi);
/* The process a line without NCCL's prefix most likely belongs to, from
 * its launcher rank (-1: none) in the same file; -1 when none fits. */
int model_guess_proc(const model *m, int file, int lrank, bool untagged);
/* True when the inputs held anything to analyze: an NCCL line, a line a
 * rule knows, or a Flight Recorder dump. */
bool model_has_content(const model *m);
/* The communicator with that key, or NULL; and making it (NULL past
 * MODEL_MAX_COMMS, counted). */
comm *model_comm_find(const model *m, int key);
comm *model_comm_get(model *m, int key, int nranks);
/* The interned key of a communicator's name (its commId): the last one's
 * without hashing when it is the same; -1 when the names are full. */
int model_comm_key(model *m, slice name);
/* Marks rank (0 <= rank < c->nranks) of c with flags and, when pi >= 0
 * and none is known yet, its process. False when the rank is new and
 * MODEL_MAX_COMM_RANKS are held (counted). */
bool model_comm_mark(model *m, comm *c, int rank, unsigned flags, int pi);
/* The process of a rank of c, or -1. */
int model_comm_proc(const comm *c, int rank);
/* True when rank of c has every flag of flags. */
bool model_comm_has(const comm *c, int rank, unsigned flags);
/* The ranks of c with every flag of flags (0: all held), ascending, in
 * *out (the caller frees it); returns their count. */
size_t model_comm_ranks(const comm *c, unsigned flags, int **out);
/* The watchdog report of (process, rank) and the setting of (process,
 * variable), or NULL; and indexing wd[i] and env[i] once appended (the
 * caller checks the caps). */
wdog *model_wdog_find(const model *m, int pi, int pgrank);
void model_wdog_indexed(model *m, int i);
envset *model_env_find(const model *m, int pi, int var);
void model_env_indexed(model *m, int i);
/* What cap dropped so far: its own count and what the findings and the
 * strings count for it. */
uint64_t model_dropped(const model *m, enum model_cap cap);
/* Counts one thing a cap dropped at the current line. */
void model_drop(model *m, enum model_cap cap);
/* Everything the caps dropped; and citing the current line as the first
 * one something was dropped from (once). */
uint64_t caps_total(const model *m);
/* A count that grows whenever a cap drops something while records are
 * fed (model_drop, the findings' and the strings' own counts): what
 * tells that a record dropped anything, without summing every cap. */
uint64_t caps_mark(const model *m);
void caps_note_line(model *m);
/* Takes the report of the job's Flight Recorder dumps (m frees it). */
void model_take_fr(model *m, struct frmatch_report *r);
/* Takes one item of a RAS JSON report or event stream read from input
 * file, at its line (1-based; 0 unknown); text is the evidence to cite. */
struct ras_item;
void model_take_ras(model *m, int file, uint64_t line, const struct ras_item *it, const char *text);
/* Takes a nccl-tests JSON report read from input file. */
struct ncclt_run;
void model_take_ncclt(model *m, int file, const struct ncclt_run *run);
/* The input of that name, or -1. */
int model_input_find(const model *m, const char *name);
/* The finding id of an ncclResult_t code ("nccl-remote-error" for 6), or NULL. */
const char *model_result_id(int code);
/* Registers an input; returns its index. */
int model_add_input(model *m, const char *name);
/* Makes m (new, empty) use the input table of from, which must outlive it
 * and not grow meanwhile: reader threads share one table of the run's
 * inputs instead of a copy each. m counts the inputs it reads itself. */
void model_borrow_inputs(model *m, const model *from);
/* Where the line and byte counts of input `file` are kept in m. */
input *model_input_counts(model *m, int file);
/* Feeds one record (after rule gating) of input `file`, at line `lineno`
 * that starts at byte `off`; span lists its physical lines when reassembly
 * joined several (NULL otherwise). The span must stay valid until
 * model_record_end. */
void model_record(model *m, int file, uint64_t lineno, uint64_t off, const record *r, const linespan *span);
/* Ends the record fed last, after its rule matches: an NCCL WARN, or a
 * framework error line naming NCCL, that no rule explained goes to a
 * catch-all finding, grouped by its text. */
void model_record_end(model *m);
/* Notes a line that no rule needs: only its time, for the last activity of
 * its process. Never allocates. */
void model_activity(model *m, int file, uint64_t lineno, uint64_t off, slice line);
/* The same for a line whose prefixes li may already know (and learns). */
void model_activity_info(model *m, int file, uint64_t lineno, lineinfo *li);
/* The same for each part of a line redrawn with \r that holds no date in
 * any part: a part may only end a c10 message. */
void model_activity_undated(model *m, int file, slice line);
/* Feeds one rule match on the current record. */
void model_match(model *m, const match *mt);
/* Merges src (the model of later inputs) into dst, as if dst had read
 * src's inputs after its own. Inputs listed by both at the same index are
 * one input (threads of one run); the others are appended. src is left as
 * it was. */
void model_merge(model *dst, const model *src);
/* Merges src into dst as model_merge does, and frees src. When dst holds
 * nothing yet and src read the start of one of its inputs on a thread,
 * dst takes src's tables instead of copying them: a big input costs the
 * memory of one model, not two. */
void model_merge_take(model *dst, model *src);
/* Runs the job-level checks; call once at end of input (or on a live tick). */
void model_check(model *m);
/* The rank to show for a process: from its communicator, its launcher, or
 * its file name; -1 when unknown. */
int model_proc_rank(const model *m, int proc);
const char *model_host(const model *m, int proc);

/* The transports seen between two hosts (the same host twice: within it). */
typedef struct hostlink {
	int a, b;            /* interned hosts, a <= b */
	unsigned via;
} hostlink;
/* Fills *out (caller frees) from the channel lines; returns the count. */
size_t model_hostlinks(const model *m, hostlink **out);
/* Appends "NET/IB+GDRDMA" style text for transport bits. */
void transport_str(unsigned via, strbuf *b);

/* Job facts for reports. */
typedef struct jobinfo {
	int nranks;          /* of the largest communicator, 0 when unknown */
	int ranks_seen;
	intset hosts;        /* interned host ids */
	intset versions;     /* interned version strings */
	int main_comm;
	long driver;         /* lowest cudaDriverVersion seen, 0 */
} jobinfo;
void model_jobinfo(const model *m, jobinfo *j);
void jobinfo_free(jobinfo *j);

#endif

/* Appends "ranks 0-3 on node-a" (or "rank 4 on node-b", "the processes on
 * node-c") for a set of processes, as the subject of a sentence. Returns
 * whether that subject is one (a rank, or a process), for its verb. */
bool model_describe(const model *m, const intset *procs, strbuf *b);
/* Where a finding sits: the ranks it names itself, else those of its
 * processes; the hosts of both; and when none is known and the job shows
 * one host only, that host. The sets are the caller's to free. */
void model_finding_place(const model *m, const finding *f, intset *ranks, intset *hosts);
/* Appends "ranks 0-3 on node-a" for a place. */
void model_describe_place(const model *m, const intset *ranks, const intset *hosts, strbuf *b);
/* The process that failed first: earliest timestamped WARN, else the first
 * WARN that is not a mere report of a peer going away; -1 when none. */
int model_first_failure(const model *m);
