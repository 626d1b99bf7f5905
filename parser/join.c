#include "join.h"

#include <string.h>

#include "record.h"

/* Terminal widths common enough that a line of exactly this many columns
 * was most likely cut by the terminal, mid-word. */
static const int term_widths[] = { 80, 100, 120, 132, 140, 150, 160, 170, 180, 200 };

int join_width(slice s)
{
	int w = 0;
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (c == '\t')
			w += 8 - w % 8;
		else if ((c & 0xc0) != 0x80)
			w++;
	}
	return w;
}

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || is_upper(c) || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static bool starts_word(slice s, const char *w)
{
	size_t n = strlen(w);
	return s.n >= n && memcmp(s.p, w, n) == 0;
}

/* "RuntimeError:", "torch.distributed.DistBackendError:", "UserWarning:" */
static bool exception_head(slice s)
{
	size_t i = 0, last = 0;
	while (i < s.n && i < 96 && is_word(s.p[i]))
		if (s.p[i++] == '.')
			last = i;
	if (i == 0 || i >= s.n || s.p[i] != ':' || last >= i || !is_upper(s.p[last]))
		return false;
	slice w = { s.p, i };
	static const char *const ends[] = { "Error", "Exception", "Warning", "Interrupt", "Exit" };
	for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++) {
		size_t n = strlen(ends[k]);
		if (w.n >= n && memcmp(w.p + w.n - n, ends[k], n) == 0)
			return true;
	}
	return false;
}

/* A cut mark of a paste ("[...]", "[ … ]", "<snip>", "..."): a line of
 * its own, never the rest of the line before it. */
static bool cut_mark(slice t)
{
	while (t.n && (t.p[t.n - 1] == ' ' || t.p[t.n - 1] == '\t'))
		t.n--;
	static const char *const marks[] = { "[...]", "[ ... ]", "[\xe2\x80\xa6]", "...", "\xe2\x80\xa6",
					     "<snip>", "[snip]", "(snip)", "(...)" };
	for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++)
		if (t.n == strlen(marks[k]) && memcmp(t.p, marks[k], t.n) == 0)
			return true;
	return starts_word(t, "--- snip") || starts_word(t, "-- snip");
}

/* The start of an NCCL prefix and nothing after it ("node-a:4133", the
 * last line of a cut paste): the next record, torn, not the rest of this one. */
static bool torn_prefix(slice t)
{
	while (t.n && (t.p[t.n - 1] == ' ' || t.p[t.n - 1] == '\t'))
		t.n--;
	const char *c = memchr(t.p, ':', t.n);
	if (!c || c == t.p || c + 1 == t.p + t.n)
		return false;
	for (const char *p = t.p; p < c; p++)
		if (!is_word(*p) && *p != '-')
			return false;
	for (const char *p = c + 1; p < t.p + t.n; p++)
		if (!(*p >= '0' && *p <= '9') && *p != ':')
			return false;
	return true;
}

/* A stream's empty line: the pdsh label head carries and nothing after it
 * ("node01:" under "node01: h:1:2 [0] NCCL WARN ..."). */
static bool empty_label_line(slice t, slice head)
{
	while (t.n && (t.p[t.n - 1] == ' ' || t.p[t.n - 1] == '\t'))
		t.n--;
	if (t.n < 2 || t.p[t.n - 1] != ':' || !head.n)
		return false;
	launch hl = LAUNCH_NONE;
	launch_strip(head, &hl);
	return hl.host.n == t.n - 1 && memcmp(hl.host.p, t.p, hl.host.n) == 0;
}

/* Digits alone (a web log viewer numbers each line it copies). */
static bool line_number(slice t)
{
	while (t.n && (t.p[t.n - 1] == ' ' || t.p[t.n - 1] == '\t'))
		t.n--;
	if (!t.n || t.n > 7)
		return false;
	for (size_t i = 0; i < t.n; i++)
		if (t.p[i] < '0' || t.p[i] > '9')
			return false;
	return true;
}

/* Words that begin a line of a log, a traceback or a tool's report. */
static bool line_head(slice t)
{
	if (cut_mark(t))
		return true;
	static const char *const heads[] = {
		"Traceback (", "File \"", "frame #", "During handling", "The above exception",
		"Exception raised from", "INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL", "FATAL",
		"#", "+ ", "$ ", ">>> ", "NCCL version", "RCCL version",
		/* the C++ runtime's report of an uncaught exception, two lines */
		"terminate called after throwing", "terminate called without", "what():",
		/* a markdown code fence around a paste */
		"```", "~~~",
	};
	for (size_t k = 0; k < sizeof heads / sizeof heads[0]; k++)
		if (starts_word(t, heads[k]))
			return true;
	/* glog and c10 levels in brackets: "[E ProcessGroupNCCL.cpp:1537]", "[W1110 ...]" */
	if (t.n >= 3 && t.p[0] == '[' && strchr("EWIFD", t.p[1]) && t.p[1] &&
	    (t.p[2] == ' ' || (t.p[2] >= '0' && t.p[2] <= '9')))
		return true;
	return exception_head(t);
}

