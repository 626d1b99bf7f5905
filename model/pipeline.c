#include "pipeline.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* Bytes on each side of a line break that a literal cut by a terminal can
 * straddle: longer than any gate literal. */
#define SEAM 64
/* Positions the gate scans ahead of the lines at a time. */
#define SCAN_BLOCK 32768
/* Literals found and not yet used, at most: past that (a hostile line of
 * one literal over and over) the lines there are gated on their own. */
#define FOUND_MAX 4096

/* Whether s lies in the chunk being fed. */
static bool chunk_holds(const pipeline *p, slice s)
{
	return p->cs.buf.p && s.p >= p->cs.buf.p && s.p + s.n <= p->cs.buf.p + p->cs.buf.n;
}

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
#if defined(__x86_64__)
	p->avx2 = __builtin_cpu_supports("avx2");
#endif
	linesplit_init(&p->ls, PIPELINE_MAX_LINE);
	p->ls.lineno = first_line - 1;
	p->ls.pos = first_off;
	/* not cleared: the joiner reads only what it was given (8 KiB a file) */
	p->j = xmalloc(sizeof *p->j);
	join_reset(p->j);
	p->prevbuf = xmalloc(JOIN_MAX_BYTES);
	p->linkbuf = xmalloc(JOIN_MAX_BYTES);
	/* the rules that did not load are a cap the report names too */
	if (rs->dropped > m->dropped[CAP_RULES])
		m->dropped[CAP_RULES] = rs->dropped;
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

static void on_found(void *ctx, int val, size_t start, size_t len, size_t at)
{
	chunkscan *cs = ctx;
	if (at >= cs->lossy)
		return;
	if (cs->n == cs->cap && cs->first) {
		memmove(cs->v, cs->v + cs->first, (cs->n - cs->first) * sizeof *cs->v);
		cs->n -= cs->first;
		cs->first = 0;
	}
	if (cs->n >= FOUND_MAX) {
		cs->lossy = at;
		return;
	}
	if (cs->n == cs->cap) /* grow() is a call: most hits find room */
		grow(&cs->v, &cs->cap, cs->n, sizeof *cs->v);
	cs->v[cs->n++] = (gatefound){ val, start, len, at };
}

/* Gates a line or a segment of one: from the scan of the chunk when it
 * lies in the chunk being fed, else on its own (a line the splitter
 * carried over, a line fed by hand). Lines are asked about in input
 * order, so what was found before this one is of no more use. */
static size_t gate_line(pipeline *p, slice seg)
{
	chunkscan *cs = &p->cs;
	if (!chunk_holds(p, seg))
		return ruleset_gate(p->rs, seg);
	size_t ss = (size_t)(seg.p - cs->buf.p), se = ss + seg.n;
	if (cs->scanned < se) {
		/* while lines repeat, most are gated from the memo: a line at a
		 * time spares the scan of the ones that are, and one scanned
		 * alone needs no list of what was found where. The chunk's scan
		 * stays where it was: the parts of a redrawn line are asked
		 * about after the whole */
		bool each = p->rs->lines && linememo_hot(p->rs->lines) && gate_scans_short(p->rs->g);
		if (each)
			return ruleset_gate(p->rs, seg);
		size_t to = se - cs->scanned < SCAN_BLOCK ? cs->scanned + SCAN_BLOCK : se;
		to = to < cs->buf.n ? to : cs->buf.n;
		gate_scan_at(p->rs->g, cs->buf, cs->scanned, to, on_found, cs);
		cs->scanned = to;
	}
	if (se > cs->lossy) /* what was found there is not all there */
		return ruleset_gate(p->rs, seg);
	/* found before the line: it starts before it too */
	while (cs->first < cs->n && cs->v[cs->first].at < ss)
		cs->first++;
	size_t nv = 0;
	for (size_t i = cs->first; i < cs->n && cs->v[i].at < se; i++) {
		const gatefound *f = &cs->v[i];
		if (f->start >= ss && f->start + f->len <= se) {
			if (nv == cs->valcap)
				grow(&cs->vals, &cs->valcap, nv, sizeof *cs->vals);
			cs->vals[nv++] = f->val;
		}
	}
	return ruleset_gate_found(p->rs, cs->vals, nv);
}

/* Gates a segment from the memo when the same line was gated before.
 * *ref: the line in the memo, when it was looked up or kept there. */
