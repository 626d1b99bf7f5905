/* Reading whole small files (rules, catalogs), with errors as values. */
#ifndef NCCLOG_FILEIO_H
#define NCCLOG_FILEIO_H

#include "str.h"

/* Reads path (at most 64 MiB) into a NUL-terminated buffer. On error, -1 is
 * returned and *err says "path: reason". On success, 0 is returned. */
int file_slurp(const char *path, char **out, size_t *len, strbuf *err);

#endif