/* " NCCL WARN " or " NCCL INFO " somewhere after the start of s. */
static bool nccl_level_word(slice s)
{
	/* blank_word_find gives the blank in front of the word */
	for (long at = blank_word_find(s, 0, "NCCL"); at >= 0; at = blank_word_find(s, (size_t)at + 1, "NCCL")) {
		size_t i = (size_t)at + 6;
		if (i + 4 <= s.n && (memcmp(s.p + i, "WARN", 4) == 0 || memcmp(s.p + i, "INFO", 4) == 0) &&
		    (i + 4 == s.n || s.p[i + 4] == ' '))
			return true;
	}
	return false;
}

/* "host:1234:5678 " at the start: NCCL's prefix, the most common line. */
/* The end of t's first token when it is NCCL's "host:pid:tid", else 0. */
static size_t nccl_prefix(slice t)
{
	/* the first token (at most 80 bytes): anything, then ":digits:digits" */
	size_t lim = t.n < 80 ? t.n : 80;
	const char *sp = memchr(t.p, ' ', lim);
	size_t e = sp ? (size_t)(sp - t.p) : lim;
	const char *c1 = memchr(t.p, ':', e);
	if (!c1 || e >= t.n || t.p[e - 1] == ':')
		return 0;
	size_t colons = 1;
	for (size_t i = (size_t)(c1 - t.p) + 1; i < e; i++) {
		if (t.p[i] == ':')
			colons++;
		else if (!(t.p[i] >= '0' && t.p[i] <= '9'))
			return 0;
	}
	return colons == 2 ? e : 0;
}

/* pdsh's "host: " and nothing else in front of s. */
static bool host_label_only(const launch *ln)
{
	return ln->host.n && ln->tag.p == ln->host.p && ln->tag.n == ln->host.n && ln->rank < 0 && ln->local < 0 &&
	       ln->time == 0;
}

bool join_continues(slice s, slice head)
{
	lineinfo li;
	lineinfo_init(&li, s);
	return join_continues_info(&li, head);
}

bool join_continues_info(lineinfo *li, slice head)
{
	slice s = li->s;
	/* the cheap tests first: this runs on the line after every wide one */
	if (!s.n || s.n >= JOIN_MAX_BYTES)
		return false;
	size_t i = 0;
	/* blanks, and a markdown quote's "> ": "> " alone is a quoted blank line */
	while (i < s.n && (s.p[i] == ' ' || s.p[i] == '\t' || (s.p[i] == '>' && (i + 1 == s.n || s.p[i + 1] == ' '))))
		i++;
	if (i == s.n)
		return false;
	slice t = { s.p + i, s.n - i };
	size_t tok = nccl_prefix(t);
	if (tok) {
		/* the next line that starts with these bytes is known to start so */
		if (i == 0 && s.p[tok] == ' ')
			li->nccl_tok = tok;
		return false;
	}
	if (memchr(s.p, '\r', s.n))
		return false;
	double tm;
	if (lineinfo_stamp(li, t, &tm) || line_head(t))
		return false;
	if (torn_prefix(t) || empty_label_line(t, head))
		return false;
	/* a number alone is a log viewer's line number, unless the line before
	 * filled the terminal and was cut right before its last digits */
	if (line_number(t) && !(head.n && join_fills_width(join_width(head))))
		return false;
	const launch *ln = lineinfo_launch(li);
	if (ln->tag.n || ln->rank >= 0 || ln->local >= 0 || ln->host.n || ln->time != 0) {
		if (!head.n || !host_label_only(ln))
			return false;
		launch hl = LAUNCH_NONE;
		launch_strip(head, &hl);
		if (hl.host.n)
			return false;
	}
	/* an NCCL record of its own at the start of the line ("[0] misc/socket.cc:71 NCCL WARN") */
	if (slice_find(s, "NCCL ", 5) < 0 && blank_word_find(s, 0, "INFO") < 0 && blank_word_find(s, 0, "WARN") < 0)
		return true;
	/* NCCL's token and level in the middle of a line begin a record, whatever
	 * is in front of them (a logger of its own: "[0604/1024][date]
	 * [misc/socket.cc:586] [host:pid=N] NCCL WARN ...") */
	if (nccl_level_word(s))
		return false;
	record r;
	record_parse(s, &r);
	return r.level == LV_NONE;
}

