/* `ncclog doctor`: checks this node the way NCCL will see it, before the
 * job runs; `--compare` merges the JSON reports of several nodes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include <sys/stat.h>

#include "../doctor/compare.h"
#include "../doctor/diagnose.h"
#include "../model/causes.h"
#include "../doctor/doctor.h"
#include "../doctor/facts.h"
#include "../report/report.h"
#include "../util/escape.h"
#include "commands.h"
#include "../ingest/setup.h"

#include "version.h"

extern char **environ;

enum { O_PEER, O_PEERS, O_CONNECT, O_TIMEOUT, O_GPUS, O_NCCL_VERSION, O_NCCL_LIB, O_NO_DLOPEN, O_COMPARE };
static const cli_opt opts[] = {
	[O_PEER] = { "peer", 0, "HOST[:PORT]", "another node of the job (repeatable): how it resolves, which "
					       "local interface shares its subnet, the route to it" },
	[O_PEERS] = { "peers", 0, "FILE", "peers from a file, one per line (host files work)" },
	[O_CONNECT] = { "connect", 0, NULL, "also try one TCP connect to each peer's port (default 22); never "
					    "more than one port per peer" },
	[O_TIMEOUT] = { "timeout", 0, "MS", "how long one connect (default 1000) or one library probe (default "
					    "10000) may take" },
	[O_GPUS] = { "gpus", 0, "N", "local GPU count (default: /dev/nvidia* devices)" },
	[O_NCCL_VERSION] = { "nccl-version", 0, "V", "predict for this NCCL version (default: the version of the "
						     "NCCL found, else the latest known)" },
	[O_NCCL_LIB] = { "nccl-lib", 0, "PATH", "the libnccl the job loads (a file, or a directory holding it), "
						"instead of searching where the dynamic loader would" },
	[O_NO_DLOPEN] = { "no-dlopen", 0, NULL, "never load a library to ask its version: read the file only" },
	[O_COMPARE] = { "compare", 0, NULL, "merge the `doctor --format json` output of several nodes (the "
					    "FILEs) and compare them: NCCL versions, CUDA drivers, MTU, NIC drivers "
					    "and firmware, RDMA link layers, net plugins, names, subnets, environment" },
	{ NULL, 0, NULL, NULL },
};

const cli_cmd doctor_cmd = {
	.name = "doctor",
	.synopsis = "[OPTIONS]\n       ncclog doctor --compare [OPTIONS] FILE.json...",
	.about = "Checks this node before a job runs, the way NCCL will see it: the NCCL the job will\n"
		 "load and its version, the CUDA driver, the net plugin; the interfaces NCCL will choose\n"
		 "for bootstrap and NET/Socket (and why), with their drivers, firmware and MTU; /dev/shm\n"
		 "against the local GPU count, the memlock limit, RDMA ports and their RoCE GIDs; how\n"
		 "this node's name and MASTER_ADDR resolve; the NCCL_* / TORCH_NCCL_* environment.\n"
		 "Reports findings with the ids, formats and exit codes of `ncclog analyze`.\n",
	.common = COMMON_FORMAT | COMMON_COLOR,
	.opts = opts,
	.epilog = "On every node of a Slurm job:\n"
		  "  srun --ntasks-per-node=1 sh -c 'ncclog doctor --format json > doctor-$(hostname).json'\n"
		  "then:  ncclog doctor --compare doctor-*.json\n"
		  "\n"
		  "exit status: 0 no error finding, 1 at least one error finding,\n"
		  "             2 bad usage or an unreadable input\n",
	.formats = 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_MARKDOWN,
	.operands = "FILE",
};

typedef struct dopts {
	report_opts ro;
	enum color_mode cm;
	bool connect, compare, no_dlopen, timeout_given;
	int timeout_ms, gpus, version;
	const char **peer;
	size_t npeer;
	const char *peers_file, *nccl_lib;
} dopts;

static int int_arg(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int on_opt(void *ctx, int opt, const char *v)
{
	dopts *o = ctx;
	struct stat st;
	switch (opt) {
	case O_PEER:
		o->peer = xrealloc(o->peer, (o->npeer + 1) * sizeof *o->peer);
		o->peer[o->npeer++] = v;
		break;
	case O_PEERS:
		o->peers_file = v;
		break;
	case O_CONNECT:
		o->connect = true;
		break;
	case O_TIMEOUT:
		if (int_arg(v, 1, 60000, &o->timeout_ms) != 0)
			return cli_usage_error(&doctor_cmd, "--timeout takes milliseconds from 1 to 60000, not '%s'", v);
		o->timeout_given = true;
		break;
	case O_GPUS:
		if (int_arg(v, 0, 4096, &o->gpus) != 0)
			return cli_usage_error(&doctor_cmd, "--gpus takes a count from 0 to 4096, not '%s'", v);
		break;
	case O_NCCL_VERSION:
		if (!select_version_parse(v, &o->version))
			return cli_usage_error(&doctor_cmd, "--nccl-version takes a version like 2.28.3, not '%s'", v);
		break;
	case O_NCCL_LIB:
		if (stat(v, &st) != 0) {
			cli_error("doctor: --nccl-lib %s: %s", v, strerror(errno));
			return -1;
		}
		o->nccl_lib = v;
		break;
	case O_NO_DLOPEN:
		o->no_dlopen = true;
		break;
	case O_COMPARE:
		o->compare = true;
		break;
	}
	return 0;
}

/* Returns -1 when doctor should run, else the exit status. */
static int parse(int argc, char **argv, dopts *o, cli_args *ca)
{
	int rc = cli_parse(&doctor_cmd, argc, argv, on_opt, o, ca);
	if (rc)
		return rc == 1 ? 0 : 2;
	o->ro.format = ca->format;
	o->cm = ca->color;
	const char *why = NULL;
	if (o->compare && !ca->noperands)
		why = "--compare needs the JSON files of the nodes";
	else if (o->compare && (o->npeer || o->peers_file || o->connect || o->nccl_lib))
		why = "--compare reads reports; --peer, --peers, --connect and --nccl-lib apply when checking a node";
	if (why) {
		cli_usage_error(&doctor_cmd, "%s", why);
		return 2;
	}
	if (!o->compare && ca->noperands) {
		cli_usage_error(&doctor_cmd, "unexpected argument '%s' (doctor checks this node; --compare takes files)",
				ca->operands[0]);
		return 2;
	}
	return -1;
}

