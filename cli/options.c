#include "options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/escape.h"
#include "../util/nearest.h"

/* The common options, as rows of the same table as a command's own. */
enum { C_FORMAT, C_COLOR, C_COLOUR, C_RULES, C_VERBOSE, C_HELP, C_COUNT };
static const cli_opt common_opts[C_COUNT] = {
	[C_FORMAT] = { "format", 'f', "FMT", NULL },
	[C_COLOR] = { "color", 0, "WHEN", "auto (default), always or never; NO_COLOR is honoured" },
	[C_COLOUR] = { "colour", 0, "WHEN", NULL },
	[C_RULES] = { "rules", 0, "PATH", "extra rule file or directory (repeatable)" },
	[C_VERBOSE] = { "verbose", 'v', NULL, "every finding in full (by default a root cause's consequences are one line each)" },
	[C_HELP] = { "help", 'h', NULL, "this help" },
};

/* The last report format, for walking them all. */
#define FMT_LAST FMT_HTML

static bool common_taken(unsigned common, int i)
{
	switch (i) {
	case C_FORMAT:
		return common & COMMON_FORMAT;
	case C_COLOR:
	case C_COLOUR:
		return common & COMMON_COLOR;
	case C_RULES:
		return common & COMMON_RULES;
	case C_VERBOSE:
		return common & COMMON_VERBOSE;
	default:
		return true;
	}
}

static bool format_taken(const cli_cmd *cmd, enum report_format f)
{
	return !cmd->formats || (cmd->formats & (1u << f));
}

void cli_format_names(const cli_cmd *cmd, strbuf *b, const char *sep, bool help)
{
	int n = 0, total = 0;
	for (int f = FMT_TEXT; f <= FMT_LAST; f++)
		total += format_taken(cmd, (enum report_format)f);
	for (int f = FMT_TEXT; f <= FMT_LAST; f++) {
		if (!format_taken(cmd, (enum report_format)f))
			continue;
		if (n)
			sb_adds(b, sep ? sep : n + 1 == total ? " or " : ", ");
		sb_adds(b, report_format_name((enum report_format)f));
		if (help && f == FMT_TEXT)
			sb_adds(b, " (default)");
		n++;
	}
}

size_t cli_common_opts(const cli_cmd *cmd, cli_opt *out)
{
	size_t n = 0;
	for (int i = 0; i < C_COUNT; i++)
		if (common_taken(cmd->common, i))
			out[n++] = common_opts[i];
	return n;
}

bool color_parse(const char *s, enum color_mode *out)
{
	static const char *const names[] = { "auto", "always", "never" };
	for (int i = 0; i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = (enum color_mode)i;
			return true;
		}
	return false;
}

bool color_enabled(enum color_mode mode, int fd)
{
	if (mode == COLOR_ALWAYS)
		return true;
	if (mode == COLOR_NEVER)
		return false;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return false;
	const char *term = getenv("TERM");
	return isatty(fd) && !(term && strcmp(term, "dumb") == 0);
}

int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	/* what the user typed may hold anything: never raw to a terminal */
	strbuf b = { 0 };
	fprintf(stderr, "ncclog: %s: %s (see ncclog %s --help)\n", cmd->name, escape_name(&b, tmp), cmd->name);
	sb_free(&b);
	return -1;
}

int cli_jobs_parse(const cli_cmd *cmd, const char *v, int *jobs)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (end == v || *end || n < 1 || n > 256)
		return cli_usage_error(cmd, "--jobs takes a number from 1 to 256, not '%s'", v);
	*jobs = (int)n;
	return 0;
}

/* Help rows: the option on the left, its help wrapped to 80 columns on
 * the right (under the option when the option is wider than the column). */
#define HELP_WIDTH 80
#define HELP_LEFT 24

