/* Redaction: a copy of a log with every identifier (host names and their
 * domains, addresses, node lists, users, shared file system directories,
 * namespaces, pids, pointers and commIds) replaced by consistent
 * pseudonyms (redact/pseudo.h) and secrets masked, so that it can be
 * shared and still gives the same diagnosis. Identifiers are found by
 * what they are wherever they stand (redact/scan.h). Interface names,
 * ports, versions, ranks, times and NCCL_* values are kept: the diagnosis
 * needs them. One line in, one line out. */
#ifndef NCCLOG_REDACT_H
#define NCCLOG_REDACT_H

#include "../parser/lines.h"
#include "pseudo.h"

/* Lines longer than this are cut, as the analyzer cuts them. */
#define REDACT_MAX_LINE (256u * 1024u)

typedef struct redactor {
	pseudo *ps;
} redactor;

/* Starts a run; key NULL or "": a random key (pseudonyms differ per run). */
void redact_init(redactor *r, const char *key);
void redact_free(redactor *r);
/* Learns the names of one line without writing anything: a first pass
 * over files, so that a name is hidden even in lines before the one that
 * shows it is a host. */
void redact_learn(redactor *r, slice line);
/* Appends the redacted line to out (learning from it first). */
void redact_line(redactor *r, slice line, strbuf *out);
/* Appends a redacted file name: user names in paths, host names and pids
 * already learned. */
void redact_name(redactor *r, const char *name, strbuf *out);

/* Streaming bytes in, redacted lines ('\n'-terminated) out. */
typedef void (*redact_emit)(void *ctx, const char *p, size_t n);
typedef struct redact_stream {
	redactor *r;
	linesplit ls;
	strbuf out;
	bool learn_only;
	redact_emit emit;
	void *ctx;
} redact_stream;

/* learn_only: only redact_learn each line; emit is not called. */
void redact_stream_begin(redact_stream *s, redactor *r, bool learn_only, redact_emit emit, void *ctx);
void redact_stream_feed(redact_stream *s, const char *p, size_t n);
/* Handles a last line without newline and frees the stream's buffers. */
void redact_stream_end(redact_stream *s);

#endif
