/* What the viewer shows: a filter over ranks and findings by severity,
 * host and rank, typed as words ("node-b error", "r3-7", "gpu-00*").
 * Words of one kind widen the filter (any of the hosts), kinds narrow it
 * (the hosts and the ranks and the severity). No curses here. */
#ifndef NCCLOG_TUI_FILTER_H
#define NCCLOG_TUI_FILTER_H

#include "../model/model.h"

#define FILTER_MAX_HOSTS 16

typedef struct filterset {
	int min_sev;                       /* -1: every severity */
	char *hosts[FILTER_MAX_HOSTS];     /* globs (fnmatch) or substrings of host names */
	size_t nhosts;
	intset ranks;                      /* empty: every rank */
} filterset;

void filter_init(filterset *f);
void filter_free(filterset *f);
/* Parses words into f (replacing it): "error", "warning", "info" (or
 * "err", "warn", "sev=error"), a rank or rank list ("r5", "3-7,9",
 * "rank=5"), else a host ("host=gpu-01", "gpu-0*", "node-b"); an empty
 * text clears it. On error, -1 is returned, f is unchanged and *err says
 * why. On success, 0 is returned. */
int filter_parse(filterset *f, const char *text, strbuf *err);
/* Whether a host or rank part is set (beyond severity). */
bool filter_scoped(const filterset *f);
/* Whether process p (rank `rank`, -1 unknown) passes the host and rank
 * parts of f. */
bool filter_proc(const filterset *f, const model *m, int p, int rank);
/* Whether finding fd passes f: its severity, and one of its ranks or
 * hosts when f names some. */
bool filter_finding(const filterset *f, const model *m, const finding *fd);
/* The filter in words, for the header: "node-b r3-7 error+" (empty when
 * everything passes). */
void filter_describe(const filterset *f, strbuf *b);

#endif
