#include "ncclt.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/jsoncount.h"

#define ROW_TOKENS 24
#define NCCLT_MAX_VALUES (4u << 20)

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Splits on blanks; returns the count, at most max (more: max + 1). */
static size_t tokens(slice s, slice *t, size_t max)
{
	size_t n = 0, i = 0;
	while (i < s.n) {
		while (i < s.n && (s.p[i] == ' ' || s.p[i] == '\t'))
			i++;
		if (i >= s.n)
			break;
		size_t st = i;
		while (i < s.n && s.p[i] != ' ' && s.p[i] != '\t')
			i++;
		if (n == max)
			return max + 1;
		t[n++] = (slice){ s.p + st, i - st };
	}
	return n;
}

/* A number as nccl-tests prints one ("%7s" of a "%.2f", "%6g", "1e+06",
 * "N/A", "nan"); false for anything else. */
static bool number(slice t, double *v)
{
	if (slice_eq_str(t, "N/A")) {
		*v = -1;
		return true;
	}
	if (!t.n || t.n > 40)
		return false;
	char buf[48];
	memcpy(buf, t.p, t.n);
	buf[t.n] = '\0';
	char *end;
	double d = strtod(buf, &end);
	if (end != buf + t.n)
		return false;
	/* strtod takes "nan", "inf" and hex too: keep only what printf writes */
	if (!is_digit(buf[0]) && !(buf[0] == '-' && (is_digit(buf[1]) || buf[1] == 'n')) && buf[0] != 'n' && buf[0] != 'i')
		return false;
	if (strchr(buf, 'x') || strchr(buf, 'X'))
		return false;
	*v = isfinite(d) ? d : -1;
	return true;
}

static bool integer(slice t, uint64_t *v)
{
	if (!t.n || t.n > 19)
		return false;
	uint64_t x = 0;
	for (size_t i = 0; i < t.n; i++) {
		if (!is_digit(t.p[i]))
			return false;
		x = x * 10 + (uint64_t)(t.p[i] - '0');
	}
	*v = x;
	return true;
}

static void copy_tok(char *dst, size_t cap, slice t)
{
	size_t n = t.n < cap - 1 ? t.n : cap - 1;
	memcpy(dst, t.p, n);
	dst[n] = '\0';
}

static ncclt_result result_of(const double *v)
{
	return (ncclt_result){ true, v[0], v[1], v[2], v[3] };
}

bool ncclt_row_parse(slice line, ncclt_row *r)
{
	slice t[ROW_TOKENS];
	size_t n = tokens(slice_trim(line), t, ROW_TOKENS);
	if (n < 7 || n > ROW_TOKENS)
		return false;
	ncclt_row row = { .root = -1 };
	if (!integer(t[0], &row.size) || !integer(t[1], &row.count))
		return false;
	/* the type: "float", "bfloat16", "int8", "f8e4m3" */
	if (!is_alpha(t[2].p[0]) || t[2].n >= sizeof row.type)
		return false;
	for (size_t i = 0; i < t[2].n; i++)
		if (!is_alpha(t[2].p[i]) && !is_digit(t[2].p[i]) && t[2].p[i] != '_')
			return false;
	copy_tok(row.type, sizeof row.type, t[2]);
	size_t k = 3;
	if (k < n && is_alpha(t[k].p[0]) && !slice_eq_str(t[k], "N/A") && !slice_eq_str(t[k], "nan") &&
	    t[k].n < sizeof row.redop) {
		copy_tok(row.redop, sizeof row.redop, t[k]);
		k++;
	}
	double v[ROW_TOKENS];
	size_t nv = 0;
	while (k < n && number(t[k], &v[nv])) {
		nv++;
		k++;
	}
	/* what follows the numbers (a -T timestamp) is no number */
	if (k < n && nv < 4)
		return false;
	size_t o = 0;
	if (nv % 4 == 1) {
		if (v[0] < -1 || v[0] > 1e9 || (double)(long)v[0] != v[0])
			return false;
		row.root = (long)v[0];
		o = 1;
		nv--;
	}
	if (nv == 8) {
		row.out = result_of(v + o);
		row.in = result_of(v + o + 4);
	} else if (nv == 16) {
		row.out = result_of(v + o);
		row.in = result_of(v + o + 8);
	} else if (nv == 4 && o == 1) {
		/* trace replay: in-place only */
		row.in = result_of(v + o);
	} else {
		return false;
	}
	/* a time is never negative, bandwidths neither */
	for (int d = 0; d < 2; d++) {
		const ncclt_result *x = d ? &row.in : &row.out;
		if (x->set && (x->time_us < 0 || x->algbw < -1 || x->busbw < -1))
			return false;
	}
	*r = row;
	return true;
}

