/* Inputs that are still being written: standard input read as it comes,
 * and files followed the way `tail -F` does (growth, truncation, rotation,
 * files that appear later). Each feeds the one pipeline. */
#ifndef NCCLOG_FOLLOW_H
#define NCCLOG_FOLLOW_H

#include <sys/types.h>

#include "../model/pipeline.h"

/* What happened to a followed file, for the front end to say. */
typedef enum follow_what { FOLLOW_TRUNCATED, FOLLOW_ROTATED, FOLLOW_APPEARED } follow_what;

typedef struct follow_notice {
	follow_what what;
	const char *path;
	int generation;      /* 1 for the file as first opened, then 2, 3, ... */
	int file;            /* the model input its new lines go to */
} follow_notice;

typedef struct feed {
	const char *path;    /* "-" for standard input */
	int generation;      /* of the file read now; a later one is a new input, named "path (generation N)" */
	int fd;              /* -1 while the file does not exist */
	dev_t dev;
	ino_t ino;
	off_t off;
	char head[64];       /* the file's first bytes: a rewrite changes them */
	size_t nhead;
	bool open_pipeline, ended;
	pipeline p;
	double last_data;    /* wall clock of the last bytes */
} feed;

typedef struct follower {
	feed *v;
	size_t n;
	bool follow;         /* keep files open at their end and wait for more */
	model *m;
	ruleset *rs;
	char *buf;
	follow_notice *notices; /* since the front end last took them */
	size_t nnotices, noticecap;
} follower;

/* Registers the inputs (none: standard input). Returns 0, or -1 with *err
 * naming an input that cannot be followed. */
int follower_open(follower *f, model *m, ruleset *rs, char **paths, size_t n, bool follow, strbuf *err);
void follower_close(follower *f);
/* The descriptor to poll for data, or -1 (only files: poll with a timeout). */
int follower_fd(const follower *f);
/* Reads what is available now without blocking for long; flushes partial
 * lines quiet for `flush_after` seconds. Returns true when bytes arrived.
 * Errors that end an input go to *err (one line each). */
bool follower_step(follower *f, double now, double flush_after, strbuf *err);
/* The notices since the last call (files truncated, rotated, appeared),
 * into *n; valid until the next follower_step. */
const follow_notice *follower_notices(follower *f, size_t *n);
/* "truncated", "rotated" or "appeared". */
const char *follow_what_name(follow_what w);
/* True when no input can bring more data. */
bool follower_ended(const follower *f);

#endif
