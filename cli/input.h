/* Reading inputs into the pipeline: files and standard input, in one pass,
 * through a fixed buffer. Never writes to an input. */
#ifndef NCCLOG_INPUT_H
#define NCCLOG_INPUT_H

#include "../model/pipeline.h"

/* Feeds path ("-" for standard input) to the pipeline as input `file`.
 * On error, -1 is returned and *err says "path: reason"; what was read
 * before the error stays analyzed. On success, 0 is returned. */
int input_read(const char *path, model *m, ruleset *rs, strbuf *err);

#endif