static size_t gate_known(pipeline *p, slice seg, memoref *ref)
{
	linememo *lm = p->rs->lines;
	uint64_t h = lm ? linememo_hash(lm, seg) : 0;
	*ref = (memoref){ 0 };
	const gatehits *kept = h ? linememo_find(lm, seg, h, ref) : NULL;
	if (kept && ruleset_hits_restore(p->rs, kept)) {
		chunkscan *cs = &p->cs;
		/* what its bytes hold is known: the scan goes on after them */
		if (chunk_holds(p, seg)) {
			size_t se = (size_t)(seg.p + seg.n - cs->buf.p);
			if (cs->scanned < se)
				cs->scanned = se;
		}
		return p->rs->ncand;
	}
	size_t cands = gate_line(p, seg);
	/* a line without a hit costs no more to scan than to look up, unless
	 * lines are looked up anyway and gated one at a time */
	if (h && (cands || p->rs->record_hint || linememo_hot(lm))) {
		gatehits gh;
		ruleset_hits_save(p->rs, &gh);
		linememo_put(lm, seg, h, &gh, ref);
	}
	return cands;
}

/* The records of one gated segment: usually one, more when another
 * process's record is glued behind the first. ref: the segment in the
 * line memo, when it is there. */
static void analyze(pipeline *p, uint64_t no, uint64_t off, slice seg, size_t cands, const linespan *span, memoref ref)
{
	const record *kept = span ? NULL : linememo_record(ref);
	if (kept) {
		model_record(p->m, p->file, no, off, kept, span);
		if (cands && kept->body.n)
			ruleset_match_line(p->rs, ref, kept->body, kept->site, kept->level, on_match, p->m);
		model_record_end(p->m);
		return;
	}
	size_t at = 0;
	while (at < seg.n) {
		record r;
		size_t k = record_parse_known((slice){ seg.p + at, seg.n - at }, &r, &p->pfx);
		model_record(p->m, p->file, no, off, &r, span);
		if (cands && r.body.n)
			ruleset_match(p->rs, r.body, r.site, r.level, on_match, p->m);
		model_record_end(p->m);
		at += k ? k : seg.n - at;
	}
}

/* How well the rules understand a reading of a joined line. */
typedef struct score {
	int matches, captures;
	uint64_t rules; /* which rules matched, as a sum of mixed indices */
} score;

static void count_match(void *ctx, const match *mt)
{
	score *sc = ctx;
	sc->matches++;
	sc->rules += ((uint64_t)mt->ri + 1) * 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < mt->ncaps; i++)
		sc->captures += mt->caps[i].v.n > 0;
}

static score rule_score(pipeline *p, slice text)
{
	score sc = { 0, 0, 0 };
	if (ruleset_gate(p->rs, text)) {
		record r;
		record_parse(text, &r);
		ruleset_match(p->rs, r.body, r.site, r.level, count_match, &sc);
	}
	return sc;
}

/* Where two lines meet with no blank, a terminal cut a word or a word wrap
 * dropped a blank. Joint by joint, the other reading wins when more rules
 * understand it, or the same rules fill more of their captures; else the
 * joiner's own (by the width of the line before) stands. */
static void settle_joints(pipeline *p)
{
	joiner *j = p->j;
	if (!j->tight)
		return;
	joiner *alt = xmalloc(sizeof *alt);
	score a = rule_score(p, join_text(j));
	for (int k = 1; k < j->nparts; k++) {
		memcpy(alt, j, sizeof *alt);
		if (!join_flip(alt, k))
			continue;
		score b = rule_score(p, join_text(alt));
		if (b.matches > a.matches || (b.rules == a.rules && b.captures > a.captures)) {
			memcpy(j, alt, sizeof *j);
			a = b;
		}
	}
	free(alt);
}

/* Analyzes the logical line the joiner holds. */
static void flush_held(pipeline *p)
{
	if (p->state != JS_HELD) {
		join_reset(p->j);
		p->state = JS_NONE;
		return;
	}
	p->state = JS_NONE;
	settle_joints(p);
	const joiner *j = p->j;
	slice text = join_text(j);
	size_t cands;
	if (j->nparts == 1 && !j->tight && ruleset_hits_restore(p->rs, &p->hits))
		cands = p->rs->ncand;
	else
		cands = ruleset_gate(p->rs, text);
	linespan span = { j->part, j->nparts, j->buf };
	memoref ref = j->nparts == 1 && !j->tight ? p->held_ref : (memoref){ 0 };
	analyze(p, j->part[0].no, j->part[0].off, text, cands, j->nparts > 1 ? &span : NULL, ref);
	join_reset(p->j);
}

