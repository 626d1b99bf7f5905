#include "structured.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../model/frmatch.h"
#include "../parser/frdump.h"
#include "../parser/ncclt.h"
#include "../parser/ras.h"
#include "../parser/source.h"

/* The whole (decompressed) input, at most max bytes; on error -1 and *err
 * says why. */
static int read_whole(const char *path, size_t max, char **out, size_t *len, strbuf *err)
{
	source *s = source_open(path, err);
	if (!s)
		return -1;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	const char *p;
	ssize_t k;
	while ((k = source_next(s, &p, err)) > 0) {
		if (n + (size_t)k > max) {
			sb_printf(err, "more than %zu MiB", max >> 20);
			k = -1;
			break;
		}
		if (n + (size_t)k + 1 > cap) {
			cap = cap ? cap * 2 : 1 << 16;
			while (cap < n + (size_t)k + 1)
				cap *= 2;
			buf = xrealloc(buf, cap);
		}
		memcpy(buf + n, p, (size_t)k);
		n += (size_t)k;
	}
	source_close(s);
	if (k < 0) {
		free(buf);
		return -1;
	}
	if (!buf)
		buf = xmalloc(1);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* ---- NCCL RAS: the JSON report of ncclras -f json, and JSON events ---- */

static bool ras_sniff(const unsigned char *buf, size_t n)
{
	return ras_json_sniff(buf, n) != RAS_JSON_NONE;
}

typedef struct blob {
	char *name, *buf;
	size_t n;
} blob;

typedef struct blobs {
	blob *v;
	size_t n, cap;
} blobs;

static void *blobs_begin(void)
{
	return xcalloc(1, sizeof(blobs));
}

static void no_item(void *ctx, const ras_item *it, size_t at)
{
	(void)ctx;
	(void)it;
	(void)at;
}

/* A report is checked whole as it is read, so that a broken one is named
 * with its reason and none of it reaches the model. */
static int ras_add(void *state, const char *path, const char *name, strbuf *err)
{
	blobs *b = state;
	char *buf;
	size_t n;
	strbuf e = { 0 };
	int rc = read_whole(path, RAS_MAX_JSON, &buf, &n, &e);
	if (rc == 0 && ras_json_read(buf, n, no_item, NULL, &e) != 0) {
		free(buf);
		rc = -1;
	}
	if (rc != 0) {
		sb_printf(err, "%s: %s", name, e.p ? e.p : "unreadable");
		sb_free(&e);
		return -1;
	}
	sb_free(&e);
	grow(&b->v, &b->cap, b->n, sizeof *b->v);
	b->v[b->n++] = (blob){ xstrdup(name), buf, n };
	return 0;
}

typedef struct ras_ctx {
	model *m;
	int file;
	const char *buf;
	size_t n;
} ras_ctx;

/* The line of the first `"pid": N` at or after the item's object: the
 * line of the rank or peer an item names. */
static uint64_t item_line(const ras_ctx *c, const ras_item *it, size_t at)
{
	size_t off = at;
	if (it->pid >= 0) {
		char key[40];
		int kn = snprintf(key, sizeof key, "\"pid\": %ld", it->pid);
		long f = slice_find((slice){ c->buf + at, c->n - at }, key, (size_t)kn);
		if (f >= 0)
			off = at + (size_t)f;
	}
	uint64_t line = 1;
	for (size_t i = 0; i < off && i < c->n; i++)
		line += c->buf[i] == '\n';
	return line;
}

static void ras_describe(const ras_item *it, strbuf *t)
{
	static const char *const what[] = { [RAS_VERSION] = "report of NCCL", [RAS_COMM_MEMBER] = "rank answered",
					    [RAS_PROC_DEAD] = "event PEER_DEAD", [RAS_RANK_MISSING] = "missing rank",
					    [RAS_RANK_ERROR] = "rank reported an error", [RAS_RANK_BEHIND] = "rank behind",
					    [RAS_TIMEOUTS] = "timeouts", [RAS_EVENT] = "event" };
	const char *w = (size_t)it->kind < sizeof what / sizeof what[0] && what[it->kind] ? what[it->kind] : "item";
	sb_printf(t, "RAS JSON: %s", w);
	if (it->kind == RAS_EVENT || it->kind == RAS_VERSION)
		sb_printf(t, " %.*s", (int)it->a.n, it->a.p ? it->a.p : "");
	if (it->hash.n)
		sb_printf(t, ", communicator 0x%.*s", (int)it->hash.n, it->hash.p);
	if (it->rank >= 0)
		sb_printf(t, ", rank %ld", it->rank);
	if (it->pid >= 0)
		sb_printf(t, ", pid %ld", it->pid);
	if (it->node.n)
		sb_printf(t, " on %.*s", (int)it->node.n, it->node.p);
	if (it->gpus.n)
		sb_printf(t, ", GPU %.*s", (int)it->gpus.n, it->gpus.p);
	if (it->kind == RAS_RANK_MISSING)
		sb_adds(t, it->code ? " (unresponsive, considered dead)" : " (unresponsive)");
	if (it->kind == RAS_RANK_ERROR)
		sb_printf(t, " (%.*s %d)", (int)it->a.n, it->a.p ? it->a.p : "", it->code);
	if (it->kind == RAS_RANK_BEHIND)
		sb_printf(t, " (%.*s %ld of %ld)", (int)it->a.n, it->a.p ? it->a.p : "", it->n[0], it->n[1]);
}

static void ras_give(void *ctx, const ras_item *it, size_t at)
{
	ras_ctx *c = ctx;
	strbuf t = { 0 };
	ras_describe(it, &t);
	model_take_ras(c->m, c->file, item_line(c, it, at), it, t.p);
	sb_free(&t);
}

static void ras_end(void *state, model *m)
{
	blobs *b = state;
	strbuf e = { 0 };
	for (size_t i = 0; i < b->n; i++) {
		ras_ctx c = { m, model_input_find(m, b->v[i].name), b->v[i].buf, b->v[i].n };
		if (c.file >= 0)
			ras_json_read(b->v[i].buf, b->v[i].n, ras_give, &c, &e);
		free(b->v[i].name);
		free(b->v[i].buf);
	}
	sb_free(&e);
	free(b->v);
	free(b);
}

/* ---- nccl-tests: the JSON report of -J ---- */

typedef struct nt_run {
	char *name;
	ncclt_run run;
} nt_run;

typedef struct nt_runs {
	nt_run *v;
	size_t n, cap;
} nt_runs;

static bool ncclt_sniff(const unsigned char *buf, size_t n)
{
	return ncclt_json_sniff(buf, n);
}

static void *nt_begin(void)
{
	return xcalloc(1, sizeof(nt_runs));
}

static int nt_add(void *state, const char *path, const char *name, strbuf *err)
{
	nt_runs *s = state;
	char *buf;
	size_t n;
	strbuf e = { 0 };
	ncclt_run run;
	int rc = read_whole(path, NCCLT_MAX_JSON, &buf, &n, &e);
	if (rc == 0) {
		rc = ncclt_json_parse(buf, n, &run, &e);
		free(buf);
	}
	if (rc != 0) {
		sb_printf(err, "%s: %s", name, e.p ? e.p : "unreadable");
		sb_free(&e);
		return -1;
	}
	sb_free(&e);
	grow(&s->v, &s->cap, s->n, sizeof *s->v);
	s->v[s->n++] = (nt_run){ xstrdup(name), run };
	return 0;
}

static void nt_end(void *state, model *m)
{
	nt_runs *s = state;
	for (size_t i = 0; i < s->n; i++) {
		int file = model_input_find(m, s->v[i].name);
		if (file >= 0)
			model_take_ncclt(m, file, &s->v[i].run);
		ncclt_run_free(&s->v[i].run);
		free(s->v[i].name);
	}
	free(s->v);
	free(s);
}

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

/* The most specific first: a RAS report's "nccl_version" is a key Flight
 * Recorder dumps have too. */
static const structured_kind kinds[] = {
	{ "RAS JSON report", ras_sniff, blobs_begin, ras_add, ras_end },
	{ "nccl-tests JSON report", ncclt_sniff, nt_begin, nt_add, nt_end },
	{ "Flight Recorder dump", fr_sniff, fr_begin, fr_add, fr_end },
};

/* False when the first bytes of a file rule out every kind above: the
 * first byte that each kind's sniffer (after blanks and a byte-order
 * mark) or a compressed stream can begin with is none of these. A log
 * then costs the sniff a read of 4 bytes, not of a whole chunk, which
 * with thousands of small rank files was as many bytes again. */
static bool may_be_structured(const char *path)
{
	unsigned char b[4] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true; /* the full sniff says why it cannot be read */
	ssize_t n = pread(fd, b, sizeof b, 0);
	close(fd);
	if (n < (ssize_t)sizeof b)
		return true;
	if (memchr("{=R \t\r\n\x80\xef\x1f", b[0], 10)) /* JSON, RAS banner, pickle, blanks, BOM, gzip */
		return true;
	/* zstd: a frame (and the legacy ones), a skippable frame */
	if (b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
		return b[0] >= 0x22 && b[0] <= 0x28;
	return (b[0] & 0xf0) == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18;
}

const structured_kind *structured_sniff(const char *path)
{
	/* only a regular file can be looked at and then read again: a FIFO
	 * or standard input is a log, read once */
	struct stat st;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	if (!may_be_structured(path))
		return NULL;
	strbuf e = { 0 };
	source *s = source_open(path, &e);
	const structured_kind *k = NULL;
	if (s) {
		const char *p;
		ssize_t n = source_next(s, &p, &e);
		if (n > 0)
			k = structured_sniff_chunk(p, (size_t)n);
		source_close(s);
	}
	sb_free(&e);
	return k;
}

const structured_kind *structured_sniff_chunk(const char *p, size_t n)
{
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (kinds[i].sniff((const unsigned char *)p, n))
			return &kinds[i];
	return NULL;
}
