/* Matching the Flight Recorder dumps of all the ranks of a job, process
 * group by process group, the way PyTorch's fr_trace does (fr_trace's
 * builder.py and utils.py): the collective where a group stopped, the
 * ranks that never joined it, ranks behind on what they completed,
 * collectives called with another op, sizes or dtypes, sends and receives
 * with no partner, and where each rank was in its code.
 *
 * fr_trace's state mismatch (completed on one rank, not on another) shows
 * as each member's standing against the stuck collective.
 *
 * Dumps are added one at a time and can be freed at once: the matcher
 * keeps a fixed summary per rank and, per group, a window of collectives
 * below the highest sequence number seen, so memory grows with the ranks
 * (a few KiB each), never with their ring buffers, and has a cap.
 * Report text has control bytes replaced, not invalid UTF-8: escape it. */
#ifndef NCCLOG_FRMATCH_H
#define NCCLOG_FRMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../parser/frdump.h"
#include "../util/str.h"

#define FRMATCH_WINDOW 4096            /* collectives kept per group, below its highest seq */
#define FRMATCH_MAX_SLOTS (1u << 18)   /* collectives kept over all groups */
#define FRMATCH_MAX_VARIANTS 4         /* distinct ways of calling one collective told apart */
#define FRMATCH_MAX_RANK ((1 << 20) - 1) /* highest rank taken */
#define FRMATCH_MAX_PGS 65536          /* process groups taken */
#define FRMATCH_LAST 8                 /* a rank's last entries kept */
#define FRMATCH_FRAMES 4               /* frames kept of a rank's pending (else last) entry */
#define FRMATCH_PENDING_P2P 64         /* a rank's unfinished sends and receives kept */
#define FRMATCH_EXAMPLES 8             /* ranks named per mismatch */
#define FRMATCH_REPORTED 16            /* mismatches reported per group */
#define FRMATCH_TEXT_BUDGET (8u << 20) /* bytes of op and size texts kept */

/* One call of a collective, as text for reports. */
typedef struct frm_sig {
	char op[40];                 /* "all_reduce", "send 0->1": no backend */
	char in_sizes[64], out_sizes[64]; /* "[[1024, 1024]]" */
	char in_dtypes[40], out_dtypes[40]; /* "Float", "BFloat16,Float" */
	int64_t in_numel, out_numel;
	uint32_t ops; /* entries under this seq: more than 1 when coalesced */
} frm_sig;

typedef struct frm_frame {
	char name[64], file[128];
	int64_t line;
} frm_frame;

typedef struct frm_entry {
	int64_t record_id, seq, p2p_seq;
	int pg; /* index into the report's pgs; -1 when not known */
	bool is_p2p, retired, has_duration;
	fr_state state;
	int64_t time_created_ns, timeout_ms;
	double duration_ms;
	frm_sig sig;
} frm_entry;

typedef struct frm_rank {
	int64_t rank;
	bool has_dump;
	char *file;      /* the dump it came from; NULL without */
	char version[16];
	size_t nentries; /* entries in its dump */
	frm_entry last[FRMATCH_LAST]; /* its last entries, oldest first */
	int nlast;
	bool has_pending;
	frm_entry pending; /* its oldest entry not completed: where it waits */
	bool timed_out;
	frm_entry timeout; /* retired and not completed: the watchdog gave up */
	frm_frame frames[FRMATCH_FRAMES]; /* of the pending entry, else the last; innermost first */
	int nframes;
	int user_frame; /* index of the first frame outside torch's own files; -1 */
	int64_t latest_ns; /* its newest timestamp */
} frm_rank;

/* Where a member of a group stands against the group's stuck collective. */
typedef enum frm_standing {
	FRM_UNKNOWN, /* has a dump without entries or status of the group */
	FRM_AHEAD,   /* completed it */
	FRM_INSIDE,  /* called it and did not complete it */
	FRM_MISSING, /* never called it */
	FRM_NODUMP,  /* no dump */
} frm_standing;