static void text_sections(strbuf *b, const model *m, const doctor_report *r, bool color)
{
	for (int k = 0; k < DS_COUNT; k++) {
		enum doctor_section s = doctor_section_order[k];
		if (!r->n[s])
			continue;
		if (color)
			sb_adds(b, "\033[1m");
		sb_printf(b, "%s", doctor_section_titles[s]);
		if (color)
			sb_adds(b, "\033[0m");
		sb_printf(b, " (%s)\n", m->in[r->file[s]].name);
		for (size_t i = 0; i < r->n[s]; i++) {
			sb_printf(b, "%4zu  ", i + 1);
			escape_text(b, slice_from(r->lines[s][i]));
			sb_addc(b, '\n');
		}
		sb_addc(b, '\n');
	}
}

static void markdown_sections(strbuf *b, const model *m, const doctor_report *r)
{
	sb_adds(b, "\n### node\n\n```\n");
	for (int k = 0; k < DS_COUNT; k++) {
		enum doctor_section s = doctor_section_order[k];
		for (size_t i = 0; i < r->n[s]; i++) {
			strbuf t = { 0 };
			sb_printf(&t, "%s:%zu: %s", m->in[r->file[s]].name, i + 1, r->lines[s][i]);
			strbuf e = { 0 };
			escape_text(&e, (slice){ t.p, t.n });
			for (size_t c = 0; c < e.n; c++)
				sb_addc(b, e.p[c] == '`' ? '\'' : e.p[c]);
			sb_addc(b, '\n');
			sb_free(&t);
			sb_free(&e);
		}
	}
	sb_adds(b, "```\n");
}

/* analyze's JSON document, with the node's facts added as "node". */
static int json_with_node(FILE *out, const model *m, const report_opts *ro, cJSON *node)
{
	cJSON *doc = report_json_doc(m, ro);
	cJSON_AddItemToObject(doc, "node", node);
	char *txt = cJSON_Print(doc);
	cJSON_Delete(doc);
	int rc = txt && fputs(txt, out) >= 0 && fputc('\n', out) != EOF ? 0 : -1;
	free(txt);
	return rc;
}

