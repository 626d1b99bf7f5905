/* Fuzzes the readers of what a dead job leaves besides its logs on the same
 * bytes: the RAS text report line by line through one cursor, the RAS JSON
 * report and event stream, nccl-tests lines and its JSON report, and PCI
 * bus ids. Besides memory errors it checks what a sanitizer cannot see:
 * every slice an item gives lies inside the input (or its own JSON), a
 * refusal says why, and parsed values stay in their ranges. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../parser/ncclt.h"
#include "../parser/pcibus.h"
#include "../parser/ras.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(bool ok)
{
	if (!ok)
		__builtin_trap();
}

static const char *lo, *hi;

static void inside(slice s)
{
	must(s.n == 0 || (s.p >= lo && s.p + s.n <= hi));
}

/* Within the cursor: where the hash and the texts of a block are kept. */
static bool in_cursor(slice s, const ras_cursor *c)
{
	return s.n && s.p >= (const char *)c && s.p + s.n <= (const char *)(c + 1);
}

/* A text is the cursor's (bounded there) or a piece of the input. */
static void text_of(slice s, const ras_cursor *c, size_t most)
{
	if (in_cursor(s, c))
		must(s.n < most);
	else
		inside(s);
}

static void text_item(const ras_item *it, const ras_cursor *c)
{
	must(it->kind > RAS_NONE && it->kind <= RAS_LISTEN);
	inside(it->node);
	inside(it->gpus);
	text_of(it->hash, c, 20);
	text_of(it->a, c, 200);
	text_of(it->b, c, 200);
}

static size_t nitems;

static void json_item(void *ctx, const ras_item *it, size_t at)
{
	size_t n = *(const size_t *)ctx;
	must(at < n);
	must(it->kind > RAS_NONE && it->kind <= RAS_LISTEN);
	nitems++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an own copy, so that reading past the input is caught */
	char *buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	lo = buf;
	hi = buf + size;
	ras_cursor c = { 0 };
	for (size_t i = 0; i < size;) {
		const char *nl = memchr(buf + i, '\n', size - i);
		size_t n = nl ? (size_t)(nl - (buf + i)) : size - i;
		slice line = { buf + i, n };
		ras_item it;
		for (bool more = ras_text_line(&c, line, 0, &it); more; more = ras_text_more(&c, &it))
			text_item(&it, &c);
		ncclt_line l;
		enum ncclt_kind k = ncclt_line_parse(line, &l);
		must(k <= NCCLT_AVGBW);
		if (k == NCCLT_ROW)
			must(l.row.out.set || l.row.in.set);
		must(strlen(l.program) < sizeof l.program);
		pcibus b;
		if (pcibus_parse(line, &b)) {
			must(b.bus >= 0 && b.bus <= 0xff && b.dev <= 0xff && b.fn <= 0xf);
			must(pcibus_same(&b, &b));
		}
		i += n + 1;
	}
	strbuf err = { 0 };
	nitems = 0;
	int rc = ras_json_read(buf, size, json_item, &size, &err);
	must(rc == 0 || (err.n && err.p));
	(void)ras_json_sniff((const unsigned char *)buf, size);
	sb_free(&err);
	ncclt_run run;
	rc = ncclt_json_parse(buf, size, &run, &err);
	if (rc == 0) {
		for (size_t i = 0; i < run.ndev; i++)
			must(strlen(run.dev[i].host) < sizeof run.dev[i].host && run.dev[i].rank >= 0);
		for (size_t i = 0; i < run.nrows; i++)
			must(strlen(run.rows[i].type) < sizeof run.rows[i].type);
	} else {
		must(err.n && run.ndev == 0 && run.nrows == 0);
	}
	ncclt_run_free(&run);
	(void)ncclt_json_sniff((const unsigned char *)buf, size);
	sb_free(&err);
	free(buf);
	return 0;
}
