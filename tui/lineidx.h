/* Finding lines of an input again without keeping them: a sparse index of
 * (line number, byte offset) checkpoints taken while the input is parsed,
 * then reads by offset. Memory is one checkpoint per chunk read. */
#ifndef NCCLOG_TUI_LINEIDX_H
#define NCCLOG_TUI_LINEIDX_H

#include <stdint.h>

#include "../util/str.h"

/* The longest part of a line that is read back for display or search. */
#define LINEIDX_MAX_READ 4096u

typedef struct lineidx {
	char *path;          /* the file read back, NULL for a spool or lines not kept */
	int fd;              /* opened on first read, -1; a spool's from the start */
	bool kept;           /* the lines can be read back */
	uint64_t limit;      /* bytes that can be read back, 0: all (a spool that filled up) */
	struct lineck { uint64_t line, off; } *ck;
	size_t nck, ckcap;
	uint64_t lines;      /* lines in the input */
	uint64_t memo_line, memo_off; /* the last line found, for sequential reads */
} lineidx;

/* An index over the file at path, opened on the first read. */
void lineidx_init(lineidx *x, const char *path);
/* An index over fd, which it takes (a spool of decompressed or piped
 * bytes, already unlinked). */
void lineidx_init_fd(lineidx *x, int fd);
/* An input whose lines are not kept (standard input in live mode). */
void lineidx_init_none(lineidx *x);
void lineidx_free(lineidx *x);
/* Whether the lines of x can be read back. */
bool lineidx_kept(const lineidx *x);
/* The descriptor to read x from (opened now when needed), or -1. */
int lineidx_fd(lineidx *x);
/* The last checkpoint at or before line `line`: its line and offset. */
void lineidx_checkpoint(const lineidx *x, uint64_t line, uint64_t *ck_line, uint64_t *ck_off);
/* Records that line number `line` (1-based) starts at byte `off`. */
void lineidx_mark(lineidx *x, uint64_t line, uint64_t off);
/* Finds where line `line` starts. Returns 0 and *off, or -1 when the line
 * does not exist or the file cannot be read. */
int lineidx_seek(lineidx *x, uint64_t line, uint64_t *off);
/* Reads the line starting at `off` into b (raw bytes, without the newline
 * and a trailing CR, at most LINEIDX_MAX_READ). Returns 0, or -1 on error. */
int lineidx_read(lineidx *x, uint64_t off, strbuf *b);
/* lineidx_seek, then lineidx_read. */
int lineidx_get(lineidx *x, uint64_t line, strbuf *b);

#endif
