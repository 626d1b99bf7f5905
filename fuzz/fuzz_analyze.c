/* Fuzzes the whole analyze path over a buffer: the shipped rules, the
 * pipeline fed in chunks (as reads from a pipe would come), the job-level
 * checks (twice, as live mode reruns them) and every report format. The
 * reports must be terminal-safe: valid UTF-8 with no control byte but
 * newline and tab, colour being the only escape sequence. The first byte
 * splits the input into two files, to exercise the cross-file checks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/causes.h"
#include "../model/pipeline.h"
#include "../report/report.h"
#include "../util/escape.h"

#ifndef NCCLOG_RULES_SOURCE_DIR
#define NCCLOG_RULES_SOURCE_DIR "rules"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzzctx {
	catalog cat;
	ruleset rs;
} fuzzctx;

/* libFuzzer's entry points take no context: this is the one place state
 * lives across runs (compiling the shipped rules once, not per input). */
static fuzzctx fz;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *env = getenv("NCCLOG_RULES_DIR");
	const char *dir = env && *env ? env : NCCLOG_RULES_SOURCE_DIR;
	strbuf p = { 0 }, err = { 0 };
	sb_printf(&p, "%s/catalog.json", dir);
	if (catalog_load(&fz.cat, p.p, &err) != 0)
		goto fail;
	ruleset_init(&fz.rs, &fz.cat, model_tag_names);
	if (ruleset_load(&fz.rs, dir, &err) != 0)
		goto fail;
	ruleset_finish(&fz.rs);
	sb_free(&p);
	sb_free(&err);
	return 0;
fail:
	fprintf(stderr, "fuzz_analyze: %s\n", err.p);
	exit(2);
}

static void feed(model *m, const char *name, const uint8_t *data, size_t size, unsigned chunk)
{
	int file = model_add_input(m, name);
	pipeline p;
	pipeline_begin(&p, m, &fz.rs, file);
	for (size_t pos = 0; pos < size;) {
		size_t n = size - pos < chunk ? size - pos : chunk;
		pipeline_feed(&p, (const char *)data + pos, n);
		pos += n;
	}
	pipeline_end(&p);
}

/* Only SGR colour (ESC [ digits ; m) may be an escape sequence. */
static size_t sgr_len(const unsigned char *p, size_t n)
{
	size_t i = 2;
	if (n < 3 || p[1] != '[')
		return 0;
	while (i < n && ((p[i] >= '0' && p[i] <= '9') || p[i] == ';'))
		i++;
	return i < n && p[i] == 'm' ? i + 1 : 0;
}

static void check_safe(const char *out, size_t n, bool color)
{
	const unsigned char *p = (const unsigned char *)out;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_seqlen(p + i, n - i);
		if (!len)
			__builtin_trap(); /* invalid UTF-8 */
		if (len == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)
			__builtin_trap(); /* a C1 control */
		if (len == 1 && (p[i] < 0x20 || p[i] == 0x7f) && p[i] != '\n' && p[i] != '\t') {
			size_t k = color && p[i] == 0x1b ? sgr_len(p + i, n - i) : 0;
			if (!k)
				__builtin_trap(); /* a raw control byte */
			len = k;
		}
		i += len;
	}
}

static void render(const model *m, enum report_format fmt, bool color)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	if (!f)
		__builtin_trap();
	report_opts o = { fmt, color, "fuzz" };
	report_write(f, m, &o);
	fclose(f);
	check_safe(out, n, color);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t cut = size > 1 ? data[0] * (size - 1) / 255 : 0;
	unsigned chunk = 1 + data[0] % 97;
	data++;
	size--;
	/* the match-limit note is once per run: each input is a run */
	fz.rs.limit_hits = 0;
	fz.rs.limit_rule = -1;
	sb_clear(&fz.rs.notes);
	model m;
	model_init(&m, &fz.cat);
	feed(&m, "rank0.log", data, cut, chunk);
	feed(&m, "node-b/rank1.log", data + cut, size - cut, chunk * 13);
	model_check(&m);
	model_check(&m);
	model_order(&m);
	render(&m, FMT_TEXT, false);
	render(&m, FMT_TEXT, true);
	render(&m, FMT_JSON, false);
	render(&m, FMT_MARKDOWN, false);
	render(&m, FMT_HTML, false);
	jobinfo j;
	model_jobinfo(&m, &j);
	jobinfo_free(&j);
	model_free(&m);
	return 0;
}
