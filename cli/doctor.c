/* `ncclog doctor`: checks this node the way NCCL will see it, before the
 * job runs; `--compare` merges the JSON reports of several nodes. */
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../doctor/compare.h"
#include "../model/causes.h"
#include "../doctor/doctor.h"
#include "../doctor/facts.h"
#include "../report/report.h"
#include "../util/escape.h"
#include "commands.h"
#include "setup.h"

#ifndef NCCLOG_VERSION
#define NCCLOG_VERSION "0.0.0"
#endif

extern char **environ;

static const char usage[] =
	"usage: ncclog doctor [OPTIONS]\n"
	"       ncclog doctor --compare FILE.json...\n"
	"Checks this node before a job runs, the way NCCL will see it: the interfaces NCCL\n"
	"will choose for bootstrap and NET/Socket (and why), /dev/shm against the local GPU\n"
	"count, the memlock limit, RDMA ports and the NCCL_* / TORCH_NCCL_* environment.\n"
	"Reports findings with the ids, formats and exit codes of `ncclog analyze`.\n"
	"\n"
	"      --peer HOST[:PORT]   another node of the job (repeatable): which local interface\n"
	"                           shares its subnet\n"
	"      --peers FILE         peers from a file, one per line (host files work)\n"
	"      --connect            also try one TCP connect to each peer's port (default 22);\n"
	"                           never more than one port per peer\n"
	"      --timeout MS         connect timeout (default 1000)\n"
	"      --gpus N             local GPU count (default: /dev/nvidia* devices)\n"
	"      --nccl-version V     predict for this NCCL version (default: the latest known)\n"
	"      --compare            merge the `doctor --format json` output of several nodes and\n"
	"                           check that they would pick interfaces on one subnet\n"
	"  -f, --format FMT         text (default), json or markdown\n"
	"      --color WHEN         auto (default), always or never; NO_COLOR is honoured\n"
	"  -h, --help               this help\n"
	"\n"
	"On every node of a Slurm job:  srun ncclog doctor --format json > $(hostname).json\n"
	"then:                          ncclog doctor --compare *.json\n"
	"\n"
	"exit status: 0 no error finding, 1 at least one error finding,\n"
	"             2 bad usage or an unreadable input\n";

typedef struct dopts {
	report_opts ro;
	enum color_mode cm;
	bool connect, compare;
	int timeout_ms, gpus, version;
	char **peer;
	size_t npeer;
	const char *peers_file;
} dopts;

static int bad(const char *msg, const char *arg)
{
	cli_error("doctor: %s%s%s", msg, arg ? " " : "", arg ? arg : "");
	return 2;
}

