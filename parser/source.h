/* Where bytes come from: a file, standard input or a memory buffer, plain,
 * gzip or zstd, told apart by the first bytes (never by the name) and
 * decompressed as a stream through fixed buffers. The caller only asks for
 * the next chunk. Nothing read is ever lost silently: the data decoded
 * before damage is handed over first, then the damage is reported. */
#ifndef NCCLOG_SOURCE_H
#define NCCLOG_SOURCE_H

#include <sys/types.h>

#include "../util/str.h"

enum source_kind { SOURCE_PLAIN, SOURCE_GZIP, SOURCE_ZSTD };

/* The largest zstd window decoded (2 GiB, what zstd itself allows on 64
 * bits); a frame that declares more is refused with a clear error. The
 * memory a zstd input takes is bounded by the window its frames declare. */
#ifndef SOURCE_ZSTD_WINDOW_LOG_MAX
#define SOURCE_ZSTD_WINDOW_LOG_MAX 31
#endif

typedef struct source source;

/* Opens path ("-": standard input) and sniffs its format. A FIFO is read
 * once a writer has come, however late. On error, NULL is returned and
 * *err says "path: reason". */
source *source_open(const char *path, strbuf *err);
/* As source_open over the n bytes at p (which must outlive the source),
 * named name in messages: for fuzzing and tests. */
source *source_open_mem(const char *name, const void *p, size_t n, strbuf *err);
/* The next chunk of (decompressed) bytes in *p, valid until the next call.
 * Returns its length, 0 at the end of the input, or -1 when reading or
 * decompressing failed or the input ended in damage (*err says "path:
 * reason"); all the data decoded before the damage came in earlier chunks. */
ssize_t source_next(source *s, const char **p, strbuf *err);
enum source_kind source_kind_of(const source *s);
/* True for a regular file: one that can be read again from its start
 * (standard input, a pipe or a memory buffer cannot). */
bool source_regular(const source *s);
/* "plain", "gzip" or "zstd". */
const char *source_kind_name(enum source_kind k);
/* Closes the file (never standard input) and frees s; NULL is a no-op. */
void source_close(source *s);

#endif
