/* Reading whole small files (rules, catalogs), with errors as values. */
#ifndef NCCLOG_FILEIO_H
#define NCCLOG_FILEIO_H

#include <sys/stat.h>

#include "str.h"

/* Reads path (at most 64 MiB) into a NUL-terminated buffer. On error, -1 is
 * returned and *err says "path: reason". On success, 0 is returned. */
int file_slurp(const char *path, char **out, size_t *len, strbuf *err);
/* As file_slurp, for a regular file only: a FIFO, a device, a socket or a
 * directory is refused at once ("path: is a FIFO, not a regular file"),
 * never opened in a way that could wait for a writer. */
int file_slurp_regular(const char *path, char **out, size_t *len, strbuf *err);
/* What a file of mode st_mode is, for messages: "a FIFO", "a directory". */
const char *file_kind_name(mode_t st_mode);

#endif
