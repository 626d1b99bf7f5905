/* The viewer: a state over a job model that can be redrawn from the model
 * at any time (view_draw), and an event loop over one poll() of the
 * terminal (and, for a later live mode, a data descriptor). */
#ifndef NCCLOG_TUI_VIEW_H
#define NCCLOG_TUI_VIEW_H

#include "../model/model.h"
#include "lineidx.h"
#include "rows.h"
#include "term.h"

enum pane { PANE_TIMELINE, PANE_FINDINGS, PANE_DETAIL, PANE_COUNT };

/* What the detail pane shows: facts and recent lines of the selected rank
 * or finding, or raw lines of an input read back by offset. */
enum detail_mode { DET_RANK, DET_FINDING, DET_RAW };

typedef struct view {
	const model *m;
	term *t;
	lineidx *idx;          /* one per input of the model */
	rows rw;
	int filter;            /* minimum severity shown, -1 all */
	enum pane focus;
	/* layout, recomputed by each draw */
	int H, W, tl_y, tl_h, fd_y, fd_h, dt_y, dt_h;
	/* timeline */
	long tl_cur, tl_top;
	bool center;           /* scroll the cursor to mid-pane at the next draw */
	/* findings: indices into m->fs passing the filter */
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
	/* search */
	bool prompting;
	strbuf input;          /* what is being typed after "/" */
	char query[256];
	/* overlays and messages */
	bool help;
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

/* Sets up a view over m (not owned) and builds its rows. */
void view_init(view *v, const model *m, term *t, lineidx *idx);
void view_free(view *v);
/* Rebuilds rows and finding lists after the model changed. */
void view_refresh(view *v);
/* Draws everything from the model and the view state. */
void view_draw(view *v);
/* Runs the event loop until q, a signal or an error. Returns 0 after q,
 * 1 after SIGINT or SIGTERM, -1 when the terminal failed or went away. */
int view_run(view *v);

/* Shared by the panes and the key handlers. */
const finding *view_finding(const view *v);  /* the selected finding, or NULL */
long view_rank(const view *v);               /* the selected rank row, or -1 */
void view_status(view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text of rank row i's last line, safe to draw, into b. */
void view_last_line(view *v, size_t i, strbuf *b);
/* Opens the raw lines of input `file` at `line` in the detail pane. */
void view_drill(view *v, int file, uint64_t line);
/* Whether the raw lines of input `file` can be read back. */
bool view_kept(const view *v, int file);
/* The lines of process p that the model kept a copy of (for inputs whose
 * lines are not kept), oldest first, into out; returns how many. */
#define VIEW_COPIES PROC_NEVIDENCE
size_t view_copies(const proc *p, const evref *out[VIEW_COPIES]);
/* "12s", "3m", "2h": how long ago t was, at the model's clock. */
void view_age(const view *v, double t, char *buf, size_t n);

#endif