enum ncclt_col ncclt_header_kind(slice line)
{
	slice s = slice_trim(line);
	if (!s.n || s.p[0] != '#')
		return NCCLT_COL_NONE;
	if (slice_find(s, "size", 4) < 0 || slice_find(s, "busbw", 5) < 0)
		return NCCLT_COL_NONE;
	if (slice_find(s, "#wrong", 6) >= 0)
		return NCCLT_COL_WRONG;
	if (slice_find(s, "error", 5) >= 0)
		return NCCLT_COL_ERROR;
	return NCCLT_COL_NONE;
}

enum ncclt_kind ncclt_line_parse(slice line, ncclt_line *out)
{
	slice s = slice_trim(line);
	memset(out, 0, sizeof *out);
	out->kind = NCCLT_OTHER;
	if (slice_starts(s, "# nccl-tests version ") || slice_starts(s, "# nThread ")) {
		out->kind = NCCLT_START;
	} else if (slice_starts(s, "# Collective test starting: ")) {
		out->kind = NCCLT_START;
		slice t = slice_trim((slice){ s.p + 28, s.n - 28 });
		size_t n = 0;
		while (n < t.n && t.p[n] != ' ')
			n++;
		copy_tok(out->program, sizeof out->program, (slice){ t.p, n });
	} else if ((out->col = ncclt_header_kind(s)) != NCCLT_COL_NONE) {
		out->kind = NCCLT_HEADER;
	} else if (ncclt_row_parse(s, &out->row)) {
		out->kind = NCCLT_ROW;
	} else {
		/* "# Out of bounds values : 3 FAILED" (older: no "#") */
		slice t = s;
		if (t.n && t.p[0] == '#')
			t = slice_trim((slice){ t.p + 1, t.n - 1 });
		bool oob = slice_starts(t, "Out of bounds values"), bw = slice_starts(t, "Avg bus bandwidth");
		const char *colon = (oob || bw) ? memchr(t.p, ':', t.n) : NULL;
		if (colon) {
			slice v = slice_trim((slice){ colon + 1, t.n - (size_t)(colon + 1 - t.p) });
			size_t n = 0;
			while (n < v.n && v.p[n] != ' ')
				n++;
			double d;
			if (number((slice){ v.p, n }, &d) && d >= 0) {
				out->kind = oob ? NCCLT_OOB : NCCLT_AVGBW;
				out->oob = d < 1e18 ? (long)d : LONG_MAX;
				out->avg_bw = d;
			}
		}
	}
	return out->kind;
}

/* ---- the JSON report ---- */

/* The first key of the top object and whether "start_time" and "args"
 * come near: nccl-tests writes version, start_time, args, env first. */
bool ncclt_json_sniff(const unsigned char *b, size_t n)
{
	const char *s = (const char *)b;
	size_t i = json_skip_blank(s, n, 0);
	if (i >= n || s[i] != '{')
		return false;
	i = json_skip_blank(s, n, i + 1);
	if (i + 9 > n || memcmp(s + i, "\"version\"", 9) != 0)
		return false;
	slice head = { s + i, n - i < 4096 ? n - i : 4096 };
	return slice_find(head, "\"start_time\"", 12) >= 0 && slice_find(head, "\"args\"", 6) >= 0;
}

static double jnum(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsNumber(v))
		return isfinite(v->valuedouble) ? v->valuedouble : dflt;
	if (cJSON_IsString(v) && v->valuestring) {
		char *end;
		double d = strtod(v->valuestring, &end);
		if (end != v->valuestring && !*end && isfinite(d))
			return d;
	}
	return dflt;
}

/* An integral field in [lo, hi], else dflt: a double outside a C integer
 * type's range must never reach a cast. */
static double jint(const cJSON *o, const char *key, double dflt, double lo, double hi)
{
	double d = jnum(o, key, dflt);
	return d >= lo && d <= hi && d == (double)(long long)d ? d : dflt;
}

static void jstr(const cJSON *o, const char *key, char *dst, size_t cap)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	dst[0] = '\0';
	if (cJSON_IsString(v) && v->valuestring)
		copy_tok(dst, cap, slice_trim(slice_from(v->valuestring)));
}

static ncclt_result jresult(const cJSON *o)
{
	ncclt_result r = { 0 };
	if (!cJSON_IsObject(o))
		return r;
	r.set = true;
	r.time_us = jnum(o, "time", jnum(o, "cpu_time", -1));
	r.algbw = jnum(o, "alg_bw", -1);
	r.busbw = jnum(o, "bus_bw", -1);
	r.wrong = jnum(o, "nwrong", -1);
	return r;
}

static void program_of(const cJSON *args, char *dst, size_t cap)
{
	dst[0] = '\0';
	const cJSON *a0 = cJSON_IsArray(args) ? args->child : NULL;
	if (!cJSON_IsString(a0) || !a0->valuestring)
		return;
	const char *p = strrchr(a0->valuestring, '/');
	copy_tok(dst, cap, slice_from(p ? p + 1 : a0->valuestring));
}

