/* The command line of every command, parsed one way: options anywhere
 * (before, between and after the operands), "--" to end them, the common
 * options (--format, --color, --rules, --verbose, --help) with one
 * meaning and one wording of every error, and the help text made from the
 * same table, so that it cannot drift from what is parsed. */
#ifndef NCCLOG_OPTIONS_H
#define NCCLOG_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "../report/report.h"

enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

/* Which common options a command takes. */
enum {
	COMMON_FORMAT = 1,  /* -f, --format FMT */
	COMMON_COLOR = 2,   /* --color WHEN */
	COMMON_RULES = 4,   /* --rules PATH (repeatable) */
	COMMON_VERBOSE = 8, /* -v, --verbose */
};

/* One option of a command's own. */
typedef struct cli_opt {
	const char *name;   /* long name, without "--" */
	int letter;         /* short form, 0 for none */
	const char *value;  /* placeholder of its value ("N"), NULL for a flag */
	const char *help;
} cli_opt;

/* What a command is, for its help, its errors and its completions.
 * Placeholders say what a value is: FMT, WHEN, SEV, ID, FILE, PATH and DIR
 * are completed by the shells (see `ncclog completions`). */
typedef struct cli_cmd {
	const char *name;     /* "analyze" */
	const char *synopsis; /* "[OPTIONS] [FILE...]" */
	const char *about;    /* a paragraph, ending in a newline */
	unsigned common;      /* COMMON_* */
	const cli_opt *opts;  /* its own, NULL-name terminated (may be NULL) */
	const char *epilog;   /* printed after the options, or NULL */
	unsigned formats;     /* with COMMON_FORMAT, the formats it writes (1u << FMT_*); 0: all */
	const char *const *subcommands; /* the words its first operand must be, NULL-terminated, or NULL */
	const char *operands; /* what its operands are ("FILE", "ID"), NULL for none */
} cli_cmd;

/* The common options' values, and the operands. */
typedef struct cli_args {
	enum report_format format;
	enum color_mode color;
	char **rules;
	size_t nrules;
	bool verbose;
	char **operands;      /* after the subcommand, when there is one */
	size_t noperands;
	int sub;              /* index of the subcommand in cmd->subcommands, or -1 */
} cli_args;

/* Called for each of the command's own options, with its index in opts
 * and its value (NULL for a flag). Returns 0, or -1 after it printed why
 * the value is wrong (cli_usage_error). */
typedef int (*cli_opt_fn)(void *ctx, int opt, const char *value);

/* Parses argv[1..argc) for cmd. Returns 0 when the command should run,
 * 1 when --help was printed (exit 0), 2 after one line of bad usage on
 * stderr (exit 2). A command with subcommands gets the first operand
 * checked against them. Free a with cli_args_free. */
int cli_parse(const cli_cmd *cmd, int argc, char **argv, cli_opt_fn fn, void *ctx, cli_args *a);
void cli_args_free(cli_args *a);
/* The help of cmd, to out. */
void cli_help(const cli_cmd *cmd, FILE *out);
/* "ncclog: CMD: msg (see ncclog CMD --help)" on stderr; returns -1. */
int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The common option rows cmd takes, in help order, to out (at most
 * CLI_NCOMMON); returns how many. */
#define CLI_NCOMMON 8
size_t cli_common_opts(const cli_cmd *cmd, cli_opt *out);
/* Appends the formats cmd writes to b: "text json markdown" (sep " "), or
 * "text, json or markdown" (sep NULL), with " (default)" after text for help. */
void cli_format_names(const cli_cmd *cmd, strbuf *b, const char *sep, bool help);

/* --jobs N for cmd: a number from 1 to 256 into *jobs. Returns 0, or -1
 * after one line of bad usage (cli_usage_error). */
int cli_jobs_parse(const cli_cmd *cmd, const char *v, int *jobs);
bool color_parse(const char *s, enum color_mode *out);
/* Colour for a stream: never under NO_COLOR (unless forced), auto on a tty. */
bool color_enabled(enum color_mode mode, int fd);

#endif