void join_reset(joiner *j)
{
	j->n = 0;
	j->nparts = 0;
	j->tight = j->direct = 0;
}

bool join_start(joiner *j, slice s, uint64_t no, uint64_t off)
{
	join_reset(j);
	if (s.n > sizeof j->buf)
		return false;
	memcpy(j->buf, s.p, s.n);
	j->n = s.n;
	/* width -1: measured when a second line comes, most lines never need it */
	j->part[0] = (joinpart){ no, off, 0, s.n, -1 };
	j->nparts = 1;
	return true;
}

bool join_fills_width(int w)
{
	for (size_t k = 0; k < sizeof term_widths / sizeof term_widths[0]; k++)
		if (w == term_widths[k])
			return true;
	return false;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Rebuilds buf from the parts' own texts with the joints as read now. */
static bool rebuild(joiner *j)
{
	char tmp[JOIN_MAX_BYTES];
	size_t n = 0;
	for (int k = 0; k < j->nparts; k++) {
		joinpart *pt = &j->part[k];
		bool sep = k > 0 && !((j->direct >> k) & 1);
		if (n + sep + pt->n > sizeof tmp)
			return false;
		if (sep)
			tmp[n++] = ' ';
		memcpy(tmp + n, j->buf + pt->at, pt->n);
		pt->at = n;
		n += pt->n;
	}
	memcpy(j->buf, tmp, n);
	j->n = n;
	return true;
}

bool join_add(joiner *j, slice s, uint64_t no, uint64_t off)
{
	if (j->nparts == 0 || j->nparts >= JOIN_MAX_PARTS || j->n + 1 + s.n > sizeof j->buf)
		return false;
	joinpart *last = &j->part[j->nparts - 1];
	if (last->width < 0)
		last->width = join_width((slice){ j->buf + last->at, last->n });
	/* padding an issue box added is not text */
	size_t keep = last->n;
	while (keep > 0 && blank(j->buf[last->at + keep - 1]))
		keep--;
	bool blank_around = keep < last->n || blank(s.p[0]);
	int width = join_width(s); /* of the physical line, its indentation included */
	while (s.n && blank(s.p[0])) {
		s.p++;
		s.n--;
	}
	/* a wrap breaks a line only where its next word does not fit, and the
	 * lines show how wide they could be: when the word fits behind the
	 * line before at that width, that line ended there */
	int wmax = width;
	for (int k = 0; k < j->nparts; k++)
		if (j->part[k].width > wmax)
			wmax = j->part[k].width;
	const char *sp = memchr(s.p, ' ', s.n);
	int word = join_width((slice){ s.p, sp ? (size_t)(sp - s.p) : s.n });
	if (last->width + 1 + word <= wmax)
		return false;
	int k = j->nparts;
	j->n = last->at + keep;
	last->n = keep;
	if (!blank_around) {
		j->tight |= 1u << k;
		if (join_fills_width(last->width))
			j->direct |= 1u << k;
	}
	if (!((j->direct >> k) & 1))
		j->buf[j->n++] = ' ';
	memcpy(j->buf + j->n, s.p, s.n);
	j->part[k] = (joinpart){ no, off, j->n, s.n, width };
	j->n += s.n;
	j->nparts++;
	return true;
}

bool join_flip(joiner *j, int k)
{
	if (k <= 0 || k >= j->nparts || !((j->tight >> k) & 1))
		return false;
	unsigned old = j->direct;
	j->direct ^= 1u << k;
	if (!rebuild(j)) {
		j->direct = old;
		rebuild(j);
		return false;
	}
	return true;
}

slice join_text(const joiner *j)
{
	return (slice){ j->buf, j->n };
}

bool join_open(const joiner *j)
{
	if (j->nparts == 0 || j->nparts >= JOIN_MAX_PARTS)
		return false;
	const joinpart *last = &j->part[j->nparts - 1];
	return last->width < 0 ? last->n >= JOIN_MIN_WIDTH : last->width >= JOIN_MIN_WIDTH;
}

/* The length of a link target at s.p[i] ("http://...", "ftp://..."):
 * no blank and no bracket in it, up to the byte that closes it; 0 when
 * there is none. *host is set to what follows the scheme. */
static size_t link_target(slice s, size_t i, char close, slice *host)
{
	static const char *const schemes[] = { "https://", "http://", "ftp://" };
	slice t = { s.p + i, s.n - i };
	size_t sch = 0;
	for (size_t k = 0; k < sizeof schemes / sizeof schemes[0] && !sch; k++)
		if (slice_starts(t, schemes[k]))
			sch = strlen(schemes[k]);
	if (!sch)
		return 0;
	for (size_t e = sch; e < t.n && e < 512; e++) {
		char c = t.p[e];
		if (c == close) {
			*host = (slice){ t.p + sch, e - sch };
			return e;
		}
		if (c == ' ' || c == '\t' || c == '<' || c == '>' || c == '[' || c == ']' || c == '(' ||
		    c == ')')
			return 0;
	}
	return 0;
}

/* A line that is one markdown code span ("`misc/ibvwrap.cc:206 NCCL WARN
 * ...`"): the length of its text between the backticks, 0 when it is not. */
static size_t code_span(slice s, size_t *from)
{
	size_t a = 0, b = s.n;
	while (a < b && blank(s.p[a]))
		a++;
	while (b > a && blank(s.p[b - 1]))
		b--;
	if (b - a < 3 || s.p[a] != '`' || s.p[b - 1] != '`' || memchr(s.p + a + 1, '`', b - a - 2))
		return 0;
	*from = a + 1;
	return b - a - 2;
}

size_t join_unmark(slice s, char *out, size_t cap, bool *whole)
{
	*whole = false;
	size_t from, n = s.n && s.n <= cap && memchr(s.p, '`', s.n) ? code_span(s, &from) : 0;
	if (n) {
		/* the span closes on this line: the paste says it is whole */
		*whole = true;
		size_t k = join_unlink((slice){ s.p + from, n }, out, cap);
		if (!k)
			memcpy(out, s.p + from, n);
		return k ? k : n;
	}
	return join_unlink(s, out, cap);
}

size_t join_unlink(slice s, char *out, size_t cap)
{
	/* the cheap test first: a line of a log seldom holds "://" (found by
	 * its slashes, which are few); the result is never longer than s */
	if (s.n < 8 || s.n > cap)
		return 0;
	const char *q = s.p + 1, *end = s.p + s.n - 1;
	while (q < end && (q = memchr(q, '/', (size_t)(end - q))) && !(q[-1] == ':' && q[1] == '/'))
		q++;
	if (!q || q >= end)
		return 0;
	size_t n = 0, links = 0;
	for (size_t i = 0; i < s.n;) {
		char c = s.p[i];
		slice host;
		if (c == '[') {
			/* "[text](target)": the text, as the page showed it */
			const char *rb = memchr(s.p + i + 1, ']', s.n - i - 1 < 256 ? s.n - i - 1 : 256);
			size_t e = rb ? (size_t)(rb - s.p) : 0;
			size_t tl = e && e + 1 < s.n && s.p[e + 1] == '(' ? link_target(s, e + 2, ')', &host) : 0;
			if (tl && !memchr(s.p + i + 1, '[', e - i - 1)) {
				memcpy(out + n, s.p + i + 1, e - i - 1);
				n += e - i - 1;
				i = e + 2 + tl + 1;
				links++;
				continue;
			}
		} else if (c == '<') {
			/* "<target>", "<target|text>": the host it names, once */
			size_t tl = link_target(s, i + 1, '>', &host);
			if (tl) {
				const char *bar = memchr(host.p, '|', host.n);
				slice show = bar ? (slice){ bar + 1, (size_t)(host.p + host.n - bar - 1) } : host;
				if (!bar && show.n && show.p[show.n - 1] == '/')
					show.n--;
				if (!bar && memchr(show.p, '/', show.n)) {
					/* a page's address, not a host made a link: keep it */
					show = (slice){ s.p + i + 1, tl };
				}
				if (!(n >= show.n && show.n && memcmp(out + n - show.n, show.p, show.n) == 0)) {
					memcpy(out + n, show.p, show.n);
					n += show.n;
				}
				i += 1 + tl + 1;
				links++;
				continue;
			}
		}
		out[n++] = c;
		i++;
	}
	return links ? n : 0;
}

bool join_record_opens_msg(const record *r)
{
	return r->ln.tag.n && !r->nccl && slice_find(r->text, "NCCL error", 10) >= 0;
}

bool join_record_bare(const record *r)
{
	slice b = r->body;
	return !r->ln.tag.n && !r->nccl && r->level == LV_NONE && r->time == 0 && b.n && !slice_starts(b, "Traceback (") &&
	       !slice_starts(b, "ERROR:") && !slice_starts(b, "WARNING:") && !slice_starts(b, "INFO:");
}

bool join_opens_msg(slice s)
{
	record r;
	record_parse(s, &r);
	return join_record_opens_msg(&r);
}

bool join_bare(slice s)
{
	record r;
	record_parse(s, &r);
	return join_record_bare(&r);
}
