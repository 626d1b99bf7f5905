/* ncclog: reads NCCL_DEBUG logs of distributed GPU jobs and says what is
 * wrong and what to do about it. The table of commands: their dispatch,
 * the usage, `ncclog help CMD` and the shell completions all come from it. */
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ingest/setup.h"
#include "../rules/gate.h"
#include "../util/escape.h"
#include "commands.h"
#include "completions.h"
#include "version.h"

static int cmd_completions(int argc, char **argv);

static const char *const shells[] = { "bash", "zsh", "fish", NULL };
static const cli_cmd completions_cmd = {
	.name = "completions",
	.synopsis = "bash|zsh|fish",
	.about = "Prints the completions of ncclog for a shell, made from the same tables as the\n"
		 "commands' options: source <(ncclog completions bash), or save them where the shell\n"
		 "looks (meson install puts them there).\n",
	.subcommands = shells,
};

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *args, *summary;
	const cli_cmd *opts; /* its options, for completions */
} commands[] = {
	{ "analyze", cmd_analyze, "[FILE...]", "diagnose the logs (standard input when no FILE or \"-\")", &analyze_cmd },
	{ "live", cmd_live, "[FILE...]", "diagnose a running job as its logs arrive (stdin, or --follow files)", &live_cmd },
	{ "view", cmd_view, "[FILE...]", "the per-rank timeline: who stopped where (terminal UI)", &view_cmd },
	{ "merge", cmd_merge, "SUMMARY...", "merge per-node summaries of `analyze --summary`", &merge_cmd },
	{ "explain", cmd_explain, "ID", "the long text of one finding id (--list: all ids)", &explain_cmd },
	{ "rules", cmd_rules, "list|test", "the loaded rules; test them against their sample lines", &rules_cmd },
	{ "redact", cmd_redact, "[FILE...]", "a copy of the logs with hosts, addresses, pids, users hidden", &redact_cmd },
	{ "doctor", cmd_doctor, "", "check this node before a job, the way NCCL will see it", &doctor_cmd },
	{ "completions", cmd_completions, "bash|zsh|fish", "the shell completions of ncclog, to source", &completions_cmd },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
	fputs("usage: ncclog COMMAND [OPTIONS] [ARGS...]\n\ncommands:\n", out);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		char left[40];
		snprintf(left, sizeof left, "%s %s", commands[i].name, commands[i].args);
		fprintf(out, "  %-26s %s\n", left, commands[i].summary);
	}
	fputs("\n  ncclog help COMMAND        options of a command (or ncclog COMMAND --help)\n"
	      "  ncclog --version, -V       version and the NCCL log formats it knows\n",
	      out);
}

void cli_error(const char *fmt, ...)
{
	/* The whole line goes through one escape: a file name or an argument
	 * in it can never put a raw control byte, a newline or a bidi override
	 * on the terminal. The fixed text of every message is plain. */
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	char small[512], *msg = small;
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		small[0] = '\0';
	else if ((size_t)n >= sizeof small && vsnprintf(msg = xmalloc((size_t)n + 1), (size_t)n + 1, fmt, again) < 0)
		msg[0] = '\0';
	va_end(again);
	strbuf b = { 0 };
	fprintf(stderr, "ncclog: %s\n", escape_name(&b, msg));
	sb_free(&b);
	if (msg != small)
		free(msg);
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int cmd_completions(int argc, char **argv)
{
	cli_args ca;
	int rc = cli_parse(&completions_cmd, argc, argv, NULL, NULL, &ca);
	if (rc) {
		cli_args_free(&ca);
		return rc == 1 ? 0 : 2;
	}
	completion_cmd cc[NCOMMANDS];
	for (size_t i = 0; i < NCOMMANDS; i++)
		cc[i] = (completion_cmd){ commands[i].name, commands[i].summary, commands[i].opts };
	completions_write(stdout, shells[ca.sub], cc, NCOMMANDS);
	cli_args_free(&ca);
	if (fflush(stdout) != 0) {
		cli_error("completions: cannot write to standard output");
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* LC_CTYPE only: number formatting (cJSON) stays "C". */
	setlocale(LC_CTYPE, "");
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0 || strcmp(name, "version") == 0) {
		printf("ncclog %s\nknows the NCCL log formats of NCCL 2.0 to 2.30 (pre-2.3 lines without the NCCL "
		       "token included), PyTorch's from 1.8, and Flight Recorder dumps of 2.3 to 2.10\n",
		       NCCLOG_VERSION);
		const char *hs = gate_accelerator();
		if (hs) {
			int n = (int)strcspn(hs, " "); /* the version, not the build date */
			printf("scans the rules' literals of large inputs with Vectorscan %.*s\n", n, hs);
		}
		return 0;
	}
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
		if (argc >= 3 && strcmp(name, "help") == 0) {
			const struct command *c = find(argv[2]);
			if (!c) {
				cli_error("help: no command '%s' (try: ncclog --help)", argv[2]);
				return 2;
			}
			char *args[] = { argv[2], "--help", NULL };
			return c->run(2, args);
		}
		usage(stdout);
		return 0;
	}
	const struct command *c = find(name);
	if (!c) {
		cli_error("unknown command '%s' (try: ncclog --help)", name);
		return 2;
	}
	return c->run(argc - 1, argv + 1);
}

int setup_load_or_report(setup *s, char **extra, size_t nextra)
{
	strbuf err = { 0 };
	int rc = setup_load(s, extra, nextra, &err);
	if (rc != 0) {
		cli_error("%s", err.p);
		setup_free(s);
	}
	sb_free(&err);
	return rc;
}