static void help_row(FILE *out, const cli_opt *o)
{
	char left[96];
	snprintf(left, sizeof left, "%s%c%s--%s%s%s", o->letter ? "-" : " ", o->letter ? o->letter : ' ',
		 o->letter ? ", " : "  ", o->name, o->value ? " " : "", o->value ? o->value : "");
	int col = fprintf(out, "  %s", left);
	const char *h = o->help ? o->help : "";
	if (col >= HELP_LEFT + 1 && *h) {
		fputc('\n', out);
		col = 0;
	}
	while (*h) {
		fprintf(out, "%*s", HELP_LEFT + 1 - col, "");
		/* as many words as fit */
		size_t room = HELP_WIDTH - HELP_LEFT - 1, n = strlen(h);
		if (n > room) {
			n = room;
			while (n > 0 && h[n] != ' ')
				n--;
			if (n == 0)
				n = strcspn(h, " ");
		}
		fprintf(out, "%.*s\n", (int)n, h);
		h += n;
		while (*h == ' ')
			h++;
		col = 0;
	}
	if (!*(o->help ? o->help : ""))
		fputc('\n', out);
}

void cli_help(const cli_cmd *cmd, FILE *out)
{
	fprintf(out, "usage: ncclog %s %s\n%s\n", cmd->name, cmd->synopsis, cmd->about);
	for (int i = 0; i < C_COUNT; i++) {
		if (!common_taken(cmd->common, i) || (!common_opts[i].help && i != C_FORMAT) || i == C_HELP)
			continue;
		cli_opt o = common_opts[i];
		strbuf names = { 0 };
		if (i == C_FORMAT) {
			cli_format_names(cmd, &names, NULL, true);
			o.help = names.p;
		}
		help_row(out, &o);
		sb_free(&names);
	}
	for (const cli_opt *o = cmd->opts; o && o->name; o++)
		help_row(out, o);
	help_row(out, &common_opts[C_HELP]);
	if (cmd->epilog)
		fprintf(out, "\n%s", cmd->epilog);
}

/* The known long option closest to a misspelled one, for "did you mean". */
static const char *nearest(const cli_cmd *cmd, const char *typed)
{
	const char *names[C_COUNT + 64];
	size_t n = 0;
	for (int i = 0; i < C_COUNT; i++)
		if (common_taken(cmd->common, i))
			names[n++] = common_opts[i].name;
	for (const cli_opt *o = cmd->opts; o && o->name && n < sizeof names / sizeof names[0]; o++)
		names[n++] = o->name;
	return nearest_word(typed, names, n);
}

