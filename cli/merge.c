/* `ncclog merge`: the findings of a job whose logs were summarized where
 * they lie (`ncclog analyze --summary` on each node). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/causes.h"
#include "../model/summary.h"
#include "../util/fileio.h"
#include "commands.h"
#include "../ingest/setup.h"

#include "version.h"

const cli_cmd merge_cmd = {
	.name = "merge",
	.synopsis = "[OPTIONS] SUMMARY.json...",
	.about = "Merges the job summaries that `ncclog analyze --summary` wrote (one per node, say)\n"
	"and reports as if all their logs had been analyzed at once.\n",
	.common = COMMON_FORMAT | COMMON_COLOR | COMMON_VERBOSE,
	.epilog = "Slurm: srun --ntasks-per-node=1 sh -c 'ncclog analyze --summary /local/logs/*.log\n"
	"       > /shared/sum.$SLURM_NODEID.json' && ncclog merge /shared/sum.*.json\n"
	"exit status as for analyze\n",
	.operands = "FILE",
};

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
	/* initialized first: the caller frees it whatever happened */
	model_init(out, cat);
	if (file_slurp(path, &text, &len, err) != 0)
		return -1;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	free(text);
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

static int no_opts(void *ctx, int opt, const char *value)
{
	(void)ctx, (void)opt, (void)value;
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	cli_args ca;
	int rc = cli_parse(&merge_cmd, argc, argv, no_opts, NULL, &ca);
	if (rc) {
		cli_args_free(&ca);
		return rc == 1 ? 0 : 2;
	}
	if (ca.noperands == 0) {
		cli_usage_error(&merge_cmd, "which summaries? (ncclog analyze --summary writes them)");
		cli_args_free(&ca);
		return 2;
	}
	report_opts ro = { .format = ca.format, .version = NCCLOG_VERSION, .verbose = ca.verbose };
	ro.color = ca.format == FMT_TEXT && color_enabled(ca.color, STDOUT_FILENO);
	setup s;
	strbuf err = { 0 };
	if (setup_catalog(&s, &err) != 0) {
		cli_error("%s", err.p);
		sb_free(&err);
		setup_free(&s);
		cli_args_free(&ca);
		return 2;
	}
	model m;
	model_init(&m, &s.cat);
	int status = 0;
	size_t loaded = 0;
	for (size_t i = 0; i < ca.noperands; i++) {
		model part;
		sb_clear(&err);
		if (load_summary(ca.operands[i], &s.cat, &part, &err) != 0) {
			cli_error("%s", err.p);
			status = 2;
		} else {
			model_merge(&m, &part);
			loaded++;
		}
		model_free(&part);
	}
	/* each unreadable one said why; no report that would read as healthy */
	if (loaded > 0)
		status = report_finish(&m, &ro, status);
	model_free(&m);
	setup_free(&s);
	sb_free(&err);
	cli_args_free(&ca);
	return status;
}