static int status_of(const model *m, int status)
{
	for (size_t i = 0; status == 0 && i < m->fs.n; i++)
		if (m->fs.v[i].severity == SEV_ERROR)
			status = 1;
	return status;
}

static int run_compare(char **files, size_t nfiles, const dopts *o, setup *s)
{
	model m;
	model_init(&m, &s->cat);
	compare c = { 0 };
	int status = 0;
	strbuf err = { 0 };
	for (size_t i = 0; i < nfiles; i++) {
		sb_clear(&err);
		if (compare_load(&c, &m, files[i], &err) != 0) {
			cli_error("%s", err.p);
			status = 2;
		}
	}
	compare_check(&c, &m);
	model_order(&m);
	if (report_write(stdout, &m, &o->ro) != 0 || fflush(stdout) != 0) {
		cli_error("cannot write the report");
		status = 2;
	}
	status = status_of(&m, status);
	compare_free(&c);
	model_free(&m);
	sb_free(&err);
	return status;
}

static int run_node(const dopts *o, setup *s)
{
	doctor_facts f = { 0 };
	strbuf err = { 0 };
	int status = 0;
	for (size_t i = 0; i < o->npeer; i++)
		if (peers_add(&f.peers, o->peer[i], &err) != 0) {
			cli_error("doctor: %s", err.p);
			status = 2;
			goto out;
		}
	if (o->peers_file && peers_read_file(&f.peers, o->peers_file, &err) != 0) {
		cli_error("doctor: %s", err.p);
		status = 2;
		goto out;
	}
	/* a tree of files standing for a node's /sys, /proc, /etc and /dev (tests) */
	const char *root = getenv("NCCLOG_DOCTOR_ROOT");
	doctor_paths paths;
	doctor_paths_at(&paths, root);
	doctor_opts dop = { o->gpus, o->version, o->nccl_lib, o->connect, o->timeout_ms,
			    o->timeout_given ? o->timeout_ms : 0, !o->no_dlopen };
	if (doctor_collect(&f, &paths, &dop, environ, &err) != 0) {
		cli_error("doctor: %s", err.p);
		status = 2;
		goto out;
	}
	model m;
	model_init(&m, &s->cat);
	doctor_report r;
	doctor_diagnose(&m, &f, &r);
	model_order(&m);
	int rc;
	if (o->ro.format == FMT_JSON) {
		rc = json_with_node(stdout, &m, &o->ro, facts_json(&f));
	} else {
		strbuf b = { 0 };
		if (o->ro.format == FMT_TEXT)
			text_sections(&b, &m, &r, o->ro.color);
		rc = b.n && fwrite(b.p, 1, b.n, stdout) != b.n ? -1 : 0;
		if (rc == 0)
			rc = report_write(stdout, &m, &o->ro);
		sb_clear(&b);
		if (rc == 0 && o->ro.format == FMT_MARKDOWN) {
			markdown_sections(&b, &m, &r);
			rc = fwrite(b.p, 1, b.n, stdout) == b.n ? 0 : -1;
		}
		sb_free(&b);
	}
	if (rc != 0 || fflush(stdout) != 0) {
		cli_error("cannot write the report");
		status = 2;
	}
	status = status_of(&m, status);
	doctor_report_free(&r);
	model_free(&m);
out:
	doctor_facts_free(&f);
	sb_free(&err);
	return status;
}

int cmd_doctor(int argc, char **argv)
{
	dopts o = { .ro = { .format = FMT_TEXT, .version = NCCLOG_VERSION, .no_job = true }, .cm = COLOR_AUTO,
		    .timeout_ms = 1000, .gpus = -1 };
	cli_args ca;
	int status = parse(argc, argv, &o, &ca);
	if (status >= 0) {
		cli_args_free(&ca);
		free(o.peer);
		return status;
	}
	o.ro.color = o.ro.format == FMT_TEXT && color_enabled(o.cm, STDOUT_FILENO);
	setup s;
	strbuf err = { 0 };
	if (setup_catalog(&s, &err) != 0) {
		cli_error("%s", err.p);
		status = 2;
	} else {
		status = o.compare ? run_compare(ca.operands, ca.noperands, &o, &s) : run_node(&o, &s);
	}
	sb_free(&err);
	setup_free(&s);
	cli_args_free(&ca);
	free(o.peer);
	return status;
}