/* A literal the gate knows, cut in two by the break before the next part?
 * Read both ways: cut mid-word, or at a blank the wrap dropped. */
static bool seam_hit(pipeline *p, slice before, slice next)
{
	char w[2 * SEAM + 1];
	/* the padding of an issue box is not text */
	while (before.n && (before.p[before.n - 1] == ' ' || before.p[before.n - 1] == '\t'))
		before.n--;
	while (next.n && (next.p[0] == ' ' || next.p[0] == '\t')) {
		next.p++;
		next.n--;
	}
	size_t a = before.n < SEAM ? before.n : SEAM, b = next.n < SEAM ? next.n : SEAM;
	memcpy(w, before.p + before.n - a, a);
	memcpy(w + a, next.p, b);
	if (ruleset_gate(p->rs, (slice){ w, a + b }) > 0 || p->rs->record_hint)
		return true;
	memmove(w + a + 1, w + a, b);
	w[a] = ' ';
	return ruleset_gate(p->rs, (slice){ w, a + b + 1 }) > 0 || p->rs->record_hint;
}

/* After a part was added: go on holding or gathering while the line may
 * wrap again, else analyze (held) or drop (gathered without a hit). */
static void after_part(pipeline *p)
{
	if (!join_open(p->j))
		flush_held(p);
}

/* l went on the line being gathered (no hit so far): with the hit it brings
 * or completes, the whole is now held for analysis. */
static void gathered(pipeline *p, const line *l, lineinfo *li, slice before, bool l_hit)
{
	if (l_hit || seam_hit(p, before, l->text)) {
		p->state = JS_HELD;
		p->hits.overflow = true; /* several parts: the gate scans the whole again */
	} else {
		model_activity_info(p->m, p->file, l->no, li);
	}
	after_part(p);
}

/* The held line's NCCL prefix again at the start of s: its process's next
 * record, which join_continues_info would tell at more cost. */
static bool token_again(slice s, slice head, size_t tok)
{
	return tok && s.n > tok && bytes_same(s.p, head.p, tok + 1);
}

/* The same, setting li's token when it is. */
static bool same_token(lineinfo *li, slice s, slice head, size_t tok)
{
	if (!token_again(s, head, tok))
		return false;
	li->nccl_tok = tok;
	return true;
}

/* Whether the next line, when the chunk holds it already, shows that the
 * wide line l (seg) does not go on: what it would find with seg held,
 * asked now, so that seg need not wait (copied, its hits kept) for it.
 * False when it may go on, or the next line is not known yet: seg waits
 * then, and the next line is asked again. */
static bool ends_before(pipeline *p, const line *l, slice seg)
{
	/* in a plain chunk, neither line has markup undone into linkbuf */
	if (!p->plain || seg.p != l->text.p || !chunk_holds(p, seg))
		return false;
	/* the process's next record, told by its prefix alone: the next
	 * line's end is not needed (the prefix holds no newline) */
	size_t tok = p->line_tok;
	const char *after = tok ? linesplit_after(p->cs.buf, seg) : NULL;
	if (after && token_again((slice){ after, (size_t)(p->cs.buf.p + p->cs.buf.n - after) }, seg, tok)) {
		p->ahead_tok = tok;
		p->ahead_at = after;
		return true;
	}
	slice n;
	if (!linesplit_next(&p->ls, p->cs.buf, seg, &n))
		return false;
	lineinfo li;
	lineinfo_init(&li, n);
	if (!same_token(&li, n, seg, p->line_tok) && join_continues_info(&li, seg))
		return false;
	/* what the next line would have learnt of its own token */
	p->ahead_tok = li.nccl_tok;
	p->ahead_at = n.p;
	return true;
}

/* A segment is a line, or a part between carriage returns: progress bars
 * redraw with \r, and NCCL lines end up glued behind them. For a whole
 * line, prev is the full line before it that had no hit (or empty). */
