/* Where bytes come from: a file or standard input, plain, gzip or zstd,
 * told apart by the first bytes (never by the name) and decompressed as a
 * stream through fixed buffers. The caller only asks for the next chunk. */
#ifndef NCCLOG_SOURCE_H
#define NCCLOG_SOURCE_H

#include <sys/types.h>

#include "../util/str.h"

enum source_kind { SOURCE_PLAIN, SOURCE_GZIP, SOURCE_ZSTD };

typedef struct source source;

/* Opens path ("-": standard input) and sniffs its format. On error, NULL
 * is returned and *err says "path: reason". */
source *source_open(const char *path, strbuf *err);
/* The next chunk of (decompressed) bytes in *p, valid until the next call.
 * Returns its length, 0 at the end of the input, or -1 when reading or
 * decompressing failed (*err says "path: reason"). */
ssize_t source_next(source *s, const char **p, strbuf *err);
enum source_kind source_kind_of(const source *s);
/* "plain", "gzip" or "zstd". */
const char *source_kind_name(enum source_kind k);
/* Closes the file (never standard input) and frees s; NULL is a no-op. */
void source_close(source *s);

#endif
