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

#endif