static void segment(pipeline *p, const line *l, slice seg, bool whole, slice prev, bool undated)
{
	if (!seg.n || !seg.p)
		return;
	memoref ref;
	size_t cands = gate_known(p, seg, &ref);
	bool hit = cands || p->rs->record_hint;
	/* the prefixes of the line, read once for reassembly and activity */
	lineinfo li;
	lineinfo_init(&li, seg);
	li.undated = undated;
	if (prev.n && join_continues_info(&li, prev) && join_start(p->j, prev, p->prev_no, p->prev_off)) {
		p->held_tok = 0;
		if (join_add(p->j, seg, l->no, l->off)) {
			p->state = JS_GATHER;
			gathered(p, l, &li, prev, hit);
			return;
		}
		join_reset(p->j);
	}
	if (!hit) {
		/* any wide line: a word wrap may have cut it at any width */
		bool head = whole && seg.n >= JOIN_MIN_WIDTH && seg.n < JOIN_MAX_BYTES;
		model_activity_info(p->m, p->file, l->no, &li);
		if (head) {
			p->prev = seg;
			p->prev_no = l->no;
			p->prev_off = l->off;
			/* the splitter's carry buffer is reused before the chunk ends, the
			 * link buffer at the next line */
			if ((p->ls.carry && seg.p >= p->ls.carry && seg.p < p->ls.carry + p->ls.carrycap) ||
			    (seg.p >= p->linkbuf && seg.p < p->linkbuf + JOIN_MAX_BYTES)) {
				memcpy(p->prevbuf, seg.p, seg.n);
				p->prev.p = p->prevbuf;
			}
		}
		return;
	}
	/* a line with a hit waits when it is wide: a word wrap may have cut it
	 * at any width (unless the next line, read already, says it ends) */
	if (whole && seg.n >= JOIN_MIN_WIDTH && !ends_before(p, l, seg) && join_start(p->j, seg, l->no, l->off)) {
		ruleset_hits_save(p->rs, &p->hits);
		p->held_ref = ref;
		p->held_tok = p->line_tok;
		p->state = JS_HELD;
		return;
	}
	analyze(p, l->no, l->off, seg, cands, NULL, ref);
}

void pipeline_line(pipeline *p, const line *l)
{
	if (l->cut)
		p->cut_lines++;
	/* a paste whose hosts, addresses or sites a markdown editor made links,
	 * or a line quoted as one code span */
	line ul;
	bool span = false;
	bool in_chunk = p->cs.buf.p && l->text.p >= p->cs.buf.p && l->text.p < p->cs.buf.p + p->cs.buf.n;
	size_t un = p->plain && in_chunk ? 0 : join_unmark(l->text, p->linkbuf, JOIN_MAX_BYTES, &span);
	if (un) {
		ul = *l;
		ul.text = (slice){ p->linkbuf, un };
		l = &ul;
	}
	if (p->state != JS_NONE && span)
		flush_held(p);
	/* the token the line before read of this one, when it looked ahead */
	p->line_tok = p->ahead_at == l->text.p ? p->ahead_tok : 0;
	p->ahead_at = NULL;
	if (p->state != JS_NONE) {
		joiner *j = p->j;
		const joinpart *last = &j->part[j->nparts - 1];
		slice before = { j->buf + last->at, last->n };
		slice head = { j->buf + j->part[0].at, j->part[0].n };
		lineinfo li;
		lineinfo_init(&li, l->text);
		bool again = same_token(&li, l->text, head, p->held_tok);
		if (!again && !l->cut && join_continues_info(&li, head) && join_add(j, l->text, l->no, l->off)) {
			if (p->state == JS_GATHER) {
				size_t c = gate_line(p, l->text);
				gathered(p, l, &li, before, c || p->rs->record_hint);
			} else {
				after_part(p);
			}
			return;
		}
		p->line_tok = li.nccl_tok;
		flush_held(p);
	}
	slice prev = p->prev;
	p->prev.n = 0;
	slice s = l->text;
	if (!l->cut && !l->cr) {
		segment(p, l, s, !span, span ? SLICE_NONE : prev, false);
		return;
	}
	/* a progress bar redrawn: when the line has no date, none of its parts has */
	bool undated = !line_may_be_dated(s);
	/* and when the whole has no literal, no part has one: each part is a
	 * line of activity alone, with no date to read */
	if (undated && !gate_line(p, s) && !p->rs->record_hint) {
		model_activity_undated(p->m, p->file, s);
		return;
	}
	for (slice part; line_part(&s, &part);)
		if (part.n)
			segment(p, l, part, false, SLICE_NONE, undated);
}

