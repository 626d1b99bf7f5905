/* The rows of the timeline, derived from the job model: one per rank,
 * grouped by host, each with flags that say at a glance whether it
 * stopped early, never completed init, warned, failed or timed out.
 * Rebuilding from the model is cheap and can be repeated (live mode). */
#ifndef NCCLOG_TUI_ROWS_H
#define NCCLOG_TUI_ROWS_H

#include "../model/model.h"
#include "filter.h"

enum rank_flag {
	RF_STOPPED = 1,  /* stopped early: behind the other ranks */
	RF_NOINIT = 2,   /* never logged Init COMPLETE */
	RF_WARN = 4,     /* logged a WARN */
	RF_ERROR = 8,    /* named by an error finding */
	RF_TIMEOUT = 16, /* named by a timeout finding */
	RF_ABORT = 32,   /* its communicator was aborted */
};

/* Why a rank counts as stopped early (the first reason found). */
enum stop_why { STOP_NONE, STOP_LATE, STOP_PHASE, STOP_FEWER, STOP_NO_REPORT, STOP_FINDING, STOP_SILENT, STOP_FR };

/* The host key of the group of ranks known only from their Flight
 * Recorder dumps (no log of theirs was given). */
#define ROWS_FR_ONLY (-2)

typedef struct rrank {
	int proc;              /* -1: a rank known only from its Flight Recorder dump */
	int rank;              /* -1 unknown */
	int fr_pg;             /* STOP_FR: the process group (m->fr) it is behind in */
	int why_finding;       /* STOP_FINDING: the finding that names it behind */
	int group;
	unsigned flags;
	enum stop_why why;
	int sev;               /* worst severity of its findings, -1 none */
	int last_file;         /* where its last line is, -1 unknown */
	uint64_t last_line, last_off;
	bool last_known;       /* last_off found */
	bool last_checked;     /* a launcher's own line at the end was skipped */
} rrank;

typedef struct rgroup {
	int host;              /* interned, -1 for "no host" */
	size_t first, n;       /* its ranks: r[first .. first+n) */
	bool collapsed;
	unsigned flags;        /* union of its ranks' flags */
	int nstopped, nnoinit;
	enum phase minph, maxph;
} rgroup;

typedef struct rrow {
	bool group;
	size_t idx;            /* into g or r */
} rrow;

typedef struct rows {
	const model *m;
	proc ghost;            /* the facts of a rank without a process: none */
	rrank *r;
	size_t nr;
	rgroup *g;
	size_t ng;
	rrow *vis;             /* the rows shown, after collapsing and filtering */
	size_t nvis, viscap;
	bool timed;            /* the axis is real time */
	double t0, t1;
} rows;

/* (Re)builds ranks and groups from the model; the collapsed state of each
 * host survives. */
void rows_build(rows *w, const model *m);
/* Recomputes the visible rows: groups, and the ranks of expanded groups
 * that pass the filter. */
void rows_layout(rows *w, const filterset *f);
/* Whether rank row i passes the filter: its host and rank; at error level
 * the ranks that stopped early, failed, timed out or aborted; at warning
 * level also those that warned or never completed init. */
bool rows_pass(const rows *w, size_t i, const filterset *f);
/* The visible row of rank i, expanding its group when needed; -1 when the
 * filter hides it. */
long rows_reveal(rows *w, size_t i, const filterset *f);
void rows_free(rows *w);
/* The process of rank row r (nothing known for a rank without one). */
const proc *rows_proc(const rows *w, const rrank *r);

#endif
