/* Fuzzes redaction: the scanner over any bytes, as a file (learned first,
 * then written) and as a stream, fed in chunks. Besides memory errors it
 * checks the contracts a sanitizer cannot see: one line out per line in,
 * the same key gives the same copy, and the chunking of the input changes
 * nothing. The first byte picks the chunking. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../redact/redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(bool ok)
{
	if (!ok)
		__builtin_trap();
}

static void collect(void *ctx, const char *p, size_t n)
{
	sb_add(ctx, p, n);
}

/* Redacts data with a fixed key: a learning pass first when twice. */
static void redact_all(const uint8_t *data, size_t size, uint32_t seed, bool twice, strbuf *out)
{
	redactor r;
	redact_init(&r, "fuzz-key");
	for (int pass = twice ? 0 : 1; pass < 2; pass++) {
		redact_stream st;
		redact_stream_begin(&st, &r, pass == 0, collect, out);
		size_t pos = 0;
		uint32_t s = seed;
		while (pos < size) {
			size_t n = size - pos;
			if (s) {
				s = s * 1103515245u + 12345u;
				n = 1 + (s >> 16) % 97;
				if (n > size - pos)
					n = size - pos;
			}
			redact_stream_feed(&st, (const char *)data + pos, n);
			pos += n;
		}
		redact_stream_end(&st);
	}
	strbuf name = { 0 };
	redact_name(&r, "/home/someone/logs/node-a.1234.log", &name);
	must(name.n > 0);
	sb_free(&name);
	redact_free(&r);
}

static size_t lines(const uint8_t *p, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += p[i] == '\n';
	return k + (n && p[n - 1] != '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint32_t seed = data[0] | 1u;
	data++;
	size--;
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	strbuf a = { 0 }, b = { 0 }, c = { 0 };
	redact_all(copy, size, 0, true, &a);
	redact_all(copy, size, seed, true, &b);
	redact_all(copy, size, seed, false, &c);
	must(a.n == b.n && memcmp(a.p ? a.p : "", b.p ? b.p : "", a.n) == 0);
	must(lines((const uint8_t *)a.p, a.n) == lines(copy, size));
	must(lines((const uint8_t *)c.p, c.n) == lines(copy, size));
	sb_free(&a);
	sb_free(&b);
	sb_free(&c);
	free(copy);
	return 0;
}
