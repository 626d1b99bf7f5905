#include "pipeline.h"

#include <string.h>

void pipeline_begin(pipeline *p, model *m, ruleset *rs, int file)
{
	pipeline_begin_at(p, m, rs, file, 1, 0);
}

void pipeline_begin_at(pipeline *p, model *m, ruleset *rs, int file, uint64_t first_line, uint64_t first_off)
{
	*p = (pipeline){ 0 };
	p->m = m;
	p->rs = rs;
	p->file = file;
	p->first_line = first_line;
	linesplit_init(&p->ls, PIPELINE_MAX_LINE);
	p->ls.lineno = first_line - 1;
	p->ls.pos = first_off;
}

/* The lines this pipeline read (a part's own, not its first number). */
static uint64_t lines_read(const pipeline *p)
{
	return p->ls.lineno - (p->first_line - 1);
}

static void on_match(void *ctx, const match *mt)
{
	model_match(ctx, mt);
}

/* A segment is a line, or a part between carriage returns: progress bars
 * redraw with \r, and NCCL lines end up glued behind them. */
static void segment(pipeline *p, const line *l, slice seg)
{
	if (!seg.n || !seg.p)
		return;
	size_t cands = ruleset_gate(p->rs, seg);
	if (!cands && !p->rs->record_hint) {
		model_activity(p->m, p->file, l->no, l->off, seg);
		return;
	}
	size_t off = 0;
	while (off < seg.n) {
		record r;
		size_t k = record_parse((slice){ seg.p + off, seg.n - off }, &r);
		model_record(p->m, p->file, l->no, l->off, &r);
		if (cands && r.body.n)
			ruleset_match(p->rs, r.body, r.site, on_match, p->m);
		off += k ? k : seg.n - off;
	}
}

void pipeline_line(pipeline *p, const line *l)
{
	if (l->cut)
		p->cut_lines++;
	slice s = l->text;
	while (s.n) {
		const char *cr = memchr(s.p, '\r', s.n);
		size_t n = cr ? (size_t)(cr - s.p) : s.n;
		if (n)
			segment(p, l, (slice){ s.p, n });
		if (!cr)
			break;
		s.p += n + 1;
		s.n -= n + 1;
	}
}

static void on_line(void *ctx, const line *l)
{
	pipeline_line(ctx, l);
}

void pipeline_feed(pipeline *p, const char *buf, size_t n)
{
	p->bytes += n;
	linesplit_feed(&p->ls, buf, n, on_line, p);
	p->m->in[p->file].lines = lines_read(p);
	p->m->in[p->file].bytes = p->bytes;
}

void pipeline_flush(pipeline *p)
{
	linesplit_flush(&p->ls, on_line, p);
	p->m->in[p->file].lines = lines_read(p);
	p->m->in[p->file].bytes = p->bytes;
}

void pipeline_end(pipeline *p)
{
	linesplit_flush(&p->ls, on_line, p);
	input *in = &p->m->in[p->file];
	in->lines = lines_read(p);
	in->bytes = p->bytes;
	linesplit_free(&p->ls);
}
