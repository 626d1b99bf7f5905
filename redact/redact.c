#include "redact.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../parser/record.h"
#include "scan.h"

#define MAX_SPANS 32

static bool all_digits(slice w)
{
	for (size_t i = 0; i < w.n; i++)
		if (!scan_digit(w.p[i]))
			return false;
	return w.n > 0 && w.n <= 9;
}

static bool is_hex(char c)
{
	return scan_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

void redact_init(redactor *r, const char *key)
{
	*r = (redactor){ pseudo_new(key) };
}

void redact_free(redactor *r)
{
	pseudo_free(r->ps);
	*r = (redactor){ 0 };
}

void scan_put(scanner *sc, size_t from, size_t to, const char *text)
{
	if (sc->out) {
		sb_add(sc->out, sc->s.p + sc->lit, from - sc->lit);
		sb_adds(sc->out, text);
	}
	sc->lit = to;
}

void scan_put_cased(scanner *sc, size_t from, size_t to, const char *text)
{
	bool upper = false, lower = false, first_upper = from < to && sc->s.p[from] >= 'A' && sc->s.p[from] <= 'Z';
	for (size_t i = from; i < to; i++) {
		upper = upper || (sc->s.p[i] >= 'A' && sc->s.p[i] <= 'Z');
		lower = lower || (sc->s.p[i] >= 'a' && sc->s.p[i] <= 'z');
	}
	if (!upper || !sc->out) {
		scan_put(sc, from, to, text);
		return;
	}
	scan_put(sc, from, to, "");
	for (size_t i = 0; text[i]; i++) {
		char c = text[i];
		if (c >= 'a' && c <= 'z' && (!lower || (i == 0 && first_upper)))
			c = (char)(c - 32);
		sb_addc(sc->out, c);
	}
}

size_t scan_token_end(slice s, size_t i)
{
	while (i < s.n && (scan_word(s.p[i]) || (s.p[i] == '.' && i + 1 < s.n && scan_word(s.p[i + 1]))))
		i++;
	return i;
}

/* Parses every record of a line as the analyzer does (per carriage-return
 * segment, glued records too): the spans of launcher and NCCL host names
 * and of pids, in order. */
static size_t record_spans(slice text, span *sp)
{
	size_t nsp = 0;
	slice s = text;
	while (s.n) {
		const char *cr = memchr(s.p, '\r', s.n);
		slice seg = { s.p, cr ? (size_t)(cr - s.p) : s.n };
		size_t off = 0;
		while (off < seg.n) {
			record rec;
			size_t k = record_parse((slice){ seg.p + off, seg.n - off }, &rec);
			slice hosts[2] = { rec.ln.host, rec.nccl ? rec.host : SLICE_NONE };
			for (int h = 0; h < 2; h++) {
				size_t at = hosts[h].n ? (size_t)(hosts[h].p - text.p) : 0;
				if (hosts[h].n && nsp < MAX_SPANS && (!nsp || sp[nsp - 1].at + sp[nsp - 1].n <= at))
					sp[nsp++] = (span){ at, hosts[h].n, 'h' };
			}
			if (rec.nccl && rec.host.n) {
				/* host:pid:tid: the digits right after the host */
				const char *q = rec.host.p + rec.host.n, *end = text.p + text.n;
				for (int field = 0; field < 2 && q < end && *q == ':'; field++) {
					const char *d = ++q;
					while (q < end && scan_digit(*q))
						q++;
					if (q == d)
						break;
					if (nsp < MAX_SPANS)
						sp[nsp++] = (span){ (size_t)(d - text.p), (size_t)(q - d), 'p' };
				}
			}
			off += k ? k : seg.n - off;
		}
		if (!cr)
			break;
		s.n -= seg.n + 1;
		s.p += seg.n + 1;
	}
	return nsp;
}

/* "a.b.c.d" at s[i], not part of a longer dotted number; octets may be
 * zero-padded ("010.001.002.003"), *padded says so. Returns its length, 0
 * when there is none. */
static size_t ipv4_at(slice s, size_t i, unsigned char *b, bool *padded)
{
	size_t j = i;
	*padded = false;
	for (int o = 0; o < 4; o++) {
		if (o) {
			if (j >= s.n || s.p[j] != '.')
				return 0;
			j++;
		}
		size_t d = j;
		unsigned v = 0;
		while (j < s.n && scan_digit(s.p[j]) && j - d < 4)
			v = v * 10 + (unsigned)(s.p[j++] - '0');
		if (j == d || j - d > 3 || v > 255)
			return 0;
		*padded = *padded || (s.p[d] == '0' && j - d > 1);
		b[o] = (unsigned char)v;
	}
	if (j < s.n && (scan_digit(s.p[j]) || (s.p[j] == '.' && j + 1 < s.n && scan_digit(s.p[j + 1]))))
		return 0;
	return j - i;
}

/* An IPv6 address at s[i] (an IPv4-mapped tail included, a network prefix
 * "2001:db8:12::" too). Returns its length, 0 when there is none. Guards
 * against C++ scopes ("c10::Error", "at::") and clock times ("10:22:33"). */
static size_t ipv6_at(slice s, size_t i, ipaddr *a)
{
	size_t j = i, colons = 0, groups = 0;
	bool dbl = false;
	while (j < s.n && j - i < 46 && (is_hex(s.p[j]) || s.p[j] == ':')) {
		if (s.p[j] == ':') {
			colons++;
			dbl = dbl || (j > i && s.p[j - 1] == ':');
		} else if (j == i || s.p[j - 1] == ':') {
			groups++;
		}
		j++;
	}
	if (j < s.n && s.p[j] == '.')
		while (j < s.n && j - i < 46 && (scan_digit(s.p[j]) || s.p[j] == '.'))
			j++;
	size_t n = j - i;
	if (colons < 2 || (!dbl && colons != 7) || n > 45)
		return 0;
	if (j < s.n && (scan_word(s.p[j]) || s.p[j] == '.'))
		return 0;
	/* "c10::", "fd00::": one group before "::" names nothing */
	if (n >= 2 && s.p[j - 1] == ':' && s.p[j - 2] == ':' && groups < 2)
		return 0;
	char tmp[48];
	memcpy(tmp, s.p + i, n);
	tmp[n] = '\0';
	*a = (ipaddr){ .family = 6 };
	return inet_pton(AF_INET6, tmp, a->b) == 1 ? n : 0;
}

/* "pid 123", "pid=123", "pid: 123" after the word at s[w..i): the digits. */
static bool pid_after(slice s, size_t w, size_t i, size_t *d, size_t *e)
{
	if (i - w != 3 || strncasecmp(s.p + w, "pid", 3) != 0)
		return false;
	size_t j = i;
	while (j < s.n && j - i < 3 && (s.p[j] == ' ' || s.p[j] == '=' || s.p[j] == ':'))
		j++;
	size_t k = j;
	while (k < s.n && scan_digit(s.p[k]))
		k++;
	if (j == i || k == j || k - j > 9 || (k < s.n && scan_word(s.p[k])))
		return false;
	*d = j;
	*e = k;
	return true;
}

static void put_pid(scanner *sc, size_t from, size_t to, bool known_only)
{
	slice digits = { sc->s.p + from, to - from };
	const char *v = known_only ? pseudo_pid_find(sc->r->ps, digits) : pseudo_pid(sc->r->ps, digits);
	if (v)
		scan_put(sc, from, to, v);
}

static void put_v4(scanner *sc, size_t from, size_t to, const unsigned char *b, bool padded)
{
	char t[20];
	snprintf(t, sizeof t, padded ? "%03u.%03u.%03u.%03u" : "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	scan_put(sc, from, to, t);
}

/* A ':' within the first group: the cheap test before ipv6_at. */
static bool colon_soon(slice s, size_t i)
{
	for (size_t j = i; j < s.n && j <= i + 4; j++) {
		if (s.p[j] == ':')
			return true;
		if (!is_hex(s.p[j]))
			return false;
	}
	return false;
}

/* An IPv6 address written as the original was: compressed ("::") or all
 * eight groups (zero-padded when they were), in the same letter case. */
static void put_v6(scanner *sc, size_t from, size_t to, const ipaddr *a)
{
	slice o = { sc->s.p + from, to - from };
	bool upper = false, compressed = false, padded = true;
	size_t group = 0;
	for (size_t i = 0; i < o.n; i++) {
		upper = upper || (o.p[i] >= 'A' && o.p[i] <= 'F');
		compressed = compressed || (o.p[i] == ':' && i + 1 < o.n && o.p[i + 1] == ':');
		if (o.p[i] == ':' || o.p[i] == '.') {
			padded = padded && (group == 4 || o.p[i] == '.');
			group = 0;
		} else {
			group++;
		}
	}
	padded = padded && group == 4;
	char txt[64];
	bool v4_tail = memchr(o.p, '.', o.n) != NULL;
	if (compressed || v4_tail) {
		inet_ntop(AF_INET6, a->b, txt, sizeof txt);
	} else {
		size_t n = 0;
		for (int g = 0; g < 8; g++)
			n += (size_t)snprintf(txt + n, sizeof txt - n, padded ? "%s%04x" : "%s%x", g ? ":" : "",
					      (unsigned)(a->b[2 * g] << 8 | a->b[2 * g + 1]));
	}
	for (char *t = txt; upper && *t; t++)
		if (*t >= 'a' && *t <= 'f')
			*t = (char)(*t - 32);
	scan_put(sc, from, to, txt);
}

/* Pointers, addresses and pids by their shape, then words: returns where
 * scanning goes on after s[i], or 0 when s[i] starts none of these. */
static size_t shapes_at(scanner *sc, size_t i)
{
	slice s = sc->s;
	char c = s.p[i], prev = i ? s.p[i - 1] : ' ';
	bool after_word = scan_word(prev) || prev == '.';
	if (c == '0' && i + 1 < s.n && (s.p[i + 1] == 'x' || s.p[i + 1] == 'X') && !after_word) {
		size_t e = i + 2;
		while (e < s.n && is_hex(s.p[e]))
			e++;
		if (e - i - 2 >= 8 && e - i - 2 <= 32 && (e == s.n || !scan_word(s.p[e]))) {
			scan_put(sc, i + 2, i + 2, "");
			if (sc->out)
				pseudo_hex(sc->r->ps, (slice){ s.p + i + 2, e - i - 2 }, sc->out);
			sc->lit = e;
			return e;
		}
	}
	unsigned char v4[4];
	bool padded;
	size_t n;
	if (scan_digit(c) && !after_word && (n = ipv4_at(s, i, v4, &padded))) {
		ipaddr a = { .family = 4 };
		memcpy(a.b, v4, 4);
		pseudo_ip(sc->r->ps, &a);
		put_v4(sc, i, i + n, a.b, padded);
		return i + n;
	}
	ipaddr a6;
	if ((is_hex(c) || c == ':') && !scan_word(prev) && colon_soon(s, i) && (n = ipv6_at(s, i, &a6))) {
		pseudo_ip(sc->r->ps, &a6);
		put_v6(sc, i, i + n, &a6);
		return i + n;
	}
	return 0;
}

/* The scanner behind redact_line, redact_learn and redact_name. */
static void scan(redactor *r, slice s, const span *sp, size_t nsp, bool name_mode, strbuf *out)
{
	scanner sc = { .r = r, .s = s, .out = out, .name_mode = name_mode };
	size_t i = 0, k = 0;
	while (i < s.n) {
		while (k < nsp && sp[k].at < i)
			k++;
		if (sc.ctx != CTX_NONE && i >= sc.ctx_end)
			sc.ctx = CTX_NONE;
		if (k < nsp && sp[k].at == i) {
			size_t e = i + sp[k].n;
			if (sp[k].what == 'p')
				put_pid(&sc, i, e, false);
			else if (!shapes_at(&sc, i))
				names_host(&sc, i, e);
			i = e > sc.lit ? e : sc.lit;
			continue;
		}
		char c = s.p[i];
		size_t n;
		if ((c == '/' || c == '~') && (n = paths_at(&sc, i))) {
			i = n;
			continue;
		}
		if ((n = shapes_at(&sc, i))) {
			i = n;
			continue;
		}
		if (!scan_word(c)) {
			i++;
			continue;
		}
		size_t e = scan_token_end(s, i), d, pe;
		slice word = { s.p + i, e - i };
		if (pid_after(s, i, e, &d, &pe)) {
			put_pid(&sc, d, pe, false);
			i = pe;
		} else if (name_mode && all_digits(word)) {
			put_pid(&sc, i, e, true);
			i = e;
		} else if ((sc.ctx == CTX_NONE || i >= sc.ctx_end) && keys_value(&sc, i, e, &n)) {
			/* (no key inside a value: "host=host=..." stays linear) */
			i = n;
		} else {
			size_t at = i;
			i = names_token(&sc, i, e);
			sc.prev_at = at;
			sc.prev_end = e;
			continue;
		}
		sc.prev_at = word.p - s.p;
		sc.prev_end = e;
	}
	if (out)
		sb_add(out, s.p + sc.lit, s.n - sc.lit);
}

void redact_learn(redactor *r, slice text)
{
	span sp[MAX_SPANS];
	size_t nsp = record_spans(text, sp);
	scan(r, text, sp, nsp, false, NULL);
}

void redact_line(redactor *r, slice text, strbuf *out)
{
	span sp[MAX_SPANS];
	size_t nsp = record_spans(text, sp);
	scan(r, text, sp, nsp, false, out);
}

void redact_name(redactor *r, const char *name, strbuf *out)
{
	scan(r, slice_from(name), NULL, 0, true, out);
}

static void on_line(void *ctx, const line *l)
{
	redact_stream *s = ctx;
	if (s->learn_only) {
		redact_learn(s->r, l->text);
		return;
	}
	sb_clear(&s->out);
	redact_line(s->r, l->text, &s->out);
	sb_addc(&s->out, '\n');
	s->emit(s->ctx, s->out.p, s->out.n);
}

void redact_stream_begin(redact_stream *s, redactor *r, bool learn_only, redact_emit emit, void *ctx)
{
	*s = (redact_stream){ .r = r, .learn_only = learn_only, .emit = emit, .ctx = ctx };
	linesplit_init(&s->ls, REDACT_MAX_LINE);
}

void redact_stream_feed(redact_stream *s, const char *p, size_t n)
{
	linesplit_feed(&s->ls, p, n, on_line, s);
}

void redact_stream_end(redact_stream *s)
{
	linesplit_flush(&s->ls, on_line, s);
	linesplit_free(&s->ls);
	sb_free(&s->out);
}
