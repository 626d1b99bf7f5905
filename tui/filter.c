#include "filter.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A rank range may not be wider than this: "0-999999999" is a typo, not a
 * filter, and would be a set of a billion ranks. */
#define FILTER_MAX_SPAN 65536

void filter_init(filterset *f)
{
	*f = (filterset){ .min_sev = -1 };
}

void filter_free(filterset *f)
{
	for (size_t i = 0; i < f->nhosts; i++)
		free(f->hosts[i]);
	intset_free(&f->ranks);
	filter_init(f);
}

static int severity_word(const char *w)
{
	static const struct { const char *w; int sev; } words[] = {
		{ "error", SEV_ERROR }, { "errors", SEV_ERROR }, { "err", SEV_ERROR },
		{ "warning", SEV_WARNING }, { "warnings", SEV_WARNING }, { "warn", SEV_WARNING },
		{ "info", SEV_INFO }, { "all", -1 },
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcasecmp(w, words[i].w) == 0)
			return words[i].sev;
	return -2;
}

/* "5", "3-7", "3-7,9" into s; false when w is not a rank list. */
static bool rank_list(const char *w, intset *s, strbuf *err)
{
	if (!isdigit((unsigned char)*w))
		return false;
	for (const char *c = w; *c; c++)
		if (!isdigit((unsigned char)*c) && *c != '-' && *c != ',')
			return false;
	const char *p = w;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p)
			return false;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p)
				return false;
		}
		if (a > b || b - a >= FILTER_MAX_SPAN || b >= (1L << 30)) {
			sb_printf(err, "rank range %ld-%ld is too wide or reversed", a, b);
			return false;
		}
		for (long r = a; r <= b; r++)
			intset_add(s, (int)r);
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return false;
	}
	return true;
}

int filter_parse(filterset *f, const char *text, strbuf *err)
{
	filterset n;
	filter_init(&n);
	char *copy = xstrdup(text ? text : "");
	int rc = 0;
	for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		const char *val = w;
		enum { ANY, SEV, RANK, HOST } kind = ANY;
		if (strncasecmp(w, "sev=", 4) == 0 || strncasecmp(w, "severity=", 9) == 0) {
			kind = SEV;
			val = strchr(w, '=') + 1;
		} else if (strncasecmp(w, "rank=", 5) == 0 || strncasecmp(w, "ranks=", 6) == 0) {
			kind = RANK;
			val = strchr(w, '=') + 1;
		} else if (strncasecmp(w, "host=", 5) == 0) {
			kind = HOST;
			val = w + 5;
		}
		int sev = kind == ANY || kind == SEV ? severity_word(val) : -2;
		if (sev != -2) {
			n.min_sev = sev;
			continue;
		}
		if (kind == SEV) {
			sb_printf(err, "unknown severity '%s' (error, warning, info)", val);
			rc = -1;
			break;
		}
		/* r5, r3-7: the timeline's own names for ranks */
		const char *num = kind == ANY && (val[0] == 'r' || val[0] == 'R') && isdigit((unsigned char)val[1]) ? val + 1 : val;
		size_t before = err->n;
		if (kind != HOST && rank_list(num, &n.ranks, err))
			continue;
		if (err->n > before || kind == RANK) {
			if (err->n == before)
				sb_printf(err, "'%s' is not a rank list (5, 3-7, 0-3,8)", val);
			rc = -1;
			break;
		}
		if (!*val || n.nhosts == FILTER_MAX_HOSTS) {
			sb_printf(err, !*val ? "host= needs a name" : "at most %d hosts in a filter", FILTER_MAX_HOSTS);
			rc = -1;
			break;
		}
		n.hosts[n.nhosts++] = xstrdup(val);
	}
	free(copy);
	if (rc != 0) {
		filter_free(&n);
		return -1;
	}
	filter_free(f);
	*f = n;
	return 0;
}

bool filter_scoped(const filterset *f)
{
	return f->nhosts || f->ranks.n;
}

static bool host_passes(const filterset *f, const char *host)
{
	if (!f->nhosts)
		return true;
	if (!host)
		return false;
	for (size_t i = 0; i < f->nhosts; i++) {
		const char *h = f->hosts[i];
		if (strpbrk(h, "*?[") ? fnmatch(h, host, 0) == 0 : strcasestr(host, h) != NULL)
			return true;
	}
	return false;
}

bool filter_proc(const filterset *f, const model *m, int p, int rank)
{
	if (f->ranks.n && (rank < 0 || !intset_has(&f->ranks, rank)))
		return false;
	return host_passes(f, p >= 0 ? model_host(m, p) : NULL);
}

bool filter_finding(const filterset *f, const model *m, const finding *fd)
{
	if ((int)fd->severity < f->min_sev)
		return false;
	if (!filter_scoped(f))
		return true;
	for (size_t i = 0; i < fd->procs.n; i++)
		if (filter_proc(f, m, fd->procs.v[i], model_proc_rank(m, fd->procs.v[i])))
			return true;
	/* a finding that names ranks or hosts without their processes */
	intset ranks = { 0 }, hosts = { 0 };
	model_finding_place(m, fd, &ranks, &hosts);
	bool rank_ok = !f->ranks.n, host_ok = !f->nhosts;
	for (size_t i = 0; i < ranks.n && !rank_ok; i++)
		rank_ok = intset_has(&f->ranks, ranks.v[i]);
	for (size_t i = 0; i < hosts.n && !host_ok; i++)
		host_ok = host_passes(f, intern_str(&m->str, hosts.v[i]));
	bool placed = ranks.n || hosts.n;
	intset_free(&ranks);
	intset_free(&hosts);
	return rank_ok && host_ok && placed;
}

void filter_describe(const filterset *f, strbuf *b)
{
	size_t start = b->n;
	for (size_t i = 0; i < f->nhosts; i++)
		sb_printf(b, "%s%s", b->n > start ? " " : "", f->hosts[i]);
	if (f->ranks.n) {
		sb_adds(b, b->n > start ? " r" : "r");
		ranges_format(b, f->ranks.v, f->ranks.n);
	}
	if (f->min_sev >= 0)
		sb_printf(b, "%s%s+", b->n > start ? " " : "", severity_name((enum severity)f->min_sev));
}
