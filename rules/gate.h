/* The literal gate: one pass over a line finds every rule literal it
 * contains, so a line that no rule can match costs one scan and no regex
 * at all. */
#ifndef NCCLOG_GATE_H
#define NCCLOG_GATE_H

#include "../util/str.h"

typedef struct gate gate;

/* Builds the automaton over pats[0..n); pattern k reports value vals[k]. */
gate *gate_build(const slice *pats, const int *vals, size_t n);
void gate_free(gate *g);
/* Calls hit(ctx, value) for every pattern occurrence in s (a value may
 * repeat). Returns the number of occurrences. */
size_t gate_scan(const gate *g, slice s, void (*hit)(void *ctx, int value), void *ctx);
/* One occurrence: the value of its pattern, where in s it starts, its
 * length, and `at`, a position inside it where the gate found it; at
 * never decreases from one occurrence to the next. */
typedef void (*gate_at_fn)(void *ctx, int value, size_t start, size_t len, size_t at);
/* Scans part of a whole buffer s: calls hit for the occurrences in s
 * that gate_scan finds from positions [from, to). Calls over ranges that
 * tile s from 0 report each occurrence once, and every occurrence within
 * s[0..to) by the call that reaches `to`. Returns the number reported. */
size_t gate_scan_at(const gate *g, slice s, size_t from, size_t to, gate_at_fn hit, void *ctx);

#endif
