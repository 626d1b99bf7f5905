#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../report/report.h"
#include "commands.h"
#include "../ingest/input.h"
#include "../ingest/parallel.h"
#include "../model/summary.h"
#include "../ingest/setup.h"

#ifndef NCCLOG_VERSION
#define NCCLOG_VERSION "0.0.0"
#endif

static const char usage[] =
	"usage: ncclog analyze [OPTIONS] [FILE...]\n"
	"Reads NCCL_DEBUG logs (one file per rank, per node, or interleaved) and reports\n"
	"diagnoses with evidence and fixes, then a job summary. No FILE or \"-\": standard input.\n"
	"\n"
	"  -f, --format FMT     text (default), json, markdown or html (one self-contained page)\n"
	"      --color WHEN     auto (default), always or never; NO_COLOR is honoured\n"
	"      --rules PATH     extra rule file or directory (repeatable)\n"
	"  -j, --jobs N         read files on N threads (default: the processors online)\n"
	"      --summary        write the job model as JSON for `ncclog merge`, not a report\n"
	"  -v, --verbose        every finding in full (by default a root cause's consequences\n"
	"                       are one line each under it)\n"
	"      --redact         hide host names, addresses, pids, pointers and user names\n"
	"                       behind consistent pseudonyms (see ncclog redact --help)\n"
	"  -h, --help           this help\n"
	"\n"
	"exit status: 0 no error finding, 1 at least one error finding,\n"
	"             2 bad usage, unreadable input or invalid rule file\n";

static void report_input_error(void *ctx, const char *message)
{
	(void)ctx;
	cli_error("%s", message);
}

int cmd_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "color", required_argument, NULL, 'c' },
		{ "colour", required_argument, NULL, 'c' },
		{ "rules", required_argument, NULL, 'r' },
		{ "redact", no_argument, NULL, 'R' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "summary", no_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	report_opts ro = { .format = FMT_TEXT, .version = NCCLOG_VERSION };
	enum color_mode cm = COLOR_AUTO;
	char **extra = xcalloc((size_t)argc, sizeof *extra);
	size_t nextra = 0;
	bool redact = false;
	int c, status = 0, jobs = parallel_cpus();
	bool summary = false;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:j:hv", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") == 0)
				ro.format = FMT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				ro.format = FMT_JSON;
			else if (strcmp(optarg, "markdown") == 0 || strcmp(optarg, "md") == 0)
				ro.format = FMT_MARKDOWN;
			else if (strcmp(optarg, "html") == 0)
				ro.format = FMT_HTML;
			else {
				cli_error("analyze: unknown format '%s' (text, json, markdown or html)", optarg);
				free(extra);
				return 2;
			}
			break;
		case 'c':
			if (!color_parse(optarg, &cm)) {
				cli_error("analyze: --color takes auto, always or never");
				free(extra);
				return 2;
			}
			break;
		case 'r':
			extra[nextra++] = optarg;
			break;
		case 'S':
			summary = true;
			break;
		case 'j': {
			char *end;
			long j = strtol(optarg, &end, 10);
			if (*end || j < 1 || j > 256) {
				cli_error("analyze: --jobs takes a number from 1 to 256");
				free(extra);
				return 2;
			}
			jobs = (int)j;
			break;
		}
		case 'R':
			redact = true;
			break;
		case 'v':
			ro.verbose = true;
			break;
		case 'h':
			fputs(usage, stdout);
			free(extra);
			return 0;
		default:
			if (optopt)
				cli_error("analyze: option -%c needs a value or is unknown (see ncclog analyze --help)", optopt);
			else
				cli_error("analyze: unknown option '%s' (see ncclog analyze --help)", argv[optind - 1]);
			free(extra);
			return 2;
		}
	}
	ro.color = ro.format == FMT_TEXT && color_enabled(cm, STDOUT_FILENO);
	setup s;
	strbuf err = { 0 };
	if (setup_load_or_report(&s, extra, nextra) != 0) {
		free(extra);
		return 2;
	}
	model m;
	model_init(&m, &s.cat);
	int nfiles = argc - optind;
	redactor rd = { 0 };
	if (redact) {
		/* a first pass learns every host name, so none shows before its own lines */
		redact_init(&rd, getenv("NCCLOG_REDACT_KEY"));
		for (int i = 0; i < nfiles; i++)
			if (strcmp(argv[optind + i], "-") != 0)
				input_learn(argv[optind + i], &rd, &err);
	}
	char *stdin_only[] = { "-" };
	if (parallel_read(nfiles ? argv + optind : stdin_only, nfiles ? (size_t)nfiles : 1, jobs, &m, &s.rs,
			  redact ? &rd : NULL, report_input_error, NULL))
		status = 2;
	if (s.rs.notes.n)
		fprintf(stderr, "ncclog: %s", s.rs.notes.p);
	if (!summary) {
		status = report_finish(&m, &ro, status);
	} else if (summary_print(stdout, &m) != 0) {
		cli_error("cannot write the summary");
		status = 2;
	}
	model_free(&m);
	if (redact)
		redact_free(&rd);
	setup_free(&s);
	sb_free(&err);
	free(extra);
	return status;
}
