/* `ncclog explain`: what a finding id means, from the catalog. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../ingest/setup.h"
#include "commands.h"

enum { O_LIST };
static const cli_opt opts[] = {
	[O_LIST] = { "list", 'l', NULL, "every finding id, with its severity and title" },
	{ NULL, 0, NULL, NULL },
};

const cli_cmd explain_cmd = {
	.name = "explain",
	.synopsis = "[OPTIONS] ID...",
	.about = "Prints what a finding id means, its log signatures by NCCL version, its usual\n"
		 "causes and the fix.\n",
	.common = COMMON_COLOR,
	.opts = opts,
	.operands = "ID",
};

static int on_opt(void *ctx, int opt, const char *value)
{
	(void)value;
	if (opt == O_LIST)
		*(bool *)ctx = true;
	return 0;
}

int cmd_explain(int argc, char **argv)
{
	bool list = false;
	cli_args ca;
	int rc = cli_parse(&explain_cmd, argc, argv, on_opt, &list, &ca);
	if (rc) {
		cli_args_free(&ca);
		return rc == 1 ? 0 : 2;
	}
	if (!list && ca.noperands == 0) {
		cli_usage_error(&explain_cmd, "which finding id? (ncclog explain --list shows them all)");
		cli_args_free(&ca);
		return 2;
	}
	bool color = color_enabled(ca.color, STDOUT_FILENO);
	const char *bold = color ? "\033[1m" : "", *off = color ? "\033[0m" : "";
	setup s;
	strbuf err = { 0 };
	if (setup_catalog(&s, &err) != 0) {
		cli_error("%s", err.p);
		sb_free(&err);
		setup_free(&s);
		cli_args_free(&ca);
		return 2;
	}
	if (list)
		for (size_t i = 0; i < s.cat.n; i++)
			printf("%s%-28s%s %-8s %s\n", bold, s.cat.v[i].id, off, severity_name(s.cat.v[i].severity),
			       s.cat.v[i].title);
	for (size_t k = 0; k < ca.noperands; k++) {
		const char *id = ca.operands[k];
		const catentry *e = catalog_find(&s.cat, id);
		if (e) {
			printf("%s%s%s%s (%s, %s, default severity %s)\n%s\n\n%s\n", k ? "\n" : "", bold, e->id, off,
			       e->family, kind_name(e->kind), severity_name(e->severity), e->title, e->explain);
		} else {
			const char *near = catalog_nearest(&s.cat, id);
			cli_error("explain: unknown finding id '%s'%s%s%s (ncclog explain --list shows them all)", id,
				  near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
			rc = 2;
		}
	}
	setup_free(&s);
	sb_free(&err);
	cli_args_free(&ca);
	return rc;
}
