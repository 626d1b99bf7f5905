/* How common a 4-byte sequence is in log text: the gate keeps its windows
 * off the common ones. */
#ifndef NCCLOG_GRAMS_H
#define NCCLOG_GRAMS_H

/* Occurrences of p[0..4) per 65536 positions of log text when it is
 * among the commonest (bench/grams.py), else 0. */
unsigned grams_freq(const unsigned char *p);

#endif
