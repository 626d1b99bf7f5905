/* The viewer's state over a job model: what is selected, scrolled,
 * filtered and searched, and the questions the panes ask of it. The state
 * can be redrawn from the model at any time (draw.h); keys and the event
 * loop that change it are in keys.h. No curses here. */
#ifndef NCCLOG_TUI_VIEW_H
#define NCCLOG_TUI_VIEW_H

#include "../model/model.h"
#include "filter.h"
#include "lineidx.h"
#include "rows.h"
#include "search.h"
#include "term.h"

enum pane { PANE_TIMELINE, PANE_FINDINGS, PANE_DETAIL, PANE_COUNT };

/* What the detail pane shows: facts and recent lines of the selected rank
 * or finding, or raw lines of an input read back by offset. */
enum detail_mode { DET_RANK, DET_FINDING, DET_RAW };

/* What the bottom line is reading from the keyboard. */
enum prompt { PR_NONE, PR_SEARCH, PR_FILTER };

typedef struct view {
	const model *m;
	term *t;
	lineidx *idx;          /* one per input of the model */
	rows rw;
	filterset flt;            /* the ranks and findings shown */
	enum pane focus;
	/* layout, recomputed by each draw */
	int H, W, legend_h, tl_y, tl_h, fd_y, fd_h, dt_y, dt_h;
	/* timeline */
	long tl_cur, tl_top;
	bool center;           /* scroll the cursor to mid-pane at the next draw */
	/* findings: indices into m->fs passing the filterset */
	int *fvis;
	size_t nfvis, fviscap;
	long fd_cur, fd_top;
	/* detail */
	enum detail_mode dmode;
	enum pane from;        /* where Esc returns from raw lines */
	long dt_top;           /* first line shown (summary modes) */
	size_t dt_lines;       /* lines of the last summary drawn */
	int raw_file;
	uint64_t raw_top, raw_mark; /* first line shown, the line drilled into */
	int hscroll;           /* columns the text of the panes is scrolled right */
	/* the answer on top (report_verdict), worded at each refresh */
	strbuf verdict, fix;
	/* the bottom line as a prompt */
	enum prompt prompt;
	strbuf input;
	/* search: the pattern, and a scan under way */
	search *re;
	scan sc;
	bool scanning;
	unsigned sc_more; /* n or N typed while it scanned: matches to go past */
	uint64_t hits_seen;    /* matches found by n/N since the pattern was set */
	/* overlays and messages */
	bool help;
	long help_top;
	strbuf msg;
	bool quit;
	/* a descriptor with more log data and what to do when it is readable;
	 * -1 and NULL for finished logs. The callbacks return true to redraw. */
	int data_fd;
	bool (*on_data)(struct view *v, void *ctx);
	/* live logs: called after every poll, which then waits 100 ms at most,
	 * so that time passing (silence, clocks, files) is seen without data */
	bool (*on_tick)(struct view *v, void *ctx);
	void *data_ctx;
	/* live logs: rank rows show how long ago each was heard from (m->now),
	 * and the header what the input is doing ("reading", "input ended") */
	bool live;
	const char *state;
} view;

/* The smallest terminal the viewer draws on; below it says so. */
#define VIEW_MIN_COLS 40
#define VIEW_MIN_ROWS 12

/* Sets up a view over m (not owned) and builds its rows. */
void view_init(view *v, const model *m, term *t, lineidx *idx);
void view_free(view *v);
/* Rebuilds rows, finding lists and the verdict after the model changed. */
void view_refresh(view *v);
/* Applies the filter again: the rows and findings shown, the cursors
 * kept on their rank and finding where they still show. */
void view_apply_filter(view *v);

/* Shared by the panes and the key handlers. */
const finding *view_finding(const view *v);  /* the selected finding, or NULL */
/* The finding whose ranks the timeline marks with *: the selected one
 * while the findings or their evidence are looked at; else NULL. */
const finding *view_marking(const view *v);
long view_rank(const view *v);               /* the selected rank row, or -1 */
void view_status(view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text of rank row i's last line, safe to draw, into b. */
void view_last_line(view *v, size_t i, strbuf *b);
/* Opens the raw lines of input `file` at `line` in the detail pane. */
void view_drill(view *v, int file, uint64_t line);
/* Whether the raw lines of input `file` can be read back. */
bool view_kept(const view *v, int file);
/* Lines of input `file` that can be read back. */
uint64_t view_lines(const view *v, int file);
/* The rank row whose process wrote line `line` of input `file` (its NCCL
 * prefix, its launcher's rank tag, or the one process of the file), or -1. */
long view_line_rank(view *v, int file, uint64_t line);
/* Moves the timeline cursor to rank row i, unfolding its host; false when
 * the filter hides it. */
bool view_goto_rank(view *v, size_t i);
/* The lines of process p that the model kept a copy of (for inputs whose
 * lines are not kept), oldest first, into out; returns how many. */
#define VIEW_COPIES PROC_NEVIDENCE
size_t view_copies(const proc *p, const evref *out[VIEW_COPIES]);
/* "12s", "3m", "2h": how long ago t was, at the model's clock. */
void view_age(const view *v, double t, char *buf, size_t n);

#endif
