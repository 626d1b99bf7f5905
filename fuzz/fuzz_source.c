/* Fuzzes the input reader over memory: format sniffing, gzip (members,
 * damage, trailing bytes) and zstd (frames, skippable frames, windows).
 * Besides memory errors it checks the contracts a sanitizer cannot see:
 * a plain input comes out byte for byte, a chunk never exceeds the
 * buffers, the end or an error comes once and then stays the end, and an
 * error always names the input. Output is read up to a budget, so that a
 * decompression bomb costs time, not a timeout. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../parser/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BUDGET (32u << 20)
#define MAX_CHUNK (256u * 1024u)

static void must(bool ok)
{
	if (!ok)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an own copy, so that reading past the input is caught */
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	strbuf err = { 0 };
	source *s = source_open_mem("fuzz.in", copy, size, &err);
	if (!s) {
		must(err.p && strncmp(err.p, "fuzz.in: ", 9) == 0);
		sb_free(&err);
		free(copy);
		return 0;
	}
	enum source_kind kind = source_kind_of(s);
	must(kind == SOURCE_PLAIN || kind == SOURCE_GZIP || kind == SOURCE_ZSTD);
	size_t total = 0;
	bool plain_same = true, failed = false;
	for (;;) {
		const char *p;
		ssize_t n = source_next(s, &p, &err);
		if (n < 0) {
			must(err.p && strncmp(err.p, "fuzz.in: ", 9) == 0);
			failed = true;
			break;
		}
		if (n == 0)
			break;
		must((size_t)n <= MAX_CHUNK);
		if (kind == SOURCE_PLAIN)
			plain_same = plain_same && total + (size_t)n <= size && memcmp(copy + total, p, (size_t)n) == 0;
		total += (size_t)n;
		if (total > BUDGET)
			break;
	}
	if (kind == SOURCE_PLAIN)
		must(plain_same && !failed && total == size);
	if (failed || total <= BUDGET) {
		/* ended: it stays ended */
		const char *p;
		must(source_next(s, &p, &err) == 0);
		must(source_next(s, &p, &err) == 0);
	}
	source_close(s);
	sb_free(&err);
	free(copy);
	return 0;
}
