/* Lists that stay readable at 512 ranks: host names folded into the
 * hostlist form of Slurm and pdsh, and rank sets cut with a count. */
#ifndef NCCLOG_HOSTLIST_H
#define NCCLOG_HOSTLIST_H

#include "../model/model.h"

/* Appends interned host names as "gpu-node-[0000-0020,0022-0063]": names
 * alike but for their last number share brackets (zero padding kept; a
 * plain number as wide as a padded one joins it), patterns joined by ", "
 * in the order their first host comes; after max patterns, or 16 runs in
 * one bracket, " and N more" hosts. Raw text: escape it for the output. */
void hostlist_format(strbuf *b, const model *m, const int *hosts, size_t n, size_t max);
/* Appends "0-7,9" for a sorted set, at most max runs, then " and N more"
 * with the count of the values left out. */
void hostlist_ranges(strbuf *b, const int *v, size_t n, size_t max);

#endif
