#include "structured.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../model/frmatch.h"
#include "../parser/frdump.h"
#include "../parser/source.h"

/* ---- Flight Recorder dumps ---- */

/* A dump by its keys; and any pickle (its PROTO opcode, 0x80, never starts
 * a line of text): one that is no dump is refused with its reason, never
 * analyzed as a log. */
static bool fr_sniff(const unsigned char *buf, size_t n)
{
	return n > 0 && (buf[0] == 0x80 || frdump_sniff(buf, n) != FRDUMP_NONE);
}

typedef struct fr_run {
	frmatch *fm;
	size_t added;
} fr_run;

static void *fr_begin(void)
{
	fr_run *s = xcalloc(1, sizeof *s);
	s->fm = frmatch_new();
	return s;
}

/* Dumps are read one at a time: the matcher keeps a summary per rank. */
static int fr_add(void *state, const char *path, const char *name, strbuf *err)
{
	fr_run *s = state;
	frdump d;
	frdump_error fe;
	int rc = 0;
	if (frdump_load(path, &d, &fe) != 0) {
		sb_printf(err, "%s: %s", name, fe.msg);
		rc = -1;
	} else {
		strbuf e = { 0 };
		if (frmatch_add(s->fm, &d, name, &e) != 0) {
			sb_printf(err, "%s: %s", name, e.p ? e.p : "not a dump of this job");
			rc = -1;
		} else {
			s->added++;
		}
		sb_free(&e);
	}
	frdump_free(&d);
	return rc;
}

static void fr_end(void *state, model *m)
{
	fr_run *s = state;
	if (s->added) {
		frmatch_report *r = xcalloc(1, sizeof *r);
		frmatch_finish(s->fm, r);
		model_take_fr(m, r);
	}
	frmatch_free(s->fm);
	free(s);
}

/* ---- the table ---- */

static const structured_kind kinds[] = {
	{ "Flight Recorder dump", fr_sniff, fr_begin, fr_add, fr_end },
};

const structured_kind *structured_sniff(const char *path)
{
	/* only a regular file can be looked at and then read again: a FIFO
	 * or standard input is a log, read once */
	struct stat st;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	strbuf e = { 0 };
	source *s = source_open(path, &e);
	const structured_kind *k = NULL;
	if (s) {
		const char *p;
		ssize_t n = source_next(s, &p, &e);
		for (size_t i = 0; n > 0 && !k && i < sizeof kinds / sizeof kinds[0]; i++)
			if (kinds[i].sniff((const unsigned char *)p, (size_t)n))
				k = &kinds[i];
		source_close(s);
	}
	sb_free(&e);
	return k;
}
