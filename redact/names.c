/* Names: host names wherever they stand (learned from the positions that
 * say a word is a host, then found anywhere, with their "-suffix" and FQDN
 * forms), domains, cloud names that spell an address, Slurm node lists,
 * URLs (their credentials too) and e-mail addresses. */
#include <string.h>
#include <strings.h>

#include "scan.h"

#define NODELIST_SHOWN 64     /* names written out for a node list */
#define NODELIST_LEARNED 1024 /* names learned from one node list */
#define NODELIST_LINE 4096    /* names expanded from one line, all lists */

/* Top-level domains that end host names in logs, and the private ones
 * clusters use. File extensions that are also country codes (.py, .sh,
 * .so, .pt, .md, .cc, .rs, .in, .pl) are left out on purpose. */
static const char *const tlds[] = {
	"com", "org", "net", "edu", "gov", "mil", "io", "ai", "dev", "cloud", "tech", "biz", "us", "uk", "de", "fr",
	"cn", "jp", "kr", "ru", "nl", "ch", "se", "ca", "au", "eu", "tw", "sg", "il", "es", "fi", "dk", "br", "cz", "hk",
	"nz", "be", "no", "at", "local", "localdomain", "internal", "lan", "intranet", "corp", "cluster", "svc",
	"priv", "private", "arpa", "example", "test", "invalid", NULL,
};

/* Labels after a host name that make a file name, not a domain. */
static const char *const exts[] = {
	"log", "txt", "out", "err", "json", "gz", "zst", "csv", "yaml", "yml", "py", "sh", "pt", "ckpt", "bin", "conf",
	"cfg", "xml", "html", "md", "stdout", "stderr", "tar", "tgz", "bz2", "xz", "lock", "pid", "sock", "err", NULL,
};

/* Words that name no one: not learned as hosts, not replaced. */
static const char *const generic[] = {
	"localhost", "none", "null", "nil", "true", "false", "unknown", "undefined", "auto", "default", "any", "all",
	"yes", "no", "na", "self", "master", "worker", "head", "node", "server", "host", "client", "local", "remote",
	"peer", "main", "primary", "hostname", NULL,
};

/* Network interface names ("eth0", "ib0", "veth75fa783", "br-3f2a"): the
 * diagnosis reads them, they are never hosts. */
static bool iface_like(slice w)
{
	static const char *const ifaces[] = { "eth", "ens", "enp", "eno", "enP", "em", "ib", "ibp", "ibs", "mlx",
					      "docker", "veth", "virbr", "bond", "wlan", "hsn", "bxi", "ipogif",
					      "cxi", "efa", NULL };
	if (w.n == 2 && w.p[0] == 'l' && w.p[1] == 'o')
		return true;
	if (w.n > 3 && memcmp(w.p, "br-", 3) == 0)
		return true;
	if (memchr(w.p, '-', w.n) || memchr(w.p, '.', w.n))
		return false;
	for (size_t i = 0; ifaces[i]; i++) {
		size_t n = strlen(ifaces[i]);
		if (w.n > n && strncmp(w.p, ifaces[i], n) == 0 && scan_digit(w.p[n]))
			return true;
	}
	return w.n > 4 && memcmp(w.p, "veth", 4) == 0;
}

static bool has_digit(slice w)
{
	for (size_t i = 0; i < w.n; i++)
		if (scan_digit(w.p[i]))
			return true;
	return false;
}

/* A host name by its syntax: labels of word characters, a letter in it,
 * not a generic word. weak (no key or phrase leaves no doubt): a digit, a
 * dash, an underscore or a dot in it too, and no bare hex number. */
