/* Renderers over findings and the job model: text, JSON, Markdown, HTML. None of
 * them parses anything; all of them escape what came from a log. */
#ifndef NCCLOG_REPORT_H
#define NCCLOG_REPORT_H

#include <stdio.h>

#include "../model/model.h"

enum report_format { FMT_TEXT, FMT_JSON, FMT_MARKDOWN, FMT_HTML };

typedef struct report_opts {
	enum report_format format;
	bool color;
	const char *version;
	bool no_job;     /* text: the findings alone, no verdict, no job (doctor) */
	bool no_summary; /* the verdict and findings without the job summary */
	bool verbose;    /* every finding in full, consequences too */
	bool brief;      /* the roots only */
	enum severity min_severity; /* leave out findings below it */
	const char **ids;           /* only these ids, when nids */
	size_t nids;
} report_opts;

/* Whether a finding is shown under the options' filters. */
bool report_shows(const report_opts *o, const finding *f);
/* Whether finding i of an ordered model is shown as a block of its own:
 * a root, every finding under -v, or a consequence whose root is
 * filtered out; the others are one line under their root. */
bool report_block(const report_opts *o, const model *m, size_t i);

/* The answer a report opens with. */
typedef struct verdict {
	const finding *root; /* the first root, NULL without findings */
	bool proven;         /* a cause the logs show, not only its symptoms */
	strbuf what;         /* the answer in words (raw: escape it) */
	strbuf fix;          /* what to do, or what to collect next; may be empty */
	size_t explained;    /* findings the root explains */
} verdict;

/* Words the verdict of an ordered model (model_order). Free with verdict_free. */
void report_verdict(const model *m, verdict *v);
void verdict_free(verdict *v);

/* Writes the report to out. Returns 0, or -1 when writing failed. */
int report_write(FILE *out, const model *m, const report_opts *o);
/* A format by its name or alias ("md"); false when there is none. */
bool report_format_parse(const char *s, enum report_format *out);
const char *report_format_name(enum report_format f);

/* The renderers behind report_write. */
int report_text(FILE *out, const model *m, const report_opts *o);
int report_json(FILE *out, const model *m, const report_opts *o);
int report_markdown(FILE *out, const model *m, const report_opts *o);
/* One self-contained HTML page: no script, nothing fetched. */
int report_html(FILE *out, const model *m, const report_opts *o);
/* The JSON document report_json prints, as a new cJSON object the caller
 * owns (to add members before printing it). */
struct cJSON *report_json_doc(const model *m, const report_opts *o);

/* One finding, for live mode: the text block of the report, or the JSON
 * object of its "findings" array (a new cJSON item, or NULL without cJSON). */
void report_finding_text(strbuf *b, const model *m, const finding *f, bool color);
struct cJSON *report_finding_json(const model *m, const finding *f);
/* The job summary that closes a text report. */
void report_summary_text(strbuf *b, const model *m, bool color);

/* Per-host facts shared by the renderers. */
typedef struct hostrow {
	int host;            /* interned, -1 for processes with no host */
	intset procs;
	intset ranks;
	int boot_name, boot_addr, net;
	enum phase min_phase, max_phase;
} hostrow;

size_t report_hosts(const model *m, hostrow **rows);
void report_hosts_free(hostrow *rows, size_t n);

/* Rows that fold where their keys are equal: grp[row] is its group,
 * numbered in the order its first row comes. Sorts v; n log n whatever
 * the input. Returns the number of groups. */
typedef struct rowkey {
	int k[5];
	size_t i; /* the row */
} rowkey;
size_t report_group(rowkey *v, size_t n, size_t *grp);

/* Hosts folded where they are alike: the same interface, network, phases
 * and rank count (addresses differ on every host and do not count). */
typedef struct hostgroup {
	const hostrow *row;  /* its first host, for the shared facts */
	intset hosts, ranks; /* interned hosts; ranks */
	size_t per_host;     /* ranks on each of its hosts */
} hostgroup;
typedef struct hostgroups {
	hostrow *rows;
	size_t nrows;
	hostgroup *v; /* in the order their first host comes */
	size_t n;
	size_t big; /* the largest group */
} hostgroups;
void report_hostgroups(const model *m, hostgroups *g);
void report_hostgroups_free(hostgroups *g);
/* Appends "all 64 hosts alike" or "all 64 hosts alike except gpu-[0021]"
 * (raw) and returns true; false, and nothing, when most hosts differ. */
bool report_hosts_alike(strbuf *b, const model *m, const hostgroups *g);

/* A finding's message, led by "ranks 4-7 on node-b: " unless it names
 * them itself; raw text (escape it for the output). */
void report_message(const model *m, const finding *f, strbuf *b);
/* The location of a finding's first evidence, "file:line", into b. */
void report_location(const model *m, const finding *f, strbuf *b);

#endif
