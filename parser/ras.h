/* NCCL's RAS subsystem (2.24+) as its clients print it: the `ncclras`
 * status report (job summary, communicators table, Errors and Warnings
 * with the processes and ranks they name), the monitor events of
 * `ncclras -m` (2.29+), the JSON report of `ncclras -f json` (2.28.7+) and
 * its JSON events, and the `NCCL DIAG` lines of 2.31's diagnostics. Each
 * reads into the same items, so text and JSON reach the model alike.
 * Pure parsing: nothing here knows the job model. */
#ifndef NCCLOG_RAS_H
#define NCCLOG_RAS_H

#include "../util/str.h"

enum ras_kind {
	RAS_NONE,
	RAS_VERSION,      /* the NCCL of the RAS thread that answered: a */
	RAS_COMM_GROUP,   /* a row of the communicators table: n = comms, nodes, ranks per comm; a status, b errors */
	RAS_COMM_MEMBER,  /* JSON: a rank that answered for its communicator */
	RAS_PROC_MISSING, /* a process that gave no communicator data (INCOMPLETE) */
	RAS_PROC_DEAD,    /* a process RAS considers dead (DEAD, PEER_DEAD; a: its RAS address when only that is known) */
	RAS_RANK_MISSING, /* a rank of a communicator that gave no data; code 1 when considered dead */
	RAS_RANK_ERROR,   /* a rank that reported an error: code (ncclResult_t), a its text */
	RAS_RANK_BEHIND,  /* a rank whose operation count (n[0]) is below the others' (n[1]); a the operation */
	RAS_RANK_AHEAD,   /* a rank whose count (n[0]) is above that of the n[2] others (n[1]): they are behind */
	RAS_RANK_STATUS,  /* a rank whose status (a) differs from the others' (b) */
	RAS_TIMEOUTS,     /* n[0] communication timeouts while gathering */
	RAS_EVENT,        /* a monitor event other than PEER_DEAD: a its name, b the details */
	RAS_DIAG,         /* an NCCL DIAG result: code 1 for [INFO] (0 [OK]); a the check, b the text */
	RAS_LISTEN,       /* NCCL's INFO line: this process's RAS thread listens at a ("10.0.0.5<30411>") */
};

/* One thing a report says. Slices point into the line (or JSON) given. */
typedef struct ras_item {
	enum ras_kind kind;
	slice hash;     /* communicator hash in hex, without 0x */
	long rank, pid; /* -1 when not given */
	long size;      /* communicator size, 0 */
	slice node;     /* the host as RAS names it (an address), or the DIAG line's host */
	slice gpus;     /* "5", "0,1", "5 (NVML 3)" */
	slice a, b;
	long n[3];
	int code;
	double time;    /* an event's time (local time read as UTC), 0 */
} ras_item;

/* Where a report is between its lines: the section and block that give a
 * "Process ... on node ..." line its meaning. Zero is the start. */
typedef struct ras_cursor {
	int section, block, sub;
	char hash[20];
	long group_value, majority, majority_ranks;
	bool have_majority;
	char group_text[48], majority_text[48];
	int group_code;
	char pending[64];  /* ranks of a 2.24 "The missing ranks: 3,5" line not yet given out */
	size_t pending_at;
} ras_cursor;

/* Reads one line of a text report or monitor stream (launcher prefix and
 * indentation already stripped; t is a leading "[date time]" already read,
 * or 0). Fills *out and returns true when the line says something about a
 * process, rank or communicator; false for structure and other lines.
 * A line may hold several ranks: call ras_text_more until it says false. */
bool ras_text_line(ras_cursor *c, slice line, double t, ras_item *out);
bool ras_text_more(ras_cursor *c, ras_item *out);

/* The kind of JSON document a text starts with. */
enum ras_json_kind { RAS_JSON_NONE, RAS_JSON_REPORT, RAS_JSON_EVENTS };
enum ras_json_kind ras_json_sniff(const unsigned char *b, size_t n);

/* Calls fn for each item of a JSON report, or of a stream of JSON events
 * (objects one after another, after an optional "RAS Monitor Mode" banner).
 * at is the byte offset of the object the item comes from (for its line).
 * On error, -1 is returned and *err says why (items before it were given). */
#define RAS_MAX_JSON (64u << 20)
typedef void (*ras_item_fn)(void *ctx, const ras_item *it, size_t at);
int ras_json_read(const char *buf, size_t n, ras_item_fn fn, void *ctx, strbuf *err);

/* The ncclResult_t of a RAS error text ("Remote process error": 6), or 0. */
int ras_error_code(slice text);

#endif
