/* How common a 4-byte sequence is in log text: the gate keeps its windows
 * off the common ones. */
#ifndef NCCLOG_GRAMS_H
#define NCCLOG_GRAMS_H

#include <stddef.h>

/* Occurrences of p[0..4) per 65536 positions of log text when it is
 * among the commonest (bench/grams.py), else 0. */
unsigned grams_freq(const unsigned char *p);
/* The table's entries, for those who weigh them all: n of them; entry i's
 * bytes and frequency. */
size_t grams_count(void);
const unsigned char *grams_entry(size_t i, unsigned *freq);

#endif
