/* Loading finished inputs for the viewer: each log goes through the one
 * pipeline in chunks, so that a progress bar can be drawn between chunks
 * and the line index of each input is built on the way. Inputs that are
 * not logs (Flight Recorder dumps, told by their bytes) reach the model
 * through ingest/structured.h. Standard input, compressed files and pipes
 * are read once and kept, decompressed, in a spool: an unlinked temporary
 * file under $TMPDIR, so that their lines can be read back by offset. */
#ifndef NCCLOG_TUI_LOAD_H
#define NCCLOG_TUI_LOAD_H

#include "../model/pipeline.h"
#include "lineidx.h"

/* Bytes a spool keeps at most, unless NCCLOG_SPOOL_MAX says otherwise
 * (bytes, or with a K, M or G suffix); lines after it are analyzed but
 * cannot be read back. */
#define LOAD_SPOOL_MAX (8ull << 30)

/* Called between chunks with the bytes read so far and in total; returns
 * false to stop loading (the user interrupted). */
typedef bool (*load_progress_fn)(void *ctx, uint64_t done, uint64_t total, const char *name);

/* Whether path ("-": standard input) can be viewed. On error, -1 is
 * returned and a line is appended to *err. */
int load_check(const char *path, strbuf *err);
/* Feeds paths[0..n) to the model as inputs 0..n-1 (logs through the
 * pipeline, on `jobs` threads when there are several and none is standard
 * input; dumps through their reader) and initialises idx[f] for each.
 * Unreadable inputs are skipped with a line in *err; what is worth saying
 * but no error (a spool that filled up) goes to *notes. Returns the number
 * of inputs read, or -1 when progress asked to stop. */
int load_files(model *m, ruleset *rs, char **paths, size_t n, int jobs, lineidx *idx, load_progress_fn progress,
	       void *ctx, strbuf *err, strbuf *notes);

#endif
