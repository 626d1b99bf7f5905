#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "../ingest/setup.h"

static const char usage[] =
	"usage: ncclog explain [--color WHEN] ID\n"
	"       ncclog explain [--color WHEN] --list\n"
	"Prints what a finding id means, its log signatures by NCCL version, its usual\n"
	"causes and the fix.\n"
	"\n"
	"      --color WHEN     auto (default), always or never; NO_COLOR is honoured\n";

/* Takes --color WHEN / --color=WHEN out of argv; false on a bad value. */
static bool take_color(int *argc, char **argv, enum color_mode *cm)
{
	int out = 1;
	for (int i = 1; i < *argc; i++) {
		const char *v = NULL;
		if (strcmp(argv[i], "--color") == 0 || strcmp(argv[i], "--colour") == 0)
			v = i + 1 < *argc ? argv[++i] : "";
		else if (strncmp(argv[i], "--color=", 8) == 0)
			v = argv[i] + 8;
		else
			argv[out++] = argv[i];
		if (v && !color_parse(v, cm))
			return false;
	}
	*argc = out;
	return true;
}

int cmd_explain(int argc, char **argv)
{
	enum color_mode cm = COLOR_AUTO;
	if (!take_color(&argc, argv, &cm)) {
		cli_error("explain: --color takes auto, always or never");
		return 2;
	}
	bool color = color_enabled(cm, STDOUT_FILENO);
	const char *bold = color ? "\033[1m" : "", *off = color ? "\033[0m" : "";
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
			printf("%s%-28s%s %-8s %s\n", bold, s.cat.v[i].id, off, severity_name(s.cat.v[i].severity),
			       s.cat.v[i].title);
	} else {
		const catentry *e = catalog_find(&s.cat, argv[1]);
		if (e) {
			printf("%s%s%s (%s, default severity %s)\n%s\n\n%s\n", bold, e->id, off, e->family,
			       severity_name(e->severity), e->title, e->explain);
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