int ncclt_json_parse(const char *buf, size_t n, ncclt_run *run, strbuf *err)
{
	*run = (ncclt_run){ .out_of_bounds = -1, .avg_busbw = -1 };
	if (n > NCCLT_MAX_JSON) {
		sb_printf(err, "%zu MiB is more than a nccl-tests report may have (%u MiB)", n >> 20, NCCLT_MAX_JSON >> 20);
		return -1;
	}
	if (json_count_values(buf, n) > NCCLT_MAX_VALUES) {
		sb_printf(err, "more than %u JSON values: not a nccl-tests report ncclog reads", NCCLT_MAX_VALUES);
		return -1;
	}
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(buf, n, &end, 0);
	if (!doc) {
		size_t at = end && end >= buf ? (size_t)(end - buf) : 0;
		sb_printf(err, "not valid JSON at byte %zu (a nccl-tests report cut short?)", at);
		return -1;
	}
	if (!cJSON_IsObject(doc) || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(doc, "version"))) {
		sb_adds(err, "no \"version\" number: not a nccl-tests JSON report");
		cJSON_Delete(doc);
		return -1;
	}
	run->version = (int)jint(doc, "version", 0, 0, INT_MAX);
	run->nccl_version = (long)jint(doc, "nccl_version", 0, 0, INT_MAX);
	program_of(cJSON_GetObjectItemCaseSensitive(doc, "args"), run->program, sizeof run->program);
	/* the device table sits in "config" (and at the top in some versions) */
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(doc, "config");
	const cJSON *devs = cJSON_GetObjectItemCaseSensitive(cfg, "devices");
	if (!cJSON_IsArray(devs))
		devs = cJSON_GetObjectItemCaseSensitive(doc, "devices");
	size_t nd = cJSON_IsArray(devs) ? (size_t)cJSON_GetArraySize(devs) : 0;
	run->dev = xcalloc(nd ? nd : 1, sizeof *run->dev);
	for (const cJSON *d = nd ? devs->child : NULL; d; d = d->next) {
		if (!cJSON_IsObject(d))
			continue;
		ncclt_device *x = &run->dev[run->ndev];
		x->rank = (int)jint(d, "rank", -1, 0, INT_MAX);
		x->pid = (int)jint(d, "pid", -1, 0, INT_MAX);
		x->device = (int)jint(d, "device", -1, 0, INT_MAX);
		jstr(d, "hostname", x->host, sizeof x->host);
		jstr(d, "device_hex", x->bus, sizeof x->bus);
		jstr(d, "device_info", x->name, sizeof x->name);
		if (x->rank >= 0)
			run->ndev++;
	}
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(doc, "results");
	size_t nr = cJSON_IsArray(res) ? (size_t)cJSON_GetArraySize(res) : 0;
	run->rows = xcalloc(nr ? nr : 1, sizeof *run->rows);
	for (const cJSON *r = nr ? res->child : NULL; r; r = r->next) {
		if (!cJSON_IsObject(r))
			continue;
		ncclt_row *x = &run->rows[run->nrows];
		/* sizes and counts below 2^63 */
		double size = jint(r, "size", -1, 0, 9.2e18), count = jint(r, "count", -1, 0, 9.2e18);
		if (size < 0 || count < 0)
			continue;
		x->size = (uint64_t)size;
		x->count = (uint64_t)count;
		jstr(r, "type", x->type, sizeof x->type);
		jstr(r, "redop", x->redop, sizeof x->redop);
		x->root = (long)jint(r, "root", -1, -1, INT_MAX);
		x->out = jresult(cJSON_GetObjectItemCaseSensitive(r, "out_of_place"));
		x->in = jresult(cJSON_GetObjectItemCaseSensitive(r, "in_place"));
		run->nrows++;
	}
	const cJSON *oob = cJSON_GetObjectItemCaseSensitive(doc, "out_of_bounds");
	if (cJSON_IsObject(oob))
		run->out_of_bounds = (long)jint(oob, "count", -1, 0, INT_MAX);
	/* JSON_FILE_VERSION 1 spelled it "bandwidith" */
	const cJSON *bw = cJSON_GetObjectItemCaseSensitive(doc, "average_bus_bandwidth");
	if (!bw)
		bw = cJSON_GetObjectItemCaseSensitive(doc, "average_bus_bandwidith");
	if (cJSON_IsObject(bw))
		run->avg_busbw = jnum(bw, "bandwidth", jnum(bw, "bandwidith", -1));
	const cJSON *errs = cJSON_GetObjectItemCaseSensitive(doc, "errors");
	if (cJSON_IsArray(errs) && cJSON_IsString(errs->child) && errs->child->valuestring && errs->child->valuestring[0])
		run->error = xstrndup(errs->child->valuestring, strnlen(errs->child->valuestring, 512));
	cJSON_Delete(doc);
	return 0;
}

void ncclt_run_free(ncclt_run *run)
{
	free(run->dev);
	free(run->rows);
	free(run->error);
	*run = (ncclt_run){ 0 };
}
