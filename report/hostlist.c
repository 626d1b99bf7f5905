/* Host names folded into the hostlist form of Slurm and pdsh, and rank
 * lists cut with a count, so that a report of 512 ranks stays readable. */
#include "hostlist.h"

#include <stdlib.h>
#include <string.h>

typedef struct hostnum {
	const char *name;
	size_t pre, suf;  /* the number is name[pre..suf) */
	int width;        /* zero-padded width, 0 for plain numbers */
	long num;         /* -1: no number, the name stands alone */
	size_t order;     /* position in the input, for the order of patterns */
	size_t first;     /* smallest order of its pattern */
} hostnum;

/* Names alike but for their number: same text before and after it. */
static int cmp_stem(const hostnum *x, const hostnum *y)
{
	if ((x->num < 0) != (y->num < 0))
		return x->num < 0 ? 1 : -1;
	if (x->num < 0)
		return strcmp(x->name, y->name);
	size_t lx = strlen(x->name + x->suf), ly = strlen(y->name + y->suf);
	int c = x->pre != y->pre ? (x->pre < y->pre ? -1 : 1) : memcmp(x->name, y->name, x->pre);
	if (!c)
		c = lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->name + x->suf, y->name + y->suf);
	return c;
}

/* One pattern of a hostlist: the same stem and the same zero padding. */
static int cmp_pattern(const hostnum *x, const hostnum *y)
{
	int c = cmp_stem(x, y);
	if (!c && x->width != y->width)
		c = x->width < y->width ? -1 : 1;
	return c;
}

static int cmp_hostnum(const void *a, const void *b)
{
	const hostnum *x = a, *y = b;
	int c = cmp_pattern(x, y);
	if (c)
		return c;
	return x->num != y->num ? (x->num < y->num ? -1 : 1) : 0;
}

static int cmp_first(const void *a, const void *b)
{
	const hostnum *x = a, *y = b;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return cmp_hostnum(a, b);
}

static void split_number(hostnum *h)
{
	size_t n = strlen(h->name), e = n;
	while (e > 0 && (h->name[e - 1] < '0' || h->name[e - 1] > '9'))
		e--;
	size_t s = e;
	while (s > 0 && h->name[s - 1] >= '0' && h->name[s - 1] <= '9')
		s--;
	h->num = -1;
	if (e == s || e - s > 9)
		return;
	h->pre = s;
	h->suf = e;
	h->num = strtol(h->name + s, NULL, 10);
	h->width = h->name[s] == '0' && e - s > 1 ? (int)(e - s) : 0;
}

void hostlist_format(strbuf *b, const model *m, const int *hosts, size_t n, size_t max)
{
	if (!n)
		return;
	hostnum *v = xcalloc(n, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		v[i].name = hosts[i] >= 0 ? intern_str(&m->str, hosts[i]) : "(no host)";
		v[i].order = i;
		split_number(&v[i]);
	}
	/* a plain number as long as a padded one of its stem is one of them:
	 * gpu-node-1000 goes with gpu-node-0999 */
	qsort(v, n, sizeof *v, cmp_hostnum);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		unsigned padded = 0; /* bit w: a member padded to width w */
		while (j < n && !cmp_stem(&v[i], &v[j]))
			j++;
		for (size_t k = i; k < j; k++)
			padded |= v[k].num >= 0 && v[k].width ? 1u << v[k].width : 0;
		for (size_t k = i; k < j; k++)
			if (v[k].num >= 0 && !v[k].width && padded >> (v[k].suf - v[k].pre) & 1)
				v[k].width = (int)(v[k].suf - v[k].pre);
		i = j;
	}
	/* patterns in the order their first host came */
	qsort(v, n, sizeof *v, cmp_hostnum);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, first = v[i].order;
		while (j < n && v[i].num >= 0 && !cmp_pattern(&v[i], &v[j])) {
			if (v[j].order < first)
				first = v[j].order;
			j++;
		}
		for (size_t k = i; k < j; k++)
			v[k].first = first;
		i = j;
	}
	qsort(v, n, sizeof *v, cmp_first);
	size_t pieces = 0, shown = 0;
	for (size_t i = 0; i < n && pieces < max;) {
		size_t j = i + 1;
		while (j < n && v[i].num >= 0 && !cmp_pattern(&v[i], &v[j]))
			j++;
		if (pieces++)
			sb_adds(b, ", ");
		if (v[i].num < 0 || j == i + 1) {
			sb_adds(b, v[i].name);
			shown++;
			i = j;
			continue;
		}
		sb_add(b, v[i].name, v[i].pre);
		sb_addc(b, '[');
		int runs = 0;
		size_t k = i;
		while (k < j && runs < 16) {
			size_t e = k;
			while (e + 1 < j && v[e + 1].num == v[e].num + 1)
				e++;
			sb_printf(b, "%s%0*ld", runs ? "," : "", v[k].width, v[k].num);
			if (e > k)
				sb_printf(b, "-%0*ld", v[k].width, v[e].num);
			shown += e - k + 1;
			runs++;
			k = e + 1;
		}
		if (k < j)
			sb_adds(b, ",...");
		sb_addc(b, ']');
		sb_adds(b, v[i].name + v[i].suf);
		i = j;
	}
	if (shown < n)
		sb_printf(b, " and %zu more", n - shown);
	free(v);
}

void hostlist_ranges(strbuf *b, const int *v, size_t n, size_t max)
{
	size_t i = 0, runs = 0;
	while (i < n && runs < max) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		sb_printf(b, runs ? ",%d" : "%d", v[i]);
		if (j > i)
			sb_printf(b, "-%d", v[j]);
		runs++;
		i = j + 1;
	}
	if (i < n)
		sb_printf(b, " and %zu more", n - i);
}
