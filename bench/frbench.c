/* Times reading Flight Recorder dumps the way analyze will: each dump read,
 * decoded and handed to the matcher, then freed, one at a time; then the
 * match. Prints what it read, the time of each part and the first stuck
 * group, so that a run can be checked as well as timed (bench/fr.py).
 * usage: frbench FILE|DIR... */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../model/frmatch.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct totals {
	size_t dumps, entries, bytes, errors;
	double read, match;
} totals;

static void one(frmatch *m, const char *path, totals *t)
{
	struct stat st;
	if (stat(path, &st) == 0)
		t->bytes += (size_t)st.st_size;
	double t0 = now();
	frdump d;
	frdump_error e;
	int rc = frdump_load(path, &d, &e);
	double t1 = now();
	t->read += t1 - t0;
	if (rc < 0) {
		fprintf(stderr, "frbench: %s: %s\n", path, e.msg);
		t->errors++;
		frdump_free(&d);
		return;
	}
	strbuf err = { 0 };
	if (frmatch_add(m, &d, path, &err) < 0) {
		fprintf(stderr, "frbench: %s\n", err.p);
		t->errors++;
	}
	sb_free(&err);
	t->dumps++;
	t->entries += d.nentries;
	frdump_free(&d);
	t->match += now() - t1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(frmatch *m, const char *path, totals *t)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
		one(m, path, t);
		return;
	}
	DIR *dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "frbench: %s: cannot open\n", path);
		t->errors++;
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, "scenario.txt")) {
			grow(&names, &cap, n, sizeof *names);
			names[n++] = xstrdup(de->d_name);
		}
	closedir(dir);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		strbuf p = { 0 };
		sb_printf(&p, "%s/%s", path, names[i]);
		one(m, p.p, t);
		sb_free(&p);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: frbench FILE|DIR...\n");
		return 2;
	}
	totals t = { 0 };
	frmatch *m = frmatch_new();
	double t0 = now();
	for (int i = 1; i < argc; i++)
		walk(m, argv[i], &t);
	double t1 = now();
	frmatch_report r;
	frmatch_finish(m, &r);
	frmatch_free(m);
	double t2 = now();
	size_t stuck = 0;
	for (size_t i = 0; i < r.npgs; i++)
		stuck += r.pgs[i].stuck;
	printf("dumps %zu entries %zu bytes %zu groups %zu stuck %zu errors %zu\n", t.dumps, t.entries, t.bytes,
	       r.npgs, stuck, t.errors);
	printf("read+decode %.3f s  add %.3f s  finish %.3f s  total %.3f s\n", t.read, t.match, t2 - t1, t2 - t0);
	if (r.first_stuck >= 0) {
		const frm_pg *g = &r.pgs[r.first_stuck];
		printf("first stuck: group %s (%s) seq %lld %s, %zu inside, missing", g->name, g->desc,
		       (long long)g->stuck_seq, g->stuck_sig_known ? g->stuck_sig.op : "?", g->n_inside);
		for (size_t k = 0; k < g->nmissing && k < 16; k++)
			printf(" %lld", (long long)g->missing[k]);
		printf(", no dump");
		for (size_t k = 0; k < g->nnodump && k < 16; k++)
			printf(" %lld", (long long)g->nodump[k]);
		printf("\n");
	}
	frmatch_report_free(&r);
	return t.errors ? 1 : 0;
}
