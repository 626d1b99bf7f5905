/* A bound on JSON before cJSON builds it: cJSON makes a node per value,
 * so a text of a million zeros (2 MB) would take 64 MB of nodes. */
#ifndef NCCLOG_JSONCOUNT_H
#define NCCLOG_JSONCOUNT_H

#include "str.h"

/* The number of values (and keys) in n bytes of JSON text, counted by its
 * separators; strings are skipped. Cheap: one pass, no allocation. */
size_t json_count_values(const char *b, size_t n);
/* The offset of the first byte that is not blank (or a UTF-8 BOM) at or
 * after i. */
size_t json_skip_blank(const char *b, size_t n, size_t i);

#endif
