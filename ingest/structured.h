/* Inputs that are not logs: files a dead job leaves besides its logs
 * (PyTorch's Flight Recorder dumps, NCCL RAS and nccl-tests JSON reports),
 * told apart by their first bytes,
 * never by their names. Each kind is a row of one table: how to tell it,
 * and how its files reach the model through the model's second door (not
 * the line pipeline). A new kind of input is one row and its reader. */
#ifndef NCCLOG_STRUCTURED_H
#define NCCLOG_STRUCTURED_H

#include "../model/model.h"

typedef struct structured_kind {
	const char *name; /* for messages: "Flight Recorder dump" */
	/* True when the first n bytes of a (decompressed) input are of this kind. */
	bool (*sniff)(const unsigned char *buf, size_t n);
	/* A fresh state for the inputs of one run. */
	void *(*begin)(void);
	/* Reads one input (path, shown as name) into the state; on error -1,
	 * and *err says "name: what" (the run goes on with the others). */
	int (*add)(void *state, const char *path, const char *name, strbuf *err);
	/* Gives what the inputs held to the model, and frees the state. */
	void (*end)(void *state, model *m);
} structured_kind;

/* The kind of the input at path, or NULL for a log (or unreadable). */
const structured_kind *structured_sniff(const char *path);
/* The kind of an input whose first (decompressed) chunk is p[0..n), or
 * NULL for a log: for a reader that has the file open already. */
const structured_kind *structured_sniff_chunk(const char *p, size_t n);

#endif
