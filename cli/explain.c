#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "setup.h"

static const char usage[] =
	"usage: ncclog explain ID\n"
	"       ncclog explain --list\n"
	"Prints what a finding id means, its log signatures by NCCL version, its usual\n"
	"causes and the fix.\n";

int cmd_explain(int argc, char **argv)
{
	if (argc != 2) {
		fputs(usage, stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	setup s;
	strbuf err = { 0 };
	if (setup_catalog(&s, &err) != 0) {
		cli_error("%s", err.p);
		sb_free(&err);
		setup_free(&s);
		return 2;
	}
	int rc = 0;
	if (strcmp(argv[1], "--list") == 0 || strcmp(argv[1], "-l") == 0) {
		for (size_t i = 0; i < s.cat.n; i++)
			printf("%-28s %-8s %s\n", s.cat.v[i].id, severity_name(s.cat.v[i].severity), s.cat.v[i].title);
	} else {
		const catentry *e = catalog_find(&s.cat, argv[1]);
		if (e) {
			printf("%s (%s, default severity %s)\n%s\n\n%s\n", e->id, e->family, severity_name(e->severity),
			       e->title, e->explain);
		} else {
			const char *near = catalog_nearest(&s.cat, argv[1]);
			cli_error("explain: unknown finding id '%s'%s%s%s (ncclog explain --list shows them all)", argv[1],
				  near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
			rc = 2;
		}
	}
	setup_free(&s);
	sb_free(&err);
	return rc;
}
