/* The one pipeline: bytes -> lines -> logical lines (hard-wrapped pastes
 * joined back) -> records -> rule matches -> job model. analyze, live and
 * view all feed their bytes through it. */
#ifndef NCCLOG_PIPELINE_H
#define NCCLOG_PIPELINE_H

#include "../parser/join.h"
#include "../parser/lines.h"
#include "../rules/rules.h"
#include "model.h"

/* Lines longer than this are cut (and marked) to keep memory bounded. */
#define PIPELINE_MAX_LINE (256u * 1024u)

/* The literals the gate found in the chunk being fed, scanned ahead of
 * the lines a block at a time: a line with none costs no scan of its own.
 * While lines repeat (the line memo is hot), a line at a time: the lines
 * the memo knows are not scanned. */
typedef struct gatefound {
	int val;
	size_t start, len, at; /* in the chunk; at: where found, in order */
} gatefound;

typedef struct chunkscan {
	slice buf;       /* the chunk fed, SLICE_NONE between feeds */
	size_t scanned;  /* positions [0, scanned) are scanned */
	gatefound *v;    /* v[first..n): found at or after the line asked about last */
	size_t first, n, cap;
	size_t lossy;    /* found at or after this were dropped (a list full of them) */
	int *vals;       /* scratch: the values in one line */
	size_t valcap;
} chunkscan;

typedef struct pipeline {
	model *m;
	ruleset *rs;
	linesplit ls;
	int file;
	uint64_t bytes;
	uint64_t first_line;
	uint64_t cut_lines;
	/* Reassembly. A full-width line with a gate hit waits in j until the
	 * next line says whether it goes on (JS_HELD; its gate hits are kept
	 * to avoid a second scan). A full-width line without a hit is kept as
	 * prev, a slice of the current chunk (copied to prevbuf when the chunk
	 * goes); when the next line continues it, both are gathered in j
	 * (JS_GATHER) until a hit turns up, maybe a literal cut in two. */
	joiner *j;
	enum { JS_NONE, JS_HELD, JS_GATHER } state;
	gatehits hits;
	memoref held_ref; /* the held line in the line memo */
	/* the held line's NCCL "host:pid:tid" token length (lineinfo's
	 * nccl_tok), 0 when unknown; line_tok: the line being read's */
	size_t held_tok, line_tok;
	/* a wide line with a hit need not be held when the next line, in the
	 * chunk already, shows it ends: ahead_tok is the token that showed of
	 * the line at ahead_at, read next */
	const char *ahead_at;
	size_t ahead_tok;
	slice prev;
	uint64_t prev_no, prev_off;
	char *prevbuf;
	char *linkbuf; /* the line read with a paste's markdown links undone */
	bool plain;    /* the chunk being fed holds no "://" and no backtick */
	bool avx2;     /* the CPU has it: chunk_plain's wider pass */
	chunkscan cs;
	recprefix pfx; /* the NCCL prefix of the record read last */
} pipeline;

void pipeline_begin(pipeline *p, model *m, ruleset *rs, int file);
/* For a part of an input that starts at line `first_line` (1-based) and
 * byte `first_off`: line numbers and offsets stay those of the whole. */
void pipeline_begin_at(pipeline *p, model *m, ruleset *rs, int file, uint64_t first_line, uint64_t first_off);
void pipeline_feed(pipeline *p, const char *buf, size_t n);
/* Emits a partial last line and a held line now (live mode: the writer
 * went quiet). */
void pipeline_flush(pipeline *p);
/* Analyzes a complete line that waits for a continuation now (live mode:
 * the reader has drained what was written, and a wrapped paste arrives in
 * one piece). */
void pipeline_settle(pipeline *p);
/* True when a partial line or a line waiting for its continuation is held. */
bool pipeline_pending(const pipeline *p);
/* Flushes what is pending; the input's counts go to the model. */
void pipeline_end(pipeline *p);
/* Analyzes one line as if read from the input (for tests and fuzzing). */
void pipeline_line(pipeline *p, const line *l);

#endif
