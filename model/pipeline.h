/* The one pipeline: bytes -> lines -> records -> rule matches -> job model.
 * analyze, live and view all feed their bytes through it. */
#ifndef NCCLOG_PIPELINE_H
#define NCCLOG_PIPELINE_H

#include "../parser/lines.h"
#include "../rules/rules.h"
#include "model.h"

/* Lines longer than this are cut (and marked) to keep memory bounded. */
#define PIPELINE_MAX_LINE (256u * 1024u)

typedef struct pipeline {
	model *m;
	ruleset *rs;
	linesplit ls;
	int file;
	uint64_t bytes;
	uint64_t first_line;
	uint64_t cut_lines;
} pipeline;

void pipeline_begin(pipeline *p, model *m, ruleset *rs, int file);
/* For a part of an input that starts at line `first_line` (1-based) and
 * byte `first_off`: line numbers and offsets stay those of the whole. */
void pipeline_begin_at(pipeline *p, model *m, ruleset *rs, int file, uint64_t first_line, uint64_t first_off);
void pipeline_feed(pipeline *p, const char *buf, size_t n);
/* Emits a partial last line now (live mode: its writer went quiet). */
void pipeline_flush(pipeline *p);
/* Flushes a last line without newline; the input's counts go to the model. */
void pipeline_end(pipeline *p);
/* Analyzes one line as if read from the input (for tests and fuzzing). */
void pipeline_line(pipeline *p, const line *l);

#endif
