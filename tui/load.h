/* Loading finished logs for the viewer: each file goes through the one
 * pipeline in chunks, so that a progress bar can be drawn between chunks
 * and the line index of each input is built on the way. */
#ifndef NCCLOG_TUI_LOAD_H
#define NCCLOG_TUI_LOAD_H

#include "../model/pipeline.h"
#include "lineidx.h"

/* Called between chunks with the bytes read so far and in total; returns
 * false to stop loading (the user interrupted). */
typedef bool (*load_progress_fn)(void *ctx, uint64_t done, uint64_t total, const char *name);

/* Whether path can be viewed: a readable regular file, not compressed.
 * On error, -1 is returned and a line is appended to *err. */
int load_check(const char *path, strbuf *err);
/* Bytes in all the inputs, for the progress bar (unreadable ones count 0). */
uint64_t load_total(char **paths, size_t n);
/* Feeds each path to the model as one input and initialises idx[f] for
 * each input f it adds (idx has room for n; m->nin entries are in use
 * after). Unreadable inputs are skipped with a line in *err.
 * Returns the number of inputs read, or -1 when progress asked to stop. */
int load_files(model *m, ruleset *rs, char **paths, size_t n, lineidx *idx, load_progress_fn progress,
	       void *ctx, strbuf *err);

#endif
