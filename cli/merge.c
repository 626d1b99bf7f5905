/* `ncclog merge`: the findings of a job whose logs were summarized where
 * they lie (`ncclog analyze --summary` on each node). */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/causes.h"
#include "../model/summary.h"
#include "../util/fileio.h"
#include "commands.h"
#include "../ingest/setup.h"

#ifndef NCCLOG_VERSION
#define NCCLOG_VERSION "0.0.0"
#endif

static const char usage[] =
	"usage: ncclog merge [OPTIONS] SUMMARY.json...\n"
	"Merges the job summaries that `ncclog analyze --summary` wrote (one per node,\n"
	"say) and reports as if all their logs had been analyzed at once.\n"
	"\n"
	"  -f, --format FMT     text (default), json, markdown or html\n"
	"      --color WHEN     auto (default), always or never\n"
	"  -h, --help           this help\n"
	"\n"
	"Slurm: srun --ntasks-per-node=1 sh -c 'ncclog analyze --summary /local/logs/*.log\n"
	"       > /shared/sum.$SLURM_NODEID.json' && ncclog merge /shared/sum.*.json\n"
	"exit status as for analyze\n";

int summary_print(FILE *out, const model *m)
{
	cJSON *doc = summary_write(m);
	char *txt = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	int rc = txt && fputs(txt, out) >= 0 && fputc('\n', out) != EOF && fflush(out) == 0 ? 0 : -1;
	free(txt);
	return rc;
}

int report_finish(model *m, const report_opts *ro, int status)
{
	model_check(m);
	model_order(m);
	if (report_write(stdout, m, ro) != 0 || fflush(stdout) != 0) {
		cli_error("cannot write the report");
		return 2;
	}
	if (status == 0)
		for (size_t i = 0; i < m->fs.n; i++)
			if (m->fs.v[i].severity == SEV_ERROR)
				status = 1;
	return status;
}

/* Reads one summary file into a fresh model. */
static int load_summary(const char *path, const catalog *cat, model *out, strbuf *err)
{
	char *text;
	size_t len;
	if (file_slurp(path, &text, &len, err) != 0)
		return -1;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	free(text);
	model_init(out, cat);
	if (!doc) {
		sb_printf(err, "%s: not JSON", path);
		return -1;
	}
	strbuf why = { 0 };
	int rc = summary_read(out, doc, &why);
	if (rc)
		sb_printf(err, "%s: %s", path, why.p);
	sb_free(&why);
	cJSON_Delete(doc);
	return rc;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "color", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	report_opts ro = { .format = FMT_TEXT, .version = NCCLOG_VERSION };
	enum color_mode cm = COLOR_AUTO;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:h", opts, NULL)) != -1) {
		if (c == 'f' && (strcmp(optarg, "text") == 0 || strcmp(optarg, "json") == 0 || strcmp(optarg, "markdown") == 0 ||
				 strcmp(optarg, "html") == 0)) {
			ro.format = optarg[0] == 't' ? FMT_TEXT : optarg[0] == 'j' ? FMT_JSON : optarg[0] == 'h' ? FMT_HTML : FMT_MARKDOWN;
		} else if (c == 'c' && color_parse(optarg, &cm)) {
			continue;
		} else if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		} else {
			cli_error("merge: bad option or value (see ncclog merge --help)");
			return 2;
		}
	}
	if (optind >= argc) {
		fputs(usage, stderr);
		return 2;
	}
	ro.color = ro.format == FMT_TEXT && color_enabled(cm, STDOUT_FILENO);
	setup s;
	strbuf err = { 0 };
	if (setup_catalog(&s, &err) != 0) {
		cli_error("%s", err.p);
		sb_free(&err);
		setup_free(&s);
		return 2;
	}
	model m;
	model_init(&m, &s.cat);
	int status = 0;
	for (int i = optind; i < argc; i++) {
		model part;
		sb_clear(&err);
		if (load_summary(argv[i], &s.cat, &part, &err) != 0) {
			cli_error("%s", err.p);
			status = 2;
		} else {
			model_merge(&m, &part);
		}
		model_free(&part);
	}
	status = report_finish(&m, &ro, status);
	model_free(&m);
	setup_free(&s);
	sb_free(&err);
	return status;
}
