/* ncclog: reads NCCL_DEBUG logs of distributed GPU jobs and says what is
 * wrong and what to do about it. */
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/escape.h"
#include "commands.h"

#ifndef NCCLOG_VERSION
#define NCCLOG_VERSION "0.0.0"
#endif

static const char usage[] =
	"usage: ncclog COMMAND [OPTIONS] [FILE...]\n"
	"\n"
	"commands:\n"
	"  analyze [FILE...]   diagnose the logs (standard input when no FILE or \"-\")\n"
	"  live [FILE...]      diagnose a running job as its logs arrive (stdin, or --follow files)\n"
	"  merge SUMMARY...    merge per-node summaries of `analyze --summary`\n"
	"  explain ID          the long text of one finding id (--list: all ids)\n"
	"  rules list|test     the loaded rules; test them against their sample lines\n"
	"  redact [FILE...]    a copy of the logs with hosts, addresses, pids, users hidden\n"
	"  view FILE...        the per-rank timeline: who stopped where (terminal UI)\n"
	"  doctor              check this node before a job, the way NCCL will see it\n"
	"\n"
	"  ncclog COMMAND --help   options of a command\n"
	"  ncclog --version        version and the NCCL log formats it knows\n";

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

bool color_parse(const char *s, enum color_mode *out)
{
	if (strcmp(s, "auto") == 0)
		*out = COLOR_AUTO;
	else if (strcmp(s, "always") == 0)
		*out = COLOR_ALWAYS;
	else if (strcmp(s, "never") == 0)
		*out = COLOR_NEVER;
	else
		return false;
	return true;
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

int main(int argc, char **argv)
{
	/* LC_CTYPE only: number formatting (cJSON) stays "C". */
	setlocale(LC_CTYPE, "");
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("ncclog %s\nknows the NCCL log formats of NCCL 2.3 to 2.30 "
		       "(pre-2.3 lines without the NCCL token included)\n", NCCLOG_VERSION);
		return 0;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(cmd, "analyze") == 0)
		return cmd_analyze(argc - 1, argv + 1);
	if (strcmp(cmd, "live") == 0)
		return cmd_live(argc - 1, argv + 1);
	if (strcmp(cmd, "merge") == 0)
		return cmd_merge(argc - 1, argv + 1);
	if (strcmp(cmd, "explain") == 0)
		return cmd_explain(argc - 1, argv + 1);
	if (strcmp(cmd, "rules") == 0)
		return cmd_rules(argc - 1, argv + 1);
	if (strcmp(cmd, "redact") == 0)
		return cmd_redact(argc - 1, argv + 1);
	if (strcmp(cmd, "view") == 0)
		return cmd_view(argc - 1, argv + 1);
	if (strcmp(cmd, "doctor") == 0)
		return cmd_doctor(argc - 1, argv + 1);
	cli_error("unknown command '%s' (try: ncclog --help)", cmd);
	return 2;
}