static int int_arg(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse(int argc, char **argv, dopts *o)
{
	static const struct option opts[] = {
		{ "peer", required_argument, NULL, 'p' },     { "peers", required_argument, NULL, 'P' },
		{ "connect", no_argument, NULL, 'C' },        { "timeout", required_argument, NULL, 't' },
		{ "gpus", required_argument, NULL, 'g' },     { "nccl-version", required_argument, NULL, 'n' },
		{ "compare", no_argument, NULL, 'm' },        { "format", required_argument, NULL, 'f' },
		{ "color", required_argument, NULL, 'c' },    { "colour", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },           { NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->peer[o->npeer++] = optarg;
			break;
		case 'P':
			o->peers_file = optarg;
			break;
		case 'C':
			o->connect = true;
			break;
		case 't':
			if (int_arg(optarg, 1, 60000, &o->timeout_ms) != 0)
				return bad("--timeout takes milliseconds from 1 to 60000, not", optarg);
			break;
		case 'g':
			if (int_arg(optarg, 0, 4096, &o->gpus) != 0)
				return bad("--gpus takes a count from 0 to 4096, not", optarg);
			break;
		case 'n':
			if (!select_version_parse(optarg, &o->version))
				return bad("--nccl-version takes a version like 2.28.3, not", optarg);
			break;
		case 'm':
			o->compare = true;
			break;
		case 'f':
			if (strcmp(optarg, "text") == 0)
				o->ro.format = FMT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				o->ro.format = FMT_JSON;
			else if (strcmp(optarg, "markdown") == 0 || strcmp(optarg, "md") == 0)
				o->ro.format = FMT_MARKDOWN;
			else {
				cli_error("doctor: unknown format '%s' (text, json or markdown)", optarg);
				return 2;
			}
			break;
		case 'c':
			if (!color_parse(optarg, &o->cm))
				return bad("--color takes auto, always or never", NULL);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			if (optopt)
				cli_error("doctor: option -%c needs a value or is unknown (see ncclog doctor --help)", optopt);
			else
				cli_error("doctor: unknown option '%s' (see ncclog doctor --help)", argv[optind - 1]);
			return 2;
		}
	}
	if (o->compare && optind == argc)
		return bad("--compare needs the JSON files of the nodes", NULL);
	if (!o->compare && optind < argc)
		return bad("unexpected argument (doctor checks this node; --compare takes files):", argv[optind]);
	if (o->compare && (o->npeer || o->peers_file || o->connect))
		return bad("--compare reads reports; --peer, --peers and --connect apply when checking a node", NULL);
	return -1;
}

/* NCCL_COMM_ID may name a host: resolve it as NCCL would (its first address). */
static void resolve_comm_id(doctor_facts *f)
{
	const char *cid = node_env(&f->node, "NCCL_COMM_ID");
	char host[256];
	ipaddr a;
	if (!cid || !select_comm_id_host(cid, host, sizeof host) || ipaddr_parse(slice_from(host), &a))
		return;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
	if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
		return;
	char t[64];
	if (getnameinfo(res->ai_addr, res->ai_addrlen, t, sizeof t, NULL, 0, NI_NUMERICHOST) == 0)
		ipaddr_parse(slice_from(t), &f->sel.comm_addr);
	freeaddrinfo(res);
}

static void text_sections(strbuf *b, const model *m, const doctor_report *r, bool color)
{
	static const char *const titles[DS_COUNT] = { "network interfaces, in kernel order", "NCCL's choice",
						      "node", "environment", "peers" };
	for (int s = 0; s < DS_COUNT; s++) {
		if (!r->n[s])
			continue;
		if (color)
			sb_adds(b, "\033[1m");
		sb_printf(b, "%s", titles[s]);
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
	for (int s = 0; s < DS_COUNT; s++)
		for (size_t i = 0; i < r->n[s]; i++) {
			strbuf t = { 0 };
			sb_printf(&t, "%s:%zu: %s", m->in[r->file[s]].name, i + 1, r->lines[s][i]);
			strbuf e = { 0 };
			escape_text(&e, (slice){ t.p, t.n });
			for (size_t k = 0; k < e.n; k++)
				sb_addc(b, e.p[k] == '`' ? '\'' : e.p[k]);
			sb_addc(b, '\n');
			sb_free(&t);
			sb_free(&e);
		}
	sb_adds(b, "```\n");
}

/* analyze's JSON document, with the node's facts added as "node". */
static int json_with_node(FILE *out, const model *m, const report_opts *ro, cJSON *node)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem) {
		cJSON_Delete(node);
		return -1;
	}
	int rc = report_json(mem, m, ro);
	if (fclose(mem) != 0)
		rc = -1;
	cJSON *doc = rc == 0 ? cJSON_ParseWithLength(buf, len) : NULL;
	free(buf);
	if (!doc) {
		cJSON_Delete(node);
		return -1;
	}
	if (node)
		cJSON_AddItemToObject(doc, "node", node);
	char *txt = cJSON_Print(doc);
	cJSON_Delete(doc);
	rc = txt && fputs(txt, out) >= 0 && fputc('\n', out) != EOF ? 0 : -1;
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

static int run_compare(int argc, char **argv, const dopts *o, setup *s)
{
	model m;
	model_init(&m, &s->cat);
	compare c = { 0 };
	int status = 0;
	strbuf err = { 0 };
	for (int i = optind; i < argc; i++) {
		sb_clear(&err);
		if (compare_load(&c, &m, argv[i], &err) != 0) {
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
	if (ifaces_list(&f.ifs, &err) != 0) {
		cli_error("doctor: %s", err.p);
		status = 2;
		goto out;
	}
	node_collect(&f.node, &node_default_paths, environ, o->gpus);
	peers_resolve(&f.peers);
	peers_match(&f.peers, f.ifs.v, f.ifs.n);
	if (o->connect) {
		peers_connect(&f.peers, o->timeout_ms);
		f.connected = true;
	}
	f.sel.version = o->version;
	f.version_given = o->version != 0;
	resolve_comm_id(&f);
	doctor_predict(&f);
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
	dopts o = { .ro = { FMT_TEXT, false, NCCLOG_VERSION, true }, .cm = COLOR_AUTO, .timeout_ms = 1000, .gpus = -1 };
	o.peer = xcalloc((size_t)argc, sizeof *o.peer);
	int status = parse(argc, argv, &o);
	if (status >= 0) {
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
		status = o.compare ? run_compare(argc, argv, &o, &s) : run_node(&o, &s);
	}
	sb_free(&err);
	setup_free(&s);
	free(o.peer);
	return status;
}