static void on_line(void *ctx, const line *l)
{
	pipeline_line(ctx, l);
}

/* The chunk that prev points into is about to go: keep a copy. */
static void keep_prev(pipeline *p)
{
	if (!p->prev.n || p->prev.p == p->prevbuf)
		return;
	memmove(p->prevbuf, p->prev.p, p->prev.n);
	p->prev.p = p->prevbuf;
}

static void count(pipeline *p)
{
	input *in = model_input_counts(p->m, p->file);
	in->lines = lines_read(p);
	in->bytes = p->bytes;
}

#if defined(__x86_64__)
/* The same, 32 places at a time (the chunk's one pass costs a third of
 * the gate's on NCCL text). */
__attribute__((target("avx2"))) static size_t plain_avx2(const char *buf, size_t n)
{
	const __m256i colon = _mm256_set1_epi8(':'), slash = _mm256_set1_epi8('/'), tick = _mm256_set1_epi8('`');
	size_t i = 0;
	for (; i + 34 <= n; i += 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(buf + i));
		__m256i a = _mm256_cmpeq_epi8(v, colon);
		__m256i b = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(buf + i + 1)), slash);
		__m256i c = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(buf + i + 2)), slash);
		__m256i hit = _mm256_or_si256(_mm256_and_si256(_mm256_and_si256(a, b), c), _mm256_cmpeq_epi8(v, tick));
		if (_mm256_movemask_epi8(hit))
			return SIZE_MAX;
	}
	return i;
}
#endif

/* True when buf holds no '`' and no "://": no markdown code span or link
 * to undo. One pass, many places at a time: NCCL text is full of slashes
 * ("P2P/IPC/read"), and a search from slash to slash paid a call for
 * each. */
static bool chunk_plain(const char *buf, size_t n, bool avx2)
{
	size_t i = 0;
#if defined(__x86_64__)
	if (avx2 && (i = plain_avx2(buf, n)) == SIZE_MAX)
		return false;
	const __m128i colon = _mm_set1_epi8(':'), slash = _mm_set1_epi8('/'), tick = _mm_set1_epi8('`');
	for (; i + 18 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(buf + i));
		__m128i a = _mm_cmpeq_epi8(v, colon);
		__m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(buf + i + 1)), slash);
		__m128i c = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(buf + i + 2)), slash);
		__m128i hit = _mm_or_si128(_mm_and_si128(_mm_and_si128(a, b), c), _mm_cmpeq_epi8(v, tick));
		if (_mm_movemask_epi8(hit))
			return false;
	}
#else
	(void)avx2;
#endif
	for (; i < n; i++)
		if (buf[i] == '`' || (i + 3 <= n && buf[i] == ':' && buf[i + 1] == '/' && buf[i + 2] == '/'))
			return false;
	return true;
}

void pipeline_feed(pipeline *p, const char *buf, size_t n)
{
	p->bytes += n;
	p->cs.buf = (slice){ buf, n };
	/* one look at the chunk spares most lines the search for markup */
	p->plain = chunk_plain(buf, n, p->avx2);
	p->cs.scanned = p->cs.first = p->cs.n = 0;
	p->cs.lossy = SIZE_MAX;
	linesplit_feed(&p->ls, buf, n, on_line, p);
	p->cs.buf = SLICE_NONE;
	p->cs.first = p->cs.n = 0;
	keep_prev(p);
	count(p);
}

void pipeline_flush(pipeline *p)
{
	linesplit_flush(&p->ls, on_line, p);
	flush_held(p);
	p->prev.n = 0;
	count(p);
}

void pipeline_settle(pipeline *p)
{
	flush_held(p);
	p->prev.n = 0;
}

bool pipeline_pending(const pipeline *p)
{
	return linesplit_pending(&p->ls) || p->state == JS_HELD;
}

void pipeline_end(pipeline *p)
{
	pipeline_flush(p);
	linesplit_free(&p->ls);
	free(p->j);
	free(p->prevbuf);
	free(p->linkbuf);
	free(p->cs.v);
	free(p->cs.vals);
	p->j = NULL;
	p->prevbuf = NULL;
	p->linkbuf = NULL;
	p->cs = (chunkscan){ 0 };
}