typedef struct frm_member {
	int64_t rank;
	bool has_dump;
	int64_t last_enqueued, last_started, last_completed; /* -1 none */
	frm_standing standing;
	fr_state state; /* in the stuck collective, when INSIDE or AHEAD */
} frm_member;

typedef enum frm_kind {
	FRM_OP,       /* another collective */
	FRM_SIZES,    /* other input or output sizes */
	FRM_DTYPES,   /* other dtypes */
	FRM_NUMEL,    /* all_gather/reduce_scatter sizes that disagree with the group size */
	FRM_ALLTOALL, /* all_to_all: the group sends more than it receives, or less */
} frm_kind;

typedef struct frm_mismatch {
	int64_t seq;
	frm_kind kind;
	frm_sig expected; /* as most ranks called it */
	size_t expected_count;
	int64_t expected_rank; /* one of them */
	frm_sig found;
	int64_t ranks[FRMATCH_EXAMPLES]; /* the ranks that called it so */
	size_t nranks, nranks_total;
} frm_mismatch;

typedef struct frm_p2p {
	int pg;
	int64_t rank, peer; /* global ranks; peer -1 for a receive from any source */
	bool send;
	int64_t p2p_seq, record_id;
	fr_state state;
	frm_sig sig;
	bool peer_has_dump;
	bool size_mismatch; /* paired, with another size: peer_sig */
	frm_sig peer_sig;
} frm_p2p;

typedef struct frm_pg {
	char *name, *desc; /* desc: default_pg, tp, dp, ... or "undefined" */
	frm_member *members; /* sorted by rank; empty when no dump listed the group */
	size_t nmembers;
	bool stuck; /* a member called a collective that not every member completed */
	int64_t stuck_seq;
	bool stuck_sig_known;
	frm_sig stuck_sig;
	int64_t stuck_created_ns; /* earliest creation of it among the ranks */
	size_t n_ahead, n_inside;
	int64_t *missing, *nodump, *unknown, *behind; /* ranks */
	size_t nmissing, nnodump, nunknown, nbehind;
	int64_t max_completed; /* highest last completed seq of its members */
	frm_mismatch *mm;
	size_t nmm, nmm_total;
	size_t dropped; /* collectives older than the window */
} frm_pg;

typedef struct frmatch_report {
	frm_pg *pgs; /* by name (numerically when both are numbers), then members */
	size_t npgs;
	int first_stuck; /* the stuck group whose collective was called first: where the hang began; -1 */
	frm_rank *ranks; /* every rank with a dump, and members without one; sorted */
	size_t nranks;
	frm_p2p *p2p; /* sends and receives with no partner, or another size */
	size_t np2p, np2p_total;
	int64_t *absent; /* members of some group that gave no dump */
	size_t nabsent;
	bool mixed_versions;
	int64_t latest_ns; /* newest timestamp of all dumps: about when they were written */
	size_t dropped, texts_dropped, pgs_dropped;
} frmatch_report;

typedef struct frmatch frmatch;

/* An empty matcher; never NULL. */
frmatch *frmatch_new(void);
/* Takes what matching needs of d, one rank's dump read from file (NULL
 * allowed); d may be freed as soon as this returns. On error (a dump
 * without a rank, a rank out of range, a second dump of a rank), -1 is
 * returned and *err says why. On success, 0 is returned. */
int frmatch_add(frmatch *m, const frdump *d, const char *file, strbuf *err);
/* Matches what was added into *r (released with frmatch_report_free). */
void frmatch_finish(frmatch *m, frmatch_report *r);
/* Frees what r holds. */
void frmatch_report_free(frmatch_report *r);
/* Frees m; NULL is a no-op. A report made from m stays valid. */
void frmatch_free(frmatch *m);

/* "unknown", "ahead", "inside", "missing" or "no-dump". */
const char *frm_standing_name(frm_standing s);
/* "op", "sizes", "dtypes", "numel", "all_to_all". */
const char *frm_kind_name(frm_kind k);
/* The member of g for rank, or NULL. */
const frm_member *frm_pg_member(const frm_pg *g, int64_t rank);
/* The entry of r for rank, or NULL. */
const frm_rank *frm_report_rank(const frmatch_report *r, int64_t rank);

#endif
