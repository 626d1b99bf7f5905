/* The literal gate: one pass over a line finds every rule literal it
 * contains, so a line that no rule can match costs one scan and no regex
 * at all. */
#ifndef NCCLOG_GATE_H
#define NCCLOG_GATE_H

#include "../util/str.h"

typedef struct gate gate;

/* Builds the automaton over pats[0..n); pattern k reports value vals[k].
 * A gate handle is used by one thread at a time. */
gate *gate_build(const slice *pats, const int *vals, size_t n);
typedef enum gate_engine {
	GATE_OWN,        /* the own scan */
	GATE_VECTORSCAN, /* Vectorscan where it was built in and runs, else the own scan */
} gate_engine;
gate *gate_build_as(const slice *pats, const int *vals, size_t n, gate_engine engine);
/* Hands the scan to Vectorscan when its compile pays for itself over
 * `bytes` of input with this many literals (UINT64_MAX: whatever the
 * count); before any clone. True when Vectorscan scans. The occurrences
 * found are the same either way. */
bool gate_accelerate(gate *g, uint64_t bytes);
/* Whether some size of input would hand the scan to Vectorscan: an input's
 * size need not be looked up when not. */
bool gate_accelerable(const gate *g);
/* A handle for another thread, sharing g's tables; free it before g. */
gate *gate_clone(const gate *g);
/* The Vectorscan this ncclog was built with and can run ("5.4.9 ..."),
 * or NULL. */
const char *gate_accelerator(void);
/* "vectorscan" or "own": what scans. */
const char *gate_engine_name(const gate *g);
/* Whether a scan of a few dozen bytes costs about what its bytes cost (the
 * own scan), not a call's start-up (Vectorscan). */
bool gate_scans_short(const gate *g);
void gate_free(gate *g);
/* Calls hit(ctx, value) for every pattern occurrence in s (a value may
 * repeat). Returns the number of occurrences. */
size_t gate_scan(gate *g, slice s, void (*hit)(void *ctx, int value), void *ctx);
/* One occurrence: the value of its pattern, where in s it starts, its
 * length, and `at`, a position inside it where the gate found it; at
 * never decreases from one occurrence to the next. */
typedef void (*gate_at_fn)(void *ctx, int value, size_t start, size_t len, size_t at);
/* Scans part of a whole buffer s: calls hit for the occurrences in s
 * that gate_scan finds with `at` in [from, to) (a range that reaches the
 * last 3 bytes reaches the end). Calls over ranges that
 * tile s from 0 report each occurrence once, and every occurrence within
 * s[0..to) by the call that reaches `to`. Returns the number reported. */
size_t gate_scan_at(gate *g, slice s, size_t from, size_t to, gate_at_fn hit, void *ctx);

#endif
