/* `ncclog analyze`: the logs (and the other files a job leaves) to a report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ingest/input.h"
#include "../ingest/parallel.h"
#include "../ingest/setup.h"
#include "../model/summary.h"
#include "commands.h"
#include "version.h"

enum { O_JOBS, O_SUMMARY, O_REDACT, O_NO_SUMMARY, O_BRIEF, O_MIN_SEVERITY, O_ID };
static const cli_opt opts[] = {
	[O_JOBS] = { "jobs", 'j', "N", "read files on N threads (default: the processors online); the report is -j 1's" },
	[O_SUMMARY] = { "summary", 0, NULL, "write the job model as JSON for `ncclog merge`, not a report" },
	[O_REDACT] = { "redact", 0, NULL, "hide host names, addresses, pids, pointers and user names (see ncclog redact --help)" },
	[O_NO_SUMMARY] = { "no-summary", 0, NULL, "the verdict and findings without the job summary" },
	[O_BRIEF] = { "brief", 0, NULL, "the root causes only, without their consequences" },
	[O_MIN_SEVERITY] = { "min-severity", 0, "SEV", "leave out findings below SEV (info, warning, error)" },
	[O_ID] = { "id", 0, "ID", "only findings with this id (repeatable)" },
	{ NULL, 0, NULL, NULL },
};

const cli_cmd analyze_cmd = {
	.name = "analyze",
	.synopsis = "[OPTIONS] [FILE...]",
	.about = "Reads the logs of a job (one file per rank, per node, or interleaved; plain, gzip or\n"
	"zstd) and the other files it left (PyTorch Flight Recorder dumps), in any order, and\n"
	"reports the root cause first, with evidence and a fix. No FILE or \"-\": standard input.\n",
	.common = COMMON_FORMAT | COMMON_COLOR | COMMON_RULES | COMMON_VERBOSE,
	.opts = opts,
	.epilog = "exit status: 0 no error finding, 1 at least one error finding, 2 bad usage, an\n"
	"unreadable input or an invalid rule file, 3 nothing readable to analyze (no input, or\n"
	"no line of NCCL or of a framework around it)\n",
	.operands = "FILE",
};

typedef struct aopts {
	int jobs;
	bool summary, redact;
	report_opts ro;
} aopts;

static int on_opt(void *ctx, int opt, const char *v)
{
	aopts *a = ctx;
	switch (opt) {
	case O_JOBS:
		return cli_jobs_parse(&analyze_cmd, v, &a->jobs);
	case O_SUMMARY:
		a->summary = true;
		break;
	case O_REDACT:
		a->redact = true;
		break;
	case O_NO_SUMMARY:
		a->ro.no_summary = true;
		break;
	case O_BRIEF:
		a->ro.brief = true;
		break;
	case O_MIN_SEVERITY:
		if (!severity_parse(v, &a->ro.min_severity))
			return cli_usage_error(&analyze_cmd, "--min-severity takes info, warning or error, not '%s'", v);
		break;
	case O_ID:
		a->ro.ids = xrealloc(a->ro.ids, (a->ro.nids + 1) * sizeof *a->ro.ids);
		a->ro.ids[a->ro.nids++] = v;
		break;
	}
	return 0;
}

static void report_input_error(void *ctx, const char *message)
{
	(void)ctx;
	cli_error("%s", message);
}

int cmd_analyze(int argc, char **argv)
{
	aopts a = { .jobs = parallel_cpus(), .ro = { .format = FMT_TEXT, .version = NCCLOG_VERSION } };
	cli_args ca;
	int rc = cli_parse(&analyze_cmd, argc, argv, on_opt, &a, &ca);
	if (rc) {
		cli_args_free(&ca);
		free(a.ro.ids);
		return rc == 1 ? 0 : 2;
	}
	a.ro.format = ca.format;
	a.ro.verbose = ca.verbose;
	a.ro.color = ca.format == FMT_TEXT && color_enabled(ca.color, STDOUT_FILENO);
	setup s;
	int status = 0;
	if (setup_load_or_report(&s, ca.rules, ca.nrules) != 0) {
		cli_args_free(&ca);
		free(a.ro.ids);
		return 2;
	}
	model m;
	model_init(&m, &s.cat);
	strbuf err = { 0 };
	redactor rd = { 0 };
	if (a.redact) {
		/* a first pass learns every host name, so none shows before its own lines */
		redact_init(&rd, getenv("NCCLOG_REDACT_KEY"));
		for (size_t i = 0; i < ca.noperands; i++)
			if (strcmp(ca.operands[i], "-") != 0)
				input_learn(ca.operands[i], &rd, &err);
	}
	char *stdin_only[] = { "-" };
	bool from_stdin = ca.noperands == 0;
	if (from_stdin && isatty(STDIN_FILENO))
		fputs("ncclog: reading standard input (Ctrl-D to end; ncclog analyze --help for files)\n", stderr);
	size_t failed = parallel_read(from_stdin ? stdin_only : ca.operands, from_stdin ? 1 : ca.noperands, a.jobs,
				      &m, &s.rs, a.redact ? &rd : NULL, report_input_error, NULL);
	if (failed)
		status = 2;
	if (s.rs.notes.n)
		fprintf(stderr, "ncclog: %s", s.rs.notes.p);
	size_t ninputs = from_stdin ? 1 : ca.noperands;
	if (!model_has_content(&m)) {
		/* no report, which would read as healthy */
		if (failed == ninputs)
			cli_error("no input could be read");
		else
			cli_error("nothing to analyze: %s no line of NCCL or of a framework around it. Run the job "
				  "with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET (NCCL writes to stderr: keep it, or "
				  "set NCCL_DEBUG_FILE=nccl.%%h.%%p.log) and give ncclog every rank's output",
				  from_stdin ? "standard input holds" : ninputs - failed == 1 ? "the input holds" : "the inputs hold");
		status = failed ? 2 : 3;
	} else if (!a.summary) {
		status = report_finish(&m, &a.ro, status);
	} else if (summary_print(stdout, &m) != 0) {
		cli_error("cannot write the summary");
		status = 2;
	}
	model_free(&m);
	if (a.redact)
		redact_free(&rd);
	setup_free(&s);
	sb_free(&err);
	cli_args_free(&ca);
	free(a.ro.ids);
	return status;
}
