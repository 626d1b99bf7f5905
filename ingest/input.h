/* Reading inputs into the pipeline: files and standard input, in one pass,
 * through a fixed buffer. Never writes to an input. */
#ifndef NCCLOG_INPUT_H
#define NCCLOG_INPUT_H

#include "../model/pipeline.h"
#include "../redact/redact.h"
#include "structured.h"

/* Feeds path ("-" for standard input) to the pipeline as input `file`.
 * On error, -1 is returned and *err says "path: reason"; what was read
 * before the error stays analyzed. On success, 0 is returned. */
int input_read(const char *path, model *m, ruleset *rs, strbuf *err);
/* As input_read, with every line redacted by rd (NULL: none) before the
 * pipeline sees it, and the input named by its redacted path. */
int input_read_redacted(const char *path, model *m, ruleset *rs, redactor *rd, strbuf *err);
/* The name an input goes by in reports: "<stdin>" for "-", redacted by rd. */
void input_name(const char *path, redactor *rd, strbuf *name);
/* As input_read_redacted, into input `file` that the caller registered.
 * With kind non-NULL, a regular file that is not a log (structured_sniff)
 * is not read: *kind says what it is and 0 is returned; *kind is left as
 * it was for a log. */
int input_read_into(const char *path, int file, model *m, ruleset *rs, redactor *rd, const structured_kind **kind,
		    strbuf *err);
/* Reads path once to teach rd its host names and pids: the first pass of
 * a redaction. Same errors as input_read. */
int input_learn(const char *path, redactor *rd, strbuf *err);

#endif
