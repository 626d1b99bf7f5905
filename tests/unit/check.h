/* A minimal test harness: CHECK records a failure with its location and
 * goes on; check_done() prints "N passed, N failed" and gives the exit code. */
#ifndef NCCLOG_CHECK_H
#define NCCLOG_CHECK_H

#include <stdio.h>
#include <string.h>

typedef struct checks {
	int passed, failed;
} checks;

#define CHECK(c, cond, ...)                                                               \
	do {                                                                              \
		if (cond) {                                                               \
			(c)->passed++;                                                    \
		} else {                                                                  \
			(c)->failed++;                                                    \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                     \
			fputc('\n', stderr);                                              \
		}                                                                         \
	} while (0)

#define CHECK_SLICE(c, s, want, what)                                                           \
	CHECK(c, (s).n == strlen(want) && memcmp((s).p ? (s).p : "", want, (s).n) == 0,         \
	      "%s: got '%.*s', want '%s'", what, (int)(s).n, (s).p ? (s).p : "", want)

static inline int check_done(const checks *c, const char *name)
{
	printf("%s: %d passed, %d failed\n", name, c->passed, c->failed);
	return c->failed ? 1 : 0;
}

#endif