static bool hostish(slice w, bool weak)
{
	if (w.n < 2 || w.n > 253 || scan_word_in(w, generic) || iface_like(w))
		return false;
	bool letter = false, mark = false, hex = true;
	for (size_t i = 0; i < w.n; i++) {
		char c = w.p[i];
		if (c == '.' && (i == 0 || i + 1 == w.n || w.p[i - 1] == '.'))
			return false;
		if (c != '.' && !scan_word(c))
			return false;
		letter = letter || scan_alpha(c);
		mark = mark || c == '-' || c == '_' || c == '.' || scan_digit(c);
		hex = hex && (scan_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
	}
	return letter && (!weak || (mark && !(hex && w.n >= 8)));
}

static slice sub(const scanner *sc, size_t at, size_t end)
{
	return (slice){ sc->s.p + at, end - at };
}

/* True when every label of s[at..end) is a file extension or a number. */
static bool ext_only(const scanner *sc, size_t at, size_t end)
{
	while (at < end) {
		const char *dot = memchr(sc->s.p + at, '.', end - at);
		size_t e = dot ? (size_t)(dot - sc->s.p) : end;
		slice l = sub(sc, at, e);
		bool num = l.n > 0;
		for (size_t i = 0; i < l.n; i++)
			num = num && scan_digit(l.p[i]);
		if (!num && !scan_word_in(l, exts))
			return false;
		at = e + 1;
	}
	return true;
}

/* Replaces the domain s[at..end) (after a host's first label). */
static void put_domain(scanner *sc, size_t at, size_t end)
{
	if (at >= end || ext_only(sc, at, end))
		return;
	scan_put_cased(sc, at, end, pseudo_name(sc->r->ps, PSEUDO_DOMAIN, sub(sc, at, end), false));
}

static size_t label_end(const scanner *sc, size_t at, size_t end)
{
	while (at < end && sc->s.p[at] != '.')
		at++;
	return at;
}

/* The first label of a host name: an address spelled with dashes maps as
 * the address, any other gets its pseudonym (learned with learn). */
static void put_host_label(scanner *sc, size_t at, size_t end, bool learn)
{
	slice l = sub(sc, at, end);
	strbuf dashed = { 0 };
	if (pseudo_dashed_ip(sc->r->ps, l, &dashed))
		scan_put(sc, at, end, dashed.p);
	else
		scan_put_cased(sc, at, end, pseudo_name(sc->r->ps, PSEUDO_HOST, l, learn));
	sb_free(&dashed);
}

/* A learned host name that the label s[at..end) is, or starts with before
 * a "-suffix" ("gn41207-ib"), possibly glued after digits ("8081dlbox", a
 * progress bar with a record after it). Returns its pseudonym and span. */
static const char *known_in(const scanner *sc, size_t at, size_t end, size_t *from, size_t *to)
{
	size_t minlen, maxlen;
	if (!pseudo_hosts(sc->r->ps, &minlen, &maxlen))
		return NULL;
	const char *s = sc->s.p;
	for (size_t st = at, tries = 0; st < end && tries < 3; st++) {
		if (st > at && !(scan_digit(s[st - 1]) && scan_alpha(s[st])))
			continue;
		tries++;
		for (size_t e = end; e > st; e--) {
			if (e < end && s[e] != '-' && s[e] != '_')
				continue;
			if (e - st < minlen || e - st > maxlen)
				continue;
			const char *v = pseudo_find(sc->r->ps, PSEUDO_HOST, (slice){ s + st, e - st });
			if (v) {
				*from = st;
				*to = e;
				return v;
			}
		}
	}
	return NULL;
}

void names_host(scanner *sc, size_t at, size_t end)
{
	/* a number glued in front ("acc: 0.8081dlbox:27768:..." after a
	 * progress bar) is not part of the name */
	size_t st = at;
	while (st < end && (scan_digit(sc->s.p[st]) || sc->s.p[st] == '.'))
		st++;
	if (st > at && (!memchr(sc->s.p + at, '.', st - at) || st == end || !scan_alpha(sc->s.p[st])))
		st = at;
	slice w = sub(sc, st, end);
	if (!hostish(w, false))
		return;
	size_t le = label_end(sc, st, end), from, to;
	const char *v = known_in(sc, st, le, &from, &to);
	if (v && from == st)
		scan_put_cased(sc, from, to, v);
	else
		put_host_label(sc, st, le, true);
	if (le < end)
		put_domain(sc, le + 1, end);
}

static size_t count_labels(const scanner *sc, size_t at, size_t end, size_t *last)
{
	size_t n = 1;
	*last = at;
	for (size_t i = at; i < end; i++)
		if (sc->s.p[i] == '.') {
			n++;
			*last = i + 1;
		}
	return n;
}

/* In a file name, the labels of s[at..end) that are known pids
 * ("rank.51201.log"). */
static void pid_labels(scanner *sc, size_t at, size_t end)
{
	for (size_t l = at; sc->name_mode && l < end; l = label_end(sc, l, end) + 1) {
		size_t e = label_end(sc, l, end), d = l;
		while (d < e && scan_digit(sc->s.p[d]))
			d++;
		const char *v = d == e && e - l <= 9 && l >= sc->lit ? pseudo_pid_find(sc->r->ps, sub(sc, l, e)) : NULL;
		if (v)
			scan_put(sc, l, e, v);
	}
}

/* A token outside any key or phrase: known hosts, cloud names, domains,
 * token-shaped secrets. */
static size_t plain(scanner *sc, size_t at, size_t end)
{
	slice w = sub(sc, at, end);
	if (keys_secret_shape(w)) {
		scan_put(sc, at, end, SECRET_MASK);
		return end;
	}
	size_t le = label_end(sc, at, end), from, to;
	if (pseudo_dashed_ip(sc->r->ps, sub(sc, at, le), NULL)) {
		put_host_label(sc, at, le, false);
		if (le < end)
			put_domain(sc, le + 1, end);
		return end;
	}
	/* a known host in any label: "nccl.dgx-b12.51201.log" */
	for (size_t l = at; l < end; l = label_end(sc, l, end) + 1) {
		size_t e = label_end(sc, l, end);
		const char *v = known_in(sc, l, e, &from, &to);
		if (v) {
			scan_put_cased(sc, from, to, v);
			if (e < end)
				put_domain(sc, e + 1, end);
			pid_labels(sc, e, end);
			return end;
		}
	}
	pid_labels(sc, at, end);
	if (!memchr(w.p, '.', w.n))
		return end;
	size_t last, n = count_labels(sc, at, end, &last);
	bool call = end < sc->s.n && sc->s.p[end] == '('; /* logger.info(, Path.home( */
	if (n >= 2 && !call && scan_word_in(sub(sc, last, end), tlds) && hostish(w, false) && !scan_digit(sc->s.p[last])) {
		if (n == 2) {
			put_domain(sc, at, end);
		} else {
			slice l0 = sub(sc, at, le);
			put_host_label(sc, at, le, hostish(l0, true) && has_digit(l0));
			put_domain(sc, le + 1, end);
		}
	}
	return end;
}

/* A host name in a value or phrase: learned when strong, or when it looks
 * like one. */
static size_t host(scanner *sc, size_t at, size_t end, bool strong)
{
	slice w = sub(sc, at, end);
	if (!hostish(w, !strong))
		return plain(sc, at, end);
	size_t le = label_end(sc, at, end), from, to;
	const char *v = known_in(sc, at, le, &from, &to);
	if (v && from == at)
		scan_put_cased(sc, from, to, v); /* a known host with a "-suffix" */
	else /* of an FQDN, a first label like "git" or "api" names a service */
		put_host_label(sc, at, le, le == end || hostish(sub(sc, at, le), true));
	if (le < end)
		put_domain(sc, le + 1, end);
	return end;
}

/* "gpu[001-004,007]-ib" at s[at..): stem, ranges, suffix. */
typedef struct nodelist {
	size_t stem_at, stem_end, open, close, suffix_end;
	size_t count;
} nodelist;

static bool nodelist_parse(const scanner *sc, size_t at, size_t end, nodelist *nl)
{
	const char *s = sc->s.p;
	size_t n = sc->s.n, i = end + 1;
	*nl = (nodelist){ at, end, end, 0, 0, 0 };
	if (end >= n || s[end] != '[' || end - at > 200)
		return false;
	while (i < n && s[i] != ']') {
		size_t d = i;
		unsigned long lo = 0, hi;
		while (i < n && scan_digit(s[i]) && i - d < 9)
			lo = lo * 10 + (unsigned long)(s[i++] - '0');
		if (i == d)
			return false;
		hi = lo;
		if (i < n && s[i] == '-') {
			size_t e = ++i;
			hi = 0;
			while (i < n && scan_digit(s[i]) && i - e < 9)
				hi = hi * 10 + (unsigned long)(s[i++] - '0');
			if (i == e || hi < lo)
				return false;
		}
		nl->count += hi - lo + 1;
		if (i < n && s[i] == ',')
			i++;
		else if (i < n && s[i] != ']')
			return false;
	}
	if (i >= n || i == end + 1)
		return false;
	nl->close = i;
	i++;
	while (i < n && scan_word(s[i]))
		i++;
	nl->suffix_end = i;
	return true;
}

/* Calls fn with each name of a node list, in order, at most max of them. */
static void nodelist_each(const scanner *sc, const nodelist *nl, size_t max,
			  void (*fn)(void *ctx, size_t k, slice name), void *ctx)
{
	const char *s = sc->s.p;
	strbuf b = { 0 };
	size_t i = nl->open + 1, k = 0;
	while (i < nl->close && k < max) {
		size_t d = i;
		unsigned long lo = 0, hi;
		while (scan_digit(s[i]))
			lo = lo * 10 + (unsigned long)(s[i++] - '0');
		int width = (int)(i - d);
		hi = lo;
		if (s[i] == '-')
			for (hi = 0, i++; scan_digit(s[i]); i++)
				hi = hi * 10 + (unsigned long)(s[i] - '0');
		if (s[i] == ',')
			i++;
		for (unsigned long v = lo; v <= hi && k < max; v++, k++) {
			sb_clear(&b);
			sb_add(&b, s + nl->stem_at, nl->stem_end - nl->stem_at);
			sb_printf(&b, "%0*lu", width, v);
			sb_add(&b, s + nl->close + 1, nl->suffix_end - nl->close - 1);
			fn(ctx, k, (slice){ b.p, b.n });
		}
	}
	sb_free(&b);
}

typedef struct listing {
	scanner *sc;
	bool known, write;
	strbuf out;
} listing;

static void first_known(void *ctx, size_t k, slice name)
{
	listing *l = ctx;
	(void)k;
	l->known = pseudo_find(l->sc->r->ps, PSEUDO_HOST, name) != NULL;
}

static void learn_name(void *ctx, size_t k, slice name)
{
	listing *l = ctx;
	const char *v = pseudo_name(l->sc->r->ps, PSEUDO_HOST, name, true);
	if (l->write) {
		if (k)
			sb_addc(&l->out, ',');
		sb_adds(&l->out, v);
	}
}

/* A Slurm node list: every name in it is a host. Written out as the list
 * of their pseudonyms when short, else as the stem's pseudonym with the
 * ranges. */
static size_t nodelist_at(scanner *sc, size_t at, size_t end, bool in_hosts)
{
	nodelist nl;
	if (!nodelist_parse(sc, at, end, &nl))
		return 0;
	listing l = { .sc = sc, .write = nl.count <= NODELIST_SHOWN };
	nodelist_each(sc, &nl, 1, first_known, &l);
	if (!in_hosts && !l.known)
		return 0;
	size_t budget = sc->listed < NODELIST_LINE ? NODELIST_LINE - sc->listed : 0;
	if (l.write && nl.count > budget)
		l.write = false; /* a line of many lists: no longer written out */
	budget = budget < NODELIST_LEARNED ? budget : NODELIST_LEARNED;
	sc->listed += nl.count < budget ? nl.count : budget;
	nodelist_each(sc, &nl, budget, learn_name, &l);
	if (l.write)
		scan_put(sc, at, nl.suffix_end, l.out.p ? l.out.p : "");
	else
		put_host_label(sc, at, end, false); /* the ranges stay: node numbers only */
	sb_free(&l.out);
	return nl.suffix_end;
}

/* scheme://user:password@host:port/...: the user, the password, the host. */
static size_t url(scanner *sc, size_t at, size_t end)
{
	const char *s = sc->s.p;
	size_t a = end + 3, e = a, n = sc->s.n, amp = 0;
	(void)at;
	while (e < n && !strchr("/?#\"'`<>() \t,;", s[e])) {
		if (s[e] == '@')
			amp = e;
		e++;
	}
	size_t h = a;
	if (amp) {
		const char *colon = memchr(s + a, ':', amp - a);
		size_t ue = colon ? (size_t)(colon - s) : amp;
		if (ue > a)
			scan_put(sc, a, ue, pseudo_name(sc->r->ps, PSEUDO_USER, sub(sc, a, ue), true));
		if (colon && amp > ue + 1)
			scan_put(sc, ue + 1, amp, SECRET_MASK);
		h = amp + 1;
	}
	if (h >= e || !scan_word(s[h]) || scan_digit(s[h]))
		return h; /* an address, [an IPv6] or nothing: the shapes handle it */
	size_t he = scan_token_end(sc->s, h);
	return host(sc, h, he, true);
}

/* local@domain: the user, then the host or the mail domain. */
static size_t at_sign(scanner *sc, size_t at, size_t end)
{
	size_t d = end + 1, de = scan_token_end(sc->s, d);
	slice dom = sub(sc, d, de);
	if (!hostish(dom, false) || (at > 0 && sc->s.p[at - 1] == '/'))
		return 0;
	scan_put(sc, at, end, pseudo_name(sc->r->ps, PSEUDO_USER, sub(sc, at, end), true));
	size_t le = label_end(sc, d, de), from, to;
	if (le == de) {
		put_host_label(sc, d, de, true); /* ssh user@host */
	} else if (known_in(sc, d, le, &from, &to)) {
		put_host_label(sc, d, le, true);
		put_domain(sc, le + 1, de);
	} else {
		put_domain(sc, d, de); /* a mail domain: no host in it to learn */
	}
	return de;
}

size_t names_token(scanner *sc, size_t at, size_t end)
{
	const char *s = sc->s.p;
	size_t n = sc->s.n, next;
	if (end + 2 < n && s[end] == ':' && s[end + 1] == '/' && s[end + 2] == '/')
		return url(sc, at, end);
	if (end + 1 < n && s[end] == '@' && scan_word(s[end + 1]) && (next = at_sign(sc, at, end)))
		return next;
	bool strong = sc->ctx_strong;
	enum ctx ctx = sc->ctx != CTX_NONE && at < sc->ctx_end ? sc->ctx : CTX_NONE;
	if (ctx == CTX_NONE)
		ctx = keys_phrase(sc, at, end, &strong);
	if (end < n && s[end] == '[' && (next = nodelist_at(sc, at, end, ctx == CTX_HOST)))
		return next;
	switch (ctx) {
	case CTX_HOST:
		return host(sc, at, end, strong);
	case CTX_USER:
		scan_put(sc, at, end, pseudo_name(sc->r->ps, PSEUDO_USER, sub(sc, at, end), true));
		return end;
	case CTX_NAME:
		if (!scan_word_in(sub(sc, at, end), generic))
			scan_put(sc, at, end, pseudo_name(sc->r->ps, PSEUDO_NAME, sub(sc, at, end), false));
		return end;
	default:
		return plain(sc, at, end);
	}
}
