/* Fuzzes `ncclog merge`: the bytes are read as a job summary (what
 * `analyze --summary` writes on each node) alone, and as the second of two
 * merged after a good one. Besides memory errors it checks what a
 * sanitizer cannot see: a refusal is one line that names the field; an
 * accepted summary, written again, reads back to the same summary; and the
 * merged job renders as text and as JSON that parses, both terminal-safe. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/causes.h"
#include "../model/pipeline.h"
#include "../model/summary.h"
#include "../report/report.h"
#include "../util/escape.h"

#ifndef NCCLOG_RULES_SOURCE_DIR
#define NCCLOG_RULES_SOURCE_DIR "rules"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzzctx {
	catalog cat;
	model good; /* a summary read back: what the fuzzed one is merged after */
} fuzzctx;

/* libFuzzer's entry points take no context: this is the one place state
 * lives across runs (the catalog and the good summary, made once). */
static fuzzctx fz;

static void must(bool ok)
{
	if (!ok)
		__builtin_trap();
}

/* The logs of a sample with every kind of table (processes, a communicator,
 * watchdog reports, kernel lines, an nccl-tests run), when the tree is
 * there: the good summary is theirs. */
static void feed_sample(model *m, ruleset *rs, const char *dir)
{
	static const char *const files[] = { "node-a.log", "node-b.log", "node-b-dmesg.txt", "nccl-tests-burnin.log" };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		strbuf p = { 0 };
		sb_printf(&p, "%s/../samples/dead-job-xid/%s", dir, files[i]);
		FILE *f = fopen(p.p, "rb");
		if (f) {
			int file = model_add_input(m, files[i]);
			pipeline pl;
			pipeline_begin(&pl, m, rs, file);
			char buf[4096];
			size_t n;
			while ((n = fread(buf, 1, sizeof buf, f)) > 0)
				pipeline_feed(&pl, buf, n);
			pipeline_end(&pl);
			fclose(f);
		}
		sb_free(&p);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *env = getenv("NCCLOG_RULES_DIR");
	const char *dir = env && *env ? env : NCCLOG_RULES_SOURCE_DIR;
	strbuf p = { 0 }, err = { 0 };
	sb_printf(&p, "%s/catalog.json", dir);
	ruleset rs;
	if (catalog_load(&fz.cat, p.p, &err) != 0)
		goto fail;
	ruleset_init(&rs, &fz.cat, model_tag_names);
	if (ruleset_load(&rs, dir, &err) != 0)
		goto fail;
	ruleset_finish(&rs);
	model m;
	model_init(&m, &fz.cat);
	feed_sample(&m, &rs, dir);
	cJSON *doc = summary_write(&m);
	model_free(&m);
	ruleset_free(&rs);
	model_init(&fz.good, &fz.cat);
	if (summary_read(&fz.good, doc, &err) != 0)
		goto fail;
	cJSON_Delete(doc);
	sb_free(&p);
	sb_free(&err);
	return 0;
fail:
	fprintf(stderr, "fuzz_merge: %s\n", err.p);
	exit(2);
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

/* Valid UTF-8 with no control character but newline and tab (and, with
 * colour, SGR sequences). */
static void check_safe(const char *out, size_t n, bool color)
{
	const unsigned char *p = (const unsigned char *)out;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_seqlen(p + i, n - i);
		must(len > 0);
		must(!(len == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)); /* a C1 control */
		if (len == 1 && (p[i] < 0x20 || p[i] == 0x7f) && p[i] != '\n' && p[i] != '\t') {
			len = color && p[i] == 0x1b ? sgr_len(p + i, n - i) : 0;
			must(len > 0);
		}
		i += len;
	}
}

static void render(const model *m, enum report_format fmt, bool color)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	must(f != NULL);
	report_opts o = { .format = fmt, .color = color, .version = "fuzz" };
	must(report_write(f, m, &o) == 0);
	must(fclose(f) == 0);
	check_safe(out, n, color);
	if (fmt == FMT_JSON) {
		cJSON *doc = cJSON_ParseWithLength(out, n);
		must(doc != NULL);
		cJSON_Delete(doc);
	}
	free(out);
}

/* A refusal is one line of fixed text naming what is wrong: the field is
 * named by the reader's own words, never by bytes of the input. */
static void check_refusal(const strbuf *err)
{
	must(err->n > 0 && !memchr(err->p, '\n', err->n));
	must(strncmp(err->p, "summary field ", 14) == 0 || strncmp(err->p, "summary: ", 9) == 0 ||
	     strncmp(err->p, "not an ncclog summary", 21) == 0);
	check_safe(err->p, err->n, false);
}

static char *written(const model *m)
{
	cJSON *doc = summary_write(m);
	char *s = cJSON_PrintUnformatted(doc);
	must(s != NULL);
	cJSON_Delete(doc);
	return s;
}

/* What the reader accepts, the writer writes again so that it reads back
 * as the same summary: no value is accepted that the writer cannot carry. */
static void check_again(const model *m)
{
	char *once = written(m);
	cJSON *doc = cJSON_Parse(once);
	must(doc != NULL);
	model again;
	model_init(&again, &fz.cat);
	strbuf err = { 0 };
	must(summary_read(&again, doc, &err) == 0);
	cJSON_Delete(doc);
	char *twice = written(&again);
	must(strcmp(once, twice) == 0);
	free(once);
	free(twice);
	sb_free(&err);
	model_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	if (!doc)
		return 0;
	model part;
	model_init(&part, &fz.cat);
	strbuf err = { 0 };
	int rc = summary_read(&part, doc, &err);
	cJSON_Delete(doc);
	if (rc != 0) {
		must(rc == -1);
		check_refusal(&err);
	} else {
		must(err.n == 0);
		check_again(&part);
		/* the merge of a job from this summary alone and after a good one */
		model one, two;
		model_init(&one, &fz.cat);
		model_init(&two, &fz.cat);
		model_merge(&one, &part);
		model_merge(&two, &fz.good);
		model_merge(&two, &part);
		model *jobs[] = { &one, &two };
		for (size_t i = 0; i < 2; i++) {
			model_check(jobs[i]);
			model_order(jobs[i]);
			render(jobs[i], FMT_TEXT, false);
			render(jobs[i], FMT_TEXT, true);
			render(jobs[i], FMT_JSON, false);
			model_free(jobs[i]);
		}
	}
	sb_free(&err);
	model_free(&part);
	return 0;
}
