/* Fuzzes the rule-file loader: the input is written to an in-memory file
 * and loaded as a user's --rules file would be, next to the shipped
 * catalog. A file that loads is then finished and run over a few lines,
 * including its own samples. A refused file must say where. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../model/model.h"
#include "../rules/rules.h"

#ifndef NCCLOG_RULES_SOURCE_DIR
#define NCCLOG_RULES_SOURCE_DIR "rules"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzzctx {
	catalog cat;
	int fd;
	char path[64];
} fuzzctx;

/* libFuzzer's entry points take no context: this is the one place state
 * lives across runs. */
static fuzzctx fz;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *dir = getenv("NCCLOG_RULES_DIR");
	strbuf p = { 0 }, err = { 0 };
	sb_printf(&p, "%s/catalog.json", dir && *dir ? dir : NCCLOG_RULES_SOURCE_DIR);
	if (catalog_load(&fz.cat, p.p, &err) != 0) {
		fprintf(stderr, "fuzz_rules: %s\n", err.p);
		exit(2);
	}
	sb_free(&p);
	sb_free(&err);
	fz.fd = memfd_create("rules.json", MFD_CLOEXEC);
	if (fz.fd < 0) {
		perror("fuzz_rules: memfd_create");
		exit(2);
	}
	snprintf(fz.path, sizeof fz.path, "/proc/self/fd/%d", fz.fd);
	return 0;
}

static void on_match(void *ctx, const match *m)
{
	strbuf *b = ctx;
	if (m->r->message)
		template_render(b, m->r->message, m);
	if (m->r->hint)
		template_render(b, m->r->hint, m);
	if (m->r->fold)
		template_render(b, m->r->fold, m);
	sb_clear(b);
}

static void run_line(ruleset *rs, slice s, strbuf *b)
{
	if (ruleset_gate(rs, s))
		ruleset_match(rs, s, s, LV_NONE, on_match, b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(fz.fd, 0) != 0 || pwrite(fz.fd, data, size, 0) != (ssize_t)size)
		__builtin_trap();
	ruleset rs;
	ruleset_init(&rs, &fz.cat, model_tag_names);
	strbuf err = { 0 };
	if (ruleset_load(&rs, fz.path, &err) != 0) {
		/* "path:line:col: what" */
		if (!err.p || strncmp(err.p, fz.path, strlen(fz.path)) != 0)
			__builtin_trap();
	} else {
		ruleset_finish(&rs);
		strbuf b = { 0 };
		static const char *lines[] = {
			"node-a:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
			"node-a:1:1 [0] misc/socket.cc:538 NCCL WARN socketPollConnect: Connect to 10.0.0.2<41523> returned 113",
			"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!",
			"",
		};
		for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
			run_line(&rs, slice_from(lines[i]), &b);
		for (size_t i = 0; i < rs.n; i++)
			for (size_t k = 0; k < rs.v[i].nsamples; k++) {
				slice s = slice_from(rs.v[i].samples[k]);
				run_line(&rs, s, &b);
				match m;
				if (ruleset_match_one(&rs, i, s, &m) && m.r->message)
					template_render(&b, m.r->message, &m);
				sb_clear(&b);
			}
		/* the input itself, as a log line */
		run_line(&rs, (slice){ (const char *)data, size }, &b);
		sb_free(&b);
	}
	sb_free(&err);
	ruleset_free(&rs);
	return 0;
}
