/* Small reads of the files the kernel and the system keep about themselves
 * (sysfs, procfs, /etc): one line, one link, one directory listing, with a
 * failure as "unset", never as an error worth stopping for. */
#ifndef NCCLOG_DOCTOR_SYSFS_H
#define NCCLOG_DOCTOR_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

/* The first line of path, without its newline and trailing blanks, into
 * buf. Returns false when the file cannot be read or is empty. */
bool sysfs_line(const char *path, char *buf, size_t size);
/* The last component of the target of the symbolic link path (a sysfs
 * "driver" link names the driver), into buf. False when path is no link. */
bool sysfs_link_name(const char *path, char *buf, size_t size);
/* The names in directory path that do not start with '.', sorted, as a
 * NULL-terminated array of new strings (free with sysfs_names_free);
 * NULL when the directory cannot be read. */
char **sysfs_names(const char *path);
void sysfs_names_free(char **names);

#endif
