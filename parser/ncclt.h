/* nccl-tests (NVIDIA/nccl-tests, the *_perf programs): a row of the size
 * table they print, the kind of its header, and the JSON report of
 * `-J FILE.json` (JSON_FILE_VERSION 1 to 3). Pure parsing: nothing here
 * knows the job model. */
#ifndef NCCLOG_NCCLT_H
#define NCCLOG_NCCLT_H

#include <stdint.h>

#include "../util/str.h"

/* One direction of a row: out-of-place or in-place. wrong is -1 where the
 * run printed "N/A" (no check) or, before nccl-tests 2.13, a max delta. */
typedef struct ncclt_result {
	bool set;
	double time_us, algbw, busbw, wrong;
} ncclt_result;

typedef struct ncclt_row {
	uint64_t size, count;
	char type[16], redop[16];
	long root;                 /* -1 when none */
	ncclt_result out, in;
} ncclt_row;

/* What the column after busbw holds, from the size table's header. */
enum ncclt_col { NCCLT_COL_NONE, NCCLT_COL_WRONG /* "#wrong" (2.13+) */, NCCLT_COL_ERROR /* "error": a max delta */ };

/* Parses a row of the size table ("  134217728  33554432  float  sum  -1
 * 1234.5  108.76  203.93  0  1230.1 ..."): size, count, type, [redop],
 * [root], then time algbw busbw #wrong per direction (also the 8-column
 * per-iteration form of -I 1). Returns false for any other line. */
bool ncclt_row_parse(slice line, ncclt_row *r);
/* The kind of error column a header line announces, or NCCLT_COL_NONE
 * when the line is no size-table header. */
enum ncclt_col ncclt_header_kind(slice line);

/* What a line of a run's text is. */
enum ncclt_kind { NCCLT_OTHER, NCCLT_START, NCCLT_HEADER, NCCLT_ROW, NCCLT_OOB, NCCLT_AVGBW };
typedef struct ncclt_line {
	enum ncclt_kind kind;
	char program[64];          /* NCCLT_START: "all_reduce_perf", or "" */
	enum ncclt_col col;        /* NCCLT_HEADER */
	ncclt_row row;             /* NCCLT_ROW */
	long oob;                  /* NCCLT_OOB: "Out of bounds values : 3 FAILED" */
	double avg_bw;             /* NCCLT_AVGBW: "Avg bus bandwidth : 22.45" */
} ncclt_line;

/* Tells one line (launcher prefix stripped) of a run's output: its start
 * ("# nccl-tests version", "# Collective test starting: X", "# nThread"),
 * the size table's header and rows, and the footer. */
enum ncclt_kind ncclt_line_parse(slice line, ncclt_line *out);

/* A rank of the "# Using devices" table (JSON "devices"). */
typedef struct ncclt_device {
	int rank, pid, device;
	char host[64], bus[32], name[64];
} ncclt_device;

/* A run as its JSON report holds it. */
typedef struct ncclt_run {
	char program[64];          /* "all_reduce_perf", from args[0] */
	long nccl_version;         /* 22703, 0 when absent */
	int version;               /* JSON_FILE_VERSION */
	ncclt_device *dev;
	size_t ndev;
	ncclt_row *rows;
	size_t nrows;
	long out_of_bounds;        /* -1 when absent */
	double avg_busbw;          /* -1 when absent */
	char *error;               /* the first of "errors", or NULL */
} ncclt_run;

/* True when the first n bytes are the start of a nccl-tests JSON report. */
bool ncclt_json_sniff(const unsigned char *b, size_t n);
/* Reads a report (n bytes at most NCCLT_MAX_JSON). On error, -1 is
 * returned and *err says why; *run is then empty. */
#define NCCLT_MAX_JSON (64u << 20)
int ncclt_json_parse(const char *buf, size_t n, ncclt_run *run, strbuf *err);
void ncclt_run_free(ncclt_run *run);

#endif
