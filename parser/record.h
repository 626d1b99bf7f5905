/* One log record: a line (or the part of a line that one process wrote)
 * with its launcher prefix and NCCL prefix split out. Every field is a
 * slice into the caller's line; parsing never allocates. */
#ifndef NCCLOG_RECORD_H
#define NCCLOG_RECORD_H

#include "../util/str.h"

enum level { LV_NONE, LV_INFO, LV_WARN, LV_TRACE, LV_CALL, LV_VERSION, LV_ABORT };

/* What a launcher or collector put in front of the line. */
typedef struct launch {
	int rank;    /* global rank it names, or -1 */
	int local;   /* local rank ([default3]:), or -1 */
	slice tag;   /* the prefix text, for grouping lines of one stream */
	slice host;  /* pdsh "host: ", Ray "ip=" */
	double time; /* a bracketed timestamp among the prefixes, or 0 */
	/* the last timestamp read at the start of some text of the line (see
	 * launch_stamp): the prefixes, the reassembly and the activity ask
	 * about the same text, and it is read once */
	struct {
		const char *p;
		size_t n, end; /* end: its length, 0 when there is none */
		double t;
	} stamp;
} launch;
/* A launch with nothing found yet. */
#define LAUNCH_NONE { -1, -1, SLICE_NONE, SLICE_NONE, 0, { NULL, 0, 0, 0 } }

/* record_reset (record.c) sets each field: a new one is set there too. */
typedef struct record {
	slice text;      /* the whole record, prefixes included */
	enum level level;
	bool nccl;       /* carries NCCL's host:pid:tid prefix */
	bool legacy;     /* pre-2.3 form, without the NCCL token */
	slice host;
	long pid, tid;   /* -1 when absent */
	int dev;         /* [cudaDev], -1 when absent */
	slice ts;        /* timestamp text, if any */
	double time;     /* seconds, comparable within one job; 0 when none */
	slice site;      /* WARN call site "misc/socket.cc:484", if any */
	slice func;      /* "(func)" of 2.30.7 WARNs, without parentheses */
	slice body;      /* the message */
	launch ln;
} record;

/* Parses the first record of s into r. Returns how many bytes of s it
 * covers: less than s.n when another process's record is glued after it. */
size_t record_parse(slice s, record *r);
/* What the fast path read of a line's start (an NCCL prefix, up to the
 * body): the next line of the same process starts with the same bytes. */
typedef struct recprefix {
	char b[128];
	size_t n; /* bytes of b, the body's offset; 0: none kept */
	size_t h, host_end;
	long pid, tid;
	int dev;
	enum level lv;
	bool dot; /* the host holds a '.' */
	double t;
} recprefix;
/* record_parse, the same on every line, that reads a line starting with
 * the bytes of the prefix it kept in *known by a compare, and keeps the
 * prefix of s there. *known starts zeroed. */
size_t record_parse_known(slice s, record *r, recprefix *known);
/* The same for every shape, without the fast path for the common one:
 * record_parse must agree with it on every line (tests/unit/test_record.c). */
size_t record_parse_general(slice s, record *r);

/* Trims blanks and a table border ("│", "|") from the end of a message. */
slice frame_trim_end(slice s);
/* Strips launcher prefixes (and indentation, table borders) from the start
 * of s into ln; returns the rest. */
slice launch_strip(slice s, launch *ln);
/* timestamp_parse(s, t), remembered in ln for the same s. */
size_t launch_stamp(launch *ln, slice s, double *t);

/* What the start of a line says, worked out once for all who ask (the
 * activity bookkeeping, reassembly): its launcher prefixes are stripped
 * when first needed, and never twice. */
typedef struct lineinfo {
	slice s;
	bool undated;    /* known to hold no "YYYY-MM-DD" (see line_may_be_dated) */
	bool stripped;
	/* set by join_continues_info when it reads one: the length of an NCCL
	 * "host:pid:tid" token at the very start, followed by a blank; else 0 */
	size_t nccl_tok;
	launch ln;
	slice rest; /* after the launcher prefixes */
} lineinfo;

void lineinfo_init(lineinfo *li, slice s);
/* The line's launcher prefixes (li->rest is set with them). */
const launch *lineinfo_launch(lineinfo *li);
/* The timestamp at the start of at, a part of the line (timestamp_parse),
 * read once a line whoever asks: the reassembly, the prefixes, the
 * activity. */
size_t lineinfo_stamp(lineinfo *li, slice at, double *t);
/* False when s holds no "YYYY-MM-DD" anywhere and no clock "hh:mm:ss" in
 * its head: then no prefix and no timestamp of it has a date, and the line
 * cannot move a time that only dated stamps set. */
bool line_may_be_dated(slice s);

/* Reads a leading timestamp ("2025-03-12 10:22:33", glog "E0709 17:05:38.16",
 * the kernel's dmesg -T "Wed Mar 12 10:22:33 2025" and syslog "Mar 12
 * 10:22:33"; dmesg's "[ 4711.232921]" is a timestamp of time 0).
 * Returns its length (0 when there is none) and the time in *t. */
size_t timestamp_parse(slice s, double *t);

/* Where " w " (the word with a blank on each side) first occurs in s at or
 * after from, or -1. */
long blank_word_find(slice s, size_t from, const char *w);

const char *level_name(enum level lv);

/* glog stamps carry no year and are placed in 2000: only times with a
 * date can be compared across processes. */
static inline bool time_dated(double t)
{
	return t >= 978307200.0; /* 2001-01-01 */
}

#endif