/* "list or test", for errors. */
static void sub_names(const cli_cmd *cmd, strbuf *b)
{
	size_t n = 0;
	while (cmd->subcommands[n])
		n++;
	for (size_t i = 0; i < n; i++)
		sb_printf(b, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", cmd->subcommands[i]);
}

/* The first operand as the subcommand. Returns 0, or 2 after saying why not. */
static int take_subcommand(const cli_cmd *cmd, cli_args *a)
{
	strbuf names = { 0 };
	sub_names(cmd, &names);
	int rc = 2;
	if (a->noperands == 0) {
		cli_usage_error(cmd, "which subcommand: %s", names.p);
	} else {
		for (int i = 0; rc && cmd->subcommands[i]; i++)
			if (strcmp(cmd->subcommands[i], a->operands[0]) == 0) {
				a->sub = i;
				a->operands++;
				a->noperands--;
				rc = 0;
			}
		if (rc)
			cli_usage_error(cmd, "unknown subcommand '%s' (%s)", a->operands[0], names.p);
	}
	sb_free(&names);
	return rc;
}

int cli_parse(const cli_cmd *cmd, int argc, char **argv, cli_opt_fn fn, void *ctx, cli_args *a)
{
	*a = (cli_args){ .format = FMT_TEXT, .color = COLOR_AUTO, .sub = -1 };
	size_t nown = 0;
	while (cmd->opts && cmd->opts[nown].name)
		nown++;
	struct option *lo = xcalloc(C_COUNT + nown + 1, sizeof *lo);
	strbuf shorts = { 0 };
	sb_adds(&shorts, ":"); /* missing values reported as ':' */
	size_t k = 0;
	/* ids: common i as 1000 + i, own j as 2000 + j */
	for (int i = 0; i < C_COUNT; i++) {
		if (!common_taken(cmd->common, i))
			continue;
		lo[k++] = (struct option){ common_opts[i].name, common_opts[i].value ? required_argument : no_argument, NULL, 1000 + i };
		if (common_opts[i].letter) {
			sb_addc(&shorts, (char)common_opts[i].letter);
			if (common_opts[i].value)
				sb_addc(&shorts, ':');
		}
	}
	for (size_t j = 0; j < nown; j++) {
		const cli_opt *o = &cmd->opts[j];
		lo[k++] = (struct option){ o->name, o->value ? required_argument : no_argument, NULL, 2000 + (int)j };
		if (o->letter) {
			sb_addc(&shorts, (char)o->letter);
			if (o->value)
				sb_addc(&shorts, ':');
		}
	}
	int rc = 0, c, idx;
	optind = 1;
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, shorts.p, lo, &idx)) != -1) {
		int id = c;
		/* a short letter: find its row */
		if (c > 0 && c < 256 && c != '?' && c != ':') {
			id = -1;
			for (int i = 0; i < C_COUNT && id < 0; i++)
				if (common_taken(cmd->common, i) && common_opts[i].letter == c)
					id = 1000 + i;
			for (size_t j = 0; j < nown && id < 0; j++)
				if (cmd->opts[j].letter == c)
					id = 2000 + (int)j;
		}
		if (c == ':') {
			const char *opt = argv[optind - 1];
			cli_usage_error(cmd, "option %s needs a value", opt);
			rc = 2;
		} else if (c == '?' || id < 0) {
			const char *opt = optopt && optopt < 256 ? NULL : argv[optind - 1];
			if (opt && strncmp(opt, "--", 2) == 0) {
				char name[64];
				snprintf(name, sizeof name, "%.*s", (int)strcspn(opt + 2, "="), opt + 2);
				const char *near = nearest(cmd, name);
				cli_usage_error(cmd, "unknown option '%s'%s%s%s", opt, near ? "; did you mean --" : "",
						near ? near : "", near ? "?" : "");
			} else {
				cli_usage_error(cmd, "unknown option '-%c'", optopt ? optopt : '?');
			}
			rc = 2;
		} else if (id == 1000 + C_HELP) {
			cli_help(cmd, stdout);
			rc = 1;
		} else if (id == 1000 + C_FORMAT) {
			if (!report_format_parse(optarg, &a->format) || !format_taken(cmd, a->format)) {
				strbuf names = { 0 };
				cli_format_names(cmd, &names, NULL, false);
				cli_usage_error(cmd, "unknown format '%s' (%s)", optarg, names.p);
				sb_free(&names);
				rc = 2;
			}
		} else if (id == 1000 + C_COLOR || id == 1000 + C_COLOUR) {
			if (!color_parse(optarg, &a->color)) {
				cli_usage_error(cmd, "--color takes auto, always or never, not '%s'", optarg);
				rc = 2;
			}
		} else if (id == 1000 + C_RULES) {
			a->rules = xrealloc(a->rules, (a->nrules + 1) * sizeof *a->rules);
			a->rules[a->nrules++] = optarg;
		} else if (id == 1000 + C_VERBOSE) {
			a->verbose = true;
		} else if (id >= 2000) {
			if (fn(ctx, id - 2000, cmd->opts[id - 2000].value ? optarg : NULL) != 0)
				rc = 2;
		}
	}
	if (rc == 0) {
		/* getopt moved the operands behind the options, "--" kept them apart */
		a->noperands = (size_t)(argc - optind);
		a->operands = argv + optind;
		if (cmd->subcommands)
			rc = take_subcommand(cmd, a);
	}
	free(lo);
	sb_free(&shorts);
	return rc;
}

void cli_args_free(cli_args *a)
{
	free(a->rules);
	*a = (cli_args){ 0 };
}
